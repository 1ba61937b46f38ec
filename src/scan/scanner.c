/* The scanner: every signal pattern of every rule against each line (ANSI removed).
 * This is the plain engine: correct and simple; a prefilter can sit in front of it
 * without changing what it records. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scan_int.h"

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
    if (!s->st || !s->rule_lines || !s->trk || !s->md || !s->clean) {
        ldx_scanner_destroy(s);
        return LDX_ENOMEM;
    }
    for (size_t i = 0; i < rs->n; i++) {
        size_t ns = rs->rules[i]->info.nsignals;
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
            free(ss->nums);
            memset(ss, 0, sizeof(*ss));
        }
    }
    s->lines = s->truncated = 0;
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

static char *cut(const char *p, size_t n, size_t max) { return ldx_display_text(p, n, max); }

/* What the current line says about itself, parsed on its first hit only. */
typedef struct {
    bool parsed;
    ldx_line_info li;
} line_ctx;

static void record(ldx_scanner *s, const ldxi_rule *r, size_t k, ldxi_sigstate *ss,
                   const char *text, size_t len, uint64_t lineno, line_ctx *lc)
{
    const ldxi_sigc *sc = &r->sigs[k];
    if (!lc->parsed) {
        ldx_line_parse(text, len, &lc->li);
        lc->parsed = true;
    }
    int rank = lc->li.rank;
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
    if (sc->ncaps) {
        if (!ss->nums) ss->nums = calloc(sc->ncaps, sizeof(ldxi_numstat));
        for (size_t c = 0; ss->nums && c < sc->ncaps; c++) {
            uint32_t g = (uint32_t)sc->capgroups[c];
            if (g >= npairs || ov[2 * g] == PCRE2_UNSET) continue;
            double v;
            if (ldxi_parse_quantity(text + ov[2 * g], ov[2 * g + 1] - ov[2 * g], &v))
                add_number(&ss->nums[c], rank, v);
        }
    }
    ldxi_hit *h;
    if (ss->nfirst < LDXI_EV_FIRST) {
        h = &ss->first[ss->nfirst++];
    } else {
        if (ss->has_last) free_hit(&ss->last, sc->ncaps);
        h = &ss->last;
        ss->has_last = true;
    }
    h->line = lineno;
    h->rank = rank;
    h->info = lc->li;
    h->text = cut(text, len, LDXI_EV_TEXT);
    h->caps = NULL;
    if (sc->ncaps) {
        h->caps = calloc(sc->ncaps, sizeof(char *));
        for (size_t c = 0; h->caps && c < sc->ncaps; c++) {
            uint32_t g = (uint32_t)sc->capgroups[c];
            if (g >= npairs || ov[2 * g] == PCRE2_UNSET) continue;
            h->caps[c] = cut(text + ov[2 * g], ov[2 * g + 1] - ov[2 * g], LDXI_CAP_TEXT);
        }
    }
}

ldx_status ldx_scanner_line(ldx_scanner *s, const ldx_line *line)
{
    s->lines++;
    if (line->truncated) s->truncated++;
    size_t len = line->len;
    const char *text = line->text;
    if (memchr(text, 0x1b, len)) {
        len = ldx_strip_ansi(text, len, s->clean);
        text = s->clean;
    }
    line_ctx lc = {.parsed = false};
    /* cheap test first: the summary's lines all have a ':' */
    if (s->launcher.state || memchr(text, ':', len)) ldxi_launcher_feed(&s->launcher, text, len, line->lineno);
    ldxi_versions_feed(s, text, len);
    for (size_t i = 0; i < s->rs->n; i++) {
        const ldxi_rule *r = s->rs->rules[i];
        bool hit = false;
        for (size_t k = 0; k < r->info.nsignals; k++) {
            int rc = pcre2_match(r->sigs[k].code, (PCRE2_SPTR)text, len, 0, 0, s->md, NULL);
            if (rc >= 0) {
                record(s, r, k, &s->st[i][k], text, len, line->lineno, &lc);
                if (r->ntrackers) track(s, r, i, k, line->lineno, &lc.li);
                hit = true;
            }
        }
        s->rule_lines[i] += hit;
    }
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
