/* logdx diagnose: turns a finished scan into a ranked list of diagnoses, plain data
 * that reporters print without knowing anything about the scan.
 *
 * Ownership: an ldx_file_report owns its strings and arrays; rule pointers point into
 * the ruleset, which must outlive the report. */
#ifndef LOGDX_DIAGNOSE_H
#define LOGDX_DIAGNOSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "logdx/core.h"
#include "logdx/input.h"
#include "logdx/rules.h"
#include "logdx/scan.h"

typedef enum { LDX_ROLE_INITIATING = 0, LDX_ROLE_COLLATERAL, LDX_ROLE_CONTRIBUTING } ldx_role;

const char *ldx_role_name(ldx_role r);

typedef struct {
    const char *name;
    char *value;
} ldx_capture;

typedef struct {
    uint64_t line;
    int rank;            /* -1: none */
    ldx_ts_kind ts_kind; /* when the line says it was written */
    double ts;
    char *host;          /* the host the line names, or NULL */
    long step;           /* -1 when none */
    char *text;
    const char *signal;
    ldx_capture *caps;
    size_t ncaps;
    const ldx_table_info *table; /* the code table the signal looks a capture up in, or NULL */
    long row;                    /* the captured code's row there, -1: not in the table */
    int code_cap;                /* which of caps holds the code looked up, -1: none */
} ldx_evidence;

/* What to do now, from a code table's action column (the strongest action of any
 * evidence line's code: ignore < check_app < restart_app < reset_gpu < reboot_node <
 * drain < replace < contact_support). Strings belong to the ruleset, but code_value. */
typedef struct {
    const char *action;      /* NULL: no code table says */
    const char *text;        /* the action_text column, or NULL */
    const char *table;       /* which table, and the code on which line */
    char *code_value;
    uint64_t line;
} ldx_action;

/* A series of numbers that made a trend condition true, for display. */
typedef struct {
    const char *signal, *capture;
    bool rising;
    int rank;            /* -1: lines without a rank */
    uint64_t points;
    double first, last;
    double *values;      /* a sample of the series, in order */
    size_t nvalues;
    bool bytes;          /* the log wrote the values with a byte unit ("11.2 GiB", "812MB"):
                          * show them so; otherwise they are plain numbers (a loss scale) */
} ldx_trend;

typedef struct {
    const ldx_rule_info *rule;
    double confidence;   /* 0..1, from the evidence */
    double score;        /* ranking key, higher first */
    ldx_role role;
    const char *cause;   /* for collateral: the id of the rule it follows from */
    uint64_t line;       /* first line of the evidence (the last, when every symptom
                          * that hit is a tail signal: how the log ends) */
    int rank;            /* rank of that line, or -1 */
    ldx_ts_kind ts_kind; /* time of that line, if it says */
    double ts;
    uint64_t hits;       /* lines on which any of the rule's signals matched */
    double weight;       /* signal weight present: how specific the evidence is */
    bool in_baseline;    /* the rule also fired in the healthy baseline run */
    int *ranks;          /* distinct ranks the symptom lines came from, ascending */
    size_t nranks;
    ldx_evidence *evidence;
    size_t nevidence;
    ldx_trend *trends;
    size_t ntrends;
    char **advice;       /* the rule's advice whose version condition holds, filled in */
    size_t nadvice;
    char **fix;          /* the rule's fix steps for this log: those its numbers call for
                          * first (a step's `when`), without those they rule out */
    size_t nfix;
    ldx_action action;
    char *headline;      /* what failed in the log's own words, where the rule's title is
                          * generic (a failure no rule names: "KeyError: 'labels'"); NULL */
} ldx_diagnosis;

/* The fix steps a report prints for a diagnosis (its chosen ones), as a list. */
static inline ldx_strv ldx_diagnosis_fix(const ldx_diagnosis *d)
{
    return (ldx_strv){(const char **)d->fix, d->nfix};
}

/* How a report names a diagnosis: the rule's title, or the log's own words and the
 * title where the diagnosis has a headline. Writes into buf; returns it. */
const char *ldx_diagnosis_title(const ldx_diagnosis *d, char *buf, size_t size);

typedef struct {
    char *path;               /* printable: control bytes and non-UTF-8 bytes as \xHH */
    char *path_bytes;         /* the name's own bytes, where path had to escape them; NULL */
    uint64_t lines;
    uint64_t bytes;
    ldx_diagnosis *diagnoses; /* ranked: the first is the most likely initiating cause */
    size_t n;
    ldx_msgs *errors;         /* problems reading this input */
    ldx_launcher_info launcher; /* torchrun's failure summary (.present; its strings are the
                                 * report's when it is present) */
    char **versions;          /* versions[i]: the version of ldx_version_component(i) the log
                               * names, or NULL */
    char *launcher_note;      /* what the summary means for finding the cause, or NULL */
    uint64_t input;           /* the place of its input among those the run found (0 first),
                               * counting every shard's; set by whoever orders the inputs */
    char **own;               /* strings the report holds for names that point nowhere else
                               * (a report read back from JSON); freed with it */
    size_t nown;
} ldx_file_report;

/* Builds the report for what the scanner has seen so far. */
ldx_status ldx_diagnose(ldx_scanner *s, const char *path, ldx_file_report **out);
/* Resets the scanner, reads every line of r through it, then diagnoses. A read error
 * is recorded in the report's errors; what was read before it is still diagnosed. */
ldx_status ldx_analyze(ldx_scanner *s, ldx_reader *r, ldx_file_report **out);
void ldx_file_report_destroy(ldx_file_report *fr);

/* Why a rule fired or did not, on what a scanner has seen: each signal's hits, each
 * part of the condition with its value. Plain data for `logdx explain`. A capture's
 * values are those the scan read as numbers: every capture's with
 * ldx_scanner_set_numbers(s, true), else those a condition or where uses. */
typedef struct {
    const char *name, *capture;
    uint64_t points;
    double min, max, first, last;
    bool rising3, falling3; /* the series rises (falls) over 3 points */
} ldx_capture_explain;

typedef struct {
    const ldx_signal_info *signal;
    uint64_t hits;
    uint32_t nranks;
    uint64_t first_line, last_line; /* 0: never hit */
    char *first_text;
    ldx_capture_explain *caps;
    size_t ncaps;
} ldx_signal_explain;

typedef struct {
    char *text;   /* the sub-expression */
    double value; /* its value (NAN: no number) */
    bool boolean; /* a truth value (and/or/not/comparison/signal) rather than a number */
    int depth;    /* nesting, for display */
    bool decisive; /* for a rule that did not fire: this part is why */
} ldx_cond_part;

typedef struct {
    const ldx_rule_info *rule;
    bool fired;
    ldx_signal_explain *signals;
    size_t nsignals;
    ldx_cond_part *parts; /* the condition, outermost first; none without a condition */
    size_t nparts;
} ldx_explanation;

ldx_status ldx_explain(ldx_scanner *s, const char *rule_id, ldx_explanation **out);
void ldx_explanation_destroy(ldx_explanation *e);

/* The component names of ldx_file_report.versions, NULL past the end. */
const char *ldx_version_component(size_t i);

/* Formats a timestamp of the given kind for people and JSON: "2026-11-29T18:44:19.123Z",
 * "11-29 18:44:19.123" (no year known), "+12345.678s" (since boot). */
void ldx_format_time(ldx_ts_kind kind, double ts, char *buf, size_t size);

/* Compares with a healthy run of the same job (--baseline): a diagnosis whose rule also
 * fired there is marked in_baseline, its confidence halved and its rank lowered, so the
 * signals that are normal for this job stop hiding the one that is not. */
void ldx_file_report_baseline(ldx_file_report *fr, const ldx_file_report *baseline);

/* The highest severity among the diagnoses not in the baseline, or -1 when none. */
int ldx_file_report_worst(const ldx_file_report *fr);

/* Redaction (--redact): host names, IP addresses, user names in paths, tokens and
 * e-mail addresses in a report become placeholders (host-1, ip-1, user-1, token-1,
 * email-1), the same one for the same text across every file of a run. What is
 * recognised is listed in src/diagnose/redact.c. A redactor is not thread-safe.
 *
 * Ownership: the redactor owns its mapping; ldx_redact_text's *out is the caller's. */
typedef struct ldx_redactor ldx_redactor;

ldx_status ldx_redactor_create(ldx_redactor **out);
void ldx_redactor_destroy(ldx_redactor *rd);
/* A malloc'd copy of text with every recognised value replaced. */
ldx_status ldx_redact_text(ldx_redactor *rd, const char *text, char **out);
/* Redacts a file report in place: its path, evidence text, captures and hosts, the
 * launcher's host and note, and its messages. Call it after ldx_file_report_baseline
 * (which rewrites the launcher note). */
/* The same for a list of messages (their paths and texts), for what goes to stderr; *m
 * is replaced by its redacted copy. */
ldx_status ldx_msgs_redact(ldx_redactor *rd, ldx_msgs **m);
ldx_status ldx_file_report_redact(ldx_file_report *fr, ldx_redactor *rd);

#endif
