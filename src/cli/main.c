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
    if (o.nargs && !strcmp(o.args[0], "explain")) {
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
