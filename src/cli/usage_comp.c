/* Shell completions for bash and zsh, written from the option and command tables (the
 * hidden `logdx help-completion bash|zsh`), so that a new option or format reaches them
 * as it reaches --help and the man page. completions/ holds what this writes; a test
 * compares the two. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* The first word of a command's name: "scan" for "[scan]". */
static void top_word(const cli_command *c, char *out, size_t n)
{
    const char *s = c->name[0] == '[' ? c->name + 1 : c->name;
    size_t k = strcspn(s, " ]");
    snprintf(out, n, "%.*s", (int)(k < n ? k : n - 1), s);
}

static const char *second_word(const cli_command *c)
{
    const char *sp = strchr(c->name, ' ');
    return sp ? sp + 1 : NULL;
}

static void formats(FILE *fp, const char *suffix)
{
    for (const char *const *f = ldx_report_formats(); *f; f++)
        fprintf(fp, "%s%s%s", f == ldx_report_formats() ? "" : " ", *f, suffix);
}

/* Top-level words, once each, in table order. */
static size_t tops(char words[][16], size_t max)
{
    size_t n = 0;
    for (const cli_command *c = cli_commands; c->name && n < max; c++) {
        char w[16];
        top_word(c, w, sizeof w);
        size_t k = 0;
        while (k < n && strcmp(words[k], w)) k++;
        if (k == n) snprintf(words[n++], 16, "%s", w);
    }
    return n;
}

/* Whether command c is one of word's ("rules" for "rules show"). */
static bool under(const cli_command *c, const char *word)
{
    char w[16];
    top_word(c, w, sizeof w);
    return !strcmp(w, word);
}

/* Whether word heads a group of two-word commands (rules list, rules show, ...). */
static bool is_group(const char *word)
{
    for (const cli_command *c = cli_commands; c->name; c++)
        if (under(c, word) && second_word(c) && c->name[0] != '[') return true;
    return false;
}

/* The second words of word's commands, joined by sep. */
static void sub_words(FILE *fp, const char *word, const char *sep)
{
    bool first = true;
    for (const cli_command *c = cli_commands; c->name; c++) {
        if (!under(c, word)) continue;
        fprintf(fp, "%s%s", first ? "" : sep, second_word(c));
        first = false;
    }
}

/* One case per command of the group word that completes arguments (both shells' case
 * syntax): "<indent>show) _logdx_args 2 @rule ;;". */
static void arg_cases(FILE *fp, const char *word, int indent)
{
    for (const cli_command *c = cli_commands; c->name; c++)
        if (under(c, word) && c->complete)
            fprintf(fp, "%*s%s) _logdx_args 2 %s ;;\n", indent, "", second_word(c), c->complete);
}

/* ---- bash ---- */

static void bash(FILE *fp)
{
    fputs("# bash completion for logdx. Written by `logdx help-completion bash` from the option\n"
          "# and command tables (src/cli/options.c); do not edit.\n\n"
          "_logdx_rule_ids()\n{\n"
          "    logdx rules list 2>/dev/null | awk 'NR > 1 { print $1 }'\n}\n\n"
          "# The arguments of a command of N words: $2... say what each is (the last @file\n"
          "# repeats). Reads pos and cur from _logdx.\n"
          "_logdx_args()\n{\n"
          "    local n=$1\n    shift\n    local -a t=(\"$@\")\n"
          "    local a=$((${#pos[@]} - n)) k=\n"
          "    ((a < ${#t[@]})) && k=${t[a]}\n"
          "    [[ -z $k && ${t[${#t[@]} - 1]} == @file ]] && k=@file\n"
          "    case $k in\n"
          "        @file) COMPREPLY=($(compgen -f -- \"$cur\")) ;;\n"
          "        @rule) COMPREPLY=($(compgen -W \"$(_logdx_rule_ids)\" -- \"$cur\")) ;;\n"
          "        @cmd) COMPREPLY=($(compgen -W \"--\" -- \"$cur\")) ;;\n"
          "        '') ;;\n"
          "        *) COMPREPLY=($(compgen -W \"$k\" -- \"$cur\")) ;;\n"
          "    esac\n}\n\n"
          "_logdx()\n{\n"
          "    local cur prev\n"
          "    cur=${COMP_WORDS[COMP_CWORD]}\n"
          "    prev=${COMP_WORDS[COMP_CWORD - 1]}\n"
          "    local opts=\"",
          fp);
    for (const cli_option *o = cli_options; o->lng; o++) {
        fprintf(fp, "%s--%s", o == cli_options ? "" : " ", o->lng);
        if (o->shrt) fprintf(fp, " -%c", o->shrt);
    }
    fputs("\"\n    local takes_value=\"", fp);
    bool first = true;
    for (const cli_option *o = cli_options; o->lng; o++) {
        if (!o->arg) continue;
        fprintf(fp, "%s--%s", first ? "" : " ", o->lng);
        if (o->shrt) fprintf(fp, " -%c", o->shrt);
        first = false;
    }
    fputs("\"\n\n"
          "    # The words so far without options and their values: the command and its arguments.\n"
          "    local -a pos=()\n"
          "    local i w skip=0\n"
          "    for ((i = 1; i < COMP_CWORD; i++)); do\n"
          "        w=${COMP_WORDS[i]}\n"
          "        if ((skip)); then skip=0; continue; fi\n"
          "        if [[ $w == -- ]]; then\n"
          "            if [[ ${pos[0]} == run ]]; then\n"
          "                # logdx run [OPTIONS] -- CMD ...: complete the command as bash would\n"
          "                if declare -F _command_offset >/dev/null; then\n"
          "                    _command_offset $((i + 1))\n"
          "                else\n"
          "                    COMPREPLY=($(compgen -c -- \"$cur\"))\n"
          "                fi\n"
          "                return\n"
          "            fi\n"
          "            continue\n"
          "        fi\n"
          "        if [[ $w == -* ]]; then\n"
          "            [[ \" $takes_value \" == *\" $w \"* ]] && skip=1\n"
          "            continue\n"
          "        fi\n"
          "        pos+=(\"$w\")\n"
          "    done\n\n"
          "    case $prev in\n",
          fp);
    for (const cli_option *o = cli_options; o->lng; o++) {
        if (!o->arg) continue;
        fprintf(fp, "        --%s", o->lng);
        if (o->shrt) fprintf(fp, " | -%c", o->shrt);
        fputs(")\n            ", fp);
        const char *v = o->values ? o->values : "";
        if (!strcmp(v, "@formats")) {
            fputs("COMPREPLY=($(compgen -W \"", fp);
            formats(fp, "");
            fputs("\" -- \"$cur\"))", fp);
        } else if (!strcmp(v, "@output")) {
            fputs("if [[ $cur == *=* ]]; then\n"
                  "                COMPREPLY=($(compgen -f -P \"${cur%%=*}=\" -- \"${cur#*=}\"))\n"
                  "            else\n"
                  "                compopt -o nospace 2>/dev/null\n"
                  "                COMPREPLY=($(compgen -W \"",
                  fp);
            formats(fp, "=");
            fputs("\" -- \"$cur\"))\n            fi", fp);
        } else if (!strcmp(v, "@file")) {
            fputs("COMPREPLY=($(compgen -f -- \"$cur\"))", fp);
        } else if (*v) {
            fprintf(fp, "COMPREPLY=($(compgen -W \"%s\" -- \"$cur\"))", v);
        }
        fputs("\n            return ;;\n", fp);
    }
    fputs("    esac\n"
          "    if [[ $cur == -* ]]; then\n"
          "        COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
          "        return\n"
          "    fi\n"
          "    case ${pos[0]} in\n"
          "        '') COMPREPLY=($(compgen -W \"",
          fp);
    char words[16][16];
    size_t nt = tops(words, 16);
    for (size_t i = 0; i < nt; i++) fprintf(fp, "%s%s", i ? " " : "", words[i]);
    fputs("\" -- \"$cur\") $(compgen -f -- \"$cur\")) ;;\n", fp);
    for (size_t i = 0; i < nt; i++) {
        fprintf(fp, "        %s)\n", words[i]);
        /* a group of two-word commands (rules list, rules show, ...) or one command */
        bool group = is_group(words[i]);
        if (group) {
            fputs("            if ((${#pos[@]} == 1)); then\n"
                  "                COMPREPLY=($(compgen -W \"",
                  fp);
            sub_words(fp, words[i], " ");
            fputs("\" -- \"$cur\"))\n                return\n            fi\n"
                  "            case ${pos[1]} in\n",
                  fp);
            arg_cases(fp, words[i], 16);
            fputs("            esac ;;\n", fp);
        } else {
            for (const cli_command *c = cli_commands; c->name; c++) {
                if (under(c, words[i]))
                    fprintf(fp, "            _logdx_args 1 %s ;;\n", c->complete ? c->complete : "''");
            }
        }
    }
    fputs("        *) COMPREPLY=($(compgen -f -- \"$cur\")) ;;\n"
          "    esac\n}\n"
          "complete -o filenames -F _logdx logdx\n",
          fp);
}

/* ---- zsh ---- */

/* A description for zsh: the help up to its first ';', without its parentheses,
 * brackets and quotes. */
static void zdesc(FILE *fp, const char *help)
{
    size_t n = strcspn(help, ";");
    int depth = 0;
    for (size_t i = 0; i < n; i++) {
        char c = help[i];
        if (c == '(') depth++;
        if (c == ' ' && help[i + 1] == '(') continue;
        if (!depth && !strchr("[]'\\", c)) fputc(c, fp);
        if (c == ')' && depth) depth--;
    }
}

static void zsh(FILE *fp)
{
    fputs("#compdef logdx\n"
          "# zsh completion for logdx. Written by `logdx help-completion zsh` from the option\n"
          "# and command tables (src/cli/options.c); do not edit.\n\n"
          "_logdx_rule_ids() {\n"
          "  local -a ids\n"
          "  ids=(${(f)\"$(logdx rules list 2>/dev/null | awk 'NR > 1 { print $1 }')\"})\n"
          "  _describe -t rules 'rule' ids\n"
          "}\n\n"
          "_logdx_output() {\n"
          "  if compset -P '*='; then\n"
          "    _files\n"
          "  else\n"
          "    compadd -S '=' -- ",
          fp);
    formats(fp, "");
    fputs("\n  fi\n}\n\n"
          "# The arguments of a command of N words: $2... say what each is (the last @file\n"
          "# repeats).\n"
          "_logdx_args() {\n"
          "  local n=$1\n"
          "  shift\n"
          "  local -a t\n"
          "  t=(\"$@\")\n"
          "  local k=${t[CURRENT - n]}\n"
          "  [[ -z $k && ${t[-1]} == @file ]] && k=@file\n"
          "  case $k in\n"
          "    @file) _files ;;\n"
          "    @rule) _logdx_rule_ids ;;\n"
          "    @cmd) _values 'separator' -- ;;\n"
          "    '') ;;\n"
          "    *) _values 'value' ${=k} ;;\n"
          "  esac\n"
          "}\n\n"
          "_logdx() {\n"
          "  local -a opts\n"
          "  opts=(\n",
          fp);
    for (const cli_option *o = cli_options; o->lng; o++) {
        bool exits = !strcmp(o->lng, "help") || !strcmp(o->lng, "version");
        bool rep = strstr(o->help, "repeatable") != NULL;
        /* exclusions: --help and --version end the line; a short and a long spelling
         * are one option, given once unless it is repeatable */
        const char *ex = exits ? "(- *)" : rep ? "*" : "";
        if (o->shrt) {
            if (!*ex) fprintf(fp, "    '(-%c --%s)'", o->shrt, o->lng);
            else fprintf(fp, "    '%s'", ex);
            fprintf(fp, "{-%c,--%s}'[", o->shrt, o->lng);
        } else {
            fprintf(fp, "    '%s--%s[", rep ? "*" : "", o->lng);
        }
        zdesc(fp, o->help);
        fputc(']', fp);
        if (o->arg) {
            const char *v = o->values ? o->values : "";
            char what[32];
            snprintf(what, sizeof what, "%s", o->arg);
            for (char *p = what; *p; p++)
                if (*p >= 'A' && *p <= 'Z') *p = (char)(*p - 'A' + 'a');
                else if (*p == ':') *p = ' ';
            if (!strcmp(v, "@formats")) {
                fprintf(fp, ":%s:(", what);
                formats(fp, "");
                fputc(')', fp);
            } else if (!strcmp(v, "@output")) {
                fprintf(fp, ":%s:_logdx_output", what);
            } else if (!strcmp(v, "@file")) {
                fprintf(fp, ":%s:_files", what);
            } else if (*v) {
                fprintf(fp, ":%s:(%s)", what, v);
            } else {
                fprintf(fp, ":%s: ", what);
            }
        }
        fputs("'\n", fp);
    }
    fputs("  )\n  local -a subcmds\n  subcmds=(\n", fp);
    char words[16][16];
    size_t nt = tops(words, 16);
    for (size_t i = 0; i < nt; i++) {
        const cli_command *one = NULL;
        size_t n = 0;
        for (const cli_command *c = cli_commands; c->name; c++) {
            if (under(c, words[i])) one = c, n++;
        }
        fprintf(fp, "    '%s:", words[i]);
        if (n == 1 || one->name[0] == '[') {
            zdesc(fp, one->help);
        } else {
            fputs("the rules: ", fp);
            sub_words(fp, words[i], ", ");
        }
        fputs("'\n", fp);
    }
    fputs("  )\n"
          "  # logdx run [OPTIONS] -- CMD ...: after \"--\", complete a command line\n"
          "  local i\n"
          "  for ((i = 2; i < CURRENT; i++)); do\n"
          "    if [[ $words[i] == -- && ${words[(I)run]} -gt 0 && ${words[(I)run]} -lt i ]]; then\n"
          "      shift $i words\n"
          "      (( CURRENT -= i ))\n"
          "      _normal\n"
          "      return\n"
          "    fi\n"
          "  done\n"
          "  _arguments -s -S $opts '*::arg:->args' && return\n"
          "  case $state in\n"
          "    args)\n"
          "      if (( CURRENT == 1 )); then\n"
          "        _alternative 'commands:command:(( ${subcmds} ))' 'files:log:_files'\n"
          "        return\n"
          "      fi\n"
          "      case $words[1] in\n",
          fp);
    for (size_t i = 0; i < nt; i++) {
        bool group = is_group(words[i]);
        fprintf(fp, "        %s)\n", words[i]);
        if (group) {
            fputs("          if (( CURRENT == 2 )); then\n"
                  "            local -a sub\n"
                  "            sub=(\n",
                  fp);
            for (const cli_command *c = cli_commands; c->name; c++) {
                if (!under(c, words[i])) continue;
                fprintf(fp, "              '%s:", second_word(c));
                zdesc(fp, c->help);
                fputs("'\n", fp);
            }
            fprintf(fp, "            )\n"
                        "            _describe -t commands '%s command' sub\n"
                        "          else\n"
                        "            case $words[2] in\n",
                    words[i]);
            arg_cases(fp, words[i], 14);
            fputs("            esac\n          fi ;;\n", fp);
        } else {
            for (const cli_command *c = cli_commands; c->name; c++) {
                if (under(c, words[i]))
                    fprintf(fp, "          _logdx_args 1 %s ;;\n", c->complete ? c->complete : "''");
            }
        }
    }
    fputs("        *) _files ;;\n"
          "      esac ;;\n"
          "  esac\n"
          "}\n\n"
          "_logdx \"$@\"\n",
          fp);
}

int cli_usage_completion(FILE *fp, const char *shell)
{
    if (!strcmp(shell, "bash")) bash(fp);
    else if (!strcmp(shell, "zsh")) zsh(fp);
    else return -1;
    return ferror(fp) ? -1 : 0;
}
