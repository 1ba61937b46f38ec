/* Differential test of the two scan engines: the prefilter one (Vectorscan, then PCRE2
 * on hit lines) and the plain one (PCRE2 on every line) must produce identical
 * diagnoses on every rule example of the built-in set and on every corpus log
 * (../shared/corpus/dev, passed as argv[1] when present), and on patterns known to
 * disturb each other inside Vectorscan. tests/engines.sh compares whole logs. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "logdx/logdx.h"
#include "../../src/scan/scan_int.h" /* to switch a rule off where a test says */
#include "../../src/plumbing.h"

static ldx_ruleset *fast, *plain;
static const char *corpus_dir;

static ldx_ruleset *load(const char *engine) { return compile_rules(NULL, 0, engine, false, NULL, 0); }

/* Scans data with rs on `threads` threads, profiled when asked: the report, and the
 * scanner in *keep when it is given (the caller destroys it). */
static ldx_file_report *scan_with(const ldx_ruleset *rs, const char *data, size_t len, int threads,
                                  bool profile, ldx_scanner **keep)
{
    ldx_scanner *s;
    assert_int_equal(ldx_scanner_create(&s, rs), LDX_OK);
    ldx_scanner_set_threads(s, threads);
    ldxi_scanner_set_profile(s, profile);
    ldx_reader *r;
    assert_int_equal(ldx_reader_open_mem(&r, data, len, "t"), LDX_OK);
    ldx_file_report *fr = NULL;
    ldx_analyze(s, r, &fr);
    ldx_reader_destroy(r);
    if (keep) *keep = s;
    else ldx_scanner_destroy(s);
    return fr;
}

static ldx_file_report *run(const ldx_ruleset *rs, const char *data, size_t len)
{
    return scan_with(rs, data, len, 1, false, NULL);
}

/* Compares two reports field by field; returns a description of the first difference. */
static const char *differ(const ldx_file_report *a, const ldx_file_report *b)
{
    static char why[512];
    if (a->lines != b->lines) return "line count";
    if (a->n != b->n) {
        snprintf(why, sizeof why, "%zu vs %zu diagnoses", a->n, b->n);
        return why;
    }
    for (size_t i = 0; i < a->n; i++) {
        const ldx_diagnosis *x = &a->diagnoses[i], *y = &b->diagnoses[i];
        snprintf(why, sizeof why, "diagnosis %zu (%s / %s)", i, x->rule->id, y->rule->id);
        if (strcmp(x->rule->id, y->rule->id) || x->line != y->line || x->rank != y->rank ||
            x->hits != y->hits || x->confidence != y->confidence || x->role != y->role ||
            x->nevidence != y->nevidence || x->ntrends != y->ntrends || x->nranks != y->nranks ||
            (x->nranks && memcmp(x->ranks, y->ranks, x->nranks * sizeof *x->ranks)))
            return why;
        for (size_t e = 0; e < x->nevidence; e++)
            if (x->evidence[e].line != y->evidence[e].line || x->evidence[e].rank != y->evidence[e].rank ||
                strcmp(x->evidence[e].text, y->evidence[e].text) ||
                strcmp(x->evidence[e].signal, y->evidence[e].signal))
                return why;
    }
    return NULL;
}

/* The prefilter engine as it goes, and with collapsed templates from the first line
 * (src/scan/memo.h; as it goes, a short input never makes them), against PCRE2 alone. */
static void compare(const char *name, const char *data, size_t len, size_t *n)
{
    ldx_file_report *b = run(plain, data, len);
    assert_non_null(b);
    for (int mode = 0; mode < 2; mode++) {
        if (mode) setenv("LOGDX_MEMO_COLLAPSE", "always", 1);
        ldx_file_report *a = run(fast, data, len);
        unsetenv("LOGDX_MEMO_COLLAPSE");
        assert_non_null(a);
        const char *d = differ(a, b);
        if (d) fail_msg("%s: engines differ%s: %s", name, mode ? " (collapsed templates)" : "", d);
        ldx_file_report_destroy(a);
    }
    ldx_file_report_destroy(b);
    (*n)++;
}

static void test_rule_examples(void **state)
{
    (void)state;
    size_t n = 0;
    for (size_t i = 0; i < ldx_ruleset_count(fast); i++) {
        const ldx_rule_info *r = ldx_ruleset_rule(fast, i);
        const ldx_strv *lists[2] = {&r->ex_match, &r->ex_no_match};
        for (int l = 0; l < 2; l++)
            for (size_t e = 0; e < lists[l]->n; e++)
                compare(r->id, lists[l]->v[e], strlen(lists[l]->v[e]), &n);
    }
    print_message("compared %zu rule examples\n", n);
    assert_true(n > 300);
}

static void test_corpus_logs(void **state)
{
    (void)state;
    if (!corpus_dir) skip();
    DIR *d = opendir(corpus_dir);
    if (!d) skip();
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l < 5 || strcmp(e->d_name + l - 4, ".log")) continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", corpus_dir, e->d_name);
        FILE *f = fopen(path, "rb");
        if (!f) continue;
        fseek(f, 0, SEEK_END);
        long sz = ftell(f);
        rewind(f);
        char *buf = malloc((size_t)sz + 1);
        size_t got = fread(buf, 1, (size_t)sz, f);
        fclose(f);
        compare(e->d_name, buf, got, &n);
        free(buf);
    }
    closedir(d);
    print_message("compared %zu corpus logs\n", n);
}

/* Every signal's match count on data, profiled, into counts (rule-major, signal by
 * signal). */
static void signal_matches(const ldx_ruleset *rs, const char *data, size_t len, uint64_t *counts)
{
    ldx_scanner *s;
    ldx_file_report *fr = scan_with(rs, data, len, 1, true, &s);
    size_t k = 0;
    for (size_t i = 0; i < ldx_ruleset_count(rs); i++)
        for (size_t j = 0; j < ldx_ruleset_rule(rs, i)->nsignals; j++) {
            ldxi_rule_cost c;
            ldxi_scanner_signal_cost(s, i, j, &c);
            counts[k++] = c.matches;
        }
    ldx_file_report_destroy(fr);
    ldx_scanner_destroy(s);
}

/* One pattern can disturb another inside Vectorscan when their lines share a batch (see
 * test_anchored_patterns); which lines meet depends on the order. Every example line of
 * every rule, in ORDERS shuffled orders as one input: each signal must find as many
 * matches with the prefilter as PCRE2 finds alone. (With the anchors given back to the
 * database and the build-time batch check off, the Megatron iteration pattern lost a
 * line in the fifth order.) Every other order has each run of digits replaced by one of
 * random length (1 to 7 digits) and is matched with collapsed templates from the first
 * line: what their database and widenings promise (src/rules/digits.c), on the lines
 * the rules were written for. */
#define ORDERS 20
static void test_shuffled_examples(void **state)
{
    (void)state;
    size_t nlines = 0, cap = 0, bytes = 0, nsig = 0;
    struct piece {
        const char *p;
        size_t n;
    } *lines = NULL;
    for (size_t i = 0; i < ldx_ruleset_count(fast); i++) {
        const ldx_rule_info *r = ldx_ruleset_rule(fast, i);
        nsig += r->nsignals;
        const ldx_strv *lists[2] = {&r->ex_match, &r->ex_no_match};
        for (int l = 0; l < 2; l++)
            for (size_t e = 0; e < lists[l]->n; e++)
                for (const char *p = lists[l]->v[e]; *p;) {
                    const char *nl = strchr(p, '\n');
                    size_t n = nl ? (size_t)(nl - p) : strlen(p);
                    if (nlines == cap) {
                        cap = cap ? 2 * cap : 1024;
                        lines = realloc(lines, cap * sizeof *lines);
                        assert_non_null(lines);
                    }
                    lines[nlines++] = (struct piece){p, n};
                    bytes += n + 1;
                    p += n + (nl != NULL);
                }
    }
    char *log = malloc(bytes * 7); /* a digit may become seven */
    uint64_t *a = calloc(nsig, sizeof *a), *b = calloc(nsig, sizeof *b);
    assert_non_null(log);
    assert_non_null(a);
    assert_non_null(b);
    uint64_t seed = 88172645463325252ull;
    for (int round = 0; round < ORDERS; round++) {
        for (size_t i = nlines; i > 1; i--) { /* Fisher-Yates with xorshift64 */
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            size_t j = (size_t)(seed % i);
            struct piece t = lines[i - 1];
            lines[i - 1] = lines[j];
            lines[j] = t;
        }
        bool reshape = round % 2 == 1;
        size_t len = 0;
        for (size_t i = 0; i < nlines; i++) {
            for (size_t k = 0; k < lines[i].n; k++) {
                char c = lines[i].p[k];
                bool digit = c >= '0' && c <= '9';
                if (!reshape || !digit) {
                    log[len++] = c;
                    continue;
                }
                while (k + 1 < lines[i].n && lines[i].p[k + 1] >= '0' && lines[i].p[k + 1] <= '9') k++;
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                for (unsigned d = 0, m = 1 + (unsigned)(seed % 7); d < m; d++)
                    log[len++] = (char)('0' + (seed >> (8 + 3 * d)) % 10);
            }
            log[len++] = '\n';
        }
        if (reshape) setenv("LOGDX_MEMO_COLLAPSE", "always", 1);
        signal_matches(fast, log, len, a);
        unsetenv("LOGDX_MEMO_COLLAPSE");
        signal_matches(plain, log, len, b);
        size_t k = 0;
        for (size_t i = 0; i < ldx_ruleset_count(fast); i++)
            for (size_t j = 0; j < ldx_ruleset_rule(fast, i)->nsignals; j++, k++)
                if (a[k] != b[k])
                    fail_msg("round %d%s: %s.%s: %llu matches with the prefilter, %llu with PCRE2 alone",
                             round, reshape ? " (numbers reshaped, collapsed templates)" : "",
                             ldx_ruleset_rule(fast, i)->id,
                             ldx_ruleset_rule(fast, i)->signals[j].name,
                             (unsigned long long)a[k], (unsigned long long)b[k]);
    }
    print_message("compared %zu signals on %zu example lines, %d orders\n", nsig, nlines, ORDERS);
    free(a);
    free(b);
    free(log);
    free(lines);
}

/* Vectorscan 5.4.9 loses matches of a line-anchored pattern when another one is in the
 * database and a line of spaced digits comes before (see src/rules/pform.c). The
 * database never gets anchors; given them anyway, the check of every compiled database
 * against its rules' examples scanned as one batch must catch the loss (the examples
 * below show it), so that the prefilter still finds every line PCRE2 does. The near
 * misses keep both patterns patterns: as plain strings ("iteration") they would carry
 * no anchor, and nothing would be left to catch. */
static const char anchored_rule[] =
    "id: anchored-pair\ntitle: t\nclass: training_hang\nseverity: low\n"
    "signals:\n"
    "  task:\n    pattern: '^[ \\t]*(?<task>/job:jax_worker/replica:\\d+/task:\\d+)\\s*$'\n"
    "  iteration:\n    pattern: '^ *iteration\\s+\\d+/\\s*\\d+ \\|'\n"
    "condition: count(iteration) >= 1\n"
    "summary: s\nsymptoms:\n  - {symptom: x, why: y}\nroot_cause: r\nfix: [f]\n"
    "verify: [v]\nreferences: [https://example.com]\n"
    "examples:\n  match:\n    - |\n      NCCL INFO Channel 00/08 :\n       3  4   5   6   7\n"
    "       iteration        23/  100000 | lm loss: 8.3\n"
    "  no_match:\n    - /job:jax_worker/replica:0/task:1 and more\n"
    "    - iteration timing printed without a counter\n";

/* One rule from text, compiled for the engine (NULL: the default); with anchors, the
 * database gets them (see above). */
static ldx_ruleset *load_rule(const char *text, size_t len, const char *engine, bool anchors)
{
    ldx_ruleset *rs = compile_rules(text, len, engine, anchors, NULL, 0);
    assert_non_null(rs);
    return rs;
}

static ldx_ruleset *load_anchored(const char *engine)
{
    return load_rule(anchored_rule, sizeof anchored_rule - 1, engine, true);
}

static void test_anchored_patterns(void **state)
{
    (void)state;
    ldx_ruleset *a = load_anchored(NULL), *b = load_anchored("pcre2");
    static const char piece[] = "gpu-node-04:41236:41350 [6] NCCL INFO Channel 04/08 :    0   1"
                                "   2   3   4   5   6   7\n iteration       88/  100000 | \n";
    size_t reps = 200, len = (sizeof piece - 1) * reps;
    char *log = malloc(len);
    assert_non_null(log);
    for (size_t i = 0; i < reps; i++) memcpy(log + i * (sizeof piece - 1), piece, sizeof piece - 1);
    ldx_file_report *x = run(a, log, len), *y = run(b, log, len);
    assert_non_null(x);
    assert_non_null(y);
    assert_int_equal(y->n, 1);
    assert_int_equal(y->diagnoses[0].hits, reps);
    const char *d = differ(x, y);
    if (d) fail_msg("engines differ on line-anchored patterns: %s", d);
    ldx_file_report_destroy(x);
    ldx_file_report_destroy(y);
    free(log);
    ldx_ruleset_destroy(a);
    ldx_ruleset_destroy(b);
}

/* Patterns anchored at a line's start match the text a program printed after the prefix
 * a launcher or collector put before it (src/scan/body.c): a digit-blind one, one that
 * reads a number (its capture and where on the body, its template's widening asked on
 * the body too), under prefixes whose digits vary in length (the memo's templates and
 * collapsed templates), and lines where the pattern's text is not at the body's start.
 * Both engines count what is expected, with and without collapsed templates from the
 * first line. */
static const char prefixed_rule[] =
    "id: prefixed\ntitle: t\nclass: host_oom_killed\nseverity: low\n"
    "signals:\n"
    "  killed: {pattern: '^Killed$'}\n"
    "  loss: {pattern: '^\\s*loss (?<v>\\d+\\.\\d+)$', where: v >= 2}\n"
    "  frame: {pattern: '^  File \"(?<f>[^\"]+)\", line \\d+', role: context}\n"
    "condition: killed and rising(loss.v, 3)\n"
    "summary: s\nsymptoms:\n  - {symptom: x, why: y}\nroot_cause: r\nfix: [f]\n"
    "verify: [v]\nreferences: [https://example.com]\n"
    "examples:\n  match:\n    - |\n      loss 2.5\n      loss 2.6\n      loss 2.7\n      Killed\n"
    "  no_match:\n    - not Killed\n";

static void test_prefixed_lines(void **state)
{
    (void)state;
    ldx_ruleset *a = load_rule(prefixed_rule, sizeof prefixed_rule - 1, NULL, false);
    ldx_ruleset *b = load_rule(prefixed_rule, sizeof prefixed_rule - 1, "pcre2", false);
    size_t n = 60000, cap = n * 64, at = 0;
    char *log = malloc(cap);
    assert_non_null(log);
    uint64_t want[3] = {0, 0, 0};
    for (size_t i = 0; i < n; i++) {
        char pre[48];
        switch (i % 6) { /* digits of every length in the prefixes */
        case 0: snprintf(pre, sizeof pre, "[rank%zu]: ", i % 1000); break;
        case 1: snprintf(pre, sizeof pre, "%zu: ", i % 97); break;
        case 2: snprintf(pre, sizeof pre, "2024-05-%02zuT10:%02zu:00.%zuZ ", 1 + i % 28, i % 60, i); break;
        case 3: snprintf(pre, sizeof pre, "trainer-%zu  | ", i % 12); break;
        case 4: snprintf(pre, sizeof pre, "(RayTrainWorker pid=%zu, ip=10.0.0.%zu) ", 4000 + i, i % 250); break;
        default: pre[0] = 0; break;
        }
        switch (i % 5) {
        case 0: at += (size_t)snprintf(log + at, cap - at, "%sKilled\n", pre); want[0]++; break;
        case 1: /* loss from 0.00 up: the where holds from 2 on */
            at += (size_t)snprintf(log + at, cap - at, "%s loss %zu.%02zu\n", pre, i / 10000, i % 100);
            want[1] += i / 10000 >= 2;
            break;
        case 2: at += (size_t)snprintf(log + at, cap - at, "%s  File \"t%zu.py\", line %zu, in f\n", pre, i % 9, i);
            want[2]++;
            break;
        case 3: at += (size_t)snprintf(log + at, cap - at, "%sprocess Killed\n", pre); break; /* not at the start */
        default: at += (size_t)snprintf(log + at, cap - at, "%s[x] loss 9.5 Killed\n", pre); break; /* no prefix */
        }
    }
    for (int mode = 0; mode < 2; mode++) {
        if (mode) setenv("LOGDX_MEMO_COLLAPSE", "always", 1);
        uint64_t ca[3], cb[3];
        signal_matches(a, log, at, ca);
        signal_matches(b, log, at, cb);
        unsetenv("LOGDX_MEMO_COLLAPSE");
        for (int k = 0; k < 3; k++) {
            if (cb[k] != want[k]) fail_msg("signal %d: PCRE2 alone %llu, expected %llu", k,
                                           (unsigned long long)cb[k], (unsigned long long)want[k]);
            if (ca[k] != want[k]) fail_msg("signal %d: the memo %llu, expected %llu%s", k,
                                           (unsigned long long)ca[k], (unsigned long long)want[k],
                                           mode ? " (collapsed templates)" : "");
        }
    }
    ldx_file_report *x = scan_with(a, log, at, 2, false, NULL), *y = scan_with(b, log, at, 1, false, NULL);
    assert_int_equal(y->n, 1);
    const char *d = differ(x, y);
    if (d) fail_msg("engines differ on prefixed lines: %s", d);
    /* the evidence's captures are the whole line's: the loss read is the number */
    assert_int_equal(y->diagnoses[0].ntrends, 1);
    assert_true(y->diagnoses[0].trends[0].first >= 2 && y->diagnoses[0].trends[0].last >= 5 &&
                y->diagnoses[0].trends[0].last < 6);
    ldx_file_report_destroy(x);
    ldx_file_report_destroy(y);
    free(log);
    ldx_ruleset_destroy(a);
    ldx_ruleset_destroy(b);
}

/* The line memo (src/scan/memo.c): lines that differ only in their digits share a
 * template, and the prefilter engine reuses the first one's result for the rest. A
 * rule with a digit-blind signal whose values it follows, and signals that look at
 * digits (a digit class, a negative lookahead over a digit, literal digits), signals
 * whose where tests a number (one sharing another's pattern), over a
 * log of a few templates whose lines do and do not match them, across several batches
 * and with two threads: every signal must count what PCRE2 alone counts, and the trend
 * read from the remembered capture offsets must hold the same values. */
static const char template_rule[] =
    "id: t-templates\ntitle: t\nclass: training_hang\nseverity: low\n"
    "signals:\n"
    "  loss: {pattern: 'loss=(?<v>\\d+\\.\\d+)'}\n"
    "  code: {pattern: 'exit code (?<code>13[7-9])\\b'}\n"
    "  rc: {pattern: 'rc=(?!0\\b)(?<rc>-?\\d+)', role: context}\n"
    "  skip: {pattern: 'skipped: (?<n>[1-9]\\d*)', role: context}\n"
    /* the same lines by a where: a digit-blind pattern whose number decides; and loss's
     * own pattern (one PCRE2 run for both) with a where its template's first line fails */
    "  skipw: {pattern: 'skipped: (?<n>\\d+)', where: n >= 1, role: context}\n"
    "  big: {pattern: 'loss=(?<v>\\d+\\.\\d+)', where: v >= 100 and v < 1e9, role: context}\n"
    /* and a copy of it, which takes its where's answer */
    "  big2: {pattern: 'loss=(?<v>\\d+\\.\\d+)', where: v >= 100 and v < 1e9, role: context}\n"
    "condition: rising(loss.v, 3) and count(code) >= 1\n"
    "summary: s\nsymptoms:\n  - {symptom: x, why: y}\nroot_cause: r\nfix: [f]\n"
    "verify: [v]\nreferences: [https://example.com]\n"
    "examples:\n  match:\n    - |\n      step 1 loss=0.50 rc=1\n      step 2 loss=0.70 rc=0\n"
    "      step 3 loss=0.90 rc=-1\n      job 2 exit code 137\n"
    "  no_match:\n    - job 2 exit code 130\n";

#define NSIG 7 /* template_rule's signals */

static ldx_ruleset *load_templates(const char *engine)
{
    return load_rule(template_rule, sizeof template_rule - 1, engine, false);
}

static ldx_file_report *run_threads(const ldx_ruleset *rs, const char *data, size_t len, int threads)
{
    return scan_with(rs, data, len, threads, false, NULL);
}

/* n lines of four kinds, a step line with a value the rule follows, an exit code, a
 * skipped count, a plain one: a few templates, unless own_word(i) puts a word of its
 * own in front of line i. */
static char *template_log(size_t n, bool (*own_word)(size_t i), size_t *len)
{
    size_t cap = n * 48, at = 0;
    char *log = malloc(cap);
    assert_non_null(log);
    unsigned seed = 3;
    for (size_t i = 0; i < n; i++) {
        char word[8] = "";
        for (int k = 0; own_word && own_word(i) && k < 6; k++) {
            seed = seed * 1103515245u + 12345u;
            word[k] = (char)('a' + (seed >> 16) % 26);
            word[k + 1] = ' ';
            word[k + 2] = 0;
        }
        switch (i % 4) {
        case 0:
            at += (size_t)snprintf(log + at, cap - at, "%sstep %zu loss=%zu.%02zu rc=%d\n", word, i, i / 100,
                                   i % 100, (int)(i % 3) - 1);
            break;
        case 1: at += (size_t)snprintf(log + at, cap - at, "%sjob %zu exit code %zu\n", word, i % 7, 130 + i % 10); break;
        case 2: at += (size_t)snprintf(log + at, cap - at, "%sskipped: %zu\n", word, i % 3); break;
        default: at += (size_t)snprintf(log + at, cap - at, "%splain %zu\n", word, i); break;
        }
    }
    *len = at;
    return log;
}

/* 72000 lines (about 6 batches) that do not repeat, 400000 that do (about 35 batches:
 * the memo is judged on 4 batches, rests 16 after a failed try, then comes back), 48000
 * that do not. */
static bool at_the_ends(size_t i) { return i < 72000 || i >= 472000; }

/* The memo's engine (a) against PCRE2 alone (b) on log: every signal's match count
 * (PCRE2 alone's into cb), and the diagnoses with one thread and with two; with trends,
 * the values of every trend too. PCRE2 alone's report is returned. */
static ldx_file_report *like_pcre2_alone(const ldx_ruleset *a, const ldx_ruleset *b, const char *log,
                                         size_t len, const char *what, uint64_t *cb, bool trends)
{
    uint64_t ca[NSIG];
    signal_matches(a, log, len, ca);
    signal_matches(b, log, len, cb);
    for (int k = 0; k < NSIG; k++)
        if (ca[k] != cb[k]) fail_msg("signal %d: %llu matches with the memo, %llu PCRE2 alone", k,
                                     (unsigned long long)ca[k], (unsigned long long)cb[k]);
    ldx_file_report *y = run_threads(b, log, len, 1);
    for (int threads = 1; threads <= 2; threads++) {
        ldx_file_report *x = run_threads(a, log, len, threads);
        const char *d = differ(x, y);
        if (d) fail_msg("%d thread(s): engines differ on %s: %s", threads, what, d);
        for (size_t i = 0; trends && i < y->n; i++)
            for (size_t k = 0; k < y->diagnoses[i].ntrends; k++) {
                const ldx_trend *tx = &x->diagnoses[i].trends[k], *ty = &y->diagnoses[i].trends[k];
                assert_int_equal(tx->points, ty->points);
                assert_int_equal(tx->nvalues, ty->nvalues);
                assert_true(tx->first == ty->first && tx->last == ty->last);
                assert_memory_equal(tx->values, ty->values, ty->nvalues * sizeof(double));
            }
        ldx_file_report_destroy(x);
    }
    return y;
}

static void test_templates(void **state)
{
    (void)state;
    ldx_ruleset *a = load_templates(NULL), *b = load_templates("pcre2");
    size_t n = 40000, len;
    char *log = template_log(n, NULL, &len);
    uint64_t cb[NSIG];
    ldx_file_report *y = like_pcre2_alone(a, b, log, len, "lines that share templates", cb, true);
    assert_int_equal(cb[0], n / 4);              /* loss */
    assert_int_equal(cb[1], n / 4 * 2 / 5);      /* 137 and 139 of 131, 135, 139, 133, 137 */
    assert_true(cb[2] > 0 && cb[2] < n / 4);     /* rc other than 0 */
    assert_true(cb[3] > 0 && cb[3] < n / 4);     /* skipped 1 or 2 */
    assert_int_equal(cb[4], cb[3]);              /* the same, by a where */
    assert_int_equal(cb[5], (n - 10000) / 4);    /* loss >= 100: from step 10000 */
    assert_int_equal(cb[6], cb[5]);
    assert_int_equal(y->n, 1);
    assert_int_equal(y->diagnoses[0].ntrends, 1);
    ldx_file_report_destroy(y);
    free(log);
    ldx_ruleset_destroy(a);
    ldx_ruleset_destroy(b);
}

/* A log whose lines do not repeat (a word of its own on each), then does, then does not:
 * the memo rests where it knows too few lines (the batches are scanned as they stand)
 * and comes back; matches and diagnoses stay what PCRE2 alone finds. */
static void test_lines_that_do_not_repeat(void **state)
{
    (void)state;
    ldx_ruleset *a = load_templates(NULL), *b = load_templates("pcre2");
    size_t n = 520000, len;
    char *log = template_log(n, at_the_ends, &len);
    uint64_t cb[NSIG];
    ldx_file_report *y = like_pcre2_alone(a, b, log, len, "lines that do not repeat", cb, false);
    /* and the memo did rest, then came back: it knew most of the repeating lines only */
    ldx_scanner *s;
    ldx_file_report *fr = scan_with(a, log, len, 1, true, &s);
    ldxi_prefilter_cost pc;
    ldxi_scanner_prefilter_cost(s, &pc);
    assert_int_equal(pc.lines, n);
    if (pc.known < n / 6 || pc.known > n * 6 / 10)
        fail_msg("the memo knew %llu of %zu lines", (unsigned long long)pc.known, n);
    ldx_file_report_destroy(fr);
    ldx_scanner_destroy(s);
    ldx_file_report_destroy(y);
    free(log);
    ldx_ruleset_destroy(a);
    ldx_ruleset_destroy(b);
}

/* A matched line's rank, with lines of one template that do and do not name one: a
 * rank prefix of seven digits, 1234567 too big to be a rank (and the first line with a
 * match), and lines without a prefix. The memo asks the template whether its lines
 * may name a rank; each line's own rank must still be what PCRE2 alone reports. */
static const char rank_rule[] =
    "id: t-ranks\ntitle: t\nclass: training_hang\nseverity: low\n"
    "signals:\n  nan: {pattern: 'loss (?<v>nan|inf) at step'}\n"
    "condition: count(nan) >= 1\n"
    "summary: s\nsymptoms:\n  - {symptom: x, why: y}\nroot_cause: r\nfix: [f]\n"
    "verify: [v]\nreferences: [https://example.com]\n"
    "examples:\n  match:\n    - '[rank3]: loss nan at step 4'\n  no_match:\n    - loss 0.5 at step 4\n";

static void test_ranks(void **state)
{
    (void)state;
    ldx_ruleset *a = load_rule(rank_rule, sizeof rank_rule - 1, NULL, false),
                *b = load_rule(rank_rule, sizeof rank_rule - 1, "pcre2", false);
    size_t n = 40000, cap = n * 48, len = 0;
    char *log = malloc(cap);
    assert_non_null(log);
    for (size_t i = 0; i < n; i++) {
        if (i % 3 == 2) /* no prefix: its template names no rank */
            len += (size_t)snprintf(log + len, cap - len, "loss %s at step %05zu\n", i % 2 ? "inf" : "nan", i);
        else
            len += (size_t)snprintf(log + len, cap - len, "[rank%07zu]: loss %s at step %05zu\n",
                                    i % 9 == 0 ? (size_t)1234567 : i % 8, i % 5 ? "nan" : "inf", i);
    }
    ldx_file_report *y = run_threads(b, log, len, 1);
    assert_int_equal(y->n, 1);
    assert_int_equal(y->diagnoses[0].rank, -1); /* the first line: 1234567 is no rank */
    assert_int_equal(y->diagnoses[0].nranks, 8);
    for (int threads = 1; threads <= 2; threads++) {
        ldx_file_report *x = run_threads(a, log, len, threads);
        const char *d = differ(x, y);
        if (d) fail_msg("%d thread(s): engines differ on ranks: %s", threads, d);
        ldx_file_report_destroy(x);
    }
    ldx_file_report_destroy(y);
    free(log);
    ldx_ruleset_destroy(a);
    ldx_ruleset_destroy(b);
}

/* A signal's last hit is kept as the line's bytes until the results are asked for (the
 * batch it lay in is reused long before): its evidence must still show that line and
 * its capture, whether many batches follow it, it is a line too long to keep so (made
 * at once), or the last one of all. */
static const char last_rule[] =
    "id: t-last\ntitle: t\nclass: training_hang\nseverity: low\n"
    "signals:\n  err: {pattern: 'ERR (?<code>E\\d+) at'}\n  long: {pattern: 'LONG (?<w>\\w+)'}\n"
    "condition: count(err) >= 1 and count(long) >= 1\n"
    "summary: s\nsymptoms:\n  - {symptom: x, why: y}\nroot_cause: r\nfix: [f]\n"
    "verify: [v]\nreferences: [https://example.com]\n"
    "examples:\n  match:\n    - |\n      ERR E1 at x\n      LONG y\n  no_match:\n    - ok\n";

static const ldx_evidence *last_of(const ldx_diagnosis *d, const char *signal)
{
    const ldx_evidence *last = NULL;
    for (size_t e = 0; e < d->nevidence; e++)
        if (!strcmp(d->evidence[e].signal, signal) && (!last || d->evidence[e].line > last->line))
            last = &d->evidence[e];
    assert_non_null(last);
    return last;
}

static void test_last_hits(void **state)
{
    (void)state;
    ldx_ruleset *a = load_rule(last_rule, sizeof last_rule - 1, NULL, false),
                *b = load_rule(last_rule, sizeof last_rule - 1, "pcre2", false);
    size_t n = 60000, cap = n * 40 + 8192, len = 0;
    char *log = malloc(cap);
    assert_non_null(log);
    for (size_t i = 0; i < n; i++) {
        if (i % 1000 == 7 && i < 30000) /* the last of these is 29007: a dozen batches before the end */
            len += (size_t)snprintf(log + len, cap - len, "step %zu: ERR E%zu at node-%zu\n", i, i, i % 5);
        else if (i == 40000) { /* a line too long to keep as bytes, the last of its signal */
            len += (size_t)snprintf(log + len, cap - len, "LONG word%zu ", i);
            memset(log + len, 'x', 5000);
            len += 5000;
            log[len++] = '\n';
        } else if (i == 100)
            len += (size_t)snprintf(log + len, cap - len, "LONG first\n");
        else
            len += (size_t)snprintf(log + len, cap - len, "step %zu: all well\n", i);
    }
    for (int engine = 0; engine < 2; engine++)
        for (int threads = 1; threads <= 2; threads++) {
            ldx_file_report *x = run_threads(engine ? b : a, log, len, threads);
            assert_int_equal(x->n, 1);
            const ldx_evidence *e = last_of(&x->diagnoses[0], "err"), *l = last_of(&x->diagnoses[0], "long");
            assert_int_equal(e->line, 29008);
            assert_string_equal(e->text, "step 29007: ERR E29007 at node-2");
            assert_int_equal(e->ncaps, 1);
            assert_string_equal(e->caps[0].value, "E29007");
            assert_int_equal(l->line, 40001);
            assert_memory_equal(l->text, "LONG word40000 xxxx", 19);
            assert_string_equal(l->caps[0].value, "word40000");
            ldx_file_report_destroy(x);
        }
    free(log);
    ldx_ruleset_destroy(a);
    ldx_ruleset_destroy(b);
}

/* Twins (src/scan/twins.c): a rule copied under another id has signals with its
 * pattern, where and captures, which record as one until one of the two rules is
 * switched off (over its time budget: here at a line the test picks). Each rule's
 * diagnosis must be what PCRE2 alone, which records every signal on its own, reports,
 * whichever of the two goes off, with the results asked for midway too (a live scan). */
static const char twin_rule[] =
    "id: %s\ntitle: t\nclass: training_hang\nseverity: low\n"
    "signals:\n  err: {pattern: 'ERR (?<code>E\\d+) at (?<node>\\S+) loss (?<v>\\d+\\.\\d+)'}\n"
    "  other: {pattern: 'WARN (?<w>\\w+)', role: context}\n"
    "condition: count(err) >= 1 and rising(err.v, 3)\n"
    "summary: s\nsymptoms:\n  - {symptom: x, why: y}\nroot_cause: r\nfix: [f]\n"
    "verify: [v]\nreferences: [https://example.com]\n"
    "examples:\n  match:\n    - |\n      ERR E1 at n1 loss 1.0\n      ERR E1 at n1 loss 2.0\n"
    "      ERR E1 at n1 loss 3.0\n      ERR E1 at n1 loss 4.0\n  no_match:\n    - ok\n";

static ldx_ruleset *load_twins(const char *engine)
{
    char a[2048], b[2048];
    snprintf(a, sizeof a, twin_rule, "t-head");
    snprintf(b, sizeof b, twin_rule, "t-twin");
    const char *names[] = {"t-head.yaml", "t-twin.yaml"}, *texts[] = {a, b};
    ldx_ruleset *rs = compile_rule_texts(names, texts, NULL, 2, engine, false, NULL, 0);
    assert_non_null(rs);
    return rs;
}

/* Scans log line by line; at line `off_at` (0: never) rule `off` is switched off, the
 * results having been asked for just before; at `ask_at` they are asked for too. */
static ldx_file_report *scan_switching(const ldx_ruleset *rs, const char *log, size_t len, size_t off_at,
                                       const char *off, size_t ask_at)
{
    ldx_scanner *s;
    assert_int_equal(ldx_scanner_create(&s, rs), LDX_OK);
    ldx_reader *r;
    assert_int_equal(ldx_reader_open_mem(&r, log, len, "t"), LDX_OK);
    ldx_line line;
    while (ldx_reader_next(r, &line) == LDX_OK) {
        if (line.lineno == ask_at) ldx_scanner_flush(s);
        if (line.lineno == off_at) {
            ldx_scanner_flush(s);
            s->rule_off[ldx_ruleset_find(rs, off)] = true;
        }
        ldx_scanner_line(s, &line);
    }
    ldx_reader_destroy(r);
    ldx_file_report *fr = NULL;
    assert_int_equal(ldx_diagnose(s, "t", &fr), LDX_OK);
    ldx_scanner_destroy(s);
    return fr;
}

static void test_twins(void **state)
{
    (void)state;
    ldx_ruleset *a = load_twins(NULL), *b = load_twins("pcre2");
    size_t n = 60000, cap = n * 48, len = 0;
    char *log = malloc(cap);
    assert_non_null(log);
    for (size_t i = 0; i < n; i++) {
        if (i % 37 == 5)
            len += (size_t)snprintf(log + len, cap - len, "[rank%zu]: ERR E%zu at node-%zu loss %zu.%03zu\n",
                                    i % 4, i % 9, i % 5, i / 1000, i % 1000);
        else if (i % 101 == 7)
            len += (size_t)snprintf(log + len, cap - len, "WARN w%zu\n", i);
        else
            len += (size_t)snprintf(log + len, cap - len, "step %zu ok\n", i);
    }
    static const struct {
        size_t off_at;
        const char *off;
        size_t ask_at, fire;
    } cases[] = {{0, NULL, 0, 2}, {0, NULL, 20000, 2}, {30000, "t-twin", 0, 2}, {30000, "t-head", 0, 2},
                 {45000, "t-head", 20000, 2}, {3, "t-twin", 0, 1} /* before its first hit */};
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        ldx_file_report *x = scan_switching(a, log, len, cases[k].off_at, cases[k].off, cases[k].ask_at),
                        *y = scan_switching(b, log, len, cases[k].off_at, cases[k].off, cases[k].ask_at);
        assert_int_equal(y->n, cases[k].fire);
        const ldx_diagnosis *h0 = &y->diagnoses[0], *h1 = &y->diagnoses[y->n - 1];
        if (y->n == 1) {
            assert_string_equal(h0->rule->id, "t-head");
        } else if (cases[k].off) { /* the rule switched off has fewer hits */
            const ldx_diagnosis *off = strcmp(h0->rule->id, cases[k].off) ? h1 : h0, *on = off == h0 ? h1 : h0;
            assert_true(off->hits < on->hits);
        } else {
            assert_int_equal(h0->hits, h1->hits);
        }
        const char *d = differ(x, y);
        if (d) fail_msg("case %zu: twins differ from PCRE2 alone: %s", k, d);
        for (size_t i = 0; i < y->n; i++)
            for (size_t t = 0; t < y->diagnoses[i].ntrends; t++)
                assert_int_equal(x->diagnoses[i].trends[t].points, y->diagnoses[i].trends[t].points);
        ldx_file_report_destroy(x);
        ldx_file_report_destroy(y);
    }
    free(log);
    ldx_ruleset_destroy(a);
    ldx_ruleset_destroy(b);
}

/* Lines that match nothing are not visited by matching once their template is known
 * to need nothing (a quiet template, src/scan/memo.h); a template a structure reader
 * wants is never quiet. torchrun's failure summary twice, far apart, the second with
 * two more failed ranks under "Failures:" (a line no rule matches, which only the
 * summary's reader wants): the summary read is the second one, as PCRE2 alone reads
 * it. */
static void test_quiet_templates(void **state)
{
    (void)state;
    static const char block[] =
        "[default0]:Traceback (most recent call last):\n"
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:\n"
        "============================================================\n"
        "train.py FAILED\n"
        "------------------------------------------------------------\n"
        "Failures:\n"
        "%s"
        "------------------------------------------------------------\n"
        "Root Cause (first observed failure):\n"
        "[0]:\n"
        "  time      : 2024-01-01_10:00:00\n"
        "  host      : node-%d\n"
        "  rank      : %d (local_rank: %d)\n"
        "  exitcode  : -9 (pid: 1234)\n"
        "  error_file: <N/A>\n"
        "  traceback : Signal 9 (SIGKILL) received by PID 1234\n"
        "============================================================\n";
    size_t n = 50000, cap = n * 40 + 4096, len = 0;
    char *log = malloc(cap);
    assert_non_null(log);
    for (size_t i = 0; i < n; i++) {
        if (i == 1000 || i == 40000)
            len += (size_t)snprintf(log + len, cap - len, block,
                                    i == 1000 ? "  <NO_OTHER_FAILURES>\n"
                                              : "[1]:\n  rank      : 6 (local_rank: 6)\n"
                                                "[2]:\n  rank      : 7 (local_rank: 7)\n",
                                    i == 1000 ? 1 : 7, i == 1000 ? 2 : 5, i == 1000 ? 2 : 5);
        len += (size_t)snprintf(log + len, cap - len, "step %zu: tokens %zu ok\n", i, i * 7);
    }
    ldx_file_report *y = run(plain, log, len);
    assert_true(y->launcher.present);
    assert_int_equal(y->launcher.rank, 5);
    assert_int_equal(y->launcher.other_failures, 2);
    for (int threads = 1; threads <= 2; threads++) {
        ldx_file_report *x = run_threads(fast, log, len, threads);
        assert_true(x->launcher.present);
        assert_int_equal(x->launcher.rank, y->launcher.rank);
        assert_int_equal(x->launcher.other_failures, y->launcher.other_failures);
        assert_string_equal(x->launcher.host, y->launcher.host);
        const char *d = differ(x, y);
        if (d) fail_msg("%d thread(s): engines differ on quiet templates: %s", threads, d);
        ldx_file_report_destroy(x);
    }
    ldx_file_report_destroy(y);
    free(log);
}

int main(int argc, char **argv)
{
    corpus_dir = argc > 1 ? argv[1] : NULL;
    fast = load(NULL);
    plain = load("pcre2");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rule_examples),
        cmocka_unit_test(test_corpus_logs),
        cmocka_unit_test(test_anchored_patterns),
        cmocka_unit_test(test_prefixed_lines),
        cmocka_unit_test(test_shuffled_examples),
        cmocka_unit_test(test_templates),
        cmocka_unit_test(test_lines_that_do_not_repeat),
        cmocka_unit_test(test_ranks),
        cmocka_unit_test(test_last_hits),
        cmocka_unit_test(test_twins),
        cmocka_unit_test(test_quiet_templates),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    ldx_ruleset_destroy(fast);
    ldx_ruleset_destroy(plain);
    return rc;
}
