/* Pattern hygiene estimates behind `rules lint --perf`: the longest required literal. */
#include <string.h>

#include "test_util.h"
#include "logdx/rules.h"

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_literals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
