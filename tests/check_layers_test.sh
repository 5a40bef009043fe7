#!/bin/sh
# check_layers_test.sh -- check-layers catches what it must: on a copy of
# the tree it (1) passes as the tree is, (2) fails on a planted upward
# include (base/ including a tool), naming the file and line, (3) fails on a
# planted local `extern` (an object of base/ calling a tool's function
# through its own declaration, which no include shows: nm does), naming
# the object and symbol, (4) fails on a planted include across models, and
# (5) fails on a policy that walks the pending list by a job's ->next
# instead of the core's counted accessor (sim/core/look.h), and (6) fails
# on a struct gs_diag declared in a function without an initializer (its
# strings are heap pointers), in a reader and in a test.
#
#   sh tests/check_layers_test.sh BUILD_DIR     (e.g. build/rel)
set -u
here=$(cd "$(dirname "$0")" && pwd); root=$(dirname "$here")
obj=$(cd "$1" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/gs-layers.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT   # a signal ends the script (and EXIT cleans up):
trap 'exit 143' TERM  # a cleanup trap alone would let it go on without $work
fail=0
check() {   # NAME EXPECTED-STATUS PATTERN: run the check on the copy
    python3 "$work/tests/check_layers.py" --root "$work" --obj "$work/obj" \
        --quiet >"$work/out" 2>&1
    st=$?
    if [ "$st" -ne "$2" ] || ! grep -q -- "$3" "$work/out"; then
        echo "check_layers_test: $1: status $st, want $2 and '$3':"
        cat "$work/out"; fail=1
    else
        echo "check_layers_test: $1: ok"
    fi
}
mkdir -p "$work/obj"
cp -r "$root/sim" "$root/policies" "$root/traces" "$root/tests" "$work/"
for d in sim policies traces; do cp -r "$obj/$d" "$work/obj/"; done
check "the tree as it is" 0 "check-layers: ok"

printf '#include "../studies/sweep.h"\n' >>"$work/sim/base/order.h"
check "an upward include" 1 \
    "sim/base/order.h:[0-9]*: include sim/studies/sweep.h goes up a layer"
cp "$root/sim/base/order.h" "$work/sim/base/order.h"

cat >"$work/planted.c" <<'C'
extern int gs_run_nmetrics(void);
int gs_planted(void);
int gs_planted(void) { return gs_run_nmetrics(); }
C
${CC:-cc} -c "$work/planted.c" -o "$work/obj/sim/base/planted.o"
cp "$work/planted.c" "$work/sim/base/planted.c"
check "a local extern" 1 \
    "sim/base/planted.o: symbol gs_run_nmetrics goes up a layer (base -> studies)"
rm "$work/obj/sim/base/planted.o" "$work/sim/base/planted.c"

printf '#include "../cloud/cloud.h"\n' >>"$work/sim/inference/svcout.c"
check "an include across models" 1 "goes across models (inference -> cloud)"
cp "$root/sim/inference/svcout.c" "$work/sim/inference/svcout.c"

printf 'static struct gs_job *planted(struct gs_job *j) { return j->next; }\n' \
    >>"$work/policies/fifo.c"
check "an uncounted read" 1 \
    "policies/fifo.c:[0-9]*: uncounted read: a job's list link"
cp "$root/policies/fifo.c" "$work/policies/fifo.c"

printf 'int gs_planted_diag(void);\nint gs_planted_diag(void)\n{\n    struct gs_diag d;\n    return d.code;\n}\n' \
    >>"$work/traces/swf.c"
check "a gs_diag without an initializer" 1 \
    "traces/swf.c:[0-9]*: struct gs_diag d has no initializer"
cp "$root/traces/swf.c" "$work/traces/swf.c"

printf 'static void planted(void) { struct gs_diag a = { 0 }, b; (void)a; (void)b; }\n' \
    >>"$work/tests/test_cloud.c"
check "a second gs_diag of a list without one" 1 \
    "tests/test_cloud.c:[0-9]*: struct gs_diag b has no initializer"
exit $fail
