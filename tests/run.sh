#!/bin/sh
# Run every test binary given, each a CUnit program, and add up the results.
# Each binary's last line is "gs-test: NAME ran=N failed=M"; a test that
# needs ../shared/traces and finds it missing prints "[skipped ...]" and
# counts as skipped, not passed.  Prints the plain closing line "tests: N
# passed, M failed" (", K skipped" when some were) and exits non-zero on any
# failure or crash.
total=0; failed=0; skipped=0; crashed=""
for t in "$@"; do
    out=$("$t" 2>&1); rc=$?
    printf '%s\n' "$out" | grep -E 'FAILED|^ +[0-9]+\. ' | head -40
    sk=$(printf '%s\n' "$out" | grep -c '\[skipped')
    skipped=$((skipped + sk))
    line=$(printf '%s\n' "$out" | grep '^gs-test:' | tail -1)
    if [ -z "$line" ]; then
        crashed="$crashed $t(rc=$rc)"
        printf '%s\n' "$out" | tail -20
        continue
    fi
    ran=$(echo "$line" | sed 's/.*ran=\([0-9]*\).*/\1/')
    f=$(echo "$line" | sed 's/.*failed=\([0-9]*\).*/\1/')
    echo "$line"
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
