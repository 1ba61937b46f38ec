/* logdx merge SHARD.jsonl...: the reduce step of a scan split with --shard K/N. Reads the
 * jsonl every shard wrote, checks that together they are one scan (the same logdx, the
 * same rules, every shard of N once), and prints the files in the order one scan over all
 * the inputs would have (each line's input place, docs/json.md), in any format, with the
 * same summary and exit status. A shard that failed is rerun alone and its new file given
 * in place of the old one. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "../core/version.h"

typedef struct {
    const char *path;
    const char *data; /* the file, mapped */
    size_t len;
    /* its last line: the run */
    char ruleset[17];
    bool sharded;
    long index, count;
    double inputs;
    double binary;    /* binary files its walk left out */
    char version[64];
    cJSON *errors;
} shard;

typedef struct {
    uint64_t input;
    size_t shard, seq; /* which shard, and the line's place in it */
    size_t off, len;
} entry;

static int entry_cmp(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    if (x->input != y->input) return x->input < y->input ? -1 : 1;
    if (x->shard != y->shard) return x->shard < y->shard ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The input place of a file's line, read without parsing the whole line: jsonl writes
 * "input" after the report, so it is looked for from the end. */
static bool line_input(const char *p, size_t n, uint64_t *input)
{
    static const char key[] = "\"input\":";
    for (size_t i = n; i-- > 0;) {
        if (p[i] != '"' || n - i < sizeof key - 1 || memcmp(p + i, key, sizeof key - 1)) continue;
        const char *q = p + i + sizeof key - 1;
        char *end;
        unsigned long long v = strtoull(q, &end, 10);
        if (end == q) return false;
        *input = v;
        return true;
    }
    return false;
}

/* Maps the file and reads its last line. 0, or -1 with a message. */
static int open_shard(shard *s)
{
    int fd = open(s->path, O_RDONLY | O_CLOEXEC);
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb) != 0) {
        fprintf(stderr, "logdx: merge: %s: %s\n", s->path, strerror(errno));
        if (fd >= 0) close(fd);
        return -1;
    }
    s->len = (size_t)sb.st_size;
    s->data = s->len ? mmap(NULL, s->len, PROT_READ, MAP_PRIVATE, fd, 0) : "";
    close(fd);
    if (s->data == MAP_FAILED) {
        fprintf(stderr, "logdx: merge: %s: %s\n", s->path, strerror(errno));
        s->data = NULL;
        return -1;
    }
    /* the last non-empty line */
    size_t end = s->len;
    while (end && (s->data[end - 1] == '\n' || s->data[end - 1] == '\r')) end--;
    size_t start = end;
    while (start && s->data[start - 1] != '\n') start--;
    cJSON *last = end > start ? cJSON_ParseWithLength(s->data + start, end - start) : NULL;
    if (!last || cJSON_GetObjectItemCaseSensitive(last, "path") ||
        !cJSON_GetObjectItemCaseSensitive(last, "summary")) {
        fprintf(stderr,
                "logdx: merge: %s: does not end with the line a scan writes last (--format jsonl); "
                "the shard did not finish or is no logdx jsonl: rerun it\n",
                s->path);
        cJSON_Delete(last);
        return -1;
    }
    const cJSON *rs = cJSON_GetObjectItemCaseSensitive(last, "ruleset");
    const cJSON *tool = cJSON_GetObjectItemCaseSensitive(last, "tool");
    const cJSON *ver = cJSON_GetObjectItemCaseSensitive(tool, "version");
    if (!cJSON_IsString(rs) || !cJSON_IsString(ver)) {
        fprintf(stderr, "logdx: merge: %s: its last line has no ruleset or version (written by a logdx before 0.1's schema 1.1?)\n", s->path);
        cJSON_Delete(last);
        return -1;
    }
    snprintf(s->ruleset, sizeof s->ruleset, "%s", rs->valuestring);
    snprintf(s->version, sizeof s->version, "%s", ver->valuestring);
    const cJSON *sh = cJSON_GetObjectItemCaseSensitive(last, "shard");
    if (cJSON_IsObject(sh)) {
        const cJSON *k = cJSON_GetObjectItemCaseSensitive(sh, "index"),
                    *n = cJSON_GetObjectItemCaseSensitive(sh, "count"),
                    *m = cJSON_GetObjectItemCaseSensitive(sh, "inputs");
        if (!cJSON_IsNumber(k) || !cJSON_IsNumber(n) || !cJSON_IsNumber(m)) {
            fprintf(stderr, "logdx: merge: %s: its \"shard\" lacks index, count or inputs\n", s->path);
            cJSON_Delete(last);
            return -1;
        }
        s->sharded = true;
        s->index = (long)k->valuedouble;
        s->count = (long)n->valuedouble;
        s->inputs = m->valuedouble;
    }
    const cJSON *bin = cJSON_GetObjectItemCaseSensitive(last, "binary_skipped");
    if (cJSON_IsNumber(bin)) s->binary = bin->valuedouble;
    s->errors = cJSON_DetachItemFromObjectCaseSensitive(last, "errors");
    cJSON_Delete(last);
    return 0;
}

/* Do the shards make one scan? 0, or -1 after saying why. */
static int check_shards(shard *sh, size_t n, const char *digest)
{
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(sh[i].version, LDX_VERSION)) {
            fprintf(stderr, "logdx: merge: %s: written by logdx %s; this is logdx %s (merge with the version that scanned)\n",
                    sh[i].path, sh[i].version, LDX_VERSION);
            bad = -1;
        }
        if (strcmp(sh[i].ruleset, digest)) {
            fprintf(stderr,
                    "logdx: merge: %s: scanned with other rules (ruleset %s) than this merge loaded (%s); "
                    "give merge the scan's --rules and --no-default-rules\n",
                    sh[i].path, sh[i].ruleset, digest);
            bad = -1;
        }
        if (sh[i].sharded != sh[0].sharded) {
            const shard *a = sh[i].sharded ? &sh[i] : &sh[0], *w = sh[i].sharded ? &sh[0] : &sh[i];
            fprintf(stderr, "logdx: merge: %s is a shard (%ld/%ld) and %s a whole scan: not one scan\n",
                    a->path, a->index, a->count, w->path);
            return -1;
        }
    }
    if (bad) return bad;
    if (!sh[0].sharded) {
        if (n > 1) {
            fprintf(stderr, "logdx: merge: %s and %s are whole scans, not shards of one (--shard K/N)\n",
                    sh[0].path, sh[1].path);
            return -1;
        }
        return 0;
    }
    long count = sh[0].count;
    for (size_t i = 1; i < n; i++)
        if (sh[i].count != count || sh[i].inputs != sh[0].inputs) {
            fprintf(stderr, "logdx: merge: %s is shard %ld/%ld of %.0f inputs, %s is %ld/%ld of %.0f: not one scan\n",
                    sh[i].path, sh[i].index, sh[i].count, sh[i].inputs, sh[0].path, sh[0].index,
                    count, sh[0].inputs);
            return -1;
        }
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < i; j++)
            if (sh[i].index == sh[j].index) {
                fprintf(stderr, "logdx: merge: shard %ld/%ld is given twice: %s and %s\n",
                        sh[i].index, count, sh[j].path, sh[i].path);
                bad = -1;
            }
    for (long k = 0; k < count; k++) {
        bool have = false;
        for (size_t i = 0; i < n && !have; i++) have = sh[i].index == k;
        if (!have) {
            fprintf(stderr, "logdx: merge: shard %ld/%ld is missing (scan it with --shard %ld/%ld and add its file)\n",
                    k, count, k, count);
            bad = -1;
        }
    }
    return bad;
}

/* The shards' errors outside any input, once each: every shard walked the same inputs,
 * so a folder it could not read is in each of them. */
static ldx_status merge_errors(shard *sh, size_t n, ldx_msgs *out)
{
    cJSON *seen = cJSON_CreateArray();
    if (!seen) return LDX_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        const cJSON *e;
        cJSON_ArrayForEach(e, sh[i].errors)
        {
            bool dup = false;
            const cJSON *s;
            cJSON_ArrayForEach(s, seen) dup = dup || cJSON_Compare(s, e, true);
            if (dup) continue;
            cJSON_AddItemToArray(seen, cJSON_Duplicate(e, true));
            const cJSON *lv = cJSON_GetObjectItemCaseSensitive(e, "level"),
                        *msg = cJSON_GetObjectItemCaseSensitive(e, "message"),
                        *p = cJSON_GetObjectItemCaseSensitive(e, "path"),
                        *ln = cJSON_GetObjectItemCaseSensitive(e, "line"),
                        *col = cJSON_GetObjectItemCaseSensitive(e, "column");
            if (!cJSON_IsString(lv) || !cJSON_IsString(msg)) continue;
            ldx_msgs_add(out, ldx_msg_level_parse(lv->valuestring), cJSON_IsString(p) ? p->valuestring : NULL,
                         cJSON_IsNumber(ln) ? (unsigned)ln->valuedouble : 0,
                         cJSON_IsNumber(col) ? (unsigned)col->valuedouble : 0, "%s", msg->valuestring);
        }
    }
    cJSON_Delete(seen);
    return LDX_OK;
}

int cmd_merge(cli_opts *o)
{
    if (!o->nargs) {
        fprintf(stderr, "logdx: merge takes the jsonl files of a scan's shards (logdx merge SHARD.jsonl...)\n");
        return EXIT_ERROR;
    }
    bool rule_errors;
    ldx_ruleset *rs = cli_load_rules(o, NULL, 0, &rule_errors);
    if (!rs) {
        fprintf(stderr, "logdx: out of memory\n");
        return EXIT_ERROR;
    }
    int rc = EXIT_ERROR;
    shard *sh = calloc(o->nargs, sizeof *sh);
    entry *ent = NULL;
    size_t nent = 0, capent = 0;
    cli_summary_row *rows = NULL;
    size_t nrows = 0;
    ldx_msgs *errors = NULL;
    cli_outputs out = {0};
    bool out_open = false;
    if (!sh || ldx_msgs_create(&errors) != LDX_OK) goto oom;
    for (size_t i = 0; i < o->nargs; i++) {
        sh[i].path = o->args[i];
        if (open_shard(&sh[i]) != 0) goto done;
    }
    char digest[17];
    snprintf(digest, sizeof digest, "%016llx", (unsigned long long)ldx_ruleset_digest(rs));
    if (check_shards(sh, o->nargs, digest) != 0) goto done;

    /* every file's line, in the single scan's order */
    for (size_t i = 0; i < o->nargs; i++) {
        size_t seq = 0;
        for (size_t p = 0; p < sh[i].len;) {
            const char *nl = memchr(sh[i].data + p, '\n', sh[i].len - p);
            size_t e = nl ? (size_t)(nl - sh[i].data) : sh[i].len;
            if (e > p && sh[i].data[p] == '{' && e - p > 8 && !memcmp(sh[i].data + p, "{\"path\":", 8)) {
                uint64_t input = 0;
                if (!line_input(sh[i].data + p, e - p, &input)) {
                    fprintf(stderr, "logdx: merge: %s: a file's line without its \"input\" place (written by a logdx before schema 1.1?)\n",
                            sh[i].path);
                    goto done;
                }
                if (nent == capent) {
                    size_t nc = capent ? capent * 2 : 256;
                    entry *v = realloc(ent, nc * sizeof *v);
                    if (!v) goto oom;
                    ent = v;
                    capent = nc;
                }
                ent[nent++] = (entry){input, i, seq++, p, e - p};
            }
            p = e + 1;
        }
    }
    qsort(ent, nent, sizeof *ent, entry_cmp);
    if (merge_errors(sh, o->nargs, errors) != LDX_OK) goto oom;
    if (rule_errors)
        ldx_msgs_add(errors, LDX_MSG_ERROR, NULL, 0, 0,
                     "some rules are invalid and were left out (see the messages above)");
    /* what the scan said on stderr about its inputs as a whole, said again */
    cli_print_msgs(errors);
    size_t nbinary = 0;
    for (size_t i = 0; i < o->nargs; i++) nbinary += (size_t)sh[i].binary;

    int orc = cli_outputs_open(&out, o, stdout, cli_color(o, STDOUT_FILENO),
                               cli_width(STDOUT_FILENO), o->quiet, false);
    out_open = true;
    if (orc >= 0 || out.open_failed) goto done;
    ldx_run_info run = {.ruleset = ldx_ruleset_digest(rs), .binary_skipped = nbinary};
    cli_outputs_set_run(&out, &run);
    if (!(rows = calloc(nent ? nent : 1, sizeof *rows))) goto oom;
    int worst = -1;
    bool failed = ldx_msgs_errors(errors), out_failed = false;
    for (size_t i = 0; i < nent; i++) {
        const shard *s = &sh[ent[i].shard];
        ldx_file_report *fr;
        char err[256];
        ldx_status st = ldx_file_report_from_json(s->data + ent[i].off, ent[i].len, rs, &fr, err, sizeof err);
        if (st == LDX_ENOMEM) goto oom;
        if (st != LDX_OK) {
            fprintf(stderr, "logdx: merge: %s: the line at byte %zu: %s\n", s->path, ent[i].off, err);
            goto done;
        }
        if (ldx_msgs_errors(fr->errors)) failed = true;
        cli_print_msgs(fr->errors);
        if (!cli_outputs_file(&out, fr)) out_failed = true;
        bool have_row = cli_summary_row_of(fr, &rows[nrows]);
        if (rows[nrows].worst > worst) worst = rows[nrows].worst;
        nrows++;
        ldx_file_report_destroy(fr);
        if (!have_row) goto oom;
    }
    if (nbinary)
        fprintf(stderr, "logdx: %zu binary file%s in the folders skipped (name one to scan it)\n",
                nbinary, nbinary == 1 ? "" : "s");
    for (size_t i = 0; i < out.n; i++)
        if (!strcmp(out.v[i].format, "text") && !o->quiet && nrows > 1 && !out.v[i].failed)
            cli_print_summary(out.v[i].fp, rows, nrows, nbinary);
    if (!cli_outputs_finish(&out, errors)) out_failed = true;
    if (!cli_outputs_close(&out)) out_failed = true;
    out_open = false;
    if (out_failed) rc = EXIT_ERROR;
    else if (failed || rule_errors) rc = EXIT_ERROR;
    else rc = (o->fail_on >= 0 && worst >= o->fail_on) ? EXIT_FOUND : EXIT_CLEAN;
    goto done;
oom:
    fprintf(stderr, "logdx: out of memory\n");
    rc = EXIT_ERROR;
done:
    if (out_open) cli_outputs_close(&out);
    for (size_t i = 0; sh && i < o->nargs; i++) {
        if (sh[i].data && sh[i].len) munmap((void *)sh[i].data, sh[i].len);
        cJSON_Delete(sh[i].errors);
    }
    for (size_t i = 0; i < nrows; i++) free(rows[i].path);
    free(rows);
    free(ent);
    free(sh);
    ldx_msgs_destroy(errors);
    ldx_ruleset_destroy(rs);
    return rc;
}
