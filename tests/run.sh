#!/bin/sh
# Run every test binary given, each a CUnit program, and add up the results.
# Each binary's last line is "gs-test: NAME ran=N failed=M"; a test that
# needs ../shared/traces and finds it missing prints "[skipped ...]" and
# counts as skipped, not passed.  Prints the plain closing line "tests: N
# passed, M failed" (", K skipped" when some were) and exits non-zero on any
# failure or crash.
#
# The programs run GS_TEST_JOBS at a time (2 unless set; 1 runs them one
# after the other), the slowest first (tests/slow.txt lists them, slowest
# first; the others follow in the order given), so the suite ends when its
# slowest program does.  Each program's output goes to a file of its own and
# is printed in one piece, under a lock, when the program ends, so the lines
# of two programs never mix.  A program that ends without its "gs-test:"
# line, or with a non-zero status and no failure counted, crashed.
#
#   sh tests/run.sh BIN...            run them, print the report
#   sh tests/run.sh --one DIR BIN     (internal) run BIN, keep DIR/NAME.*
set -u
here=$(cd "$(dirname "$0")" && pwd)

if [ "${1:-}" = --one ]; then
    dir=$2; t=$3; name=$(basename "$t")
    start=$(date +%s)
    "$t" >"$dir/$name.out" 2>&1; rc=$?
    secs=$(( $(date +%s) - start ))
    echo "$rc" >"$dir/$name.rc"
    {
        grep -E 'FAILED|^ +[0-9]+\. ' "$dir/$name.out" | head -40
        line=$(grep '^gs-test:' "$dir/$name.out" | tail -1)
        if [ -z "$line" ]; then
            echo "$name: no closing line (rc=$rc); its last lines:"
            tail -20 "$dir/$name.out"
        else
            echo "$line (${secs} s)"
        fi
    } >"$dir/$name.report"
    if command -v flock >/dev/null 2>&1; then
        flock "$dir/lock" cat "$dir/$name.report"
    else
        cat "$dir/$name.report"
    fi
    exit 0
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/gs-tests.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT   # a signal ends the script (and EXIT cleans up):
trap 'exit 143' TERM  # a cleanup trap alone would let it go on without $work
: >"$work/lock"
# The order: tests/slow.txt's names that were given, then the rest.
: >"$work/order"
if [ -f "$here/slow.txt" ]; then
    grep -v '^#' "$here/slow.txt" | while read -r s; do
        for t in "$@"; do
            [ "$(basename "$t")" = "$s" ] && echo "$t"
        done
    done >>"$work/order"
fi
for t in "$@"; do
    grep -qxF "$t" "$work/order" || echo "$t" >>"$work/order"
done
jobs=${GS_TEST_JOBS:-2}
tr '\n' '\0' <"$work/order" | xargs -0 -P "$jobs" -n 1 sh "$0" --one "$work"

total=0; failed=0; skipped=0; crashed=""
for t in "$@"; do
    name=$(basename "$t")
    out="$work/$name.out"
    rc=$(cat "$work/$name.rc" 2>/dev/null || echo 255)
    sk=$(grep -c '\[skipped' "$out" 2>/dev/null)
    skipped=$((skipped + ${sk:-0}))
    line=$(grep '^gs-test:' "$out" 2>/dev/null | tail -1)
    if [ -z "$line" ]; then
        crashed="$crashed $t(rc=$rc)"
        continue
    fi
    ran=$(echo "$line" | sed 's/.*ran=\([0-9]*\).*/\1/')
    f=$(echo "$line" | sed 's/.*failed=\([0-9]*\).*/\1/')
    total=$((total + ran)); failed=$((failed + f))
    [ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && crashed="$crashed $t(rc=$rc)"
done
if [ -n "$crashed" ]; then
    echo "crashed or exited badly:$crashed"
    failed=$((failed + 1))
fi
if [ "$skipped" -gt 0 ]; then
    echo "tests: $((total - failed - skipped)) passed, $failed failed," \
         "$skipped skipped (they need ../shared/traces)"
else
    echo "tests: $((total - failed)) passed, $failed failed"
fi
[ "$failed" -eq 0 ]
