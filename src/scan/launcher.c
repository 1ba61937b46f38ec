/* Reads torch.distributed.elastic's ChildFailedError summary:
 *
 *   Failures:
 *     <NO_OTHER_FAILURES>          (or "[1]:" entries with the same fields)
 *   ------------------------------------------------------------
 *   Root Cause (first observed failure):
 *   [0]:
 *     time      : 2023-06-01_10:00:00
 *     host      : node-1
 *     rank      : 2 (local_rank: 2)
 *     exitcode  : -9 (pid: 1234)
 *     error_file: <N/A>
 *     traceback : Signal 9 (SIGKILL) received by PID 1234
 *   ============================================================
 *
 * The launcher knows which rank stopped first, which is the best single hint to the
 * initiating failure in a multi-rank log, and whether that rank's own error is in the
 * log at all. Lines may carry prefixes (timestamps, "[default0]:"), so keys are found
 * after leading blanks and any such prefix. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "launcher.h"
#include "../core/util.h"

static const char *find(const char *s, size_t n, const char *what)
{
    return ldxi_memmem(s, n, what, strlen(what));
}

static void copy_value(char *dst, size_t size, const char *v, const char *end)
{
    while (v < end && isspace((unsigned char)*v)) v++;
    while (end > v && isspace((unsigned char)end[-1])) end--;
    size_t n = (size_t)(end - v);
    if (n >= size) n = size - 1;
    memcpy(dst, v, n);
    dst[n] = '\0';
}

/* "  key : value" -> key and value spans; false when the line is not of that shape. */
static bool key_value(const char *s, size_t n, const char **key, const char **val,
                      const char *const keys[])
{
    for (const char *const *k = keys; *k; k++) {
        const char *p = find(s, n < 200 ? n : 200, *k);
        if (!p) continue;
        const char *q = p + strlen(*k);
        const char *end = s + n;
        while (q < end && *q == ' ') q++;
        if (q >= end || *q != ':') continue;
        if (p > s && (isalnum((unsigned char)p[-1]) || p[-1] == '_')) continue;
        *key = *k;
        *val = q + 1;
        return true;
    }
    return false;
}

/* strtol within [p, end): the line is not NUL-terminated. */
static long num_in(const char *p, const char *end, const char **after)
{
    while (p < end && *p == ' ') p++;
    bool neg = p < end && *p == '-';
    if (neg || (p < end && *p == '+')) p++;
    long v = 0;
    const char *start = p;
    while (p < end && *p >= '0' && *p <= '9' && v < 100000000) v = v * 10 + (*p++ - '0');
    if (after) *after = p == start ? NULL : p;
    return neg ? -v : v;
}

static const char *const keys[] = {"time", "host", "rank", "exitcode", "error_file",
                                   "traceback", NULL};

/* A summary cut off (a log that ends inside it, a paste of its top) is not followed for
 * ever: torchrun writes a key line every one to three lines. */
enum { SUMMARY_IDLE_LINES = 32 };

void ldxi_launcher_feed(ldxi_launcher *l, const char *s, size_t n, uint64_t lineno, bool header)
{
    if (n > 4096) return;
    if (header && find(s, n, "Root Cause (first observed failure):")) {
        memset(&l->info, 0, sizeof l->info);
        l->signame[0] = l->host[0] = l->time[0] = '\0';
        l->info.signame = l->signame;
        l->info.host = l->host;
        l->info.time = l->time;
        l->info.present = true;
        l->info.line = lineno;
        l->info.rank = l->info.local_rank = -1;
        l->info.other_failures = l->pending_failures;
        l->state = 2;
        l->idle = 0;
        return;
    }
    if (header && find(s, n, "Failures:") && !find(s, n, "Root Cause")) {
        l->state = 1;
        l->idle = 0;
        l->pending_failures = 0;
        return;
    }
    if (l->state == 0) return;
    if (find(s, n, "=====")) {
        l->state = 0;
        return;
    }
    if (++l->idle > SUMMARY_IDLE_LINES) {
        l->state = 0;
        return;
    }
    if (l->state == 1) {
        /* another failed rank: each entry has its own "rank :" line */
        const char *key, *val;
        if (key_value(s, n, &key, &val, keys)) {
            l->idle = 0;
            if (!strcmp(key, "rank")) l->pending_failures++;
        }
        return;
    }
    const char *key, *val;
    if (!key_value(s, n, &key, &val, keys)) return;
    l->idle = 0;
    const char *end = s + n;
    ldx_launcher_info *li = &l->info;
    if (!strcmp(key, "time")) {
        copy_value(l->time, sizeof l->time, val, end);
    } else if (!strcmp(key, "host")) {
        copy_value(l->host, sizeof l->host, val, end);
    } else if (!strcmp(key, "rank")) {
        li->rank = (int)num_in(val, end, NULL);
        const char *lr = find(val, (size_t)(end - val), "local_rank:");
        if (lr) li->local_rank = (int)num_in(lr + 11, end, NULL);
    } else if (!strcmp(key, "exitcode")) {
        const char *e;
        long v = num_in(val, end, &e);
        if (e) {
            li->has_exitcode = true;
            li->exitcode = (int)v;
            if (v < 0) li->signal = (int)-v;
        }
    } else if (!strcmp(key, "error_file")) {
        li->error_file_missing = find(val, (size_t)(end - val), "<N/A>") != NULL;
    } else if (!strcmp(key, "traceback")) {
        const char *sig = find(val, (size_t)(end - val), "Signal ");
        if (sig) {
            li->signal = (int)num_in(sig + 7, end, NULL);
            const char *open = memchr(sig, '(', (size_t)(end - sig));
            const char *close = open ? memchr(open, ')', (size_t)(end - open)) : NULL;
            if (open && close) copy_value(l->signame, sizeof l->signame, open + 1, close);
        }
    }
}
