/* What `logdx run` and `logdx --follow` share: a scanner fed line by line rather than
 * through a reader, a baseline loaded beforehand, and the final report. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

ldx_status cli_load_baseline(ldx_scanner *s, const char *path, ldx_file_report **out)
{
    ldx_reader *r;
    ldx_status st = ldx_reader_open_path(&r, path);
    if (st != LDX_OK) {
        fprintf(stderr, "logdx: %s: cannot read the baseline log: %s\n", path, strerror(errno));
        return st;
    }
    st = ldx_analyze(s, r, out);
    ldx_reader_destroy(r);
    if (*out) return LDX_OK;
    fprintf(stderr, "logdx: %s: cannot read the baseline log: %s\n", path, ldx_status_str(st));
    return st;
}

static ldx_status oom(void)
{
    fprintf(stderr, "logdx: out of memory\n");
    return LDX_ENOMEM;
}

ldx_status cli_live_start(cli_live *lv, const cli_opts *o)
{
    memset(lv, 0, sizeof(*lv));
    lv->o = o;
    lv->rs = cli_load_rules(o, NULL, 0, &lv->rule_errors);
    if (!lv->rs) return oom();
    if (ldx_scanner_create(&lv->scanner, lv->rs) != LDX_OK) return oom();
    if (o->redact && ldx_redactor_create(&lv->redactor) != LDX_OK) return oom();
    if (o->baseline) {
        ldx_status st = cli_load_baseline(lv->scanner, o->baseline, &lv->baseline);
        if (st != LDX_OK) return st;
        ldx_scanner_reset(lv->scanner);
    }
    return LDX_OK;
}

void cli_live_line(const ldx_line *line, void *vlv)
{
    cli_live *lv = vlv;
    if (line->truncated && !lv->first_long) lv->first_long = line->lineno;
    ldx_scanner_line(lv->scanner, line);
}

ldx_status cli_live_diagnose(cli_live *lv, const char *name, ldx_file_report **out)
{
    ldx_status st = ldx_diagnose(lv->scanner, name, out);
    if (st != LDX_OK) return st;
    (*out)->bytes = lv->bytes;
    if (lv->first_long)
        ldx_msgs_add((*out)->errors, LDX_MSG_WARNING, name, (unsigned)lv->first_long, 0,
                     "%llu line(s) longer than %zu bytes were matched on their first %zu bytes",
                     (unsigned long long)ldx_scanner_truncated(lv->scanner), LDX_LINE_MAX,
                     LDX_LINE_MAX);
    ldx_file_report_baseline(*out, lv->baseline);
    if (lv->redactor) return ldx_file_report_redact(*out, lv->redactor);
    return LDX_OK;
}

int cli_live_report(cli_live *lv, const char *name, FILE *fp, bool color, bool said)
{
    const cli_opts *o = lv->o;
    ldx_file_report *fr = NULL;
    if (cli_live_diagnose(lv, name, &fr) != LDX_OK) {
        fprintf(stderr, "logdx: out of memory\n");
        return EXIT_ERROR;
    }
    cli_print_msgs(fr->errors);
    bool failed = lv->rule_errors || ldx_msgs_errors(fr->errors) > 0;
    int worst = ldx_file_report_worst(fr);
    /* said: the live lines, in this very format, were stdout's report already; the
     * --output files still get theirs */
    cli_outputs out;
    int orc = cli_outputs_open(&out, o, fp, color, cli_width(fileno(fp)), o->quiet, said);
    if (orc >= 0) {
        ldx_file_report_destroy(fr);
        return orc;
    }
    ldx_msgs *errs = NULL;
    bool out_failed = ldx_msgs_create(&errs) != LDX_OK;
    if (!out_failed && lv->rule_errors)
        ldx_msgs_add(errs, LDX_MSG_ERROR, NULL, 0, 0,
                     "some rules are invalid and were left out (see the messages above)");
    if (!out_failed) out_failed = !cli_outputs_file(&out, fr) || !cli_outputs_finish(&out, errs);
    if (!cli_outputs_close(&out)) out_failed = true;
    ldx_msgs_destroy(errs);
    ldx_file_report_destroy(fr);
    if (out_failed) return EXIT_ERROR;
    if (failed) return EXIT_ERROR;
    return (o->fail_on >= 0 && worst >= o->fail_on) ? EXIT_FOUND : EXIT_CLEAN;
}

void cli_live_end(cli_live *lv)
{
    ldx_file_report_destroy(lv->baseline);
    ldx_redactor_destroy(lv->redactor);
    ldx_scanner_destroy(lv->scanner);
    ldx_ruleset_destroy(lv->rs);
    memset(lv, 0, sizeof(*lv));
}
