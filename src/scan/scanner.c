/* The scanner: every signal pattern of every rule against each line (ANSI removed).
 *
 * Two engines record exactly the same things. The plain one runs every PCRE2 pattern
 * on every line. The prefilter one (when Vectorscan is built in) copies lines into a
 * batch, one per '\n' so that '^' and '$' mean what they mean per line, scans the
 * batch once for all patterns in prefilter mode (a superset of their matches), and
 * runs PCRE2 only for the (line, signal) pairs that hit, in the same rule and signal
 * order as the plain engine, so sequences and evidence come out identical. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef LDX_HAVE_HS
#include <hs/hs.h>
#endif

#include "scan_int.h"
#include "../rules/hsdb.h"

#define BATCH_BYTES ((size_t)256 << 10)
/* Bounds on one match, so that one pathological pattern cannot stall a scan. */
#define MATCH_LIMIT 2000000u
#define DEPTH_LIMIT 20000u
#define HEAP_LIMIT_KIB 65536u
/* A rule may spend this much PCRE2 time on one input before it is switched off there
 * (with a warning): one slow pattern must not hold a batch scan hostage. */
#define RULE_BUDGET_NS (10ull * 1000 * 1000 * 1000)
#define CLOCK_SAMPLE 16 /* time one confirm in this many, and scale */

ldx_status ldx_scanner_create(ldx_scanner **out, const ldx_ruleset *rs)
{
    ldx_scanner *s = calloc(1, sizeof(*s));
    if (!s) return LDX_ENOMEM;
    s->rs = rs;
    s->st = calloc(rs->n ? rs->n : 1, sizeof(*s->st));
    s->rule_lines = calloc(rs->n ? rs->n : 1, sizeof(uint64_t));
    s->trk = calloc(rs->n ? rs->n : 1, sizeof(*s->trk));
    /* at least 4 pairs: the version readers need group 1 */
    s->md = pcre2_match_data_create(rs->max_groups > 4 ? rs->max_groups : 4, NULL);
    s->clean = malloc(LDX_LINE_MAX + 1);
    s->mctx = pcre2_match_context_create(NULL);
    s->limit_hits = calloc(rs->n ? rs->n : 1, sizeof(uint64_t));
    s->limit_sig = calloc(rs->n ? rs->n : 1, sizeof(uint32_t));
    s->rule_base = calloc(rs->n + 1, sizeof(size_t));
    s->rule_ns = calloc(rs->n ? rs->n : 1, sizeof(uint64_t));
    s->rule_off = calloc(rs->n ? rs->n : 1, sizeof(bool));
    s->rule_calls = calloc(rs->n ? rs->n : 1, sizeof(uint64_t));
    s->rule_matches = calloc(rs->n ? rs->n : 1, sizeof(uint64_t));
    s->inflight = -1;
    if (!s->st || !s->rule_lines || !s->trk || !s->md || !s->clean || !s->mctx ||
        !s->limit_hits || !s->limit_sig || !s->rule_base || !s->rule_ns || !s->rule_off ||
        !s->rule_calls || !s->rule_matches) {
        ldx_scanner_destroy(s);
        return LDX_ENOMEM;
    }
    pcre2_set_match_limit(s->mctx, MATCH_LIMIT);
    pcre2_set_depth_limit(s->mctx, DEPTH_LIMIT);
    pcre2_set_heap_limit(s->mctx, HEAP_LIMIT_KIB);
#ifdef LDX_HAVE_HS
    if (rs->hs) {
        /* one scratch serves every part: each allocation grows it to fit */
        for (int p = 0; p < rs->hs->nparts; p++)
            if (hs_alloc_scratch(rs->hs->part[p].db, (hs_scratch_t **)&s->hs_scratch) != HS_SUCCESS) {
                ldx_scanner_destroy(s);
                return LDX_ENOMEM;
            }
        for (int b = 0; b < 2; b++) {
            s->bt[b].last = calloc(rs->hs->nsig + LDXI_HS_NSPECIAL, sizeof(uint32_t));
            if (!s->bt[b].last) {
                ldx_scanner_destroy(s);
                return LDX_ENOMEM;
            }
        }
    }
#endif
    for (size_t i = 0; i < rs->n; i++) {
        size_t ns = rs->rules[i]->info.nsignals;
        s->rule_base[i + 1] = s->rule_base[i] + ns;
        s->st[i] = calloc(ns ? ns : 1, sizeof(ldxi_sigstate));
        size_t nt = rs->rules[i]->ntrackers;
        if (nt) s->trk[i] = calloc(nt, sizeof(ldxi_trackstate));
        if (!s->st[i] || (nt && !s->trk[i])) {
            ldx_scanner_destroy(s);
            return LDX_ENOMEM;
        }
    }
    *out = s;
    return LDX_OK;
}

static void free_hit(ldxi_hit *h, size_t ncaps)
{
    free(h->text);
    if (h->caps)
        for (size_t i = 0; i < ncaps; i++) free(h->caps[i]);
    free(h->caps);
    memset(h, 0, sizeof(*h));
}

static void clear(ldx_scanner *s)
{
    if (!s->st) return;
    for (size_t i = 0; i < s->rs->n; i++) {
        if (!s->st[i]) continue;
        const ldxi_rule *r = s->rs->rules[i];
        for (size_t k = 0; k < r->info.nsignals; k++) {
            ldxi_sigstate *ss = &s->st[i][k];
            size_t nc = r->sigs[k].ncaps;
            for (uint32_t h = 0; h < ss->nfirst; h++) free_hit(&ss->first[h], nc);
            if (ss->has_last) free_hit(&ss->last, nc);
            free(ss->pend_ov);
            free(ss->nums);
            memset(ss, 0, sizeof(*ss));
        }
    }
    s->lines = s->truncated = 0;
    ldxi_scanner_flush(s);
    for (int b = 0; b < 2; b++) s->bt[b].len = s->bt[b].nbl = s->bt[b].nph = 0;
    s->npend = 0;
    if (s->limit_hits) memset(s->limit_hits, 0, s->rs->n * sizeof(uint64_t));
    if (s->rule_ns) memset(s->rule_ns, 0, s->rs->n * sizeof(uint64_t));
    if (s->rule_off) memset(s->rule_off, 0, s->rs->n * sizeof(bool));
    if (s->rule_calls) memset(s->rule_calls, 0, s->rs->n * sizeof(uint64_t));
    if (s->rule_matches) memset(s->rule_matches, 0, s->rs->n * sizeof(uint64_t));
    s->nconfirm = 0;
    memset(&s->launcher, 0, sizeof s->launcher);
    memset(s->versions, 0, sizeof s->versions);
    if (s->rule_lines) memset(s->rule_lines, 0, s->rs->n * sizeof(uint64_t));
    for (size_t i = 0; s->trk && i < s->rs->n; i++)
        if (s->trk[i]) memset(s->trk[i], 0, s->rs->rules[i]->ntrackers * sizeof(ldxi_trackstate));
}

void ldx_scanner_reset(ldx_scanner *s) { clear(s); }

void ldx_scanner_destroy(ldx_scanner *s)
{
    if (!s) return;
    clear(s);
    for (size_t i = 0; i < s->rs->n; i++) {
        if (s->st) free(s->st[i]);
        if (s->trk) free(s->trk[i]);
    }
    free(s->st);
    free(s->trk);
    pcre2_match_context_free(s->mctx);
    free(s->limit_hits);
    free(s->limit_sig);
    free(s->rule_ns);
    free(s->rule_off);
    free(s->rule_calls);
    free(s->rule_matches);
    free(s->rule_base);
    if (s->pipe) {
        pthread_mutex_lock(&s->mu);
        s->quit = true;
        pthread_cond_broadcast(&s->cv);
        pthread_mutex_unlock(&s->mu);
        pthread_join(s->worker, NULL);
        pthread_mutex_destroy(&s->mu);
        pthread_cond_destroy(&s->cv);
    }
    for (int b = 0; b < 2; b++) {
        free(s->bt[b].buf);
        free(s->bt[b].bl);
        free(s->bt[b].ph);
        free(s->bt[b].ph2);
        free(s->bt[b].lend);
        free(s->bt[b].last);
    }
    free(s->pend);
#ifdef LDX_HAVE_HS
    if (s->hs_scratch) hs_free_scratch(s->hs_scratch);
    if (s->worker_scratch) hs_free_scratch(s->worker_scratch);
#endif
    free(s->rule_lines);
    pcre2_match_data_free(s->md);
    free(s->clean);
    free(s);
}

uint64_t ldx_scanner_lines(const ldx_scanner *s) { return s->lines; }
uint64_t ldx_scanner_truncated(const ldx_scanner *s) { return s->truncated; }

const ldx_launcher_info *ldx_scanner_launcher(const ldx_scanner *s)
{
    return s->launcher.info.present ? &s->launcher.info : NULL;
}

const ldxi_sigstate *ldxi_scanner_state(const ldx_scanner *s, size_t rule, size_t sig)
{
    return &s->st[rule][sig];
}

const ldxi_trackstate *ldxi_scanner_track(const ldx_scanner *s, size_t rule, size_t t)
{
    return &s->trk[rule][t];
}

/* Sequences: a hit of signal k moves every tracker of the rule that watches k. The
 * window of then() is checked against the latest hit of a, so "b within N after some
 * a" is counted exactly without keeping a history. */
static void track(ldx_scanner *s, const ldxi_rule *r, size_t i, size_t k, uint64_t lineno,
                  const ldx_line_info *li)
{
    for (size_t t = 0; t < r->ntrackers; t++) {
        const ldxi_tracker *tr = &r->trackers[t];
        ldxi_trackstate *ts = &s->trk[i][t];
        if ((size_t)tr->b == k) {
            if (tr->kind == LDXI_F_AFTER) {
                ts->count++;
            } else if (ts->last_a_line) {
                bool in;
                if (tr->seconds)
                    in = li->ts_kind != LDX_TS_NONE && li->ts_kind == ts->last_a_kind &&
                         li->ts >= ts->last_a_ts && li->ts - ts->last_a_ts <= tr->window;
                else
                    in = (double)(lineno - ts->last_a_line) <= tr->window;
                ts->count += in;
            }
        }
        if ((size_t)tr->a == k) {
            ts->last_a_line = lineno;
            ts->last_a_kind = li->ts_kind;
            ts->last_a_ts = li->ts;
            if (tr->kind == LDXI_F_AFTER) ts->count = 0;
        }
    }
}

static void add_sample(ldxi_series *se, double v)
{
    if (se->skip) {
        se->skip--;
        return;
    }
    if (se->nsamples == LDXI_SAMPLES) {
        for (uint32_t i = 0; i < LDXI_SAMPLES / 2; i++) se->samples[i] = se->samples[2 * i];
        se->nsamples = LDXI_SAMPLES / 2;
        se->stride = se->stride ? se->stride * 2 : 2;
    }
    se->samples[se->nsamples++] = v;
    se->skip = se->stride ? se->stride - 1 : 0;
}

static void add_number(ldxi_numstat *ns, int rank, double v)
{
    if (ns->n == 0) {
        ns->min = ns->max = ns->first = v;
    }
    if (v < ns->min) ns->min = v;
    if (v > ns->max) ns->max = v;
    ns->sum += v;
    ns->last = v;
    ns->n++;
    ldxi_series *se = NULL;
    for (uint32_t i = 0; i < ns->nseries; i++)
        if (ns->series[i].rank == rank) se = &ns->series[i];
    if (!se) {
        if (ns->nseries == LDXI_SERIES_MAX) return;
        se = &ns->series[ns->nseries++];
        memset(se, 0, sizeof(*se));
        se->rank = rank;
    }
    if (se->n) {
        double tol = 0.01 * fabs(se->last);
        if (v > se->last + tol) se->rises++;
        else if (v < se->last - tol) se->falls++;
    } else {
        se->first = v;
    }
    se->last = v;
    se->n++;
    add_sample(se, v);
}


/* What the current line says about itself: its rank on its first hit, the rest of its
 * structure only when evidence or a time window needs it. */
typedef struct {
    bool ranked, parsed;
    int rank;
    ldx_line_info li;
} line_ctx;

static void need_rank(line_ctx *lc, const char *text, size_t len)
{
    if (!lc->ranked) {
        lc->rank = lc->parsed ? lc->li.rank : ldx_line_rank(text, len);
        lc->ranked = true;
    }
}

static void need_parse(line_ctx *lc, const char *text, size_t len)
{
    if (!lc->parsed) {
        if (lc->ranked) ldxi_line_parse_ranked(text, len, lc->rank, &lc->li);
        else ldx_line_parse(text, len, &lc->li);
        lc->parsed = lc->ranked = true;
        lc->rank = lc->li.rank;
    }
}

/* Copies a hit's text and captures (ov: 2 offsets per capture, SIZE_MAX when unset). */
static void fill_hit(ldxi_hit *h, const ldxi_sigc *sc, const char *text, size_t len,
                     const size_t *ov, const ldx_line_info *li)
{
    h->info = *li;
    h->text = ldx_display_text(text, len, LDXI_EV_TEXT);
    h->caps = NULL;
    if (!sc->ncaps) return;
    h->caps = calloc(sc->ncaps, sizeof(char *));
    for (size_t c = 0; h->caps && c < sc->ncaps; c++)
        if (ov[2 * c] != SIZE_MAX)
            h->caps[c] = ldx_display_text(text + ov[2 * c], ov[2 * c + 1] - ov[2 * c], LDXI_CAP_TEXT);
}

/* Makes every pending last hit a copy of its own; the batch is about to be reused.
 * Signals that last hit the same line (the usual case without the prefilter, which
 * materializes after each line) share one parse of it. */
static void materialize(ldx_scanner *s)
{
    const char *parsed = NULL;
    ldx_line_info li;
    for (size_t i = 0; i < s->npend; i++) {
        ldxi_sigstate *ss = s->pend[i].ss;
        if (!ss->last_pending) continue;
        ldxi_sigc sc = {.ncaps = s->pend[i].ncaps};
        if (ss->pend_text != parsed) {
            ldxi_line_parse_ranked(ss->pend_text, ss->pend_len, ss->last.rank, &li);
            parsed = ss->pend_text;
        }
        fill_hit(&ss->last, &sc, ss->pend_text, ss->pend_len, ss->pend_ov, &li);
        ss->last_pending = false;
    }
    s->npend = 0;
}

static void record(ldx_scanner *s, const ldxi_rule *r, size_t k, ldxi_sigstate *ss,
                   const char *text, size_t len, uint64_t lineno, line_ctx *lc)
{
    const ldxi_sigc *sc = &r->sigs[k];
    need_rank(lc, text, len);
    int rank = lc->rank;
    ss->count++;
    if (rank >= 0 && rank < LDXI_RANK_BITS) {
        uint64_t bit = (uint64_t)1 << (rank % 64);
        if (!(ss->rankbits[rank / 64] & bit)) {
            ss->rankbits[rank / 64] |= bit;
            ss->nranks++;
        }
    }
    PCRE2_SIZE *ov = pcre2_get_ovector_pointer(s->md);
    uint32_t npairs = pcre2_get_ovector_count(s->md);
    size_t capov[2 * 16];
    size_t *co = sc->ncaps <= 16 ? capov : calloc(2 * sc->ncaps, sizeof(size_t));
    if (sc->ncaps && !co) return;
    for (size_t c = 0; c < sc->ncaps; c++) {
        uint32_t g = (uint32_t)sc->capgroups[c];
        bool set = g < npairs && ov[2 * g] != PCRE2_UNSET;
        co[2 * c] = set ? ov[2 * g] : SIZE_MAX;
        co[2 * c + 1] = set ? ov[2 * g + 1] : SIZE_MAX;
    }
    if (sc->ncaps) {
        if (!ss->nums) ss->nums = calloc(sc->ncaps, sizeof(ldxi_numstat));
        for (size_t c = 0; ss->nums && c < sc->ncaps; c++) {
            if (co[2 * c] == SIZE_MAX) continue;
            double v;
            if (ldxi_parse_quantity(text + co[2 * c], co[2 * c + 1] - co[2 * c], &v))
                add_number(&ss->nums[c], rank, v);
        }
    }
    if (ss->nfirst < LDXI_EV_FIRST) {
        ldxi_hit *h = &ss->first[ss->nfirst++];
        need_parse(lc, text, len);
        h->line = lineno;
        h->rank = rank;
        fill_hit(h, sc, text, len, co, &lc->li);
    } else {
        /* the latest hit: keep where it is, copy it when the batch is done */
        if (ss->has_last && !ss->last_pending) free_hit(&ss->last, sc->ncaps);
        if (!ss->pend_ov && sc->ncaps) ss->pend_ov = calloc(2 * sc->ncaps, sizeof(size_t));
        if (!ss->last_pending &&
            (ldxi_grow((void **)&s->pend, &s->pendcap, s->npend + 1, sizeof(*s->pend)) != LDX_OK ||
             (sc->ncaps && !ss->pend_ov))) {
            /* no room to defer: copy now */
            need_parse(lc, text, len);
            ss->last.line = lineno;
            ss->last.rank = rank;
            fill_hit(&ss->last, sc, text, len, co, &lc->li);
            ss->has_last = true;
        } else {
            if (!ss->last_pending)
                s->pend[s->npend++] = (struct ldxi_pending){ss, (uint32_t)sc->ncaps};
            ss->last_pending = true;
            ss->has_last = true;
            ss->last.line = lineno;
            ss->last.rank = rank;
            ss->pend_text = text;
            ss->pend_len = len;
            if (sc->ncaps) memcpy(ss->pend_ov, co, 2 * sc->ncaps * sizeof(size_t));
        }
    }
    if (co != capov) free(co);
}

static pthread_mutex_t jit_lock = PTHREAD_MUTEX_INITIALIZER;

/* JIT-compiles a pattern the first time any scanner needs it. The ruleset is shared by
 * threads, so this is the one place that writes to it: under a lock, with the flag
 * published after the compiled code, and no thread matching the pattern before it
 * sees the flag. */
static void jit_once(const ldxi_sigc *sc)
{
    if (__atomic_load_n(&sc->jitted, __ATOMIC_ACQUIRE)) return;
    pthread_mutex_lock(&jit_lock);
    ldxi_sigc *w = (ldxi_sigc *)sc;
    if (!w->jitted) {
        pcre2_jit_compile(w->code, PCRE2_JIT_COMPLETE); /* without JIT it is only slower */
        __atomic_store_n(&w->jitted, 1, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&jit_lock);
}

/* One signal on one line: PCRE2 decides, within its limits. */
static bool confirm(ldx_scanner *s, const ldxi_rule *r, size_t i, size_t k, const char *text,
                    size_t len)
{
    if (s->rule_off[i]) return false;
    jit_once(&r->sigs[k]);
    bool timed = s->profile || (s->nconfirm++ % CLOCK_SAMPLE) == 0;
    s->rule_calls[i]++;
    struct timespec t0, t1;
    if (timed) clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = pcre2_match(r->sigs[k].code, (PCRE2_SPTR)text, len, 0, 0, s->md, s->mctx);
    if (timed) {
        clock_gettime(CLOCK_MONOTONIC, &t1);
        uint64_t ns = (uint64_t)(t1.tv_sec - t0.tv_sec) * 1000000000ull +
                      (uint64_t)(t1.tv_nsec - t0.tv_nsec);
        s->rule_ns[i] += s->profile ? ns : ns * CLOCK_SAMPLE;
        if (s->rule_ns[i] > RULE_BUDGET_NS && !s->profile) s->rule_off[i] = true;
    }
    if (rc >= 0) {
        s->rule_matches[i]++;
        return true;
    }
    if (rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT ||
        rc == PCRE2_ERROR_HEAPLIMIT || rc == PCRE2_ERROR_JIT_STACKLIMIT) {
        s->limit_hits[i]++;
        s->limit_sig[i] = (uint32_t)k;
    }
    return false;
}

/* The structure readers see every line they may care about. */
static void structure(ldx_scanner *s, const char *text, size_t len, uint64_t lineno,
                      bool launcher_hint, bool version_hint)
{
    if (s->launcher.state || launcher_hint) ldxi_launcher_feed(&s->launcher, text, len, lineno);
    if (version_hint) ldxi_versions_feed(s, text, len);
}

/* The plain engine: every pattern on the line. */
static void scan_plain(ldx_scanner *s, const char *text, size_t len, uint64_t lineno)
{
    line_ctx lc = {.parsed = false};
    /* cheap tests first: the summary's lines all have a ':', banners a '.' */
    structure(s, text, len, lineno, memchr(text, ':', len) != NULL, true);
    for (size_t i = 0; i < s->rs->n; i++) {
        const ldxi_rule *r = s->rs->rules[i];
        bool hit = false;
        for (size_t k = 0; k < r->info.nsignals; k++) {
            if (!confirm(s, r, i, k, text, len)) continue;
            record(s, r, k, &s->st[i][k], text, len, lineno, &lc);
            if (r->ntrackers) {
                need_parse(&lc, text, len);
                track(s, r, i, k, lineno, &lc.li);
            }
            hit = true;
        }
        s->rule_lines[i] += hit;
    }
    materialize(s);
}

#ifdef LDX_HAVE_HS
typedef struct {
    const ldxi_hsdb *h;
    ldxi_batch *b;
    const ldxi_hspart *part;
    size_t cursor;   /* the batch line of the previous match */
} hit_ctx;

static int on_hit(unsigned id, unsigned long long from, unsigned long long to, unsigned flags,
                  void *vctx)
{
    (void)from;
    (void)flags;
    hit_ctx *hc = vctx;
    ldxi_batch *b = hc->b;
    uint32_t g = hc->part->map[id]; /* a signal of the ruleset, or a special */
    if (g == LDXI_HS_IGNORE) return 0;
    /* the line holding the match's last byte; bl[] is sorted by offset. Matches come
     * mostly in order of their end, so walk on from the last line found; jump by binary
     * search when one does not */
    size_t end = to ? (size_t)to - 1 : 0, lo = hc->cursor;
    if (b->bl[lo].off <= end)
        while (lo + 1 < b->nbl && b->bl[lo + 1].off <= end && lo - hc->cursor < 8) lo++;
    if (b->bl[lo].off > end || (lo + 1 < b->nbl && b->bl[lo + 1].off <= end)) {
        size_t x = 0, y = b->nbl;
        while (y - x > 1) {
            size_t mid = (x + y) / 2;
            if (b->bl[mid].off <= end) x = mid;
            else y = mid;
        }
        lo = x;
    }
    hc->cursor = lo;
    /* one entry per (line, signal), however many matches end on the line: this keeps the
     * hit list bounded by lines x patterns, not by bytes; the entry stands for every
     * signal with this pattern */
    const ldxi_hsdb *h = hc->h;
    for (; g != LDXI_HS_IGNORE; g = g < h->nsig ? h->same_next[g] : LDXI_HS_IGNORE) {
        if (b->last[g] == lo + 1) continue;
        b->last[g] = (uint32_t)lo + 1;
        if (ldxi_grow((void **)&b->ph, &b->phcap, b->nph + 1, sizeof(ldxi_phit)) != LDX_OK) {
            b->failed = true;
            return 1; /* stop: every line will be confirmed instead */
        }
        b->ph[b->nph++] = (ldxi_phit){(uint32_t)lo, g};
    }
    return 0;
}

/* Puts the hits in (line, signal) order, once each. They arrive in match order: by
 * line mostly, not quite (engines report late), and by signal not at all. A counting
 * sort by line and an insertion sort of each line's few signals are linear; qsort
 * was a tenth of the whole scan. False when out of memory (the hits stay unsorted). */
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

static int phit_cmp(const void *a, const void *b)
{
    const ldxi_phit *x = a, *y = b;
    if (x->line != y->line) return x->line < y->line ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* The prefilter over one batch: which (line, signal) pairs PCRE2 must look at. Runs on
 * the worker thread in the pipeline, so it touches nothing but the batch. */
static void prefilter(const ldxi_hsdb *h, ldxi_batch *b, void *scratch)
{
    b->nph = 0;
    b->failed = false;
    memset(b->last, 0, (h->nsig + LDXI_HS_NSPECIAL) * sizeof(uint32_t));
    for (int pi = 0; pi < h->nparts && !b->failed; pi++) {
        hit_ctx hc = {h, b, &h->part[pi], 0};
        hs_scan(h->part[pi].db, b->buf, (unsigned)b->len, 0, scratch, on_hit, &hc);
    }
    if (b->nph > 1 && !sort_hits(b)) {
        qsort(b->ph, b->nph, sizeof(ldxi_phit), phit_cmp);
        size_t w = 1;
        for (size_t r = 1; r < b->nph; r++)
            if (b->ph[r].line != b->ph[w - 1].line || b->ph[r].id != b->ph[w - 1].id)
                b->ph[w++] = b->ph[r];
        b->nph = w;
    }
}

/* PCRE2 on the hits of a prefiltered batch, line by line, in the plain engine's order. */
static void confirm_batch(ldx_scanner *s, ldxi_batch *b)
{
    const ldxi_hsdb *h = s->rs->hs;
    size_t p = 0;
    for (size_t l = 0; l < b->nbl; l++) {
        const char *text = b->buf + b->bl[l].off;
        size_t len = b->bl[l].len;
        uint64_t lineno = b->bl[l].lineno;
        /* this line's hits, as signal indices (rule-major order), then the always list */
        size_t p0 = p;
        bool launcher = false, versions = false;
        while (p < b->nph && b->ph[p].line == l) {
            uint32_t id = b->ph[p].id;
            if (id == h->nsig + LDXI_HS_LAUNCHER) launcher = true;
            if (id == h->nsig + LDXI_HS_VERSIONS) versions = true;
            p++;
        }
        if (b->failed) {
            /* could not keep the hits: fall back to every pattern on every line */
            scan_plain(s, text, len, lineno);
            continue;
        }
        structure(s, text, len, lineno, launcher, versions);
        if (p == p0 && !h->nalways) continue;
        line_ctx lc = {.parsed = false};
        size_t a = 0, q = p0;
        long cur_rule = -1;
        bool hit = false;
        for (;;) {
            /* next candidate in (rule, signal) order from the two sorted lists */
            size_t gq = SIZE_MAX, ga = SIZE_MAX;
            while (q < p && b->ph[q].id >= h->nsig) q++;
            if (q < p) gq = b->ph[q].id;
            if (a < h->nalways) ga = h->always[a];
            if (gq == SIZE_MAX && ga == SIZE_MAX) break;
            size_t g;
            if (gq <= ga) {
                g = gq;
                q++;
                if (gq == ga) a++;
            } else {
                g = ga;
                a++;
            }
            ldxi_sigref ref = h->refs[g];
            if ((long)ref.rule != cur_rule) {
                if (cur_rule >= 0) s->rule_lines[cur_rule] += hit;
                cur_rule = ref.rule;
                hit = false;
            }
            const ldxi_rule *r = s->rs->rules[ref.rule];
            if (!confirm(s, r, ref.rule, ref.sig, text, len)) continue;
            record(s, r, ref.sig, &s->st[ref.rule][ref.sig], text, len, lineno, &lc);
            if (r->ntrackers) {
                need_parse(&lc, text, len);
                track(s, r, ref.rule, ref.sig, lineno, &lc.li);
            }
            hit = true;
        }
        if (cur_rule >= 0) s->rule_lines[cur_rule] += hit;
    }
    materialize(s);
    b->nbl = b->len = b->nph = 0;
}

static void *worker_main(void *arg)
{
    ldx_scanner *s = arg;
    pthread_mutex_lock(&s->mu);
    for (;;) {
        while (s->job < 0 && !s->quit) pthread_cond_wait(&s->cv, &s->mu);
        if (s->quit) break;
        int j = s->job;
        s->job = -1;
        pthread_mutex_unlock(&s->mu);
        prefilter(s->rs->hs, &s->bt[j], s->worker_scratch);
        pthread_mutex_lock(&s->mu);
        s->done = j;
        pthread_cond_broadcast(&s->cv);
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

/* Waits for the batch on the worker and confirms it. */
static void finish_inflight(ldx_scanner *s)
{
    if (s->inflight < 0) return;
    pthread_mutex_lock(&s->mu);
    while (s->done != s->inflight) pthread_cond_wait(&s->cv, &s->mu);
    s->done = -1;
    pthread_mutex_unlock(&s->mu);
    int j = s->inflight;
    s->inflight = -1;
    confirm_batch(s, &s->bt[j]);
}

/* The batch being filled is full (or the input ended): prefilter and confirm it, or in
 * the pipeline, hand it to the worker and confirm the one before it. */
static void batch_full(ldx_scanner *s)
{
    ldxi_batch *b = &s->bt[s->cur];
    if (!b->nbl) return;
    if (!s->pipe) {
        prefilter(s->rs->hs, b, s->hs_scratch);
        confirm_batch(s, b);
        return;
    }
    finish_inflight(s);
    pthread_mutex_lock(&s->mu);
    s->job = s->cur;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    s->inflight = s->cur;
    s->cur ^= 1;
}
#endif

void ldxi_scanner_flush(ldx_scanner *s)
{
#ifdef LDX_HAVE_HS
    if (!s->rs->hs) return;
    finish_inflight(s);
    ldxi_batch *b = &s->bt[s->cur];
    if (!b->nbl) return;
    prefilter(s->rs->hs, b, s->hs_scratch);
    confirm_batch(s, b);
#else
    (void)s;
#endif
}

ldx_status ldx_scanner_set_pipeline(ldx_scanner *s, bool on)
{
#ifdef LDX_HAVE_HS
    if (!on || s->pipe || !s->rs->hs) return LDX_OK;
    if (hs_clone_scratch(s->hs_scratch, (hs_scratch_t **)&s->worker_scratch) != HS_SUCCESS)
        return LDX_ENOMEM;
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cv, NULL);
    s->job = s->done = -1;
    s->quit = false;
    if (pthread_create(&s->worker, NULL, worker_main, s) != 0) {
        pthread_mutex_destroy(&s->mu);
        pthread_cond_destroy(&s->cv);
        return LDX_ENOMEM;
    }
    s->pipe = true;
#else
    (void)s;
    (void)on;
#endif
    return LDX_OK;
}

void ldx_scanner_flush(ldx_scanner *s) { ldxi_scanner_flush(s); }

void ldx_scanner_set_profile(ldx_scanner *s, bool on) { s->profile = on; }

void ldx_scanner_rule_cost(const ldx_scanner *s, size_t rule, ldx_rule_cost *out)
{
    out->calls = s->rule_calls[rule];
    out->matches = s->rule_matches[rule];
    out->ns = s->rule_ns[rule];
}

ldx_status ldx_scanner_line(ldx_scanner *s, const ldx_line *line)
{
    s->lines++;
    if (line->truncated) s->truncated++;
    size_t len = line->len;
    const char *text = line->text;
    bool ansi = memchr(text, 0x1b, len) != NULL;
    if (!s->rs->hs) {
        if (ansi) {
            len = ldx_strip_ansi(text, len, s->clean);
            text = s->clean;
        }
        scan_plain(s, text, len, line->lineno);
        return LDX_OK;
    }
#ifdef LDX_HAVE_HS
    /* queue the line (without its escapes) for the prefilter */
    ldxi_batch *b = &s->bt[s->cur];
    if (ldxi_grow((void **)&b->buf, &b->cap, b->len + len + 1, 1) != LDX_OK ||
        ldxi_grow((void **)&b->bl, &b->blcap, b->nbl + 1, sizeof(ldxi_bline)) != LDX_OK) {
        ldxi_scanner_flush(s);
        if (ansi) {
            len = ldx_strip_ansi(text, len, s->clean);
            text = s->clean;
        }
        scan_plain(s, text, len, line->lineno);
        return LDX_OK;
    }
    char *dst = b->buf + b->len;
    size_t n = ansi ? ldx_strip_ansi(text, len, dst) : (memcpy(dst, text, len), len);
    dst[n] = '\n';
    b->bl[b->nbl++] = (ldxi_bline){b->len, n, line->lineno};
    b->len += n + 1;
    if (b->len >= BATCH_BYTES) batch_full(s);
#endif
    return LDX_OK;
}

/* ---- aggregates ---- */

static bool series_trend(const ldxi_series *se, ldxi_func f, double n)
{
    uint32_t moves = f == LDXI_F_RISING ? se->rises : se->falls;
    uint32_t against = f == LDXI_F_RISING ? se->falls : se->rises;
    return se->n >= n && moves + 1 >= n && against == 0;
}

const ldxi_series *ldxi_numstat_trend(const ldxi_numstat *ns, ldxi_func f, double arg)
{
    const ldxi_series *best = NULL;
    for (uint32_t i = 0; i < ns->nseries; i++) {
        const ldxi_series *se = &ns->series[i];
        if ((f == LDXI_F_RISING || f == LDXI_F_FALLING) && series_trend(se, f, arg)) return se;
        if (!best || se->n > best->n) best = se;
    }
    return best;
}

double ldxi_numstat_get(const ldxi_numstat *ns, ldxi_func f, double arg)
{
    if (!ns || ns->n == 0) return f == LDXI_F_POINTS ? 0.0 : (f == LDXI_F_RISING || f == LDXI_F_FALLING) ? 0.0 : NAN;
    switch (f) {
    case LDXI_F_MAX: return ns->max;
    case LDXI_F_MIN: return ns->min;
    case LDXI_F_FIRST: return ns->first;
    case LDXI_F_LAST: return ns->last;
    case LDXI_F_SUM: return ns->sum;
    case LDXI_F_AVG: return ns->sum / (double)ns->n;
    case LDXI_F_POINTS: return (double)ns->n;
    case LDXI_F_GROWTH: return ns->last - ns->first;
    case LDXI_F_RISING:
    case LDXI_F_FALLING:
        for (uint32_t i = 0; i < ns->nseries; i++)
            if (series_trend(&ns->series[i], f, arg)) return 1.0;
        return 0.0;
    default: return NAN;
    }
}
