/* The batch engine: the prefilter in front of PCRE2, the line memo, and the threads
 * that share one input.
 *
 * Whole lines are copied into a batch as they came (runs of them, from the reader's
 * blocks). A full batch is matched: it is cut into lines (ANSI escapes removed), each
 * line's template made (memo.c); a line whose template the memo knows takes what the
 * template's first line matched. Vectorscan scans the other lines once for every
 * pattern (a superset of their matches), and PCRE2 runs only on the (line, signal)
 * pairs that hit, keeping what matched and where its captures are; the memo keeps it
 * for the template. Matching touches nothing but the batch and the thread's own memo,
 * so batches are matched by worker threads side by side (`-j` on one file); then each is
 * applied to the scanner's state on the calling thread, strictly in input order,
 * exactly as the plain engine would have recorded the lines one by one. Results do not
 * depend on the number of threads. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "scan_int.h"
#include "../rules/hsdb.h"

#ifdef LDX_HAVE_HS
#include <hs/hs.h>

#define BATCH_BYTES ((size_t)256 << 10)
#define MEMO_TRY 4   /* batches the line memo is judged on */
#define MEMO_REST 16 /* batches without it after a try where it did not help */

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

/* The numbers in the captures of the match whose offsets start at co[from], for the
 * trends: read here, on a matching thread, rather than by the thread that applies (with
 * -j 2 that one is the busier). */
static bool read_values(ldxi_batch *b, const char *text, size_t from, size_t ncaps)
{
    if (!ncaps) return true;
    if (ldxi_grow((void **)&b->val, &b->valcap, (from + 2 * ncaps) / 2, sizeof(double)) != LDX_OK)
        return false;
    for (size_t c = 0; c < ncaps; c++) {
        const size_t *co = b->co + from + 2 * c;
        double v;
        b->val[from / 2 + c] = co[0] != SIZE_MAX && ldxi_parse_quantity(text + co[0], co[1] - co[0], &v)
                                   ? v : NAN;
    }
    return true;
}

static bool keep_match(ldxi_batch *b, uint32_t line, uint32_t g, const ldxi_sigc *sc,
                       pcre2_match_data *md)
{
    if (ldxi_grow((void **)&b->m, &b->mcap, b->nm + 1, sizeof(ldxi_match)) != LDX_OK ||
        ldxi_grow((void **)&b->co, &b->cocap, b->nco + 2 * sc->ncaps, sizeof(size_t)) != LDX_OK)
        return false;
    b->m[b->nm++] = (ldxi_match){line, g, (uint32_t)b->nco};
    if (sc->ncaps) ldxi_scan_caps(sc, md, b->co + b->nco);
    if (!read_values(b, b->buf + b->bl[line].off, b->nco, sc->ncaps)) return false;
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
    const ldxi_sigc *sc = &s->rs->rules[ref.rule]->sigs[ref.sig];
    uint32_t hd = h->same_head[g];
    bool shared = hd != g || h->same_next[g] != LDXI_HS_IGNORE; /* another signal has it */
    if (shared && w->stamp[hd] == w->seq) {
        uint32_t mi = w->res[hd];
        if (mi == UINT32_MAX) {
            ldxi_scan_shared(s, ref.rule, ref.sig, false, &b->rc[ref.rule]);
            return;
        }
        const ldxi_match *m = &b->m[mi];
        const ldxi_sigc *hc = &s->rs->rules[h->refs[m->g].rule]->sigs[h->refs[m->g].sig];
        if (hc->ncaps == sc->ncaps) {
            if (ldxi_grow((void **)&b->m, &b->mcap, b->nm + 1, sizeof(ldxi_match)) != LDX_OK) {
                b->failed = true;
                return;
            }
            b->m[b->nm++] = (ldxi_match){line, g, b->m[mi].co};
            ldxi_scan_shared(s, ref.rule, ref.sig, true, &b->rc[ref.rule]);
            return;
        }
    }
    const ldxi_bline *bl = &b->bl[line];
    bool hit = ldxi_scan_match(s, ref.rule, ref.sig, b->buf + bl->off, bl->len, start, w->md,
                               &b->rc[ref.rule], &w->nconfirm);
    if (hit && !keep_match(b, line, g, sc, w->md)) {
        b->failed = true; /* out of memory: this batch is matched again line by line */
        return;
    }
    if (shared && hd == g) {
        w->stamp[g] = w->seq;
        w->res[g] = hit ? (uint32_t)b->nm - 1 : UINT32_MAX;
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
        const char *esc = memchr(p, 0x1b, sg->len);
        uint64_t lineno = sg->first_line;
        while (p < end) {
            const char *eol = next_eol(p);
            size_t n = (size_t)(eol - p);
            if (esc && esc < eol) {
                n = ldx_strip_ansi(p, n, p);
                esc = memchr(eol, 0x1b, (size_t)(end - eol));
            }
            b->bl[nbl] = (ldxi_bline){(size_t)(p - b->buf), n, lineno++, 0, -1, LDXI_MEMO_NONE};
            b->tl[nbl] = (ldxi_tline){(size_t)(p - b->buf), (uint32_t)nbl};
            nbl++;
            p = (char *)eol + 1;
            if (*eol == '\r' && p < end && *p == '\n') p++;
        }
    }
    b->nbl = b->ntl = nbl;
    b->tlen = b->len;
    b->known = 0;
}

static bool cut_lines(ldxi_batch *b, ldxi_worker *w)
{
    ldxi_memo_begin(&w->memo);
    b->remembered = w->memo_rest == 0;
    if (!b->remembered) {
        if (ldxi_grow((void **)&b->tl, &b->tlcap, (size_t)b->nlines + 1, sizeof(ldxi_tline)) != LDX_OK)
            return false;
        cut_plain(b);
        return true;
    }
    if (ldxi_grow((void **)&b->tbuf, &b->tcap, b->len + 32, 1) != LDX_OK ||
        ldxi_grow((void **)&b->rbuf, &b->rcap, b->len + 32, 1) != LDX_OK ||
        ldxi_grow((void **)&b->tl, &b->tlcap, (size_t)b->nlines + 1, sizeof(ldxi_tline)) != LDX_OK)
        return false;
    size_t tlen = 0, ntl = 0, nbl = 0;
    uint64_t known = 0;
    bool remember = true;
    for (size_t k = 0; k < b->nseg; k++) {
        const ldxi_seg *sg = &b->seg[k];
        char *p = b->buf + sg->off, *end = p + sg->len;
        uint64_t lineno = sg->first_line;
        while (p < end) {
            char *t = b->tbuf + tlen;
            const char *eol;
            uint64_t hash;
            bool esc;
            size_t n = ldxi_memo_line(p, &eol, t, &hash, &esc);
            if (esc) { /* rare: the line without its escapes, and that one's template */
                n = ldx_strip_ansi(p, n, p);
                hash = ldxi_memo_template(p, n, t);
            }
            ldxi_bline *bl = &b->bl[nbl];
            *bl = (ldxi_bline){(size_t)(p - b->buf), n, lineno++, 0, -1, LDXI_MEMO_NONE};
            bool fresh = false;
            if (remember) bl->memo = ldxi_memo_lookup(&w->memo, t, n, hash, &fresh);
            if (bl->memo == LDXI_MEMO_NONE || fresh) {
                /* the line for the database, its template (in place already) for the
                 * template database, at the same offset */
                b->tl[ntl++] = (ldxi_tline){tlen, (uint32_t)nbl};
                memcpy(b->rbuf + tlen, p, n);
                tlen += n;
                b->rbuf[tlen] = b->tbuf[tlen] = '\n';
                tlen++;
            } else {
                known++; /* known, or its first line is earlier in this batch */
            }
            nbl++;
            p = (char *)eol + 1;
            if (*eol == '\r' && p < end && *p == '\n') p++;
        }
    }
    b->nbl = nbl;
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
    *start = 0;
    if (!s->wide[g]) return true;
    if (!w->wcode[g]) {
        const ldxi_sigref ref = s->rs->hs->refs[g];
        const ldxi_sigc *sc = &s->rs->rules[ref.rule]->sigs[ref.sig];
        int err;
        PCRE2_SIZE off;
        w->wcode[g] = pcre2_compile((PCRE2_SPTR)s->wide[g], PCRE2_ZERO_TERMINATED, sc->options,
                                    &err, &off, NULL);
        if (!w->wcode[g]) return true;
        pcre2_jit_compile(w->wcode[g], PCRE2_JIT_COMPLETE); /* first lines of templates: many */
    }
    int r = pcre2_match(w->wcode[g], (PCRE2_SPTR)t, n, 0, 0, w->wmd, s->mctx);
    if (r >= 0) {
        *start = (uint32_t)pcre2_get_ovector_pointer(w->wmd)[0];
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
                       size_t p0, size_t p1, ldxi_memo_entry *e)
{
    const ldxi_hsdb *h = s->rs->hs;
    size_t q = p0, a = 0, nc = 0;
    bool limited = false;
    w->seq++; /* what try_signal() remembers is for this line only */
    for (;;) {
        while (q < p1 && b->ph[q].id >= h->nsig) q++;
        uint32_t gq = q < p1 ? b->ph[q].id : UINT32_MAX;
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
    while (t0 > p0 && (b->ph[t0 - 1].id & TPL)) t0--;
    size_t ncaps = 0;
    for (size_t c = 0; c < nc; c++) {
        const ldxi_sigref ref = h->refs[w->cand[c].g];
        ncaps += s->rs->rules[ref.rule]->sigs[ref.sig].ncaps;
    }
    if (!ldxi_memo_reserve(mm, nc + (p1 - t0), 2 * ncaps)) {
        b->failed = true;
        return;
    }
    e->item = (uint32_t)mm->nitems;
    for (size_t c = 0, t = t0;;) {
        uint32_t gc = c < nc ? w->cand[c].g : UINT32_MAX;
        uint32_t gt = t < p1 ? b->ph[t].id & ~TPL : UINT32_MAX;
        if (gc == UINT32_MAX && gt == UINT32_MAX) break;
        uint32_t g = gc <= gt ? gc : gt;
        const struct ldxi_cand *cd = gc == g ? &w->cand[c++] : NULL;
        if (gt == g) t++;
        bool hit = cd && cd->m != UINT32_MAX;
        uint32_t start = 0;
        if (limited || (cd && cd->off)) {
            mm->items[mm->nitems++] = (ldxi_memo_item){g, LDXI_MEMO_RUN, 0};
        } else if (!s->blind[g]) {
            if (where_from(s, w, g, mm->keys + e->key, e->len, hit, &start))
                mm->items[mm->nitems++] = (ldxi_memo_item){g, LDXI_MEMO_RUN, start};
        } else if (hit) {
            const ldxi_sigref ref = h->refs[g];
            size_t k = 2 * s->rs->rules[ref.rule]->sigs[ref.sig].ncaps;
            mm->items[mm->nitems++] = (ldxi_memo_item){g, (uint32_t)mm->nco, 0};
            for (size_t i = 0; i < k; i++) {
                size_t o = b->co[b->m[cd->m].co + i];
                mm->co[mm->nco++] = o == SIZE_MAX ? UINT32_MAX : (uint32_t)o;
            }
        }
    }
    e->nitems = (uint32_t)(mm->nitems - e->item);
    e->state = LDXI_MEMO_READY;
}

/* A line whose template the memo knows: its matches as remembered, and PCRE2 for the
 * signals that must see the line itself. */
static void recall(const ldx_scanner *s, ldxi_batch *b, ldxi_worker *w, uint32_t l,
                   const ldxi_memo_entry *e)
{
    const ldxi_hsdb *h = s->rs->hs;
    const ldxi_memo *mm = &w->memo;
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
        size_t n = 2 * s->rs->rules[ref.rule]->sigs[ref.sig].ncaps;
        if (ldxi_grow((void **)&b->m, &b->mcap, b->nm + 1, sizeof(ldxi_match)) != LDX_OK ||
            ldxi_grow((void **)&b->co, &b->cocap, b->nco + n, sizeof(size_t)) != LDX_OK) {
            b->failed = true;
            return;
        }
        /* a signal with the pattern of one before it on the line (the same head: rules
         * that share a pattern, a user's copy of a rule) takes its captures and numbers */
        uint32_t hd = h->same_head[it.g];
        if (hd != it.g && w->stamp[hd] == w->seq && w->res[hd] != UINT32_MAX) {
            b->m[b->nm++] = (ldxi_match){l, it.g, b->m[w->res[hd]].co};
            ldxi_scan_remembered(s, ref.rule, ref.sig, &b->rc[ref.rule]);
            continue;
        }
        if (hd == it.g && h->same_next[it.g] != LDXI_HS_IGNORE) {
            w->stamp[it.g] = w->seq;
            w->res[it.g] = (uint32_t)b->nm;
        }
        b->m[b->nm++] = (ldxi_match){l, it.g, (uint32_t)b->nco};
        for (size_t i = 0; i < n; i++)
            b->co[b->nco + i] = mm->co[it.co + i] == UINT32_MAX ? SIZE_MAX : mm->co[it.co + i];
        if (!read_values(b, b->buf + b->bl[l].off, b->nco, n / 2)) {
            b->failed = true;
            return;
        }
        b->nco += n;
        ldxi_scan_remembered(s, ref.rule, ref.sig, &b->rc[ref.rule]);
    }
}

static void match_batch(const ldx_scanner *s, ldxi_batch *b, ldxi_worker *w)
{
    const ldxi_hsdb *h = s->rs->hs;
    memset(b->rc, 0, s->rs->n * sizeof(ldxi_rulecount));
    b->nm = b->nco = 0;
    b->pf_pairs = 0;
    b->nph = 0;
    b->failed = !cut_lines(b, w);
    if (!b->failed) prefilter(h, b, w->scratch, b->remembered);
    size_t p = 0;
    for (uint32_t l = 0; l < b->nbl && !b->failed; l++) {
        ldxi_bline *bl = &b->bl[l];
        ldxi_memo_entry *e = bl->memo != LDXI_MEMO_NONE ? &w->memo.ent[bl->memo] : NULL;
        size_t nm0 = b->nm;
        if (e && e->state == LDXI_MEMO_READY) {
            bl->hints = e->hints;
            if (e->nitems) recall(s, b, w, l, e);
        } else {
            /* the prefilter saw this line: the first of its template, or one the memo
             * has no room for */
            size_t p0 = p;
            uint8_t hints = 0;
            while (p < b->nph && b->ph[p].line == l) {
                uint32_t id = b->ph[p].id; /* a signal, a special, or a template hit */
                if (id == h->nsig + LDXI_HS_LAUNCHER) hints |= LDXI_HINT_LAUNCHER;
                if (id == h->nsig + LDXI_HS_VERSIONS) hints |= LDXI_HINT_VERSIONS;
                b->pf_pairs += id < h->nsig;
                p++;
            }
            /* the first line of a template: a hint that no line of it can use is dropped */
            if (e && (hints & LDXI_HINT_VERSIONS) &&
                !ldxi_versions_possible(b->buf + bl->off, bl->len, w->md))
                hints &= (uint8_t)~LDXI_HINT_VERSIONS;
            bl->hints = hints;
            if (e) e->hints = hints;
            match_line(s, b, w, l, p0, p, e);
        }
        /* a matched line's rank, here rather than where the batch is applied: that is
         * the one thread all batches go through */
        if (b->nm > nm0) bl->rank = ldx_line_rank(b->buf + bl->off, bl->len);
    }
    /* a batch matched line by line leaves templates half done: forget them all */
    if (b->failed) ldxi_memo_clear(&w->memo);
    /* a log whose lines do not repeat (an id on every one) pays for remembering them and
     * gets nothing back (half the speed without the memo, measured): where the memo knew
     * fewer than a quarter of the lines of its last MEMO_TRY batches (a log of thousands
     * of templates takes a few to learn them), it rests for MEMO_REST batches, twice as
     * many after each failed try (up to 16 times), and tries again with what it knew (a
     * log's first lines are its least repetitive, and a log may change its ways) */
    if (w->memo_rest) {
        w->memo_rest--;
    } else if (!b->failed) {
        w->try_lines += b->nbl;
        w->try_known += b->known;
        if (++w->try_batches == MEMO_TRY) {
            if (w->try_lines >= 4096 && w->try_known * 4 < w->try_lines) {
                w->memo_rest = MEMO_REST << (w->memo_fails < 4 ? w->memo_fails : 4); /* 16 to 256 */
                w->memo_fails++;
            } else {
                w->memo_fails = 0;
            }
            w->try_lines = w->try_known = w->try_batches = 0;
        }
    }
}

/* ---- applying: on the scanner's thread, in input order ---- */

static void apply_batch(ldx_scanner *s, ldxi_batch *b)
{
    if (b->failed) {
        /* the hits could not be kept: every pattern on every line, as without a prefilter */
        for (size_t l = 0; l < b->nbl; l++)
            ldxi_scan_plain(s, b->buf + b->bl[l].off, b->bl[l].len, b->bl[l].lineno);
    } else {
        const ldxi_hsdb *h = s->rs->hs;
        size_t mi = 0;
        /* the kept last lines (tail.c) need a batch's last ones only, if any */
        size_t keep = s->rs->max_tail < b->nbl ? s->rs->max_tail : b->nbl;
        size_t tail_from = b->nbl - keep;
        for (uint32_t l = 0; l < b->nbl; l++) {
            /* most lines: no match, no structure reader wants them */
            if (!b->bl[l].hints && !s->launcher.state && l < tail_from &&
                (mi == b->nm || b->m[mi].line != l))
                continue;
            const char *text = b->buf + b->bl[l].off;
            size_t len = b->bl[l].len;
            uint64_t lineno = b->bl[l].lineno;
            ldxi_scan_structure(s, text, len, lineno, b->bl[l].hints & LDXI_HINT_LAUNCHER,
                                b->bl[l].hints & LDXI_HINT_VERSIONS);
            if (l >= tail_from) ldxi_tail_keep(s, text, len, lineno);
            ldxi_linectx lc = {.ranked = true, .rank = b->bl[l].rank};
            long cur = -1;
            for (; mi < b->nm && b->m[mi].line == l; mi++) {
                ldxi_sigref ref = h->refs[b->m[mi].g];
                if ((long)ref.rule != cur) s->rule_lines[ref.rule]++; /* once a line */
                cur = ref.rule;
                const size_t *co = b->co ? b->co + b->m[mi].co : NULL; /* NULL: no captures */
                const double *vals = b->val ? b->val + b->m[mi].co / 2 : NULL;
                ldxi_scan_hit(s, ref.rule, ref.sig, text, len, lineno, &lc, co, vals);
            }
        }
        ldxi_scan_materialize(s);
        for (size_t i = 0; i < s->rs->n; i++)
            if (b->rc[i].calls || b->rc[i].matches) ldxi_scan_count(s, i, &b->rc[i]);
        s->pf.bytes += b->pf_bytes; /* once per database */
        s->pf.lines += b->nbl;
        s->pf.known += b->known;
        s->pf.ns += b->pf_ns;
        s->pf.pairs += b->pf_pairs;
    }
    b->len = b->nbl = b->nph = b->nm = b->nco = b->nseg = 0;
    b->nlines = 0;
    b->done = false;
}

/* ---- threads ---- */

static void *worker_main(void *arg)
{
    ldxi_worker *w = arg;
    ldx_scanner *s = w->s;
    pthread_mutex_lock(&s->mu);
    for (;;) {
        while (s->claimed == s->filled && !s->quit) pthread_cond_wait(&s->work, &s->mu);
        if (s->quit) break;
        ldxi_batch *b = &s->bt[s->claimed++ % (uint64_t)s->nbt];
        pthread_mutex_unlock(&s->mu);
        match_batch(s, b, w);
        pthread_mutex_lock(&s->mu);
        b->done = true;
        pthread_cond_broadcast(&s->done);
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

/* Returns once the oldest batch handed on is matched. Rather than wait for it, this
 * thread matches batches nobody has taken yet: so -j N needs only N - 1 workers to
 * keep N cores busy. */
static ldxi_batch *oldest_matched(ldx_scanner *s)
{
    ldxi_batch *b = &s->bt[s->applied % (uint64_t)s->nbt];
    if (s->nworkers) {
        pthread_mutex_lock(&s->mu);
        while (!b->done) {
            if (s->claimed < s->filled) {
                ldxi_batch *t = &s->bt[s->claimed++ % (uint64_t)s->nbt];
                pthread_mutex_unlock(&s->mu);
                match_batch(s, t, &s->own);
                pthread_mutex_lock(&s->mu);
                t->done = true;
                continue;
            }
            pthread_cond_wait(&s->done, &s->mu);
        }
        pthread_mutex_unlock(&s->mu);
    }
    return b;
}

static void apply_oldest(ldx_scanner *s)
{
    apply_batch(s, oldest_matched(s));
    s->applied++;
}

static void start_workers(ldx_scanner *s);

/* The batch being filled is full, or the input ended: match it here, or hand it to
 * the workers, and apply what is ready. */
static void hand_on(ldx_scanner *s)
{
    ldxi_batch *b = &s->bt[s->filled % (uint64_t)s->nbt];
    if (!b->nseg) return;
    /* threads only for an input of more than one batch: a small log is done sooner
     * than they start */
    if (s->want > 0 && b->len >= BATCH_BYTES) {
        start_workers(s);
        b = &s->bt[s->filled % (uint64_t)s->nbt];
    }
    if (!s->nworkers) {
        match_batch(s, b, &s->own);
        s->filled++;
        apply_oldest(s);
        return;
    }
    pthread_mutex_lock(&s->mu);
    s->filled++;
    pthread_cond_signal(&s->work);
    pthread_mutex_unlock(&s->mu);
    /* the next batch to fill must be free: apply the one that held it */
    if (s->filled - s->applied == (uint64_t)s->nbt) apply_oldest(s);
}

void ldxi_scanner_flush(ldx_scanner *s)
{
    if (!s->bt) return;
    hand_on(s);
    while (s->applied < s->filled) apply_oldest(s);
}

void ldxi_batch_discard(ldx_scanner *s)
{
    if (!s->bt) return;
    while (s->applied < s->filled) { /* let the workers finish, throw away the results */
        oldest_matched(s)->done = false;
        s->applied++;
    }
    for (int i = 0; i < s->nbt; i++) {
        s->bt[i].len = s->bt[i].nbl = s->bt[i].nph = s->bt[i].nseg = 0;
        s->bt[i].nlines = 0;
    }
}

/* Room in the batch being filled for n more bytes of lines and k more lines (bl[] is
 * grown here, on the reading thread, so that splitting cannot fail). */
static ldxi_batch *batch_room(ldx_scanner *s, size_t n, uint64_t k)
{
    ldxi_batch *b = &s->bt[s->filled % (uint64_t)s->nbt];
    /* 16 bytes to spare: lines are cut 16 bytes at a time (ldxi_memo_line) */
    if (ldxi_grow((void **)&b->buf, &b->cap, b->len + n + 16, 1) != LDX_OK ||
        ldxi_grow((void **)&b->seg, &b->segcap, b->nseg + 1, sizeof(ldxi_seg)) != LDX_OK ||
        ldxi_grow((void **)&b->bl, &b->blcap, (size_t)(b->nlines + k), sizeof(ldxi_bline)) != LDX_OK) {
        ldxi_scanner_flush(s); /* what is queued goes first */
        return NULL;
    }
    return b;
}

/* Adds text[0..n) to the batch, k whole lines from first_line on (a line end after
 * them when eol is given): to its last run when they follow it. */
static void add_lines(ldx_scanner *s, ldxi_batch *b, const char *text, size_t n, const char *eol,
                      uint64_t first_line, uint64_t k)
{
    memcpy(b->buf + b->len, text, n);
    if (eol) b->buf[b->len + n++] = *eol;
    ldxi_seg *last = b->nseg ? &b->seg[b->nseg - 1] : NULL;
    if (last && last->off + last->len == b->len && last->first_line + last->lines == first_line) {
        last->len += n;
        last->lines += k;
    } else {
        b->seg[b->nseg++] = (ldxi_seg){b->len, n, first_line, k};
    }
    b->len += n;
    b->nlines += k;
    memset(b->buf + b->len, 0, 16); /* what is read past the last line is defined */
    if (b->len >= BATCH_BYTES) hand_on(s);
}

bool ldxi_batch_line(ldx_scanner *s, const ldx_line *line)
{
    ldxi_batch *b = batch_room(s, line->len + 1, 1);
    if (!b) return false;
    /* its ANSI escapes go where the batch is split */
    add_lines(s, b, line->text, line->len, "\n", line->lineno, 1);
    return true;
}

bool ldxi_batch_chunk(ldx_scanner *s, const ldx_chunk *c)
{
    /* a batch stays near BATCH_BYTES: a chunk that would take it over starts the next */
    ldxi_batch *b = &s->bt[s->filled % (uint64_t)s->nbt];
    if (b->len && b->len + c->len > BATCH_BYTES) hand_on(s);
    b = batch_room(s, c->len, c->lines);
    if (!b) return false;
    add_lines(s, b, c->text, c->len, NULL, c->first_line, c->lines);
    return true;
}

/* ---- set-up ---- */

static ldx_status worker_init(ldx_scanner *s, ldxi_worker *w, void *scratch)
{
    w->s = s;
    w->md = pcre2_match_data_create(s->rs->max_groups > 4 ? s->rs->max_groups : 4, NULL);
    w->stamp = calloc(s->rs->hs->nsig ? s->rs->hs->nsig : 1, sizeof(uint64_t));
    w->res = calloc(s->rs->hs->nsig ? s->rs->hs->nsig : 1, sizeof(uint32_t));
    w->wcode = calloc(s->rs->hs->nsig ? s->rs->hs->nsig : 1, sizeof(pcre2_code *));
    w->wmd = pcre2_match_data_create(1, NULL);
    if (!w->md || !w->stamp || !w->res || !w->wcode || !w->wmd) return LDX_ENOMEM;
    if (scratch) return hs_clone_scratch(scratch, (hs_scratch_t **)&w->scratch) == HS_SUCCESS
                            ? LDX_OK : LDX_ENOMEM;
    /* one scratch serves every part: each allocation grows it to fit */
    for (int p = 0; p < s->rs->hs->nparts; p++)
        if (hs_alloc_scratch(s->rs->hs->part[p].db, (hs_scratch_t **)&w->scratch) != HS_SUCCESS)
            return LDX_ENOMEM;
    return LDX_OK;
}

static void worker_fini(ldxi_worker *w)
{
    if (w->scratch) hs_free_scratch(w->scratch);
    pcre2_match_data_free(w->md);
    free(w->stamp);
    free(w->res);
    free(w->cand);
    ldxi_memo_free(&w->memo);
    for (uint32_t g = 0; w->wcode && g < w->s->rs->hs->nsig; g++) pcre2_code_free(w->wcode[g]);
    free(w->wcode);
    pcre2_match_data_free(w->wmd);
    w->wcode = NULL;
    w->wmd = NULL;
    w->cand = NULL;
    w->candcap = 0;
    w->scratch = NULL;
    w->md = NULL;
    w->stamp = NULL;
    w->res = NULL;
}

static ldx_status make_batches(ldx_scanner *s, int n)
{
    ldxi_batch *bt = calloc((size_t)n, sizeof(ldxi_batch));
    if (!bt) return LDX_ENOMEM;
    s->bt = bt;
    s->nbt = n;
    for (int i = 0; i < n; i++) {
        bt[i].last = calloc(2 * (s->rs->hs->nsig + LDXI_HS_NSPECIAL), sizeof(uint32_t));
        bt[i].rc = calloc(s->rs->n ? s->rs->n : 1, sizeof(ldxi_rulecount));
        if (!bt[i].last || !bt[i].rc) return LDX_ENOMEM;
    }
    return LDX_OK;
}

static void free_batch(ldxi_batch *b)
{
    free(b->buf);
    free(b->seg);
    free(b->rbuf);
    free(b->tbuf);
    free(b->tl);
    free(b->bl);
    free(b->ph);
    free(b->ph2);
    free(b->lend);
    free(b->last);
    free(b->m);
    free(b->co);
    free(b->val);
    free(b->rc);
}

static void free_batches(ldx_scanner *s)
{
    for (int i = 0; s->bt && i < s->nbt; i++) free_batch(&s->bt[i]);
    free(s->bt);
    s->bt = NULL;
    s->nbt = 0;
}

ldx_status ldxi_batch_init(ldx_scanner *s)
{
    const ldxi_hsdb *h = s->rs->hs;
    s->blind = calloc(h->nsig ? h->nsig : 1, sizeof(bool));
    if (!s->blind) return LDX_ENOMEM;
    s->wide = calloc(h->nsig ? h->nsig : 1, sizeof(char *));
    if (!s->wide) return LDX_ENOMEM;
    for (uint32_t g = 0; g < h->nsig; g++) {
        const char *pattern = s->rs->rules[h->refs[g].rule]->info.signals[h->refs[g].sig].pattern;
        s->blind[g] = ldxi_re_digit_blind(pattern);
        if (!s->blind[g]) s->wide[g] = ldxi_re_widen_digits(pattern); /* NULL: none */
    }
    ldx_status st = worker_init(s, &s->own, NULL);
    return st == LDX_OK ? make_batches(s, 1) : st;
}

static void stop_workers(ldx_scanner *s)
{
    if (!s->nworkers) return;
    pthread_mutex_lock(&s->mu);
    s->quit = true;
    pthread_cond_broadcast(&s->work);
    pthread_mutex_unlock(&s->mu);
    for (int i = 0; i < s->nworkers; i++) {
        pthread_join(s->wk[i].thread, NULL);
        worker_fini(&s->wk[i]);
    }
    free(s->wk);
    s->wk = NULL;
    s->nworkers = 0;
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->work);
    pthread_cond_destroy(&s->done);
}

void ldxi_batch_free(ldx_scanner *s)
{
    stop_workers(s);
    free_batches(s);
    worker_fini(&s->own);
    free(s->blind);
    s->blind = NULL;
    for (uint32_t g = 0; s->wide && g < s->rs->hs->nsig; g++) free(s->wide[g]);
    free(s->wide);
    s->wide = NULL;
}

ldx_status ldx_scanner_set_threads(ldx_scanner *s, int n)
{
    /* this thread matches too (apply_oldest) */
    if (s->bt && !s->nworkers) s->want = n - 1;
    return LDX_OK;
}

/* Starts the workers asked for, with a ring of batches for them; the batch being
 * filled moves to its first slot. Without them (out of memory, no threads), batches
 * go on being matched here. */
static void start_workers(ldx_scanner *s)
{
    int n = s->want;
    s->want = 0;
    ldxi_batch *old = s->bt;
    int oldn = s->nbt;
    uint64_t cur = s->filled % (uint64_t)oldn;
    s->bt = NULL;
    s->wk = calloc((size_t)n, sizeof(ldxi_worker));
    /* a batch per worker, as many waiting, one being applied and one being filled */
    if (!s->wk || make_batches(s, 2 * n + 2) != LDX_OK) {
        free_batches(s);
        free(s->wk);
        s->wk = NULL;
        s->bt = old;
        s->nbt = oldn;
        return;
    }
    free_batch(&s->bt[0]);
    s->bt[0] = old[cur];
    for (int i = 0; i < oldn; i++)
        if ((uint64_t)i != cur) free_batch(&old[i]);
    free(old);
    s->filled = s->claimed = s->applied = 0;
    s->quit = false;
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->work, NULL);
    pthread_cond_init(&s->done, NULL);
    for (int i = 0; i < n; i++) {
        if (worker_init(s, &s->wk[i], s->own.scratch) != LDX_OK ||
            pthread_create(&s->wk[i].thread, NULL, worker_main, &s->wk[i]) != 0) {
            worker_fini(&s->wk[i]);
            break;
        }
        s->nworkers = i + 1;
    }
    if (!s->nworkers) {
        pthread_mutex_destroy(&s->mu);
        pthread_cond_destroy(&s->work);
        pthread_cond_destroy(&s->done);
        free(s->wk);
        s->wk = NULL;
    }
}

#else /* PCRE2 alone */

bool ldxi_batch_chunk(ldx_scanner *s, const ldx_chunk *c)
{
    (void)s;
    (void)c;
    return false;
}
void ldxi_scanner_flush(ldx_scanner *s) { (void)s; }
void ldxi_batch_discard(ldx_scanner *s) { (void)s; }
bool ldxi_batch_line(ldx_scanner *s, const ldx_line *line)
{
    (void)s;
    (void)line;
    return false;
}
ldx_status ldxi_batch_init(ldx_scanner *s)
{
    (void)s;
    return LDX_OK;
}
void ldxi_batch_free(ldx_scanner *s) { (void)s; }
ldx_status ldx_scanner_set_threads(ldx_scanner *s, int n)
{
    (void)s;
    (void)n;
    return LDX_OK;
}
#endif
