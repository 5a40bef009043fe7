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
    # every command's own "usage:" line, as its help prints it
    echo '[SYNOPSIS]'
    echo '.nf'
    echo 'gpusim [--data-path DIR[:DIR...]] COMMAND [ARGS]'
    for c in $cmds; do
        if [ "$c" = trace ]; then
            for t in $("$g" trace help | sed -n '/^commands/,/^$/p' |
                       sed -n 's/^  \([a-z][a-z]*\) .*/\1/p'); do
                "$g" trace help "$t" | sed -n 's/^usage: //p'
            done | uniq
        else
            "$g" help "$c" | sed -n 's/^usage: //p'
        fi
    done | esc
    echo 'gpusim help [COMMAND [SUBCOMMAND]]'
    echo 'gpusim --version'
    echo '.fi'
    echo '[COMMANDS]'
    for c in $cmds; do
        echo ".SS $c"
        echo '.nf'
        if [ "$c" = trace ]; then "$g" trace help; else "$g" help "$c"; fi | esc
        echo '.fi'
        [ "$c" = trace ] || continue
        for t in $("$g" trace help | sed -n '/^commands/,/^$/p' |
                   sed -n 's/^  \([a-z][a-z]*\) .*/\1/p' | grep -vx transform); do
            echo ".SS trace $t"
            echo '.nf'
            "$g" trace help "$t" | esc
            echo '.fi'
        done
    done
    echo '[EXIT STATUS]'
    echo '.TP'
    echo '.B 0'
    echo 'success.'
    echo '.TP'
    echo '.B 1'
    echo 'a result file or the standard output could not be written (a full'
    echo 'disk), or a worker process of compare or train died.'
    echo '.TP'
    echo '.B 2'
    echo 'bad input or usage: a message on stderr names the place (file, line,'
    echo 'JSON path) and the problem, and no result file is left behind.'
    echo '.TP'
    echo '.B 3'
    echo 'plan: no candidate fleet meets the targets (the closest is shown).'
    echo '.TP'
    echo '.B 128+N'
    echo 'killed by signal N (SIGINT, SIGTERM, SIGHUP, SIGPIPE): workers are'
    echo 'stopped and temporaries removed first.'
    echo '[ENVIRONMENT]'
    echo '.TP'
    echo '.B GPUSIM_DATA_PATH'
    echo 'folders (DIR:DIR...) where files a scenario names are looked up'
    echo 'when they are not beside the scenario; --data-path overrides it.'
    echo '.TP'
    echo '.B GPUSIM_PLOTS'
    echo 'the folder of the plot scripts compare and plan draw with.'
    echo '[FILES]'
    echo 'Plot scripts and notebooks are looked for in'
    echo '.I PREFIX/share/gpusim/plots'
    echo 'beside the installed binary, example scenarios are in'
    echo '.IR PREFIX/share/gpusim/scenarios .'
    echo '[SEE ALSO]'
    echo 'The README (the scenario reference and the result files) and the'
    echo 'documents it links, installed in'
    echo '.IR PREFIX/share/doc/gpusim .'
} >"$inc"
help2man --no-info --no-discard-stderr --section=1 \
    --name='discrete-event GPU cluster simulator and capacity planner' \
    --include="$inc" --output="$out.tmp" "$g"
rm -f "$inc"
mv "$out.tmp" "$out"
