/* logdx rules: YAML rule files -> validated, compiled, immutable ruleset.
 *
 * Like YARA's compiler: create a compiler, add sources (the built-in rules, files,
 * folders, buffers), then finish it into a ruleset. Every problem goes to the ldx_msgs
 * given at creation as "path:line:col: error: message"; an invalid rule is left out and
 * the others still compile, so a scan can go on and report what it can.
 *
 * Ownership: all strings reachable from an ldx_rule_info live in the ruleset and die
 * with ldx_ruleset_destroy(). A ruleset is immutable and may be shared by threads. */
#ifndef LOGDX_RULES_H
#define LOGDX_RULES_H

#include <stdbool.h>
#include <stddef.h>

#include "logdx/core.h"

typedef enum { LDX_SIGNAL_SYMPTOM = 0, LDX_SIGNAL_CONTEXT } ldx_signal_role;

typedef struct {
    const char **v;
    size_t n;
} ldx_strv;

/* A signal with `tail: N` is matched only on the last N lines of a log (each cut to
 * LDX_TAIL_TEXT bytes): for rules about how a log ends, whose patterns would otherwise
 * run on every progress line of a healthy run. */
#define LDX_TAIL_MAX 1000
#define LDX_TAIL_TEXT 4096
#define LDX_BELOW_MAX 20

typedef struct {
    const char *name;
    const char *pattern;
    ldx_signal_role role;
    /* lookup: the capture whose text is looked up in a code table (NULL: none); only: a
     * hit needs the row's only_column to hold one of only_values */
    const char *lookup_table, *lookup_capture, *only_column;
    ldx_strv only_values;
    unsigned lookup_line, lookup_col;
    double weight;
    bool caseless;
    unsigned tail;      /* 0: matched on every line; else only on the log's last this many */
    unsigned below;     /* 0, or the line heads a report whose next this many lines name what
                         * failed ("EI9999: Inner Error!" over CANN's reason): another rule's
                         * evidence there explains it (unclassified-failure) */
    const char *where;  /* NULL, or what the captures' numbers must be for a line to count
                           ("skipped >= 2"): the first match on a line is the one tested */
    unsigned line, col; /* where the pattern stands in its file */
} ldx_signal_info;

typedef struct {
    const char *symptom;
    const char *why;
} ldx_symptom;

/* Advice that depends on a version the log shows: when "deepspeed < 0.13.0", say text
 * (where "{deepspeed}" stands for the version found). */
typedef struct {
    const char *when;
    const char *text;
} ldx_advice;

/* A specific rule knows one framework's message; a concept rule knows a class's
 * vocabulary in any framework. A concept diagnosis gives way to specific ones: it is
 * dropped when a specific rule of its class fires or explains one of its lines, and
 * otherwise ranks below specific diagnoses of its severity with a lower confidence. */
typedef enum { LDX_LEVEL_SPECIFIC = 0, LDX_LEVEL_CONCEPT } ldx_rule_level;

const char *ldx_rule_level_name(ldx_rule_level l);

typedef struct {
    const char *id, *title, *klass, *category;
    ldx_severity severity;
    ldx_rule_level level;
    const char *summary, *root_cause;
    const char *condition; /* NULL: any symptom signal fires the rule */
    const char *path;      /* the file it came from */
    bool builtin;
    ldx_strv tags, affects, related, caused_by, fix, verify, references;
    ldx_strv ex_match, ex_no_match;
    const unsigned *ex_match_line, *ex_no_match_line; /* the line each example's text starts on */
    const ldx_symptom *symptoms;
    size_t nsymptoms;
    const ldx_signal_info *signals;
    size_t nsignals;
    const ldx_advice *advice;
    size_t nadvice;
    /* per fix step: the condition on the log's numbers that chooses it (NULL: always
     * shown), and whether the step is shown `when` it holds (first, before the others)
     * or `unless` it holds */
    const char *const *fix_cond;
    const bool *fix_unless;
} ldx_rule_info;

/* A code table (rules/tables/<name>.yaml): what a code that rules capture (an Xid, a
 * CUDA error, an exit status) means and what to do about it. cells[row * ncolumns +
 * column], "" where a row leaves a column empty. */
typedef struct {
    const char *name, *title, *path;
    const char *const *columns;
    size_t ncolumns;
    size_t key;                /* the column rows are looked up by */
    const size_t *also;        /* columns a code is looked up by when no key matches */
    size_t nalso;
    const char *const *cells;
    size_t nrows;
    bool numeric;              /* every key is an integer */
    bool builtin;
    ldx_strv references;
} ldx_table_info;

/* The row whose key is key (integer keys compare as numbers: "079" is 79), else the first
 * row whose cell in one of the table's `also_by` columns reads as key (a CUDA error's
 * message for its name: case and a final full stop aside), or -1. */
long ldx_table_row(const ldx_table_info *t, const char *key);
/* The cell of a row in the named column; NULL when the table has no such column. */
const char *ldx_table_cell(const ldx_table_info *t, long row, const char *column);

typedef struct ldx_compiler ldx_compiler;
typedef struct ldx_ruleset ldx_ruleset;

/* The path prefix of the built-in rules' files in messages and rule paths. */
#define LDX_BUILTIN_PREFIX "builtin:"

ldx_status ldx_compiler_create(ldx_compiler **out, ldx_msgs *msgs);
void ldx_compiler_destroy(ldx_compiler *c);
/* The rules embedded in the binary at build time (and the code tables among them). */
ldx_status ldx_compiler_add_builtin(ldx_compiler *c);
/* The built-in code tables alone, for a rule set without the built-in rules. */
ldx_status ldx_compiler_add_builtin_tables(ldx_compiler *c);
/* A rule file, or a folder searched recursively for *.yaml and *.yml. */
ldx_status ldx_compiler_add_path(ldx_compiler *c, const char *path);
ldx_status ldx_compiler_add_buffer(ldx_compiler *c, const char *name, const char *data,
                                   size_t len, bool builtin);
/* Checks cross-references, compiles patterns and conditions. *out gets every rule that
 * is valid; returns LDX_ERULE if any rule was left out (messages say why). A rule added
 * later with the id of a built-in replaces it; two non-built-in rules with one id are an
 * error. */
ldx_status ldx_compiler_finish(ldx_compiler *c, ldx_ruleset **out);

void ldx_ruleset_destroy(ldx_ruleset *rs);
size_t ldx_ruleset_count(const ldx_ruleset *rs);
/* A 64-bit FNV-1a digest, over 64-bit words, of the sources the set was compiled from
 * (each rule and table file's bytes, built-in ones included, in the order they were
 * added): runs whose digests differ used different rules. */
uint64_t ldx_ruleset_digest(const ldx_ruleset *rs);
const ldx_rule_info *ldx_ruleset_rule(const ldx_ruleset *rs, size_t i);
/* The code tables, and the one named name (NULL). */
size_t ldx_ruleset_table_count(const ldx_ruleset *rs);
const ldx_table_info *ldx_ruleset_table(const ldx_ruleset *rs, size_t i);
const ldx_table_info *ldx_ruleset_find_table(const ldx_ruleset *rs, const char *name);
/* Index of the rule with this id, or -1. */
long ldx_ruleset_find(const ldx_ruleset *rs, const char *id);
/* The id nearest to id (a typo: at most 3 edits away), for "did you mean"; NULL: none. */
const char *ldx_ruleset_closest(const ldx_ruleset *rs, const char *id);


/* The failure classes (taxonomy.tsv, embedded at build time). */
size_t ldx_taxonomy_count(void);
const char *ldx_taxonomy_class(size_t i);
/* Category and default severity of a class; false if the class is unknown. */
bool ldx_taxonomy_lookup(const char *klass, const char **category, ldx_severity *sev,
                         const char **description);

#endif
