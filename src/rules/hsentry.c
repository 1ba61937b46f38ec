/* What the prefilter database is given for a signal (see hsdb.h): the fixed strings
 * its pattern requires, where the rules' examples show they filter as well as the
 * pattern; otherwise a cheaper form of the pattern (pform.c), never with anchors or wide
 * bounded repeats. */
#ifdef LDX_HAVE_HS
#include <stdlib.h>
#include <string.h>

#include "../core/util.h"
#include "hsdb.h"
#include "ruleset_int.h"

char *ldxi_hsentry_form(const char *pattern)
{
    char *form = ldxi_prefilter_form(pattern);
    char *bare = getenv("LOGDX_PREFILTER_ANCHORS") ? NULL : ldxi_strip_anchors(form ? form : pattern);
    if (bare) {
        free(form);
        form = bare;
    }
    char *trimmed = ldxi_trim_end(form ? form : pattern);
    if (trimmed) {
        free(form);
        form = trimmed;
    }
    char *front = ldxi_trim_start(form ? form : pattern);
    if (front) {
        free(form);
        form = front;
    }
    char *wide = ldxi_widen_bounds(form ? form : pattern);
    if (wide) {
        free(form);
        form = wide;
    }
    return form;
}

/* The shortest string a literal entry may have: a "nan" or a "loss" is all over a
 * training log. */
#define LITERAL_ENTRY_MIN 6

/* Whether line[0..len) holds s[0..n), ASCII letters folded when ci. */
static bool has_string(const char *line, size_t len, const char *s, size_t n, bool ci)
{
    return (ci ? ldxi_memcasemem(line, len, s, n) : ldxi_memmem(line, len, s, n)) != NULL;
}

/* Whether the strings filter as well as the pattern on the evidence at hand: no line of
 * any rule's examples holds one of them without the pattern matching it. Near misses
 * are what examples are for: a healthy Megatron line with "lm loss: 2.3" keeps the
 * pattern that wants "lm loss: nan" whole. */
/* Example lines read for one signal: its own rule's always, then the others' up to this
 * many, so that thousands of user rules load in time linear in their number (each
 * signal reading every rule's examples was 10,000 x 40,000 lines). */
#define EXAMPLE_LINES_BUDGET 4096

static bool strings_suffice(const ldx_ruleset *rs, size_t own, const ldxi_lits *set, bool ci,
                            const ldxi_sigc *sc)
{
    pcre2_code *code = ldxi_sig_code(sc);
    pcre2_match_data *md = code ? pcre2_match_data_create(1, NULL) : NULL;
    bool good = md != NULL;
    size_t budget = EXAMPLE_LINES_BUDGET;
    for (size_t x = 0; good && x < rs->n && budget; x++) {
        size_t i = x == 0 ? own : x <= own ? x - 1 : x; /* its own rule first */
        ldxi_example_lines it;
        const char *p;
        size_t len;
        for (ldxi_example_lines_start(&it, &rs->rules[i]->info);
             good && (i == own || budget) && ldxi_example_line(&it, &p, &len, NULL);) {
            if (i != own) budget--;
            bool has = false;
            for (size_t j = 0; j < set->n && !has; j++)
                has = has_string(p, len, set->s[j], set->len[j], ci);
            if (has && pcre2_match(code, (PCRE2_SPTR)p, len, 0, 0, md, NULL) < 0) good = false;
        }
    }
    pcre2_match_data_free(md);
    return good;
}

/* Plain strings where they filter as well as the pattern: Vectorscan scans strings much
 * faster than patterns (with 504 of the 639 built-in patterns as strings, the bench
 * log's prefilter took 10% less time and handed PCRE2 no more lines, and the database
 * compiles in half the time); the pattern's form otherwise. */
ldxi_hsentry ldxi_hsentry_for(const ldx_ruleset *rs, const ldxi_hsdb *h, uint32_t g)
{
    const ldxi_rule *r = rs->rules[h->refs[g].rule];
    size_t k = h->refs[g].sig;
    const ldx_signal_info *si = &r->info.signals[k];
    ldxi_lits set;
    bool ci;
    if (ldxi_literal_strings(si->pattern, &set, &ci)) {
        ci = ci || si->caseless;
        bool long_enough = true;
        for (size_t j = 0; j < set.n; j++) long_enough = long_enough && set.len[j] >= LITERAL_ENTRY_MIN;
        if (long_enough && strings_suffice(rs, h->refs[g].rule, &set, ci, &r->sigs[k])) {
            char *expr = ldxi_literal_expr(&set);
            if (expr) return (ldxi_hsentry){expr, true, ci};
        }
    }
    return (ldxi_hsentry){ldxi_hsentry_form(si->pattern), false, false};
}

#endif /* LDX_HAVE_HS */
