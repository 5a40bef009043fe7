# bash completion for gpusim -- installed as
# PREFIX/share/bash-completion/completions/gpusim by `make install`.
# Commands, each command's options (read from `gpusim help COMMAND`, so they
# never drift), and the names of policies, placers and trace formats (read
# from `gpusim policies`) after the options that take them.
_gpusim_names() {
    # $1: the section of `gpusim policies` (policies, placement, trace formats)
    "$gpusim" policies 2>/dev/null | awk -v s="$1:" '
        /^[^ ]/ { on = ($0 == s); next }
        on && NF { print $1 }'
}

_gpusim() {
    local cur prev cmd gpusim=${COMP_WORDS[0]}
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD-1]}
    cmd=${COMP_WORDS[1]}
    if [ "$COMP_CWORD" -eq 1 ]; then
        COMPREPLY=($(compgen -W "run compare sweep plan train trace place-exp
            policies scenario help --version --help" -- "$cur"))
        return
    fi
    case $prev in
        --policy|-p)
            COMPREPLY=($(compgen -W "$(_gpusim_names policies)" -- "$cur"))
            return ;;
        --policies)
            local pre=${cur%,*} last=${cur##*,}
            [ "$pre" = "$cur" ] && pre= || pre="$pre,"
            COMPREPLY=($(compgen -P "$pre" -W "$(_gpusim_names policies)" \
                -- "$last"))
            return ;;
        --placement|--placers)
            COMPREPLY=($(compgen -W "$(_gpusim_names placement)" -- "$cur"))
            return ;;
        --format)
            COMPREPLY=($(compgen -W "$(_gpusim_names 'trace formats')" \
                -- "$cur"))
            return ;;
        help)
            COMPREPLY=($(compgen -W "run compare sweep plan train trace
                place-exp policies scenario help" -- "$cur"))
            return ;;
        scenario)
            COMPREPLY=($(compgen -W "quickstart" -- "$cur"))
            return ;;
        --out|-o|--plots|--policy-lib|--plot-scripts)
            COMPREPLY=($(compgen -f -- "$cur"))
            return ;;
    esac
    if [[ $cur == -* ]]; then
        local opts
        opts=$("$gpusim" help "$cmd" 2>/dev/null |
               grep -o -- '--[a-z][a-z0-9-]*' | sort -u)
        COMPREPLY=($(compgen -W "$opts" -- "$cur"))
        return
    fi
    COMPREPLY=($(compgen -f -X '!*.json' -- "$cur") $(compgen -d -- "$cur"))
    [ "$cmd" = run ] || [ "$cmd" = compare ] &&
        COMPREPLY+=($(compgen -W "quickstart" -- "$cur"))
}
complete -o filenames -F _gpusim gpusim
