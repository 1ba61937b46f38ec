/* --format text: a block per diagnosis for people; -q, one line per diagnosis.
 * Collateral diagnoses are kept short: they matter as context, not as things to fix. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report_int.h"
#include "../plumbing.h"

/* At most this many screen rows per evidence line (the scan keeps 640 bytes of one). */
#define EVIDENCE_ROWS 8
/* Steps shown: the first are the ones a rule's author ranks first; a list longer than
 * this is the generic tail that `logdx rules show` keeps. */
#define FULL_FIX 5
#define FULL_VERIFY 3
#define BRIEF_FIX 2

#define C_RESET "\033[0m"
#define C_BOLD "\033[1m"
#define C_DIM "\033[2m"

typedef struct {
    size_t files;
} text_state;

static const char *sev_color(ldx_severity s)
{
    switch (s) {
    case LDX_SEV_CRITICAL: return "\033[1;97;41m";
    case LDX_SEV_HIGH: return "\033[1;31m";
    case LDX_SEV_MEDIUM: return "\033[1;33m";
    case LDX_SEV_LOW: return "\033[36m";
    case LDX_SEV_INFO: return "\033[2m";
    }
    return "";
}

static const char *col(const ldx_report *r, const char *c) { return r->opts.color ? c : ""; }

static void upper(const char *s, char *out, size_t n)
{
    size_t i = 0;
    for (; s[i] && i + 1 < n; i++) out[i] = (s[i] >= 'a' && s[i] <= 'z') ? (char)(s[i] - 32) : s[i];
    out[i] = '\0';
}

static void sparkline(FILE *fp, const double *v, size_t n)
{
    static const char *const bars[] = {"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        if (v[i] < lo) lo = v[i];
        if (v[i] > hi) hi = v[i];
    }
    for (size_t i = 0; i < n; i++) {
        int b = hi > lo ? (int)floor((v[i] - lo) / (hi - lo) * 7.0 + 0.5) : 0;
        fputs(bars[b < 0 ? 0 : b > 7 ? 7 : b], fp);
    }
}


static void print_quiet(ldx_report *r, const ldx_file_report *fr, const ldx_diagnosis *d)
{
    FILE *fp = r->fp;
    char title[512];
    fprintf(fp, "%s:%llu: %s%s%s %s %s: %s (confidence %.2f", fr->path,
            (unsigned long long)d->line, col(r, sev_color(d->rule->severity)),
            ldx_severity_name(d->rule->severity), col(r, C_RESET), d->rule->klass, d->rule->id,
            ldx_diagnosis_title(d, title, sizeof title), d->confidence);
    if (d->rank >= 0) fprintf(fp, ", rank %d", d->rank);
    fprintf(fp, ", %s)\n", ldx_role_name(d->role));
}

/* An evidence line too long for EVIDENCE_ROWS rows at this width, from a little before
 * its first capture ("…" marks the cut), so that the numbers the rule read are shown;
 * NULL when it fits, has no captures to keep, or they are near its start. */
static char *evidence_window(const ldx_evidence *e, int avail)
{
    size_t ends[EVIDENCE_ROWS + 1];
    if (ldxi_report_fold(e->text, avail, ends, EVIDENCE_ROWS + 1) <= EVIDENCE_ROWS) return NULL;
    size_t lo = SIZE_MAX;
    for (size_t c = 0; c < e->ncaps; c++) {
        const char *at = e->caps[c].value && *e->caps[c].value ? strstr(e->text, e->caps[c].value) : NULL;
        if (at && (size_t)(at - e->text) < lo) lo = (size_t)(at - e->text);
    }
    size_t lead = (size_t)avail; /* about a row of what comes before */
    if (lo == SIZE_MAX || lo <= lead) return NULL;
    size_t from = lo - lead;
    while (e->text[from] && ((unsigned char)e->text[from] & 0xc0) == 0x80) from++;
    const char *sp = strchr(e->text + from, ' ');
    if (sp && (size_t)(sp - e->text) < lo) from = (size_t)(sp - e->text) + 1; /* a word's start */
    size_t n = strlen(e->text + from);
    char *out = malloc(n + 4);
    if (!out) return NULL;
    memcpy(out, "…", 3);
    memcpy(out + 3, e->text + from, n + 1);
    return out;
}

static void print_evidence(ldx_report *r, const ldx_diagnosis *d, size_t max)
{
    FILE *fp = r->fp;
    size_t shown = d->nevidence < max ? d->nevidence : max;
    int w = 1;
    for (uint64_t l = d->evidence[d->nevidence ? d->nevidence - 1 : 0].line; l >= 10; l /= 10) w++;
    if (!d->nevidence) return;
    fprintf(fp, "    %sevidence%s\n", col(r, C_BOLD), col(r, C_RESET));
    int avail = r->opts.width - 8 - w;
    for (size_t i = 0; i < shown; i++) {
        const ldx_evidence *e = &d->evidence[i];
        /* the whole line as the scan kept it, folded to the width: cutting it at the
         * edge of the screen would drop the sizes of an OOM line, or its captures */
        char *shown_text = evidence_window(e, avail);
        const char *text = shown_text ? shown_text : e->text;
        size_t ends[EVIDENCE_ROWS], rows = ldxi_report_fold(text, avail, ends, EVIDENCE_ROWS);
        size_t at = 0;
        for (size_t k = 0; k < rows || k == 0; k++) {
            size_t end = rows ? ends[k] : 0;
            if (k == 0)
                fprintf(fp, "      %s%*llu%s  ", col(r, C_DIM), w, (unsigned long long)e->line,
                        col(r, C_RESET));
            else
                fprintf(fp, "      %*s  ", w, "");
            size_t to = end;
            if (k + 1 < rows && to > at && text[to - 1] == ' ') to--; /* the break */
            fprintf(fp, "%.*s%s\n", (int)(to - at), text + at,
                    k + 1 == rows && text[end] ? "…" : "");
            at = end;
        }
        free(shown_text);
        /* a code the line carries, as its table names it */
        const char *name = e->row >= 0 ? ldx_table_cell(e->table, e->row, "name") : NULL;
        if (name && *name)
            fprintf(fp, "      %*s  %s↳ %s %s: %s%s\n", w, "", col(r, C_DIM), e->table->name,
                    e->caps[e->code_cap].value, name, col(r, C_RESET));
    }
    if (d->nevidence > shown)
        fprintf(fp, "      %s… %zu more%s\n", col(r, C_DIM), d->nevidence - shown, col(r, C_RESET));
}

static void print_block(ldx_report *r, size_t idx, const ldx_diagnosis *d)
{
    FILE *fp = r->fp;
    const ldx_rule_info *ri = d->rule;
    char sev[16], title[512];
    upper(ldx_severity_name(ri->severity), sev, sizeof sev);
    fprintf(fp, "\n%s[%zu]%s %s%-8s%s %s%s%s\n", col(r, C_BOLD), idx + 1, col(r, C_RESET),
            col(r, sev_color(ri->severity)), sev, col(r, C_RESET), col(r, C_BOLD),
            ldx_diagnosis_title(d, title, sizeof title),
            col(r, C_RESET));
    fprintf(fp, "    %s%s · %s · confidence %.2f · %s", col(r, C_DIM), ri->klass, ri->id,
            d->confidence, ldx_role_name(d->role));
    if (d->cause) fprintf(fp, " (follows %s)", d->cause);
    if (d->in_baseline) fprintf(fp, " · also in the baseline run");
    fprintf(fp, " · line %llu", (unsigned long long)d->line);
    if (d->rank >= 0) fprintf(fp, " · rank %d", d->rank);
    fprintf(fp, "%s\n", col(r, C_RESET));
    bool brief = d->role == LDX_ROLE_COLLATERAL || d->in_baseline;
    print_evidence(r, d, brief ? (r->opts.brief ? 1 : 2) : r->opts.brief ? 3 : 6);
    if (d->action.action) {
        char what[256];
        snprintf(what, sizeof what, "%s (%s %s, line %llu)%s%s", d->action.action,
                 d->action.table, d->action.code_value ? d->action.code_value : "",
                 (unsigned long long)d->action.line, d->action.text ? ": " : "",
                 d->action.text ? d->action.text : "");
        fprintf(fp, "    %saction%s\n", col(r, C_BOLD), col(r, C_RESET));
        ldxi_report_wrap(fp, what, 6, r->opts.width, NULL);
    }
    for (size_t i = 0; i < d->ntrends; i++) {
        const ldx_trend *t = &d->trends[i];
        char a[32], b[32];
        ldxi_format_trend_ends(t, a, b, sizeof a);
        fprintf(fp, "    %strend%s    %s.%s ", col(r, C_BOLD), col(r, C_RESET), t->signal,
                t->capture);
        sparkline(fp, t->values, t->nvalues);
        fprintf(fp, " %s → %s over %llu points", a, b, (unsigned long long)t->points);
        if (t->rank >= 0) fprintf(fp, " (rank %d)", t->rank);
        fputc('\n', fp);
    }
    if (brief) return;
    /* --brief: what a person reads first; the rest is a command away */
    bool short_form = r->opts.brief;
    for (size_t i = 0; i < d->nadvice && !short_form; i++) {
        fprintf(fp, "    %sfor your versions%s\n", col(r, C_BOLD), col(r, C_RESET));
        ldxi_report_wrap(fp, d->advice[i], 8, r->opts.width, "! ");
    }
    fprintf(fp, "    %sroot cause%s\n", col(r, C_BOLD), col(r, C_RESET));
    ldxi_report_wrap(fp, ri->root_cause, 6, r->opts.width, NULL);
    fprintf(fp, "    %sfix%s\n", col(r, C_BOLD), col(r, C_RESET));
    size_t cap = short_form ? BRIEF_FIX : FULL_FIX, nfix = d->nfix < cap ? d->nfix : cap;
    for (size_t i = 0; i < nfix; i++) {
        char num[32];
        snprintf(num, sizeof num, "%zu. ", i + 1);
        ldxi_report_wrap(fp, d->fix[i], 9, r->opts.width, num);
    }
    size_t nver = short_form ? 0 : ri->verify.n < FULL_VERIFY ? ri->verify.n : FULL_VERIFY;
    if (nver) fprintf(fp, "    %sverify%s\n", col(r, C_BOLD), col(r, C_RESET));
    for (size_t i = 0; i < nver; i++) ldxi_report_wrap(fp, ri->verify.v[i], 8, r->opts.width, "- ");
    size_t more = d->nfix - nfix + ri->verify.n - nver;
    if (more)
        fprintf(fp, "      %s… %zu more step%s: logdx rules show %s%s\n", col(r, C_DIM), more,
                more == 1 ? "" : "s", ri->id, col(r, C_RESET));
}

/* "rank 2", "ranks 0,1,3", "ranks 0-63 (64)" */
static void rank_list(const ldx_diagnosis *d, char *buf, size_t size)
{
    if (!d->nranks) {
        buf[0] = '\0';
        return;
    }
    if (d->nranks == 1) {
        snprintf(buf, size, "rank %d", d->ranks[0]);
        return;
    }
    bool contiguous = d->ranks[d->nranks - 1] - d->ranks[0] == (int)d->nranks - 1;
    if (contiguous && d->nranks > 3) {
        snprintf(buf, size, "ranks %d-%d (%zu)", d->ranks[0], d->ranks[d->nranks - 1], d->nranks);
        return;
    }
    size_t o = (size_t)snprintf(buf, size, "ranks ");
    for (size_t i = 0; i < d->nranks && o < size; i++) {
        if (i == 8) {
            snprintf(buf + o, size - o, ",… (%zu)", d->nranks);
            return;
        }
        o += (size_t)snprintf(buf + o, size - o, "%s%d", i ? "," : "", d->ranks[i]);
    }
}

static size_t index_of(const ldx_file_report *fr, const char *id)
{
    for (size_t i = 0; i < fr->n; i++)
        if (!strcmp(fr->diagnoses[i].rule->id, id)) return i + 1;
    return 0;
}

static int by_line(const void *a, const void *b)
{
    const ldx_diagnosis *x = *(const ldx_diagnosis *const *)a, *y = *(const ldx_diagnosis *const *)b;
    return x->line < y->line ? -1 : x->line > y->line;
}

/* The short story of a multi-failure log: the initiating failure first (where, when,
 * on which rank), then what followed, in the order it appeared. */
static void print_story(ldx_report *r, const ldx_file_report *fr)
{
    FILE *fp = r->fp;
    const ldx_diagnosis **v = malloc(fr->n * sizeof(*v));
    if (!v) return;
    size_t n = 0;
    for (size_t i = 1; i < fr->n; i++) v[n++] = &fr->diagnoses[i];
    qsort(v, n, sizeof(*v), by_line);
    fprintf(fp, "\n%swhat happened%s\n", col(r, C_BOLD), col(r, C_RESET));
    for (size_t k = 0; k <= n; k++) {
        const ldx_diagnosis *d = k == 0 ? &fr->diagnoses[0] : v[k - 1];
        char ranks[96], when[48] = "";
        rank_list(d, ranks, sizeof ranks);
        if (d->ts_kind != LDX_TS_NONE) {
            char t[40];
            ldx_format_time(d->ts_kind, d->ts, t, sizeof t);
            snprintf(when, sizeof when, "%s, ", t);
        }
        char title[512];
        fprintf(fp, "  %s %s[%zu]%s %sline %llu%s%s: %s", k == 0 ? "*" : "→",
                col(r, C_BOLD), index_of(fr, d->rule->id), col(r, C_RESET), when,
                (unsigned long long)d->line, ranks[0] ? ", " : "", ranks,
                ldx_diagnosis_title(d, title, sizeof title));
        if (d->hits > 1) fprintf(fp, " (%llu lines)", (unsigned long long)d->hits);
        if (d->role == LDX_ROLE_COLLATERAL && d->cause)
            fprintf(fp, " %s← follows [%zu]%s", col(r, C_DIM), index_of(fr, d->cause), col(r, C_RESET));
        else if (d->in_baseline)
            fprintf(fp, " %s(also in the baseline run)%s", col(r, C_DIM), col(r, C_RESET));
        else if (k > 0)
            fprintf(fp, " %s(independent)%s", col(r, C_DIM), col(r, C_RESET));
        fputc('\n', fp);
    }
    free(v);
}

static ldx_status t_begin(ldx_report *r)
{
    r->state = calloc(1, sizeof(text_state));
    return r->state ? LDX_OK : LDX_ENOMEM;
}

static ldx_status t_file(ldx_report *r, const ldx_file_report *fr)
{
    text_state *s = r->state;
    FILE *fp = r->fp;
    if (r->opts.quiet) {
        for (size_t i = 0; i < fr->n; i++) print_quiet(r, fr, &fr->diagnoses[i]);
        s->files++;
        return LDX_OK;
    }
    if (s->files++) fputc('\n', fp);
    fprintf(fp, "%s%s%s: %llu lines, ", col(r, C_BOLD), fr->path, col(r, C_RESET),
            (unsigned long long)fr->lines);
    if (!fr->n) {
        fprintf(fp, "no known failure signature\n");
    } else {
        size_t coll = 0;
        for (size_t i = 0; i < fr->n; i++) coll += fr->diagnoses[i].role == LDX_ROLE_COLLATERAL;
        fprintf(fp, "%zu diagnos%s", fr->n, fr->n == 1 ? "is" : "es");
        if (coll) fprintf(fp, " (%zu collateral)", coll);
        fputc('\n', fp);
        const ldx_diagnosis *top = &fr->diagnoses[0];
        char title[512];
        fprintf(fp, "most likely cause: %s%s%s (%s)", col(r, C_BOLD),
                ldx_diagnosis_title(top, title, sizeof title), col(r, C_RESET), top->rule->klass);
        if (top->rank >= 0) fprintf(fp, " on rank %d", top->rank);
        fprintf(fp, " at line %llu\n", (unsigned long long)top->line);
        if (fr->n > 1) print_story(r, fr);
    }
    if (fr->launcher_note) {
        fprintf(fp, "\n%slauncher%s\n", col(r, C_BOLD), col(r, C_RESET));
        ldxi_report_wrap(fp, fr->launcher_note, 2, r->opts.width, NULL);
    }
    for (size_t i = 0; i < fr->n; i++) print_block(r, i, &fr->diagnoses[i]);
    return LDX_OK;
}

/* Problems are printed on standard error by the caller, not mixed into the report. */
static ldx_status t_finish(ldx_report *r, const ldx_msgs *errors)
{
    (void)r;
    (void)errors;
    return LDX_OK;
}

static void t_destroy(ldx_report *r) { free(r->state); }

const ldxi_format ldxi_format_text = {"text", t_begin, t_file, t_finish, t_destroy};
