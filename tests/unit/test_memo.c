/* The line memo's table and templates (src/scan/memo.c): a line cut and templated in
 * one pass hashes as its template made alone; the table finds what it was given,
 * grows, says when it has no room, and empties itself before a batch when too full. */
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
        const char *eol;
        uint64_t h1, h2 = ldxi_memo_template(line, n, t2);
        bool esc;
        /* a byte at a time, SSE2, AVX2 (where the CPU has them) */
        for (int isa = 0; isa <= ldxi_memo_isa(); isa++) {
            size_t got = ldxi_memo_line(line, &eol, t1, &h1, &esc, isa);
            assert_int_equal(got, n);
            assert_ptr_equal(eol, line + n);
            assert_int_equal(esc, memchr(line, 0x1b, n) != NULL);
            assert_memory_equal(t1, t2, n);
            if (h1 != h2)
                fail_msg("round %d: a %zu-byte line hashes %llx in one pass (isa %d), %llx alone",
                         round, n, (unsigned long long)h1, isa, (unsigned long long)h2);
        }
        for (size_t i = 0; i < n; i++)
            assert_int_equal(t1[i], line[i] >= '0' && line[i] <= '9' ? '0' : line[i]);
    }
}

static uint32_t look(ldxi_memo *m, const char *text, bool *fresh)
{
    char t[128];
    size_t n = strlen(text);
    uint64_t h = ldxi_memo_template(text, n, t);
    return ldxi_memo_lookup(m, t, n, h, fresh);
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
    assert_int_equal(look(&m, "step 55 loss=1.0", &fresh), a);
    /* a new batch: too full to keep, so it starts over */
    ldxi_memo_begin(&m);
    assert_int_equal(m.nent, 0);
    look(&m, "step 55 loss=1.0", &fresh);
    assert_true(fresh);
    /* a line too long to remember */
    char *big = malloc(LDXI_MEMO_LINE_MAX + 2);
    memset(big, 'x', LDXI_MEMO_LINE_MAX + 1);
    assert_int_equal(ldxi_memo_lookup(&m, big, LDXI_MEMO_LINE_MAX + 1, 7, &fresh), LDXI_MEMO_NONE);
    free(big);
    ldxi_memo_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_pass_and_alone),
        cmocka_unit_test(test_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
