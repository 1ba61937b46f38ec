/* Tail signals (`tail: N`): matched on the log's last N lines only, once they are
 * known. A rule about how a log ends ("the last progress line is short of its total")
 * needs its progress patterns on the last lines alone, and on a healthy run those
 * patterns match most lines: matched line by line they were half of all the matching
 * work on the bench log. The scanner keeps the last lines (both engines, the same
 * lines) and matches its tail signals on them whenever its results are asked for, from
 * scratch, so that a live scan's view follows the log's end as it moves. */
#include <stdlib.h>
#include <string.h>

#include "scan_int.h"

ldx_status ldxi_tail_init(ldx_scanner *s)
{
    unsigned n = s->rs->max_tail;
    if (!n) return LDX_OK;
    s->tail = calloc(n, sizeof(*s->tail));
    s->tail_lines = calloc(s->rs->n, sizeof(uint64_t));
    return s->tail && s->tail_lines ? LDX_OK : LDX_ENOMEM;
}

void ldxi_tail_free(ldx_scanner *s)
{
    for (unsigned i = 0; s->tail && i < s->rs->max_tail; i++) free(s->tail[i].text);
    free(s->tail);
    free(s->tail_lines);
    s->tail = NULL;
    s->tail_lines = NULL;
}

void ldxi_tail_clear(ldx_scanner *s)
{
    s->tail_next = s->tail_count = 0;
    s->tail_at = s->tail_runs = 0;
    if (s->tail_lines) memset(s->tail_lines, 0, s->rs->n * sizeof(uint64_t));
}

void ldxi_tail_keep(ldx_scanner *s, const char *text, size_t len, uint64_t lineno)
{
    unsigned n = s->rs->max_tail;
    struct ldxi_tailline *t = &s->tail[s->tail_next];
    if (len > LDX_TAIL_TEXT) len = LDX_TAIL_TEXT;
    if (len > t->cap) {
        char *p = realloc(t->text, len);
        if (p) {
            t->text = p;
            t->cap = len;
        } else {
            len = 0; /* out of memory: the line is kept empty, never half */
        }
    }
    if (len) memcpy(t->text, text, len);
    t->len = len;
    t->lineno = lineno;
    s->tail_next = (s->tail_next + 1) % n;
    if (s->tail_count < n) s->tail_count++;
}

static bool has_tail(const ldxi_rule *r)
{
    for (size_t k = 0; k < r->info.nsignals; k++)
        if (r->info.signals[k].tail) return true;
    return false;
}

/* Whether one of the rule's whole-log signals matches the line: then the line was
 * counted among the rule's lines already. */
static bool whole_log_hit(const ldx_scanner *s, const ldxi_rule *r, const char *text, size_t len)
{
    for (size_t k = 0; k < r->info.nsignals; k++) {
        pcre2_code *code = r->info.signals[k].tail ? NULL : ldxi_sig_code(&r->sigs[k]);
        if (code && pcre2_match(code, (PCRE2_SPTR)text, len, 0, 0, s->md, s->mctx) >= 0) return true;
    }
    return false;
}

void ldx_scanner_tail_cost(const ldx_scanner *s, uint64_t *lines, uint64_t *runs)
{
    *lines = s->tail_count;
    *runs = s->tail_runs;
}

void ldxi_tail_match(ldx_scanner *s)
{
    const ldx_ruleset *rs = s->rs;
    if (!rs->max_tail || s->tail_at == s->lines) return;
    s->tail_at = s->lines;
    s->tail_runs = 0;
    for (size_t i = 0; i < rs->n; i++) {
        const ldxi_rule *r = rs->rules[i];
        for (size_t k = 0; k < r->info.nsignals; k++)
            if (r->info.signals[k].tail) ldxi_sigstate_clear(&s->st[i][k], r->sigs[k].ncaps);
        s->tail_lines[i] = 0;
    }
    size_t n = s->tail_count, first = (s->tail_next + rs->max_tail - n) % rs->max_tail;
    for (size_t e = 0; e < n; e++) {
        const struct ldxi_tailline *t = &s->tail[(first + e) % rs->max_tail];
        const char *text = t->len ? t->text : "";
        size_t from_end = n - e; /* 1: the last line */
        ldxi_linectx lc = {.parsed = false};
        for (size_t i = 0; i < rs->n; i++) {
            const ldxi_rule *r = rs->rules[i];
            if (s->rule_off[i] || !has_tail(r)) continue;
            bool hit = false;
            for (size_t k = 0; k < r->info.nsignals; k++) {
                unsigned tail = r->info.signals[k].tail;
                if (!tail || from_end > tail) continue;
                s->tail_runs++;
                hit |= ldxi_scan_signal(s, i, k, text, t->len, t->lineno, &lc);
            }
            s->tail_lines[i] += hit && !whole_log_hit(s, r, text, t->len);
        }
    }
    ldxi_scan_materialize(s);
}
