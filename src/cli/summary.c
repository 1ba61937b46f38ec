/* The summary a text report of several files ends with: how many had a diagnosis, the
 * files per initiating class, the worst ones first. Shared by scan and merge, which must
 * print the same for the same files. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define SUMMARY_PATH_MAX 60

/* Columns a path takes: its characters, not its bytes. */
static size_t text_width(const char *s)
{
    size_t n = 0;
    for (; *s; s++) n += ((unsigned char)*s & 0xc0) != 0x80;
    return n;
}

static int cmp_worst(const void *a, const void *b)
{
    const cli_summary_row *x = a, *y = b;
    if (x->worst != y->worst) return x->worst > y->worst ? -1 : 1;
    return strcmp(x->path, y->path);
}

static int cmp_class(const void *a, const void *b)
{
    const cli_summary_row *x = a, *y = b;
    return strcmp(x->klass ? x->klass : "", y->klass ? y->klass : "");
}

typedef struct {
    const char *klass;
    size_t count;
} class_count;

static int cmp_count(const void *a, const void *b)
{
    const class_count *x = a, *y = b;
    if (x->count != y->count) return x->count > y->count ? -1 : 1;
    return strcmp(x->klass, y->klass);
}

bool cli_summary_row_of(const ldx_file_report *fr, cli_summary_row *row)
{
    *row = (cli_summary_row){.path = strdup(fr->path), .worst = ldx_file_report_worst(fr)};
    if (fr->n) {
        row->klass = fr->diagnoses[0].rule->klass;
        row->rule = fr->diagnoses[0].rule->id;
    }
    return row->path != NULL;
}

void cli_print_summary(FILE *fp, const cli_summary_row *rows, size_t nrows, size_t nbinary)
{
    size_t diagnosed = 0;
    for (size_t i = 0; i < nrows; i++) diagnosed += rows[i].klass != NULL;
    fprintf(fp, "\nSummary: %zu files, %zu with a diagnosis, %zu without", nrows,
            diagnosed, nrows - diagnosed);
    if (nbinary) fprintf(fp, "; %zu binary file%s skipped", nbinary, nbinary == 1 ? "" : "s");
    fputc('\n', fp);
    if (!diagnosed) return;
    cli_summary_row *v = malloc(nrows * sizeof(*v));
    if (!v) return;
    size_t n = 0;
    for (size_t i = 0; i < nrows; i++)
        if (rows[i].klass) v[n++] = rows[i];
    /* Files per initiating class, most common first (then by name, for stability). */
    qsort(v, n, sizeof(*v), cmp_class);
    class_count *groups = malloc(n * sizeof(*groups));
    size_t ng = 0;
    for (size_t i = 0; groups && i < n; i++) {
        if (ng && !strcmp(groups[ng - 1].klass, v[i].klass)) groups[ng - 1].count++;
        else groups[ng++] = (class_count){v[i].klass, 1};
    }
    if (groups) qsort(groups, ng, sizeof(*groups), cmp_count);
    /* columns as wide as what they hold, so that they line up (a path longer than
     * SUMMARY_PATH_MAX goes past its column rather than widening it for all) */
    int wk = 0, wn = 1;
    for (size_t i = 0; groups && i < ng; i++) {
        int k = (int)strlen(groups[i].klass), d = snprintf(NULL, 0, "%zu", groups[i].count);
        if (k > wk) wk = k;
        if (d > wn) wn = d;
    }
    fputs("  by initiating class:\n", fp);
    for (size_t i = 0; i < ng; i++)
        fprintf(fp, "    %-*s  %*zu\n", wk, groups[i].klass, wn, groups[i].count);
    free(groups);
    qsort(v, n, sizeof(*v), cmp_worst);
    fputs("  worst first:\n", fp);
    size_t show = n < 20 ? n : 20;
    int wp = 0, wc = 0;
    for (size_t i = 0; i < show; i++) {
        int p = (int)text_width(v[i].path), k = (int)strlen(v[i].klass);
        if (p > wp && p <= SUMMARY_PATH_MAX) wp = p;
        if (k > wc) wc = k;
    }
    for (size_t i = 0; i < show; i++) {
        int p = (int)text_width(v[i].path);
        fprintf(fp, "    %-8s  %s%*s  %-*s  %s\n",
                v[i].worst >= 0 ? ldx_severity_name((ldx_severity)v[i].worst) : "-", v[i].path,
                p < wp ? wp - p : 0, "", wc, v[i].klass, v[i].rule);
    }
    if (n > show) fprintf(fp, "    ... and %zu more\n", n - show);
    free(v);
}
