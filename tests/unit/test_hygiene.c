/* Pattern hygiene estimates behind `rules lint --perf` (the longest required literal),
 * and the cheaper superset of a pattern that the prefilter is given. */
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "logdx/rules.h"
#include "../../src/rules/ruleset_int.h"

static size_t lit(const char *pattern)
{
    ldx_signal_info si = {.pattern = pattern};
    return ldx_signal_literal(&si);
}

static void test_literals(void **state)
{
    (void)state;
    assert_int_equal(lit("CUDA out of memory"), 18);
    assert_int_equal(lit("CUDA out of memory\\. Tried"), 25);   /* an escaped dot is literal */
    assert_int_equal(lit("\\d+ GiB"), 4);                        /* " GiB" */
    assert_int_equal(lit("colou?r"), 4);                         /* "colo": u is optional */
    assert_int_equal(lit("abc|de"), 2);                          /* the weakest alternative */
    assert_int_equal(lit("[A-Z]+\\s*\\d+"), 0);                   /* classes only */
    assert_int_equal(lit("(?<name>\\w+)=(?<v>\\d+)"), 1);
    assert_int_equal(lit("(?i)watchdog caught"), 15);
    assert_int_equal(lit("x{0,3}yz"), 2);
}

/* The prefilter form of a pattern, or "=" when it goes in whole. */
static void form_is(const char *pattern, const char *want)
{
    char *got = ldxi_prefilter_form(pattern);
    if (strcmp(want, "=") == 0) {
        if (got) fail_msg("%s: expected whole, got %s", pattern, got);
    } else {
        if (!got) fail_msg("%s: expected %s, got the whole pattern", pattern, want);
        assert_string_equal(got, want);
    }
    free(got);
}

static void test_prefilter_forms(void **state)
{
    (void)state;
    /* the tqdm bar: the bounded gap goes, the part with the longest literal stays */
    form_is("\\| *\\d+/\\d+ \\[[^\\]]{0,40}(?:it/s|s/it)[\\],]", "(?:it/s|s/it)[\\],]");
    /* Megatron: `.*` between two parts */
    form_is("^\\s*iteration\\s+(?<iter>[1-9]\\d{3,})/\\s*\\d+ \\|.*number of skipped iterations:\\s+(?<n>[1-9]\\d*) \\|",
            "number of skipped iterations:\\s+(?<n>[1-9]\\d*) \\|");
    /* an optional group holding a gap is a gap */
    form_is("\\|\\s*loss scale: (?<s>[\\d.]+) \\|(?:.*\\|)?\\s*number of skipped iterations:",
            "\\s*number of skipped iterations:");
    /* each top-level alternative on its own */
    form_is("foo.*barbaz|plain text", "barbaz|plain text");
    /* nothing to cut, or nothing worth keeping: whole */
    form_is("CUDA out of memory", "=");
    form_is("a.*b", "=");
    form_is("x[^y]{0,4}zzz", "="); /* a short bound is no gap */
    /* a part cannot stand without what it refers to */
    form_is("(\\w+) .* \\1 again", "=");
    form_is("abcd.*(?i)efgh", "=");
    form_is("abc|(?i)x|foo.*barbaz", "="); /* (?i) holds for the alternatives after it */
    form_is("(?(1)abc|def).*ghijk", "=");
    /* options at the very start stay in front */
    form_is("(?i)abc.*defgh", "(?i)defgh");
    /* a gap inside a lookahead drops the lookahead */
    form_is("watchdog(?=.*timeout)", "watchdog");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_literals),
        cmocka_unit_test(test_prefilter_forms),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
