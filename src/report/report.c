/* The report front (report layer): the format table, create/file/finish/destroy over
 * whichever format was asked for, and the number formatting the formats share. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report_int.h"

static const ldxi_format *const formats[] = {&ldxi_format_text, &ldxi_format_json,
                                             &ldxi_format_sarif, &ldxi_format_junit,
                                             &ldxi_format_github, &ldxi_format_jsonl,
                                             &ldxi_format_html};

static const char *const names[] = {"text", "json", "sarif", "junit", "github", "jsonl", "html",
                                    NULL};

const char *const *ldx_report_formats(void) { return names; }

ldx_status ldx_report_create(ldx_report **out, const char *format,
                             const ldx_report_opts *opts, FILE *fp)
{
    *out = NULL;
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++) {
        if (strcmp(formats[i]->name, format) != 0) continue;
        ldx_report *r = calloc(1, sizeof(*r));
        if (!r) return LDX_ENOMEM;
        r->fmt = formats[i];
        r->opts = *opts;
        if (r->opts.width <= 0) r->opts.width = 100;
        r->fp = fp;
        ldx_status st = r->fmt->begin ? r->fmt->begin(r) : LDX_OK;
        if (st != LDX_OK) {
            free(r);
            return st;
        }
        *out = r;
        return LDX_OK;
    }
    return LDX_ENOTFOUND;
}

void ldx_report_set_run(ldx_report *r, const ldx_run_info *run)
{
    r->run = *run;
    r->has_run = true;
}

ldx_status ldx_report_file(ldx_report *r, const ldx_file_report *fr)
{
    return r->fmt->file(r, fr);
}

ldx_status ldx_report_finish(ldx_report *r, const ldx_msgs *errors)
{
    ldx_status st = r->fmt->finish ? r->fmt->finish(r, errors) : LDX_OK;
    if (fflush(r->fp) != 0 || ferror(r->fp)) st = LDX_EIO;
    return st;
}

void ldx_report_destroy(ldx_report *r)
{
    if (!r) return;
    if (r->fmt->destroy) r->fmt->destroy(r);
    free(r);
}

void ldxi_format_quantity(double v, double scale, char *buf, size_t n)
{
    scale = fabs(scale);
    if (scale >= 1073741824.0 && scale < 1e18)
        snprintf(buf, n, "%.2f GiB", v / 1073741824.0);
    else if (scale >= 1048576.0 && scale < 1e18)
        snprintf(buf, n, "%.0f MiB", v / 1048576.0);
    else
        snprintf(buf, n, "%g", v);
}

double ldxi_format_trend_ends(const ldx_trend *t, char *first, char *last, size_t n)
{
    double scale = t->bytes ? fmax(fabs(t->first), fabs(t->last)) : 0;
    ldxi_format_quantity(t->first, scale, first, n);
    ldxi_format_quantity(t->last, scale, last, n);
    return scale;
}
