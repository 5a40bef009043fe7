#!/bin/sh
# manpage.sh GPUSIM OUT -- gpusim(1) from the help texts themselves:
# help2man reads `gpusim --help` and `--version`, and an include file made
# here adds one subsection per command with `gpusim help COMMAND` (and
# `gpusim trace help`), so the page never disagrees with the program.
set -e
g=$1; out=$2
inc=$out.inc
esc() { sed -e 's/\\/\\e/g' -e "s/^[.']/\\\\\\&&/"; }
cmds=$("$g" help | sed -n '/^commands:/,/^$/p' |
       awk 'NR > 1 && NF && $1 != "help" && $1 != "gpusim" { print $1 }')
{
    echo '[NAME]'
    echo 'gpusim \- discrete-event GPU cluster simulator and capacity planner'
    echo '[COMMANDS]'
    for c in $cmds; do
        echo ".SS $c"
        echo '.nf'
        if [ "$c" = trace ]; then "$g" trace help; else "$g" help "$c"; fi | esc
        echo '.fi'
    done
    echo '[FILES]'
    echo 'Plot scripts and notebooks are looked for in'
    echo '.I PREFIX/share/gpusim/plots'
    echo 'beside the installed binary, example scenarios are in'
    echo '.IR PREFIX/share/gpusim/scenarios .'
    echo '[SEE ALSO]'
    echo 'The README and docs/ of the source tree; the scenario reference is'
    echo 'in the README.'
} >"$inc"
help2man --no-info --no-discard-stderr --section=1 \
    --name='discrete-event GPU cluster simulator and capacity planner' \
    --include="$inc" --output="$out.tmp" "$g"
rm -f "$inc"
mv "$out.tmp" "$out"
