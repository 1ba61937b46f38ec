/* The gate in front of PCRE2 (rules/required.c): the fixed strings it reads out of a
 * pattern must be on every line the pattern matches. Checked two ways: what it reads
 * from patterns of known shape, and, for patterns of every construct it must read or
 * refuse, that no line PCRE2 matches is turned away. And the code a signal runs with
 * (rules/load.c ldxi_sig_code): interpreted until its LDXI_JIT_AFTER-th run, then its
 * JIT-compiled copy, the same matches either way. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "test_util.h"
#include "../../src/rules/ruleset_int.h"
#include "../../src/scan/scan_int.h"

/* The strings of r's sets, "a|b & c" in set order. */
static void sets_text(const ldxi_req *r, char *out, size_t size)
{
    size_t o = 0;
    out[0] = 0;
    for (size_t k = 0; r && k < r->nsets; k++) {
        if (k) o += (size_t)snprintf(out + o, size - o, " & ");
        for (size_t i = 0; i < r->set[k].n; i++)
            o += (size_t)snprintf(out + o, size - o, "%s%.*s", i ? "|" : "", r->set[k].len[i], r->set[k].s[i]);
    }
}

static void test_reads(void **state)
{
    (void)state;
    static const struct {
        const char *pattern, *sets;
    } c[] = {
        {"CUDA out of memory", "CUDA out of memory"},
        {"(?:Error|Exception):[^\\n]{0,120}?\\bloss\\b", "Error|Exception & loss"}, /* a group ends the run */
        {"Tried to allocate (?<n>\\d+) MiB \\(GPU \\d+", "Tried to allocate & MiB (GPU"},
        {"ab?cdef", "cdef"},          /* the optional b cuts the run */
        {"x+yz", "xyz"},              /* a repeated x: there once */
        {"(?:nan|inf)\\b.{0,40}loss", ""}, /* three-letter members and a short tail: kept only */
        {"\\bnan\\b|\\binf\\b", "nan|inf"},
        {"(?=lookahead)body text", "body text"},
        {"(a)\\1 backref", ""},       /* refused */
        {"(?x) extended mode", ""},   /* refused */
        {"abc{,3}def", "def"},        /* '{' quantifier or text: neither */
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        ldxi_req *r = ldxi_required_literals(c[i].pattern, false);
        char got[512];
        sets_text(r, got, sizeof got);
        if (!*c[i].sets) {
            /* refused, or only weak sets: nothing, or sets that the checks below keep honest */
            if (strstr(c[i].pattern, "\\1") || strstr(c[i].pattern, "(?x)")) assert_null(r);
        } else {
            if (!r) fail_msg("pattern %s: no gate read", c[i].pattern);
            char want[512];
            snprintf(want, sizeof want, "%s", c[i].sets);
            /* each expected set is among the ones read */
            for (char *tok = strtok(want, "&"); tok; tok = strtok(NULL, "&")) {
                while (*tok == ' ') tok++;
                size_t n = strlen(tok);
                while (n && tok[n - 1] == ' ') tok[--n] = 0;
                if (!strstr(got, tok)) fail_msg("pattern %s: set '%s' not in '%s'", c[i].pattern, tok, got);
            }
        }
        free(r);
    }
}

/* Patterns of every construct, lines around them: every line PCRE2 matches passes. */
static void test_never_turns_away_a_match(void **state)
{
    (void)state;
    static const char *pat[] = {
        "CUDA out of memory\\. Tried to allocate (?<req>[\\d.]+ [GM]iB)",
        "(?i)nccl (?:WARN|error)[^\\n]{0,80}timeout",
        "(?:Error|Exception):[^\\n]{0,120}?\\b(?:nan|inf)\\b[^\\n]{0,60}?loss",
        "\\bloss[\"']?\\s?[:=]\\s?(?<v>nan|inf)",
        "Segmentation fault(?: \\(core dumped\\))?",
        "(?<![\\w.-])(?:Gen_loss|Loss_G|[Gg][ _][Ll]oss)\\s{0,3}[:=]",
        "Expected (?:\\d+-dimensional|tensor of size \\[[\\d, ]*\\])",
        "r\\xc3\\xa9seau (?:coup\\xc3\\xa9|perdu)",
        "(?i:Killed)\\s*$",
        "a{2,}bc\\.d",
        "(?|(abc)|(xyz))tail",
        "(?'name'prefix)-(?P<other>mid)-end",
        "x(?#comment)yz+w",
        "[Ee]rror\\(s\\) in loading state_dict",
        "\\Qa.b\\E literal",
    };
    static const char *line[] = {
        "CUDA out of memory. Tried to allocate 2.00 GiB",
        "NCCL WARN watchdog timeout after 1800000ms", "nccl error: TIMEOUT", "Nccl Warn ... Timeout",
        "RuntimeError: loss is nan at step 3", "ValueError: got inf in loss", "Exception: nan loss",
        "loss: nan", "'loss'=inf", "Segmentation fault (core dumped)", "Segmentation fault",
        "Gen_loss: -0.0 Dis_loss: 13.82", "G loss: 1.0", "g_loss=2",
        "Expected 4-dimensional tensor", "Expected tensor of size [1, 2]",
        "r\xc3\xa9seau coup\xc3\xa9", "KILLED", "killed  ", "aabc.d", "aaaabc.d", "abctail", "xyztail",
        "prefix-mid-end", "xyzzzw", "xyzw", "Error(s) in loading state_dict", "error(s) in loading state_dict",
        "a.b literal", "nothing at all", "",
    };
    pcre2_match_data *md = pcre2_match_data_create(16, NULL);
    for (size_t p = 0; p < sizeof pat / sizeof pat[0]; p++) {
        for (int ci = 0; ci < 2; ci++) {
            int err;
            PCRE2_SIZE off;
            pcre2_code *code = pcre2_compile((PCRE2_SPTR)pat[p], PCRE2_ZERO_TERMINATED, ci ? PCRE2_CASELESS : 0,
                                             &err, &off, NULL);
            assert_non_null(code);
            ldxi_req *r = ldxi_required_literals(pat[p], ci);
            for (size_t l = 0; l < sizeof line / sizeof line[0]; l++) {
                size_t n = strlen(line[l]);
                bool m = pcre2_match(code, (PCRE2_SPTR)line[l], n, 0, 0, md, NULL) >= 0;
                if (m && r && !ldxi_req_pass(r, line[l], n))
                    fail_msg("gate of %s (caseless %d) turns away '%s', which it matches", pat[p], ci, line[l]);
            }
            free(r);
            pcre2_code_free(code);
        }
    }
    pcre2_match_data_free(md);
}

/* A signal's pattern runs interpreted for its first LDXI_JIT_AFTER - 1 runs, then through
 * its JIT-compiled copy (where the JIT takes it), with the same captures. */
static void test_jit_after_uses(void **state)
{
    (void)state;
    ldxi_sigc sc;
    memset(&sc, 0, sizeof sc);
    sc.pattern = "step (?<n>\\d+) loss (?<v>nan|[\\d.]+)";
    const char *line = "iter 7: step 12 loss nan";
    pcre2_code *first = ldxi_sig_code(&sc);
    assert_non_null(first);
    assert_null(sc.jcode);
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(first, NULL);
    assert_true(ldxi_sig_exec(&sc, first, line, strlen(line), 0, 0, md, NULL) > 0);
    PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
    size_t at = ov[2], end = ov[5];
    for (int i = 2; i < LDXI_JIT_AFTER; i++) assert_ptr_equal(ldxi_sig_code(&sc), first);
    assert_null(sc.jcode);
    pcre2_code *now = ldxi_sig_code(&sc);
    if (!sc.nojit) {
        assert_non_null(sc.jcode);
        assert_ptr_equal(now, sc.jcode);
        assert_ptr_not_equal(now, first);
    }
    assert_ptr_equal(ldxi_sig_code(&sc), now);
    assert_true(ldxi_sig_exec(&sc, now, line, strlen(line), 0, 0, md, NULL) > 0);
    assert_int_equal(ov[2], at);
    assert_int_equal(ov[5], end);
    assert_true(ldxi_sig_exec(&sc, now, "step x loss 1", 13, 0, 0, md, NULL) < 0);
    pcre2_match_data_free(md);
    ldxi_sig_free_code(&sc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reads),
        cmocka_unit_test(test_never_turns_away_a_match),
        cmocka_unit_test(test_jit_after_uses),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
