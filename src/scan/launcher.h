/* The launcher-summary reader, fed every line by the scanner. */
#ifndef LDX_SCAN_LAUNCHER_H
#define LDX_SCAN_LAUNCHER_H

#include "logdx/scan.h"

typedef struct {
    int state;                 /* 0 outside, 1 in "Failures:", 2 in the root cause */
    unsigned pending_failures;
    unsigned idle;             /* lines since the summary's header or last key line */
    ldx_launcher_info info;    /* the last complete summary wins; its strings are these: */
    char signame[16], host[64], time[40];
} ldxi_launcher;

/* header: whether the line may hold the summary's header lines ("Failures:", "Root Cause"):
 * false when the hint that stands for them did not fire, so a followed line skips them. */
void ldxi_launcher_feed(ldxi_launcher *l, const char *text, size_t len, uint64_t lineno, bool header);

#endif
