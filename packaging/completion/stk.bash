# bash completion for stk and its stk-APPLET links.
# Options (and --format's values) are read from the applet's own --help at
# completion time, so this file never goes stale when an applet gains an
# option or stk a format.

# _stk_help_options CMD...: prints "OPT" or "OPT=" (takes an argument) for
# every option in CMD's --help: lines "  -p, --pid PID[,PID...]   text".
_stk_help_options()
{
    "$@" --help 2>/dev/null | sed -n -E 's/^ +(-[^ ].*)$/\1/p' | sed -E 's/  +.*//' |
        while read -r spec; do
            local arg=
            # An argument name (PID, FILE, N, ...) follows the option names.
            [[ $spec =~ [[:space:]][^-[:space:]] ]] && arg==
            for o in $(grep -oE '(^|[ ,])--?[A-Za-z0-9][A-Za-z0-9-]*' <<<"$spec" | tr -d ' ,'); do
                echo "$o$arg"
            done
        done
}

# _stk_help_formats CMD...: the format names CMD's --help lists on its
# "--format FMT" line and the lines continuing it ("pmp (default), text, ... or svg").
_stk_help_formats()
{
    "$@" --help 2>/dev/null |
        awk '/^ +--format / { on = 1; sub(/^ +--format +[^ ]+ +/, ""); print; next }
             on && /^ +[^ -]/ { print; next }
             { on = 0 }' |
        tr ',' ' ' | sed -E 's/\(default\)//g; s/(^| )or( |$)/ /g'
}

_stk()
{
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
    local cmd=${COMP_WORDS[0]} base=${COMP_WORDS[0]##*/} first=1
    local -a run

    COMPREPLY=()
    if [[ $base == stk ]]; then
        if ((COMP_CWORD == 1)); then
            COMPREPLY=($(compgen -W "$("$cmd" --list 2>/dev/null) --list --help --version --install" -- "$cur"))
            return
        fi
        if [[ ${COMP_WORDS[1]} == --install ]]; then
            if [[ $cur == -* ]]; then
                COMPREPLY=($(compgen -W "-s" -- "$cur"))
            else
                compopt -o filenames 2>/dev/null
                COMPREPLY=($(compgen -d -- "$cur"))
            fi
            return
        fi
        run=("$cmd" "${COMP_WORDS[1]}")
        first=2
    else
        run=("$cmd")
    fi
    ((COMP_CWORD < first)) && return

    case $prev in
    -o | --output | --btf)
        compopt -o filenames 2>/dev/null
        COMPREPLY=($(compgen -f -- "$cur"))
        return ;;
    --cgroup)
        compopt -o filenames 2>/dev/null
        [[ -z $cur ]] && cur=/sys/fs/cgroup/
        COMPREPLY=($(compgen -d -- "$cur"))
        return ;;
    --format)
        COMPREPLY=($(compgen -W "$(_stk_help_formats "${run[@]}")" -- "$cur"))
        return ;;
    -p | --pid)
        COMPREPLY=($(compgen -W "$(cd /proc && printf '%s\n' [0-9]*)" -- "$cur"))
        return ;;
    --source)
        COMPREPLY=($(compgen -W "task_iter tracepoint_state proc" -- "$cur"))
        return ;;
    -g | --group | -G | --group-add)
        # threadstate's comma-separated columns: complete the one after the last comma.
        if [[ ${run[*]} == *threadstate* ]]; then
            local done_part=${cur%"${cur##*,}"}
            COMPREPLY=($(compgen -P "$done_part" -W "$("${run[@]}" --list-columns 2>/dev/null | awk '{ print $1 }')" \
                -- "${cur##*,}"))
            compopt -o nospace 2>/dev/null
            return
        fi ;;
    -e | --event)
        # resources' and record's comma-separated kinds: complete the one after the last comma.
        if [[ ${run[*]} == *resources* || ${run[*]} == *record* ]]; then
            local done_part=${cur%"${cur##*,}"}
            COMPREPLY=($(compgen -P "$done_part" -W "$("${run[@]}" --list-kinds 2>/dev/null)" -- "${cur##*,}"))
            compopt -o nospace 2>/dev/null
            return
        fi ;;
    -C | --cpu)
        COMPREPLY=($(compgen -W "$(cd /sys/devices/system/cpu 2>/dev/null && printf '%s\n' cpu[0-9]* | sed 's/^cpu//')" -- "$cur"))
        return ;;
    esac

    local opts
    opts=$(_stk_help_options "${run[@]}")
    # Any other option that takes an argument: nothing sensible to offer.
    grep -qxF -- "$prev=" <<<"$opts" && return
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "${opts//=/}" -- "$cur"))
    fi
}

# The applets come from stk itself, so a new applet's link completes too.
complete -F _stk stk $(stk --list 2>/dev/null | sed 's/^/stk-/')
