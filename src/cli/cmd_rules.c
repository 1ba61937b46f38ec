/* logdx rules list | show ID | lint [PATH...] | test [PATH...] */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "../plumbing.h"

/* logdx rules classes: the failure classes a rule's class: may name, with category,
 * default severity and what each means (the embedded taxonomy, which is not installed
 * as a file). */
static int rules_classes(cli_opts *o)
{
    if (o->nargs) {
        fprintf(stderr, "logdx: rules classes takes no arguments\n");
        return EXIT_ERROR;
    }
    size_t wc = 5, wg = 8;
    for (size_t i = 0; i < ldx_taxonomy_count(); i++) {
        const char *k = ldx_taxonomy_class(i), *cat = "";
        ldx_taxonomy_lookup(k, &cat, NULL, NULL);
        if (strlen(k) > wc) wc = strlen(k);
        if (strlen(cat) > wg) wg = strlen(cat);
    }
    printf("%-*s  %-*s  %-8s  %s\n", (int)wc, "CLASS", (int)wg, "CATEGORY", "SEVERITY", "MEANING");
    for (size_t i = 0; i < ldx_taxonomy_count(); i++) {
        const char *k = ldx_taxonomy_class(i), *cat = "", *desc = "";
        ldx_severity sev = LDX_SEV_MEDIUM;
        ldx_taxonomy_lookup(k, &cat, &sev, &desc);
        printf("%-*s  %-*s  %-8s  %s\n", (int)wc, k, (int)wg, cat, ldx_severity_name(sev), desc);
    }
    return EXIT_CLEAN;
}

static int rules_list(cli_opts *o)
{
    if (o->nargs) {
        fprintf(stderr, "logdx: rules list takes no arguments (not '%s'); logdx rules show ID shows one rule\n",
                o->args[0]);
        return EXIT_ERROR;
    }
    if (strcmp(o->format, "text")) {
        fprintf(stderr, "logdx: rules list prints text only, not --format %s\n", o->format);
        return EXIT_ERROR;
    }
    bool errs;
    ldx_ruleset *rs = cli_load_rules(o, NULL, 0, &errs);
    if (!rs) return EXIT_ERROR;
    size_t n = ldx_ruleset_count(rs), wid = 2, wcl = 5;
    for (size_t i = 0; i < n; i++) {
        const ldx_rule_info *r = ldx_ruleset_rule(rs, i);
        if (strlen(r->id) > wid) wid = strlen(r->id);
        if (strlen(r->klass) > wcl) wcl = strlen(r->klass);
    }
    printf("%-*s  %-*s  %-8s  %s\n", (int)wid, "ID", (int)wcl, "CLASS", "SEVERITY", "TITLE");
    for (size_t i = 0; i < n; i++) {
        const ldx_rule_info *r = ldx_ruleset_rule(rs, i);
        printf("%-*s  %-*s  %-8s  %s\n", (int)wid, r->id, (int)wcl, r->klass,
               ldx_severity_name(r->severity), r->title);
    }
    ldx_ruleset_destroy(rs);
    return errs ? EXIT_ERROR : EXIT_CLEAN;
}

/* Prints a paragraph wrapped to the terminal with an indent. */
static void para(const char *text, int indent, const char *first)
{
    ldxi_report_wrap(stdout, text, indent, cli_width(STDOUT_FILENO), first);
}

static void list_block(const char *head, const ldx_strv *v, bool numbered)
{
    if (!v->n) return;
    printf("\n%s\n", head);
    for (size_t i = 0; i < v->n; i++) {
        char num[32];
        snprintf(num, sizeof num, "%zu. ", i + 1);
        para(v->v[i], 7, numbered ? num : "- ");
    }
}

static void joined(const char *head, const ldx_strv *v)
{
    if (!v->n) return;
    printf("%-10s", head);
    for (size_t i = 0; i < v->n; i++) printf("%s%s", i ? ", " : "", v->v[i]);
    printf("\n");
}

static int rules_show(cli_opts *o)
{
    if (o->nargs != 1) {
        fprintf(stderr, "logdx: usage: logdx rules show ID\n");
        return EXIT_ERROR;
    }
    bool errs;
    ldx_ruleset *rs = cli_load_rules(o, NULL, 0, &errs);
    if (!rs) return EXIT_ERROR;
    long i = ldx_ruleset_find(rs, o->args[0]);
    if (i < 0) {
        const char *near = ldx_ruleset_closest(rs, o->args[0]);
        if (near)
            fprintf(stderr, "logdx: no rule with id '%s' (did you mean '%s'? see logdx rules list)\n",
                    o->args[0], near);
        else
            fprintf(stderr, "logdx: no rule with id '%s' (see logdx rules list)\n", o->args[0]);
        ldx_ruleset_destroy(rs);
        return EXIT_ERROR;
    }
    const ldx_rule_info *r = ldx_ruleset_rule(rs, (size_t)i);
    printf("%s\n", r->title);
    for (size_t k = strlen(r->title); k > 0; k--) putchar('=');
    printf("\n%-10s%s\n%-10s%s (%s)\n%-10s%s\n", "id", r->id, "class", r->klass, r->category,
           "severity", ldx_severity_name(r->severity));
    if (r->level != LDX_LEVEL_SPECIFIC) printf("%-10s%s\n", "level", ldx_rule_level_name(r->level));
    joined("tags", &r->tags);
    joined("affects", &r->affects);
    joined("related", &r->related);
    joined("caused by", &r->caused_by);
    printf("%-10s%s\n", "source", r->path);
    printf("\nWhat it is\n");
    para(r->summary, 4, NULL);
    printf("\nSymptoms\n");
    for (size_t k = 0; k < r->nsymptoms; k++) {
        para(r->symptoms[k].symptom, 6, "- ");
        para(r->symptoms[k].why, 11, "why: ");
    }
    printf("\nRoot cause\n");
    para(r->root_cause, 4, NULL);
    if (r->fix.n) {
        /* a step the log's numbers choose says so: it comes first when they call for it */
        printf("\nFix\n");
        for (size_t f = 0; f < r->fix.n; f++) {
            char num[32];
            snprintf(num, sizeof num, "%zu. ", f + 1);
            const char *cond = r->fix_cond ? r->fix_cond[f] : NULL;
            if (!cond) {
                para(r->fix.v[f], 7, num);
                continue;
            }
            char *t = malloc(strlen(cond) + strlen(r->fix.v[f]) + 16);
            if (!t) continue;
            sprintf(t, "[%s %s] %s", r->fix_unless[f] ? "unless" : "when", cond, r->fix.v[f]);
            para(t, 7, num);
            free(t);
        }
    }
    list_block("Verify", &r->verify, false);
    if (r->nadvice) {
        printf("\nAdvice by version\n");
        for (size_t k = 0; k < r->nadvice; k++) {
            printf("    when %s:\n", r->advice[k].when);
            para(r->advice[k].text, 8, NULL);
        }
    }
    printf("\nSignals\n");
    for (size_t k = 0; k < r->nsignals; k++) {
        const ldx_signal_info *s = &r->signals[k];
        printf("    %-16s %-7s weight %-4g %s%s", s->name,
               s->role == LDX_SIGNAL_SYMPTOM ? "symptom" : "context", s->weight, s->pattern,
               s->caseless ? "  (caseless)" : "");
        if (s->tail) printf("  (the last %u lines)", s->tail);
        if (s->below) printf("  (its reason in the %u lines below)", s->below);
        if (s->where) printf("  where %s", s->where);
        if (s->lookup_table)
            printf("  (%s looked up in table %s%s%s)", s->lookup_capture, s->lookup_table,
                   s->only_column ? ", only " : "", s->only_column ? s->only_column : "");
        printf("\n");
    }
    if (r->condition) printf("    condition: %s\n", r->condition);
    list_block("References", &r->references, false);
    ldx_ruleset_destroy(rs);
    return EXIT_CLEAN;
}

/* The quality bar of a rule library (--strict): at least two examples of each kind per
 * rule, and, for the whole set, a rule for every failure class of the taxonomy. */
static size_t strict_checks(const ldx_ruleset *rs, const cli_opts *o);

static bool selected(const ldx_rule_info *r, const cli_opts *o);

/* The fixed string a pattern needs for the prefilter to skip lines for it. */
#define MIN_LITERAL 3
/* PCRE2 steps per byte of an example line past which a pattern is said to backtrack: a
 * fixed-string search takes 1-3, the built-in set at most ~20, the quadratic patterns
 * this caught 62 and 117. */
#define MAX_STEPS 25.0

/* What --perf and profile say about a signal: whether its pattern has too short a fixed
 * string for the prefilter to skip lines (a tail signal runs on the last lines only:
 * never), and whether it runs on every line because the prefilter (when there is one)
 * cannot take it. Returns the longest fixed string. */
static size_t signal_literal(const ldx_ruleset *rs, size_t rule, size_t k, bool *weak,
                             bool *unfiltered)
{
    const ldx_signal_info *si = &ldx_ruleset_rule(rs, rule)->signals[k];
    size_t lit = ldxi_signal_literal(si);
    *weak = lit < MIN_LITERAL && !si->tail;
    *unfiltered = ldxi_ruleset_has_prefilter(rs) && !ldxi_ruleset_prefiltered(rs, rule, k);
    return lit;
}

/* Whether a pattern has "\\b\\w*" (or a leading "\\w*") before a word character or a group
 * that starts with one: the same lines match without it (going back over word characters
 * always reaches a word start), but PCRE2 then tries every word start of the line and
 * backtracks the \\w* from each. */
static bool word_prefix_before_literal(const char *p)
{
    for (const char *q = p; (q = strstr(q, "\\w*")) != NULL; q += 3) {
        bool lead = q == p || (q >= p + 2 && !strncmp(q - 2, "\\b", 2) &&
                               (q - 2 == p || q[-3] == '|' || q[-3] == '(' || q[-3] == ':'));
        if (!lead) continue;
        const char *n = q + 3;
        while (!strncmp(n, "(?:", 3)) n += 3;
        if (isalpha((unsigned char)*n) || *n == '_') return true;
    }
    return false;
}

/* --perf: patterns that make the prefilter slow; returns how many. */
static size_t perf_checks(const ldx_ruleset *rs, const cli_opts *o)
{
    size_t found = 0;
    for (size_t i = 0; i < ldx_ruleset_count(rs); i++) {
        const ldx_rule_info *r = ldx_ruleset_rule(rs, i);
        if (!selected(r, o)) continue;
        for (size_t k = 0; k < r->nsignals; k++) {
            const ldx_signal_info *si = &r->signals[k];
            bool weak, unfiltered;
            size_t lit = signal_literal(rs, i, k, &weak, &unfiltered);
            found += weak + unfiltered;
            if (weak)
                fprintf(stderr,
                        "logdx: %s:%u:%u: warning: rule '%s', signal '%s': the pattern has no "
                        "fixed string of %d or more characters (longest: %zu); the prefilter "
                        "cannot skip lines for it\n",
                        r->path, si->line, si->col, r->id, si->name, MIN_LITERAL, lit);
            if (unfiltered)
                fprintf(stderr,
                        "logdx: %s:%u:%u: warning: rule '%s', signal '%s': the prefilter cannot "
                        "take this pattern (Vectorscan refuses it, or misses lines of the "
                        "rules' examples with it); PCRE2 runs it on every line\n",
                        r->path, si->line, si->col, r->id, si->name);
            if (!ldxi_signal_long_line_ok(r, k)) {
                found++;
                fprintf(stderr,
                        "logdx: %s:%u:%u: warning: rule '%s', signal '%s': on a long line (256 "
                        "KiB) one search runs out of PCRE2's limits: bound the gaps (.{0,2000} "
                        "rather than .* around a lookahead over the line) or start the pattern "
                        "on a fixed string\n",
                        r->path, si->line, si->col, r->id, si->name);
            }
            if (word_prefix_before_literal(si->pattern)) {
                found++;
                fprintf(stderr,
                        "logdx: %s:%u:%u: warning: rule '%s', signal '%s': '\\b\\w*' before a word: "
                        "the same lines match without it, and PCRE2 tries it from every word start "
                        "of a line; drop it\n",
                        r->path, si->line, si->col, r->id, si->name);
            }
            unsigned ex_line;
            double steps = ldxi_signal_steps(r, k, &ex_line);
            if (steps > MAX_STEPS) {
                found++;
                fprintf(stderr,
                        "logdx: %s:%u:%u: warning: rule '%s', signal '%s': PCRE2 takes %.0f steps "
                        "per byte of an example line (line %u; a plain search takes 1-3): the "
                        "pattern backtracks, e.g. a lazy or unbounded part tried from every "
                        "position; start it on a fixed string or take a value whole with (?>...)\n",
                        r->path, si->line, si->col, r->id, si->name, steps, ex_line);
            }
        }
    }
    return found;
}

static bool selected(const ldx_rule_info *r, const cli_opts *o);

static int rules_lint(cli_opts *o)
{
    bool errs;
    ldx_ruleset *rs = cli_load_rules(o, o->args, o->nargs, &errs);
    if (!rs) return EXIT_ERROR;
    if (o->strict && strict_checks(rs, o)) errs = true;
    /* the built-in library's bar (--strict) includes pattern hygiene when asked */
    if (o->perf && perf_checks(rs, o) && o->strict) errs = true;
    /* what was linted: the files named (the built-in rules load beside them, for their
     * cross-references, but are not counted), or the built-in library itself; the
     * built-in tables come with --no-default-rules too */
    size_t n = 0, nt = 0;
    for (size_t i = 0; i < ldx_ruleset_count(rs); i++) n += selected(ldx_ruleset_rule(rs, i), o);
    for (size_t i = 0; i < ldx_ruleset_table_count(rs); i++) {
        bool builtin = ldx_ruleset_table(rs, i)->builtin;
        nt += o->nargs ? !builtin : !o->no_default_rules || !builtin;
    }
    char tables[64] = "";
    if (nt) snprintf(tables, sizeof tables, " and %zu code table%s", nt, nt == 1 ? "" : "s");
    if (!o->quiet)
        fprintf(stderr, "logdx: %zu rule%s%s %s\n", n, n == 1 ? "" : "s", tables,
                errs ? "valid; some files have errors (above)" : "valid, no errors");
    ldx_ruleset_destroy(rs);
    return errs ? EXIT_ERROR : EXIT_CLEAN;
}

static bool under(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/') n--;
    return !strncmp(path, dir, n) && (path[n] == '\0' || path[n] == '/');
}

/* Does the rule's source lie under one of the paths given to `rules test`? Paths are
 * compared as written and canonically, so "code" and "/abs/rules/code" both select. */
static bool selected(const ldx_rule_info *r, const cli_opts *o)
{
    if (!o->nargs) return true;
    if (r->builtin) return false;
    char *rp = realpath(r->path, NULL);
    bool yes = false;
    for (size_t i = 0; i < o->nargs && !yes; i++) {
        char *ap = realpath(o->args[i], NULL);
        yes = under(r->path, o->args[i]) || (rp && ap && under(rp, ap));
        free(ap);
    }
    free(rp);
    return yes;
}

static bool listed(const ldx_strv *v, const char *id)
{
    for (size_t i = 0; i < v->n; i++)
        if (!strcmp(v->v[i], id)) return true;
    return false;
}

typedef struct {
    ldx_scanner *sc;
    const ldx_ruleset *rs;
    size_t passed, failed;
} test_ctx;

static ldx_file_report *run_example(test_ctx *t, const char *text)
{
    ldx_reader *rd;
    ldx_file_report *fr = NULL;
    if (ldx_reader_open_mem(&rd, text, strlen(text), "example") != LDX_OK) return NULL;
    ldx_analyze(t->sc, rd, &fr);
    ldx_reader_destroy(rd);
    return fr;
}

static const ldx_diagnosis *find_diag(const ldx_file_report *fr, const char *id)
{
    for (size_t i = 0; i < fr->n; i++)
        if (!strcmp(fr->diagnoses[i].rule->id, id)) return &fr->diagnoses[i];
    return NULL;
}

static void test_rule(test_ctx *t, const ldx_rule_info *r)
{
    for (size_t i = 0; i < r->ex_match.n; i++) {
        ldx_file_report *fr = run_example(t, r->ex_match.v[i]);
        if (!fr) {
            t->failed++;
            continue;
        }
        const char *problem = NULL;
        char buf[512];
        if (!find_diag(fr, r->id)) {
            problem = "did not fire";
        } else {
            const ldx_rule_info *top = fr->diagnoses[0].rule;
            if (strcmp(top->id, r->id) != 0 && !listed(&r->related, top->id) &&
                !listed(&top->related, r->id)) {
                snprintf(buf, sizeof buf,
                         "fired, but rule '%s' ranks first (shadowing: make the examples or "
                         "patterns more specific, or declare the rules related)",
                         top->id);
                problem = buf;
            }
        }
        if (problem) {
            fprintf(stderr, "logdx: %s:%u:1: error: rule '%s': match example %zu %s\n", r->path,
                    r->ex_match_line ? r->ex_match_line[i] : 1, r->id, i + 1, problem);
            t->failed++;
        } else {
            t->passed++;
        }
        ldx_file_report_destroy(fr);
    }
    for (size_t i = 0; i < r->ex_no_match.n; i++) {
        ldx_file_report *fr = run_example(t, r->ex_no_match.v[i]);
        if (!fr) {
            t->failed++;
            continue;
        }
        if (find_diag(fr, r->id)) {
            fprintf(stderr, "logdx: %s:%u:1: error: rule '%s': no_match example %zu fired the rule\n",
                    r->path, r->ex_no_match_line ? r->ex_no_match_line[i] : 1, r->id, i + 1);
            t->failed++;
        } else {
            t->passed++;
        }
        ldx_file_report_destroy(fr);
    }
}

static int rules_test(cli_opts *o)
{
    bool errs;
    ldx_ruleset *rs = cli_load_rules(o, o->args, o->nargs, &errs);
    if (!rs) return EXIT_ERROR;
    test_ctx t = {.rs = rs};
    if (ldx_scanner_create(&t.sc, rs) != LDX_OK) {
        ldx_ruleset_destroy(rs);
        return EXIT_ERROR;
    }
    size_t nrules = 0;
    for (size_t i = 0; i < ldx_ruleset_count(rs); i++) {
        const ldx_rule_info *r = ldx_ruleset_rule(rs, i);
        if (!selected(r, o)) continue;
        nrules++;
        test_rule(&t, r);
    }
    printf("rules test: %zu rules, %zu examples\n", nrules, t.passed + t.failed);
    printf("%zu passed, %zu failed\n", t.passed, t.failed);
    ldx_scanner_destroy(t.sc);
    ldx_ruleset_destroy(rs);
    if (errs) return EXIT_ERROR;
    return t.failed ? EXIT_FOUND : EXIT_CLEAN;
}

static size_t strict_checks(const ldx_ruleset *rs, const cli_opts *o)
{
    size_t problems = 0;
    for (size_t i = 0; i < ldx_ruleset_count(rs); i++) {
        const ldx_rule_info *r = ldx_ruleset_rule(rs, i);
        if (!selected(r, o)) continue;
        if (r->ex_match.n < 2 || r->ex_no_match.n < 2) {
            fprintf(stderr,
                    "logdx: %s:1:1: error: rule '%s' has %zu match and %zu no_match "
                    "examples; the library wants at least 2 of each\n",
                    r->path, r->id, r->ex_match.n, r->ex_no_match.n);
            problems++;
        }
    }
    if (o->nargs) return problems;
    for (size_t c = 0; c < ldx_taxonomy_count(); c++) {
        const char *k = ldx_taxonomy_class(c), *cat;
        /* category none: no failure (healthy), so no rule detects it */
        if (ldx_taxonomy_lookup(k, &cat, NULL, NULL) && !strcmp(cat, "none")) continue;
        size_t n = 0;
        for (size_t i = 0; i < ldx_ruleset_count(rs); i++)
            n += !strcmp(ldx_ruleset_rule(rs, i)->klass, k);
        if (!n) {
            fprintf(stderr, "logdx: error: class '%s' has no rule\n", k);
            problems++;
        }
    }
    return problems;
}

/* The class a caused_by entry stands for: itself if it is a class, else its rule's. */
static const char *cause_class(const ldx_ruleset *rs, const char *name)
{
    if (ldx_taxonomy_lookup(name, NULL, NULL, NULL)) return name;
    long i = ldx_ruleset_find(rs, name);
    return i >= 0 ? ldx_ruleset_rule(rs, (size_t)i)->klass : name;
}

/* logdx rules graph [dot]: what each failure class can set off, from the rules'
 * caused_by, as text (cause, then the classes that follow from it with the rules that
 * say so) or as Graphviz DOT. */
static int rules_graph(cli_opts *o)
{
    bool dot = o->nargs && !strcmp(o->args[0], "dot");
    if (o->nargs && !dot) {
        fprintf(stderr, "logdx: usage: logdx rules graph [dot]\n");
        return EXIT_ERROR;
    }
    bool errs;
    ldx_ruleset *rs = cli_load_rules(o, NULL, 0, &errs);
    if (!rs) return EXIT_ERROR;
    size_t n = ldx_ruleset_count(rs);
    if (dot) printf("digraph logdx_causes {\n  rankdir=LR;\n  node [shape=box, fontname=\"monospace\"];\n");
    for (size_t c = 0; c < ldx_taxonomy_count(); c++) {
        const char *cause = ldx_taxonomy_class(c);
        bool header = false;
        for (size_t k = 0; k < ldx_taxonomy_count(); k++) {
            const char *effect = ldx_taxonomy_class(k);
            /* the rules of class effect that name cause (or one of its rules) */
            char ids[1024] = "";
            size_t len = 0;
            for (size_t i = 0; i < n; i++) {
                const ldx_rule_info *r = ldx_ruleset_rule(rs, i);
                if (strcmp(r->klass, effect)) continue;
                for (size_t j = 0; j < r->caused_by.n; j++) {
                    if (strcmp(cause_class(rs, r->caused_by.v[j]), cause)) continue;
                    if (len < sizeof ids - 64)
                        len += (size_t)snprintf(ids + len, sizeof ids - len, "%s%s",
                                                len ? ", " : "", r->id);
                    break;
                }
            }
            if (!len) continue;
            if (dot) {
                printf("  \"%s\" -> \"%s\" [tooltip=\"%s\"];\n", cause, effect, ids);
                continue;
            }
            if (!header) printf("%s\n", cause);
            header = true;
            printf("  -> %-28s %s\n", effect, ids);
        }
    }
    if (dot) printf("}\n");
    ldx_ruleset_destroy(rs);
    return errs ? EXIT_ERROR : EXIT_CLEAN;
}

/* logdx rules patterns: every signal pattern, one PCRE2 pattern a line, flags inline,
 * so that other tools can be measured on exactly the same work (bench/). */
static int rules_patterns(cli_opts *o)
{
    bool errs;
    ldx_ruleset *rs = cli_load_rules(o, NULL, 0, &errs);
    if (!rs) return EXIT_ERROR;
    for (size_t i = 0; i < ldx_ruleset_count(rs); i++) {
        const ldx_rule_info *r = ldx_ruleset_rule(rs, i);
        for (size_t k = 0; k < r->nsignals; k++)
            printf("%s%s\n", r->signals[k].caseless ? "(?i)" : "", r->signals[k].pattern);
    }
    ldx_ruleset_destroy(rs);
    return errs ? EXIT_ERROR : EXIT_CLEAN;
}

typedef struct {
    size_t rule;
    ldxi_rule_cost cost;
} profile_row;

static int cost_cmp(const void *a, const void *b)
{
    const profile_row *x = a, *y = b;
    return x->cost.ns < y->cost.ns ? 1 : x->cost.ns > y->cost.ns ? -1 : 0;
}

/* logdx rules profile LOG: what each rule costs on a log, most expensive first, like
 * YARA's profiling: PCRE2 runs (lines the prefilter handed over), matches, time. */
static int rules_profile(cli_opts *o)
{
    if (o->nargs != 1) {
        fprintf(stderr, "logdx: usage: logdx rules profile LOG\n");
        return EXIT_ERROR;
    }
    bool errs;
    ldx_ruleset *rs = cli_load_rules(o, NULL, 0, &errs);
    if (!rs) return EXIT_ERROR;
    ldx_reader *rd;
    ldx_scanner *sc = NULL;
    ldx_file_report *fr = NULL;
    if (ldx_reader_open_path(&rd, o->args[0]) != LDX_OK) {
        fprintf(stderr, "logdx: %s: cannot open\n", o->args[0]);
        ldx_ruleset_destroy(rs);
        return EXIT_ERROR;
    }
    size_t n = ldx_ruleset_count(rs);
    profile_row *rows = calloc(n ? n : 1, sizeof(*rows));
    if (!rows || ldx_scanner_create(&sc, rs) != LDX_OK) {
        free(rows);
        ldx_reader_destroy(rd);
        ldx_ruleset_destroy(rs);
        return EXIT_ERROR;
    }
    ldxi_scanner_set_profile(sc, true);
    ldx_analyze(sc, rd, &fr);
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++) {
        rows[i].rule = i;
        ldxi_scanner_rule_cost(sc, i, &rows[i].cost);
        total += rows[i].cost.ns;
    }
    qsort(rows, n, sizeof(*rows), cost_cmp);
    printf("%s: %llu lines; PCRE2 time %.1f ms in all\n", o->args[0],
           (unsigned long long)(fr ? fr->lines : 0), (double)total / 1e6);
    ldxi_prefilter_cost pf;
    ldxi_scanner_prefilter_cost(sc, &pf);
    if (ldxi_ruleset_has_prefilter(rs)) {
        bool big = pf.bytes >= 1000000;
        printf("prefilter (Vectorscan, every pattern at once): %.1f %s in %.1f ms, %.0f MB/s; "
               "%llu (line, signal) pairs handed to PCRE2",
               (double)pf.bytes / (big ? 1e6 : 1e3), big ? "MB" : "kB", (double)pf.ns / 1e6,
               pf.ns ? (double)pf.bytes * 1e3 / (double)pf.ns : 0.0, (unsigned long long)pf.pairs);
        if (pf.lines)
            printf("; %llu of %llu lines known by their template (%.1f%%)",
                   (unsigned long long)pf.known, (unsigned long long)pf.lines,
                   100.0 * (double)pf.known / (double)pf.lines);
    } else {
        printf("prefilter: not in use (PCRE2 alone): every signal ran on every line");
    }
    uint64_t tail_lines, tail_runs;
    ldxi_scanner_tail_cost(sc, &tail_lines, &tail_runs);
    if (tail_lines)
        printf("; tail signals: %llu runs on the last %llu lines",
               (unsigned long long)tail_runs, (unsigned long long)tail_lines);
    printf("\n");
    printf("%-44s %10s %10s %10s %6s  %s\n", "RULE", "PCRE2 RUNS", "MATCHES", "MS", "SHARE", "NOTES");
    for (size_t i = 0; i < n; i++) {
        const ldx_rule_info *r = ldx_ruleset_rule(rs, rows[i].rule);
        char notes[128] = "";
        size_t len = 0;
        for (size_t k = 0; k < r->nsignals; k++) {
            bool weak, unfiltered;
            signal_literal(rs, rows[i].rule, k, &weak, &unfiltered);
            if (unfiltered && len < sizeof notes - 40)
                len += (size_t)snprintf(notes + len, sizeof notes - len, "%s%s not prefiltered",
                                        len ? ", " : "", r->signals[k].name);
            else if (weak && len < sizeof notes - 40)
                len += (size_t)snprintf(notes + len, sizeof notes - len, "%s%s no literal",
                                        len ? ", " : "", r->signals[k].name);
            ldxi_rule_cost c;
            ldxi_scanner_signal_cost(sc, rows[i].rule, k, &c);
            /* runs on every line of its shapes (ldxi_signal_digit_blind) */
            if (c.calls && !ldxi_signal_digit_blind(&r->signals[k]) && len < sizeof notes - 40)
                len += (size_t)snprintf(notes + len, sizeof notes - len, "%s%s reads digits",
                                        len ? ", " : "", r->signals[k].name);
        }
        if (!rows[i].cost.calls && !notes[0]) continue;
        printf("%-44s %10llu %10llu %10.2f %5.1f%%  %s\n", r->id,
               (unsigned long long)rows[i].cost.calls, (unsigned long long)rows[i].cost.matches,
               (double)rows[i].cost.ns / 1e6,
               total ? 100.0 * (double)rows[i].cost.ns / (double)total : 0.0, notes);
        /* a rule of several signals: which of them the time went to */
        for (size_t k = 0; r->nsignals > 1 && k < r->nsignals; k++) {
            ldxi_rule_cost c;
            ldxi_scanner_signal_cost(sc, rows[i].rule, k, &c);
            if (!c.calls) continue;
            char name[64];
            snprintf(name, sizeof name, "  .%s", r->signals[k].name);
            printf("%-44s %10llu %10llu %10.2f\n", name, (unsigned long long)c.calls,
                   (unsigned long long)c.matches, (double)c.ns / 1e6);
        }
    }
    ldx_file_report_destroy(fr);
    ldx_scanner_destroy(sc);
    ldx_reader_destroy(rd);
    ldx_ruleset_destroy(rs);
    free(rows);
    return errs ? EXIT_ERROR : EXIT_CLEAN;
}

int cmd_rules(cli_opts *o)
{
    if (!o->nargs) {
        fprintf(stderr, "logdx: usage: logdx rules list | classes | show ID | lint [PATH...] | test [PATH...] | "
                        "graph [dot] | patterns | profile LOG\n");
        return EXIT_ERROR;
    }
    const char *sub = o->args[0];
    o->args++;
    o->nargs--;
    int rc;
    if (!strcmp(sub, "list")) rc = rules_list(o);
    else if (!strcmp(sub, "classes")) rc = rules_classes(o);
    else if (!strcmp(sub, "show")) rc = rules_show(o);
    else if (!strcmp(sub, "lint")) rc = rules_lint(o);
    else if (!strcmp(sub, "test")) rc = rules_test(o);
    else if (!strcmp(sub, "graph")) rc = rules_graph(o);
    else if (!strcmp(sub, "patterns")) rc = rules_patterns(o);
    else if (!strcmp(sub, "profile")) rc = rules_profile(o);
    else {
        fprintf(stderr, "logdx: unknown rules command '%s' (list, classes, show, lint, test, graph, patterns, profile)\n", sub);
        rc = EXIT_ERROR;
    }
    o->args--;
    o->nargs++;
    return rc;
}
