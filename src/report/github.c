/* --format github: GitHub Actions workflow commands, one annotation per diagnosis:
 *     ::error file=train.log,line=28,title=CUDA out of memory ... [cuda-oom-pytorch]::...
 * critical and high are errors, medium warnings, low and info notices. The message is
 * the rule's summary, its first fix step, the evidence line and where the diagnosis
 * stands (role, class, confidence); `logdx rules show ID` has the rest.
 *
 * GitHub shows at most 10 error, 10 warning and 10 notice annotations per step and
 * drops the others silently. So the annotations are kept until the end and at most 10
 * of each level printed, the first ones, which are the most important: files in the
 * order given, diagnoses in ranked order. If any were left out, a last notice says how
 * many (one notice slot is kept free for it). Problems reading inputs are annotations
 * too, at their own level.
 *
 * Escaping follows GitHub's runner: in the message % \r \n become %25 %0D %0A; in
 * property values also : and , become %3A and %2C. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "logdx/scan.h"
#include "report_int.h"

enum { GH_ERROR = 0, GH_WARNING, GH_NOTICE, GH_NLEVELS };
static const char *const level_names[GH_NLEVELS] = {"error", "warning", "notice"};

#define GH_MAX_PER_LEVEL 10
/* GitHub cuts annotation titles at 255 characters and messages at 64 KiB. */
#define GH_TITLE_MAX 200
#define GH_SUMMARY_MAX 1500
#define GH_FIX_MAX 1000
#define GH_EVIDENCE_MAX 300

typedef struct {
    int level;
    char *line; /* the whole command, with its line end */
} gh_annotation;

typedef struct {
    gh_annotation *v;
    size_t n, cap;
    bool ok;
} gh_state;

static int level_of(ldx_severity s)
{
    return s >= LDX_SEV_HIGH ? GH_ERROR : s == LDX_SEV_MEDIUM ? GH_WARNING : GH_NOTICE;
}

static void esc(ldx_buf *b, const char *text, bool prop, bool *ok)
{
    char *u = ldxi_report_utf8(text ? text : "");
    if (!u) {
        *ok = false;
        return;
    }
    const char *run = u;
    for (const char *p = u;; p++) {
        const char *rep = NULL;
        switch (*p) {
        case '%': rep = "%25"; break;
        case '\r': rep = "%0D"; break;
        case '\n': rep = "%0A"; break;
        case ':': rep = prop ? "%3A" : NULL; break;
        case ',': rep = prop ? "%2C" : NULL; break;
        default: break;
        }
        if (!*p || rep) {
            if (ldxi_buf_append(b, run, (size_t)(p - run)) != LDX_OK) *ok = false;
            if (!*p) break;
            if (ldxi_buf_append(b, rep, 3) != LDX_OK) *ok = false;
            run = p + 1;
        }
    }
    free(u);
}

/* Keeps one annotation. path NULL or "-" (standard input): no file= or line=, which
 * would point at a file that is not in the repository. */
static void annotate(gh_state *s, int level, const char *path, uint64_t line, const char *title,
                     const char *msg)
{
    ldx_buf b;
    ldxi_buf_init(&b, (size_t)1 << 20);
    bool ok = true;
    if (ldxi_buf_printf(&b, "::%s ", level_names[level]) != LDX_OK) ok = false;
    if (path && strcmp(path, "-") != 0) {
        while (path[0] == '.' && path[1] == '/') path += 2; /* as in SARIF */
        if (ldxi_buf_printf(&b, "file=") != LDX_OK) ok = false;
        esc(&b, path, true, &ok);
        if (line && ldxi_buf_printf(&b, ",line=%llu", (unsigned long long)line) != LDX_OK)
            ok = false;
        if (ldxi_buf_printf(&b, ",") != LDX_OK) ok = false;
    }
    char *t = ldx_display_text(title, strlen(title), GH_TITLE_MAX);
    if (ldxi_buf_printf(&b, "title=") != LDX_OK) ok = false;
    esc(&b, t ? t : "logdx", true, &ok);
    free(t);
    if (ldxi_buf_printf(&b, "::") != LDX_OK) ok = false;
    esc(&b, msg, false, &ok);
    if (ldxi_buf_printf(&b, "\n") != LDX_OK) ok = false;
    gh_annotation a = {level, b.data};
    if (!ok || !b.data || LDXI_PUSH(s->v, s->n, s->cap, a) != LDX_OK) {
        ldxi_buf_free(&b);
        s->ok = false;
    }
}

static char *cut(const char *text, size_t max)
{
    return ldx_display_text(text ? text : "", text ? strlen(text) : 0, max);
}

static void diagnosis(gh_state *s, const ldx_file_report *fr, const ldx_diagnosis *d)
{
    const ldx_rule_info *r = d->rule;
    char *sum = cut(r->summary && *r->summary ? r->summary : r->root_cause, GH_SUMMARY_MAX);
    char *fix = d->nfix ? cut(d->fix[0], GH_FIX_MAX) : NULL;
    const ldx_evidence *e = NULL;
    for (size_t i = 0; i < d->nevidence && !e; i++)
        if (d->evidence[i].line == d->line) e = &d->evidence[i];
    if (!e && d->nevidence) e = &d->evidence[0];
    char *ev = e ? cut(e->text, GH_EVIDENCE_MAX) : NULL;
    char where[64] = "";
    if (!strcmp(fr->path, "-")) snprintf(where, sizeof where, "standard input, ");
    char rank[32] = "";
    if (d->rank >= 0) snprintf(rank, sizeof rank, ", rank %d", d->rank);
    char *msg = ldxi_asprintf("%s%s%s\nEvidence (%sline %llu%s): %s\n%s %s, %s%s%s%s, confidence "
                              "%.2f; details: logdx rules show %s",
                              sum ? sum : "", fix ? "\nFix: " : "", fix ? fix : "", where,
                              (unsigned long long)d->line, rank, ev ? ev : "",
                              ldx_severity_name(r->severity), r->klass, ldx_role_name(d->role),
                              d->cause ? " (follows " : "", d->cause ? d->cause : "",
                              d->cause ? ")" : "", d->confidence, r->id);
    char named[512];
    char *title = ldxi_asprintf("%s [%s]", ldx_diagnosis_title(d, named, sizeof named), r->id);
    if (!msg || !title) s->ok = false;
    else annotate(s, level_of(r->severity), fr->path, d->line, title, msg);
    free(title);
    free(msg);
    free(ev);
    free(fix);
    free(sum);
}

static void messages(gh_state *s, const ldx_msgs *m, const char *title)
{
    for (size_t i = 0; i < ldx_msgs_count(m); i++) {
        const ldx_msg *msg = ldx_msgs_get(m, i);
        int level = msg->level == LDX_MSG_ERROR     ? GH_ERROR
                    : msg->level == LDX_MSG_WARNING ? GH_WARNING
                                                    : GH_NOTICE;
        char *text = msg->path ? ldxi_asprintf("%s: %s", strcmp(msg->path, "-") ? msg->path
                                                                                : "standard input",
                                               msg->text)
                               : ldxi_strdup(msg->text);
        if (!text) s->ok = false;
        else annotate(s, level, msg->path, msg->line, title, text);
        free(text);
    }
}

static ldx_status g_begin(ldx_report *r)
{
    gh_state *s = calloc(1, sizeof(*s));
    if (!s) return LDX_ENOMEM;
    s->ok = true;
    r->state = s;
    return LDX_OK;
}

static ldx_status g_file(ldx_report *r, const ldx_file_report *fr)
{
    gh_state *s = r->state;
    messages(s, fr->errors, "logdx could not read all of this input");
    for (size_t i = 0; i < fr->n; i++) diagnosis(s, fr, &fr->diagnoses[i]);
    return s->ok ? LDX_OK : LDX_ENOMEM;
}

static ldx_status g_finish(ldx_report *r, const ldx_msgs *errors)
{
    gh_state *s = r->state;
    messages(s, errors, "logdx");
    if (!s->ok) return LDX_ENOMEM;
    size_t total[GH_NLEVELS] = {0}, cap[GH_NLEVELS], shown[GH_NLEVELS] = {0};
    for (size_t i = 0; i < s->n; i++) total[s->v[i].level]++;
    bool dropped = false;
    for (int l = 0; l < GH_NLEVELS; l++) {
        cap[l] = GH_MAX_PER_LEVEL;
        if (total[l] > cap[l]) dropped = true;
    }
    if (dropped) cap[GH_NOTICE] = GH_MAX_PER_LEVEL - 1; /* room for the last notice */
    for (size_t i = 0; i < s->n; i++) {
        int l = s->v[i].level;
        if (shown[l] >= cap[l]) continue;
        shown[l]++;
        fputs(s->v[i].line, r->fp);
    }
    size_t left[GH_NLEVELS], nleft = 0;
    for (int l = 0; l < GH_NLEVELS; l++) {
        left[l] = total[l] - shown[l];
        nleft += left[l];
    }
    if (nleft)
        fprintf(r->fp,
                "::notice title=logdx left out %zu annotations::GitHub shows at most %d "
                "annotations of each level per step; %zu errors, %zu warnings and %zu notices "
                "were left out. Run logdx with --format text or --format sarif for the full "
                "report.\n",
                nleft, GH_MAX_PER_LEVEL, left[GH_ERROR], left[GH_WARNING], left[GH_NOTICE]);
    return LDX_OK;
}

static void g_destroy(ldx_report *r)
{
    gh_state *s = r->state;
    if (!s) return;
    for (size_t i = 0; i < s->n; i++) free(s->v[i].line);
    free(s->v);
    free(s);
}

const ldxi_format ldxi_format_github = {"github", g_begin, g_file, g_finish, g_destroy};
