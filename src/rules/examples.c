/* The lines of a rule's examples, one at a time: the lint's step count, the prefilter
 * database's check and its choice of plain strings all look at them line by line. */
#include "../core/util.h"
#include "ruleset_int.h"

void ldxi_example_lines_start(ldxi_example_lines *it, const ldx_rule_info *r)
{
    *it = (ldxi_example_lines){.r = r};
}

bool ldxi_example_line(ldxi_example_lines *it, const char **text, size_t *len, unsigned *line)
{
    for (;;) {
        if (it->p && *it->p) {
            *text = it->p;
            *len = ldxi_text_line(it->p, &it->p);
            if (line) *line = it->line;
            if (it->line) it->line++;
            return true;
        }
        /* the next example: the match ones, then the no_match ones */
        if (it->list == 2) return false;
        const ldx_strv *l = it->list ? &it->r->ex_no_match : &it->r->ex_match;
        if (it->e == l->n) {
            it->list++;
            it->e = 0;
            continue;
        }
        const unsigned *starts = it->list ? it->r->ex_no_match_line : it->r->ex_match_line;
        it->p = l->v[it->e];
        it->line = starts ? starts[it->e] : 0;
        it->e++;
    }
}
