#!/bin/sh
# docs/hdf5.md from the files the shipped scenarios write: a run with
# inference services and a priced fleet (quickstart), one with spot, failures
# and autoscaling (cloud-mixed.json), a comparison, a plan, a sweep and a
# placement experiment, read back by plots/h5doc.py.
#
#   sh tests/hdf5doc.sh GPUSIM            print the document
#   sh tests/hdf5doc.sh GPUSIM --check    exit 1 when docs/hdf5.md differs
#                                         (make test), showing the diff
#   sh tests/hdf5doc.sh GPUSIM --update   rewrite docs/hdf5.md
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
gpusim=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
mode=${2:-}
work=$(mktemp -d "${TMPDIR:-/tmp}/gs-h5doc.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT   # a signal ends the script (and EXIT cleans up):
trap 'exit 143' TERM  # a cleanup trap alone would let it go on without $work
sc=$here/scenarios
(
    cd "$work" &&
    "$gpusim" run quickstart -q -o q.h5 &&
    "$gpusim" run "$sc/cloud-mixed.json" -q -o cl.h5 &&
    "$gpusim" compare quickstart -p fifo,hps -s 1 -q --no-plots -o c.h5 &&
    "$gpusim" plan "$sc/plan-erlang.json" --seeds 2 --no-plots --no-advice \
        -q -o p.h5 &&
    "$gpusim" sweep "$sc/small-tenants.json" --set 'fleet[0].nodes=2,3' \
        --seeds 2 -q -o s.h5 &&
    "$gpusim" place-exp quickstart --seeds 1 -q -o x.h5
) >"$work/log" 2>&1
rc=$?
# plan exits 3 when no plan meets the targets: a file is still written
if [ ! -f "$work/x.h5" ]; then
    echo "hdf5doc: a command failed (rc=$rc):" >&2
    cat "$work/log" >&2
    exit 2
fi
/usr/bin/python3 "$here/plots/h5doc.py" run="$work/q.h5" run="$work/cl.h5" \
    compare="$work/c.h5" plan="$work/p.h5" sweep="$work/s.h5" \
    place-exp="$work/x.h5" >"$work/hdf5.md" || exit 2
case $mode in
--check)
    if ! cmp -s "$work/hdf5.md" "$here/docs/hdf5.md"; then
        echo "hdf5doc: docs/hdf5.md is not what the writer writes now;" \
             "make docs/hdf5.md (the difference, - committed + now):" >&2
        diff -u "$here/docs/hdf5.md" "$work/hdf5.md" | head -40 >&2
        exit 1
    fi
    echo "hdf5doc: docs/hdf5.md is up to date" ;;
--update)
    cp "$work/hdf5.md" "$here/docs/hdf5.md" && echo "hdf5doc: docs/hdf5.md written" ;;
*)
    cat "$work/hdf5.md" ;;
esac
