/* The line reader. Input comes in large blocks from memory or from a read function
 * (a descriptor, or a log that libarchive decompresses or takes out of an archive:
 * see container.c), and lines are cut out of each block in place; only a line that
 * straddles two blocks is copied. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "logdx/input.h"
#include "../core/util.h"
#include "input_int.h"
#include "../plumbing.h"

/* Line ends are found 64 bytes at a time with SSE2 (every x86-64), else with memchr;
 * -DLDX_NO_SIMD builds the second way anywhere (the tests run both). */
#if defined(__SSE2__) && !defined(LDX_NO_SIMD)
#define LDXI_EOL_SIMD 1
#include <emmintrin.h>
#endif

#define BLOCK_SIZE (256u * 1024u)
/* What says whether the input is a hard-wrapped paste: its first 64 KiB (or all of it),
 * whatever sizes its reads come in, so that a file, a pipe and a gzip stream of the same
 * text are read alike. */
#define PROBE_SIZE (64u * 1024u)

struct ldx_reader {
    char *name;
    ldxi_read_fn fn;     /* the source; NULL for a memory reader */
    void *fnctx;
    void *owner;         /* released with the reader (ldx_reader_open_fd: the input fn */
    void (*release)(void *owner); /* reads from), so the reader needs no container */
    const char *mem;     /* the memory reader's data */
    size_t memlen;
    char *block;         /* owned block for gz input */
    const char *buf;     /* the current block */
    size_t pos, end;
    bool eof;
    bool failed;
    bool pending_cr;     /* the last block ended in "\r": skip a "\n" that follows */
#ifdef LDXI_EOL_SIMD
    const char *eol_at;  /* where line ends are: a bit for each "\n" or "\r" of the 64 */
    uint64_t eol_bits;   /* bytes from eol_at (fewer at the block's end) */
    bool eol_valid;      /* for this block */
#else
    const char *cr;      /* the next "\r" at or after where it was looked for, or NULL */
    bool cr_searched;    /* cr is valid for this block */
    const char *nl;      /* the same for "\n" */
    bool nl_searched;
#endif
    const char *esc;     /* the same for ESC (ANSI escapes), so that lines can say */
    bool esc_searched;
    ldx_buf partial;     /* a line that straddles blocks */
    size_t part_full;    /* its length before truncation */
    uint64_t lineno;
    uint64_t bytes;
    char *error;
    /* a hard-wrapped paste (unwrap.c): rows wrap_w wide are read joined to the next */
    bool probed;         /* the first block was looked at */
    bool keep_wraps;     /* the caller asked for rows as they are */
    size_t wrap_w;       /* 0: not a cut paste, or no longer read as one */
    size_t wrap_seen;    /* the width found, for the caller's note */
    uint64_t joins;      /* rows joined to the one before */
    ldx_buf join;        /* the joined line */
    size_t indent;       /* an indented paste (dedent.c): the blanks taken off each line */
};

static ldx_status alloc_reader(ldx_reader **out, const char *name)
{
    ldx_reader *r = calloc(1, sizeof(*r));
    if (!r) return LDX_ENOMEM;
    r->name = ldxi_strdup(name ? name : "-");
    ldxi_buf_init(&r->partial, LDX_LINE_MAX + 1);
    ldxi_buf_init(&r->join, LDX_LINE_MAX + 1);
    if (!r->name) {
        free(r);
        return LDX_ENOMEM;
    }
    *out = r;
    return LDX_OK;
}

ldx_status ldxi_reader_open_fn(ldx_reader **out, ldxi_read_fn fn, void *ctx,
                               const char *name)
{
    ldx_reader *r;
    LDX_TRY(alloc_reader(&r, name));
    r->block = malloc(BLOCK_SIZE);
    if (!r->block) {
        ldx_reader_destroy(r);
        return LDX_ENOMEM;
    }
    r->fn = fn;
    r->fnctx = ctx;
    r->buf = r->block;
    *out = r;
    return LDX_OK;
}

ldx_status ldx_reader_open_mem(ldx_reader **out, const char *data, size_t len,
                               const char *name)
{
    ldx_reader *r;
    LDX_TRY(alloc_reader(&r, name));
    r->mem = data;
    r->memlen = len;
    *out = r;
    return LDX_OK;
}

void ldx_reader_destroy(ldx_reader *r)
{
    if (!r) return;
    free(r->block);
    ldxi_buf_free(&r->partial);
    ldxi_buf_free(&r->join);
    free(r->name);
    free(r->error);
    void *owner = r->owner;
    void (*release)(void *) = r->release;
    free(r);
    if (release) release(owner);
}

void ldxi_reader_own(ldx_reader *r, void *owner, void (*release)(void *owner))
{
    r->owner = owner;
    r->release = release;
}

void ldx_reader_keep_wraps(ldx_reader *r)
{
    r->keep_wraps = true;
    r->probed = true; /* nothing to look for */
    r->wrap_w = 0;
    r->indent = 0;
}

size_t ldx_reader_unwrapped(const ldx_reader *r, uint64_t *joins)
{
    if (joins) *joins = r->joins;
    return r->joins ? r->wrap_seen : 0;
}

const char *ldx_reader_error(const ldx_reader *r) { return r->error; }
const char *ldx_reader_name(const ldx_reader *r) { return r->name; }
uint64_t ldx_reader_bytes(const ldx_reader *r) { return r->bytes; }

static void set_error(ldx_reader *r, const char *what)
{
    free(r->error);
    r->error = ldxi_strdup(what);
    r->failed = true;
}

/* The block's bytes changed: the searches start over. */
static void new_block(ldx_reader *r)
{
#ifdef LDXI_EOL_SIMD
    r->eol_valid = false;
#else
    r->cr_searched = r->nl_searched = false;
#endif
    r->esc_searched = false;
}

/* One read of the source into dst[0..cap); false at its end (eof set) or on error. */
static bool read_source(ldx_reader *r, char *dst, size_t cap, size_t *got)
{
    const char *err = NULL;
    ssize_t n = r->fn(r->fnctx, dst, cap, &err);
    if (n <= 0) {
        if (n < 0) set_error(r, err ? err : "read error");
        r->eof = true;
        return false;
    }
    r->bytes += (uint64_t)n;
    *got = (size_t)n;
    return true;
}

/* A new block: the first one says whether the input is a hard-wrapped paste; in a
 * later one a lone "\r" (a redrawn progress bar) says it is not. */
static void probe_block(ldx_reader *r)
{
    const char *p = r->buf + r->pos;
    size_t n = r->end - r->pos;
    if (!r->probed) {
        r->probed = true;
        if (r->keep_wraps) return;
        size_t probe = n < PROBE_SIZE ? n : PROBE_SIZE;
        r->wrap_w = r->wrap_seen = ldxi_wrap_width(p, probe);
        /* rows of a cut paste are measured with their indent: the two are not mixed */
        if (!r->wrap_w) r->indent = ldxi_paste_indent(p, probe);
        return;
    }
    for (const char *q = p; r->wrap_w && (q = memchr(q, '\r', (size_t)(p + n - q))) != NULL; q++)
        if (q + 1 < p + n && q[1] != '\n') r->wrap_w = 0;
}

/* Loads the next block; false at the end of input or on error. */
static bool refill(ldx_reader *r)
{
    if (r->eof) return false;
    new_block(r);
    if (r->mem) {
        if (r->buf) {
            r->eof = true;
            return false;
        }
        r->buf = r->mem;
        r->pos = 0;
        r->end = r->memlen;
        r->bytes = r->memlen;
        if (r->memlen == 0) r->eof = true;
        probe_block(r);
        return r->memlen > 0;
    }
    if (r->fn) {
        size_t got, more;
        if (!read_source(r, r->block, BLOCK_SIZE, &got)) return false;
        while (!r->probed && got < PROBE_SIZE && read_source(r, r->block + got, BLOCK_SIZE - got, &more))
            got += more;
        r->buf = r->block;
        r->pos = 0;
        r->end = got;
        probe_block(r);
        return true;
    }
    return false;
}

static void partial_add(ldx_reader *r, const char *p, size_t n)
{
    r->part_full += n;
    size_t room = LDX_LINE_MAX - r->partial.len;
    if (n > room) n = room;
    if (n) ldxi_buf_append(&r->partial, p, n);
}

static ldx_status emit_partial(ldx_reader *r, ldx_line *line)
{
    line->text = r->partial.data ? r->partial.data : "";
    line->len = r->partial.len;
    line->truncated = r->part_full > r->partial.len;
    line->full_len = r->part_full;
    line->no_esc = false; /* pieced together from blocks: not looked at */
    line->lineno = ++r->lineno;
    r->partial.len = 0; /* the data stays valid until the next call */
    r->part_full = 0;
    return LDX_OK;
}

#ifdef LDXI_EOL_SIMD
/* The line ends among the n <= 64 bytes at p, a bit each. */
static inline uint64_t eol_mask(const char *p, size_t n)
{
    uint64_t m = 0;
    if (n == 64) {
        const __m128i nl = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r');
        for (int k = 0; k < 4; k++) {
            __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * k));
            __m128i e = _mm_or_si128(_mm_cmpeq_epi8(v, nl), _mm_cmpeq_epi8(v, cr));
            m |= (uint64_t)(unsigned)_mm_movemask_epi8(e) << (16 * k);
        }
        return m;
    }
    for (size_t i = 0; i < n; i++)
        if (p[i] == '\n' || p[i] == '\r') m |= (uint64_t)1 << i;
    return m;
}

/* The next line end ("\n" or "\r"), or NULL. Lines of a training log are short (a
 * tqdm piece is 60 bytes): one look at 64 bytes serves the line ends of several, where
 * a memchr a line cost 5% of a scan. */
static inline const char *find_eol(ldx_reader *r, const char *p, const char *end)
{
    for (;;) {
        if (r->eol_valid && p >= r->eol_at && (size_t)(p - r->eol_at) < 64) {
            uint64_t m = r->eol_bits >> (p - r->eol_at);
            if (m) return p + __builtin_ctzll(m);
            if ((size_t)(end - r->eol_at) <= 64) return NULL;
            p = r->eol_at + 64;
        }
        if (p >= end) return NULL;
        size_t n = (size_t)(end - p) < 64 ? (size_t)(end - p) : 64;
        r->eol_at = p;
        r->eol_bits = eol_mask(p, n);
        r->eol_valid = true;
    }
}
#else
/* The next line end. The next "\r" and the next "\n" are each remembered for the block
 * until the reader passes them: "\r" is rare outside progress bars, and a tqdm bar
 * redrawn 30 times before its "\n" is 30 lines, each of which would otherwise search
 * on to that same "\n" again (this was 7% of a scan's time). */
static inline const char *find_eol(ldx_reader *r, const char *p, const char *end)
{
    if (!r->nl_searched || (r->nl && r->nl < p)) {
        r->nl = memchr(p, '\n', (size_t)(end - p));
        r->nl_searched = true;
    }
    const char *nl = r->nl;
    if (!r->cr_searched || (r->cr && r->cr < p)) {
        r->cr = memchr(p, '\r', (size_t)(end - p));
        r->cr_searched = true;
    }
    const char *cr = r->cr;
    if (cr && (!nl || cr < nl)) return cr;
    return nl;
}
#endif

/* The next physical line. */
static ldx_status next_row(ldx_reader *r, ldx_line *line)
{
    bool have_partial = r->partial.len > 0 || r->part_full > 0;
    for (;;) {
        if (r->pos >= r->end) {
            if (!refill(r)) {
                if (have_partial) return emit_partial(r, line);
                return r->failed ? LDX_EIO : LDX_EOF;
            }
        }
        if (r->pending_cr) {
            r->pending_cr = false;
            if (r->buf[r->pos] == '\n') {
                r->pos++;
                continue;
            }
        }
        const char *start = r->buf + r->pos, *end = r->buf + r->end;
        const char *eol = find_eol(r, start, end);
        if (!eol) {
            partial_add(r, start, (size_t)(end - start));
            have_partial = true;
            r->pos = r->end;
            continue;
        }
        size_t n = (size_t)(eol - start);
        r->pos += n + 1;
        if (*eol == '\r') {
            if (r->pos < r->end) {
                if (r->buf[r->pos] == '\n') r->pos++;
            } else {
                r->pending_cr = true;
            }
        }
        if (have_partial) {
            partial_add(r, start, n);
            return emit_partial(r, line);
        }
        line->lineno = ++r->lineno;
        line->full_len = n;
        /* whether an ESC lies in the line: one search per block, not one per line */
        if (!r->esc_searched || (r->esc && r->esc < start)) {
            r->esc = memchr(start, 0x1b, (size_t)(end - start));
            r->esc_searched = true;
        }
        line->no_esc = !r->esc || r->esc > eol;
        line->truncated = n > LDX_LINE_MAX;
        line->text = start;
        line->len = line->truncated ? LDX_LINE_MAX : n;
        return LDX_OK;
    }
}

/* Whether a row of a cut paste goes on in the next one: it is exactly the cut's width
 * (a wider one says the input is not cut there after all). */
static bool row_goes_on(ldx_reader *r, const ldx_line *line)
{
    if (line->full_len < r->wrap_w) return false;
    size_t w = line->truncated ? r->wrap_w + 1 : ldxi_text_width(line->text, line->len);
    if (w > r->wrap_w) r->wrap_w = 0;
    return w == r->wrap_w && ldxi_wrap_row(line->text, line->len);
}

static void join_add(ldx_reader *r, const ldx_line *row)
{
    size_t room = LDX_LINE_MAX - r->join.len;
    if (row->len) ldxi_buf_append(&r->join, row->text, row->len < room ? row->len : room);
}

/* Whether lines are mended one at a time (a cut paste's rows joined, an indented paste's
 * indent taken off), so that the chunk paths, which hand out a block's lines as they lie,
 * step aside. */
static bool mends_lines(const ldx_reader *r) { return r->wrap_w || r->indent; }

/* An indented paste's line without the indent (a line without it stays whole). */
static void strip_indent(const ldx_reader *r, ldx_line *line)
{
    size_t k = ldxi_indent_strip(r->indent, line->text, line->len);
    line->text += k;
    line->len -= k;
    line->full_len -= k;
}

ldx_status ldx_reader_next(ldx_reader *r, ldx_line *line)
{
    ldx_status st = next_row(r, line);
    if (st == LDX_OK && r->indent) strip_indent(r, line);
    if (st != LDX_OK || !r->wrap_w || !row_goes_on(r, line)) return st;
    /* the rows are copied: reading the next one may refill the block they lie in */
    r->join.len = 0;
    join_add(r, line);
    size_t full = line->full_len;
    ldx_line row;
    do {
        if (next_row(r, &row) != LDX_OK) break; /* the end (or error) comes with the next call */
        join_add(r, &row);
        full += row.full_len;
        r->joins++;
    } while (r->wrap_w && row_goes_on(r, &row));
    line->text = r->join.data;
    line->len = r->join.len;
    line->full_len = full;
    line->truncated = full > r->join.len;
    line->no_esc = false;
    return LDX_OK;
}

/* The last line end of p[0..n) (a "\r\n" whole: p[n] may be read when n < readable), as
 * the length of the lines up to it; 0 when there is none. Lines are short, so a look
 * back from the end finds it soon. *cut_cr: they end in a "\r" at readable's edge, whose
 * "\n" may come next. */
static size_t whole_lines(const char *p, size_t n, size_t readable, bool *cut_cr)
{
    size_t k = n;
    while (k > 0 && p[k - 1] != '\n' && p[k - 1] != '\r') k--;
    *cut_cr = false;
    if (k && p[k - 1] == '\r') {
        if (k < readable) k += p[k] == '\n';
        else *cut_cr = true;
    }
    return k;
}

/* Hands out text[0..n), whole lines, as the next chunk. */
static void give_chunk(ldx_reader *r, const char *text, size_t n, ldxi_chunk *out)
{
    out->text = text;
    out->len = n;
    out->lines = ldxi_eol_count(text, n);
    out->first_line = r->lineno + 1;
    r->lineno += out->lines;
}

bool ldxi_reader_chunk_into(ldx_reader *r, char *dst, size_t cap, ldxi_chunk *out)
{
    /* the first block is the reader's: it says whether rows are joined */
    if (!r->probed) {
        if (r->pos >= r->end) refill(r);
        return false;
    }
    /* the reader's own bytes: a line being pieced, a "\r" whose "\n" may come, a memory
     * reader, whole lines in its block, or rows to join, go the other way */
    if (!r->fn || mends_lines(r) || r->eof || r->pending_cr || r->partial.len > 0 ||
        r->part_full > 0 || cap > BLOCK_SIZE || cap < 2)
        return false;
    /* the start of a line the last read cut (what this leaves in its block) goes first */
    size_t have = r->pos < r->end ? r->end - r->pos : 0;
    if (have && (have > cap / 2 || memchr(r->buf + r->pos, '\n', have) ||
                 memchr(r->buf + r->pos, '\r', have)))
        return false;
    memcpy(dst, r->buf + r->pos, have);
    size_t got;
    if (!read_source(r, dst + have, cap - have, &got)) return false; /* the cut line stays */
    size_t total = have + got;
    bool cut_cr;
    size_t n = whole_lines(dst, total, total, &cut_cr);
    /* what follows the last line end stays with the reader, as a block of its own (all of
     * it when no line ends here: a line longer than cap) */
    memcpy(r->block, dst + n, total - n);
    r->buf = r->block;
    r->pos = 0;
    r->end = total - n;
    r->pending_cr = cut_cr;
    new_block(r);
    if (!n) return false;
    give_chunk(r, dst, n, out);
    return true;
}

bool ldxi_reader_chunk(ldx_reader *r, size_t max, ldxi_chunk *out)
{
    if (r->partial.len > 0 || r->part_full > 0) return false; /* a line is being pieced */
    if (r->pos >= r->end && !refill(r)) return false;
    if (mends_lines(r)) return false;
    if (r->pending_cr) {
        r->pending_cr = false;
        if (r->buf[r->pos] == '\n' && ++r->pos >= r->end) return false;
    }
    const char *start = r->buf + r->pos;
    size_t avail = r->end - r->pos;
    if (max > LDX_LINE_MAX) max = LDX_LINE_MAX;
    bool cut_cr;
    size_t n = whole_lines(start, avail < max ? avail : max, avail, &cut_cr);
    if (!n) return false;
    r->pending_cr = cut_cr;
    give_chunk(r, start, n, out);
    r->pos += n;
    return true;
}
