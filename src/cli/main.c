/* The logdx tool's entry point (cli layer): parses the command line and hands it to the
 * subcommand (scan, rules, explain, run, merge, --follow), whose return is the exit status. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* Runs a command; named means the first argument is its name, not one of its own. */
static int command(int (*fn)(cli_opts *), cli_opts *o, bool named)
{
    o->args += named;
    o->nargs -= named;
    int rc = fn(o);
    o->args -= named;
    o->nargs += named;
    return rc;
}

int main(int argc, char **argv)
{
    /* A closed pipe (logdx big.log | head) must end quietly, not with SIGPIPE noise. */
    signal(SIGPIPE, SIG_IGN);
    cli_opts o;
    int rc = cli_parse(argc, argv, &o);
    if (rc >= 0) {
        cli_free(&o);
        return rc;
    }
    const char *sub = o.nargs ? o.args[0] : "";
    if (!strcmp(sub, "help-man")) {
        /* hidden: the build writes logdx.1 with it, from the table --help prints */
        FILE *fp = o.nargs > 1 ? fopen(o.args[1], "w") : stdout;
        rc = fp && cli_usage_man(fp) == 0 ? EXIT_CLEAN : EXIT_ERROR;
        if (fp && fp != stdout && fclose(fp) != 0) rc = EXIT_ERROR;
        if (!fp) perror("logdx: help-man");
    } else if (!strcmp(sub, "help-completion")) {
        /* hidden: completions/ is written with it, from the same tables */
        const char *shell = o.nargs > 1 ? o.args[1] : "";
        FILE *fp = o.nargs > 2 ? fopen(o.args[2], "w") : stdout;
        rc = fp && cli_usage_completion(fp, shell) == 0 ? EXIT_CLEAN : EXIT_ERROR;
        if (fp && fp != stdout && fclose(fp) != 0) rc = EXIT_ERROR;
        if (!fp) perror("logdx: help-completion");
        else if (rc) fprintf(stderr, "logdx: help-completion takes bash or zsh\n");
    } else if (!strcmp(sub, "run")) {
        rc = command(cmd_run, &o, true);
    } else if ((o.pid || o.idle > 0) && !o.follow) {
        fprintf(stderr, "logdx: --%s goes with --follow\n", o.pid ? "pid" : "idle");
        rc = EXIT_ERROR;
    } else if (o.follow && (!strcmp(sub, "explain") || !strcmp(sub, "rules") || !strcmp(sub, "merge"))) {
        fprintf(stderr, "logdx: --follow watches a log; it does not go with %s\n", sub);
        rc = EXIT_ERROR;
    } else if (o.follow) {
        rc = command(cmd_follow, &o, !strcmp(sub, "scan"));
    } else if (!strcmp(sub, "explain")) {
        rc = command(cmd_explain, &o, true);
    } else if (!strcmp(sub, "rules")) {
        rc = command(cmd_rules, &o, true);
    } else if (!strcmp(sub, "merge")) {
        rc = command(cmd_merge, &o, true);
    } else {
        rc = command(cmd_scan, &o, !strcmp(sub, "scan"));
    }
    cli_free(&o);
    return rc;
}
