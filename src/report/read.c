/* Reading a report back: a file line of --format jsonl becomes the ldx_file_report it was
 * printed from, so that `logdx merge` prints the shards of a split scan in any format as
 * one scan would have. Every field a format prints is in the line (docs/json.md); what
 * points into the ruleset (the rule, a cause's id, a signal's name, a code table and its
 * cells) is found again by id and name in the ruleset the scan used, which the caller has
 * checked by its digest. Names the ruleset does not hold as strings of their own (a
 * capture's name) are kept by the report (its `own` list). */
#define _DEFAULT_SOURCE /* timegm */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report_int.h"

typedef struct {
    const ldx_ruleset *rs;
    ldx_file_report *fr;
    char *err;
    size_t errlen;
} reader;

static ldx_status bad(reader *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->err, r->errlen, fmt, ap);
    va_end(ap);
    return LDX_EINVAL;
}

/* A string the report keeps (freed with it), for a name nothing else holds. */
static const char *keep(reader *r, const char *s)
{
    for (size_t i = 0; i < r->fr->nown; i++)
        if (!strcmp(r->fr->own[i], s)) return r->fr->own[i];
    char **v = realloc(r->fr->own, (r->fr->nown + 1) * sizeof *v);
    if (!v) return NULL;
    r->fr->own = v;
    char *c = strdup(s);
    if (!c) return NULL;
    v[r->fr->nown++] = c;
    return c;
}

static const char *str(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static bool num(const cJSON *o, const char *key, double *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsNumber(v)) return false;
    *out = v->valuedouble;
    return true;
}

static uint64_t u64(const cJSON *o, const char *key)
{
    double d = 0;
    return num(o, key, &d) && d > 0 ? (uint64_t)d : 0;
}

/* A rank: a number, or null for none. */
static int rank_of(const cJSON *o, const char *key)
{
    double d;
    return num(o, key, &d) ? (int)d : -1;
}

/* The inverse of ldx_format_time: "2024-05-01T10:00:00.123Z" (a full date), "05-01
 * 10:00:00.123" (month and day, placed in 2001 as the line reader places them), "+12.345s"
 * (since boot). Returns false for anything else. */
static bool parse_time(const char *s, ldx_ts_kind *kind, double *ts)
{
    struct tm tm = {0};
    int ms = 0, n = 0;
    if (s[0] == '+') {
        char *end;
        *ts = strtod(s + 1, &end);
        *kind = LDX_TS_BOOT;
        return end != s + 1 && !strcmp(end, "s");
    }
    if (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d.%3dZ%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
               &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &ms, &n) == 7 && !s[n]) {
        tm.tm_year -= 1900;
        *kind = LDX_TS_WALL;
    } else if (sscanf(s, "%2d-%2d %2d:%2d:%2d.%3d%n", &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
                      &tm.tm_min, &tm.tm_sec, &ms, &n) == 6 && !s[n]) {
        tm.tm_year = 2001 - 1900;
        *kind = LDX_TS_NOYEAR;
    } else {
        return false;
    }
    tm.tm_mon -= 1;
    *ts = (double)timegm(&tm) + ms / 1000.0;
    return true;
}

static bool time_of(const cJSON *o, ldx_ts_kind *kind, double *ts)
{
    const char *t = str(o, "time");
    *kind = LDX_TS_NONE;
    *ts = 0;
    return !t || parse_time(t, kind, ts);
}

/* The rule's signal of that name, or NULL. */
static const ldx_signal_info *signal_named(const ldx_rule_info *ri, const char *name)
{
    for (size_t k = 0; k < ri->nsignals; k++)
        if (!strcmp(ri->signals[k].name, name)) return &ri->signals[k];
    return NULL;
}

/* The signal whose table lookup gave an evidence line's capture cap: the line's own signal,
 * or, for a line the failure reader kept (its "signal" names what it read), the rule's
 * context signal that looks that capture up. NULL when none does. */
static const ldx_signal_info *lookup_of(const ldx_rule_info *ri, const ldx_signal_info *si,
                                        const char *cap)
{
    if (si && si->lookup_table) return si->lookup_capture && !strcmp(si->lookup_capture, cap) ? si : NULL;
    for (size_t k = 0; k < ri->nsignals; k++) {
        const ldx_signal_info *o = &ri->signals[k];
        if (o->role == LDX_SIGNAL_CONTEXT && o->lookup_table && o->lookup_capture &&
            !strcmp(o->lookup_capture, cap))
            return o;
    }
    return NULL;
}

static ldx_status read_strings(reader *r, const cJSON *a, char ***out, size_t *n)
{
    *out = NULL;
    *n = 0;
    if (!cJSON_IsArray(a)) return LDX_OK;
    size_t m = (size_t)cJSON_GetArraySize(a);
    if (!m) return LDX_OK;
    if (!(*out = calloc(m, sizeof **out))) return LDX_ENOMEM;
    const cJSON *it;
    cJSON_ArrayForEach(it, a)
    {
        if (!cJSON_IsString(it)) return bad(r, "a list of strings holds something else");
        if (!((*out)[(*n)++] = strdup(it->valuestring))) return LDX_ENOMEM;
    }
    return LDX_OK;
}

static ldx_status read_evidence(reader *r, const ldx_rule_info *ri, const cJSON *eo,
                                ldx_evidence *e)
{
    e->row = -1;
    e->code_cap = -1;
    e->step = -1;
    e->line = u64(eo, "line");
    e->rank = rank_of(eo, "rank");
    double step;
    if (num(eo, "step", &step)) e->step = (long)step;
    if (!time_of(eo, &e->ts_kind, &e->ts)) return bad(r, "an evidence line's time is not one logdx writes");
    const char *text = str(eo, "text"), *sig = str(eo, "signal"), *host = str(eo, "host");
    if (!text || !sig) return bad(r, "an evidence line has no text or signal");
    if (!(e->text = strdup(text))) return LDX_ENOMEM;
    if (host && !(e->host = strdup(host))) return LDX_ENOMEM;
    const ldx_signal_info *si = signal_named(ri, sig);
    /* the failure reader's evidence names what it read, not a signal of the rule */
    e->signal = si ? si->name : keep(r, sig);
    if (!e->signal) return LDX_ENOMEM;
    const cJSON *caps = cJSON_GetObjectItemCaseSensitive(eo, "captures");
    size_t nc = cJSON_IsObject(caps) ? (size_t)cJSON_GetArraySize(caps) : 0;
    if (nc && !(e->caps = calloc(nc, sizeof *e->caps))) return LDX_ENOMEM;
    const cJSON *c;
    if (nc)
        cJSON_ArrayForEach(c, caps)
        {
            if (!cJSON_IsString(c)) return bad(r, "a capture's value is not a string");
            ldx_capture *cp = &e->caps[e->ncaps];
            if (!(cp->name = keep(r, c->string)) || !(cp->value = strdup(c->valuestring)))
                return LDX_ENOMEM;
            /* the code this capture was looked up as, as the diagnosis found it */
            const ldx_signal_info *ls = lookup_of(ri, si, c->string);
            if (ls) {
                e->table = ldx_ruleset_find_table(r->rs, ls->lookup_table);
                if (e->table) {
                    e->code_cap = (int)e->ncaps;
                    e->row = ldx_table_row(e->table, cp->value);
                }
            }
            e->ncaps++;
        }
    return LDX_OK;
}

static ldx_status read_trend(reader *r, const ldx_rule_info *ri, const cJSON *to, ldx_trend *t)
{
    const char *sig = str(to, "signal"), *cap = str(to, "capture"), *dir = str(to, "direction");
    if (!sig || !cap || !dir) return bad(r, "a trend lacks its signal, capture or direction");
    const ldx_signal_info *si = signal_named(ri, sig);
    t->signal = si ? si->name : keep(r, sig);
    t->capture = keep(r, cap);
    if (!t->signal || !t->capture) return LDX_ENOMEM;
    t->rising = !strcmp(dir, "rising");
    t->rank = rank_of(to, "rank");
    t->points = u64(to, "points");
    num(to, "first", &t->first);
    num(to, "last", &t->last);
    /* a report of schema 1.1 does not say: its numbers are shown by their size, as it showed them */
    const cJSON *bytes = cJSON_GetObjectItemCaseSensitive(to, "bytes");
    t->bytes = bytes ? cJSON_IsTrue(bytes) : true;
    const cJSON *vals = cJSON_GetObjectItemCaseSensitive(to, "values");
    size_t n = cJSON_IsArray(vals) ? (size_t)cJSON_GetArraySize(vals) : 0;
    if (n && !(t->values = malloc(n * sizeof *t->values))) return LDX_ENOMEM;
    const cJSON *v;
    if (n)
        cJSON_ArrayForEach(v, vals) t->values[t->nvalues++] = cJSON_IsNumber(v) ? v->valuedouble : 0;
    return LDX_OK;
}

/* The action a code table gave the diagnosis: its strings are the table's cells. */
static ldx_status read_action(reader *r, const cJSON *ao, ldx_action *a)
{
    const char *table = str(ao, "table"), *code = str(ao, "code"), *action = str(ao, "action"),
               *text = str(ao, "text");
    if (!table || !code || !action) return bad(r, "an action lacks its table, code or action");
    const ldx_table_info *t = ldx_ruleset_find_table(r->rs, table);
    long row = t ? ldx_table_row(t, code) : -1;
    const char *ca = row >= 0 ? ldx_table_cell(t, row, "action") : NULL;
    const char *ct = row >= 0 ? ldx_table_cell(t, row, "action_text") : NULL;
    a->table = t ? t->name : keep(r, table);
    a->action = ca && !strcmp(ca, action) ? ca : keep(r, action);
    a->text = !text ? NULL : ct && !strcmp(ct, text) ? ct : keep(r, text);
    a->line = u64(ao, "line");
    if (!a->table || !a->action || (text && !a->text) || !(a->code_value = strdup(code)))
        return LDX_ENOMEM;
    return LDX_OK;
}

static ldx_status read_diagnosis(reader *r, const cJSON *o, ldx_diagnosis *d)
{
    const char *id = str(o, "rule"), *role = str(o, "role");
    if (!id || !role) return bad(r, "a diagnosis has no rule or role");
    long ri = ldx_ruleset_find(r->rs, id);
    if (ri < 0) return bad(r, "rule '%s' is not in this rule set", id);
    d->rule = ldx_ruleset_rule(r->rs, (size_t)ri);
    d->role = !strcmp(role, "collateral")     ? LDX_ROLE_COLLATERAL
              : !strcmp(role, "contributing") ? LDX_ROLE_CONTRIBUTING
                                              : LDX_ROLE_INITIATING;
    const char *cause = str(o, "caused_by");
    if (cause) {
        long ci = ldx_ruleset_find(r->rs, cause);
        d->cause = ci >= 0 ? ldx_ruleset_rule(r->rs, (size_t)ci)->id : keep(r, cause);
        if (!d->cause) return LDX_ENOMEM;
    }
    const char *headline = str(o, "headline");
    if (headline && !(d->headline = strdup(headline))) return LDX_ENOMEM;
    num(o, "confidence", &d->confidence);
    d->in_baseline = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "in_baseline"));
    d->line = u64(o, "line");
    d->rank = rank_of(o, "rank");
    d->hits = u64(o, "hits");
    if (!time_of(o, &d->ts_kind, &d->ts)) return bad(r, "a diagnosis' time is not one logdx writes");
    const cJSON *ranks = cJSON_GetObjectItemCaseSensitive(o, "ranks");
    size_t nr = cJSON_IsArray(ranks) ? (size_t)cJSON_GetArraySize(ranks) : 0;
    if (nr && !(d->ranks = malloc(nr * sizeof *d->ranks))) return LDX_ENOMEM;
    const cJSON *it;
    if (nr)
        cJSON_ArrayForEach(it, ranks) d->ranks[d->nranks++] = cJSON_IsNumber(it) ? it->valueint : -1;
    const cJSON *ev = cJSON_GetObjectItemCaseSensitive(o, "evidence");
    size_t ne = cJSON_IsArray(ev) ? (size_t)cJSON_GetArraySize(ev) : 0;
    if (ne && !(d->evidence = calloc(ne, sizeof *d->evidence))) return LDX_ENOMEM;
    if (ne)
        cJSON_ArrayForEach(it, ev) LDX_TRY(read_evidence(r, d->rule, it, &d->evidence[d->nevidence++]));
    const cJSON *tr = cJSON_GetObjectItemCaseSensitive(o, "trends");
    size_t nt = cJSON_IsArray(tr) ? (size_t)cJSON_GetArraySize(tr) : 0;
    if (nt && !(d->trends = calloc(nt, sizeof *d->trends))) return LDX_ENOMEM;
    if (nt)
        cJSON_ArrayForEach(it, tr) LDX_TRY(read_trend(r, d->rule, it, &d->trends[d->ntrends++]));
    const cJSON *ao = cJSON_GetObjectItemCaseSensitive(o, "action");
    if (cJSON_IsObject(ao)) LDX_TRY(read_action(r, ao, &d->action));
    LDX_TRY(read_strings(r, cJSON_GetObjectItemCaseSensitive(o, "advice"), &d->advice, &d->nadvice));
    LDX_TRY(read_strings(r, cJSON_GetObjectItemCaseSensitive(o, "fix"), &d->fix, &d->nfix));
    return LDX_OK;
}

static ldx_status read_errors(reader *r, const cJSON *a, ldx_msgs *m)
{
    const cJSON *it;
    if (!cJSON_IsArray(a)) return LDX_OK;
    cJSON_ArrayForEach(it, a)
    {
        const char *level = str(it, "level"), *msg = str(it, "message");
        if (!level || !msg) return bad(r, "an error lacks its level or message");
        ldx_msgs_add(m, ldx_msg_level_parse(level),
                     str(it, "path"), (unsigned)u64(it, "line"), (unsigned)u64(it, "column"), "%s", msg);
    }
    return LDX_OK;
}

static ldx_status read_launcher(reader *r, const cJSON *lo)
{
    ldx_launcher_info *l = &r->fr->launcher;
    l->present = true;
    l->line = u64(lo, "line");
    l->rank = rank_of(lo, "rank");
    l->local_rank = rank_of(lo, "local_rank");
    double v;
    if ((l->has_exitcode = num(lo, "exitcode", &v))) l->exitcode = (int)v;
    if (num(lo, "signal", &v)) l->signal = (int)v;
    l->error_file_missing = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(lo, "error_file_missing"));
    l->other_failures = (unsigned)u64(lo, "other_failures");
    const char *host = str(lo, "host"), *time = str(lo, "time"), *note = str(lo, "note");
    if (!(l->host = strdup(host ? host : "")) || !(l->time = strdup(time ? time : "")) ||
        !(l->signame = strdup("")))
        return LDX_ENOMEM;
    if (note && !(r->fr->launcher_note = strdup(note))) return LDX_ENOMEM;
    return LDX_OK;
}

static ldx_status read_file(reader *r, const cJSON *f, uint64_t *input)
{
    ldx_file_report *fr = r->fr;
    const char *path = str(f, "path"), *pb = str(f, "path_bytes");
    if (!path) return bad(r, "not a file's line: it has no \"path\"");
    if (!(fr->path = strdup(path)) || (pb && !(fr->path_bytes = ldxi_base64_decode(pb)))) return LDX_ENOMEM;
    fr->lines = u64(f, "lines");
    fr->input = u64(f, "input");
    if (input) *input = fr->input;
    size_t nc = 0;
    while (ldx_version_component(nc)) nc++;
    if (!(fr->versions = calloc(nc ? nc : 1, sizeof *fr->versions))) return LDX_ENOMEM;
    const cJSON *vo = cJSON_GetObjectItemCaseSensitive(f, "versions");
    for (size_t i = 0; cJSON_IsObject(vo) && i < nc; i++) {
        const char *v = str(vo, ldx_version_component(i));
        if (v && !(fr->versions[i] = strdup(v))) return LDX_ENOMEM;
    }
    const cJSON *ds = cJSON_GetObjectItemCaseSensitive(f, "diagnoses");
    if (!cJSON_IsArray(ds)) return bad(r, "a file's line has no \"diagnoses\"");
    size_t nd = (size_t)cJSON_GetArraySize(ds);
    if (nd && !(fr->diagnoses = calloc(nd, sizeof *fr->diagnoses))) return LDX_ENOMEM;
    const cJSON *it;
    cJSON_ArrayForEach(it, ds) LDX_TRY(read_diagnosis(r, it, &fr->diagnoses[fr->n++]));
    const cJSON *lo = cJSON_GetObjectItemCaseSensitive(f, "launcher");
    if (cJSON_IsObject(lo)) LDX_TRY(read_launcher(r, lo));
    return read_errors(r, cJSON_GetObjectItemCaseSensitive(f, "errors"), fr->errors);
}

ldx_status ldx_file_report_from_json(const char *json, size_t len, const ldx_ruleset *rs,
                                     ldx_file_report **out, char *err, size_t errlen)
{
    *out = NULL;
    if (errlen) err[0] = '\0';
    cJSON *f = cJSON_ParseWithLength(json, len);
    if (!f) {
        snprintf(err, errlen, "not JSON");
        return LDX_EINVAL;
    }
    ldx_file_report *fr = calloc(1, sizeof *fr);
    ldx_status st = fr ? ldx_msgs_create(&fr->errors) : LDX_ENOMEM;
    reader r = {rs, fr, err, errlen};
    if (st == LDX_OK) st = cJSON_IsObject(f) ? read_file(&r, f, NULL) : bad(&r, "not a JSON object");
    cJSON_Delete(f);
    if (st != LDX_OK) {
        if (st == LDX_ENOMEM && errlen) snprintf(err, errlen, "out of memory");
        ldx_file_report_destroy(fr);
        return st;
    }
    *out = fr;
    return LDX_OK;
}
