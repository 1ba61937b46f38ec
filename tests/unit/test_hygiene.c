/* Pattern hygiene estimates behind `rules lint --perf` (the longest required literal),
 * and the cheaper superset of a pattern that the prefilter is given. */
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "logdx/rules.h"
#include "../../src/rules/ruleset_int.h"
#include "../../src/plumbing.h"

static size_t lit(const char *pattern)
{
    ldx_signal_info si = {.pattern = pattern};
    return ldxi_signal_literal(&si);
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
    /* groups are looked into: a fixed group joins the text around it */
    assert_int_equal(lit("\\): (?<xid>31), "), 7);
    assert_int_equal(lit("ab(?:cd)ef"), 6);
    /* a group of alternatives counts for its weakest one */
    assert_int_equal(lit("(?:Ch(?:annel)? |channel 0x)[0-9a-fA-F]+"), 2);
    assert_int_equal(lit("x(?:abcdef|gh)y"), 3); /* "xab" or "xgh": a lower bound */
    assert_int_equal(lit("(?:abc|abd)"), 3);
    /* an optional group breaks the text; a repeated one is there at least once */
    assert_int_equal(lit("ab(?:cd)?ef"), 2);
    assert_int_equal(lit("ab(?:cdefg)+h"), 7);  /* "abcdefg": ab and the first repetition */
    assert_int_equal(lit("a(?:bcdefg)+hi"), 8); /* "bcdefghi": the last repetition and hi */
    /* lookarounds and anchors consume nothing: the text on both sides is adjacent */
    assert_int_equal(lit("^abc(?!x)def\\b"), 6);
    assert_int_equal(lit("(?<=q)ab(?<!z)cd"), 4);
    assert_int_equal(lit("(*UCP)abc"), 3);
    assert_int_equal(lit("ab(?i:cd)ef"), 2); /* an option group: not counted */
}

/* What rewrite (a pform.c function: NULL for no change) makes of pattern: want, or "="
 * for no change. The result is returned (malloc'd, NULL for no change). */
static char *rewrite_is(char *(*rewrite)(const char *), const char *pattern, const char *want)
{
    char *got = rewrite(pattern);
    if (strcmp(want, "=") == 0) {
        if (got) fail_msg("%s: expected no change, got %s", pattern, got);
    } else {
        if (!got) fail_msg("%s: expected %s, got no change", pattern, want);
        assert_string_equal(got, want);
    }
    return got;
}

/* The prefilter form of a pattern, or "=" when it goes in whole. */
static void form_is(const char *pattern, const char *want)
{
    free(rewrite_is(ldxi_prefilter_form, pattern, want));
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

/* rewrite_is(), and a second rewrite of the result changes nothing. */
static void settled_is(char *(*rewrite)(const char *), const char *pattern, const char *want)
{
    char *got = rewrite_is(rewrite, pattern, want);
    char *again = got ? rewrite(got) : NULL;
    if (again) fail_msg("%s: rewriting twice changed it again: %s", pattern, again);
    free(got);
}

/* The pattern without its end that may match nothing, or "=" when nothing is cut. */
static void trim_is(const char *pattern, const char *want) { settled_is(ldxi_trim_end, pattern, want); }

static void test_trimmed_ends(void **state)
{
    (void)state;
    /* the finite loss reading: the lookahead, the optional parts and the repeats of the
     * value go, inside its group too (one callback a line instead of one a digit) */
    trim_is("(?<key>[a-z0-9_]*loss)\\s*[:=]\\s*(?<value>[-+]?\\d+(?:\\.\\d+)?(?:e[+-]?\\d+)?)(?![\\w.])",
            "(?<key>[a-z0-9_]*loss)\\s*[:=]\\s*(?<value>[-+]?\\d)");
    trim_is("exit code (?<code>-?\\d+)", "exit code (?<code>-?\\d)");
    trim_is("abc\\d{3,}", "abc\\d{3}");
    trim_is("abc\\d{2,5}?", "abc\\d{2}");
    trim_is("abc(?:de)+", "abc(?:de)");
    trim_is("abc(?:de){2,}", "abc(?:de){2}");
    trim_is("a+|b*c+", "a|b*c"); /* each alternative on its own */
    trim_is("(?i)loss: \\d+", "(?i)loss: \\d");
    /* nothing to cut: a fixed end, an exact count, a group with alternatives */
    trim_is("CUDA out of memory", "=");
    trim_is("abc\\d{3}", "=");
    trim_is("abc(?:x+|y)", "=");
    trim_is("x?", "="); /* all of it may match nothing: kept whole */
    /* a back reference may need what is cut */
    trim_is("(\\w+) \\1+", "=");
}

/* The pattern from its longest fixed string on, or "=" when nothing is cut. */
static void start_is(const char *pattern, const char *want) { settled_is(ldxi_trim_start, pattern, want); }

static void test_trimmed_starts(void **state)
{
    (void)state;
    /* a py-spy frame: the indentation, the function name and the classes before the
     * file name go (a literal "(" stays: text is never dropped) */
    start_is(" {4}(?<fn>\\w+) \\((?<file>\\S*(?:distributed_c10d|c10d_logger)\\.py):\\d+\\)",
             "\\((?<file>\\S*(?:distributed_c10d|c10d_logger)\\.py):\\d+\\)");
    start_is("(?:#\\d+ +| {4})(?<fn>\\S*(?:ncclCommWaitStream|cudaStreamSynchronize))",
             "(?<fn>\\S*(?:ncclCommWaitStream|cudaStreamSynchronize))");
    start_is("(?<![\\w/.-])\\s*terminate called after", "terminate called after");
    start_is("\\d+ +segfault at|\\s+Fatal Python error", "segfault at|Fatal Python error");
    start_is("\\w+ CUDA out of memory", "CUDA out of memory");
    /* text in front stays, however short; a short fixed string needs what is before it */
    start_is("\\d+ x\\d+ CUDA out of memory", "x\\d+ CUDA out of memory");
    start_is("step \\d+ .* watchdog timeout", "=");
    start_is("^\\s*\\d+\\s+(?:nan|inf)\\s*$", "=");
    /* nothing in front */
    start_is("CUDA out of memory", "=");
    /* a back reference may need what is cut */
    start_is("(\\w+) \\1 ncclInternalError", "=");
}

/* The expression without anchors, or "=" when it has none. */
static void bare_is(const char *expr, const char *want) { settled_is(ldxi_strip_anchors, expr, want); }

static void test_anchors(void **state)
{
    (void)state;
    /* line and text anchors go, with nothing else */
    bare_is("^\\s*iteration\\s+\\d+/\\s*\\d+ \\|", "\\s*iteration\\s+\\d+/\\s*\\d+ \\|");
    bare_is("^\\s*(?<task>/job:\\w+)\\s*$", "\\s*(?<task>/job:\\w+)\\s*");
    bare_is("(?:^|\\s)Killed$|\\Aabc\\z|x\\Z", "(?:|\\s)Killed|abc|x");
    /* not anchors: a negated class, a caret or dollar in a class or escaped, \Q..\E,
     * a POSIX class, an options reset */
    bare_is("[^\\]]{0,40}\\^\\$[$^]", "=");
    bare_is("\\Q^a$\\E", "=");
    bare_is("[[:alpha:]^]x", "=");
    bare_is("(?^i)abc", "=");
    /* a lookaround keeps its anchors: (?!^) without one would never hold */
    bare_is("(?!^)abc(?<!x$)", "=");
    bare_is("^(?=^a)abc", "(?=^a)abc");
    bare_is("\\babc\\b\\Bdef", "=");
    /* a class left open: copied as it is */
    bare_is("abc[^", "=");
    /* a comment ends at its first ')', whatever it holds: kept as it is */
    bare_is("(?#a(\\k^<[x)b$", "(?#a(\\k^<[x)b");
}

/* The expression with its wide bounds unbounded, or "=" when it has none. */
static void wide_is(const char *expr, const char *want) { settled_is(ldxi_widen_bounds, expr, want); }

static void test_widened_bounds(void **state)
{
    (void)state;
    /* a bound of 8 or more goes, lazy or possessive, at any depth */
    wide_is("loss[^\\n]{0,60}?nan", "loss[^\\n]{0,}nan");
    wide_is("(?:a.{1,2000}b)+c\\w{8}x{2,9}+", "(?:a.{1,}b)+c\\w{8}x{2,}");
    /* small or exact bounds, open ones, a brace that is no quantifier: kept */
    wide_is("\\s{0,3}\\d{4}x{2,}", "=");
    wide_is("a{,9}b{x}\\{0,99}[{0,99}]", "=");
    /* inside a lookaround a wider bound is no superset */
    wide_is("(?!.{0,2000}maybe)(?<=a{0,9})x.{0,20}", "(?!.{0,2000}maybe)(?<=a{0,9})x.{0,}");
}

/* The literals a pattern requires, for the prefilter when Vectorscan refuses it. */
static void lits_are(const char *pattern, const char *want, bool want_ci)
{
    bool ci = !want_ci;
    char *got = ldxi_literal_set(pattern, &ci);
    if (!want) {
        if (got) fail_msg("%s: expected no literal set, got %s", pattern, got);
        return;
    }
    if (!got) fail_msg("%s: expected %s, got none", pattern, want);
    assert_string_equal(got, want);
    assert_int_equal(ci, want_ci);
    free(got);
}

static void test_literal_sets(void **state)
{
    (void)state;
    lits_are("\\GWatchdog fired for (?<what>\\w+)", "Watchdog fired for ", false);
    /* the best of the required parts; a group's alternatives together */
    lits_are("(?:CUDA|HIP) error: (?:out of memory|illegal address)", "out of memory|illegal address", false);
    lits_are("(?i)nccl (?R) timeout", " timeout", true); /* recursion: no requirement */
    lits_are("ab?c", NULL, false);                 /* nothing of 3 characters is required */
    lits_are("x.y(?i)zzzz", NULL, false);           /* an option set mid-pattern */
    lits_are("step \\d+: loss=nan", "\\x3a loss\\x3dnan", false); /* escaped for Vectorscan */
    /* numbered escapes are one character, not text: \x41 is "A", never "41" */
    lits_are("\\x41bcdefgh", "bcdefgh", false);
    lits_are("abc\\101defgh", "defgh", false);
    lits_are("(a)\\10bcdefgh", "bcdefgh", false);
    lits_are("(a)\\g-1bcdefgh", "bcdefgh", false);
    lits_are("\\pLabcdefgh", "abcdefgh", false);
    /* what a lookaround, an optional or conditional group holds is not required */
    lits_are("a(?!bcdefgh)xyz", "xyz", false);
    lits_are("(?:abcdefgh)?xyz", "xyz", false);
    lits_are("(?(DEFINE)(?<x>abcdefgh))hij", "hij", false);
    /* verbs, option settings and named assertions hold no text to match */
    lits_are("(*LIMIT_MATCH=10)abcdefgh", "abcdefgh", false);
    lits_are("(*pla:abcdefgh)xyz", "xyz", false);
    lits_are("(*atomic:abcdefgh)", NULL, false);
    /* a pattern Vectorscan refuses is prefiltered by its literals, not run on every line */
    ldx_msgs *m;
    ldx_compiler *c;
    ldx_ruleset *rs;
    static const char rule[] =
        "id: g-anchor\ntitle: t\nclass: collective_timeout\nseverity: high\n"
        "signals:\n  fired:\n    pattern: '\\GWatchdog fired for (?<what>\\w+)'\n"
        "summary: s\nsymptoms:\n  - {symptom: x, why: y}\nroot_cause: r\nfix: [f]\n"
        "verify: [v]\nreferences: [https://example.com]\n"
        "examples:\n  match: ['Watchdog fired for allreduce']\n  no_match: ['no watchdog']\n";
    assert_int_equal(ldx_msgs_create(&m), LDX_OK);
    assert_int_equal(ldx_compiler_create(&c, m), LDX_OK);
    assert_int_equal(ldx_compiler_add_buffer(c, "g-anchor.yaml", rule, sizeof rule - 1, false), LDX_OK);
    assert_int_equal(ldx_compiler_finish(c, &rs), LDX_OK);
    if (ldxi_ruleset_has_prefilter(rs)) assert_true(ldxi_ruleset_prefiltered(rs, 0, 0));
    ldx_ruleset_destroy(rs);
    ldx_compiler_destroy(c);
    ldx_msgs_destroy(m);
}

/* The capture groups read from a pattern's text are PCRE2's own. */
static void check_groups(const char *pattern, uint32_t opts)
{
    ldx_arena *a;
    assert_int_equal(ldxi_arena_create(&a), LDX_OK);
    ldxi_sigc sc = {0};
    uint32_t ngroups = 0;
    if (!ldxi_pattern_groups(pattern, a, &sc, &ngroups)) { /* not read: compiled instead */
        ldxi_arena_destroy(a);
        return;
    }
    int err;
    PCRE2_SIZE off;
    pcre2_code *code = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, opts, &err, &off, NULL);
    assert_non_null(code);
    uint32_t cc = 0, count = 0, esize = 0;
    PCRE2_SPTR table = NULL;
    pcre2_pattern_info(code, PCRE2_INFO_CAPTURECOUNT, &cc);
    pcre2_pattern_info(code, PCRE2_INFO_NAMECOUNT, &count);
    pcre2_pattern_info(code, PCRE2_INFO_NAMEENTRYSIZE, &esize);
    pcre2_pattern_info(code, PCRE2_INFO_NAMETABLE, &table);
    if (cc != ngroups || count != sc.ncaps) fail_msg("%s: %u groups, %u names; read %u, %zu", pattern, cc, count, ngroups, sc.ncaps);
    for (uint32_t i = 0; i < count; i++) {
        PCRE2_SPTR e = table + (size_t)i * esize;
        assert_int_equal(sc.capgroups[i], (e[0] << 8) | e[1]);
        assert_string_equal(sc.capnames[i], (const char *)e + 2);
    }
    pcre2_code_free(code);
    ldxi_arena_destroy(a);
}

static void test_groups(void **state)
{
    (void)state;
    check_groups("(?<b>x)(y)(?:z)(?<a>w)(?P<c>v)(?'d'u)(?=t)(?<=s)(?<!r)[(](\\()", 0);
    check_groups("(?i)(?<v>\\d+)(?i:a(?<w>b))", 0);
    ldx_arena *a;
    assert_int_equal(ldxi_arena_create(&a), LDX_OK);
    ldxi_sigc sc = {0};
    uint32_t n;
    assert_false(ldxi_pattern_groups("(?|(a)|(b))", a, &sc, &n)); /* branch reset */
    assert_false(ldxi_pattern_groups("(?x) ( a )", a, &sc, &n));
    ldxi_arena_destroy(a);
    /* every built-in pattern */
    ldx_msgs *m;
    ldx_compiler *c;
    ldx_ruleset *rs;
    assert_int_equal(ldx_msgs_create(&m), LDX_OK);
    assert_int_equal(ldx_compiler_create(&c, m), LDX_OK);
    assert_int_equal(ldx_compiler_add_builtin(c), LDX_OK);
    assert_int_equal(ldx_compiler_finish(c, &rs), LDX_OK);
    size_t checked = 0;
    for (size_t i = 0; i < ldx_ruleset_count(rs); i++) {
        const ldx_rule_info *ri = ldx_ruleset_rule(rs, i);
        for (size_t k = 0; k < ri->nsignals; k++, checked++)
            check_groups(ri->signals[k].pattern, ri->signals[k].caseless ? PCRE2_CASELESS : 0);
    }
    assert_true(checked > 500);
    ldx_ruleset_destroy(rs);
    ldx_compiler_destroy(c);
    ldx_msgs_destroy(m);
}

#ifdef LDX_HAVE_HS
#include <hs/hs.h>

#include "../../src/rules/hsdb.h"

/* Every database is compiled for the platform's baseline (hsdb.c says why): the built-in
 * one, compiled on the build machine, must scan on a CPU without AVX2 or AVX-512, and so
 * must a user database compiled at run time (and cached in a shared home). */
static void test_portable_databases(void **state)
{
    (void)state;
    static const char rule[] =
        "id: portable\ntitle: t\nclass: collective_timeout\nseverity: high\n"
        "signals:\n  fired:\n    pattern: 'Watchdog fired for (?<what>\\w+) after \\d+ ms'\n"
        "summary: s\nsymptoms:\n  - {symptom: x, why: y}\nroot_cause: r\nfix: [f]\n"
        "verify: [v]\nreferences: [https://example.com]\n"
        "examples:\n  match: ['Watchdog fired for allreduce after 5 ms']\n  no_match: ['no watchdog']\n";
    setenv("LOGDX_NO_CACHE", "1", 1);
    ldx_msgs *m;
    ldx_compiler *c;
    ldx_ruleset *rs;
    assert_int_equal(ldx_msgs_create(&m), LDX_OK);
    assert_int_equal(ldx_compiler_create(&c, m), LDX_OK);
    ldx_compiler_add_builtin(c);
    assert_int_equal(ldx_compiler_add_buffer(c, "portable.yaml", rule, sizeof rule - 1, false), LDX_OK);
    assert_int_equal(ldx_compiler_finish(c, &rs), LDX_OK);
    unsetenv("LOGDX_NO_CACHE");
    const ldxi_hsdb *h = rs->hs;
    assert_non_null(h);
    assert_true(h->embedded);     /* part 0: the built-in database */
    assert_int_equal(h->nparts, 2); /* part 1: the user rule's, compiled here */
    for (int p = 0; p < h->nparts; p++) {
        char *info = NULL;
        assert_int_equal(hs_database_info(h->part[p].db, &info), HS_SUCCESS);
        /* "Version: 5.4.9 Features:  Mode: BLOCK": no CPU feature required */
        const char *f = strstr(info, "Features:");
        assert_non_null(f);
        f += strlen("Features:");
        while (*f == ' ') f++;
        if (strncmp(f, "Mode:", 5) != 0) fail_msg("part %d needs CPU features: %s", p, info);
        free(info);
    }
    ldx_ruleset_destroy(rs);
    ldx_compiler_destroy(c);
    ldx_msgs_destroy(m);
}

static int count_ids(unsigned id, unsigned long long from, unsigned long long to,
                     unsigned flags, void *ctx)
{
    (void)from;
    (void)to;
    (void)flags;
    if (id < 2) ((unsigned *)ctx)[id]++;
    return 0;
}

/* Vectorscan 5.4.9's AVX-512 scanner lost the tqdm match on this line next to the step
 * counter pattern, and its AVX2 and AVX-512 ones a line-anchored pattern's next to
 * another (hsscan.c): the scanner logdx calls finds them, in both modes. On a CPU
 * without AVX-512 and AVX2 every scanner does; on one with them, this failed with
 * hs_scan(). */
static void test_scanner_finds_what_others_do(void **state)
{
    (void)state;
    static const char piece[] = "gpu-node-04:41236:41350 [6] NCCL INFO Channel 04/08 :    0   1"
                                "   2   3   4   5   6   7\n iteration       88/  100000 | \n";
    char anchored[5 * sizeof piece];
    for (int i = 0; i < 5; i++) memcpy(anchored + i * (sizeof piece - 1), piece, sizeof piece);
    struct {
        const char *exprs[2], *text;
        unsigned flags, want; /* matches of the second pattern */
    } cases[] = {
        {{"[Ss]tep\\s*(?<cur>\\d+)\\s*/\\s*(?<total>\\d+)\\b", "(?:it/s|s/it)[\\],]"},
         "Training (epoch 0 / 20):   2%|\xe2\x96\x8f         | 3/157 [00:59<38:11, 14.88s/it, loss", 0, 1},
        {{"^[ \\t]*(?<task>/job:jax_worker/replica:\\d+/task:\\d+)\\s*$", "^ *iteration\\s+\\d+/\\s*\\d+ \\|"},
         anchored, HS_FLAG_MULTILINE, 5},
    };
    static const hs_platform_info_t generic = {HS_TUNE_FAMILY_GENERIC, 0, 0, 0};
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++)
        for (int mode = 0; mode < 2; mode++) {
            unsigned fl = cases[k].flags | (mode ? HS_FLAG_PREFILTER | HS_FLAG_ALLOWEMPTY : 0);
            unsigned flags[2] = {fl, fl}, ids[2] = {0, 1};
            hs_database_t *db = NULL;
            hs_compile_error_t *err = NULL;
            assert_int_equal(hs_compile_multi(cases[k].exprs, flags, ids, 2, HS_MODE_BLOCK, &generic,
                                              &db, &err),
                             HS_SUCCESS);
            hs_scratch_t *scratch = NULL;
            assert_int_equal(hs_alloc_scratch(db, &scratch), HS_SUCCESS);
            unsigned found[2] = {0, 0};
            const char *t = cases[k].text;
            assert_int_equal(ldxi_hs_scan(db, t, (unsigned)strlen(t), scratch, count_ids, found), HS_SUCCESS);
            if (found[1] != cases[k].want)
                fail_msg("%s, case %zu, mode %d: the second pattern matched %u times, not %u",
                         ldxi_hs_scanner(), k, mode, found[1], cases[k].want);
            assert_int_equal(found[0], 0);
            hs_free_scratch(scratch);
            hs_free_database(db);
        }
}
#endif

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_literals),
        cmocka_unit_test(test_prefilter_forms),
        cmocka_unit_test(test_trimmed_ends),
        cmocka_unit_test(test_trimmed_starts),
        cmocka_unit_test(test_groups),
        cmocka_unit_test(test_literal_sets),
        cmocka_unit_test(test_anchors),
        cmocka_unit_test(test_widened_bounds),
#ifdef LDX_HAVE_HS
        cmocka_unit_test(test_portable_databases),
        cmocka_unit_test(test_scanner_finds_what_others_do),
#endif
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
