/* Line structure helpers: ANSI stripping, ranks, display text, quantities. */
#include <math.h>
#include <stdlib.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "test_util.h"
#include "logdx/scan.h"
#include "../../src/core/util.h"
#include "../../src/scan/scan_int.h"

static void strip(const char *in, const char *want)
{
    char out[256];
    size_t n = ldx_strip_ansi(in, strlen(in), out);
    out[n] = 0;
    assert_string_equal(out, want);
}

static void test_ansi(void **state)
{
    (void)state;
    strip("\033[31mERROR\033[0m: CUDA", "ERROR: CUDA");
    strip("\033[1;38;5;196mred\033[m", "red");
    strip("\033]0;title\007text", "text");
    strip("\033]8;;http://x\033\\link\033]8;;\033\\", "link");
    strip("\033(Bplain", "plain");
    strip("trailing\033", "trailing");
    strip("no escapes", "no escapes");
}

static void clean(const char *in, bool unclean, const char *want)
{
    char out[256];
    assert_int_equal(ldxi_line_unclean(in, strlen(in)), unclean);
    size_t n = ldxi_clean_line(in, strlen(in), out);
    out[n] = 0;
    assert_string_equal(out, want);
}

/* A paste from a blog's editor: typographic quotes read as ASCII ones, other symbols
 * (tqdm's blocks, an ellipsis, box lines) as they are. */
static void test_clean(void **state)
{
    (void)state;
    clean("Function \xe2\x80\x98MulBackward0\xe2\x80\x99 returned nan", true, "Function 'MulBackward0' returned nan");
    clean("\xe2\x80\x9c" "addmm_impl_cpu_\xe2\x80\x9d not implemented", true, "\"addmm_impl_cpu_\" not implemented");
    clean("\033[31m\xe2\x80\x98x\xe2\x80\x99\033[0m", true, "'x'");
    clean(" 45%|\xe2\x96\x88\xe2\x96\x88    | 450/1000", false, " 45%|\xe2\x96\x88\xe2\x96\x88    | 450/1000");
    clean("Loading\xe2\x80\xa6", false, "Loading\xe2\x80\xa6");
    clean("cut \xe2\x80", false, "cut \xe2\x80");
    clean("", false, "");
}

static void unjson(const char *in, const char *want)
{
    char buf[256];
    size_t n = strlen(in);
    memcpy(buf, in, n);
    size_t at = ldxi_json_log(buf, n);
    if (at) n = ldxi_unjson(buf, n, at);
    buf[n] = 0;
    assert_string_equal(buf, want);
}

/* JSON log lines (Docker, journald, Cloud Logging, structured loggers) read as the line the program printed: escapes undone, the final
 * line end dropped, the other fields dropped; anything else left alone. */
static void test_json_log(void **state)
{
    (void)state;
    unjson("{\"log\":\"  File \\\"x.py\\\", line 3, in \\u003cmodule\\u003e\\n\",\"stream\":\"stderr\",\"time\":\"t\"}",
           "  File \"x.py\", line 3, in <module>");
    unjson("{\"log\":\"a\\tb\\\\c\\/d\\r\\n\",\"stream\":\"stdout\"}", "a\tb\\c/d");
    unjson("{\"log\":\"\\u001b[31mERROR\\u001b[0m\\n\"}", "\033[31mERROR\033[0m");
    unjson("{\"log\":\"caf\\u00e9 \\ud83d\\ude80 \\ud800x\\n\"}", "caf\xc3\xa9 \xf0\x9f\x9a\x80 ?x");
    unjson("{\"log\":\"one\\ntwo\\n\"}", "one two");
    unjson("{\"log\":\"cut mid\\", "cut mid\\");
    unjson("{\"log\":\"\\n\"}", "");
    /* the other shapes: the message field anywhere among the object's own fields */
    unjson("{\"msg\":\"other shape\"}", "other shape");
    unjson("{\"time\":\"t\",\"stream\":\"stderr\",\"log\":\"late field\\n\"}", "late field");
    unjson("{ \"insertId\": \"x1\", \"labels\": {\"k\": \"v,\\\"}\"}, \"textPayload\": \"RuntimeError: boom\" }",
           "RuntimeError: boom");
    unjson("{\"__CURSOR\":\"s=1\",\"_PID\":\"7\",\"MESSAGE\":\"Killed process 7 (python)\"}",
           "Killed process 7 (python)");
    /* a structured logger's detail field after the message, whichever stands first (zap puts its
     * fields after "msg", logrus sorts "error" before it); a nested or non-string one is not read */
    unjson("{\"level\":\"error\",\"msg\":\"Reconciler error\",\"controller\":\"rayjob\",\"error\":\"pods \\\"w-0\\\" OOMKilled\"}",
           "Reconciler error pods \"w-0\" OOMKilled");
    unjson("{\"error\":\"connection refused\\n\",\"level\":\"error\",\"msg\":\"dial failed\",\"time\":\"t\"}",
           "dial failed connection refused");
    unjson("{\"msg\":\"reconcilePods\",\"shouldDelete\":true,\"reason\":\"Reason:OOMKilled\"}",
           "reconcilePods Reason:OOMKilled");
    unjson("{\"msg\":\"done\",\"error\":null,\"data\":{\"error\":\"nested\"}}", "done");
    unjson("{\"msg\":\"step\",\"err\":\"\"}", "step");
    /* not a log record: a nested message, a non-string message, metrics, Python's dict */
    unjson("{\"jsonPayload\":{\"message\":\"nested\"},\"n\":1}", "{\"jsonPayload\":{\"message\":\"nested\"},\"n\":1}");
    unjson("{\"message\": 3, \"loss\": 2.5}", "{\"message\": 3, \"loss\": 2.5}");
    unjson("{\"loss\": 2.31, \"step\": 5}", "{\"loss\": 2.31, \"step\": 5}");
    unjson("{'log': 'a python dict'}", "{'log': 'a python dict'}");
    unjson("{\"a\":[\"log\",\"x\"],\"b\":\"c\"}", "{\"a\":[\"log\",\"x\"],\"b\":\"c\"}");
    unjson("{\"log\":", "{\"log\":");
}

static void rank(const char *line, int want)
{
    int got = ldx_line_rank(line, strlen(line));
    if (got != want) fail_msg("'%s': rank %d, want %d", line, got, want);
}

static void test_ranks(void **state)
{
    (void)state;
    rank("[rank3]: torch.OutOfMemoryError: CUDA out of memory.", 3);
    rank("[rank12]:[E ProcessGroupNCCL.cpp:563] [Rank 12] Watchdog caught", 12);
    rank("[default5]:RuntimeError: CUDA error", 5);
    rank("[E ProcessGroupNCCL.cpp:563] [Rank 5] Watchdog caught collective", 5);
    rank("node-0:15325:16199 [2] NCCL INFO [Service thread] Connection closed by localRank 2", 2);
    /* NCCL warnings name their source line between the device and "NCCL" */
    rank("ng30903:3063028:3066152 [3] include/alloc.h:178 NCCL WARN Cuda failure 'out of memory'", 3);
    rank("gpu1:41:42 [6] misc/socket.cc:49 NCCL WARN socketProgress: Connection closed", 6);
    rank("gpu1:41:42 [6] some words NCCL WARN x", -1);
    rank("[1,290]<stderr>:!!!! kernel execution error.", 290);
    rank("Unexpected result nan on rank 3 at iteration #3", 3);
    rank("failed (exitcode: 1) local_rank: 2 (pid: 562) of binary", 2);
    rank("[deepspeed] OVERFLOW! Rank 0 Skipping step.", 0);
    rank("RANK=7 WORLD_SIZE=8", 7);
    rank("epoch 3 step 10 loss 0.5", -1);
    rank("ranks 4 are ready", -1);
    rank("Frank 3 said hi", -1);
    rank("[2023-04-28 06:51:29,903] [INFO] [loss_scaler.py:188:update_scale]", -1);
}

static void test_display_text(void **state)
{
    (void)state;
    char *s = ldx_display_text("  a\tb\001c", 7, 100);
    assert_string_equal(s, "a b c");
    free(s);
    s = ldx_display_text("ok \xff\xfe bad", 9, 100);
    assert_string_equal(s, "ok ?? bad");
    free(s);
    s = ldx_display_text("0123456789abcdef", 16, 10);
    assert_string_equal(s, "0123456789...");
    free(s);
    /* never cut inside a UTF-8 character */
    s = ldx_display_text("aaaaaaa█████", 22, 9);
    assert_string_equal(s, "aaaaaaa...");
    free(s);
}

static void qty(const char *s, double want)
{
    double v = -1;
    if (!ldxi_parse_quantity(s, strlen(s), &v)) fail_msg("'%s' not parsed", s);
    if (fabs(v - want) > 1e-6 * fabs(want)) fail_msg("'%s' = %g, want %g", s, v, want);
}

static void test_quantities(void **state)
{
    (void)state;
    qty("12", 12);
    qty("11.2 GiB", 11.2 * 1073741824.0);
    qty("812MiB", 812.0 * 1048576.0);
    qty("11980 MB", 11980.0 * 1048576.0);
    qty("1.2e10", 1.2e10);
    qty("1,024 MB", 1024.0 * 1048576.0);
    qty("0.38GB", 0.38 * 1073741824.0);
    qty(" 3 gib ", 3.0 * 1073741824.0);
    qty("4770354232 bytes", 4770354232.0);
    qty("-5", -5);
    double v;
    assert_false(ldxi_parse_quantity("nan", 3, &v));
    assert_false(ldxi_parse_quantity("12 apples", 9, &v));
    assert_false(ldxi_parse_quantity("", 0, &v));
    assert_false(ldxi_parse_quantity("GiB", 3, &v));
}

/* A trend shows bytes only where the log wrote a byte unit: a loss scale of 2**32 is a plain
 * number, "11.2 GiB" and "812MiB" are bytes. */
static void test_byte_units(void **state)
{
    (void)state;
    assert_true(ldxi_has_byte_unit("11.2 GiB"));
    assert_true(ldxi_has_byte_unit("812MiB"));
    assert_true(ldxi_has_byte_unit("4770354232 bytes "));
    assert_false(ldxi_has_byte_unit("4294967296"));
    assert_false(ldxi_has_byte_unit("1.2e10"));
    assert_false(ldxi_has_byte_unit("12 apples"));
    assert_false(ldxi_has_byte_unit(""));
    assert_false(ldxi_has_byte_unit(NULL));
}

/* Plain decimals read exactly as strtod reads them (the fast path must not change a
 * single bit), over many shapes: signs, leading zeros, fractions, exponents, lengths on
 * both sides of the fast path's limits. */
static void test_decimals_exact(void **state)
{
    (void)state;
    uint64_t x = 88172645463325252ull;
    char buf[64];
    for (int t = 0; t < 200000; t++) {
        size_t k = 0;
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        if (x & 1) buf[k++] = (x & 2) ? '-' : '+';
        int nd = 1 + (int)((x >> 3) % 20), dotat = (int)((x >> 9) % (unsigned)(nd + 2)) - 1;
        uint64_t y = x * 2654435761u;
        for (int d = 0; d < nd; d++) {
            if (d == dotat) buf[k++] = '.';
            y = y * 6364136223846793005ull + 1442695040888963407ull;
            buf[k++] = (char)('0' + (y >> 33) % 10);
        }
        if ((x >> 20) % 3 == 0) {
            k += (size_t)snprintf(buf + k, sizeof buf - k, "e%d", (int)((x >> 24) % 61) - 30);
        }
        buf[k] = '\0';
        double want = strtod(buf, NULL), got = 0;
        if (!ldxi_parse_quantity(buf, k, &got) || memcmp(&want, &got, sizeof got) != 0)
            fail_msg("'%s': strtod %.17g, parsed %.17g", buf, want, got);
        /* a capture stands inside its line: the bytes after it are not read */
        memcpy(buf + k, "9e9", 4);
        if (!ldxi_parse_quantity(buf, k, &got) || memcmp(&want, &got, sizeof got) != 0)
            fail_msg("'%.*s' before '9e9': strtod %.17g, parsed %.17g", (int)k, buf, want, got);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ansi),
        cmocka_unit_test(test_clean),
        cmocka_unit_test(test_json_log),
        cmocka_unit_test(test_ranks),
        cmocka_unit_test(test_display_text),
        cmocka_unit_test(test_quantities),
        cmocka_unit_test(test_byte_units),
        cmocka_unit_test(test_decimals_exact),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
