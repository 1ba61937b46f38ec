# bash completion for logdx. Written by `logdx help-completion bash` from the option
# and command tables (src/cli/options.c); do not edit.

_logdx_rule_ids()
{
    logdx rules list 2>/dev/null | awk 'NR > 1 { print $1 }'
}

# The arguments of a command of N words: $2... say what each is (the last @file
# repeats). Reads pos and cur from _logdx.
_logdx_args()
{
    local n=$1
    shift
    local -a t=("$@")
    local a=$((${#pos[@]} - n)) k=
    ((a < ${#t[@]})) && k=${t[a]}
    [[ -z $k && ${t[${#t[@]} - 1]} == @file ]] && k=@file
    case $k in
        @file) COMPREPLY=($(compgen -f -- "$cur")) ;;
        @rule) COMPREPLY=($(compgen -W "$(_logdx_rule_ids)" -- "$cur")) ;;
        @cmd) COMPREPLY=($(compgen -W "--" -- "$cur")) ;;
        '') ;;
        *) COMPREPLY=($(compgen -W "$k" -- "$cur")) ;;
    esac
}

_logdx()
{
    local cur prev
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD - 1]}
    local opts="--format -f --output -o --rules -r --no-default-rules --fail-on --quiet -q --brief --baseline --include --exclude --max-members --max-decoded --shard --files-from --null -0 --follow-links --jobs -j --redact --follow --pid --idle --keep-log --progress --strict --perf --color --no-color --help -h --version -V"
    local takes_value="--format -f --output -o --rules -r --fail-on --baseline --include --exclude --max-members --max-decoded --shard --files-from --jobs -j --pid --idle --keep-log --progress --color"

    # The words so far without options and their values: the command and its arguments.
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
        --format | -f)
            COMPREPLY=($(compgen -W "text json sarif junit github jsonl html" -- "$cur"))
            return ;;
        --output | -o)
            if [[ $cur == *=* ]]; then
                COMPREPLY=($(compgen -f -P "${cur%%=*}=" -- "${cur#*=}"))
            else
                compopt -o nospace 2>/dev/null
                COMPREPLY=($(compgen -W "text= json= sarif= junit= github= jsonl= html=" -- "$cur"))
            fi
            return ;;
        --rules | -r)
            COMPREPLY=($(compgen -f -- "$cur"))
            return ;;
        --fail-on)
            COMPREPLY=($(compgen -W "critical high medium low info never" -- "$cur"))
            return ;;
        --baseline)
            COMPREPLY=($(compgen -f -- "$cur"))
            return ;;
        --include)
            
            return ;;
        --exclude)
            
            return ;;
        --max-members)
            
            return ;;
        --max-decoded)
            
            return ;;
        --shard)
            
            return ;;
        --files-from)
            COMPREPLY=($(compgen -f -- "$cur"))
            return ;;
        --jobs | -j)
            
            return ;;
        --pid)
            
            return ;;
        --idle)
            
            return ;;
        --keep-log)
            COMPREPLY=($(compgen -f -- "$cur"))
            return ;;
        --progress)
            COMPREPLY=($(compgen -W "auto always never" -- "$cur"))
            return ;;
        --color)
            COMPREPLY=($(compgen -W "auto always never" -- "$cur"))
            return ;;
    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$opts" -- "$cur"))
        return
    fi
    case ${pos[0]} in
        '') COMPREPLY=($(compgen -W "scan rules explain run merge" -- "$cur") $(compgen -f -- "$cur")) ;;
        scan)
            _logdx_args 1 @file ;;
        rules)
            if ((${#pos[@]} == 1)); then
                COMPREPLY=($(compgen -W "list classes show lint test graph patterns profile" -- "$cur"))
                return
            fi
            case ${pos[1]} in
                show) _logdx_args 2 @rule ;;
                lint) _logdx_args 2 @file ;;
                test) _logdx_args 2 @file ;;
                graph) _logdx_args 2 dot ;;
                profile) _logdx_args 2 @file ;;
            esac ;;
        explain)
            _logdx_args 1 @rule @file ;;
        run)
            _logdx_args 1 @cmd ;;
        merge)
            _logdx_args 1 @file ;;
        *) COMPREPLY=($(compgen -f -- "$cur")) ;;
    esac
}
complete -o filenames -F _logdx logdx
