/* Matching a batch, on any thread: cutting it into lines and their templates, the line
 * memo, the prefilter (Vectorscan over the lines the memo does not know, and the template
 * database over their templates), and PCRE2 on the (line, signal) pairs that hit. It
 * touches nothing but the batch and the thread's own state (ldxi_worker), so that
 * batches are matched side by side; batch.c hands them out and applies the results in
 * input order. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "scan_int.h"
#include "../rules/hsdb.h"

#ifdef LDX_HAVE_HS
#include <hs/hs.h>

/* Lines are cut 16 bytes at a time with SSE2 (every x86-64), else a byte at a time;
 * -DLDX_NO_SIMD builds the second way anywhere (the tests run both). */
#if defined(__SSE2__) && !defined(LDX_NO_SIMD)
#define BATCH_SSE2 1
#include <emmintrin.h>
#endif

/* ---- the prefilter ---- */

/* A template database's hit: its signal with this bit (they sort after a line's other
 * hits). */
#define TPL 0x80000000u

typedef struct {
    const ldxi_hsdb *h;
    ldxi_batch *b;
    const ldxi_hspart *part;
    size_t cursor; /* the batch line of the previous match */
    bool tmpl;     /* the part's template database, over templates */
} hit_ctx;

static int on_hit(unsigned id, unsigned long long from, unsigned long long to, unsigned flags,
                  void *vctx)
{
    (void)from;
    (void)flags;
    hit_ctx *hc = vctx;
    ldxi_batch *b = hc->b;
    /* a signal of the ruleset, or a special */
    uint32_t g = hc->tmpl ? hc->part->tmap[id] : hc->part->map[id];
    if (g == LDXI_HS_IGNORE) return 0;
    /* the template holding the match's last byte; tl[] is sorted by offset. Matches
     * come mostly in order of their end, so walk on from the last one found; jump by
     * binary search when one does not */
    const ldxi_tline *tl = b->tl;
    size_t end = to ? (size_t)to - 1 : 0, lo = hc->cursor;
    if (tl[lo].off <= end)
        while (lo + 1 < b->ntl && tl[lo + 1].off <= end && lo - hc->cursor < 8) lo++;
    if (tl[lo].off > end || (lo + 1 < b->ntl && tl[lo + 1].off <= end)) {
        size_t x = 0, y = b->ntl;
        while (y - x > 1) {
            size_t mid = (x + y) / 2;
            if (tl[mid].off <= end) x = mid;
            else y = mid;
        }
        lo = x;
    }
    hc->cursor = lo;
    /* one entry per (line, signal), however many matches end on the line: this keeps the
     * hit list bounded by lines x patterns, not by bytes; the entry stands for every
     * signal with this pattern */
    const ldxi_hsdb *h = hc->h;
    uint32_t *last = hc->tmpl ? b->last + h->nsig + LDXI_HS_NSPECIAL : b->last;
    for (; g != LDXI_HS_IGNORE; g = g < h->nsig ? h->same_next[g] : LDXI_HS_IGNORE) {
        if (last[g] == lo + 1) continue;
        last[g] = (uint32_t)lo + 1;
        if (ldxi_grow((void **)&b->ph, &b->phcap, b->nph + 1, sizeof(ldxi_phit)) != LDX_OK) {
            b->failed = true;
            return 1; /* stop: every line will be confirmed instead */
        }
        b->ph[b->nph++] = (ldxi_phit){tl[lo].line, hc->tmpl ? g | TPL : g};
    }
    return 0;
}

/* Puts the hits in (line, signal) order, once each. They arrive in match order: by
 * line mostly, not quite (engines report late), and by signal not at all. A counting
 * sort by line and an insertion sort of each line's few signals are linear; qsort
 * was a tenth of the whole scan. */
static bool sort_hits(ldxi_batch *b)
{
    if (ldxi_grow((void **)&b->ph2, &b->ph2cap, b->nph, sizeof(ldxi_phit)) != LDX_OK ||
        ldxi_grow((void **)&b->lend, &b->lendcap, b->nbl + 1, sizeof(uint32_t)) != LDX_OK)
        return false;
    uint32_t *pos = b->lend;
    memset(pos, 0, (b->nbl + 1) * sizeof(uint32_t));
    for (size_t i = 0; i < b->nph; i++) pos[b->ph[i].line + 1]++;
    for (size_t l = 1; l <= b->nbl; l++) pos[l] += pos[l - 1];
    for (size_t i = 0; i < b->nph; i++) b->ph2[pos[b->ph[i].line]++] = b->ph[i];
    /* pos[l] is now where line l's hits end */
    size_t w = 0, from = 0;
    for (size_t l = 0; l < b->nbl; l++) {
        size_t to = pos[l], first = w;
        for (size_t r = from; r < to; r++) {
            ldxi_phit h = b->ph2[r];
            size_t j = w;
            while (j > first && b->ph[j - 1].id > h.id) j--;
            if (j > first && b->ph[j - 1].id == h.id) continue; /* seen on this line */
            memmove(&b->ph[j + 1], &b->ph[j], (w - j) * sizeof(ldxi_phit));
            b->ph[j] = h;
            w++;
        }
        from = to;
    }
    b->nph = w;
    return true;
}

/* Which (line, signal) pairs PCRE2 must look at, sorted: the database over the lines
 * the memo does not know (rbuf); with the memo in use, the template database over their
 * templates (tbuf) too, for what the memo will keep. */
static void prefilter(const ldxi_hsdb *h, ldxi_batch *b, void *scratch, bool templates)
{
    b->nph = 0;
    b->failed = false;
    b->pf_bytes = 0;
    memset(b->last, 0, 2 * (h->nsig + LDXI_HS_NSPECIAL) * sizeof(uint32_t));
    struct timespec t0, t1;
    /* timed always (for rules profile): two clock reads a 256 KiB batch cost nothing */
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int pi = 0; pi < h->nparts && b->tlen && !b->failed; pi++) {
        const ldxi_hspart *part = &h->part[pi];
        for (int t = 0; t < 2 && !b->failed; t++) {
            if (t && (!templates || !part->tdb)) break;
            hit_ctx hc = {h, b, part, 0, t == 1};
            const char *text = t ? b->tbuf : templates ? b->rbuf : b->buf; /* see cut_plain */
            int r = ldxi_hs_scan(t ? part->tdb : part->db, text, (unsigned)b->tlen, scratch, on_hit, &hc);
            b->pf_bytes += b->tlen;
            /* a scan that failed found nothing: this batch is matched line by line
             * instead (on_hit stops a scan only after marking the batch failed) */
            if (r != HS_SUCCESS) b->failed = true;
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    b->pf_ns = (uint64_t)(t1.tv_sec - t0.tv_sec) * 1000000000ull + (uint64_t)(t1.tv_nsec - t0.tv_nsec);
    if (b->nph > 1 && !b->failed && !sort_hits(b)) b->failed = true;
}

/* ---- matching: prefilter and PCRE2, on any thread ---- */

/* The numbers in the captures of a match (offsets from co[from] on, numbers at
 * val[from / 2]), for its signal's where, the conditions and the trends: read here, on
 * a matching thread, rather than by the thread that applies (with -j 2 that one is the
 * busier), and only as they are needed: a where that fails on its first clause reads
 * no other. open_values marks them all unread (NaN to whoever reads val[]). */
static bool open_values(ldxi_batch *b, size_t from, size_t ncaps)
{
    if (!ncaps) return true;
    size_t end = (from + 2 * ncaps) / 2;
    if (ldxi_grow((void **)&b->val, &b->valcap, end, sizeof(double)) != LDX_OK ||
        ldxi_grow((void **)&b->vread, &b->vreadcap, end, 1) != LDX_OK)
        return false;
    for (size_t i = from / 2; i < end; i++) b->val[i] = NAN;
    memset(b->vread + from / 2, 0, ncaps);
    return true;
}

/* The number in at[0..len), NaN when there is none: read once a batch for each place
 * (batch.numread), whichever signal asks first. */
static double read_number(ldxi_batch *b, const char *at, size_t len)
{
    size_t x = (size_t)((((uintptr_t)at >> 1) * 0x9E3779B1u) ^ len) & (LDXI_NUMREAD - 1);
    struct ldxi_numread *e = &b->numread[x];
    if (e->gen == b->numgen && e->at == at && e->len == len) return e->v;
    double v;
    if (!ldxi_parse_quantity(at, len, &v)) v = NAN;
    *e = (struct ldxi_numread){at, (uint32_t)len, b->numgen, v};
    return v;
}

static double value(ldxi_batch *b, const char *text, size_t from, size_t c)
{
    size_t i = from / 2 + c;
    if (!b->vread[i]) {
        const size_t *co = b->co + from + 2 * c;
        if (co[0] != SIZE_MAX) b->val[i] = read_number(b, text + co[0], co[1] - co[0]);
        b->vread[i] = 1;
    }
    return b->val[i];
}

/* Whether the match passes its signal's where, reading what that needs. */
static bool passes(ldxi_batch *b, const ldxi_sigc *sc, const char *text, size_t from)
{
    if (!sc->where) return true;
    if (sc->clauses) {
        for (size_t k = 0; k < sc->nclauses; k++)
            if (!ldxi_clause_true(&sc->clauses[k], value(b, text, from, (size_t)sc->clauses[k].cap)))
                return false;
        return true;
    }
    for (size_t c = 0; c < sc->ncaps; c++)
        if (sc->numbered && sc->numbered[c]) value(b, text, from, c);
    return ldxi_where_true(sc->where, sc->ncaps ? b->val + from / 2 : NULL);
}

/* A hit's numbers: every capture the scan reads as a number. */
static void fill_values(const ldx_scanner *s, ldxi_batch *b, const ldxi_sigc *sc, const char *text,
                        size_t from)
{
    for (size_t c = 0; c < sc->ncaps; c++)
        if (ldxi_scan_numbered(s, sc, c)) value(b, text, from, c);
}

/* A match of the signal: a hit, with its numbers, when its where passes. */
static bool hit_passes(const ldx_scanner *s, ldxi_batch *b, const ldxi_sigc *sc, const char *text,
                       size_t from)
{
    if (!passes(b, sc, text, from)) return false;
    fill_values(s, b, sc, text, from);
    return true;
}

/* shared_passes() where the signal tests its own where, or reads numbers its head did
 * not. */
static bool shared_passes_slow(const ldx_scanner *s, ldxi_batch *b, const ldxi_worker *w, uint32_t hd,
                               const ldxi_sigc *sc, const char *text, size_t from)
{
    if (s->rs->hs->refs[hd].sc->where != sc->where) return hit_passes(s, b, sc, text, from);
    if (w->pass[hd]) fill_values(s, b, sc, text, from);
    return w->pass[hd];
}

/* A signal that takes the match of its pattern's head hd on the line (captures at
 * co[from]): a hit where the head's where, when it is the same, passed, else by its own;
 * a hit with its numbers. Signals of one pattern read the same captures as numbers
 * (share_pattern in hsdb.c), so a head that passed has read them all, unless it reads
 * none. */
static inline bool shared_passes(const ldx_scanner *s, ldxi_batch *b, const ldxi_worker *w, uint32_t hd,
                                 const ldxi_sigc *sc, const char *text, size_t from)
{
    const ldxi_sigc *hc = s->rs->hs->refs[hd].sc;
    if (hc->where == sc->where && (!sc->numbered || hc->numbered || !w->pass[hd])) return w->pass[hd];
    return shared_passes_slow(s, b, w, hd, sc, text, from);
}

static bool keep_match(const ldx_scanner *s, ldxi_batch *b, uint32_t line, uint32_t g,
                       const ldxi_sigc *sc, pcre2_match_data *md)
{
    if (ldxi_grow((void **)&b->m, &b->mcap, b->nm + 1, sizeof(ldxi_match)) != LDX_OK ||
        ldxi_grow((void **)&b->co, &b->cocap, b->nco + 2 * sc->ncaps, sizeof(size_t)) != LDX_OK)
        return false;
    b->m[b->nm++] = (ldxi_match){line, g, (uint32_t)b->nco, false};
    if (sc->ncaps) ldxi_scan_caps(sc, md, b->co + b->nco);
    if (!open_values(b, b->nco, sc->ncaps)) return false;
    b->m[b->nm - 1].out = !hit_passes(s, b, sc, b->buf + b->bl[line].off, b->nco);
    b->nco += 2 * sc->ncaps;
    return true;
}

/* One candidate signal on one line. Signals with one pattern (rules that share it, a
 * user's copy of a built-in rule) share its one PCRE2 run on the line. */
static void try_signal(const ldx_scanner *s, ldxi_batch *b, ldxi_worker *w, uint32_t line,
                       uint32_t g, size_t start)
{
    const ldxi_hsdb *h = s->rs->hs;
    ldxi_sigref ref = h->refs[g];
    if (__atomic_load_n(&s->rule_off[ref.rule], __ATOMIC_RELAXED)) return;
    const ldxi_sigc *sc = ref.sc;
    uint32_t hd = h->same_head[g];
    bool shared = hd != g || h->same_next[g] != LDXI_HS_IGNORE; /* another signal has it */
    if (shared && w->stamp[hd] == w->seq) {
        uint32_t co = w->res[hd];
        if (co == UINT32_MAX) {
            ldxi_scan_shared(s, ref.rule, ref.sig, false, &b->rc[ref.rule]);
            return;
        }
        const ldxi_sigc *hc = h->refs[hd].sc;
        if (hc->ncaps == sc->ncaps) {
            if (ldxi_grow((void **)&b->m, &b->mcap, b->nm + 1, sizeof(ldxi_match)) != LDX_OK) {
                b->failed = true;
                return;
            }
            bool out = !shared_passes(s, b, w, hd, sc, b->buf + b->bl[line].off, co);
            b->m[b->nm++] = (ldxi_match){line, g, co, out};
            ldxi_scan_shared(s, ref.rule, ref.sig, !out, &b->rc[ref.rule]);
            return;
        }
    }
    const ldxi_bline *bl = &b->bl[line];
    bool hit = ldxi_scan_match(s, ref.rule, ref.sig, b->buf + bl->off, bl->len, start, w->md,
                               &b->rc[ref.rule], &w->nconfirm);
    if (hit && !keep_match(s, b, line, g, sc, w->md)) {
        b->failed = true; /* out of memory: this batch is matched again line by line */
        return;
    }
    if (hit && b->m[b->nm - 1].out) ldxi_scan_dropped(s, ref.rule, ref.sig, &b->rc[ref.rule]);
    if (shared && hd == g) {
        w->stamp[g] = w->seq;
        w->res[g] = hit ? b->m[b->nm - 1].co : UINT32_MAX;
        w->pass[g] = hit && !b->m[b->nm - 1].out;
    }
}

/* Cuts the batch's runs of lines into lines, as ldx_reader_next() would ("\r\n" is one
 * line end, "\r" alone another), ANSI escapes removed in place, on the matching thread
 * (the reading one only copies blocks). Each line's template (digits.c) is made in
 * the same pass: a line whose template the memo knows takes its result from there;
 * the first line of each other template goes to the prefilter (its template, which is
 * all the prefilter ever sees of it). bl[] has room (batch_room). */
/* The next line end ("\n" or "\r") at or after p; one lies ahead. */
static const char *next_eol(const char *p)
{
#ifdef BATCH_SSE2
    const __m128i nl = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r');
    for (;; p += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
        unsigned m = (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, nl), _mm_cmpeq_epi8(v, cr)));
        if (m) return p + __builtin_ctz(m);
    }
#else
    while (*p != '\n' && *p != '\r') p++;
    return p;
#endif
}

/* cut_lines() while the memo rests: every line goes to the prefilter, which scans the
 * batch as it stands (a match across a line end only costs PCRE2 a look). */
static void cut_plain(ldxi_batch *b)
{
    size_t nbl = 0;
    for (size_t k = 0; k < b->nseg; k++) {
        const ldxi_seg *sg = &b->seg[k];
        char *p = b->buf + sg->off, *end = p + sg->len;
        /* the next ESC and the next E2 (a typographic quote's first byte, or tqdm's blocks),
         * each looked for again only once passed */
        const char *esc = memchr(p, 0x1b, sg->len), *e2 = memchr(p, 0xe2, sg->len);
        uint64_t lineno = sg->first_line;
        while (p < end) {
            const char *eol = next_eol(p);
            size_t n = (size_t)(eol - p);
            bool at_esc = esc && esc < eol, at_e2 = e2 && e2 < eol;
            size_t at = *p == '{' ? ldxi_json_log(p, n) : 0;
            if (at) /* a record of a JSON log: its text may hold an escaped ESC (\u001b) */
                n = ldxi_json_line(p, n, at);
            if (at_esc || at_e2) {
                if (ldxi_line_unclean(p, n)) n = ldxi_clean_line(p, n, p);
                if (at_esc) esc = memchr(eol, 0x1b, (size_t)(end - eol));
                if (at_e2) e2 = memchr(eol, 0xe2, (size_t)(end - eol));
            }
            if (*p == '>') n = ldxi_unquote(p, n);
            b->bl[nbl] = (ldxi_bline){(size_t)(p - b->buf), n, lineno++, 0, -1, LDXI_MEMO_NONE, LDXI_MEMO_NONE};
            b->tl[nbl] = (ldxi_tline){(size_t)(p - b->buf), (uint32_t)nbl};
            b->busy[nbl] = (uint32_t)nbl;
            nbl++;
            p = (char *)eol + 1;
            if (*eol == '\r' && p < end && *p == '\n') p++;
        }
    }
    b->nbl = b->ntl = b->nbusy = nbl;
    b->tlen = b->len;
    b->known = 0;
}

/* ---- collapsed templates (memo.h) ---- */

typedef struct {
    const ldxi_hsdb *h;
    const ldxi_hspart *part;
    ldxi_worker *w;
    uint8_t hints;
    bool failed;
} chit_ctx;

static int on_collapsed_hit(unsigned id, unsigned long long from, unsigned long long to,
                            unsigned flags, void *vctx)
{
    (void)from;
    (void)to;
    (void)flags;
    chit_ctx *cc = vctx;
    const ldxi_hsdb *h = cc->h;
    uint32_t g = cc->part->cmap[id];
    if (g == LDXI_HS_IGNORE) return 0;
    if (g >= h->nsig) {
        static const uint8_t hint[LDXI_HS_NSPECIAL] = {LDXI_HINT_LAUNCHER, LDXI_HINT_VERSIONS, LDXI_HINT_FAILURE};
        cc->hints |= hint[g - h->nsig];
        return 0;
    }
    ldxi_worker *w = cc->w;
    for (; g != LDXI_HS_IGNORE; g = h->same_next[g]) { /* the entry stands for its pattern's signals */
        if (LDXI_PUSH(w->cg, w->ncg, w->cgcap, g) != LDX_OK) {
            cc->failed = true;
            return 1;
        }
    }
    return 0;
}

/* Whether signal g may match a line of the collapsed template t[0..n): its collapsed
 * widening (PCRE2) matches t, or it has none. */
static bool collapsed_may(const ldx_scanner *s, ldxi_worker *w, uint32_t g, const char *t, size_t n)
{
    const ldxi_sigc *cw = &s->rs->hs->cwide[g];
    pcre2_code *code = cw->pattern ? ldxi_sig_code(cw) : NULL;
    return !code || ldxi_sig_exec(cw, code, t, n, 0, 0, w->md, s->mctx) != PCRE2_ERROR_NOMATCH;
}

/* The signals the database has not, asked with their collapsed widenings: each that may
 * match a line of t[0..n) joins w->cg. */
static bool collapsed_unserved(const ldx_scanner *s, ldxi_worker *w, const uint32_t *v, size_t nv,
                               const char *t, size_t n)
{
    for (size_t i = 0; i < nv; i++)
        if (collapsed_may(s, w, v[i], t, n) && LDXI_PUSH(w->cg, w->ncg, w->cgcap, v[i]) != LDX_OK)
            return false;
    return true;
}

/* Entry x of the collapsed memo, new, for the collapsed template t[0..n): the signals that
 * may match any of its lines (the collapsed databases' hits, and the signals they have
 * not), each to run on the line, in signal order, and the hints of the specials that
 * hit. False when out of memory or a scan fails. */
static bool collapsed_fill(const ldx_scanner *s, ldxi_worker *w, uint32_t x, const char *t, size_t n)
{
    const ldxi_hsdb *h = s->rs->hs;
    w->ncg = 0;
    uint8_t hints = 0;
    for (int pi = 0; pi < h->nparts; pi++) {
        chit_ctx cc = {h, &h->part[pi], w, 0, false};
        if (ldxi_hs_scan(cc.part->cdb, n ? t : "", (unsigned)n, w->scratch, on_collapsed_hit, &cc) != HS_SUCCESS ||
            cc.failed)
            return false;
        hints |= cc.hints;
    }
    if (!collapsed_unserved(s, w, h->always, h->nalways, t, n) ||
        !collapsed_unserved(s, w, h->calways, h->ncalways, t, n))
        return false;
    ldxi_sort_unique_u32(w->cg, &w->ncg);
    ldxi_memo *cm = &w->cmemo;
    if (!ldxi_memo_reserve(cm, w->ncg, 0)) return false;
    ldxi_memo_entry *e = &cm->ent[x];
    e->item = (uint32_t)cm->nitems;
    for (size_t i = 0; i < w->ncg; i++) cm->items[cm->nitems++] = (ldxi_memo_item){w->cg[i], LDXI_MEMO_RUN, 0};
    e->nitems = (uint32_t)w->ncg;
    e->hints = hints;
    ldxi_memo_ready(cm, x);
    return true;
}

/* The databases' entries are often cheap forms of their patterns (a literal or two),
 * which a collapsed template holds far more often than the whole pattern can match it:
 * once a second line has collapsed template ce (t[0..n)), each signal the databases named
 * for it is asked again with its whole widening, and kept only where that may match, so
 * that its lines stop running it for nothing. Not on the first line: on a log where
 * collapsed templates never come back (an id on every line) that would be work for none. */
static void collapsed_refine(const ldx_scanner *s, ldxi_worker *w, ldxi_memo_entry *ce, const char *t,
                             size_t n)
{
    ldxi_memo_item *it = w->cmemo.items + ce->item;
    uint32_t keep = 0;
    for (uint32_t i = 0; i < ce->nitems; i++)
        if (collapsed_may(s, w, it[i].g, t, n)) it[keep++] = it[i];
    ce->nitems = keep;
    ce->refined = 1;
}

/* A line whose template t[0..n) (hash th) the memo does not know. Its collapsed
 * template's entry (*cx, made now when new) gives it the signals to run instead of the
 * prefilter; its template is learnt from them (*memo, *fresh) for the first
 * LDXI_MEMO_EXACT_TRIES such lines of the collapsed template, and not after that
 * (*memo LDXI_MEMO_NONE, *quiet where the collapsed template is). Without a collapsed
 * entry (no room, a line too long) the template goes in as before, for the prefilter.
 * *cnew: the collapsed template was new (the line was not known either way). False
 * when out of memory or a scan failed. */
static bool by_collapsed(const ldx_scanner *s, ldxi_worker *w, const char *t, size_t n, uint64_t th,
                         uint32_t *memo, uint32_t *cx, bool *fresh, bool *quiet, bool *cnew)
{
    *cx = LDXI_MEMO_NONE;
    *cnew = false;
    bool cquiet = false;
    if (n <= LDXI_MEMO_LINE_MAX) {
        size_t m = ldxi_digits_collapse(t, n, w->ctext);
        uint64_t ch = ldxi_memo_template(w->ctext, m, w->ctext);
        bool cfresh;
        uint32_t x = ldxi_memo_lookup(&w->cmemo, w->ctext, m, ch, &cfresh, &cquiet);
        ldxi_memo_entry *ce = x != LDXI_MEMO_NONE ? &w->cmemo.ent[x] : NULL;
        if (ce && cfresh) {
            /* its first line goes to the batch's prefilter like any new line, and the
             * entry is filled when a second line has it: on a log where collapsed
             * templates never come back (an id on every line) scanning the collapsed
             * databases for each would be work for none */
            ce->misses++;
            *cnew = true;
        } else if (ce) {
            if (ce->state == LDXI_MEMO_PENDING) {
                if (!collapsed_fill(s, w, x, w->ctext, m)) return false;
                cquiet = !ce->nitems && !ce->hints;
            }
            if (!ce->refined && !cquiet) collapsed_refine(s, w, ce, w->ctext, m);
            *cx = x;
            if (ce->misses >= LDXI_MEMO_EXACT_TRIES) {
                *memo = LDXI_MEMO_NONE;
                *fresh = false;
                *quiet = cquiet;
                return true;
            }
            ce->misses++;
        }
    }
    *memo = ldxi_memo_lookup(&w->memo, t, n, th, fresh, quiet);
    if (*memo == LDXI_MEMO_NONE && *cx != LDXI_MEMO_NONE) *quiet = cquiet; /* no room: its signals */
    return true;
}

static bool cut_lines(ldxi_batch *b, ldxi_worker *w)
{
    const ldx_scanner *s = w->s;
    ldxi_memo_begin(&w->memo);
    b->remembered = w->judge.rest == 0;
    if (ldxi_grow((void **)&b->busy, &b->busycap, (size_t)b->nlines + 1, sizeof(uint32_t)) != LDX_OK)
        return false;
    if (!b->remembered) {
        if (ldxi_grow((void **)&b->tl, &b->tlcap, (size_t)b->nlines + 1, sizeof(ldxi_tline)) != LDX_OK)
            return false;
        cut_plain(b);
        return true;
    }
    if (ldxi_grow((void **)&b->tbuf, &b->tcap, b->len + LDXI_MEMO_SLACK, 1) != LDX_OK ||
        ldxi_grow((void **)&b->rbuf, &b->rcap, b->len + LDXI_MEMO_SLACK, 1) != LDX_OK ||
        ldxi_grow((void **)&b->tl, &b->tlcap, (size_t)b->nlines + 1, sizeof(ldxi_tline)) != LDX_OK)
        return false;
    /* collapsed templates, once they pay (memo.h) */
    bool collapse = w->collapse > 0;
    if (collapse) {
        ldxi_memo_begin(&w->cmemo);
        if (!w->ctext && !(w->ctext = malloc(LDXI_MEMO_LINE_MAX + LDXI_MEMO_SLACK))) return false;
    }
    size_t tlen = 0, ntl = 0, nbl = 0;
    uint64_t known = 0;
    ldxi_memo_cutter cut = ldxi_memo_cutter_for(ldxi_memo_isa());
    /* the line before's template (at t, or earlier where it was the first of its
     * own; SIZE_MAX bytes long, never equal, when the memo has it not) */
    const char *prev = b->tbuf;
    size_t prevn = SIZE_MAX;
    uint32_t prevx = LDXI_MEMO_NONE, prevcx = LDXI_MEMO_NONE;
    bool prevq = false;
    size_t nbusy = 0;
    for (size_t k = 0; k < b->nseg; k++) {
        const ldxi_seg *sg = &b->seg[k];
        char *p = b->buf + sg->off, *end = p + sg->len;
        uint64_t lineno = sg->first_line;
        while (p < end) {
            char *t = b->tbuf + tlen;
            ldxi_cut c;
            size_t n = cut(p, t, prev, prevn, &c);
            if (c.esc) { /* rare: the line without its escapes and typographic quotes, and
                          * that one's template */
                n = ldxi_clean_line(p, n, p);
                c.hash = ldxi_memo_template(p, n, t);
                c.same = false;
            }
            size_t at = *p == '{' ? ldxi_json_log(p, n) : 0;
            if (at) { /* rare: a record of a JSON log */
                n = ldxi_json_line(p, n, at);
                c.hash = ldxi_memo_template(p, n, t);
                c.same = false;
            }
            if (*p == '>') { /* rare too: a quoted paste, read without its markers */
                size_t m = ldxi_unquote(p, n);
                if (m != n) {
                    n = m;
                    c.hash = ldxi_memo_template(p, n, t);
                    c.same = false;
                }
            }
            ldxi_bline *bl = &b->bl[nbl];
            *bl = (ldxi_bline){(size_t)(p - b->buf), n, lineno++, 0, -1, prevx, prevcx};
            bool fresh = false, quiet = prevq, cnew = false;
            if (!c.same && !collapse) {
                bl->memo = ldxi_memo_lookup(&w->memo, t, n, c.hash, &fresh, &quiet);
                bl->cx = LDXI_MEMO_NONE;
            } else if (!c.same) {
                bl->memo = ldxi_memo_find(&w->memo, t, n, c.hash, &quiet);
                bl->cx = LDXI_MEMO_NONE;
                if (bl->memo == LDXI_MEMO_NONE &&
                    !by_collapsed(s, w, t, n, c.hash, &bl->memo, &bl->cx, &fresh, &quiet, &cnew))
                    return false;
            }
            prev = t;
            prevn = bl->memo != LDXI_MEMO_NONE || bl->cx != LDXI_MEMO_NONE ? n : SIZE_MAX;
            prevx = bl->memo;
            prevcx = bl->cx;
            prevq = quiet;
            if (!quiet) b->busy[nbusy++] = (uint32_t)nbl;
            /* the prefilter sees a line whose template is new, unless its collapsed
             * template names the signals to run */
            if (bl->cx == LDXI_MEMO_NONE && (bl->memo == LDXI_MEMO_NONE || fresh)) {
                /* the line for the database, its template (in place already) for the
                 * template database, at the same offset */
                b->tl[ntl++] = (ldxi_tline){tlen, (uint32_t)nbl};
                memcpy(b->rbuf + tlen, p, n);
                tlen += n;
                b->rbuf[tlen] = b->tbuf[tlen] = '\n';
                tlen++;
            } else if (!cnew) {
                known++; /* known, or its first line is earlier in this batch */
            }
            nbl++;
            p = (char *)c.eol + 1;
            if (*c.eol == '\r' && p < end && *p == '\n') p++;
        }
    }
    b->nbl = nbl;
    b->nbusy = nbusy;
    b->tlen = tlen;
    b->ntl = ntl;
    b->known = known;
    return true;
}

/* A signal that looks at digits, on the lines of a template t[0..n): its pattern
 * widened (digits.c) matches t wherever the pattern matches one of them, at the same
 * place, so where the widened one first matches t is as early as a match can start on
 * any of them (*start), and none can match where it does not (false). The template's
 * first line matched (hit) is a contradiction: then 0, as if nothing were known. */
static bool where_from(const ldx_scanner *s, ldxi_worker *w, uint32_t g, const char *t,
                       size_t n, bool hit, uint32_t *start)
{
    const ldxi_sigc *wide = &s->rs->hs->wide[g];
    pcre2_code *code = wide->pattern ? ldxi_sig_code(wide) : NULL;
    *start = 0;
    if (!code) return true;
    /* w->md is free here: the line's own matches have their captures copied out */
    int r = ldxi_sig_exec(wide, code, t, n, 0, 0, w->md, s->mctx);
    if (r >= 0) {
        *start = (uint32_t)pcre2_get_ovector_pointer(w->md)[0];
        return true;
    }
    return r != PCRE2_ERROR_NOMATCH || hit;
}

/* The candidates of line l, its prefilter hits ph[p0, p1) and the always list merged in
 * signal (rule-major) order, matched with PCRE2. With e, the memo entry of its
 * template, the line is the template's first: what PCRE2 found for its digit-blind
 * signals holds for every line of the template and is kept there; the other
 * candidates (patterns that look at digits, rules over their time budget, or every one
 * when a match limit struck) will run on each line. */
static void match_line(const ldx_scanner *s, ldxi_batch *b, ldxi_worker *w, uint32_t l,
                       const ldxi_phit *ph, size_t p0, size_t p1, ldxi_memo_entry *e)
{
    const ldxi_hsdb *h = s->rs->hs;
    size_t q = p0, a = 0, nc = 0;
    bool limited = false;
    w->seq++; /* what try_signal() remembers is for this line only */
    for (;;) {
        while (q < p1 && ph[q].id >= h->nsig) q++;
        uint32_t gq = q < p1 ? ph[q].id : UINT32_MAX;
        uint32_t ga = a < h->nalways ? h->always[a] : UINT32_MAX;
        if (gq == UINT32_MAX && ga == UINT32_MAX) break;
        uint32_t g = gq <= ga ? gq : ga;
        if (gq == g) q++;
        if (ga == g) a++;
        if (!e) {
            try_signal(s, b, w, l, g, 0);
            continue;
        }
        ldxi_sigref ref = h->refs[g];
        bool off = __atomic_load_n(&s->rule_off[ref.rule], __ATOMIC_RELAXED);
        uint64_t lim = b->rc[ref.rule].limit_hits;
        size_t nm = b->nm;
        try_signal(s, b, w, l, g, 0);
        if (b->failed) return;
        limited |= b->rc[ref.rule].limit_hits != lim;
        if (ldxi_grow((void **)&w->cand, &w->candcap, nc + 1, sizeof *w->cand) != LDX_OK) {
            b->failed = true;
            return;
        }
        w->cand[nc++] = (struct ldxi_cand){g, b->nm > nm ? (uint32_t)nm : UINT32_MAX, off};
    }
    if (!e) return;
    /* what the memo keeps, in signal order: the matches of the digit-blind candidates;
     * and, to run on each line, the signals that read digits wherever their widened
     * patterns may match the template (the template database's hits here, and the
     * always list's), the candidates of rules over their time budget, or every
     * candidate when a match limit struck */
    ldxi_memo *mm = &w->memo;
    size_t t0 = p1;
    while (t0 > p0 && (ph[t0 - 1].id & TPL)) t0--;
    size_t ncaps = 0;
    for (size_t c = 0; c < nc; c++) {
        const ldxi_sigref ref = h->refs[w->cand[c].g];
        ncaps += ref.sc->ncaps;
    }
    if (!ldxi_memo_reserve(mm, nc + (p1 - t0), 2 * ncaps)) {
        b->failed = true;
        return;
    }
    e->item = (uint32_t)mm->nitems;
    for (size_t c = 0, t = t0;;) {
        uint32_t gc = c < nc ? w->cand[c].g : UINT32_MAX;
        uint32_t gt = t < p1 ? ph[t].id & ~TPL : UINT32_MAX;
        if (gc == UINT32_MAX && gt == UINT32_MAX) break;
        uint32_t g = gc <= gt ? gc : gt;
        const struct ldxi_cand *cd = gc == g ? &w->cand[c++] : NULL;
        if (gt == g) t++;
        bool hit = cd && cd->m != UINT32_MAX;
        uint32_t start = 0;
        if (limited || (cd && cd->off)) {
            mm->items[mm->nitems++] = (ldxi_memo_item){g, LDXI_MEMO_RUN, 0};
        } else if (!ldxi_hsdb_blind(s->rs->hs, g)) {
            if (where_from(s, w, g, mm->keys + e->key, e->len, hit, &start))
                mm->items[mm->nitems++] = (ldxi_memo_item){g, LDXI_MEMO_RUN, start};
        } else if (hit) {
            const ldxi_sigref ref = h->refs[g];
            size_t k = 2 * ref.sc->ncaps;
            mm->items[mm->nitems++] = (ldxi_memo_item){g, (uint32_t)mm->nco, 0};
            for (size_t i = 0; i < k; i++) {
                size_t o = b->co[b->m[cd->m].co + i];
                mm->co[mm->nco++] = o == SIZE_MAX ? UINT32_MAX : (uint32_t)o;
            }
        }
    }
    e->nitems = (uint32_t)(mm->nitems - e->item);
    ldxi_memo_ready(mm, (uint32_t)(e - mm->ent));
}

/* A line whose template the memo knows (mm: the memo, or the collapsed one): its matches
 * as remembered, and PCRE2 for the signals that must see the line itself. */
static void recall(const ldx_scanner *s, ldxi_batch *b, ldxi_worker *w, const ldxi_memo *mm,
                   uint32_t l, const ldxi_memo_entry *e)
{
    const ldxi_hsdb *h = s->rs->hs;
    w->seq++;
    for (uint32_t k = 0; k < e->nitems && !b->failed; k++) {
        ldxi_memo_item it = mm->items[e->item + k];
        if (it.co == LDXI_MEMO_RUN) {
            b->pf_pairs++;
            try_signal(s, b, w, l, it.g, it.start);
            continue;
        }
        ldxi_sigref ref = h->refs[it.g];
        if (__atomic_load_n(&s->rule_off[ref.rule], __ATOMIC_RELAXED)) continue;
        size_t n = 2 * ref.sc->ncaps;
        if (ldxi_grow((void **)&b->m, &b->mcap, b->nm + 1, sizeof(ldxi_match)) != LDX_OK ||
            ldxi_grow((void **)&b->co, &b->cocap, b->nco + n, sizeof(size_t)) != LDX_OK) {
            b->failed = true;
            return;
        }
        /* a signal with the pattern of one before it on the line (the same head: rules
         * that share a pattern, a user's copy of a rule) takes its captures and numbers */
        const ldxi_sigc *sc = ref.sc;
        uint32_t hd = h->same_head[it.g], co = (uint32_t)b->nco;
        const char *text = b->buf + b->bl[l].off;
        bool ok;
        if (hd != it.g && w->stamp[hd] == w->seq && w->res[hd] != UINT32_MAX) {
            co = w->res[hd];
            ok = shared_passes(s, b, w, hd, sc, text, co);
        } else {
            for (size_t i = 0; i < n; i++)
                b->co[co + i] = mm->co[it.co + i] == UINT32_MAX ? SIZE_MAX : mm->co[it.co + i];
            if (!open_values(b, co, n / 2)) {
                b->failed = true;
                return;
            }
            b->nco += n;
            ok = hit_passes(s, b, sc, text, co);
            if (hd == it.g && h->same_next[it.g] != LDXI_HS_IGNORE) {
                w->stamp[it.g] = w->seq;
                w->res[it.g] = co;
                w->pass[it.g] = ok;
            }
        }
        /* a match its where turns down is no hit (the others of its pattern test theirs) */
        if (!ok) continue;
        b->m[b->nm++] = (ldxi_match){l, it.g, co, false};
        ldxi_scan_remembered(s, ref.rule, ref.sig, &b->rc[ref.rule]);
    }
}

bool ldxi_collapse_on(const ldx_scanner *s, ldxi_worker *w)
{
    const ldxi_hsdb *h = s->rs->hs;
    if (!ldxi_hsdb_collapsed(s->rs)) return false;
    for (int p = 0; p < h->nparts; p++)
        if (hs_alloc_scratch(h->part[p].cdb, (hs_scratch_t **)&w->scratch) != HS_SUCCESS) return false;
    return true;
}

void ldxi_match_batch(const ldx_scanner *s, ldxi_batch *b, ldxi_worker *w)
{
    const ldxi_hsdb *h = s->rs->hs;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    memset(b->rc, 0, s->rs->n * sizeof(ldxi_rulecount));
    if (++b->numgen == 0) { /* wrapped: no entry may look current */
        memset(b->numread, 0, sizeof b->numread);
        b->numgen = 1;
    }
    b->nm = b->nco = 0;
    b->pf_pairs = 0;
    b->nph = 0;
    b->nhot = 0;
    b->nbl = 0; /* a cut that runs out of memory leaves no lines of an earlier use */
    b->failed = !cut_lines(b, w) ||
                ldxi_grow((void **)&b->hot, &b->hotcap, b->nbl, sizeof(uint32_t)) != LDX_OK;
    if (!b->failed) prefilter(h, b, w->scratch, b->remembered);
    size_t p = 0;
    for (size_t bi = 0; bi < b->nbusy && !b->failed; bi++) {
        uint32_t l = b->busy[bi];
        ldxi_bline *bl = &b->bl[l];
        ldxi_memo_entry *e = bl->memo != LDXI_MEMO_NONE ? &w->memo.ent[bl->memo] : NULL;
        size_t nm0 = b->nm;
        if (e && e->state == LDXI_MEMO_READY) {
            bl->hints = e->hints;
            if (e->nitems) recall(s, b, w, &w->memo, l, e);
        } else if (bl->cx != LDXI_MEMO_NONE) {
            /* its collapsed template's signals, instead of the prefilter's: run on the
             * line; where it is the first of its template, what they find is learnt */
            const ldxi_memo_entry *ce = &w->cmemo.ent[bl->cx];
            uint8_t hints = ce->hints;
            if (!e) {
                bl->hints = hints;
                if (ce->nitems) recall(s, b, w, &w->cmemo, l, ce);
            } else {
                if ((hints & LDXI_HINT_VERSIONS) && !ldxi_versions_possible(b->buf + bl->off, bl->len, w->md))
                    hints &= (uint8_t)~LDXI_HINT_VERSIONS;
                bl->hints = e->hints = hints;
                if (ldxi_grow((void **)&w->cph, &w->cphcap, ce->nitems + 1, sizeof(ldxi_phit)) != LDX_OK) {
                    b->failed = true;
                    break;
                }
                for (uint32_t k = 0; k < ce->nitems; k++)
                    w->cph[k] = (ldxi_phit){l, w->cmemo.items[ce->item + k].g};
                match_line(s, b, w, l, w->cph, 0, ce->nitems, e);
            }
        } else {
            /* the prefilter saw this line: the first of its template, or one the memo
             * has no room for */
            size_t p0 = p;
            uint8_t hints = 0;
            while (p < b->nph && b->ph[p].line == l) {
                uint32_t id = b->ph[p].id; /* a signal, a special, or a template hit */
                if (id == h->nsig + LDXI_HS_LAUNCHER) hints |= LDXI_HINT_LAUNCHER;
                if (id == h->nsig + LDXI_HS_VERSIONS) hints |= LDXI_HINT_VERSIONS;
                if (id == h->nsig + LDXI_HS_FAILURE) hints |= LDXI_HINT_FAILURE;
                b->pf_pairs += id < h->nsig;
                p++;
            }
            /* the first line of a template: a hint that no line of it can use is dropped */
            if (e && (hints & LDXI_HINT_VERSIONS) &&
                !ldxi_versions_possible(b->buf + bl->off, bl->len, w->md))
                hints &= (uint8_t)~LDXI_HINT_VERSIONS;
            bl->hints = hints;
            if (e) e->hints = hints;
            match_line(s, b, w, l, b->ph, p0, p, e);
        }
        /* a matched line's rank, here rather than where the batch is applied: that is
         * the one thread all batches go through */
        if (b->nm > nm0) {
            if (e && e->rank == LDXI_RANK_UNASKED)
                e->rank = ldx_line_rank(w->memo.keys + e->key, e->len) < 0 ? LDXI_RANK_NONE : LDXI_RANK_SOME;
            bl->rank = e && e->rank == LDXI_RANK_NONE ? -1 : ldx_line_rank(b->buf + bl->off, bl->len);
        }
        if (b->nm > nm0 || bl->hints) b->hot[b->nhot++] = l;
    }
    /* a batch matched line by line leaves templates half done: forget them all */
    if (b->failed) {
        ldxi_memo_clear(&w->memo);
        ldxi_memo_clear(&w->cmemo);
    } else if (w->collapse == 0 && b->remembered && b->nbl >= 1024 && b->known * 4 < b->nbl * 3) {
        w->collapse = ldxi_collapse_on(s, w) ? 1 : -1;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    ldxi_memo_judge_batch(&w->judge, b->failed, b->nbl, b->known, b->len,
                          (uint64_t)(t1.tv_sec - t0.tv_sec) * 1000000000ull + (uint64_t)(t1.tv_nsec - t0.tv_nsec));
}

#endif /* LDX_HAVE_HS */
