/* The table every output format fills in. Never installed. */
#ifndef LDX_REPORT_INT_H
#define LDX_REPORT_INT_H

#include "logdx/report.h"
#include "../core/util.h"

typedef struct ldxi_format ldxi_format;

struct ldx_report {
    const ldxi_format *fmt;
    ldx_report_opts opts;
    FILE *fp;
    void *state;
};

struct ldxi_format {
    const char *name;
    ldx_status (*begin)(ldx_report *r);
    ldx_status (*file)(ldx_report *r, const ldx_file_report *fr);
    ldx_status (*finish)(ldx_report *r, const ldx_msgs *errors);
    void (*destroy)(ldx_report *r);
};

extern const ldxi_format ldxi_format_text;
extern const ldxi_format ldxi_format_json;

#endif
