/* Where a scan's report goes: the --format report on stdout, and one more report per
 * --output FORMAT=PATH, all fed from the one pass (CI writes SARIF, JUnit and its
 * annotations without scanning four times). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* Splits "FORMAT=PATH"; 0, or -1 with a message. */
static int split(const char *spec, char *fmt, size_t nfmt, const char **path)
{
    const char *eq = strchr(spec, '=');
    if (!eq || eq == spec || !eq[1]) {
        fprintf(stderr, "logdx: --output takes FORMAT=PATH (e.g. sarif=logdx.sarif), not '%s'\n", spec);
        return -1;
    }
    size_t n = (size_t)(eq - spec);
    if (n >= nfmt) n = nfmt - 1;
    memcpy(fmt, spec, n);
    fmt[n] = '\0';
    *path = eq + 1;
    return 0;
}

int cli_output_check(const char *spec)
{
    char fmt[32];
    const char *path;
    if (split(spec, fmt, sizeof fmt, &path) != 0) return -1;
    for (const char *const *f = ldx_report_formats(); *f; f++)
        if (!strcmp(*f, fmt)) return 0;
    fprintf(stderr, "logdx: --output %s: unknown format '%s' (known:", spec, fmt);
    for (const char *const *f = ldx_report_formats(); *f; f++) fprintf(stderr, " %s", *f);
    fprintf(stderr, ")\n");
    return -1;
}

static ldx_status add(cli_outputs *out, const char *format, const char *path, FILE *fp,
                      const ldx_report_opts *ro)
{
    cli_output *v = realloc(out->v, (out->n + 1) * sizeof(*v));
    if (!v) return LDX_ENOMEM;
    out->v = v;
    cli_output *d = &out->v[out->n];
    memset(d, 0, sizeof(*d));
    d->format = format;
    d->path = path;
    d->fp = fp;
    ldx_status st = ldx_report_create(&d->report, format, ro, fp);
    if (st != LDX_OK) return st;
    out->n++;
    return LDX_OK;
}

int cli_outputs_open(cli_outputs *out, const cli_opts *o, FILE *std, bool color, int width,
                     bool quiet, bool std_done)
{
    memset(out, 0, sizeof(*out));
    bool to_std = false;
    for (size_t i = 0; i < o->noutputs; i++) {
        char fmt[32];
        const char *path = "";  /* split sets it: every spec was checked by cli_output_check */
        split(o->outputs[i], fmt, sizeof fmt, &path);
        if (!strcmp(path, "-")) {
            if (to_std) {
                fprintf(stderr, "logdx: --output: only one report can go to standard output\n");
                return EXIT_ERROR;
            }
            to_std = true;
        }
        for (size_t k = 0; k < i; k++) {
            char f2[32];
            const char *p2 = "";
            split(o->outputs[k], f2, sizeof f2, &p2);
            if (strcmp(path, "-") != 0 && !strcmp(path, p2)) {
                fprintf(stderr, "logdx: --output: two reports for %s\n", path);
                return EXIT_ERROR;
            }
        }
    }
    ldx_report_opts ro = {.color = color, .quiet = quiet, .brief = o->brief, .fail_on = o->fail_on,
                          .width = width};
    /* stdout keeps the --format report unless an --output names it */
    if (!to_std && !std_done && add(out, o->format, "-", std, &ro) != LDX_OK) goto oom;
    for (size_t i = 0; i < o->noutputs; i++) {
        char fmt[32];
        const char *path = "";
        split(o->outputs[i], fmt, sizeof fmt, &path);
        FILE *fp = std;
        ldx_report_opts fo = ro;
        if (strcmp(path, "-") != 0) {
            if (!(fp = fopen(path, "w"))) {
                /* the others still get their reports: nothing found is lost */
                fprintf(stderr, "logdx: --output %s: cannot write %s: %s\n", o->outputs[i], path,
                        strerror(errno));
                out->open_failed = true;
                continue;
            }
            /* a file is read later, elsewhere: no colour, the width of a pipe */
            fo.color = false;
            fo.width = CLI_WIDTH_DEFAULT;
        }
        /* the format's name lives in the formats' table, not in the argument */
        const char *name = NULL;
        for (const char *const *f = ldx_report_formats(); *f; f++)
            if (!strcmp(*f, fmt)) name = *f;
        if (add(out, name, path, fp, &fo) != LDX_OK) {
            if (fp != std) fclose(fp);
            goto oom;
        }
    }
    return -1;
oom:
    fprintf(stderr, "logdx: out of memory\n");
    cli_outputs_close(out);
    return EXIT_ERROR;
}

void cli_outputs_set_run(cli_outputs *out, const ldx_run_info *run)
{
    for (size_t i = 0; i < out->n; i++) ldx_report_set_run(out->v[i].report, run);
}

bool cli_outputs_file(cli_outputs *out, const ldx_file_report *fr)
{
    bool ok = true;
    for (size_t i = 0; i < out->n; i++)
        if (!out->v[i].failed && ldx_report_file(out->v[i].report, fr) != LDX_OK)
            ok = false, out->v[i].failed = true, out->v[i].err = errno;
    return ok;
}

bool cli_outputs_finish(cli_outputs *out, const ldx_msgs *errors)
{
    bool ok = true;
    for (size_t i = 0; i < out->n; i++) {
        cli_output *d = &out->v[i];
        if (!d->failed && ldx_report_finish(d->report, errors) != LDX_OK)
            d->failed = true, d->err = errno;
        if (!d->failed && (fflush(d->fp) != 0 || ferror(d->fp))) d->failed = true, d->err = errno;
        ok = ok && !d->failed;
    }
    return ok;
}

bool cli_outputs_close(cli_outputs *out)
{
    bool ok = !out->open_failed;
    for (size_t i = 0; i < out->n; i++) {
        cli_output *d = &out->v[i];
        ldx_report_destroy(d->report);
        if (strcmp(d->path, "-") != 0 && fclose(d->fp) != 0 && !d->failed)
            d->failed = true, d->err = errno;
        if (d->failed) {
            ok = false;
            /* a reader that went away (a pager quit) is no error worth a line */
            if (d->err != EPIPE)
                fprintf(stderr, "logdx: cannot write the %s report%s%s: %s\n", d->format,
                        strcmp(d->path, "-") ? " to " : "", strcmp(d->path, "-") ? d->path : "",
                        strerror(d->err));
        }
    }
    free(out->v);
    memset(out, 0, sizeof(*out));
    return ok;
}
