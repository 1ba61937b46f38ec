/* Diagnosis: conditions over a scan, trends, ranking and initiating vs collateral. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "logdx/logdx.h"

static char *rule(const char *id, const char *klass, const char *sev, const char *signals,
                  const char *extra)
{
    char *buf = malloc(4096);
    snprintf(buf, 4096,
             "id: %s\ntitle: %s\nclass: %s\nseverity: %s\nsignals:\n%s%s"
             "summary: s\nsymptoms: [{symptom: a, why: b}]\nroot_cause: r\nfix: [f]\n"
             "verify: [v]\nreferences: ['https://example.org']\n"
             "examples: {match: [x], no_match: [y]}\n",
             id, id, klass, sev, signals, extra);
    return buf;
}

/* Compiles n rule texts (freeing them), printing any message; the test fails unless
 * the set compiles. */
static ldx_ruleset *compile(char **texts, int n)
{
    ldx_msgs *m;
    ldx_msgs_create(&m);
    ldx_compiler *c;
    ldx_compiler_create(&c, m);
    for (int i = 0; i < n; i++) {
        char name[64];
        snprintf(name, sizeof name, "t%d.yaml", i);
        ldx_compiler_add_buffer(c, name, texts[i], strlen(texts[i]), false);
        free(texts[i]);
    }
    ldx_ruleset *rs;
    ldx_status st = ldx_compiler_finish(c, &rs);
    char buf[512];
    for (size_t i = 0; i < ldx_msgs_count(m); i++) {
        ldx_msg_format(ldx_msgs_get(m, i), buf, sizeof buf);
        print_message("%s\n", buf);
    }
    assert_int_equal(st, LDX_OK);
    ldx_compiler_destroy(c);
    ldx_msgs_destroy(m);
    return rs;
}

static ldx_ruleset *ruleset(void)
{
    char *r[4];
    r[0] = rule("t-oom", "cuda_oom", "high",
                "  oom: {pattern: 'CUDA out of memory', weight: 3}\n"
                "  cap: {pattern: 'total capacity of', role: context}\n",
                "");
    r[1] = rule("t-timeout", "collective_timeout", "high",
                "  wd: {pattern: 'Watchdog caught collective operation timeout', weight: 2}\n",
                "caused_by: [cuda_oom]\n");
    r[2] = rule("t-leak", "gpu_memory_not_freed", "high",
                "  mem: {pattern: 'Fold \\d+ done .*allocated=(?<bytes>[\\d.]+ ?GB)', weight: 2}\n",
                "condition: rising(mem.bytes, 3) and max(mem.bytes) > 0.5GB\n");
    r[3] = rule("t-tok", "tokenizer_sequence_too_long", "low",
                "  tok: {pattern: 'Token indices sequence length is longer'}\n", "");
    return compile(r, 4);
}

static void test_oom_initiates_timeouts_are_collateral(void **state)
{
    (void)state;
    ldx_ruleset *rs = ruleset();
    /* the timeouts are printed first, by the ranks that waited; the OOM is the cause */
    const char *log =
        "[rank1]:[E ProcessGroupNCCL.cpp:563] [Rank 1] Watchdog caught collective operation timeout\n"
        "[rank5]:[E ProcessGroupNCCL.cpp:563] [Rank 5] Watchdog caught collective operation timeout\n"
        "\033[31m[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2 GiB\033[0m\n"
        "Token indices sequence length is longer than the specified maximum\n";
    ldx_file_report *fr = analyze_text(rs, log);
    assert_int_equal(fr->lines, 4);
    assert_int_equal(fr->n, 3);
    const ldx_diagnosis *d = &fr->diagnoses[0];
    assert_string_equal(d->rule->id, "t-oom");
    assert_int_equal(d->role, LDX_ROLE_INITIATING);
    assert_int_equal(d->rank, 3);
    assert_int_equal(d->line, 3);
    /* ANSI colour is gone from the evidence */
    assert_null(strchr(d->evidence[0].text, '\033'));
    const ldx_diagnosis *t = NULL, *tok = NULL;
    for (size_t i = 0; i < fr->n; i++) {
        if (!strcmp(fr->diagnoses[i].rule->id, "t-timeout")) t = &fr->diagnoses[i];
        if (!strcmp(fr->diagnoses[i].rule->id, "t-tok")) tok = &fr->diagnoses[i];
    }
    assert_non_null(t);
    assert_int_equal(t->role, LDX_ROLE_COLLATERAL);
    assert_string_equal(t->cause, "t-oom");
    assert_int_equal(t->nevidence, 2);
    assert_int_equal(t->evidence[1].rank, 5);
    assert_non_null(tok);
    assert_int_equal(tok->role, LDX_ROLE_CONTRIBUTING);
    /* collateral ranks last, below even a low-severity independent finding */
    assert_ptr_equal(&fr->diagnoses[2], t);
    assert_int_equal(ldx_file_report_worst(fr), LDX_SEV_HIGH);
    ldx_file_report_destroy(fr);
    ldx_ruleset_destroy(rs);
}

static void test_confidence_follows_evidence(void **state)
{
    (void)state;
    ldx_ruleset *rs = ruleset();
    ldx_file_report *a = analyze_text(rs, "CUDA out of memory\n");
    ldx_file_report *b = analyze_text(rs, "CUDA out of memory. GPU 0 has a total capacity of 79 GiB\n"
                                     "CUDA out of memory\nCUDA out of memory\n");
    assert_int_equal(a->n, 1);
    assert_int_equal(b->n, 1);
    assert_true(b->diagnoses[0].confidence > a->diagnoses[0].confidence);
    assert_true(a->diagnoses[0].confidence > 0 && b->diagnoses[0].confidence <= 1);
    ldx_file_report_destroy(a);
    ldx_file_report_destroy(b);
    ldx_ruleset_destroy(rs);
}

static int fired(const ldx_ruleset *rs, const char *log, const char *id)
{
    ldx_file_report *fr = analyze_text(rs, log);
    int f = 0;
    for (size_t i = 0; i < fr->n; i++) f |= !strcmp(fr->diagnoses[i].rule->id, id);
    ldx_file_report_destroy(fr);
    return f;
}

static void test_trends(void **state)
{
    (void)state;
    ldx_ruleset *rs = ruleset();
    const char *rising = "Fold 1 done | allocated=0.38GB\nnoise\nFold 2 done | allocated=0.69GB\n"
                         "Fold 3 done | allocated=1.00GB\nFold 4 done | allocated=1.31GB\n";
    assert_true(fired(rs, rising, "t-leak"));
    ldx_file_report *fr = analyze_text(rs, rising);
    assert_int_equal(fr->diagnoses[0].ntrends, 1);
    const ldx_trend *t = &fr->diagnoses[0].trends[0];
    assert_true(t->rising);
    assert_int_equal(t->points, 4);
    assert_true(t->first == 0.38 * 1073741824.0 && t->last == 1.31 * 1073741824.0);
    assert_int_equal(t->nvalues, 4);
    ldx_file_report_destroy(fr);
    /* memory that comes back down between folds is not a leak */
    assert_false(fired(rs, "Fold 1 done allocated=0.9GB\nFold 2 done allocated=1.2GB\n"
                           "Fold 3 done allocated=0.9GB\nFold 4 done allocated=1.3GB\n", "t-leak"));
    /* flat after warm-up is not rising over 3 points */
    assert_false(fired(rs, "Fold 1 done allocated=0.9GB\nFold 2 done allocated=1.2GB\n"
                           "Fold 3 done allocated=1.2GB\nFold 4 done allocated=1.2GB\n", "t-leak"));
    /* too few points */
    assert_false(fired(rs, "Fold 1 done allocated=0.9GB\nFold 2 done allocated=1.2GB\n", "t-leak"));
    /* the threshold part of the condition */
    assert_false(fired(rs, "Fold 1 done allocated=0.1GB\nFold 2 done allocated=0.2GB\n"
                           "Fold 3 done allocated=0.3GB\n", "t-leak"));
    /* two ranks interleaved: each series rises on its own */
    assert_true(fired(rs, "[rank0] Fold 1 done allocated=1.0GB\n[rank1] Fold 1 done allocated=5.0GB\n"
                          "[rank0] Fold 2 done allocated=2.0GB\n[rank1] Fold 2 done allocated=6.0GB\n"
                          "[rank0] Fold 3 done allocated=3.0GB\n[rank1] Fold 3 done allocated=7.0GB\n",
                      "t-leak"));
    ldx_ruleset_destroy(rs);
}

static void test_no_rules_fire_on_healthy(void **state)
{
    (void)state;
    ldx_ruleset *rs = ruleset();
    ldx_file_report *fr = analyze_text(rs, "{'loss': 2.0491, 'learning_rate': 0.0001961, 'epoch': 0.28}\n");
    assert_int_equal(fr->n, 0);
    assert_int_equal(ldx_file_report_worst(fr), -1);
    ldx_file_report_destroy(fr);
    ldx_ruleset_destroy(rs);
}

static ldx_ruleset *one_rule(const char *signals, const char *extra)
{
    char *r = rule("t-seq", "collective_timeout", "high", signals, extra);
    return compile(&r, 1);
}

static void test_sequences_and_windows(void **state)
{
    (void)state;
    const char *sigs = "  a: {pattern: 'ALPHA'}\n  b: {pattern: 'BETA'}\n";
    /* b within 2 lines after an a */
    ldx_ruleset *rs = one_rule(sigs, "condition: then(a, b, 2 lines) >= 1\n");
    assert_true(fired(rs, "ALPHA\nx\nBETA\n", "t-seq"));
    assert_false(fired(rs, "ALPHA\nx\ny\nBETA\n", "t-seq"));
    assert_false(fired(rs, "BETA\nALPHA\n", "t-seq"));
    /* the window counts from the latest a */
    assert_true(fired(rs, "ALPHA\nx\ny\nz\nALPHA\nBETA\n", "t-seq"));
    ldx_ruleset_destroy(rs);
    /* in seconds, from the lines' own timestamps */
    rs = one_rule(sigs, "condition: then(a, b, 90 s) >= 1\n");
    assert_true(fired(rs, "2026-11-29 10:00:00,000 ALPHA\n2026-11-29 10:01:00,000 BETA\n", "t-seq"));
    assert_false(fired(rs, "2026-11-29 10:00:00,000 ALPHA\n2026-11-29 10:05:00,000 BETA\n", "t-seq"));
    assert_false(fired(rs, "ALPHA\nBETA\n", "t-seq")); /* no times: cannot tell */
    ldx_ruleset_destroy(rs);
    /* b since the last a; the tail of the log after the last a */
    rs = one_rule(sigs, "condition: after(b, a) >= 3 and lines() - last_line(a) >= 3\n");
    assert_true(fired(rs, "ALPHA\nBETA\nALPHA\nBETA\nBETA\nBETA\n", "t-seq"));
    assert_false(fired(rs, "ALPHA\nBETA\nBETA\nALPHA\nBETA\nBETA\n", "t-seq"));
    ldx_ruleset_destroy(rs);
    /* a on one rank, b on the others */
    rs = one_rule(sigs, "condition: ranks(a) == 1 and others(a, b) >= 2\n");
    assert_true(fired(rs, "[rank3]: ALPHA\n[rank0]: BETA\n[rank1]: BETA\n[rank3]: BETA\n", "t-seq"));
    assert_false(fired(rs, "[rank3]: ALPHA\n[rank0]: BETA\n[rank3]: BETA\n", "t-seq"));
    ldx_ruleset_destroy(rs);
}

static void test_causal_order(void **state)
{
    (void)state;
    ldx_ruleset *rs = ruleset();
    /* timestamps say the timeout came well before the OOM: not its consequence */
    ldx_file_report *fr = analyze_text(rs,
        "[2026-11-29 10:00:00,000] [rank1] Watchdog caught collective operation timeout\n"
        "[2026-11-29 10:30:00,000] [rank3] CUDA out of memory\n");
    assert_int_equal(fr->n, 2);
    for (size_t i = 0; i < fr->n; i++) assert_int_not_equal(fr->diagnoses[i].role, LDX_ROLE_COLLATERAL);
    ldx_file_report_destroy(fr);
    /* one rank, no times: line order decides */
    fr = analyze_text(rs, "Watchdog caught collective operation timeout\nCUDA out of memory\n");
    for (size_t i = 0; i < fr->n; i++) assert_int_not_equal(fr->diagnoses[i].role, LDX_ROLE_COLLATERAL);
    ldx_file_report_destroy(fr);
    /* different ranks, no times (per-rank logs concatenated): the OOM may be earlier */
    fr = analyze_text(rs, "[rank1]: Watchdog caught collective operation timeout\n[rank3]: CUDA out of memory\n");
    assert_string_equal(fr->diagnoses[0].rule->id, "t-oom");
    assert_int_equal(fr->diagnoses[1].role, LDX_ROLE_COLLATERAL);
    ldx_file_report_destroy(fr);
    ldx_ruleset_destroy(rs);

    /* one cause named twice: the default order, and any order within 3 lines (a cause the
     * error quotes just below itself); either entry the log allows counts */
    char *r[2];
    r[0] = rule("t-ib", "nccl_ib_error", "high", "  ibv: {pattern: 'Call to ibv_\\w+ failed', weight: 3}\n", "");
    r[1] = rule("t-sys", "nccl_remote_error", "high", "  sys: {pattern: 'unhandled system error', weight: 3}\n",
                "caused_by: [nccl_ib_error, {cause: nccl_ib_error, order: any, within: 3 lines}]\n");
    rs = compile(r, 2);
    fr = analyze_text(rs, "NCCL error: unhandled system error\nLast error:\nCall to ibv_reg_mr failed\n");
    assert_string_equal(fr->diagnoses[0].rule->id, "t-ib");
    assert_int_equal(fr->diagnoses[1].role, LDX_ROLE_COLLATERAL);
    ldx_file_report_destroy(fr);
    fr = analyze_text(rs, "NCCL error: unhandled system error\n1\n2\n3\n4\nCall to ibv_reg_mr failed\n");
    for (size_t i = 0; i < fr->n; i++) assert_int_not_equal(fr->diagnoses[i].role, LDX_ROLE_COLLATERAL);
    ldx_file_report_destroy(fr);
    fr = analyze_text(rs, "Call to ibv_reg_mr failed\n1\n2\n3\n4\nNCCL error: unhandled system error\n");
    assert_string_equal(fr->diagnoses[0].rule->id, "t-ib");
    assert_int_equal(fr->diagnoses[1].role, LDX_ROLE_COLLATERAL);
    ldx_file_report_destroy(fr);
    ldx_ruleset_destroy(rs);
}

/* A concept rule gives way to a specific rule of its class anywhere in the log, and to
 * a specific rule of another class on its own lines; alone it fires with a lower
 * confidence. */
static void test_concept_gives_way(void **state)
{
    (void)state;
    char *r[4];
    r[0] = rule("t-oom", "cuda_oom", "high",
                "  oom: {pattern: 'CUDA out of memory', weight: 3}\n", "");
    r[1] = rule("t-oom-concept", "cuda_oom", "high",
                "  oom: {pattern: 'out of memory', weight: 3}\n", "level: concept\n");
    r[2] = rule("t-nan-concept", "nan_inf_loss", "high",
                "  nan: {pattern: 'loss[:=] ?nan', weight: 3}\n", "level: concept\n");
    r[3] = rule("t-ends", "training_hang", "low", "  bar: {pattern: 'step \\d', tail: 5}\n", "");
    ldx_ruleset *rs = compile(r, 4);
    /* the specific rule fires: the concept rule of its class is gone, wherever it hit */
    ldx_file_report *fr = analyze_text(rs, "XLA out of memory\nCUDA out of memory\n");
    assert_int_equal(fr->n, 1);
    assert_string_equal(fr->diagnoses[0].rule->id, "t-oom");
    ldx_file_report_destroy(fr);
    /* alone, the concept rule reports, with a lower confidence than the specific one */
    fr = analyze_text(rs, "XLA out of memory\n");
    assert_int_equal(fr->n, 1);
    assert_string_equal(fr->diagnoses[0].rule->id, "t-oom-concept");
    assert_int_equal(fr->diagnoses[0].rule->level, LDX_LEVEL_CONCEPT);
    double concept_conf = fr->diagnoses[0].confidence;
    ldx_file_report_destroy(fr);
    fr = analyze_text(rs, "CUDA out of memory\n");
    assert_true(fr->diagnoses[0].confidence > concept_conf);
    ldx_file_report_destroy(fr);
    /* a specific rule of another class on the same line explains it */
    fr = analyze_text(rs, "CUDA out of memory, loss=nan\n");
    assert_int_equal(fr->n, 1);
    assert_string_equal(fr->diagnoses[0].rule->id, "t-oom");
    ldx_file_report_destroy(fr);
    /* ... on another line it does not: both report, the specific one first where the
     * two stand alike */
    fr = analyze_text(rs, "CUDA out of memory\nloss=nan\n");
    assert_int_equal(fr->n, 2);
    assert_string_equal(fr->diagnoses[0].rule->id, "t-oom");
    assert_string_equal(fr->diagnoses[1].rule->id, "t-nan-concept");
    ldx_file_report_destroy(fr);
    /* a tail signal on the line says how the log ends, not what the line means */
    fr = analyze_text(rs, "step 1 loss=nan\n");
    assert_int_equal(fr->n, 2);
    ldx_file_report_destroy(fr);
    ldx_ruleset_destroy(rs);
}

/* A code table: a hit's code has its row on the evidence, only keeps the codes whose
 * rows hold the value (with either engine, also on lines of one shape with other
 * digits), and the diagnosis takes the strongest action any evidence line's code asks
 * for, from whichever signal. */
static void test_code_tables(void **state)
{
    (void)state;
    static const char *const names[] = {"tx.yaml", "r.yaml", "rx.yaml"};
    static const char *const texts[] = {
        "table: tx\ntitle: T\nkey: code\ncolumns: {code: c, name: n, action: a, action_text: t, class: k}\n"
        "rows:\n"
        "  - {code: '79', name: off the bus, action: reset_gpu, action_text: reset it, class: gpu_fallen_off_bus}\n"
        "  - {code: '45', name: preempted, action: ignore, action_text: '', class: ''}\n",
        "id: t-bus\ntitle: t\nclass: gpu_fallen_off_bus\nseverity: critical\nsignals:\n"
        "  xid: {pattern: 'Xid \\((?<pci>[^)]*)\\): (?<code>\\d+),', weight: 3,\n"
        "        lookup: {table: tx, capture: code, only: {class: gpu_fallen_off_bus}}}\n"
        "  any: {pattern: 'Xid \\([^)]*\\): (?<code>\\d+),', role: context, lookup: {table: tx, capture: code}}\n"
        "  rec: {pattern: 'recovery action changed to (?<code>0x\\d)', role: context, lookup: {table: rx, capture: code}}\n"
        "summary: s\nsymptoms: [{symptom: a, why: b}]\nroot_cause: r\nfix: [f]\nverify: [v]\n"
        "references: ['https://example.org']\nexamples: {match: [x], no_match: [y]}\n",
        "table: rx\ntitle: R\nkey: code\ncolumns: {code: c, action: a, action_text: t}\n"
        "rows: [{code: '0x2', action: reboot_node, action_text: reboot it}]\n"};
    const char *engines[] = {NULL, "pcre2"};
    for (int e = 0; e < 2; e++) {
        char errs[2048];
        ldx_ruleset *rs = compile_rule_texts(names, texts, NULL, 3, engines[e], false, errs, sizeof errs);
        if (!rs) print_message("%s", errs);
        assert_non_null(rs);
        /* 45 has no class: no hit of xid; 79 is one, on a line of 45's shape */
        ldx_file_report *fr = analyze_text(rs, "Xid (PCI:0000:3b:00): 45, ch\nXid (PCI:0000:3b:00): 79, off\n");
        assert_int_equal(fr->n, 1);
        const ldx_diagnosis *d = &fr->diagnoses[0];
        assert_int_equal(d->line, 2);
        const ldx_evidence *ev = NULL;
        for (size_t i = 0; i < d->nevidence; i++)
            if (!strcmp(d->evidence[i].signal, "xid")) ev = &d->evidence[i];
        assert_non_null(ev);
        assert_non_null(ev->table);
        assert_string_equal(ldx_table_cell(ev->table, ev->row, "name"), "off the bus");
        assert_string_equal(ev->caps[ev->code_cap].value, "79");
        assert_string_equal(d->action.action, "reset_gpu");
        assert_string_equal(d->action.text, "reset it");
        assert_string_equal(d->action.code_value, "79");
        ldx_file_report_destroy(fr);
        /* the driver's own word (a context line) asks for more: it wins */
        fr = analyze_text(rs, "Xid (PCI:0000:3b:00): 79, off\nrecovery action changed to 0x2\n");
        assert_string_equal(fr->diagnoses[0].action.action, "reboot_node");
        assert_int_equal(fr->diagnoses[0].action.line, 2);
        ldx_file_report_destroy(fr);
        fr = analyze_text(rs, "Xid (PCI:0000:3b:00): 45, ch\n");
        assert_int_equal(fr->n, 0);
        ldx_file_report_destroy(fr);
        ldx_ruleset_destroy(rs);
    }
}

/* flat(): the latest points of a series stay within 0.1% of where their run began. */
static void test_flat(void **state)
{
    (void)state;
    char *r[1];
    r[0] = rule("t-flat", "degenerate_loss", "medium",
                "  l: {pattern: 'step \\d+ loss (?<v>[\\d.]+)', weight: 2}\n",
                "condition: flat(l.v, 5)\n");
    ldx_ruleset *rs = compile(r, 1);
    const char *stuck = "step 1 loss 2.9\nstep 2 loss 2.4\nstep 3 loss 2.3026\nstep 4 loss 2.3027\n"
                        "step 5 loss 2.3026\nstep 6 loss 2.3028\nstep 7 loss 2.3026\n";
    ldx_file_report *fr = analyze_text(rs, stuck);
    assert_int_equal(fr->n, 1);
    ldx_file_report_destroy(fr);
    /* four points flat is not five; a run that ends moving is over */
    fr = analyze_text(rs, "step 1 loss 2.9\nstep 3 loss 2.3026\nstep 4 loss 2.3027\nstep 5 loss 2.3026\n"
                          "step 6 loss 2.3028\n");
    assert_int_equal(fr->n, 0);
    ldx_file_report_destroy(fr);
    fr = analyze_text(rs, "step 3 loss 2.3026\nstep 4 loss 2.3027\nstep 5 loss 2.3026\n"
                          "step 6 loss 2.3028\nstep 7 loss 2.3026\nstep 8 loss 2.1\n");
    assert_int_equal(fr->n, 0);
    ldx_file_report_destroy(fr);
    /* one step's line printed by eight ranks with no rank tag is one reading, not eight */
    fr = analyze_text(rs, "step 1 loss 2.9\nstep 1 loss 2.9\nstep 2 loss 2.4\nstep 2 loss 2.4\n"
                          "step 2 loss 2.4\nstep 2 loss 2.4\nstep 2 loss 2.4\nstep 2 loss 2.4\n");
    assert_int_equal(fr->n, 0);
    ldx_file_report_destroy(fr);
    ldx_ruleset_destroy(rs);
}

/* jump_from/jump_to/jump_next: the reading highest above the median of the (up to 8, at
 * least 3) readings before it where they are a level (none over 1.5 times their median), that
 * median and the reading after it; a counter that goes back starts the level again. */
static void test_jump(void **state)
{
    (void)state;
    char *r[1];
    r[0] = rule("t-jump", "loss_spike", "medium",
                "  l: {pattern: 'step (?<n>\\d+) loss (?<v>[\\d.]+)', weight: 2}\n",
                "condition: jump_to(l.v) >= 3 * jump_from(l.v) and jump_next(l.v) >= 2 * jump_from(l.v)\n");
    ldx_ruleset *rs = compile(r, 1);
    /* a falling start does not hide the spike at step 7, measured against the level before
     * it (median 2.2), not against a mean its tail raised */
    const char *spike = "step 1 loss 3.0\nstep 2 loss 2.6\nstep 3 loss 2.3\nstep 4 loss 2.1\n"
                        "step 5 loss 2.0\nstep 6 loss 2.0\nstep 7 loss 7.0\nstep 8 loss 5.0\n"
                        "step 9 loss 3.0\n";
    assert_true(fired(rs, spike, "t-jump"));
    /* the next reading back at the level: no tail */
    assert_false(fired(rs, "step 1 loss 2.0\nstep 2 loss 2.0\nstep 3 loss 2.0\nstep 4 loss 7.0\n"
                       "step 5 loss 2.0\nstep 6 loss 2.0\n", "t-jump"));
    /* fewer than three readings before it */
    assert_false(fired(rs, "step 1 loss 2.0\nstep 2 loss 2.0\nstep 3 loss 7.0\nstep 4 loss 7.0\n",
                       "t-jump"));
    /* readings that are no level (a heavy-tailed loss's scatter) give no jump */
    assert_false(fired(rs, "step 1 loss 0.01\nstep 2 loss 0.3\nstep 3 loss 0.02\nstep 4 loss 0.45\n"
                       "step 5 loss 1.4\nstep 6 loss 1.2\n", "t-jump"));
    /* a second run appended: its counter restarts, its first loss is a new level */
    assert_false(fired(rs, "step 7 loss 0.3\nstep 8 loss 0.3\nstep 9 loss 0.3\nstep 10 loss 0.3\n"
                       "step 1 loss 2.1\nstep 2 loss 2.0\nstep 3 loss 1.9\nstep 4 loss 1.8\n", "t-jump"));
    ldx_ruleset_destroy(rs);
}

/* A warning (low) early in a log never ranks above a failure (medium) later in it. */
static void test_warning_below_failure(void **state)
{
    (void)state;
    char *r[2];
    r[0] = rule("t-warn", "state_dict_mismatch", "low", "  w: {pattern: 'newly initialized', weight: 3}\n", "");
    r[1] = rule("t-fail", "external_termination", "medium", "  c: {pattern: 'CANCELLED AT', weight: 1}\n", "");
    ldx_ruleset *rs = compile(r, 2);
    ldx_file_report *fr = analyze_text(rs, "weights newly initialized: [head.weight]\nstep 1\nstep 2\nstep 3\n"
                                           "step 4\nstep 5\nstep 6\nstep 7\nstep 8\n"
                                           "*** JOB 6 ON g1 CANCELLED AT 2022-08-31T16:21:22 ***\n");
    assert_int_equal(fr->n, 2);
    assert_string_equal(fr->diagnoses[0].rule->id, "t-fail");
    assert_int_equal(fr->diagnoses[0].role, LDX_ROLE_INITIATING);
    ldx_file_report_destroy(fr);
    ldx_ruleset_destroy(rs);
}

/* A warning the log shows a failure followed from ranks with the failures, above a warning
 * of a cause's class that came before both; and a failure a launcher's exit can follow
 * from is its cause rather than that earlier warning. */
static void test_warning_that_caused_a_failure(void **state)
{
    (void)state;
    char *r[4];
    r[0] = rule("t-flush", "cuda_oom", "low", "  f: {pattern: 'allocator cache flushes', weight: 3}\n", "");
    r[1] = rule("t-tok", "tokenizer_sequence_too_long", "low", "  t: {pattern: 'Token indices sequence length'}\n", "");
    r[2] = rule("t-assert", "cuda_device_side_assert", "high", "  a: {pattern: 'device-side assert triggered'}\n",
                "caused_by: [{cause: tokenizer_sequence_too_long, order: earlier}]\n");
    r[3] = rule("t-exit", "launcher_child_failed", "medium", "  e: {pattern: 'exits with return code'}\n",
                "caused_by: [cuda_oom, cuda_device_side_assert]\n");
    ldx_ruleset *rs = compile(r, 4);
    ldx_file_report *fr = analyze_text(rs, "1 pytorch allocator cache flushes since last step\nstep 1\n"
                                           "Token indices sequence length is longer than 2048\nstep 2\n"
                                           "RuntimeError: CUDA error: device-side assert triggered\n"
                                           "subprocess 12 exits with return code = 1\n");
    assert_int_equal(fr->n, 4);
    assert_string_equal(fr->diagnoses[0].rule->id, "t-tok");
    assert_int_equal(fr->diagnoses[0].role, LDX_ROLE_INITIATING);
    assert_string_equal(fr->diagnoses[1].rule->id, "t-flush");
    for (size_t i = 2; i < 4; i++) {
        assert_int_equal(fr->diagnoses[i].role, LDX_ROLE_COLLATERAL);
        assert_string_equal(fr->diagnoses[i].cause, !strcmp(fr->diagnoses[i].rule->id, "t-exit") ? "t-assert" : "t-tok");
    }
    ldx_file_report_destroy(fr);
    ldx_ruleset_destroy(rs);
}

static void test_launcher_summary(void **state)
{
    (void)state;
    ldx_ruleset *rs = ruleset();
    const char *summary =
        "[rank1]: Watchdog caught collective operation timeout\n"
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:\n"
        "============================================================\n"
        "train.py FAILED\n"
        "------------------------------------------------------------\n"
        "Failures:\n"
        "  <NO_OTHER_FAILURES>\n"
        "------------------------------------------------------------\n"
        "Root Cause (first observed failure):\n"
        "[0]:\n"
        "  time      : 2026-11-29_19:18:53\n"
        "  host      : gpu-node-3\n"
        "  rank      : 5 (local_rank: 1)\n"
        "  exitcode  : -9 (pid: 4242)\n"
        "  error_file: <N/A>\n"
        "  traceback : Signal 9 (SIGKILL) received by PID 4242\n"
        "============================================================\n";
    ldx_file_report *fr = analyze_text(rs, summary);
    assert_true(fr->launcher.present);
    assert_int_equal(fr->launcher.rank, 5);
    assert_int_equal(fr->launcher.local_rank, 1);
    assert_int_equal(fr->launcher.exitcode, -9);
    assert_int_equal(fr->launcher.signal, 9);
    assert_string_equal(fr->launcher.signame, "SIGKILL");
    assert_string_equal(fr->launcher.host, "gpu-node-3");
    assert_true(fr->launcher.error_file_missing);
    assert_non_null(fr->launcher_note);
    assert_non_null(strstr(fr->launcher_note, "rank 5"));
    assert_non_null(strstr(fr->launcher_note, "OOM killer"));
    ldx_file_report_destroy(fr);
    ldx_ruleset_destroy(rs);
}

/* A cause read from the launcher's own account of the first failure (its "traceback :
 * Signal 7 ..." line carries no rank) explains the launcher's report above it; the same
 * line far below the block, unranked, does not. */
static void test_launcher_block_cause(void **state)
{
    (void)state;
    char *r[2];
    r[0] = rule("t-child", "launcher_child_failed", "medium",
                "  cf: {pattern: 'ChildFailedError', weight: 2}\n", "caused_by: [shm_exhausted]\n");
    r[1] = rule("t-bus", "shm_exhausted", "high",
                "  bus: {pattern: 'Signal 7 \\(SIGBUS\\) received by PID', weight: 2}\n", "");
    ldx_ruleset *rs = compile(r, 2);
    const char *head = "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:\n"
                       "============================================================\n"
                       "train.py FAILED\n"
                       "Root Cause (first observed failure):\n"
                       "[0]:\n"
                       "  time      : 2023-03-29_22:03:17\n"
                       "  host      : node-1\n"
                       "  rank      : 4 (local_rank: 4)\n"
                       "  exitcode  : -7 (pid: 10)\n"
                       "  error_file: <N/A>\n";
    char log[2048];
    snprintf(log, sizeof log, "%s  traceback : Signal 7 (SIGBUS) received by PID 10\n"
             "============================================================\n", head);
    ldx_file_report *fr = analyze_text(rs, log);
    assert_true(fr->launcher.present);
    assert_int_equal(fr->n, 2);
    assert_string_equal(fr->diagnoses[0].rule->id, "t-bus");
    assert_int_equal(fr->diagnoses[1].role, LDX_ROLE_COLLATERAL);
    assert_string_equal(fr->diagnoses[1].cause, "t-bus");
    ldx_file_report_destroy(fr);
    /* outside the block and after the report: not known to be the first failure */
    snprintf(log, sizeof log, "%s  traceback : <N/A>\n"
             "============================================================\n"
             "\n\n\n\n\n\n\n\n\n\nSignal 7 (SIGBUS) received by PID 99\n", head);
    fr = analyze_text(rs, log);
    assert_int_equal(fr->n, 2);
    for (size_t i = 0; i < fr->n; i++) assert_int_not_equal(fr->diagnoses[i].role, LDX_ROLE_COLLATERAL);
    ldx_file_report_destroy(fr);
    ldx_ruleset_destroy(rs);
}

/* A scan reads as numbers the captures a condition (or a where) uses; explain asks for
 * every capture's, to summarise them. */
static uint64_t explained_points(const ldx_ruleset *rs, const char *log, const char *id, bool every,
                                 const char *capture)
{
    ldx_scanner *s;
    assert_int_equal(ldx_scanner_create(&s, rs), LDX_OK);
    ldx_scanner_set_numbers(s, every);
    ldx_file_report *fr = analyze_with(s, log);
    ldx_explanation *x = NULL;
    assert_int_equal(ldx_explain(s, id, &x), LDX_OK);
    uint64_t points = 0;
    for (size_t k = 0; k < x->nsignals; k++)
        for (size_t c = 0; c < x->signals[k].ncaps; c++)
            if (!strcmp(x->signals[k].caps[c].name, capture)) points = x->signals[k].caps[c].points;
    ldx_explanation_destroy(x);
    ldx_file_report_destroy(fr);
    ldx_scanner_destroy(s);
    return points;
}

static void test_numbers_read(void **state)
{
    (void)state;
    char *r[1] = {rule("t-steps", "training_hang", "low",
                       "  step: {pattern: 'step (?<n>\\d+) loss (?<loss>[\\d.]+)'}\n",
                       "condition: count(step) >= 1 and max(step.loss) > 0\n")};
    ldx_ruleset *rs = compile(r, 1);
    const char *log = "step 1 loss 2.5\nstep 2 loss 2.25\nstep 3 loss 2.0\n";
    assert_int_equal(explained_points(rs, log, "t-steps", false, "loss"), 3); /* the condition's */
    assert_int_equal(explained_points(rs, log, "t-steps", false, "n"), 0);    /* text only */
    assert_int_equal(explained_points(rs, log, "t-steps", true, "n"), 3);
    ldx_ruleset_destroy(rs);
    /* two signals of one pattern share its run and numbers: the first (which reads none)
     * reads what the second needs */
    r[0] = rule("t-same", "training_hang", "low",
                "  a: {pattern: 'step (?<n>\\d+)', role: context}\n"
                "  b: {pattern: 'step (?<n>\\d+)'}\n",
                "condition: max(b.n) >= 3\n");
    rs = compile(r, 1);
    assert_true(fired(rs, log, "t-same"));
    ldx_ruleset_destroy(rs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_oom_initiates_timeouts_are_collateral),
        cmocka_unit_test(test_confidence_follows_evidence),
        cmocka_unit_test(test_trends),
        cmocka_unit_test(test_no_rules_fire_on_healthy),
        cmocka_unit_test(test_sequences_and_windows),
        cmocka_unit_test(test_causal_order),
        cmocka_unit_test(test_launcher_summary),
        cmocka_unit_test(test_launcher_block_cause),
        cmocka_unit_test(test_concept_gives_way),
        cmocka_unit_test(test_code_tables),
        cmocka_unit_test(test_flat),
        cmocka_unit_test(test_jump),
        cmocka_unit_test(test_warning_below_failure),
        cmocka_unit_test(test_warning_that_caused_a_failure),
        cmocka_unit_test(test_numbers_read),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
