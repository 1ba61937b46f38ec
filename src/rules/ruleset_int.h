/* Inside a compiled ruleset: what the scanner and the diagnosis need beyond the public
 * ldx_rule_info. Shared by the rules, scan and diagnose layers; never installed. */
#ifndef LDX_RULES_RULESET_INT_H
#define LDX_RULES_RULESET_INT_H

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "logdx/rules.h"
#include "cond.h"
#include "../core/version.h"

/* The fixed strings every match of a pattern contains (required.c): sets of which each
 * must have a member on a line for PCRE2 to be worth running on it. */
#define LDXI_REQ_SETS 3
#define LDXI_REQ_ALTS 8
#define LDXI_REQ_MAX 24 /* longer strings are cut: a required string's prefix is required */
typedef struct {
    uint8_t n;
    uint8_t len[LDXI_REQ_ALTS];
    char s[LDXI_REQ_ALTS][LDXI_REQ_MAX];
} ldxi_reqset;
typedef struct {
    uint8_t nsets;
    bool ci; /* ASCII letters in either case */
    ldxi_reqset set[LDXI_REQ_SETS];
} ldxi_req;
/* The gate for a pattern (caseless: compiled with PCRE2_CASELESS), or NULL when it has
 * none worth keeping or cannot be read exactly. */
ldxi_req *ldxi_required_literals(const char *pattern, bool caseless);
#define LDXI_GATE_AFTER 32
/* Whether text[0..len) holds a member of each of r's sets. */
bool ldxi_req_pass(const ldxi_req *r, const char *text, size_t len);

typedef struct ldxi_sigc_s {
    /* Compiled on first use (ldxi_sig_code): most patterns of a large rule set never
     * reach PCRE2 behind the prefilter. User rules are compiled at load, to report their
     * errors. A pattern is JIT-compiled, as a copy, once it has run LDXI_JIT_AFTER times:
     * on a short log most patterns run a few times, and the JIT's compile (a tenth of a
     * millisecond a pattern and more) would cost more than it saves. */
    pcre2_code *code;
    int ready;             /* code compiled: set once, under a lock */
    pcre2_code *jcode;     /* code's JIT-compiled copy, published once made (NULL: not yet) */
    uint32_t uses;         /* runs counted towards LDXI_JIT_AFTER */
    bool nojit;            /* the JIT did not take it: interpreted for good */
    ldxi_req *req;         /* the gate in front of it (NULL: none yet, or none), made once
                            * PCRE2 has turned down LDXI_GATE_AFTER lines (ldxi_sig_gate):
                            * a pattern that rarely runs for nothing is not worth a walk */
    uint32_t misses;       /* lines PCRE2 turned down, counted up to LDXI_GATE_AFTER */
    bool gated;            /* req made (under the code lock) */
    bool backref;          /* it has back references: matched on a line's first
                            * LDXI_BACKREF_SUBJECT bytes (ldxi_sig_subject) */
    bool bol;              /* it is anchored at a line's start somewhere: tried again on
                            * a prefixed line's body (scan/confirm.c, ldxi_sig_exec) */
    const char *pattern;
    uint32_t options;      /* PCRE2_CASELESS or 0 */
    uint32_t ngroups;      /* capture groups */
    const char **capnames; /* named captures, in name-table order */
    int *capgroups;        /* their group numbers */
    size_t ncaps;
    ldxi_cond *where;      /* NULL, or the numbers a match's captures must give */
    const ldxi_clause *clauses; /* the where as clauses, when it is no more than that */
    size_t nclauses;
    /* Per capture: read as a number by a scan (a condition or a where uses it, or a
     * signal with the same pattern does); the others are text for the report, unless a
     * scanner keeps every number (ldx_scanner_set_numbers). NULL without captures. */
    uint8_t *numbered;     /* LDXI_NUM_READ, | LDXI_NUM_JUMP where a condition reads its jump */
    /* lookup: the code table the capture lookup_cap is looked up in (NULL: none) */
    const ldx_table_info *table;
    size_t lookup_cap;
} ldxi_sigc;

enum { LDXI_NUM_READ = 1, LDXI_NUM_JUMP = 2 };

/* The signal's compiled pattern, ready to match (NULL if it does not compile).
 * Thread-safe. */
#define LDXI_JIT_AFTER 16
/* The code to run sc with now (compiled on first use; its JIT-compiled copy once sc has
 * run LDXI_JIT_AFTER times). Counts a run. */
pcre2_code *ldxi_sig_code(const ldxi_sigc *sc);
/* Frees sc's code and its JIT-compiled copy. */
void ldxi_sig_free_code(ldxi_sigc *sc);
/* Makes sc's gate (once, thread-safe; sc->req is then read with an acquire load). */
void ldxi_sig_gate(const ldxi_sigc *sc);
/* A back reference makes each step of a match compare text, so its cost grows with the
 * line's length beyond what PCRE2's match limit counts: `(a+)\1\1\1$` on 10,000 bytes
 * ran for minutes within the limit. Such patterns see only this much of a line. */
#define LDXI_BACKREF_SUBJECT 1024
/* The length of text[0..len) sc is matched on (after ldxi_sig_code), and the match
 * options that go with it: PCRE2_NOTEOL where the line was cut, so that `$` does not
 * match at the cut. */
static inline size_t ldxi_sig_subject(const ldxi_sigc *sc, size_t len, uint32_t *opts)
{
    *opts = 0;
    if (!sc->backref || len <= LDXI_BACKREF_SUBJECT) return len;
    *opts = PCRE2_NOTEOL;
    return LDXI_BACKREF_SUBJECT;
}
/* Reads the named captures and the group count of a pattern from its text into sc
 * (capnames, capgroups, ncaps) and *ngroups; false where the text has what this
 * reading does not follow (the pattern must then be compiled to know). */
bool ldxi_pattern_groups(const char *pattern, ldx_arena *a, ldxi_sigc *sc, uint32_t *ngroups);

/* One caused_by entry: the cause (class or rule id) and how the two must be ordered
 * for the cause to explain this rule. */
typedef enum {
    LDXI_ORDER_AUTO = 0, /* the cause must not be later where the log lets us tell */
    LDXI_ORDER_ANY,      /* anywhere in the log */
    LDXI_ORDER_EARLIER   /* strictly earlier, in time when both lines say, else in lines */
} ldxi_order;

typedef struct {
    const char *name;
    ldxi_order order;
    double within;       /* 0: no limit; else at most this far before */
    bool within_seconds; /* within is seconds (else lines) */
} ldxi_cause;

typedef struct ldxi_rule {
    ldx_rule_info info;
    ldxi_sigc *sigs;       /* info.nsignals of them */
    ldxi_cond *cond;       /* NULL: any symptom fires */
    ldxi_cause *causes;    /* info.caused_by.n of them */
    ldxi_when *whens;      /* parsed info.advice[].when */
    ldxi_cond **fix_conds; /* parsed info.fix_cond[] (NULL where a step has none) */
    ldxi_tracker *trackers; /* sequences the scanner must count for the condition */
    size_t ntrackers;
    bool trackers_timed;   /* a tracker's window is in seconds: its hits need their line's time */
    double total_weight;   /* of all signals */
    size_t index;          /* position in the ruleset */
    bool on_disk;          /* it came from a file (ldx_compiler_add_path): info.path names it */
} ldxi_rule;

struct ldx_ruleset {
    ldx_arena *arena;
    ldxi_rule **rules;
    size_t n;
    uint32_t max_groups;   /* the most capture groups of any pattern, for match data */
    unsigned max_tail;     /* the longest tail of any signal: the lines a scan keeps */
    size_t *tail_rules;    /* the rules with a tail signal, ascending (arena) */
    size_t ntail_rules;
    struct ldxi_hsdb *hs;  /* the prefilter, or NULL: PCRE2 on every line */
    ldx_table_info **tables; /* the code tables (arena), by name */
    size_t ntables;
    uint64_t digest;       /* of the sources it was compiled from (ldx_ruleset_digest) */
};

/* Embedded sources, generated at build time by ldx-embed. */
typedef struct {
    const char *path;
    const char *data;
    size_t len;
} ldxi_embedded;

extern const ldxi_embedded ldxi_builtin_rules[];
extern const size_t ldxi_builtin_rules_count;
extern const ldxi_embedded ldxi_builtin_taxonomy[];
extern const size_t ldxi_builtin_taxonomy_count;

/* The longest fixed string every match of the pattern must contain (an estimate). */
size_t ldxi_pattern_literal(const char *pattern);
/* Where the escape at p[i] == '\\' ends: past \cX, \x{..}, \p{..}, \k<..>, \Q..\E. */
size_t ldxi_re_escape_end(const char *p, size_t n, size_t i);
/* A cheaper superset of a pattern for the prefilter (a part of it without the gaps
 * around it), malloc'd; NULL when the pattern goes in whole. */
char *ldxi_prefilter_form(const char *pattern);
/* The pattern without the parts at its end that may match nothing, its last part taken
 * as few times as it may be (pform.c), malloc'd; NULL when nothing can be cut. */
char *ldxi_trim_end(const char *pattern);
/* The pattern without the atoms in front of its longest fixed string that hold none of
 * their own (pform.c), malloc'd; NULL when nothing can be cut. */
char *ldxi_trim_start(const char *pattern);
/* The expression without its anchors (^ $ \A \Z \z: see pform.c), malloc'd; NULL when
 * it has none. */
char *ldxi_strip_anchors(const char *expr);
/* Whether the expression holds a line-start anchor (^ or \A) outside classes and
 * lookarounds (pform.c): then a match may also start where a line's prefix ends
 * (scan/body.c). */
bool ldxi_has_start_anchor(const char *expr);
/* The expression with its wide bounded repeats unbounded ({2,300} -> {2,}) outside
 * lookarounds (pform.c), malloc'd; NULL when it has none. */
char *ldxi_widen_bounds(const char *expr);
/* Fixed strings one of which every match of a pattern contains. */
#define LDXI_LITS_MAX 16 /* strings in a set */
#define LDXI_LIT_MAX 64  /* bytes in a string */
typedef struct {
    size_t n;
    size_t len[LDXI_LITS_MAX];
    char s[LDXI_LITS_MAX][LDXI_LIT_MAX];
} ldxi_lits;
/* The set for a pattern; false when it has no good one. *caseless says whether a leading
 * (?i) made them caseless. */
bool ldxi_literal_strings(const char *pattern, ldxi_lits *set, bool *caseless);
/* A set as a Vectorscan expression ("a|b\\x2ec"), malloc'd. */
char *ldxi_literal_expr(const ldxi_lits *set);
/* The set of a pattern as that expression; NULL when the pattern has no good set. */
char *ldxi_literal_set(const char *pattern, bool *caseless);
/* The index of the ']' that closes the character class opening at p[i] ('['), or n when
 * it is not closed; a leading ']' (or "^]"), escaped characters and POSIX classes
 * ([:alpha:]) are the class's own. */
size_t ldxi_re_class_end(const char *p, size_t n, size_t i);
/* The end of the group opened at p[i] == '(' (just past its ')'), or 0 when it is not
 * closed (literal.c). */
size_t ldxi_re_group_end(const char *p, size_t n, size_t i);

/* Digits (digits.c): lines that differ only in their numbers share a template, the
 * line with every digit written as '0', and can share one result (the line memo).
 * ldxi_digits_template writes the template of src[0..n) to dst[0..n). */
void ldxi_digits_template(const char *src, size_t n, char *dst);
/* Whether every part of a PCRE2 pattern treats the ten digits alike, so that it matches
 * a line exactly where it matches any line of the same template, at the same offsets;
 * false when unsure. */
bool ldxi_re_digit_blind(const char *pattern);
/* An expression that matches the template of every line expr matches, malloc'd; NULL
 * for one this cannot rewrite (back references, conditionals, \p, (?x)). */
char *ldxi_re_widen_digits(const char *expr);
/* The collapsed template of src[0..n) (every run of digits written as one '0') in dst,
 * its length returned; dst may be src. */
size_t ldxi_digits_collapse(const char *src, size_t n, char *dst);
/* An expression that matches the collapsed template of every line expr matches,
 * malloc'd; NULL where ldxi_re_widen_digits gives none, and for atomic groups,
 * possessive quantifiers and digits inside \Q...\E. Lookarounds and \B are dropped. */
char *ldxi_re_collapse_digits(const char *expr);

/* The lines of a rule's examples (match examples first): for (start; line(...);) gives
 * each line's text without its end, its length, and (line may be NULL) the line it
 * stands on in the rule file, 0 where that is not known. */
typedef struct {
    const ldx_rule_info *r;
    int list;      /* 0: ex_match, 1: ex_no_match, 2: done */
    size_t e;      /* the next example of the list */
    const char *p; /* the rest of the current one */
    unsigned line;
} ldxi_example_lines;
void ldxi_example_lines_start(ldxi_example_lines *it, const ldx_rule_info *r);
bool ldxi_example_line(ldxi_example_lines *it, const char **text, size_t *len, unsigned *line);

/* The caused_by entry of r after prev (NULL: the first) that names other (by class or
 * id), or NULL. */
const ldxi_cause *ldxi_rule_cause(const ldxi_rule *r, const ldxi_rule *other, const ldxi_cause *prev);

#endif
