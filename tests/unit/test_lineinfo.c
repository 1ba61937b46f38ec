/* Line structure extractors over real prefixes: timestamps, hosts, steps, ranks. */
#include <math.h>
#include <string.h>

#include "test_util.h"
#include "logdx/scan.h"
#include "../../src/scan/scan_int.h" /* the line reader is internal */

static ldxi_line_info parse(const char *s)
{
    ldxi_line_info li;
    ldxi_line_parse(s, strlen(s), &li);
    return li;
}

static void test_timestamps(void **state)
{
    (void)state;
    /* Python logging (DeepSpeed) */
    ldxi_line_info a = parse("[2023-04-28 06:51:29,903] [INFO] [loss_scaler.py:188:update_scale] OVERFLOW!");
    assert_int_equal(a.ts_kind, LDX_TS_WALL);
    ldxi_line_info b = parse("[2023-04-28 06:51:30,648] [INFO] [loss_scaler.py:181:update_scale]");
    assert_true(fabs((b.ts - a.ts) - 0.745) < 1e-6);
    /* ISO with T, Slurm */
    ldxi_line_info s = parse("slurmstepd: error: *** JOB 1 ON n1 CANCELLED AT 2022-04-14T16:20:46 DUE TO TIME LIMIT ***");
    assert_int_equal(s.ts_kind, LDX_TS_NONE); /* beyond the prefix window: not a line timestamp */
    ldxi_line_info iso = parse("2026-11-29T18:44:19.5Z trainer started");
    assert_int_equal(iso.ts_kind, LDX_TS_WALL);
    assert_true(fabs(iso.ts - 1795977859.5) < 1e-3);
    /* glog (torch elastic) */
    ldxi_line_info g1 = parse("W1129 19:18:53.453000 429 torch/distributed/elastic/multiprocessing/api.py:1012] Sending process 560 closing signal SIGTERM");
    ldxi_line_info g2 = parse("E1129 19:18:53.669000 429 torch/distributed/elastic/multiprocessing/api.py:986] failed (exitcode: 1)");
    assert_int_equal(g1.ts_kind, LDX_TS_NOYEAR);
    assert_true(fabs((g2.ts - g1.ts) - 0.216) < 1e-6);
    /* [rank0]:[E1129 ...] prefix: glog after a rank prefix is not at the start */
    ldxi_line_info r = parse("[rank0]:[E1129 10:00:00.000000 1 ProcessGroupNCCL.cpp:632] [Rank 0] Watchdog");
    assert_int_equal(r.rank, 0);
    /* dmesg */
    ldxi_line_info d = parse("[ 1234.567890] NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus.");
    assert_int_equal(d.ts_kind, LDX_TS_BOOT);
    assert_true(fabs(d.ts - 1234.56789) < 1e-6);
    /* syslog, with host */
    ldxi_line_info k = parse("Nov 29 18:44:19 gpu-node-07 kernel: Out of memory: Killed process 4242 (python)");
    assert_int_equal(k.ts_kind, LDX_TS_NOYEAR);
    assert_string_equal(k.host, "gpu-node-07");
    /* not timestamps */
    assert_int_equal(parse("epoch 0 step 1 loss 1.5000").ts_kind, LDX_TS_NONE);
    assert_int_equal(parse("[1,290]<stderr>:!!!! kernel execution error.").ts_kind, LDX_TS_NONE);
    assert_int_equal(parse("version 2023-04-28 build").ts_kind, LDX_TS_NONE);
}

static void test_hosts(void **state)
{
    (void)state;
    ldxi_line_info a = parse("liangxianchen-funasr-15wh-train-lxc0-w-0:15325:16199 [2] NCCL INFO [Service thread] Connection closed by localRank 2");
    assert_string_equal(a.host, "liangxianchen-funasr-15wh-train-lxc0-w-0");
    assert_int_equal(a.rank, 2);
    ldxi_line_info b = parse("[rank1]:gpu-a100-03:3401:3560 [1] NCCL WARN NET/IB : Got completion from peer 10.0.0.2<54862> with status=12");
    assert_string_equal(b.host, "gpu-a100-03");
    assert_string_equal(parse("no host here [3] NCCL INFO x").host, "");
}

static void test_steps(void **state)
{
    (void)state;
    assert_int_equal(parse("[rank2] epoch 0 step 17 loss 1.5000").step, 17);
    assert_int_equal(parse(" iteration      100/   10000 | consumed samples: 3200 | lm loss: 7.1E+00").step, 100);
    assert_int_equal(parse("global_step=4200 loss=0.3").step, 4200);
    assert_int_equal(parse("{'loss': 0.5, 'step': 37}").step, 37);
    assert_int_equal(parse("Iter 12: loss 3.2").step, 12);
    assert_int_equal(parse("loss 0.5 lr 1e-4").step, -1);
    assert_int_equal(parse("steps_per_epoch 100").step, -1);
    assert_int_equal(parse("step 0.5 warmup").step, -1);
}

/* Where the printed text starts after launchers' and collectors' prefixes (body.c). */
static size_t body(const char *s) { return ldxi_line_body(s, strlen(s)); }

static void test_body(void **state)
{
    (void)state;
    assert_int_equal(body("[rank3]: Killed"), 9);
    assert_int_equal(body("[rank12]:Traceback (most recent call last):"), 9);
    assert_int_equal(body("[rank0]:   File \"x.py\", line 1"), 9); /* the frame keeps its indentation */
    assert_int_equal(body("[default0]:[E1129 10:00:00.000000 1 ProcessGroupNCCL.cpp:632] x"), 11);
    assert_int_equal(body("[1,3]<stderr>: Killed"), 15);
    assert_int_equal(body("3: Killed"), 3);
    assert_int_equal(body("trainer-0  | Killed"), 13);
    assert_int_equal(body("2024-05-01T10:00:00.123456789Z Killed"), 31);
    assert_int_equal(body("2024-05-01 10:00:00,123 Killed"), 24);
    assert_int_equal(body("2024-05-01T10:00:00+02:00 Killed"), 26);
    assert_int_equal(body("[2024-05-01 10:00:00] Killed"), 22);
    assert_int_equal(body("[ 1234.567890] Out of memory"), 15);
    assert_int_equal(body("[Wed Jan 27 23:04:35 2021] Out of memory"), 27);
    assert_int_equal(body("(RayTrainWorker pid=4121, ip=10.0.0.4) Killed"), 39);
    assert_int_equal(body("Aug  2 20:05:52 node1 python[447]: Killed"), 35);
    assert_int_equal(body("[pod/trainer-0/pytorch] Killed"), 24);
    assert_int_equal(body("worker-1: [rank8]: Killed"), 19);
    assert_int_equal(body("10.10.23.10: Killed"), 13);
    assert_int_equal(body("0.0.0.0: Killed"), 9); /* its collapsed template */
    /* prefixes on prefixes: a compose column, a clock, a rank */
    assert_int_equal(body("trainer-0  | 2024-05-01T10:00:00Z [rank0]: Killed"), 43);
    /* Determined's trial logs: the clock, the container's short id, "|| "; or "[container] [rank=N] || " */
    assert_int_equal(body("[2022-06-09T09:22:31.405187Z] 8de2ca81 || Root Cause (first observed failure):"), 42);
    assert_int_equal(body("[2023-01-05T10:00:00Z] [8de2ca81] [rank=3] || Killed"), 46);
    assert_int_equal(body("[2023-01-05T10:00:00Z] [8de2ca81] || Killed"), 37);
    assert_int_equal(body("[0-0-0T0:0:0.0Z] 0de0ca0 || Killed"), 28); /* its collapsed template */
    /* collapsed templates: every digit run one '0' */
    assert_int_equal(body("0-0-0T0:0:0.0Z Killed"), 15);
    /* a runner's process and stream (milabench) */
    assert_int_equal(body("opt-1_3b.0 [stderr] Killed"), 20);
    /* colour escapes a paste kept as text */
    assert_int_equal(body("[36m(RayTrainWorker pid=4121)[0m Killed"), 33);
    assert_int_equal(body("[1;36m(EngineCore_0 pid=1159)[0;0m [36m(pid=1273)[0m Killed"), 53);
    assert_int_equal(body("^[[31mKilled"), 6);
    assert_int_equal(body("ESC[36m[rank0]: Killed"), 16);
    assert_int_equal(body("\\x1b[0m Killed"), 8);
    assert_int_equal(body("[0m(pid=0)[0m Killed"), 14); /* a collapsed template */
    /* not prefixes */
    assert_int_equal(body("Killed"), 0);
    assert_int_equal(body("[m Killed"), 0);
    assert_int_equal(body("[36 Killed"), 0);
    assert_int_equal(body("ESC Killed"), 0);
    assert_int_equal(body("[W socket.cpp:663] Killed"), 0);
    assert_int_equal(body("loss: 0.5 | lr 1e-4"), 0);
    assert_int_equal(body("(pid) Killed"), 0);
    assert_int_equal(body("12.5: ratio"), 0);
    assert_int_equal(body("RuntimeError: Killed"), 0);
    assert_int_equal(body("Epoch: 3"), 0);
    assert_int_equal(body("Epoch 3 | loss 0.1"), 0);
    assert_int_equal(body("[deadbeef] Killed"), 0); /* a bracketed hex word alone is text */
    assert_int_equal(body("a || b"), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_timestamps),
        cmocka_unit_test(test_body),
        cmocka_unit_test(test_hosts),
        cmocka_unit_test(test_steps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
