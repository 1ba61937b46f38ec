/* Tail signals (`tail: N`): matched on the log's last N lines only, once they are
 * known. A rule about how a log ends ("the last progress line is short of its total")
 * needs its progress patterns on the last lines alone, and on a healthy run those
 * patterns match most lines: matched line by line, the two of training-log-ends-mid-run
 * were a fifth of the bench log's scan time. The scanner keeps the last lines (both
 * engines, the same lines) and matches its tail signals on them whenever its results
 * are asked for, from scratch, so that a live scan's view follows the log's end. */
#include <stdlib.h>
#include <string.h>

#include "scan_int.h"

ldx_status ldxi_tail_init(ldx_scanner *s)
{
    unsigned n = s->rs->max_tail;
    if (!n) return LDX_OK;
    s->tail[0].line = calloc(n, sizeof(struct ldxi_tailline));
    s->tail[1].line = calloc(n, sizeof(struct ldxi_tailline));
    s->tail_lines = calloc(s->rs->n, sizeof(uint64_t));
    return s->tail[0].line && s->tail[1].line && s->tail_lines ? LDX_OK : LDX_ENOMEM;
}

void ldxi_tail_free(ldx_scanner *s)
{
    for (int h = 0; h < 2; h++) {
        free(s->tail[h].text);
        free(s->tail[h].line);
    }
    memset(s->tail, 0, sizeof s->tail);
    free(s->tail_lines);
    s->tail_lines = NULL;
}

void ldxi_tail_clear(ldx_scanner *s)
{
    s->tail[0].n = s->tail[0].len = s->tail[1].n = s->tail[1].len = 0;
    s->tail_at = s->tail_runs = 0;
    if (s->tail_lines) memset(s->tail_lines, 0, s->rs->n * sizeof(uint64_t));
}

void ldxi_tail_keep(ldx_scanner *s, const char *text, size_t len, uint64_t lineno)
{
    struct ldxi_tailhalf *h = &s->tail[s->tail_cur];
    if (h->n == s->rs->max_tail) { /* the older half is no longer needed */
        s->tail_cur ^= 1;
        h = &s->tail[s->tail_cur];
        h->n = h->len = 0;
    }
    if (len > LDX_TAIL_TEXT) len = LDX_TAIL_TEXT;
    /* out of memory: the line is kept empty, never half */
    if (ldxi_grow((void **)&h->text, &h->cap, h->len + len, 1) != LDX_OK) len = 0;
    if (len) memcpy(h->text + h->len, text, len);
    h->line[h->n++] = (struct ldxi_tailline){h->len, len, lineno};
    h->len += len;
}

/* Whether one of the rule's whole-log signals matches the line: then the line was
 * counted among the rule's lines already (as far as the kept text shows: a match past
 * its first LDX_TAIL_TEXT bytes is not seen, and such a line counts twice). */
static bool whole_log_hit(const ldx_scanner *s, const ldxi_rule *r, const char *text, size_t len)
{
    for (size_t k = 0; k < r->info.nsignals; k++)
        if (!r->info.signals[k].tail && ldxi_scan_matches_text(s, r->index, k, text, len))
            return true;
    return false;
}

/* The lines held, oldest first: the older half's, then the newer one's. */
static size_t tail_held(const ldx_scanner *s)
{
    size_t n = s->tail[0].n + s->tail[1].n;
    return n < s->rs->max_tail ? n : s->rs->max_tail;
}

void ldxi_scanner_tail_cost(const ldx_scanner *s, uint64_t *lines, uint64_t *runs)
{
    *lines = s->rs->max_tail ? tail_held(s) : 0;
    *runs = s->tail_runs;
}

void ldxi_tail_match(ldx_scanner *s)
{
    const ldx_ruleset *rs = s->rs;
    if (!rs->max_tail || s->tail_at == s->lines) return;
    s->tail_at = s->lines;
    s->tail_runs = 0;
    for (size_t x = 0; x < rs->ntail_rules; x++) {
        size_t i = rs->tail_rules[x];
        const ldxi_rule *r = rs->rules[i];
        for (size_t k = 0; k < r->info.nsignals; k++)
            if (r->info.signals[k].tail) ldxi_sigstate_clear(&s->st[i][k], r->sigs[k].ncaps);
        s->tail_lines[i] = 0;
    }
    const struct ldxi_tailhalf *older = &s->tail[s->tail_cur ^ 1], *newer = &s->tail[s->tail_cur];
    size_t n = tail_held(s);
    for (size_t e = 0; e < n; e++) {
        size_t from_end = n - e; /* 1: the last line */
        const struct ldxi_tailhalf *h = from_end > newer->n ? older : newer;
        const struct ldxi_tailline *t = &h->line[h->n - (from_end - (h == older ? newer->n : 0))];
        const char *text = t->len ? h->text + t->off : "";
        ldxi_linectx lc = {.parsed = false};
        for (size_t x = 0; x < rs->ntail_rules; x++) {
            size_t i = rs->tail_rules[x];
            const ldxi_rule *r = rs->rules[i];
            if (s->rule_off[i]) continue;
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
