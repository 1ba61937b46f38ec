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
    ldx_run_info run;  /* ldx_report_set_run(); has_run: it was called */
    bool has_run;
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

/* Folds display text into rows of at most avail columns, at a space near the row's end
 * where there is one: ends[i] is the byte offset where row i ends. Returns the number of
 * rows (at most max; text left over after them is not shown). Defined in wrap.c. */
size_t ldxi_report_fold(const char *text, int avail, size_t *ends, size_t max);

/* A malloc'd copy of s that is valid UTF-8 (each invalid byte becomes U+FFFD) with no
 * control characters but tab and line ends (others become spaces), so that a file name
 * of any bytes can go into JSON, XML or a workflow command; NULL when out of memory.
 * Defined in sarif.c. */
char *ldxi_report_utf8(const char *s);

/* Base64 (RFC 4648) of a NUL-terminated string and back, malloc'd; NULL when out of
 * memory. Decoding skips characters outside the alphabet (base64.c). */
char *ldxi_base64_encode(const char *raw);
char *ldxi_base64_decode(const char *s);

/* The version of the json/jsonl contract, docs/json.md and docs/schema/: the minor
 * number grows when fields are added, the major one when a field changes or goes. */
#define LDXI_JSON_SCHEMA_VERSION "1.2"

/* JSON pieces shared by the JSON-based formats (json.c). */
struct cJSON;
struct cJSON *ldxi_json_errors(const ldx_msgs *m);
struct cJSON *ldxi_json_file(const ldx_file_report *fr);
/* Prints a document and a newline; pretty or one line. */
ldx_status ldxi_json_print(FILE *fp, const struct cJSON *doc, bool pretty);

/* The "tool" object: name and version. */
void ldxi_json_add_tool(struct cJSON *parent);

/* The "summary" object of json and jsonl: files, diagnosed, initiating classes. */
typedef struct {
    struct cJSON *by_class;
    size_t nfiles, diagnosed;
} ldxi_json_summary;
ldx_status ldxi_json_summary_init(ldxi_json_summary *sum);
void ldxi_json_summary_add(ldxi_json_summary *sum, const ldx_file_report *fr);
/* Adds "summary" to parent; the summary is then empty. */
void ldxi_json_summary_put(ldxi_json_summary *sum, struct cJSON *parent);
void ldxi_json_summary_free(ldxi_json_summary *sum);

/* A number in the unit that suits scale (the larger end of a trend), so both ends of a
 * trend read alike: "0.38 GiB -> 1.62 GiB". Values of a megabyte and up are taken for
 * byte counts: that is what trends in training logs measure. */
void ldxi_format_quantity(double v, double scale, char *buf, size_t n);
/* A trend's first and last values, at the scale of the larger, so that they compare;
 * returns that scale (for the values in between). */
double ldxi_format_trend_ends(const ldx_trend *t, char *first, char *last, size_t n);

#endif
