/* --format junit: JUnit XML, which every CI dashboard reads (GitLab, Jenkins, Azure,
 * the GitHub test-report actions).
 *
 * One testcase per input file, named by its path. Each diagnosis at or above
 * --fail-on is a <failure> of that testcase (type = class, message = title), its body
 * the evidence lines with their numbers, root cause, fix and verify; every diagnosis,
 * failing or not, is listed in the testcase's <system-out>. A file that could not be
 * read completely gets an <error>; a problem outside any input file (a missing path,
 * an invalid rule) becomes a testcase of its own with an <error>, so that a broken
 * gate shows up on the dashboard rather than only in the job log.
 *
 * The counts go on <testsuite>, before the testcases, so the testcases are kept in a
 * buffer until the end. No timestamps, times or host names: the output depends only
 * on the inputs. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_int.h"

/* The XML of all testcases is held until the end; past this, the report fails. */
#define JUNIT_MAX_BYTES ((size_t)1 << 30)

typedef struct {
    ldx_buf cases;
    size_t tests, failures, errors;
    bool ok;
} junit_state;

/* Appends s escaped for XML character data (attr: for a double-quoted attribute
 * value, where line ends and tabs must be character references to survive attribute
 * normalisation). s is made valid UTF-8 first; characters XML 1.0 forbids (C0 controls
 * but tab and line ends, U+FFFE, U+FFFF) become U+FFFD or spaces. */
static void esc(junit_state *s, const char *text, bool attr)
{
    char *u = ldxi_report_utf8(text ? text : "");
    if (!u) {
        s->ok = false;
        return;
    }
    ldx_buf *b = &s->cases;
    const char *run = u;
    for (const char *p = u;; p++) {
        const char *rep = NULL;
        size_t skip = 1;
        switch (*p) {
        case '&': rep = "&amp;"; break;
        case '<': rep = "&lt;"; break;
        case '>': rep = "&gt;"; break;
        case '"': rep = attr ? "&quot;" : NULL; break;
        case '\'': rep = attr ? "&apos;" : NULL; break;
        case '\n': rep = attr ? "&#10;" : NULL; break;
        case '\t': rep = attr ? "&#9;" : NULL; break;
        case '\r': rep = "&#13;"; break;
        case '\xef':
            if (p[1] == '\xbf' && (p[2] == '\xbe' || p[2] == '\xbf')) rep = "\xef\xbf\xbd", skip = 3;
            break;
        default: break;
        }
        if (!*p || rep) {
            if (ldxi_buf_append(b, run, (size_t)(p - run)) != LDX_OK) s->ok = false;
            if (!*p) break;
            if (ldxi_buf_append(b, rep, strlen(rep)) != LDX_OK) s->ok = false;
            p += skip - 1;
            run = p + 1;
        }
    }
    free(u);
}

static void put(junit_state *s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void put(junit_state *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *t = ldxi_vasprintf(fmt, ap);
    va_end(ap);
    if (!t || ldxi_buf_append(&s->cases, t, strlen(t)) != LDX_OK) s->ok = false;
    free(t);
}

/* Rule text from YAML folded scalars ends in a line end; the body adds its own. */
static void esc_trim(junit_state *s, const char *text)
{
    if (!text) return;
    size_t n = strlen(text);
    while (n && (text[n - 1] == '\n' || text[n - 1] == ' ')) n--;
    char *t = ldxi_strndup(text, n);
    if (!t) {
        s->ok = false;
        return;
    }
    esc(s, t, false);
    free(t);
}

static void role_text(junit_state *s, const ldx_diagnosis *d)
{
    put(s, "%s", ldx_role_name(d->role));
    if (d->cause) {
        put(s, ", follows ");
        esc(s, d->cause, false);
    }
    if (d->rank >= 0) put(s, ", rank %d", d->rank);
}

static void failure(junit_state *s, const char *path, const ldx_diagnosis *d)
{
    const ldx_rule_info *r = d->rule;
    char title[512];
    ldx_diagnosis_title(d, title, sizeof title);
    put(s, "      <failure type=\"");
    esc(s, r->klass, true);
    put(s, "\" message=\"");
    esc(s, title, true);
    put(s, "\">");
    esc(s, path, false);
    put(s, ":%llu: %s %s ", (unsigned long long)d->line, ldx_severity_name(r->severity),
        r->klass);
    esc(s, r->id, false);
    put(s, " (");
    role_text(s, d);
    put(s, ", confidence %.2f)\n", d->confidence);
    esc(s, title, false);
    put(s, "\n\nevidence:\n");
    for (size_t i = 0; i < d->nevidence; i++) {
        const ldx_evidence *e = &d->evidence[i];
        put(s, "  %llu: ", (unsigned long long)e->line);
        esc(s, e->text, false);
        put(s, "\n");
    }
    put(s, "\nroot cause:\n  ");
    esc_trim(s, r->root_cause);
    if (d->nfix) put(s, "\n\nfix:");
    for (size_t i = 0; i < d->nfix; i++) {
        put(s, "\n  %zu. ", i + 1);
        esc_trim(s, d->fix[i]);
    }
    if (r->verify.n) put(s, "\n\nverify:");
    for (size_t i = 0; i < r->verify.n; i++) {
        put(s, "\n  - ");
        esc_trim(s, r->verify.v[i]);
    }
    put(s, "\n</failure>\n");
}

static ldx_status u_begin(ldx_report *r)
{
    junit_state *s = calloc(1, sizeof(*s));
    if (!s) return LDX_ENOMEM;
    ldxi_buf_init(&s->cases, JUNIT_MAX_BYTES);
    s->ok = true;
    r->state = s;
    return LDX_OK;
}

static ldx_status u_file(ldx_report *r, const ldx_file_report *fr)
{
    junit_state *s = r->state;
    int fail_on = r->opts.fail_on;
    size_t nfail = 0;
    for (size_t i = 0; i < fr->n; i++)
        nfail += fail_on >= 0 && (int)fr->diagnoses[i].rule->severity >= fail_on;
    size_t nerr = ldx_msgs_errors(fr->errors);
    s->tests++;
    s->failures += nfail > 0;
    s->errors += nerr > 0;
    /* "-" means nothing on a dashboard; SARIF calls it "stdin" too */
    const char *path = strcmp(fr->path, "-") ? fr->path : "stdin";
    put(s, "    <testcase classname=\"logdx\" name=\"");
    esc(s, path, true);
    put(s, "\">\n");
    for (size_t i = 0; i < fr->n; i++) {
        const ldx_diagnosis *d = &fr->diagnoses[i];
        if (fail_on >= 0 && (int)d->rule->severity >= fail_on) failure(s, path, d);
    }
    if (nerr) {
        const ldx_msg *first = NULL;
        for (size_t i = 0; i < ldx_msgs_count(fr->errors) && !first; i++)
            if (ldx_msgs_get(fr->errors, i)->level == LDX_MSG_ERROR)
                first = ldx_msgs_get(fr->errors, i);
        put(s, "      <error type=\"input\" message=\"");
        esc(s, first->text, true);
        put(s, "\">");
        for (size_t i = 0; i < ldx_msgs_count(fr->errors); i++) {
            char buf[2048];
            ldx_msg_format(ldx_msgs_get(fr->errors, i), buf, sizeof buf);
            esc(s, buf, false);
            put(s, "\n");
        }
        put(s, "</error>\n");
    }
    put(s, "      <system-out>");
    esc(s, path, false);
    put(s, ": %llu lines, %zu diagnos%s, %zu at or above --fail-on\n",
        (unsigned long long)fr->lines, fr->n, fr->n == 1 ? "is" : "es", nfail);
    for (size_t i = 0; i < fr->n; i++) {
        const ldx_diagnosis *d = &fr->diagnoses[i];
        put(s, "[%zu] line %llu: %s %s ", i + 1, (unsigned long long)d->line,
            ldx_severity_name(d->rule->severity), d->rule->klass);
        esc(s, d->rule->id, false);
        put(s, ": ");
        char title[512];
        esc(s, ldx_diagnosis_title(d, title, sizeof title), false);
        put(s, " (");
        role_text(s, d);
        put(s, ")\n");
    }
    put(s, "</system-out>\n    </testcase>\n");
    return s->ok ? LDX_OK : LDX_ENOMEM;
}

/* Global errors: one testcase per path named in them, one "logdx" testcase for the
 * rest, each with one <error> listing its messages. */
static void global_errors(junit_state *s, const ldx_msgs *m)
{
    size_t n = ldx_msgs_count(m);
    bool *done = calloc(n ? n : 1, sizeof(bool));
    if (!done) {
        s->ok = false;
        return;
    }
    for (size_t i = 0; i < n; i++) {
        if (done[i]) continue;
        const ldx_msg *mi = ldx_msgs_get(m, i);
        const char *path = mi->path;
        const ldx_msg *first_error = NULL;
        for (size_t j = i; j < n && !first_error; j++) {
            const ldx_msg *mj = ldx_msgs_get(m, j);
            bool same = path ? (mj->path && !strcmp(mj->path, path)) : !mj->path;
            if (same && mj->level == LDX_MSG_ERROR) first_error = mj;
        }
        bool any_error = first_error != NULL;
        s->tests++;
        s->errors += any_error;
        put(s, "    <testcase classname=\"logdx\" name=\"");
        esc(s, path ? path : "logdx", true);
        put(s, "\">\n");
        if (any_error) {
            put(s, "      <error type=\"%s\" message=\"", path ? "input" : "logdx");
            esc(s, first_error->text, true);
            put(s, "\">");
        } else {
            put(s, "      <system-out>"); /* warnings only: nothing failed */
        }
        for (size_t j = i; j < n; j++) {
            const ldx_msg *mj = ldx_msgs_get(m, j);
            bool same = path ? (mj->path && !strcmp(mj->path, path)) : !mj->path;
            if (!same) continue;
            done[j] = true;
            char buf[2048];
            ldx_msg_format(mj, buf, sizeof buf);
            esc(s, buf, false);
            put(s, "\n");
        }
        put(s, "</%s>\n    </testcase>\n", any_error ? "error" : "system-out");
    }
    free(done);
}

static ldx_status u_finish(ldx_report *r, const ldx_msgs *errors)
{
    junit_state *s = r->state;
    global_errors(s, errors);
    if (!s->ok) return LDX_ENOMEM;
    char fail_on[16];
    snprintf(fail_on, sizeof fail_on, "%s",
             r->opts.fail_on >= 0 ? ldx_severity_name((ldx_severity)r->opts.fail_on) : "never");
    FILE *fp = r->fp;
    fprintf(fp, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    fprintf(fp, "<testsuites name=\"logdx\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\">\n",
            s->tests, s->failures, s->errors);
    fprintf(fp,
            "  <testsuite name=\"logdx\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" "
            "skipped=\"0\">\n",
            s->tests, s->failures, s->errors);
    fprintf(fp,
            "    <properties>\n"
            "      <property name=\"logdx.version\" value=\"%s\"/>\n"
            "      <property name=\"fail-on\" value=\"%s\"/>\n"
            "    </properties>\n",
            LDX_VERSION, fail_on);
    if (s->cases.len) fwrite(s->cases.data, 1, s->cases.len, fp);
    fprintf(fp, "  </testsuite>\n</testsuites>\n");
    return LDX_OK;
}

static void u_destroy(ldx_report *r)
{
    junit_state *s = r->state;
    if (!s) return;
    ldxi_buf_free(&s->cases);
    free(s);
}

const ldxi_format ldxi_format_junit = {"junit", u_begin, u_file, u_finish, u_destroy};
