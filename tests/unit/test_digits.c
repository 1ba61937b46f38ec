/* Digits (src/rules/digits.c): line templates, digit-blind patterns and the widened
 * expressions the prefilter scans templates with. */
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "../../src/rules/ruleset_int.h"

static void test_template(void **state)
{
    (void)state;
    const char *line = "step 1234/5000 loss=0.987 \xe2\x96\x88 x9";
    char out[64];
    ldxi_digits_template(line, strlen(line), out);
    out[strlen(line)] = '\0';
    assert_string_equal(out, "step 0000/0000 loss=0.000 \xe2\x96\x88 x0");
}

static void test_blind(void **state)
{
    (void)state;
    static const char *const blind[] = {
        "\\d+",
        "(?<![\\w'\"])(?<key>[a-z0-9_]*loss(?!_?scale))\\s*[:=]\\s*(?<value>[-+]?\\d+(?:\\.\\d+)?)",
        "^\\s*iteration\\s+\\d+/\\s*\\d+ \\|.*\\|\\s*lm loss: (?<v>\\d\\.\\d+E[+-]\\d+) \\|",
        "x{2,3}y{4}",         /* quantifiers are syntax */
        "(?<v1>\\d)(?P<n2>a)", /* so are group names */
        "\\x2c in \\x5f",
        "[^\\d]+[\\w.][[:digit:]][[:^alnum:]][0-9a-f]",
        "(?i)CUDA error(?=:)(?!x)",
        "(?#comment 1)a",
        "\\Qa.b\\E",
        "[^\\]]{0,40}",
        "a\\Eb",
        "[\\s\\S]",
        "\\cp",        /* 0x10: a letter is upper-cased first, so no \\c is a digit */
    };
    for (size_t i = 0; i < sizeof blind / sizeof *blind; i++)
        if (!ldxi_re_digit_blind(blind[i])) fail_msg("expected digit-blind: %s", blind[i]);
    static const char *const not_blind[] = {
        "exit code 137",
        "[1-9]\\d*",
        "\\x31",
        "\\061",
        "(\\d)\\1",     /* a back reference compares the digits themselves */
        "(?<d>\\d)\\k<d>",
        "\\p{N}",
        "(?x) a 1",
        "(?(1)a|b)",
        "[^0]",
        "(?!-9\\b)-?\\d",
        "[[:alpha:]1]",
        "x{a1}",        /* a brace that is no quantifier is text */
        "\\Q1.5\\E",
        "(*UCP)\\d",
        "(?R)",
        "a)",
        "[0-",
    };
    for (size_t i = 0; i < sizeof not_blind / sizeof *not_blind; i++)
        if (ldxi_re_digit_blind(not_blind[i])) fail_msg("expected not digit-blind: %s", not_blind[i]);
}

static void widen_is(const char *expr, const char *want)
{
    char *got = ldxi_re_widen_digits(expr);
    if (!want) {
        if (got) fail_msg("%s: expected no rewrite, got %s", expr, got);
        return;
    }
    if (!got) fail_msg("%s: expected %s, got none", expr, want);
    assert_string_equal(got, want);
    free(got);
}

static void test_widen(void **state)
{
    (void)state;
    widen_is("Exit Code:\\s+137\\b", "Exit Code:\\s+000\\b");
    widen_is("[1-9]\\d*", "(?:[1-9]|0)\\d*");
    widen_is("(?!-9\\b)-?\\d", "(?:)-?\\d");
    widen_is("(?!abc)-?\\d", "(?!abc)-?\\d");
    widen_is("(?=x1)y", "(?=x0)y");
    widen_is("\\x31\\x2c", "0\\x2c");
    widen_is("\\Q1.5\\E", "\\Q0.0\\E");
    widen_is("\\): (?<xid>14[4-9]|150), ", "\\): (?<xid>00(?:[4-9]|0)|000), ");
    widen_is("a{2}b[0-9]", "a{2}b[0-9]");
    widen_is("[^0]", "(?:[^0]|0)");
    widen_is("(?i)sm_8[06]", "(?i)sm_0(?:[06]|0)");
    widen_is("(\\d)\\1", NULL);
    widen_is("\\p{N}", NULL);
    widen_is("(?(1)a|b)", NULL);
    /* what PCRE2 ignores is left out without joining its two sides into another token;
     * a quantifier after it still applies to the atom before */
    widen_is("a\\x(?#b)c", "a\\x(?:)c");
    widen_is("a\\E1", "a(?:)0");
    widen_is("\\d(?#n)+x", "\\d+x");
    widen_is("\\x(?#n){2}", NULL);
}

static void collapse_is(const char *expr, const char *want)
{
    char *got = ldxi_re_collapse_digits(expr);
    if (!want) {
        if (got) fail_msg("%s: expected no rewrite, got %s", expr, got);
        return;
    }
    if (!got) fail_msg("%s: expected %s, got none", expr, want);
    assert_string_equal(got, want);
    free(got);
}

static void test_collapse(void **state)
{
    (void)state;
    char buf[64];
    const char *line = "step 10/200 loss 0.125 x9";
    size_t n = ldxi_digits_collapse(line, strlen(line), buf);
    assert_int_equal(n, strlen("step 0/0 loss 0.0 x0"));
    assert_memory_equal(buf, "step 0/0 loss 0.0 x0", n);
    collapse_is("Exit Code:\\s+137\\b", "Exit Code:\\s+0?0?0?\\b");
    collapse_is("[1-9]\\d*", "(?:[1-9]|0)?\\d*");
    collapse_is("\\d{2,5}\\.\\d+", "\\d{0,5}\\.\\d*");
    collapse_is("\\d{3}x\\d{2,}?", "\\d{0,3}x\\d{0,}?");
    collapse_is("a.{4}b\\w+", "a.{0,4}b\\w*");
    collapse_is("[a-z]+\\s\\S", "[a-z]+\\s\\S?");
    collapse_is("(?!-9\\b)-?\\d", "(?:)-?\\d?");
    collapse_is("x(?=\\d)\\Bq", "x(?:)(?:)q");
    collapse_is("(?<!\\d)\\d+", "(?:)\\d*");
    collapse_is("a{2}", "a{2}");
    collapse_is("\\d{2}{", "\\d{0,2}{");
    collapse_is("\\x31", "0?");
    collapse_is("\\Q1.5\\E", "\\Q\\E(?:0?)\\Q.\\E(?:0?)\\Q\\E");
    /* a quantifier after the quote repeats the group a digit became */
    collapse_is("(\\Q3\\E*)", "(\\Q\\E(?:0?)\\Q\\E*)");
    /* an empty quote is nothing: the quantifier after it is the digit's (fuzz find) */
    collapse_is("(3\\Q\\E*)", "(0*)");
    collapse_is("\\Qa.b\\E\\d", "\\Qa.b\\E\\d?");
    collapse_is("\\d++", "\\d*");
    collapse_is("\\s*+x", "\\s*x");
    collapse_is("a{2}+b", "a{2}b");
    collapse_is("(?>\\d+)x", "(?:\\d*)x");
    collapse_is("(\\d)\\1", NULL);
}

/* The two promises, checked with PCRE2 on many made-up lines: a widened expression
 * matches the template of every line the original matches, and a digit-blind pattern
 * matches a line and its template alike, at the same offsets. */
static bool matches(const char *re, const char *s, size_t n, PCRE2_SIZE *ov, int *count)
{
    int err;
    PCRE2_SIZE off;
    pcre2_code *c = pcre2_compile((PCRE2_SPTR)re, PCRE2_ZERO_TERMINATED, 0, &err, &off, NULL);
    assert_non_null(c);
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(c, NULL);
    int r = pcre2_match(c, (PCRE2_SPTR)s, n, 0, 0, md, NULL);
    if (ov && r > 0) memcpy(ov, pcre2_get_ovector_pointer(md), 2 * (size_t)r * sizeof *ov);
    if (count) *count = r;
    pcre2_match_data_free(md);
    pcre2_code_free(c);
    return r >= 0;
}

static unsigned next(unsigned *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    return *seed >> 16;
}

/* 1 to 20 characters of alphabet into line; their number. */
static size_t random_line(char *line, const char *alphabet, unsigned *seed)
{
    size_t n = 1 + next(seed) % 20, k = strlen(alphabet);
    for (size_t i = 0; i < n; i++) line[i] = alphabet[next(seed) % k];
    return n;
}

static void test_promises(void **state)
{
    (void)state;
    static const char *const exprs[] = {
        "code 1[37]",   "(?!-9\\b)-?\\d+", "[1-9]\\d*\\.\\d", "x(?<!1)y",  "a[^05]b",
        "\\d{2}:[0-5]", "(?<n>\\d+)/\\d+", "[a-c0-2]+1",      "\\b7\\b",   "(?=.*3)a",
        "a\\d(?!0)",    "0x[0-9a-f]{2}",   "(?:ab|1b)+c",     "[^\\d]9",  "(?:ab|xb)+c\\d",
        "(?<![.\\d])\\d+(?=/)",
    };
    const char alphabet[] = "0123456789abcxy-./: ";
    unsigned seed = 7;
    char line[24], tmpl[24];
    for (size_t e = 0; e < sizeof exprs / sizeof *exprs; e++) {
        char *wide = ldxi_re_widen_digits(exprs[e]);
        assert_non_null(wide);
        bool blind = ldxi_re_digit_blind(exprs[e]);
        for (int t = 0; t < 3000; t++) {
            size_t n = random_line(line, alphabet, &seed);
            ldxi_digits_template(line, n, tmpl);
            PCRE2_SIZE ov1[8], ov2[8];
            int c1, c2;
            bool m = matches(exprs[e], line, n, ov1, &c1);
            if (m && !matches(wide, tmpl, n, NULL, NULL))
                fail_msg("%s matches '%.*s' but %s misses its template", exprs[e], (int)n, line, wide);
            if (blind) {
                bool mt = matches(exprs[e], tmpl, n, ov2, &c2);
                assert_int_equal(m, mt);
                if (m) {
                    assert_int_equal(c1, c2);
                    assert_memory_equal(ov1, ov2, 2 * (size_t)c1 * sizeof *ov1);
                }
            }
        }
        free(wide);
    }
}

/* The collapsed promise: a collapsed widening matches the collapsed template of every
 * line the original matches (numbers of any length). */
static void test_collapse_promise(void **state)
{
    (void)state;
    static const char *const exprs[] = {
        "code 1[37]",     "(?!-9\\b)-?\\d+", "[1-9]\\d*\\.\\d",   "x(?<!1)y",       "a[^05]b",
        "\\d{2}:[0-5]",   "(?<n>\\d+)/\\d+",  "[a-c0-2]+1",       "\\b7\\b",         "(?=.*3)a",
        "a\\d(?!0)",      "0x[0-9a-f]{2}",    "(?:ab|1b)+c",      "[^\\d]9",         "(?:ab|xb)+c\\d",
        "(?<![.\\d])\\d+(?=/)", "\\d\\d\\.\\d{3}", "a.{3}b",          "\\w{4}",          "\\B\\d\\b",
        "(?:\\d,){2}x",    "[0-9]{2,4}/\\d",  "\\S+ \\d",         "^\\d+$",          "12\\b",
        "(?:1|22)(?:3|a)", "x\\d?y\\d*?z",     "[^a]{2}c",         "(?>\\d+)\\.",     "\\d++/",
        "\\Q1.\\E\\d",
    };
    const char alphabet[] = "0123456789abcxy-./:, ";
    unsigned seed = 11;
    char line[24], tmpl[24];
    for (size_t e = 0; e < sizeof exprs / sizeof *exprs; e++) {
        char *wide = ldxi_re_collapse_digits(exprs[e]);
        if (!wide) fail_msg("%s: no collapsed widening", exprs[e]);
        for (int t = 0; t < 4000; t++) {
            size_t n = random_line(line, alphabet, &seed);
            size_t m = ldxi_digits_collapse(line, n, tmpl);
            if (matches(exprs[e], line, n, NULL, NULL) && !matches(wide, tmpl, m, NULL, NULL))
                fail_msg("%s matches '%.*s' but %s misses '%.*s'", exprs[e], (int)n, line, wide, (int)m, tmpl);
        }
        free(wide);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_template),
        cmocka_unit_test(test_blind),
        cmocka_unit_test(test_widen),
        cmocka_unit_test(test_promises),
        cmocka_unit_test(test_collapse),
        cmocka_unit_test(test_collapse_promise),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
