/* --redact: each kind of value, what must stay, and stable placeholders. */
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "logdx/diagnose.h"

static void check(ldx_redactor *rd, const char *in, const char *want)
{
    char *out = NULL;
    assert_int_equal(ldx_redact_text(rd, in, &out), LDX_OK);
    if (strcmp(out, want) != 0) fail_msg("redact '%s'\n  got  '%s'\n  want '%s'", in, out, want);
    free(out);
}

/* Each case in a fresh redactor, so numbering starts at 1. */
static void fresh(const char *in, const char *want)
{
    ldx_redactor *rd;
    assert_int_equal(ldx_redactor_create(&rd), LDX_OK);
    check(rd, in, want);
    ldx_redactor_destroy(rd);
}

static void test_ip(void **state)
{
    (void)state;
    fresh("connect to 10.1.2.3:29500 failed", "connect to ip-1:29500 failed");
    fresh("Using [0]eth0:192.168.0.17<0>", "Using [0]eth0:ip-1<0>");
    fresh("peers 10.0.0.1 and 10.0.0.2, again 10.0.0.1", "peers ip-1 and ip-2, again ip-1");
    fresh("ib0:fe80::1ff:fe23:4567:890a%ib0", "ib0:ip-1%ib0");
    fresh("addr 2001:0db8:85a3:0000:0000:8a2e:0370:7334.", "addr ip-1.");
    fresh("localGid fd00:1148:9000:5000:4:200:3:ff22 remoteGidsfd00:1148:9000:5000:4:200:3:ff1f",
          "localGid ip-1 remoteGidsip-2");
    /* not addresses: loopback, versions, times, C++ namespaces, big numbers */
    fresh("bind 127.0.0.1:1234 and 0.0.0.0", "bind 127.0.0.1:1234 and 0.0.0.0");
    fresh("NCCL version 2.18.3+cuda12.1, driver 535.104.05", "NCCL version 2.18.3+cuda12.1, driver 535.104.05");
    fresh("at 18:44:19.123 c10::add at::Tensor std::abs", "at 18:44:19.123 c10::add at::Tensor std::abs");
    fresh("value 1.2.3.4.5 and 300.1.1.1", "value 1.2.3.4.5 and 300.1.1.1");
}

static void test_host(void **state)
{
    (void)state;
    fresh("slurmstepd: error: *** JOB 12345 ON gpu-st-p4d-1 CANCELLED AT 2024",
          "slurmstepd: error: *** JOB 12345 ON host-1 CANCELLED AT 2024");
    fresh("srun: error: a100x07: task 3: Exited with exit code 1",
          "srun: error: host-1: task 3: Exited with exit code 1");
    fresh("SLURM_JOB_NODELIST=gpu[01-04]", "SLURM_JOB_NODELIST=host-1");
    fresh("host: trainbox7 hostname=Zeus", "host: host-1 hostname=host-2");
    fresh("node-0:15325:16199 [2] NCCL INFO", "host-1:15325:16199 [2] NCCL INFO");
    fresh("on node01 and node-12 nid001234 worker-3 llama-sft-worker-0",
          "on host-1 and host-2 host-3 host-4 host-5");
    fresh("ip-10-0-0-1.ec2.internal and ip-10-0-0-2", "host-1 and host-2");
    fresh("a100-42.cluster.example.com kube-7.svc db-1.corp s3.amazonaws.com",
          "host-1 host-2 host-3 host-4");
    /* names by their role, whatever their shape */
    fresh("MASTER_ADDR=gpu-a100-03 MASTER_PORT=29500 --master_addr hpc-gpu-07 --master-addr=dgx01",
          "MASTER_ADDR=host-1 MASTER_PORT=29500 --master_addr host-2 --master-addr=host-3");
    fresh("export MASTER_ADDR=10.0.0.5 MASTER_ADDR=localhost", "export MASTER_ADDR=ip-1 MASTER_ADDR=localhost");
    fresh("dgx-h100-17:2139:2250 [0] NCCL INFO Bootstrap", "host-1:2139:2250 [0] NCCL INFO Bootstrap");
    fresh("[rank3]: hpc-gpu-07:88:90 [3] NCCL WARN socket", "[rank3]: host-1:88:90 [3] NCCL WARN socket");
    fresh("pod/trainer-7f9c-x2kq8 evicted; Pod \"llama-sft-0\" restarted; pod=data-loader-5",
          "pod/host-1 evicted; Pod \"host-2\" restarted; pod=host-3");
    fresh("the launcher names rank 2 on host trainer as the first failure",
          "the launcher names rank 2 on host host-1 as the first failure");
    /* not host names: Python and PyTorch names, files, words */
    fresh("torch.distributed.elastic layer1.0.conv1.weight threading.local model.safetensors",
          "torch.distributed.elastic layer1.0.conv1.weight threading.local model.safetensors");
    fresh("on host localhost", "on host localhost");
    fresh("host memory node 3 nodes=4 https://pytorch.org/docs node: 3",
          "host memory node 3 nodes=4 https://pytorch.org/docs node: 3");
}

static void test_user(void **state)
{
    (void)state;
    fresh("File \"/home/alice/proj/train.py\", line 3", "File \"/home/user-1/proj/train.py\", line 3");
    fresh("/Users/bob.smith/x /scratch/alice/ckpt /home/alice", "/Users/user-1/x /scratch/user-2/ckpt /home/user-2");
    fresh("C:\\Users\\carol\\AppData", "C:\\Users\\user-1\\AppData");
    fresh("USER=dave SLURM_JOB_USER=dave", "USER=user-1 SLURM_JOB_USER=user-1");
    fresh("/data/imagenet /root/.cache /gpfs/home/x", "/data/imagenet /user-1/.cache /gpfs/home/user-2");
    fresh("File \"/root/proj/train.py\" and /usr/lib/root/x chroot/ ~/root/", "File \"/user-1/proj/train.py\" and /usr/lib/root/x chroot/ ~/root/");
}

static void test_token(void **state)
{
    (void)state;
    fresh("login with hf_AbCdEfGhIjKlMnOpQrStUv0123 now", "login with token-1 now");
    fresh("ghp_0123456789abcdefghijABCDEFGHIJ0123 github_pat_11ABCDEFG0123456789_abcdefghij",
          "token-1 token-2");
    fresh("OPENAI sk-proj-abcdefghijklmnopqrstuvwxyz012345", "OPENAI token-1");
    fresh("key AKIAIOSFODNN7EXAMPLE ok", "key token-1 ok");
    fresh("Authorization: Bearer eyJhbGciOi.eyJzdWIiOiIx.SflKxwRJSMeKK", "Authorization: Bearer token-1");
    fresh("HF_TOKEN=abc123def456ghi789 WANDB_API_KEY: 0123456789abcdef0123",
          "HF_TOKEN=token-1 WANDB_API_KEY: token-2");
    fresh("{\"password\": \"hunter2hunter2\"}", "{\"password\": \"token-1\"}");
    fresh("git clone https://oauth2:glpat-AbCdEfGhIjKlMnOpQrSt12@gitlab.com/a.git", "git clone https://oauth2:token-1@gitlab.com/a.git");
    fresh("GITLAB glpat-AbCdEfGhIjKlMnOpQrSt12 npm npm_abcdefghijklmnopqrstuvwxyz0123456789",
          "GITLAB token-1 npm token-2");
    fresh("wandb: Appending key 0123456789abcdef0123456789abcdef01234567 for api.wandb.ai to your netrc file",
          "wandb: Appending key token-1 for api.wandb.ai to your netrc file");
    fresh("git-hash=0123456789abcdef0123456789abcdef01234567", "git-hash=0123456789abcdef0123456789abcdef01234567");
    fresh("https://bob:s3cretpw@git.example.com/x.git", "https://bob:token-1@git.example.com/x.git");
    /* not tokens: tokenizer names and token counts, special tokens */
    fresh("tokenizer: LlamaTokenizerFast max_new_tokens=512 pad_token: <unk> num_tokens: 1234567",
          "tokenizer: LlamaTokenizerFast max_new_tokens=512 pad_token: <unk> num_tokens: 1234567");
    fresh("task-0123456789abcdefghijkl", "task-0123456789abcdefghijkl");
}

static void test_email(void **state)
{
    (void)state;
    fresh("report to alice.smith+ml@example.co.uk please", "report to email-1 please");
    fresh("decorator @torch.no_grad() and pkg@1.2", "decorator @torch.no_grad() and pkg@1.2");
}

/* Same text, same placeholder, across calls (files) of one redactor; the number of a
 * kind counts only that kind; a host name seen once is replaced wherever it stands. */
static void test_stable(void **state)
{
    (void)state;
    ldx_redactor *rd;
    assert_int_equal(ldx_redactor_create(&rd), LDX_OK);
    check(rd, "*** JOB 1 ON trainbox CANCELLED", "*** JOB 1 ON host-1 CANCELLED");
    check(rd, "10.0.0.9 /home/alice node07", "ip-1 /home/user-1 host-2");
    check(rd, "ssh trainbox failed; node07 and 10.0.0.9 and /home/alice again",
          "ssh host-1 failed; host-2 and ip-1 and /home/user-1 again");
    check(rd, "trainboxes trainbox.old x-trainbox", "trainboxes trainbox.old x-trainbox");
    check(rd, "10.0.0.10 /home/bob", "ip-2 /home/user-2");
    /* already redacted text stays as it is */
    check(rd, "host-1 /home/user-1 ip-1", "host-1 /home/user-1 ip-1");
    ldx_redactor_destroy(rd);
}

/* A whole file report: fields as well as text. */
static void test_file_report(void **state)
{
    (void)state;
    ldx_redactor *rd;
    assert_int_equal(ldx_redactor_create(&rd), LDX_OK);
    ldx_file_report *fr = calloc(1, sizeof(*fr));
    assert_non_null(fr);
    fr->path = strdup("/home/alice/runs/train.log");
    /* a present summary's strings are the report's */
    fr->launcher.host = strdup("gpubox");
    fr->launcher.signame = strdup("");
    fr->launcher.time = strdup("");
    fr->launcher.present = true;
    fr->launcher_note = strdup("the launcher names rank 1 on host gpubox as the first failure");
    assert_int_equal(ldx_msgs_create(&fr->errors), LDX_OK);
    ldx_msgs_add(fr->errors, LDX_MSG_ERROR, fr->path, 0, 0, "read error on gpubox");
    fr->n = 1;
    fr->diagnoses = calloc(1, sizeof(ldx_diagnosis));
    ldx_diagnosis *d = &fr->diagnoses[0];
    d->nevidence = 1;
    d->evidence = calloc(1, sizeof(ldx_evidence));
    d->evidence[0].host = strdup("10.9.8.7");
    d->evidence[0].text = strdup("10.9.8.7 gpubox token=abcdef0123456789");
    d->evidence[0].ncaps = 1;
    d->evidence[0].caps = calloc(1, sizeof(ldx_capture));
    d->evidence[0].caps[0].name = "who";
    d->evidence[0].caps[0].value = strdup("gpubox");

    assert_int_equal(ldx_file_report_redact(fr, rd), LDX_OK);
    assert_string_equal(fr->path, "/home/user-1/runs/train.log");
    assert_string_equal(fr->launcher.host, "host-1");
    assert_string_equal(fr->launcher_note, "the launcher names rank 1 on host host-1 as the first failure");
    assert_string_equal(d->evidence[0].host, "ip-1");
    assert_string_equal(d->evidence[0].text, "ip-1 host-1 token=token-1");
    assert_string_equal(d->evidence[0].caps[0].value, "host-1");
    const ldx_msg *m = ldx_msgs_get(fr->errors, 0);
    assert_string_equal(m->path, "/home/user-1/runs/train.log");
    assert_string_equal(m->text, "read error on host-1");

    ldx_file_report_destroy(fr);
    ldx_redactor_destroy(rd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ip),    cmocka_unit_test(test_host),   cmocka_unit_test(test_user),
        cmocka_unit_test(test_token), cmocka_unit_test(test_email),  cmocka_unit_test(test_stable),
        cmocka_unit_test(test_file_report),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
