/* The engine's plumbing: what the CLI, the tests and the bench use beyond the public
 * API of include/logdx/. Whole-line chunks read in place into a scanner's batches, the
 * cost counters of `rules profile` and `--stats`, the pattern hygiene of `rules lint
 * --perf`, paragraph wrapping for the text report. Defined in their layers (input, scan,
 * rules, report); not installed, and not exported from liblogdx.so (ldxi_ names). */
#ifndef LDX_PLUMBING_H
#define LDX_PLUMBING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "logdx/input.h"
#include "logdx/rules.h"
#include "logdx/scan.h"

/* ---- input (reader.c) ---- */
/* Whole lines as they stand in the input, for a caller that splits them itself (the
 * scanner's batches, on their worker threads): text[0..len) ends with a line end ("\n",
 * "\r" or "\r\n", split as ldx_reader_next() would) and holds `lines` lines, the first
 * numbered first_line; no line in it is longer than len, and ANSI escapes are as they
 * came. Valid until the next call. */
typedef struct {
    const char *text;
    size_t len;
    uint64_t first_line, lines;
} ldxi_chunk;
/* The whole lines of the block at hand, at most max bytes (at most LDX_LINE_MAX); false
 * when the next line does not lie whole in it (it straddles blocks, or comes after the
 * end): ldx_reader_next() gives that one. The two may be called in any order. */
bool ldxi_reader_chunk(ldx_reader *r, size_t max, ldxi_chunk *out);
#define LDXI_CHUNK_MAX ((size_t)256 << 10) /* a good max: a block */
/* The same read straight into dst[0..cap) (cap at most LDXI_CHUNK_MAX), where the caller
 * keeps the lines (a scanner's batch: ldxi_scanner_chunk_room): the source's bytes are
 * not copied out of a block of the reader's, only the piece of a line the read cut.
 * False (nothing written that counts) where the reader holds whole lines of its own,
 * a line it is piecing, or a memory input: ldxi_reader_chunk() and ldx_reader_next()
 * take those; and at the end of input. */
bool ldxi_reader_chunk_into(ldx_reader *r, char *dst, size_t cap, ldxi_chunk *out);

/* ---- scan (scanner.c, tail.c) ---- */
/* Feeds whole lines at once (ldxi_reader_chunk): the prefilter engine's batches take
 * them as they are and split them on their worker threads. Where that engine is not in
 * use, ldxi_scanner_takes_chunks() is false; a chunk fed anyway is split here. */
bool ldxi_scanner_takes_chunks(const ldx_scanner *s);
ldx_status ldxi_scanner_chunk(ldx_scanner *s, const ldxi_chunk *c);
/* Or in place: room at the end of the batch being filled (cap bytes at most) for
 * ldxi_reader_chunk_into(), which spares a copy of every byte; the chunk read there is
 * then handed over with ldxi_scanner_chunk_placed() before anything else is fed. NULL
 * where chunks are not taken (then use ldxi_scanner_chunk). */
char *ldxi_scanner_chunk_room(ldx_scanner *s, size_t *cap);
ldx_status ldxi_scanner_chunk_placed(ldx_scanner *s, const ldxi_chunk *c);
/* Profiling (`logdx rules profile`): with it on, every PCRE2 run is timed. The cost of
 * a rule on what was scanned: PCRE2 runs, matches, nanoseconds (sampled when off). */
typedef struct {
    uint64_t calls, matches, ns;
} ldxi_rule_cost;
void ldxi_scanner_set_profile(ldx_scanner *s, bool on);
void ldxi_scanner_rule_cost(const ldx_scanner *s, size_t rule, ldxi_rule_cost *out);
/* The same for one signal of a rule; zeros unless profiling was on. */
void ldxi_scanner_signal_cost(const ldx_scanner *s, size_t rule, size_t sig, ldxi_rule_cost *out);
/* The prefilter's own share (Vectorscan over the batches of lines): bytes it scanned
 * (the text once per database: twice when user rules have one of their own next to the
 * built-in one), its time, and the (line, signal) pairs it handed to PCRE2; the lines
 * it was given, and those of them whose result the line memo knew (a line that differs
 * from an earlier one only in its digits is not scanned again). All zero without it. */
typedef struct {
    uint64_t bytes, ns, pairs;
    uint64_t lines, known;
} ldxi_prefilter_cost;
void ldxi_scanner_prefilter_cost(const ldx_scanner *s, ldxi_prefilter_cost *out);
/* Tail signals (`tail: N`, matched on the log's last lines once they are known): how
 * many last lines they were matched on, and their PCRE2 runs there. Zeros without them. */
void ldxi_scanner_tail_cost(const ldx_scanner *s, uint64_t *lines, uint64_t *runs);

/* ---- rules (literal.c, digits.c, steps.c, compiler.c) ---- */
/* Pattern hygiene, for `rules lint --perf` and `rules profile`: the longest fixed string
 * every match of the signal's pattern must contain (an estimate), and whether the
 * prefilter takes the signal (false: PCRE2 runs it on every line). */
size_t ldxi_signal_literal(const ldx_signal_info *si);
/* Whether the pattern treats the ten digits alike (\d, \w, [0-9a-f], never a literal
 * digit, [1-9] or a back reference): then the scanner matches it once per line shape
 * (the line with its digits as '0') and reuses the result for every line of that
 * shape; a pattern that reads digits runs on each such line. */
bool ldxi_signal_digit_blind(const ldx_signal_info *si);
bool ldxi_ruleset_prefiltered(const ldx_ruleset *rs, size_t rule, size_t sig);
/* How hard PCRE2 works on the rule's own example lines: the most pattern items it
 * visits per byte of one line (counted, not timed: the same on every machine), and on
 * which line of the rule file that example line stands (0: unknown). A fixed-string
 * search takes 1-3; a pattern that backtracks, tens. */
double ldxi_signal_steps(const ldx_rule_info *r, size_t sig, unsigned *worst_line);
/* Whether one search of a long line (256 KiB of the rule's examples among the filler of
 * logged dicts) stays within PCRE2's limits, scaled from the scanner's for a 1 MiB
 * line: a pattern with no fixed string to start from (a lookahead over the whole line,
 * a leading .*) runs out of them on long lines and misses what they say. */
bool ldxi_signal_long_line_ok(const ldx_rule_info *r, size_t sig);
/* Is there a prefilter at all (built with Vectorscan, and not LOGDX_ENGINE=pcre2)? */
bool ldxi_ruleset_has_prefilter(const ldx_ruleset *rs);

/* ---- report (wrap.c) ---- */
/* Prints a paragraph wrapped at spaces to width columns, each row indented by indent;
 * the first row starts with first (right-aligned in the indent) when it is not NULL. */
void ldxi_report_wrap(FILE *fp, const char *text, int indent, int width, const char *first);

#endif
