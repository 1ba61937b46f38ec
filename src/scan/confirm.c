/* Confirming a match with PCRE2 (scan layer, shared by both engines): one signal's
 * pattern on one line within the match, depth and heap limits, its where clause on the
 * numbers it captured, and what it cost (calls, matches, time sampled one confirm in
 * CLOCK_SAMPLE), counted per rule so that a rule over its time budget is switched off
 * for the rest of the input. Thread-safe: counts go to an ldxi_rulecount that the
 * scanner's thread adds with ldxi_scan_count(). Calls nothing else in scan/. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "scan_int.h"

/* A rule may spend this much PCRE2 time on one input before it is switched off there
 * (with a warning): one slow pattern must not hold a batch scan hostage. */
#define RULE_BUDGET_NS (10ull * 1000 * 1000 * 1000)
#define CLOCK_SAMPLE 16 /* time one confirm in this many, and scale */

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

/* PCRE2 once, through the JIT's entry point where code is the JIT-compiled copy. */
static inline int exec_once(const ldxi_sigc *sc, pcre2_code *code, const char *text, size_t len, size_t start,
                            uint32_t opts, pcre2_match_data *md, pcre2_match_context *mctx)
{
    return code == __atomic_load_n(&sc->jcode, __ATOMIC_ACQUIRE)
               ? pcre2_jit_match(code, (PCRE2_SPTR)text, len, start, opts, md, mctx)
               : pcre2_match(code, (PCRE2_SPTR)text, len, start, opts, md, mctx);
}

int ldxi_sig_exec(const ldxi_sigc *sc, pcre2_code *code, const char *text, size_t len, size_t start,
                  uint32_t opts, pcre2_match_data *md, pcre2_match_context *mctx)
{
    int r = exec_once(sc, code, text, len, start, opts, md, mctx);
    if (r != PCRE2_ERROR_NOMATCH || !sc->bol) return r;
    size_t b = ldxi_line_body(text, len);
    if (!b) return r;
    /* the body is a subject of its own, so that ^ holds where the prefix ends; a start
     * inside the prefix is the body's first byte */
    r = exec_once(sc, code, text + b, len - b, start > b ? start - b : 0, opts, md, mctx);
    if (r >= 0) {
        PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
        uint32_t pairs = r > 0 ? (uint32_t)r : pcre2_get_ovector_count(md);
        for (uint32_t i = 0; i < 2 * pairs; i++)
            if (ov[i] != PCRE2_UNSET) ov[i] += b;
    }
    return r;
}

/* One signal on one line: PCRE2 decides, within its limits. Thread-safe: the counts
 * go to rc, and ldxi_scan_count() adds them to the scanner. */
bool ldxi_scan_match(const ldx_scanner *s, size_t i, size_t k, const char *text, size_t len,
                     size_t start, pcre2_match_data *md, ldxi_rulecount *rc, uint64_t *nconfirm)
{
    const ldxi_sigc *sc = &s->rs->rules[i]->sigs[k];
    pcre2_code *code = ldxi_sig_code(sc);
    if (!code) return false;
    rc->calls++;
    /* a line without the fixed text every match holds: no match, for a few memmem */
    const ldxi_req *req = __atomic_load_n(&sc->req, __ATOMIC_ACQUIRE);
    if (req && !ldxi_req_pass(req, text, len)) {
        if (s->gate_check) ldxi_gate_check(s, i, k, text, len, start, md);
        sig_count(s, i, k, false, 0);
        return false;
    }
    bool timed = s->profile || ((*nconfirm)++ % CLOCK_SAMPLE) == 0;
    struct timespec t0, t1;
    if (timed) clock_gettime(CLOCK_MONOTONIC, &t0);
    /* the JIT entry point skips pcre2_match's checks, which cost as much as a short
     * line's match */
    uint32_t opts;
    len = ldxi_sig_subject(sc, len, &opts);
    if (start > len) return false;
    int r = ldxi_sig_exec(sc, code, text, len, start, opts, md, s->mctx);
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
    if (!__atomic_load_n(&sc->gated, __ATOMIC_RELAXED) &&
        __atomic_add_fetch(&((ldxi_sigc *)sc)->misses, 1, __ATOMIC_RELAXED) == LDXI_GATE_AFTER)
        ldxi_sig_gate(sc);
    if (r == PCRE2_ERROR_MATCHLIMIT || r == PCRE2_ERROR_DEPTHLIMIT ||
        r == PCRE2_ERROR_HEAPLIMIT || r == PCRE2_ERROR_JIT_STACKLIMIT) {
        rc->limit_hits++;
        rc->limit_sig = (uint32_t)k;
    }
    return false;
}

/* LOGDX_GATE_CHECK: a line the gate turned away is matched all the same, and a match
 * there is a bug in the gate's reading of the pattern (required.c): reported, and the
 * scan aborts. Tests run the corpus and every rule's examples this way. */
void ldxi_gate_check(const ldx_scanner *s, size_t i, size_t k, const char *text, size_t len, size_t start,
                     pcre2_match_data *md)
{
    const ldxi_sigc *sc = &s->rs->rules[i]->sigs[k];
    uint32_t opts;
    size_t n = ldxi_sig_subject(sc, len, &opts);
    if (start <= n && ldxi_sig_exec(sc, sc->code, text, n, start, opts, md, s->mctx) >= 0) {
        fprintf(stderr, "logdx: gate bug: rule %s signal %s matches a line its required text is not on: %.*s\n",
                s->rs->rules[i]->info.id, s->rs->rules[i]->info.signals[k].name, (int)(len < 300 ? len : 300), text);
        abort();
    }
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

bool ldxi_scan_matches_text(const ldx_scanner *s, size_t i, size_t k, const char *text, size_t len)
{
    /* not through ldxi_scan_match: this is no run of the scan, and counts nowhere */
    const ldxi_sigc *sc = &s->rs->rules[i]->sigs[k];
    pcre2_code *code = ldxi_sig_code(sc);
    uint32_t opts;
    len = ldxi_sig_subject(sc, len, &opts);
    return code && ldxi_sig_exec(sc, code, text, len, 0, opts, s->md, s->mctx) >= 0 &&
           ldxi_scan_where(sc, text, s->md);
}

