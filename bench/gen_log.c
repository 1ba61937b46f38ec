/* gen_log: writes a synthetic but realistic ML training log to standard output.
 *
 *   gen_log SIZE [SEED]      SIZE in bytes, or with a K/M/G suffix (powers of 1024)
 *
 * The output is exactly SIZE bytes and depends only on SIZE and SEED (a fixed-seed
 * xorshift64* generator, no clock, no locale), so two machines benchmark the same bytes.
 *
 * What it mixes, and why: the scan engine's cost is set by the lines it must look at
 * twice, so the log has to look like the real thing, not like random text.
 *   - tqdm progress bars redrawn with \r (many short "lines" per physical line);
 *   - Hugging Face Trainer metric dicts and Megatron-LM iteration lines (digits, "loss",
 *     "grad norm": words that many rules' literals share);
 *   - NCCL INFO chatter with host:pid:tid [rank] prefixes, torchrun [rankN]: and
 *     [defaultN]: prefixes, Python logging and glog time stamps, benign warnings;
 *   - now and then ANSI colours and a dict dump of a few KB on one line;
 *   - about one real error line per 5 MB (taken from the real logs in the corpus), so the
 *     engine's confirm path and the evidence bookkeeping run as they do on a failed job.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- deterministic randomness ------------------------------------------------------ */

static uint64_t rng_state;

static uint64_t rnd(void)
{
    /* xorshift64*: tiny, fast and identical everywhere */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1DULL;
}

static unsigned below(unsigned n) { return (unsigned)((rnd() >> 32) % n); }
static double unit(void) { return (double)(rnd() >> 11) / 9007199254740992.0; }
static const char *pick(const char *const *v, unsigned n) { return v[below(n)]; }
#define PICK(arr) pick(arr, (unsigned)(sizeof(arr) / sizeof(arr[0])))

/* ---- output: one buffer, cut at exactly the requested size ------------------------- */

static char obuf[1 << 20];
static size_t olen;
static uint64_t written, limit;

static void flush_out(void)
{
    if (olen && fwrite(obuf, 1, olen, stdout) != olen) {
        perror("gen_log: write");
        exit(1);
    }
    olen = 0;
}

static void put(const char *s, size_t n)
{
    while (n && written < limit) {
        if (olen == sizeof obuf) flush_out(); /* flushing lazily keeps the last byte here */
        size_t room = sizeof obuf - olen;
        uint64_t left = limit - written;
        size_t k = n < room ? n : room;
        if (k > left) k = (size_t)left;
        memcpy(obuf + olen, s, k);
        olen += k, written += k, s += k, n -= k;
    }
}

__attribute__((format(printf, 1, 2))) static void out(const char *fmt, ...)
{
    char tmp[8192];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    put(tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

/* ---- the simulated job ------------------------------------------------------------- */

enum { NRANKS = 8 };
static const char *const hosts[] = {"gpu-node-03", "gpu-node-04", "dgx-a100-17", "ip-10-0-3-41"};
static unsigned step = 1, total_steps = 100000;
static unsigned hh = 10, mm, ss, ms;   /* wall clock of the simulated job */
static double loss = 7.9;

static void tick(void)
{
    ms += 1 + below(900);
    if (ms >= 1000) ms -= 1000, ss++;
    if (ss >= 60) ss -= 60, mm++;
    if (mm >= 60) mm -= 60, hh = (hh + 1) % 24;
}

/* a torchrun / elastic-agent style rank prefix on some lines */
static void rank_prefix(void)
{
    unsigned r = below(NRANKS), k = below(10);
    if (k < 2) out("[rank%u]:", r);
    else if (k < 3) out("[default%u]:", r);
}

static void tqdm_bar(void)
{
    /* one physical line: the bar redrawn N times with \r, as a file captures it */
    unsigned n = 4 + below(20), total = 500 + below(5000), at = below(total / 2);
    const char *desc = below(2) ? "Training" : (below(2) ? "Epoch 1" : "Map");
    for (unsigned i = 0; i < n; i++) {
        at += 1 + below(total / 40 + 1);
        if (at > total) at = total;
        unsigned pct = at * 100 / total, fill = pct / 10;
        out("\r%s: %3u%%|", desc, pct);
        for (unsigned b = 0; b < 10; b++) put(b < fill ? "\xe2\x96\x88" : " ", b < fill ? 3 : 1);
        out("| %u/%u [%02u:%02u<%02u:%02u, %5.2fit/s]", at, total, mm, ss, below(60), below(60),
            1.0 + unit() * 8);
    }
    put("\n", 1);
}

static void hf_dict(void)
{
    loss = loss * 0.9995 + 0.01 * unit();
    rank_prefix();
    out("{'loss': %.4f, 'grad_norm': %.6f, 'learning_rate': %.12g, 'epoch': %.2f}\n", loss,
        0.2 + unit() * 2, 2e-5 * (1.0 - (double)step / total_steps), step / 3000.0);
}

static void megatron_iter(void)
{
    step++;
    out(" iteration %8u/%8u | consumed samples: %12u | elapsed time per iteration (ms): "
        "%.1f | learning rate: %.6E | global batch size: %5u | lm loss: %.6E | loss scale: "
        "%.1f | grad norm: %.3f | number of skipped iterations: %3u | number of nan "
        "iterations: %3u |\n",
        step, total_steps, step * 128, 900 + unit() * 600, 1.5e-4 * (1.0 - (double)step / total_steps),
        128u, loss + unit(), below(50) ? 65536.0 : 32768.0, 0.3 + unit(), 0u, 0u);
}

static void nccl_info(void)
{
    static const char *const msg[] = {
        "Bootstrap : Using eth0:10.0.3.41<0>",
        "NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB ; OOB eth0:10.0.3.41<0>",
        "Using network IB",
        "Setting affinity for GPU %u to ffff,ffffffff",
        "Channel %02u/08 :    0   1   2   3   4   5   6   7",
        "Channel %02u/0 : %u[%u] -> %u[%u] via P2P/IPC/read",
        "Connected all rings",
        "Connected all trees",
        "threadThresholds 8/8/64 | 64/8/64 | 512 | 512",
        "comm 0x55d4c3a0e2f0 rank %u nranks 8 cudaDev %u busId 3b000 commId 0x8ab3c1 - Init COMPLETE",
        "NCCL_P2P_LEVEL set by environment to NVL",
        "%u coll channels, 0 collnet channels, 0 nvls channels, 8 p2p channels, 2 p2p channels per peer",
    };
    unsigned r = below(NRANKS), pid = 41230 + r;
    rank_prefix();
    out("%s:%u:%u [%u] NCCL INFO ", PICK(hosts), pid, pid + below(3) * 57, r);
    out(PICK(msg), below(8), r, r, (r + 1) % 8, (r + 1) % 8);
    put("\n", 1);
}

static void py_logging(void)
{
    static const char *const what[] = {
        "***** Running training *****",
        "  Num examples = 1,281,167",
        "  Instantaneous batch size per device = 8",
        "  Gradient Accumulation steps = 4",
        "Saving model checkpoint to /checkpoints/run-42/checkpoint-%u",
        "Configuration saved in /checkpoints/run-42/checkpoint-%u/config.json",
        "Deleting older checkpoint [/checkpoints/run-42/checkpoint-%u] due to args.save_total_limit",
        "loading file tokenizer.json from cache at /root/.cache/huggingface/hub/tokenizer.json",
        "Evaluating at step %u: eval_loss does not improve",
        "Using auto half precision backend",
    };
    static const char *const lvl[] = {"INFO", "INFO", "INFO", "WARNING", "DEBUG"};
    const char *l = PICK(lvl);
    int colour = below(33) == 0;
    tick();
    rank_prefix();
    if (below(2))
        out("[%s%s%s|trainer.py:%u] 2024-05-12 %02u:%02u:%02u,%03u >> ", colour ? "\x1b[32m" : "",
            l, colour ? "\x1b[0m" : "", 1800 + below(900), hh, mm, ss, ms);
    else
        out("2024-05-12 %02u:%02u:%02u,%03u - %s%s%s - __main__ - ", hh, mm, ss, ms,
            colour ? "\x1b[1;34m" : "", l, colour ? "\x1b[0m" : "");
    out(PICK(what), step);
    put("\n", 1);
}

static void glog_line(void)
{
    static const char *const what[] = {
        "Initializing GCS client with 8 threads",
        "Loaded shard %u of the dataset index",
        "XLA service 0x5581d2a0 initialized for platform CUDA (this does not guarantee that XLA will be used). Devices:",
        "  StreamExecutor device (%u): NVIDIA A100-SXM4-80GB, Compute Capability 8.0",
        "Using BFC allocator.",
        "Created device /job:localhost/replica:0/task:0/device:GPU:%u with 78933 MB memory",
    };
    tick();
    out("I0512 %02u:%02u:%02u.%06u %u %s:%u] ", hh, mm, ss, ms * 1000 + below(1000), 4021 + below(8),
        below(2) ? "gpu_device.cc" : "service.cc", 100 + below(900));
    out(PICK(what), below(8));
    put("\n", 1);
}

static void warning_line(void)
{
    static const char *const w[] = {
        "/usr/lib/python3/dist-packages/torch/utils/checkpoint.py:91: UserWarning: None of the "
        "inputs have requires_grad=True. Gradients will be None",
        "  warnings.warn(",
        "[W reducer.cpp:1300] Warning: find_unused_parameters=True was specified in DDP "
        "constructor, but did not find any unused parameters in the forward pass.",
        "/opt/conda/lib/python3.10/site-packages/transformers/modeling_utils.py:1052: "
        "FutureWarning: The `device` argument is deprecated and will be removed in v5.",
        "huggingface/tokenizers: The current process just got forked, after parallelism has "
        "already been used. Disabling parallelism to avoid deadlocks...",
    };
    rank_prefix();
    out("%s\n", PICK(w));
}

static void plain_print(void)
{
    static const char *const p[] = {
        "Epoch %u step %u: loss=%.4f lr=%.3e tokens/s=%.0f",
        "step %u/%u | train_loss %.4f | lr %.3e | throughput %.0f samples/s",
        "eval step %u/%u: accuracy=%.4f, f1=%.3e, samples=%.0f",
    };
    rank_prefix();
    out(PICK(p), step / 1000 + 1, step, loss, 1e-4 * unit(), 20000 + unit() * 10000);
    put("\n", 1);
}

static void long_dump(void)
{
    /* the model / config dump some scripts print on one line: a few KB */
    unsigned n = 30 + below(120);
    out("Model state: {");
    for (unsigned i = 0; i < n; i++)
        out("%s'model.layers.%u.%s.weight': torch.Size([%u, %u])", i ? ", " : "", i / 7,
            (i % 7 < 4) ? "self_attn.q_proj" : "mlp.gate_proj", 4096u, i % 3 ? 4096u : 11008u);
    out("}\n");
}

/* Real error lines, copied from the logs in the labelled corpus (shared/corpus/dev). */
static const char *const real_errors[] = {
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total "
    "capacity of 139.80 GiB of which 293.12 MiB is free. Including non-PyTorch memory, this "
    "process has 139.51 GiB memory in use. Of the allocated memory 81.45 GiB is allocated by "
    "PyTorch, and 57.55 GiB is reserved by PyTorch but unallocated. If reserved but "
    "unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True "
    "to avoid fragmentation.",
    "[rank5]:[E ProcessGroupNCCL.cpp:563] [Rank 5] Watchdog caught collective operation "
    "timeout: WorkNCCL(SeqNum=15734, OpType=ALLREDUCE, NumelIn=220084533, "
    "NumelOut=220084533, Timeout(ms)=600000) ran for 600037 milliseconds before timing out.",
    "torch.distributed.DistBackendError: NCCL error in: "
    "/pytorch/torch/csrc/distributed/c10d/NCCLUtils.hpp:268, remote process exited or there "
    "was a network error, NCCL version 2.21.5",
    "RuntimeError: CUDA error: an illegal memory access was encountered",
    "RuntimeError: DataLoader worker (pid 56811) is killed by signal: Bus error. It is "
    "possible that dataloader's workers are out of shared memory. Please try to raise your "
    "shared memory limit.",
    "FloatingPointError: Loss became infinite or NaN at iteration=0!",
    "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to "
    "allocate 4770354232 bytes.",
    "slurmstepd: error: *** JOB 494583 ON gpu-node-03 CANCELLED AT 2024-04-20T09:09:37 DUE TO "
    "TIME LIMIT ***",
    "OSError: [Errno 28] No space left on device",
    "RuntimeError: CUDA error: uncorrectable ECC error encountered",
    "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
};

static uint64_t parse_size(const char *s)
{
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    switch (toupper((unsigned char)*end)) {
    case 'K': v <<= 10, end++; break;
    case 'M': v <<= 20, end++; break;
    case 'G': v <<= 30, end++; break;
    default: break;
    }
    if (end == s || *end || !v) {
        fprintf(stderr, "gen_log: SIZE must be a positive number of bytes (K/M/G allowed), not '%s'\n", s);
        exit(2);
    }
    return v;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        fputs("usage: gen_log SIZE [SEED]   (SIZE in bytes; K, M, G suffixes allowed)\n", stderr);
        return 2;
    }
    limit = parse_size(argv[1]);
    uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 1;
    rng_state = seed * 0x9E3779B97F4A7C15ULL ^ 0xD1B54A32D192ED03ULL;
    if (!rng_state) rng_state = 1;

    /* the next real error comes after 2.5..7.5 MB: one per 5 MB on average */
    uint64_t next_error = 2500000 + (uint64_t)(unit() * 5000000);
    while (written < limit) {
        if (written >= next_error) {
            rank_prefix();
            out("%s\n", PICK(real_errors));
            next_error = written + 2500000 + (uint64_t)(unit() * 5000000);
            continue;
        }
        unsigned k = below(1000);
        if (k < 150) tqdm_bar();
        else if (k < 260) hf_dict();
        else if (k < 420) megatron_iter();
        else if (k < 620) nccl_info();
        else if (k < 770) py_logging();
        else if (k < 870) glog_line();
        else if (k < 920) warning_line();
        else if (k < 995) plain_print();
        else long_dump();
    }
    /* end on a line end, as a log that was closed cleanly does */
    if (olen) obuf[olen - 1] = '\n';
    flush_out();
    return fflush(stdout) ? 1 : 0;
}
