/* --format html: one self-contained page for a batch of logs, to open in a browser or
 * attach to a ticket. Inline CSS and SVG only: no script, no font or image to fetch, so
 * it renders the same offline and in a locked-down viewer. The output depends only on
 * the inputs (no time, no host).
 *
 * A file report dies once reported, so each one is rendered into HTML at once (its
 * row of the overview table and its section); only the class counts for the chart are
 * kept as data. The page is written at the end, when the chart can be drawn. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report_int.h"

#define HTML_MAX ((size_t)1 << 30) /* per part of the page */

typedef struct {
    char *klass;
    size_t count;
} class_count;

typedef struct {
    ldx_buf rows, sections;
    class_count *classes;
    size_t nclasses, cap;
    size_t nfiles, diagnosed, ndiag;
    ldx_status st; /* the first failure; later writes are skipped */
} html_state;

/* ---- writing, with a sticky status ---- */

static void put_n(html_state *s, ldx_buf *b, const char *p, size_t n)
{
    if (s->st == LDX_OK) s->st = ldxi_buf_append(b, p, n);
}

static void put(html_state *s, ldx_buf *b, const char *p) { put_n(s, b, p, strlen(p)); }

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void putf(html_state *s, ldx_buf *b, const char *fmt, ...)
{
    if (s->st != LDX_OK) return;
    va_list ap;
    va_start(ap, fmt);
    char *t = ldxi_vasprintf(fmt, ap);
    va_end(ap);
    if (!t) {
        s->st = LDX_ENOMEM;
        return;
    }
    put(s, b, t);
    free(t);
}

/* Text into HTML, in an element or an attribute: the five characters that matter. */
static void esc_n(html_state *s, ldx_buf *b, const char *p, size_t n)
{
    size_t from = 0;
    for (size_t i = 0; i < n; i++) {
        const char *e = NULL;
        switch (p[i]) {
        case '&': e = "&amp;"; break;
        case '<': e = "&lt;"; break;
        case '>': e = "&gt;"; break;
        case '"': e = "&quot;"; break;
        case '\'': e = "&#39;"; break;
        default: continue;
        }
        put_n(s, b, p + from, i - from);
        put(s, b, e);
        from = i + 1;
    }
    put_n(s, b, p + from, n - from);
}

static void esc(html_state *s, ldx_buf *b, const char *p) { esc_n(s, b, p, strlen(p)); }

/* Text that may hold bytes of any kind (a file name, a message): made valid UTF-8
 * first, then escaped. */
static void esc_bytes(html_state *s, ldx_buf *b, const char *p)
{
    char *u = ldxi_report_utf8(p);
    if (!u) {
        if (s->st == LDX_OK) s->st = LDX_ENOMEM;
        return;
    }
    esc(s, b, u);
    free(u);
}

/* Rule prose marks code with `backticks`: shown as <code>, when they pair up. */
static void prose(html_state *s, ldx_buf *b, const char *p)
{
    size_t ticks = 0;
    for (const char *q = p; *q; q++) ticks += *q == '`';
    if (ticks % 2) {
        esc(s, b, p);
        return;
    }
    bool in = false;
    for (const char *q; (q = strchr(p, '`')) != NULL; p = q + 1) {
        esc_n(s, b, p, (size_t)(q - p));
        put(s, b, in ? "</code>" : "<code>");
        in = !in;
    }
    esc(s, b, p);
}

static const char *sev_name(const ldx_diagnosis *d) { return ldx_severity_name(d->rule->severity); }

static void badge(html_state *s, ldx_buf *b, const ldx_diagnosis *d)
{
    putf(s, b, "<span class=\"sev sev-%s\">%s</span>", sev_name(d), sev_name(d));
}

/* ---- the chart's data ---- */

static void count_class(html_state *s, const char *klass)
{
    for (size_t i = 0; i < s->nclasses; i++)
        if (!strcmp(s->classes[i].klass, klass)) {
            s->classes[i].count++;
            return;
        }
    class_count c = {ldxi_strdup(klass), 1};
    if (!c.klass || LDXI_PUSH(s->classes, s->nclasses, s->cap, c) != LDX_OK) {
        free(c.klass);
        if (s->st == LDX_OK) s->st = LDX_ENOMEM;
    }
}

static int by_count(const void *a, const void *b)
{
    const class_count *x = a, *y = b;
    if (x->count != y->count) return x->count > y->count ? -1 : 1;
    return strcmp(x->klass, y->klass);
}

/* ---- one file ---- */


static void sparkline(html_state *s, ldx_buf *b, const ldx_trend *t)
{
    if (t->nvalues < 2) return;
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < t->nvalues; i++) {
        if (t->values[i] < lo) lo = t->values[i];
        if (t->values[i] > hi) hi = t->values[i];
    }
    put(s, b, "<svg class=\"spark\" viewBox=\"0 0 120 24\" width=\"120\" height=\"24\" "
              "aria-hidden=\"true\"><polyline fill=\"none\" stroke=\"currentColor\" "
              "stroke-width=\"1.5\" points=\"");
    for (size_t i = 0; i < t->nvalues; i++) {
        double x = 2.0 + 116.0 * (double)i / (double)(t->nvalues - 1);
        double y = hi > lo ? 22.0 - 20.0 * (t->values[i] - lo) / (hi - lo) : 12.0;
        putf(s, b, "%s%.1f,%.1f", i ? " " : "", x, y);
    }
    put(s, b, "\"/></svg>");
}

/* " · <time>", when the line had one. */
static void put_time(html_state *s, ldx_buf *b, ldx_ts_kind kind, double ts)
{
    if (kind == LDX_TS_NONE) return;
    char tb[40];
    ldx_format_time(kind, ts, tb, sizeof tb);
    put(s, b, " · ");
    esc(s, b, tb);
}

static void trends(html_state *s, ldx_buf *b, const ldx_diagnosis *d)
{
    if (!d->ntrends) return;
    put(s, b, "<h4>trend</h4><ul class=\"trends\">");
    for (size_t i = 0; i < d->ntrends; i++) {
        const ldx_trend *t = &d->trends[i];
        char a[32], z[32];
        double scale = ldxi_format_trend_ends(t, a, z, sizeof a);
        put(s, b, "<li><code>");
        esc(s, b, t->signal);
        put(s, b, ".");
        esc(s, b, t->capture);
        putf(s, b, "</code> %s ", t->rising ? "rising" : "falling");
        sparkline(s, b, t);
        putf(s, b, " %s &rarr; %s over %llu points", a, z, (unsigned long long)t->points);
        if (t->rank >= 0) putf(s, b, " (rank %d)", t->rank);
        if (t->nvalues) {
            put(s, b, "<br><span class=\"muted values\">values:");
            for (size_t k = 0; k < t->nvalues; k++) {
                char v[32];
                ldxi_format_quantity(t->values[k], scale, v, sizeof v);
                putf(s, b, "%s %s", k ? "," : "", v);
            }
            put(s, b, "</span>");
        }
        put(s, b, "</li>");
    }
    put(s, b, "</ul>");
}

static void evidence(html_state *s, ldx_buf *b, const ldx_diagnosis *d)
{
    if (!d->nevidence) return;
    /* one width for the line numbers of a block, from the widest */
    uint64_t top = 0;
    for (size_t i = 0; i < d->nevidence; i++)
        if (d->evidence[i].line > top) top = d->evidence[i].line;
    int w = 1;
    for (; top >= 10; top /= 10) w++;
    putf(s, b, "<h4>evidence</h4><div class=\"evidence\" style=\"--lnw:%dch\">", w);
    for (size_t i = 0; i < d->nevidence; i++) {
        const ldx_evidence *e = &d->evidence[i];
        putf(s, b, "<div class=\"ev\"><span class=\"ln\">%llu</span><code>",
             (unsigned long long)e->line);
        esc_bytes(s, b, e->text);
        put(s, b, "</code><span class=\"evmeta\">");
        esc(s, b, e->signal);
        if (e->rank >= 0) putf(s, b, " · rank %d", e->rank);
        put_time(s, b, e->ts_kind, e->ts);
        if (e->host && *e->host) {
            put(s, b, " · host ");
            esc_bytes(s, b, e->host);
        }
        if (e->step >= 0) putf(s, b, " · step %ld", e->step);
        for (size_t c = 0; c < e->ncaps; c++) {
            put(s, b, " · <span class=\"cap\">");
            esc(s, b, e->caps[c].name);
            put(s, b, "=");
            esc_bytes(s, b, e->caps[c].value);
            put(s, b, "</span>");
        }
        put(s, b, "</span></div>");
    }
    put(s, b, "</div>");
}

static void list(html_state *s, ldx_buf *b, const char *title, const ldx_strv *v, bool ordered)
{
    if (!v->n) return;
    putf(s, b, "<h4>%s</h4><%s>", title, ordered ? "ol" : "ul");
    for (size_t i = 0; i < v->n; i++) {
        put(s, b, "<li>");
        prose(s, b, v->v[i]);
        put(s, b, "</li>");
    }
    putf(s, b, "</%s>", ordered ? "ol" : "ul");
}

/* Links only for web addresses: a rule file could hold a javascript: one. */
static void references(html_state *s, ldx_buf *b, const ldx_strv *v)
{
    if (!v->n) return;
    put(s, b, "<h4>references</h4><ul class=\"refs\">");
    for (size_t i = 0; i < v->n; i++) {
        const char *u = v->v[i];
        bool web = !strncmp(u, "https://", 8) || !strncmp(u, "http://", 7);
        put(s, b, "<li>");
        if (web) {
            put(s, b, "<a href=\"");
            esc(s, b, u);
            put(s, b, "\">");
        }
        esc(s, b, u);
        put(s, b, web ? "</a></li>" : "</li>");
    }
    put(s, b, "</ul>");
}

static size_t index_of(const ldx_file_report *fr, const char *id)
{
    for (size_t i = 0; i < fr->n; i++)
        if (!strcmp(fr->diagnoses[i].rule->id, id)) return i + 1;
    return 0;
}

static void diagnosis(html_state *s, ldx_buf *b, size_t file, const ldx_file_report *fr, size_t i)
{
    const ldx_diagnosis *d = &fr->diagnoses[i];
    const ldx_rule_info *ri = d->rule;
    bool brief = d->role == LDX_ROLE_COLLATERAL || d->in_baseline;
    putf(s, b, "<article class=\"diag role-%s%s\" id=\"f%zu-d%zu\"><h3><span class=\"idx\">[%zu]</span> ",
         ldx_role_name(d->role), d->in_baseline ? " baseline" : "", file, i + 1, i + 1);
    badge(s, b, d);
    put(s, b, " ");
    char title[512];
    esc_bytes(s, b, ldx_diagnosis_title(d, title, sizeof title));
    put(s, b, "</h3><p class=\"meta\"><code>");
    esc(s, b, ri->klass);
    put(s, b, "</code> · <code>");
    esc(s, b, ri->id);
    putf(s, b, "</code> · confidence %.2f · %s", d->confidence, ldx_role_name(d->role));
    if (d->cause) {
        size_t k = index_of(fr, d->cause);
        if (k)
            putf(s, b, " (follows <a href=\"#f%zu-d%zu\">[%zu]</a> ", file, k, k);
        else
            put(s, b, " (follows ");
        esc(s, b, d->cause);
        put(s, b, ")");
    }
    if (d->in_baseline) put(s, b, " · also in the baseline run");
    putf(s, b, " · line %llu", (unsigned long long)d->line);
    if (d->rank >= 0) putf(s, b, " · rank %d", d->rank);
    put_time(s, b, d->ts_kind, d->ts);
    if (d->hits > 1) putf(s, b, " · %llu lines", (unsigned long long)d->hits);
    put(s, b, "</p>");
    evidence(s, b, d);
    trends(s, b, d);
    for (size_t k = 0; k < d->nadvice; k++) {
        put(s, b, "<div class=\"note advice\"><strong>for your versions</strong> ");
        prose(s, b, d->advice[k]);
        put(s, b, "</div>");
    }
    /* collateral findings matter as context: their remedy is folded away */
    put(s, b, brief ? "<details><summary>root cause, fix and verify</summary>" : "<div class=\"body\">");
    put(s, b, "<h4>root cause</h4><p>");
    prose(s, b, ri->root_cause ? ri->root_cause : "");
    put(s, b, "</p>");
    ldx_strv fix = ldx_diagnosis_fix(d);
    list(s, b, "fix", &fix, true);
    list(s, b, "verify", &ri->verify, false);
    references(s, b, &ri->references);
    put(s, b, brief ? "</details></article>\n" : "</div></article>\n");
}

static void messages(html_state *s, ldx_buf *b, const ldx_msgs *m)
{
    if (!m || !ldx_msgs_count(m)) return;
    put(s, b, "<ul class=\"errors\">");
    char line[4096];
    for (size_t i = 0; i < ldx_msgs_count(m); i++) {
        ldx_msg_format(ldx_msgs_get(m, i), line, sizeof line);
        put(s, b, "<li>");
        esc_bytes(s, b, line);
        put(s, b, "</li>");
    }
    put(s, b, "</ul>");
}

static ldx_status h_file(ldx_report *r, const ldx_file_report *fr)
{
    html_state *s = r->state;
    size_t f = ++s->nfiles;
    ldx_buf *row = &s->rows, *sec = &s->sections;
    size_t coll = 0;
    for (size_t i = 0; i < fr->n; i++) coll += fr->diagnoses[i].role == LDX_ROLE_COLLATERAL;
    s->ndiag += fr->n;

    /* the overview row */
    putf(s, row, "<tr><td class=\"num\">%zu</td><td class=\"path\"><a href=\"#f%zu\">", f, f);
    esc_bytes(s, row, fr->path);
    putf(s, row, "</a></td><td class=\"num\">%llu</td>", (unsigned long long)fr->lines);
    if (fr->n) {
        const ldx_diagnosis *top = &fr->diagnoses[0];
        s->diagnosed++;
        count_class(s, top->rule->klass);
        put(s, row, "<td>");
        badge(s, row, top);
        put(s, row, " <code>");
        esc(s, row, top->rule->klass);
        putf(s, row, "</code><br><a href=\"#f%zu-d1\">", f);
        char title[512];
        esc_bytes(s, row, ldx_diagnosis_title(top, title, sizeof title));
        put(s, row, "</a></td>");
        if (top->rank >= 0) putf(s, row, "<td class=\"num\">%d</td>", top->rank);
        else put(s, row, "<td class=\"num muted\">&ndash;</td>");
        putf(s, row, "<td class=\"num\">%llu</td>", (unsigned long long)top->line);
    } else {
        put(s, row, "<td colspan=\"3\" class=\"muted\">no known failure signature</td>");
    }
    putf(s, row, "<td class=\"num\">%zu", fr->n);
    if (coll) putf(s, row, " <span class=\"muted\">(%zu collateral)</span>", coll);
    if (ldx_msgs_errors(fr->errors)) put(s, row, " <span class=\"err\">read error</span>");
    put(s, row, "</td></tr>\n");

    /* the section */
    putf(s, sec, "<section class=\"file\" id=\"f%zu\"><h2><span class=\"idx\">%zu</span> ", f, f);
    esc_bytes(s, sec, fr->path);
    putf(s, sec, "</h2><p class=\"meta\">%llu lines · ", (unsigned long long)fr->lines);
    if (!fr->n) put(s, sec, "no known failure signature");
    else putf(s, sec, "%zu diagnos%s", fr->n, fr->n == 1 ? "is" : "es");
    if (coll) putf(s, sec, " (%zu collateral)", coll);
    bool first = true;
    for (size_t i = 0; ldx_version_component(i) && i < 16; i++) {
        if (!fr->versions[i]) continue;
        put(s, sec, first ? " · " : ", ");
        esc(s, sec, ldx_version_component(i));
        put(s, sec, " ");
        esc_bytes(s, sec, fr->versions[i]);
        first = false;
    }
    put(s, sec, "</p>");
    messages(s, sec, fr->errors);
    if (fr->launcher_note) {
        put(s, sec, "<div class=\"note launcher\"><strong>launcher</strong> ");
        prose(s, sec, fr->launcher_note);
        put(s, sec, "</div>");
    }
    for (size_t i = 0; i < fr->n; i++) diagnosis(s, sec, f, fr, i);
    put(s, sec, "</section>\n");
    return s->st;
}

/* ---- the page ---- */

static const char css[] =
    ":root{--bg:#fff;--fg:#1b1f24;--muted:#5c6670;--line:#d8dee4;--card:#f6f8fa;"
    "--code:#eef1f4;--link:#0a58ca;--bar:#3b6fd4;--crit:#8b0000;--high:#c62828;"
    "--med:#b26a00;--low:#00796b;--info:#6b7280}\n"
    "@media (prefers-color-scheme:dark){:root{--bg:#0f1216;--fg:#e6e9ed;--muted:#9aa4ae;"
    "--line:#2d333b;--card:#161b22;--code:#1f252d;--link:#6ea8fe;--bar:#5b8def;"
    "--crit:#ff6b6b;--high:#ff8a80;--med:#ffc46b;--low:#5fd3c2;--info:#a0a8b4}}\n"
    "*{box-sizing:border-box}\n"
    "body{margin:0 auto;max-width:1180px;padding:24px;background:var(--bg);color:var(--fg);"
    "font:15px/1.5 system-ui,-apple-system,'Segoe UI',Roboto,'Helvetica Neue',Arial,sans-serif}\n"
    "a{color:var(--link)}\n"
    "code,.evidence{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,'DejaVu Sans Mono',monospace;"
    "font-size:13px}\n"
    "p code,li code,.note code{background:var(--code);padding:0 3px;border-radius:3px}\n"
    "header h1{margin:0 0 4px;font-size:24px}\n"
    "header .sub{color:var(--muted);margin:0 0 16px}\n"
    ".stats{display:flex;gap:12px;flex-wrap:wrap;margin:0 0 20px;padding:0;list-style:none}\n"
    ".stats li{background:var(--card);border:1px solid var(--line);border-radius:8px;"
    "padding:8px 16px}\n"
    ".stats b{display:block;font-size:22px}\n"
    "h2{font-size:19px;margin:32px 0 4px;padding-top:8px;border-top:2px solid var(--line);"
    "word-break:break-all}\n"
    "h3{font-size:16px;margin:0 0 2px}\n"
    "h4{font-size:12px;text-transform:uppercase;letter-spacing:.05em;color:var(--muted);"
    "margin:12px 0 4px}\n"
    ".idx{color:var(--muted);font-weight:normal}\n"
    ".meta,.muted{color:var(--muted)}\n"
    ".meta{margin:0 0 8px;font-size:13px}\n"
    ".chart{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:12px}\n"
    ".chart svg{display:block;width:100%;height:auto}\n"
    ".chart text{fill:var(--fg);font:13px system-ui,sans-serif}\n"
    ".chart .bar{fill:var(--bar)}\n"
    "table{border-collapse:collapse;width:100%;margin:8px 0;font-size:14px}\n"
    "th,td{border-bottom:1px solid var(--line);padding:6px 8px;text-align:left;vertical-align:top}\n"
    "th{font-size:12px;text-transform:uppercase;letter-spacing:.04em;color:var(--muted)}\n"
    "td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\n"
    "td.path{word-break:break-all}\n"
    ".sev{display:inline-block;min-width:64px;text-align:center;border-radius:4px;"
    "padding:0 6px;font-size:11px;font-weight:700;text-transform:uppercase;color:#fff;"
    "vertical-align:1px}\n"
    ".sev-critical{background:var(--crit)}.sev-high{background:var(--high)}"
    ".sev-medium{background:var(--med)}.sev-low{background:var(--low)}"
    ".sev-info{background:var(--info)}\n"
    "@media (prefers-color-scheme:dark){.sev{color:#111}}\n"
    ".diag{background:var(--card);border:1px solid var(--line);border-left:4px solid var(--line);"
    "border-radius:8px;padding:12px 16px;margin:12px 0}\n"
    ".role-initiating{border-left-color:var(--high)}\n"
    ".role-contributing{border-left-color:var(--med)}\n"
    ".role-collateral,.baseline{opacity:.78}\n"
    ".role-collateral h3,.baseline h3{font-weight:600;font-size:15px}\n"
    ".evidence{background:var(--code);border-radius:6px;padding:6px 0;overflow-x:auto}\n"
    ".ev{display:grid;grid-template-columns:var(--lnw,6ch) 1fr;column-gap:12px;padding:2px 10px}\n"
    ".ev .ln{color:var(--muted);text-align:right;user-select:none}\n"
    ".ev code{white-space:pre-wrap;word-break:break-all}\n"
    ".ev .evmeta{grid-column:2;color:var(--muted);font-size:12px}\n"
    ".cap{white-space:nowrap}\n"
    ".note{border-left:3px solid var(--med);background:var(--code);padding:6px 10px;"
    "margin:10px 0;border-radius:4px}\n"
    ".note.launcher{border-left-color:var(--bar)}\n"
    ".trends{padding-left:20px}.spark{vertical-align:middle;color:var(--bar)}\n"
    ".values{font-size:12px}\n"
    "details summary{cursor:pointer;color:var(--muted);margin-top:8px}\n"
    "ol,ul{margin:4px 0;padding-left:24px}\n"
    ".refs{word-break:break-all}\n"
    ".errors{color:var(--high)}\n"
    ".err{color:var(--high);font-weight:600}\n"
    "footer{margin-top:40px;color:var(--muted);font-size:12px}\n";

static ldx_status h_begin(ldx_report *r)
{
    html_state *s = calloc(1, sizeof(*s));
    if (!s) return LDX_ENOMEM;
    ldxi_buf_init(&s->rows, HTML_MAX);
    ldxi_buf_init(&s->sections, HTML_MAX);
    r->state = s;
    return LDX_OK;
}

/* Horizontal bars: one per initiating class, most files first. */
static void chart(html_state *s, ldx_buf *b)
{
    put(s, b, "<h2 id=\"classes\">Initiating failure classes</h2>");
    if (!s->nclasses) {
        put(s, b, "<p class=\"muted\">No file has a diagnosis.</p>");
        return;
    }
    qsort(s->classes, s->nclasses, sizeof(*s->classes), by_count);
    size_t max = s->classes[0].count;
    const int row = 30, label = 300, width = 1000, barmax = width - label - 70;
    int height = (int)s->nclasses * row + 10;
    putf(s, b, "<div class=\"chart\"><svg viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" "
               "role=\"img\" aria-label=\"files per initiating failure class\">",
         width, height, width, height);
    for (size_t i = 0; i < s->nclasses; i++) {
        int y = 5 + (int)i * row;
        int w = (int)((double)barmax * (double)s->classes[i].count / (double)max + 0.5);
        if (w < 2) w = 2;
        putf(s, b, "<g><title>");
        esc(s, b, s->classes[i].klass);
        putf(s, b, ": %zu file%s</title>", s->classes[i].count, s->classes[i].count == 1 ? "" : "s");
        putf(s, b, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", label - 10, y + 19);
        esc(s, b, s->classes[i].klass);
        putf(s, b, "</text><rect class=\"bar\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"3\"/>",
             label, y + 4, w, row - 8);
        putf(s, b, "<text x=\"%d\" y=\"%d\">%zu</text></g>", label + w + 8, y + 19,
             s->classes[i].count);
    }
    put(s, b, "</svg></div>\n");
}

static ldx_status h_finish(ldx_report *r, const ldx_msgs *errors)
{
    html_state *s = r->state;
    ldx_buf head;
    ldxi_buf_init(&head, HTML_MAX);
    put(s, &head, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                  "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                  "<meta name=\"color-scheme\" content=\"light dark\">\n"
                  "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
                  "style-src 'unsafe-inline'; img-src data:\">\n"
                  "<meta name=\"generator\" content=\"logdx " LDX_VERSION "\">\n"
                  "<title>logdx report</title>\n<style>\n");
    put(s, &head, css);
    put(s, &head, "</style>\n</head>\n<body>\n<header><h1>logdx report</h1>"
                  "<p class=\"sub\">logdx " LDX_VERSION
                  " · why did the training run fail? The most likely initiating failure of "
                  "each log comes first.</p>\n");
    putf(s, &head, "<ul class=\"stats\"><li><b>%zu</b>file%s</li><li><b>%zu</b>diagnosed</li>"
                   "<li><b>%zu</b>diagnos%s</li><li><b>%zu</b>error%s</li></ul></header>\n",
         s->nfiles, s->nfiles == 1 ? "" : "s", s->diagnosed, s->ndiag,
         s->ndiag == 1 ? "is" : "es", ldx_msgs_errors(errors), ldx_msgs_errors(errors) == 1 ? "" : "s");
    if (ldx_msgs_count(errors)) {
        put(s, &head, "<h2>Problems</h2>");
        messages(s, &head, errors);
    }
    chart(s, &head);
    put(s, &head, "<h2 id=\"files\">Files</h2>\n<table><thead><tr><th class=\"num\">#</th>"
                  "<th>file</th><th class=\"num\">lines</th><th>top diagnosis</th>"
                  "<th class=\"num\">rank</th><th class=\"num\">line</th>"
                  "<th class=\"num\">diagnoses</th></tr></thead>\n<tbody>\n");
    if (s->st == LDX_OK && s->nfiles == 0)
        put(s, &head, "<tr><td colspan=\"7\" class=\"muted\">no input</td></tr>\n");
    if (s->st == LDX_OK) {
        fwrite(head.data, 1, head.len, r->fp);
        if (s->rows.len) fwrite(s->rows.data, 1, s->rows.len, r->fp);
        fputs("</tbody></table>\n", r->fp);
        if (s->sections.len) fwrite(s->sections.data, 1, s->sections.len, r->fp);
        fputs("<footer>Made by logdx " LDX_VERSION
              ". Evidence lines are quoted from the logs as they were given.</footer>\n"
              "</body>\n</html>\n",
              r->fp);
    }
    ldxi_buf_free(&head);
    return s->st;
}

static void h_destroy(ldx_report *r)
{
    html_state *s = r->state;
    if (!s) return;
    ldxi_buf_free(&s->rows);
    ldxi_buf_free(&s->sections);
    for (size_t i = 0; i < s->nclasses; i++) free(s->classes[i].klass);
    free(s->classes);
    free(s);
}

const ldxi_format ldxi_format_html = {"html", h_begin, h_file, h_finish, h_destroy};
