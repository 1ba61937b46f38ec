/* Inputs told apart by content, and archive member names. */
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "logdx/input.h"

static void test_detect(void **state)
{
    (void)state;
    assert_int_equal(ldx_input_detect("\x1f\x8b\x08\x00", 4), LDX_KIND_GZIP);
    assert_int_equal(ldx_input_detect("\x28\xb5\x2f\xfd\x00", 5), LDX_KIND_ZSTD);
    assert_int_equal(ldx_input_detect("\xfd" "7zXZ\0\0", 7), LDX_KIND_XZ);
    assert_int_equal(ldx_input_detect("BZh91AY&SY", 10), LDX_KIND_BZIP2);
    assert_int_equal(ldx_input_detect("PK\3\4\x14\0", 6), LDX_KIND_ZIP);
    assert_int_equal(ldx_input_detect("PK\5\6", 4), LDX_KIND_ZIP);
    char tar[512] = "logs/rank3.log";
    memcpy(tar + 257, "ustar\0" "00", 8);
    assert_int_equal(ldx_input_detect(tar, sizeof tar), LDX_KIND_TAR);
    memcpy(tar + 257, "ustar  \0", 8); /* GNU */
    assert_int_equal(ldx_input_detect(tar, sizeof tar), LDX_KIND_TAR);
    /* text that merely starts like a magic number stays a log */
    assert_int_equal(ldx_input_detect("BZh: a line of a log", 20), LDX_KIND_PLAIN);
    assert_int_equal(ldx_input_detect("PK", 2), LDX_KIND_PLAIN);
    assert_int_equal(ldx_input_detect("\x1f", 1), LDX_KIND_PLAIN);
    assert_int_equal(ldx_input_detect("", 0), LDX_KIND_PLAIN);
    assert_int_equal(ldx_input_detect("[rank0]: CUDA out of memory\n", 28), LDX_KIND_PLAIN);
    assert_int_equal(ldx_input_detect(tar, 200), LDX_KIND_PLAIN); /* too short to say */
    assert_string_equal(ldx_input_kind_name(LDX_KIND_XZ), "xz");
    /* UTF-16: by its byte order mark, or by ASCII text with NUL high bytes */
    assert_int_equal(ldx_input_detect("\xff\xfe" "E\0r\0", 6), LDX_KIND_UTF16LE);
    assert_int_equal(ldx_input_detect("\xfe\xff" "\0E\0r", 6), LDX_KIND_UTF16BE);
    assert_int_equal(ldx_input_detect("E\0p\0o\0c\0h\0 \0\x31\0:\0\n\0", 18), LDX_KIND_UTF16LE);
    assert_int_equal(ldx_input_detect("\0E\0p\0o\0c\0h\0 \0\x31\0:\0\n", 18), LDX_KIND_UTF16BE);
    assert_string_equal(ldx_input_kind_name(LDX_KIND_UTF16LE), "utf-16le");
    /* binary with some NULs, and UTF-8 text, are not UTF-16 */
    assert_int_equal(ldx_input_detect("E\0p\0\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0b\x0c\x0e\x0f\x10", 18),
                     LDX_KIND_PLAIN);
    assert_int_equal(ldx_input_detect("\xe8\xae\xad\xe7\xbb\x83 step 1 loss 2.0\n", 24), LDX_KIND_PLAIN);
}

static void test_member_name(void **state)
{
    (void)state;
    char *n = ldx_input_member_name("run42.tar.gz", "logs/rank3.log");
    assert_string_equal(n, "run42.tar.gz:logs/rank3.log");
    free(n);
    n = ldx_input_member_name("a/b.tar", "./logs/x.log");
    assert_string_equal(n, "a/b.tar:logs/x.log");
    free(n);
    n = ldx_input_member_name("b.zip", "/abs/./x.log");
    assert_string_equal(n, "b.zip:abs/./x.log");
    free(n);
    n = ldx_input_member_name("-", NULL);
    assert_string_equal(n, "-:");
    free(n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_detect),
        cmocka_unit_test(test_member_name),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
