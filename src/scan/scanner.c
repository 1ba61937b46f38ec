/* The scanner's front door (scan layer, the top of it): create, feed lines or chunks,
 * flush, read the results, destroy. It owns the state every part of a scan shares
 * (struct ldx_scanner, scan_int.h) and chooses the engine for each line:
 *
 *   ldx_scanner_line/chunk -> batch.c (prefilter engine, when Vectorscan is built in)
 *                          -> plain.c (PCRE2 alone: no Vectorscan, or no room to batch)
 *   both -> confirm.c (PCRE2 on one signal) -> record.c (the signal's state) and
 *           structure.c (launcher, versions, failures; rank and time of a hit)
 *   ldx_scanner_flush -> the batches left, the tail signals (tail.c), twins (twins.c),
 *                        the pending evidence made (record.c)
 *
 * The engines record exactly the same things in the same line, rule and signal order,
 * so that sequences and evidence do not depend on which one ran. Nothing in scan/ calls
 * back into this file. */
#include <stdlib.h>
#include <string.h>

#include "scan_int.h"

/* Bounds on one match, so that one pathological pattern cannot stall a scan. */
#define MATCH_LIMIT 2000000u
#define DEPTH_LIMIT 20000u
#define HEAP_LIMIT_KIB 65536u

ldx_status ldx_scanner_create(ldx_scanner **out, const ldx_ruleset *rs)
{
    ldx_scanner *s = calloc(1, sizeof(*s));
    if (!s) return LDX_ENOMEM;
    s->rs = rs;
    s->gate_check = getenv("LOGDX_GATE_CHECK") != NULL;
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

void ldxi_scanner_set_profile(ldx_scanner *s, bool on)
{
    s->profile = on;
    if (on && !s->sig_prof) s->sig_prof = calloc(3 * (s->rule_base[s->rs->n] + 1), sizeof(uint64_t));
}

void ldxi_scanner_signal_cost(const ldx_scanner *s, size_t rule, size_t sig, ldxi_rule_cost *out)
{
    const uint64_t *p = s->sig_prof ? s->sig_prof + 3 * (s->rule_base[rule] + sig) : NULL;
    *out = p ? (ldxi_rule_cost){p[0], p[1], p[2]} : (ldxi_rule_cost){0, 0, 0};
}

void ldxi_scanner_prefilter_cost(const ldx_scanner *s, ldxi_prefilter_cost *out)
{
    *out = s->pf;
}

void ldxi_scanner_rule_cost(const ldx_scanner *s, size_t rule, ldxi_rule_cost *out)
{
    out->calls = s->rule_calls[rule];
    out->matches = s->rule_matches[rule];
    out->ns = s->rule_ns[rule];
}

ldx_status ldx_scanner_line(ldx_scanner *s, const ldx_line *line)
{
    /* the log's lines, not the calls: a reader that joins a hard-wrapped paste's rows
     * numbers a line by its first row */
    if (line->lineno > s->lines) s->lines = line->lineno;
    else s->lines++;
    if (line->truncated) s->truncated++;
    if (s->rs->hs && ldxi_batch_line(s, line)) return LDX_OK;
    size_t len = line->len;
    const char *text = line->text;
    size_t at = len && *text == '{' ? ldxi_json_log(text, len) : 0;
    if (at) {
        memcpy(s->clean, text, len);
        len = ldxi_json_line(s->clean, len, at);
        text = s->clean;
    } else if ((!line->no_esc && memchr(text, 0x1b, len)) || ldxi_typo_quotes(text, len)) {
        len = ldxi_clean_line(text, len, s->clean);
        text = s->clean;
    }
    if (len && *text == '>') {
        size_t q = ldxi_quote_len(text, len);
        text += q;
        len -= q;
    }
    if (s->rs->max_tail) ldxi_tail_keep(s, text, len, line->lineno);
    ldxi_scan_plain(s, text, len, line->lineno);
    return LDX_OK;
}

bool ldxi_scanner_takes_chunks(const ldx_scanner *s) { return s->rs->hs != NULL; }

char *ldxi_scanner_chunk_room(ldx_scanner *s, size_t *cap)
{
    return s->rs->hs ? ldxi_batch_read_room(s, cap) : NULL;
}

ldx_status ldxi_scanner_chunk_placed(ldx_scanner *s, const ldxi_chunk *c)
{
    if (ldxi_batch_placed(s, c)) {
        s->lines += c->lines;
        return LDX_OK;
    }
    /* no memory to keep it where it is: a copy goes the way of any chunk */
    char *copy = malloc(c->len);
    if (!copy) return LDX_ENOMEM;
    memcpy(copy, c->text, c->len);
    ldxi_chunk cc = *c;
    cc.text = copy;
    ldx_status st = ldxi_scanner_chunk(s, &cc);
    free(copy);
    return st;
}

ldx_status ldxi_scanner_chunk(ldx_scanner *s, const ldxi_chunk *c)
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
