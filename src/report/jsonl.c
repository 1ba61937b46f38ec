/* --format jsonl: JSON Lines for pipelines. Each file report is one line, the same
 * object as an entry of the json format's "files", printed and flushed as soon as the
 * file is reported (in the command's stable order); the last line is the rest of the
 * json document: {"tool", "errors", "summary"}, told apart by having no "path". */
#include <cjson/cJSON.h>
#include <stdlib.h>

#include "report_int.h"

/* Defined in json.c, shared so that both formats describe a file the same way. */

typedef struct {
    cJSON *by_class;
    size_t nfiles, diagnosed;
} jsonl_state;

static ldx_status put_line(ldx_report *r, cJSON *o)
{
    ldx_status st = ldxi_json_print(r->fp, o, false);
    cJSON_Delete(o);
    if (st != LDX_OK) return st;
    return fflush(r->fp) == 0 && !ferror(r->fp) ? LDX_OK : LDX_EIO;
}

static ldx_status l_begin(ldx_report *r)
{
    jsonl_state *s = calloc(1, sizeof(*s));
    if (!s) return LDX_ENOMEM;
    s->by_class = cJSON_CreateObject();
    if (!s->by_class) {
        free(s);
        return LDX_ENOMEM;
    }
    r->state = s;
    return LDX_OK;
}

static ldx_status l_file(ldx_report *r, const ldx_file_report *fr)
{
    jsonl_state *s = r->state;
    cJSON *f = ldxi_json_file(fr);
    if (!f) return LDX_ENOMEM;
    s->nfiles++;
    if (fr->n) {
        s->diagnosed++;
        const char *k = fr->diagnoses[0].rule->klass;
        cJSON *c = cJSON_GetObjectItemCaseSensitive(s->by_class, k);
        if (c) cJSON_SetNumberValue(c, c->valuedouble + 1);
        else cJSON_AddNumberToObject(s->by_class, k, 1);
    }
    return put_line(r, f);
}

static ldx_status l_finish(ldx_report *r, const ldx_msgs *errors)
{
    jsonl_state *s = r->state;
    cJSON *o = cJSON_CreateObject();
    if (!o) return LDX_ENOMEM;
    cJSON *tool = cJSON_AddObjectToObject(o, "tool");
    cJSON_AddStringToObject(tool, "name", "logdx");
    cJSON_AddStringToObject(tool, "version", LDX_VERSION);
    cJSON_AddItemToObject(o, "errors", ldxi_json_errors(errors));
    cJSON *sum = cJSON_AddObjectToObject(o, "summary");
    cJSON_AddNumberToObject(sum, "files", (double)s->nfiles);
    cJSON_AddNumberToObject(sum, "diagnosed", (double)s->diagnosed);
    cJSON_AddItemToObject(sum, "by_class", s->by_class);
    s->by_class = NULL;
    return put_line(r, o);
}

static void l_destroy(ldx_report *r)
{
    jsonl_state *s = r->state;
    if (!s) return;
    cJSON_Delete(s->by_class);
    free(s);
}

const ldxi_format ldxi_format_jsonl = {"jsonl", l_begin, l_file, l_finish, l_destroy};
