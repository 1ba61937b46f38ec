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
    bool brief;         /* --brief: the shorter text report */
    bool strict;        /* rules lint: the built-in library's quality bar */
    bool perf;          /* rules lint: pattern hygiene for the prefilter */
    const char *baseline; /* a healthy run of the same job, to compare with */
    const char **include; /* --include GLOB (repeatable): only matching files of folders */
    size_t ninclude;
    const char **exclude; /* --exclude GLOB (repeatable) */
    size_t nexclude;
    bool follow_links;    /* --follow-links: also links that leave the folder given */
    uint64_t max_members; /* --max-members N (0: the library's default) */
    uint64_t max_decoded; /* --max-decoded SIZE in bytes (0: the default) */
    int jobs;             /* -j N: threads; 0 = the number of cores */
    bool redact;          /* --redact: hosts, IPs, users, tokens -> placeholders */
    bool follow;          /* --follow: watch a growing file */
    uint32_t shard_k, shard_n; /* --shard K/N (shard_n 0: the whole input) */
    const char *files_from; /* --files-from FILE: more inputs, one a line ("-": stdin) */
    bool null_names;      /* -0/--null: those names end with NUL */
    int pid;              /* --follow --pid PID: until that process has exited (0: none) */
    double idle;          /* --follow --idle SECONDS: until nothing new for that long (0: none) */
    const char *keep_log; /* run --keep-log PATH: a copy of the command's output */
    bool fail_on_set;     /* --fail-on was given (logdx run then exits 0/1/2, not as the command) */
    int progress;         /* -1 auto (stderr is a terminal), 0 never, 1 always */
    int color;          /* -1 auto, 0 never, 1 always */
    const char **outputs; /* --output FORMAT=PATH (repeatable), checked by the parser */
    size_t noutputs;
    const char **args;  /* positional arguments after the subcommand */
    size_t nargs;
} cli_opts;

/* One entry per option: the parser, --help and the man page all read this table. */
typedef struct {
    const char *lng;
    char shrt;
    const char *arg;    /* NULL: a flag */
    const char *help;
    const char *values; /* its argument's values, for the completions (options.c) */
} cli_option;

extern const cli_option cli_options[];

/* One command: its name ("rules show"), its arguments' synopsis, a line of help, and
 * what its arguments are for the completions (see options.c). */
typedef struct {
    const char *name;
    const char *args;
    const char *help;
    const char *complete;
} cli_command;

extern const cli_command cli_commands[];
/* What a PATH may be, as --help and the man page say it. */
extern const char cli_inputs_text[];

int cli_parse(int argc, char **argv, cli_opts *o);
void cli_usage(FILE *fp);
void cli_free(cli_opts *o);

/* Prints a message list on stderr as "logdx: path:line:col: level: text". */
void cli_print_msgs(const ldx_msgs *m);
/* The same, from message number from on. */
void cli_print_msgs_from(const ldx_msgs *m, size_t from);
/* Compiles the rules the options ask for (plus extra paths); NULL on fatal error.
 * *had_errors is set when some rule was invalid (the rest still compiled). */
ldx_ruleset *cli_load_rules(const cli_opts *o, const char *const *extra, size_t nextra,
                            bool *had_errors);
/* Whether output on fd is coloured: --color, else NO_COLOR, else whether fd is a tty. */
bool cli_color(const cli_opts *o, int fd);
/* Text width for output on fd: COLUMNS, else the terminal's, else CLI_WIDTH_DEFAULT
 * (a pipe or a file: wide enough for the numbers of an OOM line). */
#define CLI_WIDTH_DEFAULT 100
#define CLI_WIDTH_MIN 40
#define CLI_WIDTH_MAX 400
int cli_width(int fd);

/* The reports of one scan (outputs.c): the --format one on stdout unless an --output
 * names "-", and one per --output FORMAT=PATH. */
typedef struct {
    const char *format, *path; /* path "-": stdout */
    FILE *fp;
    ldx_report *report;
    bool failed;
    int err; /* errno of the first failed write */
} cli_output;

typedef struct {
    cli_output *v;
    size_t n;
    bool open_failed; /* some --output could not be created (said on stderr) */
} cli_outputs;

/* 0 when spec is FORMAT=PATH with a known format, else -1 with a message. */
int cli_output_check(const char *spec);
/* Opens every output: stdout's (std; left out when std_done, the report having been
 * printed as it went) and the --output files. A file that cannot be created is said on
 * stderr and left out, with open_failed set. Returns -1 to go on, or an exit status
 * (conflicting --output options, out of memory). */
int cli_outputs_open(cli_outputs *out, const cli_opts *o, FILE *std, bool color, int width,
                     bool quiet, bool std_done);
/* Each returns false when some output failed (the others go on); close says which. */
void cli_outputs_set_run(cli_outputs *out, const ldx_run_info *run);

/* Per file, what the end-of-run summary needs. */
typedef struct {
    char *path;
    const char *klass;        /* the initiating diagnosis' class, NULL: none */
    const char *rule;
    int worst;                /* highest severity, -1: none */
} cli_summary_row;
/* The text report's closing summary over the files reported (summary.c). */
void cli_print_summary(FILE *fp, const cli_summary_row *rows, size_t nrows, size_t nbinary);
/* A file's row: its path copied, its worst severity and initiating diagnosis; false when
 * out of memory. */
bool cli_summary_row_of(const ldx_file_report *fr, cli_summary_row *row);
bool cli_outputs_file(cli_outputs *out, const ldx_file_report *fr);
bool cli_outputs_finish(cli_outputs *out, const ldx_msgs *errors);
bool cli_outputs_close(cli_outputs *out);

int cmd_scan(cli_opts *o);
int cmd_rules(cli_opts *o);
int cmd_explain(cli_opts *o);
int cmd_merge(cli_opts *o);
/* logdx run [OPTIONS] -- CMD [ARG...]: runs CMD, passes its output through, diagnoses it. */
int cmd_run(cli_opts *o);
/* logdx --follow FILE: diagnoses a growing log as it grows. */
int cmd_follow(cli_opts *o);
/* The man page, in roff, from the option table (the hidden `logdx help-man [FILE]`). */
int cli_usage_man(FILE *fp);
/* The bash or zsh completion script from the same tables (the hidden `logdx
 * help-completion SHELL [FILE]`); -1 for another shell or a write error. */
int cli_usage_completion(FILE *fp, const char *shell);

/* A scanner fed line by line, for run and --follow (live.c). */
typedef struct {
    const cli_opts *o;
    ldx_ruleset *rs;
    ldx_scanner *scanner;
    ldx_file_report *baseline; /* --baseline, or NULL */
    ldx_redactor *redactor;    /* --redact, or NULL */
    bool rule_errors;
    uint64_t bytes;            /* read so far, for the report */
    uint64_t first_long;       /* the first line over LDX_LINE_MAX, 0: none */
} cli_live;
/* Analyzes the baseline log at path with s; prints why on failure. */
ldx_status cli_load_baseline(ldx_scanner *s, const char *path, ldx_file_report **out);
/* Loads the rules and the baseline; on failure (a message printed) call cli_live_end. */
ldx_status cli_live_start(cli_live *lv, const cli_opts *o);
void cli_live_line(const ldx_line *line, void *lv); /* a cli_line_fn */
ldx_status cli_live_diagnose(cli_live *lv, const char *name, ldx_file_report **out);
/* Prints the report of what was seen in o->format on fp (not when said: the live lines
 * were it); returns 0, 1 or 2 as a scan. */
int cli_live_report(cli_live *lv, const char *name, FILE *fp, bool color, bool said);
void cli_live_end(cli_live *lv);

/* Cuts lines out of input that arrives in pieces, as the reader would (lines.c). */
typedef void (*cli_line_fn)(const ldx_line *line, void *ctx);
typedef struct {
    char *buf;           /* the unfinished line, at most LDX_LINE_MAX bytes */
    size_t len, cap;
    size_t full;         /* its real length so far; 0: no unfinished line */
    bool pending_cr;     /* the last piece ended in "\r": a "\n" next is part of it */
} cli_splitter;
void cli_splitter_init(cli_splitter *s);
void cli_splitter_free(cli_splitter *s);
void cli_splitter_reset(cli_splitter *s);
/* Calls fn for each line that data completes, numbering from ++*lineno. */
ldx_status cli_splitter_feed(cli_splitter *s, const char *data, size_t n, uint64_t *lineno,
                             cli_line_fn fn, void *ctx);
/* Ends the unfinished line, if any (at the end of the input); true when there was one. */
bool cli_splitter_flush(cli_splitter *s, uint64_t *lineno, cli_line_fn fn, void *ctx);

#endif
