/* The line memo's table and templates (src/scan/memo.c): a line cut and templated in
 * one pass hashes as its template made alone; the table finds what it was given,
 * grows, says when it has no room, and empties itself before a batch when too full;
 * and the judge of whether it pays rests it and brings it back as its doc says. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "../../src/scan/memo.h"

static unsigned next(unsigned *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    return *seed >> 16;
}

static void test_one_pass_and_alone(void **state)
{
    (void)state;
    const char alphabet[] = "0123456789abcxyz:. \x1b\xe2\x96\x88";
    unsigned seed = 11;
    char line[400], t1[400 + 32], t2[400 + 32];
    for (int round = 0; round < 5000; round++) {
        size_t n = next(&seed) % 300;
        for (size_t i = 0; i < n; i++) line[i] = alphabet[next(&seed) % (sizeof alphabet - 1)];
        line[n] = round % 3 ? '\n' : '\r';
        memset(line + n + 1, 'q', 40); /* what follows the line end is not its own */
        uint64_t h2 = ldxi_memo_template(line, n, t2);
        /* a byte at a time, SSE2, AVX2 (where the CPU has them) */
        for (int isa = 0; isa <= ldxi_memo_isa(); isa++) {
            ldxi_cut c;
            size_t got = ldxi_memo_line(line, t1, NULL, 0, &c, isa);
            assert_int_equal(got, n);
            assert_ptr_equal(c.eol, line + n);
            assert_int_equal(c.esc, memchr(line, 0x1b, n) != NULL);
            assert_false(c.same);
            assert_memory_equal(t1, t2, n);
            if (c.hash != h2)
                fail_msg("round %d: a %zu-byte line hashes %llx in one pass (isa %d), %llx alone",
                         round, n, (unsigned long long)c.hash, isa, (unsigned long long)h2);
        }
        for (size_t i = 0; i < n; i++)
            assert_int_equal(t1[i], line[i] >= '0' && line[i] <= '9' ? '0' : line[i]);
    }
}

/* A line is cut after another, whose template lies where the memo's cutting leaves it:
 * at the same place (a line the memo knew: overwritten as the next is cut), or just
 * before, followed by a "\n" (the first of its template); zeros after it to its last
 * 32-byte step, or not (made alone, after an ESC was removed), then older bytes. "same" holds exactly when the two templates are equal, and
 * otherwise the hash is made, with every way of cutting. */
static void test_same_as_line_before(void **state)
{
    (void)state;
    const char *shapes[] = {"step 12 loss 0.5", "step 123 loss 0.5", "stop 12 loss 0.5",
                            "{'loss': 0.1234, 'grad_norm': 1.5, 'learning_rate': 2e-05, 'epoch': 0.01}",
                            "{'loss': 0.1234, 'grad_norm': 1.5, 'learning_rate': 2e-05, 'epoch': 0.0x}",
                            " 45%|\xe2\x96\x88\xe2\x96\x88     | 450/1000 [00:10<00:12, 44.10it/s]",
                            "", "7", "a",
                            "iteration      100/  200000 | consumed samples:        12800 | elapsed time per iteration (ms): 1234.5 | learning rate: 1.000000E-04 |"};
    size_t ns = sizeof shapes / sizeof *shapes;
    unsigned seed = 5;
    char a[300], b[300], buf[1024];
    for (int round = 0; round < 20000; round++) {
        /* two lines of two shapes (often one), their digits drawn anew */
        const char *sa = shapes[next(&seed) % ns], *sb = next(&seed) % 2 ? sa : shapes[next(&seed) % ns];
        size_t na = strlen(sa), nb = strlen(sb);
        for (size_t i = 0; i <= na; i++) a[i] = sa[i] >= '0' && sa[i] <= '9' ? (char)('0' + next(&seed) % 10) : sa[i];
        for (size_t i = 0; i <= nb; i++) b[i] = sb[i] >= '0' && sb[i] <= '9' ? (char)('0' + next(&seed) % 10) : sb[i];
        if (sb == sa && nb && next(&seed) % 3 == 0) { /* one byte other, anywhere */
            size_t at = next(&seed) % nb;
            if (b[at] < '0' || b[at] > '9') b[at] = b[at] == 'Q' ? 'R' : 'Q';
        }
        a[na] = '\n';
        b[nb] = round % 5 ? '\n' : '\r';
        memset(b + nb + 1, '9', 40);
        char ta[300], tb[300];
        uint64_t hb = ldxi_memo_template(b, nb, tb);
        ldxi_memo_template(a, na, ta);
        bool equal = na == nb && memcmp(ta, tb, na) == 0;
        int where = (int)(next(&seed) % 4);
        for (int isa = 0; isa <= ldxi_memo_isa(); isa++) {
            /* what lies past the template before: an older line's bytes */
            for (size_t i = 0; i < sizeof buf; i++) buf[i] = (char)('0' + next(&seed) % 75);
            ldxi_cut c;
            ldxi_memo_line(a, buf, NULL, 0, &c, isa);
            char *dst = buf;
            if (where & 2) /* made alone (a line with an ESC): no zeros after it */
                for (size_t i = na; i < na + 64; i++) buf[i] = (char)('0' + next(&seed) % 75);
            if (where & 1) { /* the first of its template: "\n" after it, the next one after that */
                buf[na] = '\n';
                dst = buf + na + 1;
            }
            size_t got = ldxi_memo_line(b, dst, buf, na, &c, isa);
            assert_int_equal(got, nb);
            assert_ptr_equal(c.eol, b + nb);
            if (c.same != equal)
                fail_msg("round %d, isa %d: '%s' after '%s' same %d", round, isa, sb, sa, c.same);
            assert_memory_equal(dst, tb, nb);
            if (!c.same && c.hash != hb) fail_msg("round %d, isa %d: hash differs", round, isa);
        }
    }
}

static bool was_quiet; /* what the last look() said */

static uint32_t look(ldxi_memo *m, const char *text, bool *fresh)
{
    char t[128];
    size_t n = strlen(text);
    uint64_t h = ldxi_memo_template(text, n, t);
    return ldxi_memo_lookup(m, t, n, h, fresh, &was_quiet);
}

static void test_table(void **state)
{
    (void)state;
    ldxi_memo m = {0};
    ldxi_memo_begin(&m);
    bool fresh;
    uint32_t a = look(&m, "step 12 loss=0.5", &fresh);
    assert_true(fresh);
    assert_int_equal(m.ent[a].state, LDXI_MEMO_PENDING);
    m.ent[a].state = LDXI_MEMO_READY;
    /* other digits, same template: found; another length or text: another entry */
    assert_int_equal(look(&m, "step 99 loss=7.1", &fresh), a);
    assert_false(fresh);
    assert_false(was_quiet);
    /* a template whose lines need nothing: lookups say so, and only of it */
    uint32_t q = look(&m, "quiet 1", &fresh);
    ldxi_memo_ready(&m, q);
    assert_int_equal(look(&m, "quiet 7", &fresh), q);
    assert_true(was_quiet);
    assert_int_equal(look(&m, "step 98 loss=7.1", &fresh), a);
    assert_false(was_quiet);
    assert_int_not_equal(look(&m, "step 123 loss=0.5", &fresh), a);
    assert_true(fresh);
    assert_int_not_equal(look(&m, "stop 12 loss=0.5", &fresh), a);
    /* many templates: the table grows and every one is still found, until it has no room */
    char text[64];
    uint32_t first = UINT32_MAX, none = 0;
    for (int i = 0; i < 40000; i++) {
        snprintf(text, sizeof text, "line %c%c%c%c", 'a' + i % 26, 'a' + i / 26 % 26, 'a' + i / 676 % 26,
                 'a' + i / 17576 % 26);
        uint32_t x = look(&m, text, &fresh);
        if (x == LDXI_MEMO_NONE) {
            none++;
            continue;
        }
        assert_true(fresh);
        if (first == UINT32_MAX) first = x;
    }
    assert_true(none > 0); /* at most half the slots are used */
    assert_true(m.nent <= 32768 / 2);
    assert_int_equal(look(&m, "line aaaa", &fresh), first);
    assert_false(fresh);
    assert_false(was_quiet);
    assert_int_equal(look(&m, "step 55 loss=1.0", &fresh), a);
    assert_int_equal(look(&m, "quiet 3", &fresh), q); /* still quiet, the table grown */
    assert_true(was_quiet);
    /* a new batch: too full to keep, so it starts over */
    ldxi_memo_begin(&m);
    assert_int_equal(m.nent, 0);
    look(&m, "step 55 loss=1.0", &fresh);
    assert_true(fresh);
    look(&m, "quiet 3", &fresh);
    assert_true(fresh);
    assert_false(was_quiet);
    /* a line too long to remember */
    char *big = malloc(LDXI_MEMO_LINE_MAX + 2);
    memset(big, 'x', LDXI_MEMO_LINE_MAX + 1);
    assert_int_equal(ldxi_memo_lookup(&m, big, LDXI_MEMO_LINE_MAX + 1, 7, &fresh, &was_quiet), LDXI_MEMO_NONE);
    free(big);
    ldxi_memo_free(&m);
}

/* Batches of 10000 lines and 256 KiB, k of them known, matched in ns each. */
static void judge_n(ldxi_memo_judge *j, int batches, uint64_t known, uint64_t memo_ns, uint64_t plain_ns)
{
    for (int i = 0; i < batches; i++) {
        bool with = j->rest == 0;
        ldxi_memo_judge_batch(j, false, 10000, with ? known : 0, 262144, with ? memo_ns : plain_ns);
    }
}

/* Whether the memo pays: a log it knows stays with it whatever the times; one it hardly
 * knows rests, longer after each failed try; a mixed one is probed without it once and
 * then kept or rested by which way was faster per byte. */
static void test_judge(void **state)
{
    (void)state;
    ldxi_memo_judge j = {0};
    judge_n(&j, LDXI_MEMO_TRY, 9000, 9000000, 1000);   /* known: kept even when slower */
    assert_int_equal(j.rest, 0);

    j = (ldxi_memo_judge){0};
    judge_n(&j, LDXI_MEMO_TRY, 100, 1000, 1000);        /* hardly known: rests */
    assert_int_equal(j.rest, LDXI_MEMO_REST);
    judge_n(&j, LDXI_MEMO_REST + LDXI_MEMO_TRY, 100, 1000, 1000);
    assert_int_equal(j.rest, 2 * LDXI_MEMO_REST);      /* and twice as long after */
    for (int k = 0; k < 6; k++) judge_n(&j, (int)j.rest + LDXI_MEMO_TRY, 100, 1000, 1000);
    assert_int_equal(j.rest, 16 * LDXI_MEMO_REST);     /* up to 16 times */

    /* mixed, the memo slower: a probe, then a rest of its own count */
    j = (ldxi_memo_judge){0};
    judge_n(&j, LDXI_MEMO_TRY, 4000, 3000000, 2000000);
    assert_int_equal(j.rest, LDXI_MEMO_TRY);            /* the probe */
    judge_n(&j, LDXI_MEMO_TRY, 4000, 3000000, 2000000);
    assert_int_equal(j.rest, 0);                        /* back to be judged */
    judge_n(&j, LDXI_MEMO_TRY, 4000, 3000000, 2000000);
    assert_int_equal(j.rest, LDXI_MEMO_REST);           /* slower per byte: rests */
    assert_int_equal(j.fails, 0);
    assert_int_equal(j.slow, 1);

    /* mixed, the memo faster: kept after the probe */
    j = (ldxi_memo_judge){0};
    judge_n(&j, 2 * LDXI_MEMO_TRY, 4000, 1000000, 2000000);
    assert_int_equal(j.rest, 0);
    judge_n(&j, LDXI_MEMO_TRY, 4000, 1000000, 2000000);
    assert_int_equal(j.rest, 0);
    assert_int_equal(j.slow, 0);

    /* a failed batch (matched line by line) is not judged */
    j = (ldxi_memo_judge){0};
    for (int i = 0; i < 10; i++) ldxi_memo_judge_batch(&j, true, 10000, 0, 262144, 1000);
    assert_int_equal(j.rest, 0);
    assert_int_equal(j.try_batches, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_pass_and_alone),
        cmocka_unit_test(test_same_as_line_before),
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_judge),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
