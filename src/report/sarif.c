/* --format sarif: one SARIF 2.1.0 log, the format GitHub code scanning (and most CI
 * dashboards for static analysis) takes in.
 *
 * One run; tool.driver.rules holds only the rules that appear in results, in the order
 * they first appear, so ruleIndex is stable for a given input. Each diagnosis is one
 * result located at its first evidence line; the other evidence lines are
 * relatedLocations. partialFingerprints carries a hash of what the evidence says with
 * the words that vary between runs taken out (any word with a digit: ranks, pids, times,
 * sizes, hex ids, hosts like gpu-a100-03; paths under temporary folders; the line's
 * host), so that the same failure in the next run of a job is recognised as the same
 * alert. Relative paths carry uriBaseId %SRCROOT%, described in originalUriBaseIds. Problems reading inputs and
 * global errors go to invocations[0].toolExecutionNotifications.
 *
 * Nothing in the output depends on the clock or the working directory: paths stay
 * as given (relative stays relative), standard input is "stdin". */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "logdx/scan.h"
#include "report_int.h"

#define SARIF_SCHEMA "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
/* GitHub keeps at most 1000 locations per result and shows 100. */
#define MAX_RELATED 100
/* Evidence text in a result message; the whole line is in the JSON report. */
#define MESSAGE_TEXT_MAX 240

typedef struct {
    cJSON *root, *rules, *results, *notes;
    size_t nrules;
    bool failed; /* an error-level notification was added */
    bool oom;
} sarif_state;

/* ---- shared with the other reporters (declared in report_int.h) ---- */

char *ldxi_report_utf8(const char *s)
{
    size_t n = strlen(s);
    char *out = malloc(n * 3 + 1); /* each bad byte may become 3 bytes */
    if (!out) return NULL;
    const unsigned char *p = (const unsigned char *)s;
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        size_t k = ldxi_utf8_seq(p + i, n - i);
        if (k == 0) {
            memcpy(out + o, "\xef\xbf\xbd", 3);
            o += 3;
            i++;
        } else if (k == 1) {
            unsigned char c = p[i++];
            out[o++] = (c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f ? ' ' : (char)c;
        } else {
            memcpy(out + o, p + i, k);
            o += k;
            i += k;
        }
    }
    out[o] = '\0';
    return out;
}

/* ---- pieces ---- */

static const char *level_of(ldx_severity s)
{
    return s >= LDX_SEV_HIGH ? "error" : s == LDX_SEV_MEDIUM ? "warning" : "note";
}

/* The artifact URI for a path as given: "-" is "stdin"; a leading "./" is dropped;
 * an absolute path becomes a file:// URI; everything outside the unreserved
 * characters and "/" is percent-encoded (a ":" too, lest "a:b.log" read as a scheme). */
static char *artifact_uri(const char *path)
{
    if (!strcmp(path, "-")) return ldxi_strdup("stdin");
    while (path[0] == '.' && path[1] == '/') {
        path += 2;
        while (*path == '/') path++;
    }
    size_t n = strlen(path);
    char *out = malloc(n * 3 + 8);
    if (!out) return NULL;
    size_t o = 0;
    if (path[0] == '/') {
        memcpy(out, "file://", 7);
        o = 7;
    }
    static const char hex[] = "0123456789ABCDEF";
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        unsigned char c = *p;
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
            c == '-' || c == '.' || c == '_' || c == '~' || c == '/') {
            out[o++] = (char)c;
        } else {
            out[o++] = '%';
            out[o++] = hex[c >> 4];
            out[o++] = hex[c & 15];
        }
    }
    out[o] = '\0';
    return out;
}

static uint64_t fnv1a(uint64_t h, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

/* The primary evidence: the first line at the diagnosis' own line, else the first. */
static const ldx_evidence *primary(const ldx_diagnosis *d)
{
    for (size_t i = 0; i < d->nevidence; i++)
        if (d->evidence[i].line == d->line) return &d->evidence[i];
    return d->nevidence ? &d->evidence[0] : NULL;
}

/* Whether a word of evidence text is what changes between two runs of the same failing
 * job: one with a digit in it (a rank, pid, size, port, time, date, a hex id, a host
 * named like gpu-a100-03, a temp dir like /tmp/tmpk3x9), a path under a temporary
 * folder, or the line's host. */
static bool varies(const char *w, size_t n, const char *host)
{
    for (size_t i = 0; i < n; i++)
        if (w[i] >= '0' && w[i] <= '9') return true;
    static const char *const tmp[] = {"/tmp/", "/var/tmp/", "/var/folders/", "/dev/shm/"};
    for (size_t i = 0; i < sizeof tmp / sizeof *tmp; i++)
        if (ldxi_memmem(w, n, tmp[i], strlen(tmp[i]))) return true;
    return host && *host && ldxi_memmem(w, n, host, strlen(host));
}

/* A unit a number carries ("2.00 GiB", "600 s"): it changes with the number's size. */
static bool is_unit(const char *w, size_t n)
{
    static const char *const units[] = {"B", "KB", "KiB", "MB", "MiB", "GB", "GiB", "TB", "TiB",
                                        "bytes", "ms", "s", "us", "sec", "seconds", "minutes"};
    for (size_t i = 0; i < sizeof units / sizeof *units; i++)
        if (strlen(units[i]) == n && !memcmp(w, units[i], n)) return true;
    return false;
}

/* FNV-1a 64 of rule id, class and the primary evidence text as words, each word that
 * varies between runs (varies()) replaced by one mark, runs of blanks as one. The words
 * that stay are the failure's. */
static void fingerprint(const ldx_diagnosis *d, char out[17])
{
    uint64_t h = 0xcbf29ce484222325ULL;
    h = fnv1a(h, d->rule->id, strlen(d->rule->id) + 1);
    h = fnv1a(h, d->rule->klass, strlen(d->rule->klass) + 1);
    const ldx_evidence *e = primary(d);
    if (e) {
        static const char seps[] = " \t,;()[]{}<>\"'=|";
        const char *host = e->host && *e->host ? e->host : NULL;
        bool after_number = false; /* the last word varied: a unit after it varies too */
        for (const char *p = e->text; *p;) {
            size_t n = strcspn(p, seps);
            if (n) {
                bool v = varies(p, n, host) || (after_number && is_unit(p, n));
                if (v) h = fnv1a(h, "#", 1);
                else h = fnv1a(h, p, n);
                after_number = v;
                p += n;
                continue;
            }
            if (*p != ' ' && *p != '\t') after_number = false;
            /* a separator: a run of blanks counts as one, the others as themselves */
            if (*p == ' ' || *p == '\t') {
                h = fnv1a(h, " ", 1);
                while (*p == ' ' || *p == '\t') p++;
            } else {
                h = fnv1a(h, p, 1);
                p++;
            }
        }
    }
    snprintf(out, 17, "%016llx", (unsigned long long)h);
}

static cJSON *text_obj(const char *text)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "text", text ? text : "");
    return o;
}

/* Rule text comes from YAML folded scalars: drop the trailing line end. */
static char *trimmed(const char *s)
{
    if (!s) return ldxi_strdup("");
    while (*s == ' ' || *s == '\n' || *s == '\t') s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\n' || s[n - 1] == '\t')) n--;
    return ldxi_strndup(s, n);
}

/* help.text (plain) or help.markdown: root cause, fix steps, verify steps, references. */
static char *help_text(const ldx_rule_info *r, bool md)
{
    ldx_buf b;
    ldxi_buf_init(&b, (size_t)1 << 24);
    bool ok = true;
#define P(...)                                                                           \
    do {                                                                                 \
        if (ldxi_buf_printf(&b, __VA_ARGS__) != LDX_OK) ok = false;                      \
    } while (0)
    char *rc = trimmed(r->root_cause);
    P(md ? "**Root cause.** %s\n" : "Root cause: %s\n", rc ? rc : "");
    free(rc);
    if (r->fix.n) P("%s", md ? "\n**Fix**\n\n" : "\nFix:\n");
    for (size_t i = 0; i < r->fix.n; i++) {
        char *t = trimmed(r->fix.v[i]);
        P(md ? "%zu. %s\n" : "  %zu. %s\n", i + 1, t ? t : "");
        free(t);
    }
    if (r->verify.n) P("%s", md ? "\n**Verify**\n\n" : "\nVerify:\n");
    for (size_t i = 0; i < r->verify.n; i++) {
        char *t = trimmed(r->verify.v[i]);
        P(md ? "- %s\n" : "  - %s\n", t ? t : "");
        free(t);
    }
    if (r->references.n) P("%s", md ? "\n**References**\n\n" : "\nReferences:\n");
    for (size_t i = 0; i < r->references.n; i++)
        P(md ? "- <%s>\n" : "  - %s\n", r->references.v[i]);
    P(md ? "\nFull entry: `logdx rules show %s`\n" : "\nFull entry: logdx rules show %s\n", r->id);
#undef P
    if (!ok || !b.data) {
        ldxi_buf_free(&b);
        return NULL;
    }
    return b.data;
}

/* "cuda-oom-pytorch" -> "CudaOomPytorch": SARIF's name is an identifier-like label. */
static char *pascal(const char *id)
{
    char *out = malloc(strlen(id) + 1);
    if (!out) return NULL;
    size_t o = 0;
    bool up = true;
    for (const char *p = id; *p; p++) {
        if (*p == '-' || *p == '_' || *p == '.' || *p == '/') {
            up = true;
            continue;
        }
        out[o++] = (up && *p >= 'a' && *p <= 'z') ? (char)(*p - 32) : *p;
        up = false;
    }
    out[o] = '\0';
    return out;
}

static void add_tag(cJSON *tags, const char *t)
{
    if (!t || !*t) return;
    cJSON *it;
    cJSON_ArrayForEach(it, tags)
        if (cJSON_IsString(it) && !strcmp(it->valuestring, t)) return;
    cJSON_AddItemToArray(tags, cJSON_CreateString(t));
}

static cJSON *rule_object(const ldx_rule_info *r)
{
    cJSON *o = cJSON_CreateObject();
    if (!o) return NULL;
    cJSON_AddStringToObject(o, "id", r->id);
    char *name = pascal(r->id);
    cJSON_AddStringToObject(o, "name", name ? name : r->id);
    free(name);
    cJSON_AddItemToObject(o, "shortDescription", text_obj(r->title));
    char *full = trimmed(r->summary && *r->summary ? r->summary : r->root_cause);
    cJSON_AddItemToObject(o, "fullDescription", text_obj(full));
    free(full);
    char *ht = help_text(r, false), *hm = help_text(r, true);
    cJSON *help = cJSON_AddObjectToObject(o, "help");
    cJSON_AddStringToObject(help, "text", ht ? ht : "");
    cJSON_AddStringToObject(help, "markdown", hm ? hm : "");
    free(ht);
    free(hm);
    if (r->references.n) cJSON_AddStringToObject(o, "helpUri", r->references.v[0]);
    cJSON *conf = cJSON_AddObjectToObject(o, "defaultConfiguration");
    cJSON_AddStringToObject(conf, "level", level_of(r->severity));
    cJSON *props = cJSON_AddObjectToObject(o, "properties");
    cJSON *tags = cJSON_AddArrayToObject(props, "tags");
    add_tag(tags, r->klass);
    add_tag(tags, r->category);
    for (size_t i = 0; i < r->tags.n; i++) add_tag(tags, r->tags.v[i]);
    cJSON_AddStringToObject(props, "class", r->klass);
    cJSON_AddStringToObject(props, "category", r->category);
    cJSON_AddStringToObject(props, "severity", ldx_severity_name(r->severity));
    return o;
}

/* Index of the rule in driver.rules, adding it on first sight; -1 when out of memory. */
static long rule_index(sarif_state *s, const ldx_rule_info *r)
{
    long i = 0;
    cJSON *it;
    cJSON_ArrayForEach(it, s->rules)
    {
        cJSON *id = cJSON_GetObjectItemCaseSensitive(it, "id");
        if (cJSON_IsString(id) && !strcmp(id->valuestring, r->id)) return i;
        i++;
    }
    cJSON *o = rule_object(r);
    if (!o) return -1;
    cJSON_AddItemToArray(s->rules, o);
    s->nrules++;
    return i;
}

static cJSON *physical(const char *uri, uint64_t line, const char *snippet)
{
    cJSON *loc = cJSON_CreateObject();
    cJSON *pl = cJSON_AddObjectToObject(loc, "physicalLocation");
    cJSON *al = cJSON_AddObjectToObject(pl, "artifactLocation");
    cJSON_AddStringToObject(al, "uri", uri);
    /* a relative path is relative to where logdx ran: the base the consumer maps to its
     * checkout, as semgrep and trivy do */
    if (strncmp(uri, "file:", 5) && strcmp(uri, "stdin")) cJSON_AddStringToObject(al, "uriBaseId", "%SRCROOT%");
    if (line >= 1) {
        cJSON *reg = cJSON_AddObjectToObject(pl, "region");
        cJSON_AddNumberToObject(reg, "startLine", (double)line);
        if (snippet) cJSON_AddItemToObject(reg, "snippet", text_obj(snippet));
    }
    return loc;
}

static cJSON *result_object(sarif_state *s, const char *uri, const ldx_diagnosis *d)
{
    const ldx_rule_info *r = d->rule;
    long idx = rule_index(s, r);
    if (idx < 0) return NULL;
    cJSON *o = cJSON_CreateObject();
    if (!o) return NULL;
    cJSON_AddStringToObject(o, "ruleId", r->id);
    cJSON_AddNumberToObject(o, "ruleIndex", (double)idx);
    cJSON_AddStringToObject(o, "level", level_of(r->severity));

    const ldx_evidence *pe = primary(d);
    char *ev = pe ? ldx_display_text(pe->text, strlen(pe->text), MESSAGE_TEXT_MAX) : NULL;
    char role[160];
    int n = snprintf(role, sizeof role, "%s", ldx_role_name(d->role));
    if (d->cause && n > 0 && (size_t)n < sizeof role)
        n += snprintf(role + n, sizeof role - (size_t)n, ", follows %s", d->cause);
    if (d->rank >= 0 && n > 0 && (size_t)n < sizeof role)
        snprintf(role + n, sizeof role - (size_t)n, ", rank %d", d->rank);
    char *msg = ev ? ldxi_asprintf("%s (%s): %s", r->title, role, ev)
                   : ldxi_asprintf("%s (%s)", r->title, role);
    cJSON_AddItemToObject(o, "message", text_obj(msg ? msg : r->title));
    free(msg);

    cJSON *locs = cJSON_AddArrayToObject(o, "locations");
    cJSON_AddItemToArray(locs, physical(uri, d->line, pe ? pe->text : NULL));
    free(ev);

    cJSON *fp = cJSON_AddObjectToObject(o, "partialFingerprints");
    char h[17];
    fingerprint(d, h);
    cJSON_AddStringToObject(fp, "logdxEvidence/v2", h);

    size_t nrel = 0;
    cJSON *rel = NULL;
    for (size_t i = 0; i < d->nevidence && nrel < MAX_RELATED; i++) {
        const ldx_evidence *e = &d->evidence[i];
        if (e == pe) continue;
        if (!rel) rel = cJSON_AddArrayToObject(o, "relatedLocations");
        cJSON *loc = physical(uri, e->line, e->text);
        cJSON_AddNumberToObject(loc, "id", (double)nrel);
        char *m = e->rank >= 0 ? ldxi_asprintf("signal %s, rank %d", e->signal, e->rank)
                               : ldxi_asprintf("signal %s", e->signal);
        cJSON_AddItemToObject(loc, "message", text_obj(m ? m : e->signal));
        free(m);
        cJSON_AddItemToArray(rel, loc);
        nrel++;
    }

    cJSON *props = cJSON_AddObjectToObject(o, "properties");
    cJSON_AddStringToObject(props, "class", r->klass);
    cJSON_AddStringToObject(props, "category", r->category);
    cJSON_AddStringToObject(props, "severity", ldx_severity_name(r->severity));
    cJSON_AddStringToObject(props, "role", ldx_role_name(d->role));
    if (d->cause) cJSON_AddStringToObject(props, "causedBy", d->cause);
    cJSON_AddNumberToObject(props, "confidence", d->confidence);
    if (d->rank >= 0) cJSON_AddNumberToObject(props, "rank", d->rank);
    return o;
}

static void add_notes(sarif_state *s, const ldx_msgs *m)
{
    for (size_t i = 0; i < ldx_msgs_count(m); i++) {
        const ldx_msg *msg = ldx_msgs_get(m, i);
        if (!s->notes) {
            s->notes = cJSON_CreateArray();
            if (!s->notes) {
                s->oom = true;
                return;
            }
        }
        cJSON *n = cJSON_CreateObject();
        const char *level = ldx_msg_level_name(msg->level); /* SARIF's levels have these names */
        if (msg->level == LDX_MSG_ERROR) s->failed = true;
        cJSON_AddStringToObject(n, "level", level);
        char *t = ldxi_report_utf8(msg->text);
        cJSON_AddItemToObject(n, "message", text_obj(t ? t : ""));
        free(t);
        if (msg->path) {
            char *uri = artifact_uri(msg->path);
            cJSON *locs = cJSON_AddArrayToObject(n, "locations");
            cJSON_AddItemToArray(locs, physical(uri ? uri : "", msg->line, NULL));
            free(uri);
        }
        cJSON_AddItemToArray(s->notes, n);
    }
}

/* ---- the format ---- */

static ldx_status s_begin(ldx_report *r)
{
    sarif_state *s = calloc(1, sizeof(*s));
    if (!s) return LDX_ENOMEM;
    s->root = cJSON_CreateObject();
    cJSON_AddStringToObject(s->root, "$schema", SARIF_SCHEMA);
    cJSON_AddStringToObject(s->root, "version", "2.1.0");
    cJSON *runs = cJSON_AddArrayToObject(s->root, "runs");
    cJSON *run = cJSON_CreateObject();
    cJSON_AddItemToArray(runs, run);
    cJSON *tool = cJSON_AddObjectToObject(run, "tool");
    cJSON *bases = cJSON_AddObjectToObject(run, "originalUriBaseIds");
    cJSON *srcroot = cJSON_AddObjectToObject(bases, "%SRCROOT%");
    cJSON_AddItemToObject(srcroot, "description",
                          text_obj("The directory logdx was run in: relative log paths start there."));
    cJSON *drv = cJSON_AddObjectToObject(tool, "driver");
    cJSON_AddStringToObject(drv, "name", "logdx");
    cJSON_AddStringToObject(drv, "version", LDX_VERSION);
    cJSON_AddStringToObject(drv, "semanticVersion", LDX_VERSION);
    /* informationUri belongs here once the project has a public home page. */
    s->rules = cJSON_AddArrayToObject(drv, "rules");
    s->results = cJSON_AddArrayToObject(run, "results");
    if (!s->rules || !s->results) {
        cJSON_Delete(s->root);
        free(s);
        return LDX_ENOMEM;
    }
    r->state = s;
    return LDX_OK;
}

static ldx_status s_file(ldx_report *r, const ldx_file_report *fr)
{
    sarif_state *s = r->state;
    add_notes(s, fr->errors);
    if (!fr->n) return s->oom ? LDX_ENOMEM : LDX_OK;
    char *uri = artifact_uri(fr->path);
    if (!uri) return LDX_ENOMEM;
    for (size_t i = 0; i < fr->n; i++) {
        cJSON *res = result_object(s, uri, &fr->diagnoses[i]);
        if (!res) {
            free(uri);
            return LDX_ENOMEM;
        }
        cJSON_AddItemToArray(s->results, res);
    }
    free(uri);
    return s->oom ? LDX_ENOMEM : LDX_OK;
}

static ldx_status s_finish(ldx_report *r, const ldx_msgs *errors)
{
    sarif_state *s = r->state;
    add_notes(s, errors);
    if (s->oom) return LDX_ENOMEM;
    cJSON *run = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(s->root, "runs"), 0);
    cJSON *inv = cJSON_CreateObject();
    cJSON_AddBoolToObject(inv, "executionSuccessful", !s->failed);
    if (s->notes) {
        cJSON_AddItemToObject(inv, "toolExecutionNotifications", s->notes);
        s->notes = NULL;
    }
    cJSON *invs = cJSON_AddArrayToObject(run, "invocations");
    cJSON_AddItemToArray(invs, inv);
    return ldxi_json_print(r->fp, s->root, true);
}

static void s_destroy(ldx_report *r)
{
    sarif_state *s = r->state;
    if (!s) return;
    cJSON_Delete(s->root);
    cJSON_Delete(s->notes);
    free(s);
}

const ldxi_format ldxi_format_sarif = {"sarif", s_begin, s_file, s_finish, s_destroy};
