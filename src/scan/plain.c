/* The plain engine (scan layer): every signal pattern of every rule on each line, with
 * PCRE2 alone (confirm.c), recorded as it hits (record.c). It is the engine of a build
 * without Vectorscan, of a batch the prefilter could not keep (batch.c), and of the tail
 * signals on the log's last lines (tail.c). */
#include <stdlib.h>

#include "scan_int.h"

/* Every pattern on the line. The caller keeps the line for the tail signals first. */
void ldxi_scan_plain(ldx_scanner *s, const char *text, size_t len, uint64_t lineno)
{
    ldxi_linectx lc = {.parsed = false};
    ldxi_scan_structure(s, text, len, lineno, ldxi_scan_hints(text, len));
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

