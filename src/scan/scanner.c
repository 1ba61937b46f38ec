/* The scanner: every signal pattern of every rule against each line (ANSI removed),
 * and what the diagnosis reads afterwards (counts, evidence, numbers, sequences).
 *
 * Two engines record exactly the same things. The plain one (here) runs every PCRE2
 * pattern on every line. The batch one (batch.c, when Vectorscan is built in) runs
 * PCRE2 only where the prefilter hit, on worker threads if asked, and applies the
 * matches here in the plain engine's line, rule and signal order, so sequences and
 * evidence come out identical. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>


#include "scan_int.h"

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
    if (!s->st || !s->rule_lines || !s->trk || !s->md || !s->clean || !s->mctx ||
        !s->limit_hits || !s->limit_sig || !s->rule_base || !s->rule_ns || !s->rule_off ||
        !s->rule_calls || !s->rule_matches) {
        ldx_scanner_destroy(s);
        return LDX_ENOMEM;
    }
    pcre2_set_match_limit(s->mctx, MATCH_LIMIT);
    pcre2_set_depth_limit(s->mctx, DEPTH_LIMIT);
    pcre2_set_heap_limit(s->mctx, HEAP_LIMIT_KIB);
    if ((rs->hs && (ldxi_batch_init(s) != LDX_OK || ldxi_twins_init(s) != LDX_OK)) ||
        ldxi_tail_init(s) != LDX_OK) {
        ldx_scanner_destroy(s);
        return LDX_ENOMEM;
    }
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

void ldxi_sigstate_clear(ldxi_sigstate *ss, size_t ncaps)
{
    for (uint32_t h = 0; h < ss->nfirst; h++) free_hit(&ss->first[h], ncaps);
    free(ss->first);
    free(ss->rankbits);
    if (ss->has_last) free_hit(&ss->last, ncaps);
    free(ss->pend_ov);
    free(ss->raw);
    free(ss->nums);
    memset(ss, 0, sizeof(*ss));
}

static void clear(ldx_scanner *s)
{
    if (!s->st) return;
    for (size_t i = 0; i < s->rs->n; i++) {
        if (!s->st[i]) continue;
        const ldxi_rule *r = s->rs->rules[i];
        for (size_t k = 0; k < r->info.nsignals; k++) ldxi_sigstate_clear(&s->st[i][k], r->sigs[k].ncaps);
    }
    ldxi_tail_clear(s);
    s->lines = s->truncated = 0;
    ldxi_batch_discard(s);
    ldxi_twins_reset(s);
    s->npend = 0;
    if (s->limit_hits) memset(s->limit_hits, 0, s->rs->n * sizeof(uint64_t));
    if (s->rule_ns) memset(s->rule_ns, 0, s->rs->n * sizeof(uint64_t));
    if (s->sig_prof) memset(s->sig_prof, 0, 3 * (s->rule_base[s->rs->n] + 1) * sizeof(uint64_t));
    if (s->rule_off) memset(s->rule_off, 0, s->rs->n * sizeof(bool));
    if (s->rule_calls) memset(s->rule_calls, 0, s->rs->n * sizeof(uint64_t));
    if (s->rule_matches) memset(s->rule_matches, 0, s->rs->n * sizeof(uint64_t));
    s->nconfirm = 0;
    memset(&s->pf, 0, sizeof s->pf);
    memset(&s->launcher, 0, sizeof s->launcher);
    ldxi_failure_reset(&s->failure);
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
    free(s->sig_prof);
    free(s->rule_off);
    free(s->rule_calls);
    free(s->rule_matches);
    free(s->rule_base);
    ldxi_batch_free(s);
    ldxi_tail_free(s);
    ldxi_twins_free(s);
    free(s->pend);
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
                  const ldxi_line_info *li)
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
    for (uint32_t i = 0; i < ns->nseries && !se; i++) /* one series a rank */
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
        /* a value that stays put: within 0.1% of where its run began */
        if (fabs(v - se->flat_base) <= 0.001 * fabs(se->flat_base)) {
            se->flat++;
        } else {
            se->flat_base = v;
            se->flat = 1;
        }
    } else {
        se->first = v;
        se->flat_base = v;
        se->flat = 1;
    }
    se->last = v;
    se->n++;
    add_sample(se, v);
}


static void need_rank(ldxi_linectx *lc, const char *text, size_t len)
{
    if (!lc->ranked) {
        lc->rank = lc->parsed ? lc->li.rank : ldx_line_rank(text, len);
        lc->ranked = true;
    }
}

static void need_parse(ldxi_linectx *lc, const char *text, size_t len)
{
    if (!lc->parsed) {
        if (lc->ranked) ldxi_line_parse_ranked(text, len, lc->rank, &lc->li);
        else ldxi_line_parse(text, len, &lc->li);
        lc->parsed = lc->ranked = true;
        lc->rank = lc->li.rank;
    }
}

/* A hit's evidence text: the line's start, or, when its captures lie past what that
 * keeps, the part of the line from a little before them, so that a report never shows a
 * long line without the numbers the rule read from it. */
static char *evidence_text(const ldxi_sigc *sc, const char *text, size_t len, const size_t *ov)
{
    size_t lo = SIZE_MAX, hi = 0;
    for (size_t c = 0; c < sc->ncaps; c++)
        if (ov[2 * c] != SIZE_MAX) {
            if (ov[2 * c] < lo) lo = ov[2 * c];
            if (ov[2 * c + 1] > hi) hi = ov[2 * c + 1];
        }
    if (lo == SIZE_MAX || hi + 3 <= LDXI_EV_TEXT) return ldx_display_text(text, len, LDXI_EV_TEXT);
    size_t a = lo > LDXI_EV_LEAD ? lo - LDXI_EV_LEAD : 0;
    if (hi - a + 6 > LDXI_EV_TEXT) a = lo;
    while (a > 0 && ((unsigned char)text[a] & 0xc0) == 0x80) a--; /* a character's start */
    char *t = ldx_display_text(text + a, len - a, LDXI_EV_TEXT - 3);
    if (!t || a == 0) return t;
    size_t n = strlen(t);
    char *out = malloc(n + 4);
    if (out) {
        memcpy(out, "...", 3);
        memcpy(out + 3, t, n + 1);
    }
    free(t);
    return out;
}

/* Copies a hit's text and captures (ov: 2 offsets per capture, SIZE_MAX when unset). */
static void fill_hit(ldxi_hit *h, const ldxi_sigc *sc, const char *text, size_t len,
                     const size_t *ov, const ldxi_line_info *li)
{
    h->info = *li;
    h->text = evidence_text(sc, text, len, ov);
    h->caps = NULL;
    if (!sc->ncaps) return;
    h->caps = calloc(sc->ncaps, sizeof(char *));
    for (size_t c = 0; h->caps && c < sc->ncaps; c++)
        if (ov[2 * c] != SIZE_MAX)
            h->caps[c] = ldx_display_text(text + ov[2 * c], ov[2 * c + 1] - ov[2 * c], LDXI_CAP_TEXT);
}

/* A pending last hit made: its text, captures and line structure. Signals that last
 * hit the same line share one parse of it (*parsed, li). */
static void make_last(ldxi_sigstate *ss, size_t ncaps, const char **parsed, ldxi_line_info *li)
{
    ldxi_sigc sc = {.ncaps = ncaps};
    if (ss->pend_text != *parsed) {
        ldxi_line_parse_ranked(ss->pend_text, ss->pend_len, ss->last.rank, li);
        *parsed = ss->pend_text;
    }
    fill_hit(&ss->last, &sc, ss->pend_text, ss->pend_len, ss->pend_ov, li);
    ss->last_pending = ss->pend_owned = false;
}

/* Lines up to this long are kept as bytes until the results are asked for: a busy
 * signal's last hit changes with every batch, and making each one (a display copy, its
 * captures, the line parsed) cost more than the matching of the lines that led to it. */
#define RAW_MAX 4096

void ldxi_scan_materialize(ldx_scanner *s)
{
    const char *parsed = NULL;
    ldxi_line_info li;
    size_t keep = 0;
    for (size_t i = 0; i < s->npend; i++) {
        ldxi_sigstate *ss = s->pend[i].ss;
        if (!ss->last_pending) continue;
        if (!ss->pend_owned) {
            if (ss->pend_len <= RAW_MAX &&
                ldxi_grow((void **)&ss->raw, &ss->rawcap, ss->pend_len ? ss->pend_len : 1, 1) == LDX_OK) {
                memcpy(ss->raw, ss->pend_text, ss->pend_len);
                ss->pend_text = ss->raw;
                ss->pend_owned = true;
            } else {
                make_last(ss, s->pend[i].ncaps, &parsed, &li);
                continue;
            }
        }
        s->pend[keep++] = s->pend[i]; /* still pending, on its own bytes */
    }
    s->npend = keep;
}

void ldxi_scan_settle(ldx_scanner *s)
{
    const char *parsed = NULL;
    ldxi_line_info li;
    for (size_t i = 0; i < s->npend; i++)
        if (s->pend[i].ss->last_pending) make_last(s->pend[i].ss, s->pend[i].ncaps, &parsed, &li);
    s->npend = 0;
}

/* The capture offsets of a signal's named captures after a match: 2 per capture,
 * SIZE_MAX when it did not take part. */
void ldxi_scan_caps(const ldxi_sigc *sc, pcre2_match_data *md, size_t *co)
{
    PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
    uint32_t npairs = pcre2_get_ovector_count(md);
    for (size_t c = 0; c < sc->ncaps; c++) {
        uint32_t g = (uint32_t)sc->capgroups[c];
        bool set = g < npairs && ov[2 * g] != PCRE2_UNSET;
        co[2 * c] = set ? ov[2 * g] : SIZE_MAX;
        co[2 * c + 1] = set ? ov[2 * g + 1] : SIZE_MAX;
    }
}

static void record(ldx_scanner *s, const ldxi_sigc *sc, ldxi_sigstate *ss, const char *text,
                   size_t len, uint64_t lineno, ldxi_linectx *lc, const size_t *co,
                   const double *vals)
{
    need_rank(lc, text, len);
    int rank = lc->rank;
    ss->count++;
    if (rank >= 0 && rank < LDXI_RANK_BITS &&
        (ss->rankbits || (ss->rankbits = calloc(LDXI_RANK_BITS / 64, sizeof(uint64_t))))) {
        uint64_t bit = (uint64_t)1 << (rank % 64);
        if (!(ss->rankbits[rank / 64] & bit)) {
            ss->rankbits[rank / 64] |= bit;
            ss->nranks++;
        }
    }
    if (sc->ncaps) {
        if (!ss->nums) ss->nums = calloc(sc->ncaps, sizeof(ldxi_numstat));
        for (size_t c = 0; ss->nums && c < sc->ncaps; c++) {
            if (co[2 * c] == SIZE_MAX) continue;
            double v;
            if (vals ? !isnan(v = vals[c])
                     : ldxi_scan_numbered(s, sc, c) &&
                           ldxi_parse_quantity(text + co[2 * c], co[2 * c + 1] - co[2 * c], &v))
                add_number(&ss->nums[c], rank, v);
        }
    }
    if (ss->nfirst < LDXI_EV_FIRST &&
        (ss->first || (ss->first = calloc(LDXI_EV_FIRST, sizeof(ldxi_hit))))) {
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
            ss->pend_owned = false;
            ss->has_last = true;
            ss->last.line = lineno;
            ss->last.rank = rank;
            ss->pend_text = text;
            ss->pend_len = len;
            if (sc->ncaps) memcpy(ss->pend_ov, co, 2 * sc->ncaps * sizeof(size_t));
        }
    }
}

void ldxi_scan_hit(ldx_scanner *s, size_t i, size_t k, const ldxi_sigc *sc, const char *text,
                   size_t len, uint64_t lineno, ldxi_linectx *lc, const size_t *co,
                   const double *vals)
{
    record(s, sc, &s->st[i][k], text, len, lineno, lc, co, vals);
    ldxi_scan_track(s, i, k, text, len, lineno, lc);
}

void ldxi_scan_track(ldx_scanner *s, size_t i, size_t k, const char *text, size_t len,
                     uint64_t lineno, ldxi_linectx *lc)
{
    /* the rule itself only where it counts sequences (trk[i], allocated for those): a
     * hit of a large rule set would otherwise reach into memory the caches lost */
    if (s->trk[i]) {
        need_parse(lc, text, len);
        track(s, s->rs->rules[i], i, k, lineno, &lc->li);
    }
}

/* Profiling: one run of signal k of rule i (matching threads may share the counts). */
static void sig_count(const ldx_scanner *s, size_t i, size_t k, bool hit, uint64_t ns)
{
    if (!s->profile || !s->sig_prof) return;
    uint64_t *p = s->sig_prof + 3 * (s->rule_base[i] + k);
    __atomic_fetch_add(&p[0], 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&p[1], hit, __ATOMIC_RELAXED);
    __atomic_fetch_add(&p[2], ns, __ATOMIC_RELAXED);
}

void ldxi_scan_shared(const ldx_scanner *s, size_t i, size_t k, bool hit, ldxi_rulecount *rc)
{
    rc->calls++;
    rc->matches += hit;
    sig_count(s, i, k, hit, 0);
}

/* One signal on one line: PCRE2 decides, within its limits. Thread-safe: the counts
 * go to rc, and ldxi_scan_count() adds them to the scanner. */
bool ldxi_scan_match(const ldx_scanner *s, size_t i, size_t k, const char *text, size_t len,
                     size_t start, pcre2_match_data *md, ldxi_rulecount *rc, uint64_t *nconfirm)
{
    const ldxi_sigc *sc = &s->rs->rules[i]->sigs[k];
    pcre2_code *code = ldxi_sig_code(sc);
    if (!code) return false;
    bool timed = s->profile || ((*nconfirm)++ % CLOCK_SAMPLE) == 0;
    rc->calls++;
    struct timespec t0, t1;
    if (timed) clock_gettime(CLOCK_MONOTONIC, &t0);
    /* the JIT entry point skips pcre2_match's checks, which cost as much as a short
     * line's match */
    uint32_t opts;
    len = ldxi_sig_subject(sc, len, &opts);
    if (start > len) return false;
    int r = sc->jit ? pcre2_jit_match(code, (PCRE2_SPTR)text, len, start, opts, md, s->mctx)
                    : pcre2_match(code, (PCRE2_SPTR)text, len, start, opts, md, s->mctx);
    if (timed) {
        clock_gettime(CLOCK_MONOTONIC, &t1);
        uint64_t ns = (uint64_t)(t1.tv_sec - t0.tv_sec) * 1000000000ull +
                      (uint64_t)(t1.tv_nsec - t0.tv_nsec);
        rc->ns += s->profile ? ns : ns * CLOCK_SAMPLE;
        sig_count(s, i, k, r >= 0, ns);
    }
    if (r >= 0) {
        rc->matches++;
        return true;
    }
    if (r == PCRE2_ERROR_MATCHLIMIT || r == PCRE2_ERROR_DEPTHLIMIT ||
        r == PCRE2_ERROR_HEAPLIMIT || r == PCRE2_ERROR_JIT_STACKLIMIT) {
        rc->limit_hits++;
        rc->limit_sig = (uint32_t)k;
    }
    return false;
}

bool ldxi_scan_where(const ldxi_sigc *sc, const char *text, pcre2_match_data *md)
{
    if (!sc->where) return true;
    PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
    uint32_t npairs = pcre2_get_ovector_count(md);
    double buf[16], *v = sc->ncaps <= 16 ? buf : malloc(sc->ncaps * sizeof(double));
    if (!v) return false;
    for (size_t c = 0; c < sc->ncaps; c++) {
        uint32_t g = (uint32_t)sc->capgroups[c];
        if (g >= npairs || ov[2 * g] == PCRE2_UNSET ||
            !ldxi_parse_quantity(text + ov[2 * g], ov[2 * g + 1] - ov[2 * g], &v[c]))
            v[c] = NAN;
    }
    bool ok = ldxi_where_true(sc->where, v);
    if (v != buf) free(v);
    return ok;
}

void ldxi_scan_dropped(const ldx_scanner *s, size_t i, size_t k, ldxi_rulecount *rc)
{
    rc->matches--;
    if (s->profile && s->sig_prof)
        __atomic_fetch_sub(&s->sig_prof[3 * (s->rule_base[i] + k) + 1], 1, __ATOMIC_RELAXED);
}

void ldxi_scan_count(ldx_scanner *s, size_t i, const ldxi_rulecount *rc)
{
    s->rule_calls[i] += rc->calls;
    s->rule_matches[i] += rc->matches;
    s->rule_ns[i] += rc->ns;
    if (rc->limit_hits) {
        s->limit_hits[i] += rc->limit_hits;
        s->limit_sig[i] = rc->limit_sig;
    }
    /* a rule over its time budget is switched off for the rest of the input; threads
     * matching other batches see it soon after */
    if (s->rule_ns[i] > RULE_BUDGET_NS && !s->profile)
        __atomic_store_n(&s->rule_off[i], true, __ATOMIC_RELAXED);
}

bool ldxi_scan_matches_text(ldx_scanner *s, size_t i, size_t k, const char *text, size_t len)
{
    /* not through ldxi_scan_match: this is no run of the scan, and counts nowhere */
    const ldxi_sigc *sc = &s->rs->rules[i]->sigs[k];
    pcre2_code *code = ldxi_sig_code(sc);
    uint32_t opts;
    len = ldxi_sig_subject(sc, len, &opts);
    return code && pcre2_match(code, (PCRE2_SPTR)text, len, 0, opts, s->md, s->mctx) >= 0 &&
           ldxi_scan_where(sc, text, s->md);
}

/* The structure readers see every line they may care about. */
void ldxi_scan_structure(ldx_scanner *s, const char *text, size_t len, uint64_t lineno,
                         uint8_t hints)
{
    if (s->launcher.state || (hints & LDXI_HINT_LAUNCHER))
        ldxi_launcher_feed(&s->launcher, text, len, lineno);
    if (hints & LDXI_HINT_VERSIONS) ldxi_versions_feed(s, text, len);
    if (s->failure.nopen || (hints & LDXI_HINT_FAILURE))
        ldxi_failure_feed(&s->failure, text, len, lineno);
}

/* The plain engine: every pattern on the line. */
void ldxi_scan_plain(ldx_scanner *s, const char *text, size_t len, uint64_t lineno)
{
    ldxi_linectx lc = {.parsed = false};
    if (s->rs->max_tail) ldxi_tail_keep(s, text, len, lineno);
    /* cheap tests first: the summary's lines all have a ':', banners a '.' */
    uint8_t hints = LDXI_HINT_VERSIONS;
    if (memchr(text, ':', len)) hints |= LDXI_HINT_LAUNCHER;
    if (ldxi_failure_wants(text, len)) hints |= LDXI_HINT_FAILURE;
    ldxi_scan_structure(s, text, len, lineno, hints);
    for (size_t i = 0; i < s->rs->n; i++) {
        const ldxi_rule *r = s->rs->rules[i];
        bool hit = false;
        for (size_t k = 0; k < r->info.nsignals && !s->rule_off[i]; k++)
            if (!r->info.signals[k].tail) /* matched on the last lines (tail.c) */
                hit |= ldxi_scan_signal(s, i, k, text, len, lineno, &lc);
        s->rule_lines[i] += hit;
    }
    ldxi_scan_materialize(s);
}

bool ldxi_scan_signal(ldx_scanner *s, size_t i, size_t k, const char *text, size_t len,
                      uint64_t lineno, ldxi_linectx *lc)
{
    const ldxi_sigc *sc = &s->rs->rules[i]->sigs[k];
    ldxi_rulecount rc = {0};
    bool m = ldxi_scan_match(s, i, k, text, len, 0, s->md, &rc, &s->nconfirm);
    if (m && !ldxi_scan_where(sc, text, s->md)) {
        ldxi_scan_dropped(s, i, k, &rc);
        m = false;
    }
    ldxi_scan_count(s, i, &rc);
    if (!m) return false;
    size_t cap[2 * 16], *co = sc->ncaps > 16 ? malloc(2 * sc->ncaps * sizeof(size_t)) : cap;
    if (!co) return false;
    ldxi_scan_caps(sc, s->md, co);
    ldxi_scan_hit(s, i, k, sc, text, len, lineno, lc, co, NULL);
    if (co != cap) free(co);
    return true;
}

void ldx_scanner_flush(ldx_scanner *s)
{
    ldxi_scanner_flush(s);
    ldxi_tail_match(s);
    ldxi_twins_sync(s); /* before settle: a twin's last hit may be pending too */
    ldxi_scan_settle(s);
}

void ldx_scanner_set_numbers(ldx_scanner *s, bool every)
{
    s->every_number = every;
}

void ldx_scanner_set_profile(ldx_scanner *s, bool on)
{
    s->profile = on;
    if (on && !s->sig_prof) s->sig_prof = calloc(3 * (s->rule_base[s->rs->n] + 1), sizeof(uint64_t));
}

void ldx_scanner_signal_cost(const ldx_scanner *s, size_t rule, size_t sig, ldx_rule_cost *out)
{
    const uint64_t *p = s->sig_prof ? s->sig_prof + 3 * (s->rule_base[rule] + sig) : NULL;
    *out = p ? (ldx_rule_cost){p[0], p[1], p[2]} : (ldx_rule_cost){0, 0, 0};
}

void ldx_scanner_prefilter_cost(const ldx_scanner *s, ldx_prefilter_cost *out)
{
    *out = s->pf;
}

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
    if (s->rs->hs && ldxi_batch_line(s, line)) return LDX_OK;
    size_t len = line->len;
    const char *text = line->text;
    if (!line->no_esc && memchr(text, 0x1b, len)) {
        len = ldx_strip_ansi(text, len, s->clean);
        text = s->clean;
    }
    ldxi_scan_plain(s, text, len, line->lineno);
    return LDX_OK;
}

bool ldx_scanner_takes_chunks(const ldx_scanner *s) { return s->rs->hs != NULL; }

char *ldx_scanner_chunk_room(ldx_scanner *s, size_t *cap)
{
    return s->rs->hs ? ldxi_batch_read_room(s, cap) : NULL;
}

ldx_status ldx_scanner_chunk_placed(ldx_scanner *s, const ldx_chunk *c)
{
    if (ldxi_batch_placed(s, c)) {
        s->lines += c->lines;
        return LDX_OK;
    }
    /* no memory to keep it where it is: a copy goes the way of any chunk */
    char *copy = malloc(c->len);
    if (!copy) return LDX_ENOMEM;
    memcpy(copy, c->text, c->len);
    ldx_chunk cc = *c;
    cc.text = copy;
    ldx_status st = ldx_scanner_chunk(s, &cc);
    free(copy);
    return st;
}

ldx_status ldx_scanner_chunk(ldx_scanner *s, const ldx_chunk *c)
{
    if (s->rs->hs && ldxi_batch_chunk(s, c)) {
        s->lines += c->lines;
        return LDX_OK;
    }
    /* one line at a time, as the reader would have given them */
    const char *p = c->text, *end = c->text + c->len;
    ldx_line line = {.lineno = c->first_line};
    while (p < end) {
        const char *eol = p;
        while (*eol != '\n' && *eol != '\r') eol++;
        line.text = p;
        line.len = line.full_len = (size_t)(eol - p);
        line.no_esc = false;
        line.truncated = false;
        ldx_scanner_line(s, &line);
        line.lineno++;
        p = eol + 1;
        if (*eol == '\r' && p < end && *p == '\n') p++;
    }
    return LDX_OK;
}

/* ---- aggregates ---- */

static bool series_trend(const ldxi_series *se, ldxi_func f, double n)
{
    if (f == LDXI_F_FLAT) return se->flat >= n;
    uint32_t moves = f == LDXI_F_RISING ? se->rises : se->falls;
    uint32_t against = f == LDXI_F_RISING ? se->falls : se->rises;
    return se->n >= n && moves + 1 >= n && against == 0;
}

const ldxi_series *ldxi_numstat_trend(const ldxi_numstat *ns, ldxi_func f, double arg)
{
    const ldxi_series *best = NULL;
    for (uint32_t i = 0; i < ns->nseries; i++) {
        const ldxi_series *se = &ns->series[i];
        if ((f == LDXI_F_RISING || f == LDXI_F_FALLING || f == LDXI_F_FLAT) &&
            series_trend(se, f, arg))
            return se;
        if (!best || se->n > best->n) best = se;
    }
    return best;
}

double ldxi_numstat_get(const ldxi_numstat *ns, ldxi_func f, double arg)
{
    if (!ns || ns->n == 0)
        return f == LDXI_F_POINTS || f == LDXI_F_RISING || f == LDXI_F_FALLING || f == LDXI_F_FLAT
                   ? 0.0
                   : NAN;
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
    case LDXI_F_FLAT:
        for (uint32_t i = 0; i < ns->nseries; i++)
            if (series_trend(&ns->series[i], f, arg)) return 1.0;
        return 0.0;
    default: return NAN;
    }
}
