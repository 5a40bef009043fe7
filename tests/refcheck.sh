#!/bin/sh
# refcheck.sh -- outputs that must not move: the summary (--json) and the
# HDF5 result file of every shipped scenario and of the quickstart under
# every built-in policy, each compared by SHA-256 with tests/refs/outputs.sha256.
#
#   sh tests/refcheck.sh GPUSIM          check (exit 1 naming what moved)
#   sh tests/refcheck.sh GPUSIM --update rewrite the references
#
# A change that moves an output on purpose runs --update in the same commit
# and says why in its message; a restructuring must leave this passing.
# The files are made in a fresh temporary folder, so the result file's
# name is the same on every run; the runs go two at a time (GS_TEST_JOBS).
set -u
gpusim=$(realpath "$1"); mode=${2:-check}
here=$(cd "$(dirname "$0")" && pwd)
refs="$here/refs/outputs.sha256"
work=$(mktemp -d "${TMPDIR:-/tmp}/gs-refcheck.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT   # a signal ends the script (and EXIT cleans up):
trap 'exit 143' TERM  # a cleanup trap alone would let it go on without $work
cd "$work" || exit 1
one() {   # NAME ARGS...: run, keep the summary and the result file
    name=$1; shift
    if ! "$gpusim" run "$@" --seed 7 --out "$name.h5" --json \
            >"$name.json" 2>"$name.err"; then
        echo "refcheck: $name: gpusim run failed:"; cat "$name.err"; exit 1
    fi

}
# The runs go GS_TEST_JOBS at a time (2 unless set): lane K makes every
# JOBS-th run from the K-th; each run's files have names of their own.
jobs=${GS_TEST_JOBS:-2}
lane() {
    i=0
    for s in "$here"/../scenarios/*.json; do
        case $s in *.schema.json) continue ;; esac   # the scenarios' schema
        [ $((i % jobs)) -eq "$1" ] && one "$(basename "$s" .json)" "$s"
        i=$((i + 1))
    done
    for p in fifo fifo-backfill priority fair hps rl-lite smallest shortest shortest-gpu pbs sbs; do
        [ $((i % jobs)) -eq "$1" ] && one "quickstart-$p" quickstart --policy "$p"
        i=$((i + 1))
    done
    return 0
}
k=0; pids=""
while [ "$k" -lt "$jobs" ]; do
    ( lane "$k" ) & pids="$pids $!"
    k=$((k + 1))
done
bad=0
for p in $pids; do wait "$p" || bad=1; done
[ "$bad" -eq 0 ] || exit 1
sha256sum -- *.h5 *.json | sort -k2 >outputs.sha256
if [ "$mode" = --update ]; then
    cp outputs.sha256 "$refs"; echo "refcheck: $(wc -l <"$refs") references written"
    exit 0
fi
if diff -u "$refs" outputs.sha256 >diff.txt; then
    echo "refcheck: $(wc -l <"$refs") outputs byte-identical"
else
    echo "refcheck: outputs moved (- reference, + now):"; grep '^[-+][0-9a-f]' diff.txt
    exit 1
fi
