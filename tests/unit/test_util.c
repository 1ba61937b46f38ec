/* Core helpers: the substring search every structure reader uses. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "../../src/core/util.h"

/* the first occurrence, found the plain way */
static const char *naive(const char *s, size_t n, const char *k, size_t kl)
{
    if (!kl) return s;
    for (size_t i = 0; i + kl <= n; i++)
        if (!memcmp(s + i, k, kl)) return s + i;
    return NULL;
}

static void test_memmem_cases(void **state)
{
    (void)state;
    const char *s = "Root Cause (first observed failure):";
    assert_ptr_equal(ldxi_memmem(s, strlen(s), "Root Cause", 10), s);
    assert_ptr_equal(ldxi_memmem(s, strlen(s), "failure):", 9), s + 27);
    assert_null(ldxi_memmem(s, strlen(s), "failures", 8));
    assert_ptr_equal(ldxi_memmem(s, strlen(s), "", 0), s);
    assert_null(ldxi_memmem(s, 3, "Root", 4));                /* longer than the haystack */
    assert_ptr_equal(ldxi_memmem(s, strlen(s), ":", 1), s + strlen(s) - 1);
    /* a match that ends exactly at the last byte, past the 16-byte blocks */
    const char *t = "0123456789abcdefghijklmnopqrstuvwxyz==";
    assert_ptr_equal(ldxi_memmem(t, strlen(t), "xyz==", 5), t + 33);
    /* the first of several, with first and last bytes that occur everywhere */
    const char *u = "eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeexe_exe";
    assert_ptr_equal(ldxi_memmem(u, strlen(u), "exe", 3), naive(u, strlen(u), "exe", 3));
    /* bytes with the high bit set (UTF-8) and NULs are bytes like any other */
    const char v[] = "a\0b\xe2\x96\x88\xe2\x96\x88 done";
    assert_ptr_equal(ldxi_memmem(v, sizeof v - 1, "\xe2\x96\x88 d", 5), v + 6);
    assert_ptr_equal(ldxi_memmem(v, sizeof v - 1, "\0b", 2), v + 1);
}

/* random haystacks over a small alphabet, so matches and near-matches are frequent: the
 * same answer as the plain search, at every length and alignment */
static void test_memmem_random(void **state)
{
    (void)state;
    uint64_t x = 88172645463325252ULL;
    char s[200], k[12];
    for (int round = 0; round < 200000; round++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        size_t n = (size_t)(x % sizeof s), kl = 1 + (size_t)((x >> 8) % (sizeof k - 1));
        for (size_t i = 0; i < n; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            s[i] = "abc"[x % 3];
        }
        for (size_t i = 0; i < kl; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            k[i] = "abc"[x % 3];
        }
        size_t off = (size_t)((x >> 20) % 16); /* the haystack at every alignment */
        char buf[sizeof s + 16];
        memcpy(buf + off, s, n);
        assert_ptr_equal(ldxi_memmem(buf + off, n, k, kl), naive(buf + off, n, k, kl));
    }
}

/* A character cut short goes, whole characters and stray bytes stay. */
static void test_utf8_clip(void **state)
{
    (void)state;
    static const struct {
        const char *in, *out;
    } c[] = {
        {"plain", "plain"},
        {"ge\xc3\xb6" "ffnet", "ge\xc3\xb6" "ffnet"},
        {"ge\xc3", "ge"},                         /* cut after the lead */
        {"a\xe2\x80", "a"},                      /* three bytes, two there */
        {"\xf0\x9f\x98: x", ": x"},              /* four, three there, inside the text */
        {"\xe2\x80\x94 ok \xc3", "\xe2\x80\x94 ok "},
        {"\xff\xfe raw", "\xff\xfe raw"},        /* not a lead: not this function's to judge */
        {"\x80 lone", "\x80 lone"},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        char buf[64];
        strcpy(buf, c[i].in);
        size_t n = ldxi_utf8_clip(buf);
        assert_string_equal(buf, c[i].out);
        assert_int_equal(n, strlen(c[i].out));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_memmem_cases),
        cmocka_unit_test(test_memmem_random),
        cmocka_unit_test(test_utf8_clip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
