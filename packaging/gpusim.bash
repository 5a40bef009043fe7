# bash completion for gpusim -- installed by `make install` into
# PREFIX/share/bash-completion/completions/gpusim.
#
# Everything it offers is asked of the gpusim being completed, so it never
# falls out of step with the program: commands from `gpusim help`, a
# command's options from `gpusim help COMMAND` (`gpusim trace help SUB`),
# policies and placers from `gpusim policies`, trace formats from
# `gpusim trace formats`.  Comma lists (--policies a,b,...) complete their
# last element.

_gpusim_names()   # section of `gpusim policies`: policies|placement|trace formats
{
    "$1" policies 2>/dev/null |
        awk -v s="$2:" '/^[a-z]/ { on = ($0 == s); next } on && NF { print $1 }'
}

_gpusim_formats()
{
    "$1" trace formats 2>/dev/null |
        awk '/^ +[a-z0-9][a-z0-9-]+ / { print $1 }' | sort -u
}

_gpusim_list()    # complete the last element of a comma list
{
    local cur=$1 words=$2 pre=""
    case $cur in
        *,*) pre=${cur%,*},; cur=${cur##*,} ;;
    esac
    local w
    COMPREPLY=()
    for w in $(compgen -W "$words" -- "$cur"); do
        COMPREPLY+=("$pre$w")
    done
    [ ${#COMPREPLY[@]} -gt 0 ] && compopt -o nospace 2>/dev/null
    return 0
}

_gpusim()
{
    local g=${COMP_WORDS[0]} cur=${COMP_WORDS[COMP_CWORD]}
    local prev= cmd= sub= i
    [ "$COMP_CWORD" -gt 0 ] && prev=${COMP_WORDS[COMP_CWORD-1]}
    command -v "$g" >/dev/null 2>&1 || g=gpusim
    for ((i = 1; i < COMP_CWORD; i++)); do
        case ${COMP_WORDS[i]} in
            -*) ;;
            *) if [ -z "$cmd" ]; then cmd=${COMP_WORDS[i]};
               elif [ "$cmd" = trace ] && [ -z "$sub" ]; then sub=${COMP_WORDS[i]}; fi ;;
        esac
    done
    if [ -z "$cmd" ]; then
        local cmds
        cmds=$("$g" help 2>/dev/null | sed -n '/^commands:/,/^$/p' |
               awk 'NR > 1 && NF && $1 != "gpusim" { print $1 }')
        COMPREPLY=($(compgen -W "$cmds --version --help" -- "$cur"))
        return 0
    fi
    case $prev in
        --policy|-p)
            COMPREPLY=($(compgen -W "$(_gpusim_names "$g" policies)" -- "$cur"))
            return 0 ;;
        --placement)
            COMPREPLY=($(compgen -W "$(_gpusim_names "$g" placement)" -- "$cur"))
            return 0 ;;
        --policies)
            _gpusim_list "$cur" "$(_gpusim_names "$g" policies)"
            return 0 ;;
        --placers)
            _gpusim_list "$cur" "$(_gpusim_names "$g" placement)"
            return 0 ;;
        --format)
            COMPREPLY=($(compgen -W "$(_gpusim_formats "$g")" -- "$cur"))
            return 0 ;;
        --seed|-s|--seeds|--jobs|-j|--limit|--sample|--scale-rate|--gpus|\
        --from|--to|--tenants|--tier-mix|--opt|--set|--metrics|--growth|\
        --max-load)
            return 0 ;;
    esac
    if [ "$cmd" = help ]; then
        local cmds
        cmds=$("$g" help 2>/dev/null | sed -n '/^commands:/,/^$/p' |
               awk 'NR > 1 && NF && $1 != "gpusim" { print $1 }')
        COMPREPLY=($(compgen -W "$cmds" -- "$cur"))
        return 0
    fi
    if [ "$cmd" = trace ] && [ -z "$sub" ]; then
        local subs
        subs=$("$g" trace help 2>/dev/null | sed -n '/^commands/,/^$/p' |
               awk 'NR > 1 && /^  [a-z]/ { print $1 }')
        COMPREPLY=($(compgen -W "$subs" -- "$cur"))
        return 0
    fi
    if [[ $cur == -* ]]; then
        local opts
        if [ "$cmd" = trace ]; then
            opts=$("$g" trace help "$sub" 2>/dev/null)
        else
            opts=$("$g" help "$cmd" 2>/dev/null)
        fi
        opts=$(printf '%s\n' "$opts" | grep -o -- '--\?-[a-zA-Z][a-zA-Z0-9-]*' |
               sort -u)
        COMPREPLY=($(compgen -W "$opts --help" -- "$cur"))
        return 0
    fi
    if [ "$cmd" = scenario ]; then
        case " ${COMP_WORDS[*]} " in
        *" --check "*) COMPREPLY=($(compgen -f -- "$cur")) ;;  # files
        *) COMPREPLY=($(compgen -W "quickstart --schema --check" -- "$cur")) ;;
        esac
        return 0
    fi
    COMPREPLY=($(compgen -f -- "$cur"))
    [ "$cmd" != trace ] && [ "$prev" = "$cmd" ] &&
        COMPREPLY+=($(compgen -W "quickstart" -- "$cur"))
    return 0
}

complete -F _gpusim gpusim
