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
extern const ldxi_format ldxi_format_sarif;
extern const ldxi_format ldxi_format_junit;
extern const ldxi_format ldxi_format_github;
extern const ldxi_format ldxi_format_jsonl;
extern const ldxi_format ldxi_format_html;

/* A malloc'd copy of s that is valid UTF-8 (each invalid byte becomes U+FFFD) with no
 * control characters but tab and line ends (others become spaces), so that a file name
 * of any bytes can go into JSON, XML or a workflow command; NULL when out of memory.
 * Defined in sarif.c. */
char *ldxi_report_utf8(const char *s);

/* JSON pieces shared by the JSON-based formats (json.c). */
struct cJSON;
struct cJSON *ldxi_json_errors(const ldx_msgs *m);
struct cJSON *ldxi_json_file(const ldx_file_report *fr);
/* Prints a document and a newline; pretty or one line. */
ldx_status ldxi_json_print(FILE *fp, const struct cJSON *doc, bool pretty);

#endif
