/* The smallest program that embeds logdx: the built-in rules, one log, a JSON report on
 * stdout. Build it against an installed liblogdx:
 *
 *     cc diagnose.c $(pkg-config --cflags --libs logdx) -o diagnose
 *     ./diagnose train.log
 *
 * docs/api.md walks through the five calls. */
#include <stdio.h>

#include <logdx/logdx.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s LOG\n", argv[0]);
        return 2;
    }
    ldx_msgs *msgs = NULL;
    ldx_compiler *comp = NULL;
    ldx_ruleset *rules = NULL;
    ldx_scanner *scan = NULL;
    ldx_reader *log = NULL;
    ldx_file_report *fr = NULL;
    ldx_report *out = NULL;
    int rc = 2;

    /* 1. rules: the built-in set (ldx_compiler_add_path adds your own) */
    if (ldx_msgs_create(&msgs) != LDX_OK || ldx_compiler_create(&comp, msgs) != LDX_OK ||
        ldx_compiler_add_builtin(comp) != LDX_OK || ldx_compiler_finish(comp, &rules) != LDX_OK)
        goto done;
    /* 2. a scanner over them (one per thread; the ruleset is shared) */
    if (ldx_scanner_create(&scan, rules) != LDX_OK) goto done;
    /* 3. the log, as numbered lines */
    if (ldx_reader_open_path(&log, argv[1]) != LDX_OK) {
        perror(argv[1]);
        goto done;
    }
    /* 4. scan it and diagnose: a ranked list, the initiating failure first */
    if (ldx_analyze(scan, log, &fr) != LDX_OK && !fr) goto done;
    /* 5. report it, here as JSON */
    ldx_report_opts opts = {.fail_on = LDX_SEV_LOW};
    if (ldx_report_create(&out, "json", &opts, stdout) != LDX_OK ||
        ldx_report_file(out, fr) != LDX_OK || ldx_report_finish(out, NULL) != LDX_OK)
        goto done;
    rc = fr->n ? 1 : 0; /* as the logdx command: 1 when something was found */
done:
    ldx_report_destroy(out);
    ldx_file_report_destroy(fr);
    ldx_reader_destroy(log);
    ldx_scanner_destroy(scan);
    ldx_ruleset_destroy(rules);
    ldx_compiler_destroy(comp);
    ldx_msgs_destroy(msgs);
    return rc;
}
