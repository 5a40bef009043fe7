#!/bin/sh
# docs_commands.sh -- every command README.md and docs/*.md show runs as
# written.  Run by tests/test_docs.c (from the repository root) with
# GPUSIM naming the gpusim to put on PATH.
#
# Commands are taken from fenced code blocks (not json, python or c): in a
# block where some line starts with "$ ", the "$ " lines (continued by a
# trailing backslash) -- the other lines are output; in a block without
# "$ ", the lines that start with "gpusim ", "make " or "cc ".  A trailing
# "# comment" is dropped.  Each file's commands run in order (a later one
# may use what an earlier one wrote) with sh -e, in a fresh folder holding a
# copy of the checkout's scenarios/, plots/ and policies/, beside a link to
# ../shared, as a user's checkout is.  Commands that read ../shared/traces
# are skipped when it is missing; the SKIP list below names every other
# command that is not run, and why.  Prints "docs: FILE:LINE: ok|FAILED|
# skipped (why)" per command and ends with "docs ran=N failed=M skipped=K";
# exits 1 on any failure.
set -u
repo=$(pwd)
g=${GPUSIM:-$repo/build/rel/gpusim}
case $g in /*) ;; *) g=$repo/$g ;; esac
shared=$(cd "$repo/.." && pwd)/shared

# Commands not run: a prefix of the command, then why.
SKIP='make run|builds and runs in the checkout; make test runs this test
make test|this is make test
make bench-policies-update|rewrites bench/baselines.json by design
make fuzz|fuzzes for minutes; make test runs fuzz-check itself
gpusim train quickstart --seeds 2 --iters 10|trains for minutes; test_policies trains rl-lite
mpirun |needs an MPI launch; test_plan runs plan and sweep under mpirun -np 2
cmp one.txt mpi.txt|compares the mpirun output that is not made here
srun |needs Slurm
build/rel/bench/|a benchmark (make bench), minutes long
cc -std=c11 -fPIC -shared -I/path/to/gpusim|a placeholder path; test_policies builds the example plug-in
cc -std=c11 -fPIC -shared -I/usr/local/include/gpusim|needs make install into /usr/local; test_install compiles a plug-in against installed headers
gpusim run scenario.json --policy-lib ./mine.so|mine.so is the reader'"'"'s own plug-in
gpusim compare scenario.json --policy-lib ./mine.so|mine.so is the reader'"'"'s own plug-in
gpusim compare SCENARIO|a synopsis, not a command
gpusim trace gen spec.json -o week.csv [|a synopsis, not a command
gpusim llm calibrate --gpu A100-80GB|about a minute on a busy machine; test_llmops checks its leave-one-shape-out bounds
gpusim llm calibrate --gpu H100-80GB|about a minute on a busy machine; test_llmops checks its leave-one-shape-out bounds'

tmp=$(mktemp -d /tmp/gs_docsXXXXXX) || exit 2
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/bin"
ln -s "$g" "$tmp/bin/gpusim"

extract() {     # FILE -> "LINE<TAB>COMMAND" lines
    awk '
    function flush() {
        for (i = 1; i <= n; i++)
            if (dollar ? (txt[i] ~ /^\$ /) : (txt[i] ~ /^(gpusim|make|cc) /)) {
                c = txt[i]; sub(/^\$ /, "", c); ln = num[i]
                while (c ~ /\\$/ && i < n) { sub(/\\$/, "", c); i++; c = c " " txt[i] }
                sub(/[ \t]+#[^\x27"]*$/, "", c)
                gsub(/[ \t]+/, " ", c)
                print ln "\t" c
            }
        n = 0; dollar = 0
    }
    /^```/ {
        if (inb) { if (keep) flush(); inb = 0 }
        else { inb = 1; lang = substr($0, 4); keep = lang !~ /^(json|python|c)$/; n = 0; dollar = 0 }
        next
    }
    inb { txt[++n] = $0; num[n] = FNR; if ($0 ~ /^\$ /) dollar = 1 }
    ' "$1"
}

ran=0; failed=0; skipped=0
for f in README.md docs/*.md; do
    [ -f "$f" ] || continue
    w=$tmp/run/$(echo "$f" | tr / _)
    mkdir -p "$w/checkout"
    cp -R "$repo/scenarios" "$repo/plots" "$repo/policies" "$w/checkout/"
    [ -d "$shared" ] && ln -s "$shared" "$w/shared"
    extract "$f" >"$tmp/cmds"
    while IFS='	' read -r line cmd; do
        why=$(printf '%s\n' "$SKIP" | while IFS='|' read -r pre reason; do
            case $cmd in "$pre"*) echo "$reason"; break ;; esac
        done)
        if [ -z "$why" ] && case $cmd in *../shared/*) true ;; *) false ;; esac &&
           [ ! -d "$shared/traces" ]; then
            why="needs ../shared/traces, which is missing"
        fi
        if [ -n "$why" ]; then
            echo "docs: $f:$line: skipped ($why): $cmd"
            skipped=$((skipped + 1))
            continue
        fi
        ran=$((ran + 1))
        if (cd "$w/checkout" && PATH="$tmp/bin:$PATH" GPUSIM_PLOTS= \
              timeout 600 sh -e -c "$cmd" >"$tmp/out" 2>&1 </dev/null); then
            echo "docs: $f:$line: ok: $cmd"
        else
            echo "docs: $f:$line: FAILED: $cmd"
            tail -n 15 "$tmp/out" | sed 's/^/    /'
            failed=$((failed + 1))
        fi
    done <"$tmp/cmds"
done
echo "docs ran=$ran failed=$failed skipped=$skipped"
[ "$failed" -eq 0 ]
