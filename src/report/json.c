/* --format json: the single document of CONTRACT.md. Files are added as they are
 * scanned; the document is printed at the end. */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "report_int.h"

typedef struct {
    cJSON *root, *files;
    ldxi_json_summary sum;
} json_state;

void ldxi_json_add_tool(cJSON *parent)
{
    cJSON *tool = cJSON_AddObjectToObject(parent, "tool");
    cJSON_AddStringToObject(tool, "name", "logdx");
    cJSON_AddStringToObject(tool, "version", LDX_VERSION);
}

ldx_status ldxi_json_summary_init(ldxi_json_summary *sum)
{
    sum->nfiles = sum->diagnosed = 0;
    sum->by_class = cJSON_CreateObject();
    return sum->by_class ? LDX_OK : LDX_ENOMEM;
}

void ldxi_json_summary_add(ldxi_json_summary *sum, const ldx_file_report *fr)
{
    sum->nfiles++;
    if (!fr->n) return;
    sum->diagnosed++;
    const char *k = fr->diagnoses[0].rule->klass;
    cJSON *c = cJSON_GetObjectItemCaseSensitive(sum->by_class, k);
    if (c) cJSON_SetNumberValue(c, c->valuedouble + 1);
    else cJSON_AddNumberToObject(sum->by_class, k, 1);
}

void ldxi_json_summary_put(ldxi_json_summary *sum, cJSON *parent)
{
    cJSON *o = cJSON_AddObjectToObject(parent, "summary");
    cJSON_AddNumberToObject(o, "files", (double)sum->nfiles);
    cJSON_AddNumberToObject(o, "diagnosed", (double)sum->diagnosed);
    cJSON_AddItemToObject(o, "by_class", sum->by_class);
    sum->by_class = NULL;
}

void ldxi_json_summary_free(ldxi_json_summary *sum)
{
    cJSON_Delete(sum->by_class);
    sum->by_class = NULL;
}

static cJSON *strv(const ldx_strv *v)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; a && i < v->n; i++) cJSON_AddItemToArray(a, cJSON_CreateString(v->v[i]));
    return a;
}

static cJSON *rank_item(int rank)
{
    return rank >= 0 ? cJSON_CreateNumber(rank) : cJSON_CreateNull();
}

/* JSON is UTF-8 (RFC 8259), and a log's bytes need not be: a binary line, or a message
 * cut to a headline's length inside a character. cJSON escapes control bytes and passes
 * the others through, so the printed text is made valid once, here, for every JSON
 * reporter (json, jsonl, sarif): a byte that starts no valid sequence becomes U+FFFD. */
ldx_status ldxi_json_print(FILE *fp, const cJSON *doc, bool pretty)
{
    char *text = pretty ? cJSON_Print(doc) : cJSON_PrintUnformatted(doc);
    if (!text) return LDX_ENOMEM;
    char *u = ldxi_report_utf8(text);
    cJSON_free(text);
    if (!u) return LDX_ENOMEM;
    fputs(u, fp);
    fputc('\n', fp);
    free(u);
    return LDX_OK;
}

cJSON *ldxi_json_errors(const ldx_msgs *m)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; a && i < ldx_msgs_count(m); i++) {
        const ldx_msg *msg = ldx_msgs_get(m, i);
        cJSON *o = cJSON_CreateObject();
        if (msg->path) cJSON_AddStringToObject(o, "path", msg->path);
        if (msg->line) cJSON_AddNumberToObject(o, "line", msg->line);
        if (msg->col) cJSON_AddNumberToObject(o, "column", msg->col);
        cJSON_AddStringToObject(o, "level", ldx_msg_level_name(msg->level));
        cJSON_AddStringToObject(o, "message", msg->text);
        cJSON_AddItemToArray(a, o);
    }
    return a;
}

static cJSON *diagnosis(const ldx_diagnosis *d)
{
    const ldx_rule_info *r = d->rule;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "rule", r->id);
    cJSON_AddStringToObject(o, "class", r->klass);
    cJSON_AddStringToObject(o, "title", r->title);
    if (d->headline) cJSON_AddStringToObject(o, "headline", d->headline);
    cJSON_AddStringToObject(o, "category", r->category);
    cJSON_AddStringToObject(o, "severity", ldx_severity_name(r->severity));
    if (r->level != LDX_LEVEL_SPECIFIC)
        cJSON_AddStringToObject(o, "level", ldx_rule_level_name(r->level));
    cJSON_AddNumberToObject(o, "confidence", d->confidence);
    cJSON_AddStringToObject(o, "role", ldx_role_name(d->role));
    if (d->cause) cJSON_AddStringToObject(o, "caused_by", d->cause);
    if (d->in_baseline) cJSON_AddBoolToObject(o, "in_baseline", true);
    cJSON_AddNumberToObject(o, "line", (double)d->line);
    cJSON_AddItemToObject(o, "rank", rank_item(d->rank));
    if (d->ts_kind != LDX_TS_NONE) {
        char tb[40];
        ldx_format_time(d->ts_kind, d->ts, tb, sizeof tb);
        cJSON_AddStringToObject(o, "time", tb);
    }
    if (d->nranks) {
        cJSON *ra = cJSON_AddArrayToObject(o, "ranks");
        for (size_t i = 0; i < d->nranks; i++) cJSON_AddItemToArray(ra, cJSON_CreateNumber(d->ranks[i]));
    }
    cJSON_AddNumberToObject(o, "hits", (double)d->hits);
    cJSON *ev = cJSON_AddArrayToObject(o, "evidence");
    for (size_t i = 0; i < d->nevidence; i++) {
        const ldx_evidence *e = &d->evidence[i];
        cJSON *eo = cJSON_CreateObject();
        cJSON_AddNumberToObject(eo, "line", (double)e->line);
        cJSON_AddStringToObject(eo, "text", e->text);
        cJSON_AddStringToObject(eo, "signal", e->signal);
        cJSON_AddItemToObject(eo, "rank", rank_item(e->rank));
        if (e->ts_kind != LDX_TS_NONE) {
            char tb[40];
            ldx_format_time(e->ts_kind, e->ts, tb, sizeof tb);
            cJSON_AddStringToObject(eo, "time", tb);
        }
        if (e->host && *e->host) cJSON_AddStringToObject(eo, "host", e->host);
        if (e->step >= 0) cJSON_AddNumberToObject(eo, "step", (double)e->step);
        cJSON *caps = cJSON_AddObjectToObject(eo, "captures");
        for (size_t c = 0; c < e->ncaps; c++)
            cJSON_AddStringToObject(caps, e->caps[c].name, e->caps[c].value);
        if (e->table && e->row >= 0) {
            /* the code's row of its table: what the code means */
            cJSON *lo = cJSON_AddObjectToObject(eo, "lookup");
            cJSON_AddStringToObject(lo, "table", e->table->name);
            for (size_t c = 0; c < e->table->ncolumns; c++)
                cJSON_AddStringToObject(lo, e->table->columns[c],
                                        e->table->cells[(size_t)e->row * e->table->ncolumns + c]);
        }
        cJSON_AddItemToArray(ev, eo);
    }
    if (d->ntrends) {
        cJSON *ta = cJSON_AddArrayToObject(o, "trends");
        for (size_t i = 0; i < d->ntrends; i++) {
            const ldx_trend *t = &d->trends[i];
            cJSON *to = cJSON_CreateObject();
            cJSON_AddStringToObject(to, "signal", t->signal);
            cJSON_AddStringToObject(to, "capture", t->capture);
            cJSON_AddStringToObject(to, "direction", t->rising ? "rising" : "falling");
            cJSON_AddItemToObject(to, "rank", rank_item(t->rank));
            cJSON_AddNumberToObject(to, "points", (double)t->points);
            cJSON_AddNumberToObject(to, "first", t->first);
            cJSON_AddNumberToObject(to, "last", t->last);
            cJSON_AddBoolToObject(to, "bytes", t->bytes);
            cJSON *vals = cJSON_AddArrayToObject(to, "values");
            for (size_t k = 0; k < t->nvalues; k++)
                cJSON_AddItemToArray(vals, cJSON_CreateNumber(t->values[k]));
            cJSON_AddItemToArray(ta, to);
        }
    }
    if (d->action.action) {
        cJSON *ao = cJSON_AddObjectToObject(o, "action");
        cJSON_AddStringToObject(ao, "action", d->action.action);
        if (d->action.text) cJSON_AddStringToObject(ao, "text", d->action.text);
        cJSON_AddStringToObject(ao, "table", d->action.table);
        cJSON_AddStringToObject(ao, "code", d->action.code_value ? d->action.code_value : "");
        cJSON_AddNumberToObject(ao, "line", (double)d->action.line);
    }
    if (d->nadvice) {
        cJSON *aa = cJSON_AddArrayToObject(o, "advice");
        for (size_t i = 0; i < d->nadvice; i++) cJSON_AddItemToArray(aa, cJSON_CreateString(d->advice[i]));
    }
    cJSON_AddStringToObject(o, "root_cause", r->root_cause);
    ldx_strv fix = ldx_diagnosis_fix(d);
    cJSON_AddItemToObject(o, "fix", strv(&fix));
    cJSON_AddItemToObject(o, "verify", strv(&r->verify));
    cJSON_AddItemToObject(o, "references", strv(&r->references));
    return o;
}

static ldx_status j_begin(ldx_report *r)
{
    json_state *s = calloc(1, sizeof(*s));
    if (!s) return LDX_ENOMEM;
    s->root = cJSON_CreateObject();
    cJSON_AddStringToObject(s->root, "schema_version", LDXI_JSON_SCHEMA_VERSION);
    ldxi_json_add_tool(s->root);
    s->files = cJSON_AddArrayToObject(s->root, "files");
    if (!s->files || ldxi_json_summary_init(&s->sum) != LDX_OK) {
        cJSON_Delete(s->root);
        free(s);
        return LDX_ENOMEM;
    }
    r->state = s;
    return LDX_OK;
}

/* One entry of "files"; also each line of --format jsonl (jsonl.c). */
cJSON *ldxi_json_file(const ldx_file_report *fr)
{
    cJSON *f = cJSON_CreateObject();
    if (!f) return NULL;
    cJSON_AddStringToObject(f, "path", fr->path);
    if (fr->path_bytes) {
        char *b64 = ldxi_base64_encode(fr->path_bytes);
        if (b64) cJSON_AddStringToObject(f, "path_bytes", b64);
        free(b64);
    }
    cJSON_AddNumberToObject(f, "lines", (double)fr->lines);
    cJSON *ds = cJSON_AddArrayToObject(f, "diagnoses");
    for (size_t i = 0; i < fr->n; i++) cJSON_AddItemToArray(ds, diagnosis(&fr->diagnoses[i]));
    cJSON *vo = NULL;
    for (size_t i = 0; ldx_version_component(i); i++) {
        if (!fr->versions[i]) continue;
        if (!vo) vo = cJSON_AddObjectToObject(f, "versions");
        cJSON_AddStringToObject(vo, ldx_version_component(i), fr->versions[i]);
    }
    if (fr->launcher.present) {
        const ldx_launcher_info *l = &fr->launcher;
        cJSON *lo = cJSON_AddObjectToObject(f, "launcher");
        cJSON_AddNumberToObject(lo, "line", (double)l->line);
        cJSON_AddItemToObject(lo, "rank", rank_item(l->rank));
        cJSON_AddItemToObject(lo, "local_rank", rank_item(l->local_rank));
        if (l->has_exitcode) cJSON_AddNumberToObject(lo, "exitcode", l->exitcode);
        if (l->signal) cJSON_AddNumberToObject(lo, "signal", l->signal);
        if (l->host && *l->host) cJSON_AddStringToObject(lo, "host", l->host);
        if (l->time && *l->time) cJSON_AddStringToObject(lo, "time", l->time);
        cJSON_AddBoolToObject(lo, "error_file_missing", l->error_file_missing);
        cJSON_AddNumberToObject(lo, "other_failures", l->other_failures);
        if (fr->launcher_note) cJSON_AddStringToObject(lo, "note", fr->launcher_note);
    }
    cJSON_AddItemToObject(f, "errors", ldxi_json_errors(fr->errors));
    return f;
}

static ldx_status j_file(ldx_report *r, const ldx_file_report *fr)
{
    json_state *s = r->state;
    cJSON *f = ldxi_json_file(fr);
    if (!f) return LDX_ENOMEM;
    cJSON_AddItemToArray(s->files, f);
    ldxi_json_summary_add(&s->sum, fr);
    return LDX_OK;
}

static ldx_status j_finish(ldx_report *r, const ldx_msgs *errors)
{
    json_state *s = r->state;
    cJSON_AddItemToObject(s->root, "errors", ldxi_json_errors(errors));
    ldxi_json_summary_put(&s->sum, s->root);
    return ldxi_json_print(r->fp, s->root, true);
}

static void j_destroy(ldx_report *r)
{
    json_state *s = r->state;
    if (!s) return;
    cJSON_Delete(s->root);
    ldxi_json_summary_free(&s->sum);
    free(s);
}

const ldxi_format ldxi_format_json = {"json", j_begin, j_file, j_finish, j_destroy};
