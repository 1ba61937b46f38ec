/* logdx scan: runs a compiled ruleset over lines and keeps, per rule and signal, what
 * the diagnosis needs: hit counts, the first and last evidence lines, the ranks seen,
 * and the numbers read from named captures. Memory per signal is bounded whatever the
 * length of the log.
 *
 * Ownership: a scanner borrows its ruleset (which must outlive it) and owns its state;
 * ldx_scanner_reset() clears it for the next input. One scanner per thread. */
#ifndef LOGDX_SCAN_H
#define LOGDX_SCAN_H

#include <stddef.h>
#include <stdint.h>

#include "logdx/core.h"
#include "logdx/input.h"
#include "logdx/rules.h"

typedef struct ldx_scanner ldx_scanner;

ldx_status ldx_scanner_create(ldx_scanner **out, const ldx_ruleset *rs);
void ldx_scanner_destroy(ldx_scanner *s);
void ldx_scanner_reset(ldx_scanner *s);
ldx_status ldx_scanner_line(ldx_scanner *s, const ldx_line *line);
uint64_t ldx_scanner_lines(const ldx_scanner *s);
uint64_t ldx_scanner_truncated(const ldx_scanner *s);

/* The distributed rank a line carries ("[rank3]:", "[default3]:", "[Rank 3]",
 * NCCL's "host:pid:tid [3] NCCL", Open MPI's "[1,3]<stderr>:", "rank 3"), or -1. */
int ldx_line_rank(const char *text, size_t len);

/* Removes ANSI escape sequences (CSI, OSC, two-byte escapes) from src into dst, which
 * must hold len bytes; returns the new length. */
size_t ldx_strip_ansi(const char *src, size_t len, char *dst);

/* Makes text fit for a report: control bytes become spaces, invalid UTF-8 becomes '?',
 * and it is cut to at most max bytes (at a character boundary, marked with "..."). The
 * result is a NUL-terminated malloc'd string. */
char *ldx_display_text(const char *text, size_t len, size_t max);

#endif
