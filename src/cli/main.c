#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

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
    if (o.nargs && !strcmp(o.args[0], "help-man")) {
        /* hidden: the build writes logdx.1 with it, from the table --help prints */
        FILE *fp = o.nargs > 1 ? fopen(o.args[1], "w") : stdout;
        rc = fp && cli_usage_man(fp) == 0 ? EXIT_CLEAN : EXIT_ERROR;
        if (fp && fp != stdout && fclose(fp) != 0) rc = EXIT_ERROR;
        if (!fp) perror("logdx: help-man");
    } else if (o.nargs && !strcmp(o.args[0], "run")) {
        o.args++;
        o.nargs--;
        rc = cmd_run(&o);
        o.args--;
    } else if (o.follow && o.nargs && (!strcmp(o.args[0], "explain") || !strcmp(o.args[0], "rules"))) {
        fprintf(stderr, "logdx: --follow watches a log; it does not go with %s\n", o.args[0]);
        rc = EXIT_ERROR;
    } else if (o.follow) {
        bool sub = o.nargs && !strcmp(o.args[0], "scan");
        o.args += sub;
        o.nargs -= sub;
        rc = cmd_follow(&o);
        o.args -= sub;
    } else if (o.nargs && !strcmp(o.args[0], "explain")) {
        o.args++;
        o.nargs--;
        rc = cmd_explain(&o);
        o.args--;
    } else if (o.nargs && !strcmp(o.args[0], "rules")) {
        o.args++;
        o.nargs--;
        rc = cmd_rules(&o);
        o.args--;
    } else {
        if (o.nargs && !strcmp(o.args[0], "scan")) {
            o.args++;
            o.nargs--;
            rc = cmd_scan(&o);
            o.args--;
        } else {
            rc = cmd_scan(&o);
        }
    }
    cli_free(&o);
    return rc;
}
