/* The logdx command-line tool: option table, subcommands. Uses only the public API. */
#ifndef LDX_CLI_H
#define LDX_CLI_H

#include <stdbool.h>
#include <stddef.h>

#include "logdx/logdx.h"

enum { EXIT_CLEAN = 0, EXIT_FOUND = 1, EXIT_ERROR = 2 };

typedef struct {
    const char *format;
    const char **rule_paths;
    size_t nrule_paths;
    bool no_default_rules;
    int fail_on;        /* severity, or -1 for never */
    bool quiet;
    bool strict;        /* rules lint: the built-in library's quality bar */
    const char *baseline; /* a healthy run of the same job, to compare with */
    const char **include; /* --include GLOB (repeatable): only matching files of folders */
    size_t ninclude;
    const char **exclude; /* --exclude GLOB (repeatable) */
    size_t nexclude;
    int jobs;             /* -j N: threads; 0 = the number of cores */
    bool redact;          /* --redact: hosts, IPs, users, tokens -> placeholders */
    bool follow;          /* --follow: watch a growing file */
    int progress;         /* -1 auto (stderr is a terminal), 0 never, 1 always */
    int color;          /* -1 auto, 0 never, 1 always */
    const char **args;  /* positional arguments after the subcommand */
    size_t nargs;
} cli_opts;

/* One entry per option: the parser, --help and the man page all read this table. */
typedef struct {
    const char *lng;
    char shrt;
    const char *arg;    /* NULL: a flag */
    const char *help;
} cli_option;

extern const cli_option cli_options[];

int cli_parse(int argc, char **argv, cli_opts *o);
void cli_usage(FILE *fp);
void cli_free(cli_opts *o);

/* Prints a message list on stderr as "logdx: path:line:col: level: text". */
void cli_print_msgs(const ldx_msgs *m);
/* Compiles the rules the options ask for (plus extra paths); NULL on fatal error.
 * *had_errors is set when some rule was invalid (the rest still compiled). */
ldx_ruleset *cli_load_rules(const cli_opts *o, const char *const *extra, size_t nextra,
                            bool *had_errors);
bool cli_use_color(const cli_opts *o);

int cmd_scan(cli_opts *o);
int cmd_rules(cli_opts *o);
int cmd_explain(cli_opts *o);

#endif
