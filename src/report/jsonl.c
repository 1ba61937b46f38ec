/* --format jsonl: JSON Lines for pipelines. Each file report is one line, the same
 * object as an entry of the json format's "files" plus its input's place in the run,
 * printed and flushed as soon as the file is reported (in the command's stable order);
 * the last line is the rest of the json document: {"tool", "errors", "summary"}, with
 * the ruleset's digest and the shard when the run says them, told apart by having no
 * "path". Every line carries "schema_version" (docs/json.md). */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>

#include "report_int.h"

typedef struct {
    ldxi_json_summary sum;
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
    if (ldxi_json_summary_init(&s->sum) != LDX_OK) {
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
    /* each line stands alone in a pipeline: each says which contract it follows, and
     * which input of the run it came from (merge puts shards' lines back in that order) */
    cJSON_AddNumberToObject(f, "input", (double)fr->input);
    cJSON_AddItemToObject(f, "schema_version", cJSON_CreateString(LDXI_JSON_SCHEMA_VERSION));
    ldxi_json_summary_add(&s->sum, fr);
    return put_line(r, f);
}

static ldx_status l_finish(ldx_report *r, const ldx_msgs *errors)
{
    jsonl_state *s = r->state;
    cJSON *o = cJSON_CreateObject();
    if (!o) return LDX_ENOMEM;
    cJSON_AddStringToObject(o, "schema_version", LDXI_JSON_SCHEMA_VERSION);
    ldxi_json_add_tool(o);
    if (r->has_run) {
        /* what `logdx merge` checks: the same rules in every shard, every shard there */
        char hex[17];
        snprintf(hex, sizeof hex, "%016llx", (unsigned long long)r->run.ruleset);
        cJSON_AddStringToObject(o, "ruleset", hex);
        if (r->run.binary_skipped)
            cJSON_AddNumberToObject(o, "binary_skipped", (double)r->run.binary_skipped);
        if (r->run.sharded) {
            cJSON *sh = cJSON_AddObjectToObject(o, "shard");
            cJSON_AddNumberToObject(sh, "index", r->run.shard_index);
            cJSON_AddNumberToObject(sh, "count", r->run.shard_count);
            cJSON_AddNumberToObject(sh, "inputs", (double)r->run.inputs);
        }
    }
    cJSON_AddItemToObject(o, "errors", ldxi_json_errors(errors));
    ldxi_json_summary_put(&s->sum, o);
    return put_line(r, o);
}

static void l_destroy(ldx_report *r)
{
    jsonl_state *s = r->state;
    if (!s) return;
    ldxi_json_summary_free(&s->sum);
    free(s);
}

const ldxi_format ldxi_format_jsonl = {"jsonl", l_begin, l_file, l_finish, l_destroy};
