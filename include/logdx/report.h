/* logdx report: prints file reports in one of several formats. Each format is one
 * file in src/report/ and one entry in a table; reporters see only ldx_file_report.
 *
 * Ownership: a report borrows its FILE and the file reports passed to it (it copies
 * what it must keep, so callers may destroy a file report after passing it). */
#ifndef LOGDX_REPORT_H
#define LOGDX_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "logdx/diagnose.h"

typedef struct {
    bool color;          /* ANSI colour (text format) */
    bool quiet;          /* one line per diagnosis (text format) */
    bool brief;          /* the story, titles, evidence, root cause, two fix steps (text) */
    int fail_on;         /* severity threshold, -1 for never: marks what fails */
    int width;           /* text width in columns; 0 = 100 */
} ldx_report_opts;

typedef struct ldx_report ldx_report;

/* What a report may say about the run as a whole, beside the inputs (jsonl's last line):
 * the rule set it used and, for one shard of a split scan, which one. */
typedef struct {
    uint64_t ruleset;    /* ldx_ruleset_digest() of the rules the run used */
    bool sharded;        /* --shard K/N: the run scanned shard index of count */
    uint32_t shard_index, shard_count;
    uint64_t inputs;     /* the inputs the run found, in every shard (each shard finds all) */
    uint64_t binary_skipped; /* files met in folders that were binary and left out */
} ldx_run_info;

/* Names of the formats, NULL-terminated, for --help and validation. */
const char *const *ldx_report_formats(void);
/* LDX_ENOTFOUND for an unknown format name. */
ldx_status ldx_report_create(ldx_report **out, const char *format,
                             const ldx_report_opts *opts, FILE *fp);
/* What the report says about the run (copied); any time before ldx_report_finish(). */
void ldx_report_set_run(ldx_report *r, const ldx_run_info *run);
ldx_status ldx_report_file(ldx_report *r, const ldx_file_report *fr);
/* Ends the output; global errors are problems outside any one input. */
ldx_status ldx_report_finish(ldx_report *r, const ldx_msgs *global_errors);
void ldx_report_destroy(ldx_report *r);

/* Reads back a file's line of --format jsonl (len bytes of json, one object): the file
 * report it was printed from, for printing it in another format (logdx merge). Its rules,
 * causes, signals and code tables are looked up by id and name in rs, the rule set the scan
 * used (check ldx_ruleset_digest against the line's run), which must outlive the report.
 * LDX_EINVAL with the reason in err when the line is not such a report, or names a rule rs
 * lacks. Destroy with ldx_file_report_destroy. */
ldx_status ldx_file_report_from_json(const char *json, size_t len, const ldx_ruleset *rs,
                                     ldx_file_report **out, char *err, size_t errlen);


#endif
