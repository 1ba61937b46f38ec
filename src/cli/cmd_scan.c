/* logdx [scan] PATH...: diagnose each input and report. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

typedef struct {
    ldx_scanner *scanner;
    ldx_report *report;
    const cli_opts *o;
    ldx_msgs *errors;   /* problems outside any one input */
    ldx_file_report *baseline;
    int worst;          /* the highest severity reported */
    bool failed;        /* some input could not be read */
    bool out_failed;
} scan_ctx;

static void print_since(const ldx_msgs *m, size_t from)
{
    char buf[2048];
    for (size_t i = from; i < ldx_msgs_count(m); i++) {
        ldx_msg_format(ldx_msgs_get(m, i), buf, sizeof buf);
        fprintf(stderr, "logdx: %s\n", buf);
    }
}

static ldx_status scan_stdin(scan_ctx *c);

static ldx_status scan_reader(scan_ctx *c, ldx_reader *r)
{
    ldx_file_report *fr = NULL;
    ldx_status st = ldx_analyze(c->scanner, r, &fr);
    if (!fr) return st;
    if (st != LDX_OK || ldx_msgs_errors(fr->errors)) c->failed = true;
    cli_print_msgs(fr->errors);
    ldx_file_report_baseline(fr, c->baseline);
    int w = ldx_file_report_worst(fr);
    if (w > c->worst) c->worst = w;
    if (ldx_report_file(c->report, fr) != LDX_OK) c->out_failed = true;
    ldx_file_report_destroy(fr);
    return st == LDX_ENOMEM ? st : LDX_OK;
}

static ldx_status scan_file(const char *path, void *vctx)
{
    scan_ctx *c = vctx;
    ldx_reader *r;
    ldx_status st = ldx_reader_open_path(&r, path);
    if (st != LDX_OK) {
        ldx_msgs_add(c->errors, LDX_MSG_ERROR, path, 0, 0, "cannot open: %s",
                     st == LDX_ENOMEM ? "out of memory" : strerror(errno));
        c->failed = true;
        return st == LDX_ENOMEM ? st : LDX_OK;
    }
    st = scan_reader(c, r);
    ldx_reader_destroy(r);
    return st;
}

static ldx_status scan_stdin(scan_ctx *c)
{
    ldx_reader *r;
    int fd = dup(STDIN_FILENO);
    if (fd < 0) {
        ldx_msgs_add(c->errors, LDX_MSG_ERROR, "-", 0, 0, "cannot read standard input: %s",
                     strerror(errno));
        print_since(c->errors, ldx_msgs_count(c->errors) - 1);
        c->failed = true;
        return LDX_OK;
    }
    ldx_status st = ldx_reader_open_fd(&r, fd, "-");
    if (st != LDX_OK) return st;
    st = scan_reader(c, r);
    ldx_reader_destroy(r);
    return st;
}

static ldx_status load_baseline(scan_ctx *c, const char *path)
{
    ldx_reader *r;
    ldx_status st = ldx_reader_open_path(&r, path);
    if (st != LDX_OK) return st;
    st = ldx_analyze(c->scanner, r, &c->baseline);
    ldx_reader_destroy(r);
    return c->baseline ? LDX_OK : st;
}

int cmd_scan(cli_opts *o)
{
    bool rule_errors;
    ldx_ruleset *rs = cli_load_rules(o, NULL, 0, &rule_errors);
    if (!rs) {
        fprintf(stderr, "logdx: out of memory\n");
        return EXIT_ERROR;
    }
    scan_ctx c = {.o = o, .worst = -1};
    ldx_report_opts ro = {.color = cli_use_color(o), .quiet = o->quiet, .fail_on = o->fail_on};
    if (ldx_msgs_create(&c.errors) != LDX_OK || ldx_scanner_create(&c.scanner, rs) != LDX_OK ||
        ldx_report_create(&c.report, o->format, &ro, stdout) != LDX_OK) {
        fprintf(stderr, "logdx: out of memory\n");
        ldx_scanner_destroy(c.scanner);
        ldx_msgs_destroy(c.errors);
        ldx_ruleset_destroy(rs);
        return EXIT_ERROR;
    }
    if (rule_errors)
        ldx_msgs_add(c.errors, LDX_MSG_ERROR, NULL, 0, 0,
                     "some rules are invalid and were left out (see the messages above)");
    if (o->baseline && load_baseline(&c, o->baseline) != LDX_OK) {
        fprintf(stderr, "logdx: %s: cannot read the baseline log: %s\n", o->baseline,
                strerror(errno));
        ldx_report_destroy(c.report);
        ldx_scanner_destroy(c.scanner);
        ldx_msgs_destroy(c.errors);
        ldx_ruleset_destroy(rs);
        return EXIT_ERROR;
    }
    ldx_status st = LDX_OK;
    if (o->nargs == 0) {
        if (isatty(STDIN_FILENO))
            fprintf(stderr, "logdx: reading a log from standard input (see logdx --help)\n");
        st = scan_stdin(&c);
    }
    for (size_t i = 0; i < o->nargs && st != LDX_ENOMEM; i++) {
        const char *p = o->args[i];
        if (!strcmp(p, "-")) {
            st = scan_stdin(&c);
            continue;
        }
        size_t before = ldx_msgs_count(c.errors);
        ldx_status ws = ldx_walk(p, scan_file, &c, c.errors);
        if (ws == LDX_ENOMEM) st = ws;
        if (ldx_msgs_count(c.errors) > before) {
            c.failed = true;
            print_since(c.errors, before);
        }
    }
    if (ldx_report_finish(c.report, c.errors) != LDX_OK) c.out_failed = true;
    int rc;
    if (c.out_failed) {
        if (errno != EPIPE) fprintf(stderr, "logdx: cannot write the report: %s\n", strerror(errno));
        rc = EXIT_ERROR;
    } else if (st == LDX_ENOMEM) {
        fprintf(stderr, "logdx: out of memory\n");
        rc = EXIT_ERROR;
    } else if (c.failed || rule_errors) {
        rc = EXIT_ERROR;
    } else {
        rc = (o->fail_on >= 0 && c.worst >= o->fail_on) ? EXIT_FOUND : EXIT_CLEAN;
    }
    ldx_report_destroy(c.report);
    ldx_file_report_destroy(c.baseline);
    ldx_scanner_destroy(c.scanner);
    ldx_msgs_destroy(c.errors);
    ldx_ruleset_destroy(rs);
    return rc;
}
