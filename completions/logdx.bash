# bash completion for logdx. Written from the option table (src/cli/options.c);
# tests/live/run.sh checks that every option of `logdx --help` is here.

_logdx_rule_ids()
{
    logdx rules list 2>/dev/null | awk 'NR > 1 { print $1 }'
}

_logdx()
{
    local cur prev
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD - 1]}
    local opts="--format -f --rules -r --no-default-rules --fail-on --quiet -q --baseline
        --include --exclude --max-members --max-decoded --follow-links --jobs -j --redact --follow --keep-log --progress --strict --perf --color
        --no-color --help -h --version -V"
    local takes_value="--format -f --rules -r --fail-on --baseline --include --exclude --max-members --max-decoded --jobs -j --keep-log --progress --color"

    # The words so far without options and their values: the subcommand and its arguments.
    local -a pos=()
    local i w skip=0
    for ((i = 1; i < COMP_CWORD; i++)); do
        w=${COMP_WORDS[i]}
        if ((skip)); then skip=0; continue; fi
        if [[ $w == -- ]]; then
            if [[ ${pos[0]} == run ]]; then
                # logdx run [OPTIONS] -- CMD ...: complete the command as bash would
                if declare -F _command_offset >/dev/null; then
                    _command_offset $((i + 1))
                else
                    COMPREPLY=($(compgen -c -- "$cur"))
                fi
                return
            fi
            continue
        fi
        if [[ $w == -* ]]; then
            [[ " $takes_value " == *" $w "* ]] && skip=1
            continue
        fi
        pos+=("$w")
    done

    case $prev in
        --format | -f) COMPREPLY=($(compgen -W "text json sarif junit github" -- "$cur")); return ;;
        --fail-on) COMPREPLY=($(compgen -W "critical high medium low info never" -- "$cur")); return ;;
        --progress | --color) COMPREPLY=($(compgen -W "auto always never" -- "$cur")); return ;;
        --rules | -r | --baseline | --keep-log) COMPREPLY=($(compgen -f -- "$cur")); return ;;
        --include | --exclude | --jobs | -j) return ;;
    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$opts" -- "$cur"))
        return
    fi
    case ${pos[0]} in
        '') COMPREPLY=($(compgen -W "scan rules explain run" -- "$cur") $(compgen -f -- "$cur")) ;;
        rules)
            case ${#pos[@]} in
                1) COMPREPLY=($(compgen -W "list classes show lint test graph patterns profile" -- "$cur")) ;;
                *) case ${pos[1]} in
                       show) ((${#pos[@]} == 2)) && COMPREPLY=($(compgen -W "$(_logdx_rule_ids)" -- "$cur")) ;;
                       graph) ((${#pos[@]} == 2)) && COMPREPLY=($(compgen -W "dot" -- "$cur")) ;;
                       lint | test) COMPREPLY=($(compgen -f -- "$cur")) ;;
                   esac ;;
            esac ;;
        explain)
            if ((${#pos[@]} == 1)); then
                COMPREPLY=($(compgen -W "$(_logdx_rule_ids)" -- "$cur"))
            else
                COMPREPLY=($(compgen -f -- "$cur"))
            fi ;;
        run) COMPREPLY=($(compgen -W "--" -- "$cur")) ;;
        *) COMPREPLY=($(compgen -f -- "$cur")) ;;
    esac
}
complete -o filenames -F _logdx logdx
