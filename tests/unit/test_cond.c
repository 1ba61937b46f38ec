/* Condition parsing (errors with offsets) and evaluation, trends included. */
#include <math.h>
#include <string.h>

#include "test_util.h"
#include "../../src/rules/cond.h"

static const char *const mem_caps[] = {"bytes", "gib"};
static const ldxi_cond_sig sigs[] = {
    {"oom", NULL, 0}, {"timeout", NULL, 0}, {"mem", mem_caps, 2}, {"retry_ok", NULL, 0}};

typedef struct {
    double count[4], ranks[4], first[4];
    double stat_val;     /* returned by stat() for anything */
    ldxi_func last_func;
} fake;

static double f_count(void *c, int s) { return ((fake *)c)->count[s]; }
static double f_ranks(void *c, int s) { return ((fake *)c)->ranks[s]; }
static double f_first(void *c, int s) { return ((fake *)c)->first[s]; }
static double f_stat(void *c, int s, int cap, ldxi_func f, double arg)
{
    (void)s;
    (void)cap;
    (void)arg;
    ((fake *)c)->last_func = f;
    return ((fake *)c)->stat_val;
}

static ldxi_cond *parse(ldx_arena *a, const char *src, size_t *off, char *err)
{
    ldxi_cond *c = NULL;
    ldxi_cond_parse(src, sigs, 4, a, &c, off, err, 256);
    return c;
}

static int eval(ldx_arena *a, const char *src, fake *f)
{
    size_t off;
    char err[256];
    ldxi_cond *c = parse(a, src, &off, err);
    if (!c) fail_msg("parse failed: %s at %zu", err, off);
    ldxi_cond_env env = {f, f_count, f_ranks, f_first, f_stat, NULL, NULL, NULL, NULL};
    return ldxi_cond_true(ldxi_cond_eval(c, &env));
}

static void test_boolean(void **state)
{
    (void)state;
    ldx_arena *a;
    ldxi_arena_create(&a);
    fake f = {.count = {2, 0, 0, 1}, .first = {NAN, NAN, NAN, NAN}};
    assert_true(eval(a, "oom", &f));
    assert_false(eval(a, "timeout", &f));
    assert_true(eval(a, "oom and not timeout", &f));
    assert_false(eval(a, "oom and not retry_ok", &f));
    assert_true(eval(a, "(timeout or oom) and count(oom) >= 2", &f));
    assert_false(eval(a, "count(oom) > 2", &f));
    assert_true(eval(a, "not(timeout)", &f));
    f.ranks[1] = 3;
    assert_true(eval(a, "ranks(timeout) >= 3", &f));
    ldxi_arena_destroy(a);
}

static void test_numbers_units_and_nan(void **state)
{
    (void)state;
    ldx_arena *a;
    ldxi_arena_create(&a);
    fake f = {.stat_val = 2.0 * 1073741824.0};
    assert_true(eval(a, "max(mem.bytes) > 1GiB", &f));
    assert_int_equal(f.last_func, LDXI_F_MAX);
    assert_false(eval(a, "max(mem.bytes) > 3GiB", &f));
    assert_true(eval(a, "last(mem.gib) >= 2147483648", &f));
    assert_true(eval(a, "min(mem.bytes) == 2GiB", &f));
    assert_true(eval(a, "avg(mem.bytes) > 1.5e9", &f));
    assert_true(eval(a, "max(mem.bytes) >= 0.5 * last(mem.gib) + 1", &f));
    assert_true(eval(a, "max(mem.bytes) / 2 == 1GiB", &f));
    assert_true(eval(a, "max(mem.bytes) - 1GiB * 2 == 0", &f));
    assert_false(eval(a, "max(mem.bytes) / 0 > 1", &f));
    assert_true(eval(a, "count(oom) + count(timeout) * 2 == 0", &f));
    f.stat_val = NAN; /* no values at all: every comparison is false */
    assert_false(eval(a, "max(mem.bytes) > 1GiB", &f));
    assert_false(eval(a, "max(mem.bytes) <= 1GiB", &f));
    assert_false(eval(a, "max(mem.bytes) != 1", &f));
    assert_true(eval(a, "not max(mem.bytes) > 1GiB", &f));
    f.stat_val = 1.0;
    assert_true(eval(a, "rising(mem.bytes, 3)", &f));
    assert_int_equal(f.last_func, LDXI_F_RISING);
    ldxi_arena_destroy(a);
}

static void test_before(void **state)
{
    (void)state;
    ldx_arena *a;
    ldxi_arena_create(&a);
    fake f = {.count = {1, 1, 0, 0}, .first = {10, 20, NAN, NAN}};
    assert_true(eval(a, "before(oom, timeout)", &f));
    assert_false(eval(a, "before(timeout, oom)", &f));
    assert_false(eval(a, "before(oom, mem)", &f));
    ldxi_arena_destroy(a);
}

static void expect_error(const char *src, size_t want_off, const char *want)
{
    ldx_arena *a;
    ldxi_arena_create(&a);
    size_t off = 999;
    char err[256] = "";
    ldxi_cond *c = parse(a, src, &off, err);
    assert_null(c);
    if (!strstr(err, want)) fail_msg("'%s': got '%s', want '%s'", src, err, want);
    assert_int_equal(off, want_off);
    ldxi_arena_destroy(a);
}

static void test_errors(void **state)
{
    (void)state;
    expect_error("oom and nope", 8, "unknown signal 'nope'");
    expect_error("max(mem.bits) > 1", 8, "no named capture 'bits'");
    expect_error("max(oom) > 1", 4, "expected signal.capture");
    expect_error("oom and", 7, "unexpected end");
    expect_error("oom = 1", 4, "use '=='");
    expect_error("(oom", 4, "expected ')'");
    expect_error("rising(mem.bytes, 1)", 18, "whole number >= 2");
    expect_error("max(mem.bytes) > 1 GiX", 19, "expected 'and', 'or'");
    expect_error("max(mem.bytes) > 1GiX", 17, "bad number");
    expect_error("frobnicate(oom)", 0, "unknown function");
    expect_error("mem.bytes > 3", 0, "is a capture");
    expect_error("oom oom", 4, "expected 'and', 'or' or the end");
}

/* A signal's where: bare capture names, the line's numbers, no functions. */
static const char *const line_caps[] = {"iter", "skipped", "loss"};

static bool where(ldx_arena *a, const char *src, double iter, double skipped, double loss)
{
    size_t off;
    char err[256];
    ldxi_cond *c = NULL;
    if (ldxi_where_parse(src, line_caps, 3, a, &c, &off, err, sizeof err) != LDX_OK)
        fail_msg("where '%s' failed: %s at %zu", src, err, off);
    const double vals[3] = {iter, skipped, loss};
    return ldxi_where_true(c, vals);
}

static void test_where(void **state)
{
    (void)state;
    ldx_arena *a;
    ldxi_arena_create(&a);
    assert_true(where(a, "iter >= 1000 and skipped >= 2", 1000, 2, 0));
    assert_false(where(a, "iter >= 1000 and skipped >= 2", 999, 5, 0));
    assert_false(where(a, "iter >= 1000 and skipped >= 2", 5000, 1, 0));
    assert_true(where(a, "loss == 0 or not skipped < 3", 1, 7, 2.5));
    assert_true(where(a, "loss * 2 > iter - 1", 4, 0, 2.0));
    assert_true(where(a, "iter >= 1K", 1024, 0, 0)); /* numbers take units, as conditions */
    /* a capture without a number (NaN) makes every comparison false, and its negation
     * true: a line whose number could not be read is not a hit */
    assert_false(where(a, "loss == 0", 1, 1, NAN));
    assert_false(where(a, "loss != 0", 1, 1, NAN));
    assert_true(where(a, "not loss > 0", 1, 1, NAN));
    size_t off = 99;
    char err[256] = "";
    ldxi_cond *c = NULL;
    static const struct {
        const char *src;
        size_t off;
        const char *msg;
    } bad[] = {{"count(iter) > 1", 0, "no functions such as 'count()'"},
               {"skipped >= 2 and nope < 1", 17, "no named capture 'nope'"},
               {"late.iter > 1", 0, "names the signal's own captures bare"},
               {"iter >=", 7, "unexpected end"},
               {"iter = 3", 5, "use '=='"}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        assert_int_equal(ldxi_where_parse(bad[i].src, line_caps, 3, a, &c, &off, err, sizeof err), LDX_EPARSE);
        if (!strstr(err, bad[i].msg)) fail_msg("'%s': got '%s', want '%s'", bad[i].src, err, bad[i].msg);
        assert_int_equal(off, bad[i].off);
        assert_null(c);
    }
    ldxi_arena_destroy(a);
}

/* A where of comparisons with numbers joined by `and` is tested as clauses, in order,
 * with the same answers as the tree; anything more stays a tree. */
static void test_where_clauses(void **state)
{
    (void)state;
    ldx_arena *a;
    ldxi_arena_create(&a);
    static const struct {
        const char *src;
        size_t n; /* clauses; 0: not clauses */
    } shapes[] = {{"skipped >= 2", 1},          {"2 <= skipped and iter > 999", 2},
                  {"loss == 0 and iter != 3 and skipped < 1e3", 3},
                  {"skipped >= 2 or iter > 1", 0}, {"not skipped > 1", 0},
                  {"skipped > iter", 0},        {"loss * 2 > 1", 0},
                  {"(skipped > 1 and iter > 1) and loss < 3", 3},
                  {"999 < iter and 2 > loss and 1 >= skipped", 3}, {"0 == loss", 1}};
    double vals[3];
    uint64_t x = 12345;
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
        ldxi_cond *c = NULL;
        size_t off, n = 99;
        char err[256];
        assert_int_equal(ldxi_where_parse(shapes[i].src, line_caps, 3, a, &c, &off, err, sizeof err), LDX_OK);
        ldxi_clause *cl;
        bool is = ldxi_where_clauses(c, a, &cl, &n);
        if (is != (shapes[i].n > 0) || (is && n != shapes[i].n))
            fail_msg("'%s': %s, %zu clauses", shapes[i].src, is ? "clauses" : "a tree", n);
        for (int t = 0; is && t < 2000; t++) {
            for (int k = 0; k < 3; k++) {
                x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                static const double pick[] = {0, 1, 2, 3, 999, 1000, 1e3, NAN, -1};
                vals[k] = pick[x % (sizeof pick / sizeof *pick)];
            }
            bool all = true;
            for (size_t k = 0; k < n; k++) all = all && ldxi_clause_true(&cl[k], vals[cl[k].cap]);
            if (all != ldxi_where_true(c, vals))
                fail_msg("'%s' on %g %g %g: clauses %d, tree %d", shapes[i].src, vals[0], vals[1],
                         vals[2], all, !all);
        }
    }
    ldxi_arena_destroy(a);
}

static void test_deep_nesting_is_refused(void **state)
{
    (void)state;
    char src[2000];
    size_t n = 0;
    for (int i = 0; i < 600; i++) src[n++] = '(';
    memcpy(src + n, "oom", 3);
    n += 3;
    for (int i = 0; i < 600; i++) src[n++] = ')';
    src[n] = 0;
    ldx_arena *a;
    ldxi_arena_create(&a);
    size_t off;
    char err[256];
    assert_null(parse(a, src, &off, err));
    assert_non_null(strstr(err, "nested too deeply"));
    ldxi_arena_destroy(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_boolean),
        cmocka_unit_test(test_numbers_units_and_nan),
        cmocka_unit_test(test_before),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_deep_nesting_is_refused),
        cmocka_unit_test(test_where),
        cmocka_unit_test(test_where_clauses),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
