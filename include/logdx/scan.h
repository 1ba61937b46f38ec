/* logdx scan: runs a compiled ruleset over lines and keeps, per rule and signal, what
 * the diagnosis needs: hit counts, the first and last evidence lines, the ranks seen,
 * and the numbers read from named captures. Memory per signal is bounded whatever the
 * length of the log.
 *
 * Ownership: a scanner borrows its ruleset (which must outlive it) and owns its state;
 * ldx_scanner_reset() clears it for the next input. One scanner per thread. */
#ifndef LOGDX_SCAN_H
#define LOGDX_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "logdx/core.h"
#include "logdx/input.h"
#include "logdx/rules.h"

typedef struct ldx_scanner ldx_scanner;

ldx_status ldx_scanner_create(ldx_scanner **out, const ldx_ruleset *rs);
void ldx_scanner_destroy(ldx_scanner *s);
void ldx_scanner_reset(ldx_scanner *s);
/* Feeds one line. With the prefilter engine lines are queued and scanned in batches:
 * what a scanner reports reflects them after ldx_scanner_flush() (which ldx_diagnose()
 * and ldx_analyze() call). */
ldx_status ldx_scanner_line(ldx_scanner *s, const ldx_line *line);
void ldx_scanner_flush(ldx_scanner *s);
/* Threads for one input: batches of lines are matched (prefilter and PCRE2) by n
 * worker threads side by side while this thread reads on, and applied here in input
 * order. Results are identical for any n; a no-op for n < 2 or where the prefilter
 * engine is not in use. */
ldx_status ldx_scanner_set_threads(ldx_scanner *s, int n);

/* Numbers: a scan reads a capture as a number only where a rule's condition or a
 * signal's where uses it (most captures are text for the report). With every on, it
 * reads them all, for ldx_explain()'s summary of each capture's values. */
void ldx_scanner_set_numbers(ldx_scanner *s, bool every);

uint64_t ldx_scanner_lines(const ldx_scanner *s);
uint64_t ldx_scanner_truncated(const ldx_scanner *s);

/* The distributed rank a line carries ("[rank3]:", "[default3]:", "[Rank 3]",
 * NCCL's "host:pid:tid [3] NCCL", Open MPI's "[1,3]<stderr>:", "rank 3"), or -1. */
int ldx_line_rank(const char *text, size_t len);

typedef enum {
    LDX_TS_NONE = 0,
    LDX_TS_WALL,    /* a full date: seconds since 1970 (UTC as written) */
    LDX_TS_NOYEAR,  /* month and day only (glog, syslog): comparable within one log */
    LDX_TS_BOOT     /* dmesg: seconds since boot */
} ldx_ts_kind;

/* torchrun / torch.distributed.elastic's failure summary, the block that starts with
 * "Root Cause (first observed failure):": which rank stopped first, and how. */
typedef struct {
    bool present;
    uint64_t line;        /* where the block starts */
    int rank;             /* global rank, -1 unknown */
    int local_rank;       /* -1 unknown */
    bool has_exitcode;
    int exitcode;         /* negative: killed by signal -exitcode */
    int signal;           /* 0 none */
    const char *signame;  /* "SIGKILL" when the summary names it, else "" */
    const char *host;     /* "" when it names none */
    const char *time;     /* as written, "" when none */
    bool error_file_missing; /* "error_file: <N/A>": the rank's own error is elsewhere */
    unsigned other_failures; /* further failed ranks listed under "Failures:" */
} ldx_launcher_info;

/* The version of a component ("torch", "cuda", "driver", "nccl", "deepspeed",
 * "transformers", "accelerate", "lightning", "vllm", "jax", "megatron", "peft") as the
 * log's banners give it, or NULL. */
const char *ldx_scanner_version(const ldx_scanner *s, const char *component);

/* The launcher summary seen by the scan, if any. */
const ldx_launcher_info *ldx_scanner_launcher(const ldx_scanner *s);

/* Removes ANSI escape sequences (CSI, OSC, two-byte escapes) from src into dst, which
 * must hold len bytes; returns the new length. */
size_t ldx_strip_ansi(const char *src, size_t len, char *dst);

/* Makes text fit for a report: control bytes become spaces, invalid UTF-8 becomes '?',
 * and it is cut to at most max bytes (at a character boundary, marked with "..."). The
 * result is a NUL-terminated malloc'd string. */
char *ldx_display_text(const char *text, size_t len, size_t max);

#endif
