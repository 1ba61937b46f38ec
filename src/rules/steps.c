/* Pattern hygiene, the PCRE2 side: how hard PCRE2 works on a rule's own example lines.
 * Time is the wrong measure for a lint (it depends on the machine and the moment), so
 * the pattern is compiled with auto-callouts and the callouts are counted: one per
 * pattern item PCRE2 visits, the same on every machine. A search for a fixed string
 * visits 1 to 3 items per byte of line; a lazy gap in front of a number that can give
 * digits back, tens (the memory rules' readings were 62 before their rewrite). */
#include <stdlib.h>
#include <string.h>

#include "../core/util.h"
#include "ruleset_int.h"
#include "../plumbing.h"

typedef struct {
    uint64_t steps;
} step_ctx;

static int count_step(pcre2_callout_block *b, void *data)
{
    (void)b;
    ((step_ctx *)data)->steps++;
    return 0;
}

double ldxi_signal_steps(const ldx_rule_info *r, size_t sig, unsigned *worst_line)
{
    const ldx_signal_info *si = &r->signals[sig];
    *worst_line = 0;
    int err;
    PCRE2_SIZE off;
    pcre2_code *code =
        pcre2_compile((PCRE2_SPTR)si->pattern, PCRE2_ZERO_TERMINATED,
                      PCRE2_AUTO_CALLOUT | (si->caseless ? PCRE2_CASELESS : 0), &err, &off, NULL);
    pcre2_match_data *md = code ? pcre2_match_data_create_from_pattern(code, NULL) : NULL;
    pcre2_match_context *mc = md ? pcre2_match_context_create(NULL) : NULL;
    double worst = 0;
    if (mc) {
        step_ctx sc;
        pcre2_set_callout(mc, count_step, &sc);
        pcre2_set_match_limit(mc, 10000000); /* a runaway pattern still stops */
        ldxi_example_lines it;
        const char *p;
        size_t len;
        unsigned line;
        for (ldxi_example_lines_start(&it, r); ldxi_example_line(&it, &p, &len, &line);) {
            sc.steps = 0;
            pcre2_match(code, (PCRE2_SPTR)p, len, 0, 0, md, mc);
            double per_byte = (double)sc.steps / (double)(len + 1);
            if (per_byte > worst) {
                worst = per_byte;
                *worst_line = line;
            }
        }
    }
    pcre2_match_context_free(mc);
    pcre2_match_data_free(md);
    pcre2_code_free(code);
    return worst;
}

/* A long line of the kind real logs have (a logged dict, repeated), with nothing a
 * rule looks for in it: what one search costs a pattern that has no fixed string to
 * start from. */
#define LONG_LINE (256u << 10)
#define LONG_LIMIT 500000u /* the scanner's match limit, scaled to LONG_LINE of 1 MiB */

static char *long_line(size_t *len)
{
    char *s = malloc(LONG_LINE);
    if (!s) return NULL;
    static const char filler[] = "{'step': 12, 'lr': 0.25, 'x': [1, 2]} abc_def 0x1f; ";
    size_t n = 0;
    for (; n + sizeof filler < LONG_LINE; n += sizeof filler - 1) memcpy(s + n, filler, sizeof filler - 1);
    *len = n;
    return s;
}

bool ldxi_signal_long_line_ok(const ldx_rule_info *r, size_t sig)
{
    const ldx_signal_info *si = &r->signals[sig];
    if (si->tail) return true; /* the last lines are matched on their first 4 KiB */
    int err;
    PCRE2_SIZE off;
    pcre2_code *code = pcre2_compile((PCRE2_SPTR)si->pattern, PCRE2_ZERO_TERMINATED,
                                     si->caseless ? PCRE2_CASELESS : 0, &err, &off, NULL);
    pcre2_match_data *md = code ? pcre2_match_data_create_from_pattern(code, NULL) : NULL;
    pcre2_match_context *mc = md ? pcre2_match_context_create(NULL) : NULL;
    size_t len = 0;
    char *s = mc ? long_line(&len) : NULL;
    bool ok = true;
    if (s) {
        pcre2_set_match_limit(mc, LONG_LIMIT);
        pcre2_set_depth_limit(mc, 20000);
        /* from a place past each match, as the scanner goes no further than the first:
         * what matters is whether one search of the line stays within the limits */
        int rc = pcre2_match(code, (PCRE2_SPTR)s, len, 0, 0, md, mc);
        ok = rc != PCRE2_ERROR_MATCHLIMIT && rc != PCRE2_ERROR_DEPTHLIMIT &&
             rc != PCRE2_ERROR_HEAPLIMIT;
    }
    free(s);
    pcre2_match_context_free(mc);
    pcre2_match_data_free(md);
    pcre2_code_free(code);
    return ok;
}
