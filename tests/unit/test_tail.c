/* Tail signals (`tail: N`): matched on a log's last N lines only, the same way by both
 * engines, followed as a live log grows, and refused where a sequence would count them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "logdx/logdx.h"

static char *rule(const char *signals, const char *extra)
{
    char *buf = malloc(4096);
    snprintf(buf, 4096,
             "id: t-ends\ntitle: t\nclass: training_hang\nseverity: low\nsignals:\n%s%s"
             "summary: s\nsymptoms: [{symptom: a, why: b}]\nroot_cause: r\nfix: [f]\n"
             "verify: [v]\nreferences: ['https://example.org']\n"
             "examples: {match: ['step 1/9\\nstep 2/9'], no_match: [y]}\n",
             signals, extra);
    return buf;
}

/* Compiles a rule (NULL engine: the default one); *errors gets the messages. */
static ldx_ruleset *compile(const char *signals, const char *extra, const char *engine,
                            char *errors, size_t errsize)
{
    char *text = rule(signals, extra);
    ldx_ruleset *rs = compile_rules(text, strlen(text), engine, false, errors, errsize);
    free(text);
    return rs;
}

/* n progress lines "step i/100000", then the lines of after. */
static char *progress_log(int n, const char *after)
{
    size_t cap = (size_t)n * 32 + strlen(after) + 1;
    char *log = malloc(cap), *p = log;
    for (int i = 1; i <= n; i++) p += sprintf(p, "step %d/100000\n", i);
    strcpy(p, after);
    return log;
}

static const char *const signals =
    "  prog: {pattern: 'step (?<cur>\\d+)/(?<total>\\d+)', tail: 5}\n"
    "  done: {pattern: 'finished', role: context}\n";
static const char *const condition =
    "condition: count(prog) >= 2 and last(prog.cur) < last(prog.total) and not done\n";

static void test_last_lines_only(void **state)
{
    (void)state;
    const char *engines[] = {NULL, "pcre2"};
    for (int e = 0; e < 2; e++) {
        ldx_ruleset *rs = compile(signals, condition, engines[e], NULL, 0);
        assert_non_null(rs);
        /* 20 progress lines, then 4 others: the last 5 lines hold one progress line */
        char *log = progress_log(20, "a\nb\nc\nd\n");
        ldx_file_report *fr = analyze_text(rs, log);
        assert_int_equal(fr->n, 0);
        ldx_file_report_destroy(fr);
        free(log);
        /* then 2 others: three progress lines in the last 5 */
        log = progress_log(20, "a\nb\n");
        fr = analyze_text(rs, log);
        assert_int_equal(fr->n, 1);
        const ldx_diagnosis *d = &fr->diagnoses[0];
        assert_int_equal(d->hits, 3);
        /* its symptoms are all tail signals: it points at the last progress line, and
         * its evidence starts with the first one of the tail */
        assert_int_equal(d->line, 20);
        assert_true(d->nevidence >= 1);
        assert_int_equal(d->evidence[0].line, 18);
        assert_string_equal(d->evidence[0].text, "step 18/100000");
        ldx_file_report_destroy(fr);
        free(log);
        /* a whole-log signal still sees the whole log: "finished" early on */
        log = progress_log(20, "a\nb\n");
        char *with_done = malloc(strlen(log) + 16);
        sprintf(with_done, "finished\n%s", log);
        fr = analyze_text(rs, with_done);
        assert_int_equal(fr->n, 0);
        ldx_file_report_destroy(fr);
        free(with_done);
        free(log);
        /* a log shorter than the tail */
        fr = analyze_text(rs, "step 1/100\nstep 2/100\n");
        assert_int_equal(fr->n, 1);
        assert_int_equal(fr->diagnoses[0].hits, 2);
        ldx_file_report_destroy(fr);
        ldx_ruleset_destroy(rs);
    }
}

/* Many batches of the prefilter engine, threads or not: the tail is the same. */
static void test_engines_agree_on_long_logs(void **state)
{
    (void)state;
    ldx_ruleset *fast = compile(signals, condition, NULL, NULL, 0);
    ldx_ruleset *plain = compile(signals, condition, "pcre2", NULL, 0);
    assert_non_null(fast);
    assert_non_null(plain);
    char *log = progress_log(60000, "x\n"); /* ~800 KB: several 256 KiB batches */
    ldx_file_report *a = analyze_text(fast, log), *b = analyze_text(plain, log);
    assert_int_equal(a->n, 1);
    assert_int_equal(b->n, 1);
    assert_int_equal(a->diagnoses[0].hits, 4);
    assert_int_equal(b->diagnoses[0].hits, 4);
    assert_int_equal(a->diagnoses[0].line, 60000);
    assert_int_equal(b->diagnoses[0].line, 60000);
    assert_int_equal(a->diagnoses[0].evidence[0].line, 59997);
    assert_int_equal(b->diagnoses[0].evidence[0].line, 59997);
    ldx_file_report_destroy(a);
    ldx_file_report_destroy(b);
    free(log);
    ldx_ruleset_destroy(fast);
    ldx_ruleset_destroy(plain);
}

/* A scanner asked for its results while the log grows (logdx run, --follow) sees the
 * last lines of what it has read so far, each time. */
static void test_follows_a_growing_log(void **state)
{
    (void)state;
    ldx_ruleset *rs = compile(signals, condition, NULL, NULL, 0);
    ldx_scanner *s;
    assert_int_equal(ldx_scanner_create(&s, rs), LDX_OK);
    const char *lines[] = {"step 1/100", "step 2/100", "a", "b", "c", "d", "e", "step 3/100",
                           "step 4/100"};
    size_t fired_after[9];
    for (size_t i = 0; i < 9; i++) {
        ldx_line line = {.text = lines[i], .len = strlen(lines[i]), .lineno = i + 1};
        assert_int_equal(ldx_scanner_line(s, &line), LDX_OK);
        ldx_file_report *fr = NULL;
        assert_int_equal(ldx_diagnose(s, "t.log", &fr), LDX_OK);
        fired_after[i] = fr->n;
        if (i == 8) assert_int_equal(fr->diagnoses[0].hits, 2);
        ldx_file_report_destroy(fr);
    }
    /* two progress lines in the last five from line 2 to line 5; none in 7; two in 9 */
    size_t want[9] = {0, 1, 1, 1, 1, 0, 0, 0, 1};
    for (size_t i = 0; i < 9; i++) assert_int_equal(fired_after[i], want[i]);
    ldx_scanner_destroy(s);
    ldx_ruleset_destroy(rs);
}

/* A line the rule's whole-log signals already counted is not counted again. */
static void test_hits_count_lines_once(void **state)
{
    (void)state;
    ldx_ruleset *rs = compile("  prog: {pattern: 'step \\d+/\\d+', tail: 3}\n"
                              "  word: {pattern: 'step'}\n",
                              "", NULL, NULL, 0);
    assert_non_null(rs);
    ldx_file_report *fr = analyze_text(rs, "step one\nstep 1/9\nstep two\nstep 2/9\nx\nstep 3/9\n");
    assert_int_equal(fr->n, 1);
    assert_int_equal(fr->diagnoses[0].hits, 5); /* every line with "step" */
    ldx_file_report_destroy(fr);
    ldx_ruleset_destroy(rs);
}

/* A where holds for tail signals as for the others, and a line counts once where the
 * whole-log signal's pattern matched it but its where did not. */
static void test_where(void **state)
{
    (void)state;
    const char *engines[] = {NULL, "pcre2"};
    for (int e = 0; e < 2; e++) {
        ldx_ruleset *rs = compile("  prog: {pattern: 'step (?<cur>\\d+)/(?<total>\\d+)', tail: 5,"
                                  " where: cur < total}\n"
                                  "  word: {pattern: 'step (?<k>\\d+)/', where: k >= 3}\n",
                                  "", engines[e], NULL, 0);
        assert_non_null(rs);
        ldx_file_report *fr = analyze_text(rs, "step 1/9\nstep 2/9\nstep 3/9\nstep 9/9\nx\n");
        assert_int_equal(fr->n, 1);
        /* prog: steps 1, 2, 3; word: 3 and 9; every line with a step once */
        assert_int_equal(fr->diagnoses[0].hits, 4);
        ldx_file_report_destroy(fr);
        ldx_ruleset_destroy(rs);
    }
}

/* Long lines: a tail signal sees the first LDX_TAIL_TEXT bytes of each. */
static void test_long_lines_are_cut(void **state)
{
    (void)state;
    ldx_ruleset *rs = compile("  prog: {pattern: 'step \\d+/\\d+', tail: 3}\n", "", NULL, NULL, 0);
    assert_non_null(rs);
    size_t pad = LDX_TAIL_TEXT;
    char *log = malloc(2 * pad + 64);
    memset(log, 'x', pad);
    strcpy(log + pad, "step 1/9\n");
    ldx_file_report *fr = analyze_text(rs, log);
    assert_int_equal(fr->n, 0);
    ldx_file_report_destroy(fr);
    strcpy(log, "step 1/9 ");
    memset(log + 9, 'x', pad);
    strcpy(log + 9 + pad, "\n");
    fr = analyze_text(rs, log);
    assert_int_equal(fr->n, 1);
    ldx_file_report_destroy(fr);
    free(log);
    ldx_ruleset_destroy(rs);
}

static void test_bad_tails_are_errors(void **state)
{
    (void)state;
    char err[2048];
    const char *bad[] = {"0", "1001", "ten", "[5]", "-3", "2.5"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char sig[128];
        snprintf(sig, sizeof sig, "  prog: {pattern: 'step', tail: %s}\n", bad[i]);
        assert_null(compile(sig, "", NULL, err, sizeof err));
        if (!strstr(err, "t.yaml:6:") || !strstr(err, "tail must be a number of lines from 1 to 1000"))
            fail_msg("tail: %s: %s", bad[i], err);
    }
    /* a sequence cannot count a tail signal: it is matched after the rest */
    assert_null(compile("  a: {pattern: 'ALPHA'}\n  b: {pattern: 'BETA', tail: 10}\n",
                        "condition: then(a, b, 5 lines) >= 1\n", NULL, err, sizeof err));
    if (!strstr(err, "then() cannot use signal 'b': it has a tail")) fail_msg("%s", err);
    assert_null(compile("  a: {pattern: 'ALPHA', tail: 10}\n  b: {pattern: 'BETA'}\n",
                        "condition: a and after(b, a) >= 1\n", NULL, err, sizeof err));
    if (!strstr(err, "t.yaml:8:18: error: condition: after() cannot use signal 'a'")) fail_msg("%s", err);
}

int main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    setenv("LOGDX_NO_CACHE", "1", 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_last_lines_only),
        cmocka_unit_test(test_engines_agree_on_long_logs),
        cmocka_unit_test(test_follows_a_growing_log),
        cmocka_unit_test(test_hits_count_lines_once),
        cmocka_unit_test(test_where),
        cmocka_unit_test(test_long_lines_are_cut),
        cmocka_unit_test(test_bad_tails_are_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
