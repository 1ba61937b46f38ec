/* Command-line parsing. Options may come before or after paths; "--" ends them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cli.h"

/* values: what an option's argument may be, for the completions: a list of words, or
 * "@formats" (the report formats), "@output" (FORMAT=PATH), "@file", "" (free text). */
const cli_option cli_options[] = {
    {"format", 'f', "FMT", "output format: text (default), json, jsonl, sarif, junit, github or html", "@formats"},
    {"output", 'o', "FMT=PATH", "also write a FMT report to PATH from the same scan (repeatable; PATH '-': instead of stdout's)", "@output"},
    {"rules", 'r', "PATH", "add rule files or folders (repeatable); a rule with a built-in's id replaces it", "@file"},
    {"no-default-rules", 0, NULL, "leave the built-in rules out", NULL},
    {"fail-on", 0, "SEV", "exit 1 when a diagnosis is at least SEV: critical, high, medium, low (default), info, never", "critical high medium low info never"},
    {"quiet", 'q', NULL, "one line per diagnosis", NULL},
    {"brief", 0, NULL, "text: the story and, per diagnosis, its evidence, root cause and first two fix steps", NULL},
    {"baseline", 0, "LOG", "a healthy run of the same job: what also fires there is ranked down and does not fail", "@file"},
    {"include", 0, "GLOB", "in folders, scan only files whose name matches (repeatable)", ""},
    {"exclude", 0, "GLOB", "in folders, skip files or folders whose name matches (repeatable)", ""},
    {"max-members", 0, "N", "stop reading an archive after N members (default 1000000)", ""},
    {"max-decoded", 0, "SIZE", "stop reading an input after SIZE decoded bytes, e.g. 200G (default 1T)", ""},
    {"shard", 0, "K/N", "scan only shard K of N (0 <= K < N): the inputs whose path hashes to K, as a job array's task does", ""},
    {"files-from", 0, "FILE", "also take the inputs' paths from FILE, one a line ('-': standard input)", "@file"},
    {"null", '0', NULL, "--files-from: the names end with NUL, as find -print0 writes them", NULL},
    {"follow-links", 0, NULL, "in folders, also follow symbolic links that point outside the folder given", NULL},
    {"jobs", 'j', "N", "scan with N threads (default: the number of cores)", ""},
    {"redact", 0, NULL, "replace host names, IP addresses, user names and tokens in evidence with placeholders", NULL},
    {"follow", 0, NULL, "watch a growing log and report as soon as a rule fires", NULL},
    {"pid", 0, "PID", "follow: stop when process PID has exited (as tail --pid), after reading what it wrote", ""},
    {"idle", 0, "SECONDS", "follow: stop when the log has had nothing new for SECONDS", ""},
    {"keep-log", 0, "PATH", "run: also write the command's output to PATH (the report's line numbers point into it)", "@file"},
    {"progress", 0, "WHEN", "progress on stderr: auto (default: when it is a terminal), always, never", "auto always never"},
    {"strict", 0, NULL, "rules lint: also require 2+ examples of each kind per rule and a rule for every class", NULL},
    {"perf", 0, NULL, "rules lint: also warn about patterns without a literal of 3+ characters or not prefiltered", NULL},
    {"color", 0, "WHEN", "colour: auto (default: on a terminal, never with NO_COLOR), always, never", "auto always never"},
    {"no-color", 0, NULL, "same as --color=never", NULL},
    {"help", 'h', NULL, "show this help", NULL},
    {"version", 'V', NULL, "show the version", NULL},
    {NULL, 0, NULL, NULL, NULL},
};

/* The commands, for --help, the man page and the completions. args: what the
 * command's words after its name are, for the completions: "@rule" (a rule id) then
 * what follows, "@file" (paths), a list of words, "@cmd" (a command line after --). */
const cli_command cli_commands[] = {
    {"[scan]", "[OPTIONS] [PATH ...]", "diagnose logs (no PATH or '-': stdin)", "@file"},
    {"rules list", NULL, "every rule: id, class, severity, title", NULL},
    {"rules classes", NULL, "the failure classes a rule may name", NULL},
    {"rules show", "ID", "one rule in full", "@rule"},
    {"rules lint", "[PATH ...]", "check rule files", "@file"},
    {"rules test", "[PATH ...]", "run the rules' own examples", "@file"},
    {"rules graph", "[dot]", "what each failure class can set off", "dot"},
    {"rules patterns", NULL, "every signal pattern, one a line", NULL},
    {"rules profile", "LOG", "what each rule costs on a log", "@file"},
    {"explain", "RULE [LOG]", "why a rule fired on a log, or why not", "@rule @file"},
    {"run", "[OPTIONS] -- CMD [ARG...]", "run CMD, pass its output through, diagnose it", "@cmd"},
    {"merge", "[OPTIONS] SHARD.jsonl ...", "print the shards of a --shard K/N scan as one scan", "@file"},
    {NULL, NULL, NULL, NULL},
};

const char cli_inputs_text[] =
    "A PATH may be a file, a folder (scanned recursively), a compressed log (gzip, zstd, xz,\n"
    "bzip2) or an archive of logs (tar, tar.gz, zip; compressed members too), recognised by content;\n"
    "UTF-16 text (Windows PowerShell's \"> log\") is read as UTF-8.";

void cli_usage(FILE *fp)
{
    for (const cli_command *c = cli_commands; c->name; c++) {
        char left[80];
        snprintf(left, sizeof left, "logdx %s%s%s", c->name, c->args ? " " : "", c->args ? c->args : "");
        fprintf(fp, "%s%-36s %s\n", c == cli_commands ? "usage: " : "       ", left, c->help);
    }
    fprintf(fp, "\n%s\nExit status: 0 nothing at or above --fail-on, 1 something found, 2 an error.\n"
                "\noptions:\n",
            cli_inputs_text);
    for (const cli_option *o = cli_options; o->lng; o++) {
        char left[64];
        if (o->shrt)
            snprintf(left, sizeof left, "-%c, --%s%s%s", o->shrt, o->lng, o->arg ? " " : "",
                     o->arg ? o->arg : "");
        else
            snprintf(left, sizeof left, "    --%s%s%s", o->lng, o->arg ? " " : "",
                     o->arg ? o->arg : "");
        fprintf(fp, "  %-26s %s\n", left, o->help);
    }
}

static const cli_option *find_long(const char *name, size_t n)
{
    for (const cli_option *o = cli_options; o->lng; o++)
        if (strlen(o->lng) == n && strncmp(o->lng, name, n) == 0) return o;
    return NULL;
}

static const cli_option *find_short(char c)
{
    for (const cli_option *o = cli_options; o->lng; o++)
        if (o->shrt == c) return o;
    return NULL;
}

/* Returns -1 to go on, or an exit status. */
static int apply(cli_opts *o, const cli_option *opt, const char *val)
{
    const char *n = opt->lng;
    if (!strcmp(n, "format")) {
        const char *const *f = ldx_report_formats();
        for (; *f; f++)
            if (!strcmp(*f, val)) break;
        if (!*f) {
            fprintf(stderr, "logdx: unknown format '%s' (known:", val);
            for (f = ldx_report_formats(); *f; f++) fprintf(stderr, " %s", *f);
            fprintf(stderr, ")\n");
            return EXIT_ERROR;
        }
        o->format = val;
    } else if (!strcmp(n, "output")) {
        if (cli_output_check(val) != 0) return EXIT_ERROR;
        const char **v = realloc(o->outputs, (o->noutputs + 1) * sizeof(char *));
        if (!v) return EXIT_ERROR;
        o->outputs = v;
        o->outputs[o->noutputs++] = val;
    } else if (!strcmp(n, "rules")) {
        const char **v = realloc(o->rule_paths, (o->nrule_paths + 1) * sizeof(char *));
        if (!v) return EXIT_ERROR;
        o->rule_paths = v;
        o->rule_paths[o->nrule_paths++] = val;
    } else if (!strcmp(n, "no-default-rules")) {
        o->no_default_rules = true;
    } else if (!strcmp(n, "fail-on")) {
        int s = ldx_severity_parse(val);
        if (s < 0 && strcmp(val, "never") != 0) {
            fprintf(stderr, "logdx: --fail-on takes critical, high, medium, low, info or never, not '%s'\n", val);
            return EXIT_ERROR;
        }
        o->fail_on = s;
        o->fail_on_set = true;
    } else if (!strcmp(n, "quiet")) {
        o->quiet = true;
    } else if (!strcmp(n, "brief")) {
        o->brief = true;
    } else if (!strcmp(n, "baseline")) {
        o->baseline = val;
    } else if (!strcmp(n, "include") || !strcmp(n, "exclude")) {
        bool inc = n[0] == 'i';
        const char ***v = inc ? &o->include : &o->exclude;
        size_t *cnt = inc ? &o->ninclude : &o->nexclude;
        const char **nv = realloc(*v, (*cnt + 1) * sizeof(char *));
        if (!nv) return EXIT_ERROR;
        *v = nv;
        nv[(*cnt)++] = val;
    } else if (!strcmp(n, "jobs")) {
        char *end;
        long j = strtol(val, &end, 10);
        if (*end || j < 1 || j > 256) {
            fprintf(stderr, "logdx: --jobs takes a number from 1 to 256, not '%s'\n", val);
            return EXIT_ERROR;
        }
        o->jobs = (int)j;
    } else if (!strcmp(n, "max-members")) {
        char *end;
        unsigned long long v = strtoull(val, &end, 10);
        if (*end || !v || val[0] == '-') {
            fprintf(stderr, "logdx: --max-members takes a number of 1 or more, not '%s'\n", val);
            return EXIT_ERROR;
        }
        o->max_members = v;
    } else if (!strcmp(n, "max-decoded")) {
        if (ldx_parse_size(val, &o->max_decoded) != 0) {
            fprintf(stderr, "logdx: --max-decoded takes a size such as 500M, 200G or 2T, not '%s'\n", val);
            return EXIT_ERROR;
        }
    } else if (!strcmp(n, "follow-links")) {
        o->follow_links = true;
    } else if (!strcmp(n, "redact")) {
        o->redact = true;
    } else if (!strcmp(n, "follow")) {
        o->follow = true;
    } else if (!strcmp(n, "shard")) {
        char *slash, *end;
        unsigned long k = strtoul(val, &slash, 10), n2 = 0;
        bool ok = slash != val && *slash == '/' && slash[1] >= '0' && slash[1] <= '9';
        if (ok) n2 = strtoul(slash + 1, &end, 10);
        if (!ok || *end != '\0' || n2 == 0 || n2 > 1000000 || k >= n2 || val[0] == '-') {
            fprintf(stderr, "logdx: --shard takes K/N with 0 <= K < N <= 1000000 (e.g. 3/16), not '%s'\n", val);
            return EXIT_ERROR;
        }
        o->shard_k = (uint32_t)k;
        o->shard_n = (uint32_t)n2;
    } else if (!strcmp(n, "files-from")) {
        o->files_from = val;
    } else if (!strcmp(n, "null")) {
        o->null_names = true;
    } else if (!strcmp(n, "pid")) {
        char *end;
        long v = strtol(val, &end, 10);
        if (*val == '\0' || *end != '\0' || v <= 0 || v > 0x7fffffffL) {
            fprintf(stderr, "logdx: --pid takes a process id, not '%s'\n", val);
            return EXIT_ERROR;
        }
        o->pid = (int)v;
    } else if (!strcmp(n, "idle")) {
        char *end;
        double v = strtod(val, &end);
        if (*val == '\0' || *end != '\0' || !(v > 0) || v > 1e9) {
            fprintf(stderr, "logdx: --idle takes a number of seconds above 0, not '%s'\n", val);
            return EXIT_ERROR;
        }
        o->idle = v;
    } else if (!strcmp(n, "keep-log")) {
        o->keep_log = val;
    } else if (!strcmp(n, "progress")) {
        if (!strcmp(val, "auto")) o->progress = -1;
        else if (!strcmp(val, "always")) o->progress = 1;
        else if (!strcmp(val, "never")) o->progress = 0;
        else {
            fprintf(stderr, "logdx: --progress takes auto, always or never, not '%s'\n", val);
            return EXIT_ERROR;
        }
    } else if (!strcmp(n, "perf")) {
        o->perf = true;
    } else if (!strcmp(n, "strict")) {
        o->strict = true;
    } else if (!strcmp(n, "color")) {
        if (!strcmp(val, "auto")) o->color = -1;
        else if (!strcmp(val, "always")) o->color = 1;
        else if (!strcmp(val, "never")) o->color = 0;
        else {
            fprintf(stderr, "logdx: --color takes auto, always or never, not '%s'\n", val);
            return EXIT_ERROR;
        }
    } else if (!strcmp(n, "no-color")) {
        o->color = 0;
    } else if (!strcmp(n, "help")) {
        cli_usage(stdout);
        return EXIT_CLEAN;
    } else if (!strcmp(n, "version")) {
        printf("logdx %s\n", LDX_VERSION);
        return EXIT_CLEAN;
    }
    return -1;
}

int cli_parse(int argc, char **argv, cli_opts *o)
{
    memset(o, 0, sizeof(*o));
    o->format = "text";
    o->fail_on = LDX_SEV_LOW;
    o->color = -1;
    o->progress = -1;
    o->args = calloc((size_t)argc + 1, sizeof(char *));
    if (!o->args) return EXIT_ERROR;
    bool opts_done = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (opts_done || a[0] != '-' || !strcmp(a, "-")) {
            o->args[o->nargs++] = a;
            continue;
        }
        if (!strcmp(a, "--")) {
            opts_done = true;
            continue;
        }
        const cli_option *opt;
        const char *val = NULL;
        if (a[1] == '-') {
            const char *eq = strchr(a + 2, '=');
            size_t n = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
            opt = find_long(a + 2, n);
            if (!opt) {
                fprintf(stderr, "logdx: unknown option '%s' (see logdx --help)\n", a);
                return EXIT_ERROR;
            }
            if (eq) {
                if (!opt->arg) {
                    fprintf(stderr, "logdx: option '--%s' takes no value\n", opt->lng);
                    return EXIT_ERROR;
                }
                val = eq + 1;
            }
        } else {
            opt = find_short(a[1]);
            if (!opt || (a[2] && !opt->arg)) {
                fprintf(stderr, "logdx: unknown option '%s' (see logdx --help)\n", a);
                return EXIT_ERROR;
            }
            if (a[2]) val = a + 2;
        }
        if (opt->arg && !val) {
            if (i + 1 >= argc) {
                fprintf(stderr, "logdx: option '%s' needs a value (%s)\n", a, opt->arg);
                return EXIT_ERROR;
            }
            val = argv[++i];
        }
        int rc = apply(o, opt, val);
        if (rc >= 0) return rc;
    }
    return -1;
}

void cli_free(cli_opts *o)
{
    free(o->include);
    free(o->exclude);
    free(o->rule_paths);
    free(o->outputs);
    free(o->args);
}

bool cli_color(const cli_opts *o, int fd)
{
    const char *nc = getenv("NO_COLOR");
    if (nc && *nc) return false;
    if (o->color >= 0) return o->color == 1;
    return isatty(fd);
}

int cli_width(int fd)
{
    /* COLUMNS first, as ls and less read it: a user who sets it means it, and a
     * terminal multiplexer or a pager may report another size than the one shown */
    const char *c = getenv("COLUMNS");
    if (c && *c) {
        char *end;
        long v = strtol(c, &end, 10);
        if (*end == '\0' && v > 0) return v < CLI_WIDTH_MIN ? CLI_WIDTH_MIN : v > CLI_WIDTH_MAX ? CLI_WIDTH_MAX : (int)v;
    }
    struct winsize ws;
    if (isatty(fd) && ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        return ws.ws_col < CLI_WIDTH_MIN ? CLI_WIDTH_MIN : ws.ws_col > CLI_WIDTH_MAX ? CLI_WIDTH_MAX : ws.ws_col;
    return CLI_WIDTH_DEFAULT;
}

void cli_print_msgs(const ldx_msgs *m) { cli_print_msgs_from(m, 0); }

void cli_print_msgs_from(const ldx_msgs *m, size_t from)
{
    char buf[2048];
    for (size_t i = from; i < ldx_msgs_count(m); i++) {
        const ldx_msg *msg = ldx_msgs_get(m, i);
        ldx_msg_format(msg, buf, sizeof buf);
        /* a message at a file's line starts with it, as a compiler's does, so that
         * editors and CI problem matchers (^file:line:col:) take it; the others say
         * who speaks */
        fprintf(stderr, "%s%s\n", msg->path && msg->line ? "" : "logdx: ", buf);
    }
}

ldx_ruleset *cli_load_rules(const cli_opts *o, const char *const *extra, size_t nextra,
                            bool *had_errors)
{
    ldx_msgs *msgs;
    *had_errors = false;
    if (ldx_msgs_create(&msgs) != LDX_OK) return NULL;
    ldx_compiler *c;
    if (ldx_compiler_create(&c, msgs) != LDX_OK) {
        ldx_msgs_destroy(msgs);
        return NULL;
    }
    /* the code tables are data the user's rules may look codes up in, rules or not */
    if (!o->no_default_rules) ldx_compiler_add_builtin(c);
    else ldx_compiler_add_builtin_tables(c);
    for (size_t i = 0; i < o->nrule_paths; i++) ldx_compiler_add_path(c, o->rule_paths[i]);
    for (size_t i = 0; i < nextra; i++) ldx_compiler_add_path(c, extra[i]);
    ldx_ruleset *rs = NULL;
    ldx_status st = ldx_compiler_finish(c, &rs);
    ldx_compiler_destroy(c);
    ldx_msgs_sort(msgs);
    if (nextra) {
        /* Checking one's own files: the built-in rules are there for cross-references
         * only, and a problem in them is not the user's to see here. */
        ldx_msgs *mine;
        if (ldx_msgs_create(&mine) == LDX_OK) {
            for (size_t i = 0; i < ldx_msgs_count(msgs); i++) {
                const ldx_msg *m = ldx_msgs_get(msgs, i);
                if (m->path && !strncmp(m->path, LDX_BUILTIN_PREFIX, strlen(LDX_BUILTIN_PREFIX))) continue;
                ldx_msgs_add(mine, m->level, m->path, m->line, m->col, "%s", m->text);
            }
            ldx_msgs_destroy(msgs);
            msgs = mine;
        }
    }
    cli_print_msgs(msgs);
    if (ldx_msgs_errors(msgs) || (st != LDX_OK && !nextra)) *had_errors = true;
    ldx_msgs_destroy(msgs);
    return rs;
}
