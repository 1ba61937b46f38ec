/* logdx explain RULE [LOG]: which signals matched where, which parts of the condition
 * held, and for a rule that did not fire, what was missing. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static void number(double v, char *buf, size_t n)
{
    if (isnan(v)) snprintf(buf, n, "no value");
    else if (fabs(v) >= 1048576.0 && fabs(v) < 1e18) snprintf(buf, n, "%g (%.2f GiB)", v, v / 1073741824.0);
    else snprintf(buf, n, "%g", v);
}

int cmd_explain(cli_opts *o)
{
    if (o->nargs < 1 || o->nargs > 2) {
        fprintf(stderr, "logdx: usage: logdx explain RULE [LOG]\n");
        return EXIT_ERROR;
    }
    bool errs;
    ldx_ruleset *rs = cli_load_rules(o, NULL, 0, &errs);
    if (!rs) return EXIT_ERROR;
    const char *id = o->args[0];
    if (ldx_ruleset_find(rs, id) < 0) {
        const char *near = ldx_ruleset_closest(rs, id);
        if (near)
            fprintf(stderr, "logdx: no rule with id '%s' (did you mean '%s'? see logdx rules list)\n",
                    id, near);
        else
            fprintf(stderr, "logdx: no rule with id '%s' (see logdx rules list)\n", id);
        ldx_ruleset_destroy(rs);
        return EXIT_ERROR;
    }
    const char *path = o->nargs == 2 ? o->args[1] : "-";
    ldx_reader *rd;
    ldx_status st = strcmp(path, "-") ? ldx_reader_open_path(&rd, path)
                                      : ldx_reader_open_fd(&rd, dup(STDIN_FILENO), "-");
    if (st != LDX_OK) {
        fprintf(stderr, "logdx: %s: cannot open: %s\n", path, strerror(errno));
        ldx_ruleset_destroy(rs);
        return EXIT_ERROR;
    }
    ldx_scanner *sc;
    ldx_file_report *fr = NULL;
    ldx_explanation *x = NULL;
    if (ldx_scanner_create(&sc, rs) != LDX_OK) {
        ldx_reader_destroy(rd);
        ldx_ruleset_destroy(rs);
        return EXIT_ERROR;
    }
    ldx_scanner_set_numbers(sc, true); /* every capture's values, for the summary */
    st = ldx_analyze(sc, rd, &fr);
    if (fr) cli_print_msgs(fr->errors);
    if (fr && ldx_explain(sc, id, &x) == LDX_OK) {
        const ldx_rule_info *r = x->rule;
        bool reported = false;
        for (size_t i = 0; i < fr->n && !reported; i++) reported = fr->diagnoses[i].rule == r;
        /* a rule whose condition held may still give way in the diagnosis */
        const char *verdict = x->fired ? "FIRED" : "did not fire";
        if (x->fired && !reported && r->level == LDX_LEVEL_CONCEPT)
            verdict = "FIRED, not reported: a specific rule of its class fired, or one explains "
                      "its lines";
        else if (x->fired && !reported && !strcmp(r->klass, "unclassified_failure"))
            verdict = "FIRED, not reported: another rule explains each failure line, or the log "
                      "went on long after it";
        printf("%s (%s)\n%s on %s (%llu lines): %s\n", r->id, r->klass, r->title, path,
               (unsigned long long)fr->lines, verdict);
        printf("\nsignals\n");
        for (size_t i = 0; i < x->nsignals; i++) {
            const ldx_signal_explain *se = &x->signals[i];
            printf("  %s %-18s %-7s weight %-4g ", se->hits ? "✓" : "✗", se->signal->name,
                   se->signal->role == LDX_SIGNAL_SYMPTOM ? "symptom" : "context",
                   se->signal->weight);
            char scope[48] = "";
            if (se->signal->tail) snprintf(scope, sizeof scope, " of the last %u", se->signal->tail);
            if (!se->hits && se->signal->where) {
                /* the pattern may well match: say what else its lines needed */
                printf("no line%s matched where %s\n", scope, se->signal->where);
                continue;
            }
            if (!se->hits) {
                printf("no line%s matched\n", scope);
                continue;
            }
            printf("%llu line%s%s", (unsigned long long)se->hits, se->hits == 1 ? "" : "s", scope);
            if (se->nranks) printf(" on %u rank%s", se->nranks, se->nranks == 1 ? "" : "s");
            printf(", first %llu, last %llu\n", (unsigned long long)se->first_line,
                   (unsigned long long)se->last_line);
            printf("      %llu: %.100s\n", (unsigned long long)se->first_line, se->first_text);
            for (size_t c = 0; c < se->ncaps; c++) {
                const ldx_capture_explain *ce = &se->caps[c];
                char a[64], b[64];
                number(ce->first, a, sizeof a);
                number(ce->last, b, sizeof b);
                if (!ce->points) {
                    /* matched, but the text read as no number: say why rather than show none */
                    printf("      %s.%s: no value (the captured text is not a number logdx reads: "
                           "digits with at most a sign, a decimal point, an exponent and a unit, "
                           "63 characters at most)\n",
                           se->signal->name, ce->name);
                    continue;
                }
                printf("      %s.%s: %llu value%s, first %s, last %s%s%s\n", se->signal->name,
                       ce->name, (unsigned long long)ce->points, ce->points == 1 ? "" : "s", a,
                       b, ce->rising3 ? ", rising" : "", ce->falling3 ? ", falling" : "");
            }
        }
        if (x->nparts) {
            printf("\ncondition\n");
            for (size_t i = 0; i < x->nparts; i++) {
                const ldx_cond_part *p = &x->parts[i];
                char v[64];
                if (p->boolean)
                    snprintf(v, sizeof v, "%s", (!isnan(p->value) && p->value != 0) ? "true" : "false");
                else
                    number(p->value, v, sizeof v);
                printf("  %*s%s %s  = %s\n", p->depth * 2, "",
                       p->boolean ? ((!isnan(p->value) && p->value != 0) ? "✓" : "✗") : "·",
                       p->text, v);
            }
        } else {
            printf("\ncondition\n  (none: any symptom signal fires the rule)\n");
        }
        if (!x->fired) {
            printf("\nwhy not\n");
            bool any = false;
            for (size_t i = 0; i < x->nparts; i++) {
                const ldx_cond_part *p = &x->parts[i];
                if (!p->decisive) continue;
                printf("  false: %s\n", p->text);
                any = true;
            }
            if (!x->nparts)
                for (size_t i = 0; i < x->nsignals; i++)
                    if (!x->signals[i].hits && x->signals[i].signal->role == LDX_SIGNAL_SYMPTOM) {
                        printf("  symptom '%s' never matched: %s\n", x->signals[i].signal->name,
                               x->signals[i].signal->pattern);
                        any = true;
                    }
            if (!any) printf("  the condition as a whole is false\n");
        }
    }
    int rc = (!fr || st != LDX_OK) ? EXIT_ERROR : x && x->fired ? EXIT_FOUND : EXIT_CLEAN;
    ldx_explanation_destroy(x);
    ldx_file_report_destroy(fr);
    ldx_scanner_destroy(sc);
    ldx_reader_destroy(rd);
    ldx_ruleset_destroy(rs);
    return rc;
}
