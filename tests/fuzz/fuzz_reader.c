/* Fuzz target: the line reader (src/input/reader.c) over arbitrary bytes.
 *
 * The memory reader is the reference: it sees the whole input as one block. The same
 * bytes read through a descriptor arrive in 256 KiB blocks, so lines and "\r\n" pairs
 * straddle block ends; and gzip-compressed they go through zlib. All three must give
 * the same lines. The input is also read placed across the first block end (or where a
 * line passes the 1 MiB limit), so that those paths run for every input rather than
 * only for huge ones. A gzip stream cut short must end in
 * an error after a prefix of the lines. Each line also goes through the text helpers
 * the scanner uses on it (ANSI stripping, rank, display text). */
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "fuzz.h"
#include "logdx/input.h"
#include "logdx/scan.h"
#include "../../src/plumbing.h"

#define BLOCK (256u * 1024u) /* the reader's block size */

typedef struct {
    uint64_t hash, lineno;
    size_t len, full_len;
    int truncated;
} line_sum;

typedef struct {
    line_sum *v;
    size_t n, cap;
    ldx_status end;
    uint64_t bytes;
} lines;

static void push(lines *ls, const ldx_line *l)
{
    if (ls->n == ls->cap) {
        size_t cap = ls->cap ? ls->cap * 2 : 256;
        line_sum *v = realloc(ls->v, cap * sizeof(*v));
        FUZZ_CHECK(v != NULL);
        ls->v = v;
        ls->cap = cap;
    }
    /* zlib's crc32: not instrumented, so cheap on a 1 MiB line */
    uLong crc = crc32_z(0L, (const Bytef *)l->text, l->len);
    ls->v[ls->n++] = (line_sum){crc, l->lineno, l->len, l->full_len, l->truncated};
}

/* Whether s is valid UTF-8 (no overlongs, surrogates or code points past U+10FFFF). */
static int valid_utf8(const unsigned char *s)
{
    while (*s) {
        unsigned char c = *s;
        size_t need = c < 0x80 ? 0 : c >= 0xc2 && c <= 0xdf ? 1 : c >= 0xe0 && c <= 0xef ? 2
                                   : c >= 0xf0 && c <= 0xf4 ? 3 : 9;
        if (need == 9) return 0;
        for (size_t k = 1; k <= need; k++)
            if ((s[k] & 0xc0) != 0x80) return 0;
        if ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] > 0x9f) ||
            (c == 0xf0 && s[1] < 0x90) || (c == 0xf4 && s[1] > 0x8f))
            return 0;
        s += need + 1;
    }
    return 1;
}

static void check_line(const ldx_line *l, uint64_t expect_no, int helpers)
{
    FUZZ_CHECK(l->text != NULL);
    FUZZ_CHECK(l->lineno >= expect_no); /* more where hard-wrapped rows were joined */
    FUZZ_CHECK(l->len <= LDX_LINE_MAX);
    FUZZ_CHECK(l->truncated ? l->full_len > LDX_LINE_MAX && l->len == LDX_LINE_MAX
                            : l->full_len == l->len);
    FUZZ_CHECK(!memchr(l->text, '\n', l->len) && !memchr(l->text, '\r', l->len));
    if (!helpers || l->len > 8192) return;
    char *clean = malloc(l->len ? l->len : 1);
    FUZZ_CHECK(clean != NULL);
    size_t n = ldx_strip_ansi(l->text, l->len, clean);
    FUZZ_CHECK(n <= l->len);
    FUZZ_CHECK(!memchr(clean, 0x1b, n) || memchr(l->text, 0x1b, l->len));
    int rank = ldx_line_rank(clean, n);
    FUZZ_CHECK(rank >= -1);
    char *shown = ldx_display_text(clean, n, 200);
    FUZZ_CHECK(shown != NULL);
    FUZZ_CHECK(strlen(shown) <= 200 + 3);
    for (const char *p = shown; *p; p++) FUZZ_CHECK((unsigned char)*p >= 0x20 && *p != 0x7f);
    FUZZ_CHECK(valid_utf8((const unsigned char *)shown));
    free(shown);
    free(clean);
}

static lines read_all(ldx_reader *r, int helpers)
{
    lines ls = {0};
    ldx_line l;
    ldx_status st;
    uint64_t next = 1, skipped = 0;
    while ((st = ldx_reader_next(r, &l)) == LDX_OK) {
        check_line(&l, next, helpers);
        skipped += l.lineno - next;
        next = l.lineno + 1;
        push(&ls, &l);
    }
    /* a joined line has its first row's number: numbers are skipped only where rows were joined */
    FUZZ_CHECK(skipped == 0 || ldx_reader_unwrapped(r, NULL) != 0);
    FUZZ_CHECK(st == LDX_EOF || st == LDX_EIO);
    FUZZ_CHECK(st == LDX_EIO ? ldx_reader_error(r) != NULL : 1);
    /* at the end it stays at the end */
    FUZZ_CHECK(ldx_reader_next(r, &l) == st || st == LDX_EIO);
    ls.end = st;
    ls.bytes = ldx_reader_bytes(r);
    return ls;
}

static lines read_mem(const void *data, size_t len, int helpers)
{
    ldx_reader *r;
    FUZZ_CHECK(ldx_reader_open_mem(&r, data, len, "mem") == LDX_OK);
    lines ls = read_all(r, helpers);
    ldx_reader_destroy(r);
    FUZZ_CHECK(ls.end == LDX_EOF);
    FUZZ_CHECK(ls.bytes == len);
    return ls;
}

static int read_fd(const void *data, size_t len, lines *out)
{
    int fd = fuzz_memfd(data, len);
    if (fd < 0) return 0;
    ldx_reader *r;
    if (ldx_reader_open_fd(&r, fd, "fd") != LDX_OK) return 0;
    *out = read_all(r, 0);
    ldx_reader_destroy(r);
    return 1;
}

static void same(const lines *a, const lines *b, size_t upto)
{
    FUZZ_CHECK(a->n >= upto && b->n >= upto);
    for (size_t i = 0; i < upto; i++) {
        FUZZ_CHECK(a->v[i].lineno == b->v[i].lineno);
        FUZZ_CHECK(a->v[i].len == b->v[i].len);
        FUZZ_CHECK(a->v[i].full_len == b->v[i].full_len);
        FUZZ_CHECK(a->v[i].truncated == b->v[i].truncated);
        FUZZ_CHECK(a->v[i].hash == b->v[i].hash);
    }
}

/* The lines of a chunk, as ldx_reader_next would give them. */
static void push_chunk(lines *ls, const ldxi_chunk *c)
{
    FUZZ_CHECK(c->len > 0 && (c->text[c->len - 1] == '\n' || c->text[c->len - 1] == '\r'));
    FUZZ_CHECK(c->first_line == ls->n + 1);
    const char *p = c->text, *end = c->text + c->len;
    uint64_t k = 0;
    while (p < end) {
        const char *e = p;
        while (*e != '\n' && *e != '\r') e++;
        ldx_line l = {.text = p, .len = (size_t)(e - p), .full_len = (size_t)(e - p),
                      .lineno = c->first_line + k++};
        push(ls, &l);
        p = e + 1;
        if (*e == '\r' && p < end && *p == '\n') p++;
    }
    FUZZ_CHECK(k == c->lines);
}

/* Through a descriptor, taking chunks read in place (rooms of every size), chunks and
 * single lines in an order drawn from seed, as the scanner takes them. */
static int read_fd_mixed(const void *data, size_t len, uint64_t seed, lines *out)
{
    int fd = fuzz_memfd(data, len);
    if (fd < 0) return 0;
    ldx_reader *r;
    if (ldx_reader_open_fd(&r, fd, "fd") != LDX_OK) return 0;
    char *room = malloc(LDXI_CHUNK_MAX);
    FUZZ_CHECK(room != NULL);
    lines ls = {0};
    ldxi_chunk c;
    ldx_line l;
    for (;;) {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        if (seed % 3 && ldxi_reader_chunk_into(r, room, 2 + (size_t)(seed >> 8) % (LDXI_CHUNK_MAX - 1), &c)) {
            FUZZ_CHECK(c.text == room);
            push_chunk(&ls, &c);
            continue;
        }
        if (seed % 5 == 1 && ldxi_reader_chunk(r, 1 + (size_t)(seed >> 16) % LDXI_CHUNK_MAX, &c)) {
            push_chunk(&ls, &c);
            continue;
        }
        ldx_status st = ldx_reader_next(r, &l);
        if (st != LDX_OK) {
            ls.end = st;
            break;
        }
        FUZZ_CHECK(l.lineno >= (ls.n ? ls.v[ls.n - 1].lineno + 1 : 1));
        push(&ls, &l);
    }
    ls.bytes = ldx_reader_bytes(r);
    free(room);
    ldx_reader_destroy(r);
    *out = ls;
    return 1;
}

/* Plain bytes through a descriptor (line by line, and in chunks) and gzip-compressed
 * must read as from memory. */
static void differential(const uint8_t *data, size_t size, const lines *ref)
{
    lines fd = {0};
    if (read_fd(data, size, &fd)) {
        FUZZ_CHECK(fd.end == LDX_EOF);
        FUZZ_CHECK(fd.bytes == size);
        FUZZ_CHECK(fd.n == ref->n);
        same(ref, &fd, ref->n);
        free(fd.v);
    }
    if (read_fd_mixed(data, size, fuzz_hash(data, size) | 1, &fd)) {
        FUZZ_CHECK(fd.end == LDX_EOF);
        FUZZ_CHECK(fd.bytes == size);
        FUZZ_CHECK(fd.n == ref->n);
        same(ref, &fd, ref->n);
        free(fd.v);
    }
    size_t zlen;
    unsigned char *z = fuzz_gzip(data, size, &zlen);
    if (!z) return;
    lines gz = {0};
    if (read_fd(z, zlen, &gz)) {
        FUZZ_CHECK(gz.end == LDX_EOF);
        FUZZ_CHECK(gz.n == ref->n);
        same(ref, &gz, ref->n);
        free(gz.v);
    }
    /* cut short: the lines of the text decoded before the cut, then an error (never a
     * crash or a hang). Of that text, not of the whole: what says whether rows of a
     * hard-wrapped paste are joined is the text the reader has, and a cut one has less. */
    size_t cut = zlen > 2 ? (size_t)(crc32_z(0L, data, size) % (zlen - 2)) + 2 : 0;
    size_t plen;
    unsigned char *prefix = cut ? fuzz_gunzip_prefix(z, cut, &plen) : NULL;
    if (prefix && read_fd(z, cut, &gz)) {
        FUZZ_CHECK(gz.end == LDX_EIO); /* the magic bytes are there: inflated, and cut */
        FUZZ_CHECK(plen <= size && !memcmp(prefix, data, plen));
        lines pre = read_mem(prefix, plen, 0);
        size_t whole = gz.n ? gz.n - 1 : 0;           /* the last may be cut */
        if (whole > pre.n) whole = pre.n;
        same(&pre, &gz, whole);
        free(pre.v);
        free(gz.v);
    }
    free(prefix);
    free(z);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* 1. the input as it is, gzip magic or not, through memory and a descriptor */
    lines ref = read_mem(data, size, 1);
    /* anything the reader recognises by its first bytes (gzip, zstd, xz, bzip2, zip,
     * tar) is decoded through a descriptor and cannot equal the raw bytes from memory:
     * ask the reader's own detection rather than repeating it here */
    int gzip = ldx_input_detect(data, size) != LDX_KIND_PLAIN;
    if (!gzip) {
        differential(data, size, &ref);
    } else {
        lines raw = {0}; /* really gzip, or pretends to be: must not crash */
        if (read_fd(data, size, &raw)) free(raw.v);
    }
    free(ref.v);

    /* 2. the input placed across a block end, or at the end of a line that reaches the
     * 1 MiB limit, after a filler line that costs little to read */
    uint64_t h = fuzz_hash(data, size);
    if (gzip || size == 0 || size > 65536 || h % 4 != 0) return 0; /* costly: 1 in 4 */
    size_t shift = (size_t)((h >> 8) % (size + 1));
    int long_line = h % 8 == 4;
    size_t lead = long_line ? LDX_LINE_MAX - shift : BLOCK - 1 - shift;
    size_t len = lead + (long_line ? 0 : 1) + 2 * size;
    uint8_t *big = malloc(len);
    if (!big) return 0;
    memset(big, 'x', lead);
    if (!long_line) big[lead] = '\n';
    memcpy(big + len - 2 * size, data, size);
    memcpy(big + len - size, data, size);
    lines bref = read_mem(big, len, 0);
    differential(big, len, &bref);
    free(bref.v);
    free(big);
    return 0;
}
