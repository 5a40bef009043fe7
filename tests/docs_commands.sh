#!/bin/sh
# docs_commands.sh -- every command README.md and docs/*.md show runs as
# written.  Run by tests/test_docs.c (from the repository root) with
# GPUSIM naming the gpusim to put on PATH.
#
# Commands are taken from fenced code blocks (not json, python or c): in a
# block where some line starts with "$ ", the "$ " lines (continued by a
# trailing backslash) -- the other lines are output; in a block without
# "$ ", the lines that start with "gpusim ", "make " or "cc ".  A trailing
# "# comment" is dropped.  The lines a "$ " block shows under a command
# are its sample output: each must be in what the command prints, in the
# same order ("..." stands for lines left out; see check_output).  Each file's commands run in order (a later one
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
make fuzz|fuzzes for minutes; make test-long runs fuzz-check itself
make SANITIZER=address,undefined build/san/gpusim build/san/tests/test_X|test_X stands for a test program'"'"'s name; make asan builds and runs them all
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

# FILE DIR -> DIR/N.cmd (the command), DIR/N.line, DIR/N.exp (the output
# lines a "$ " block shows under it, when it shows any), N = 1, 2, ...
extract() {
    awk -v dir="$2" '
    function emit(c, ln) {
        k++
        print c > (dir "/" k ".cmd"); close(dir "/" k ".cmd")
        print ln > (dir "/" k ".line"); close(dir "/" k ".line")
    }
    function flush() {
        for (i = 1; i <= n; i++)
            if (dollar ? (txt[i] ~ /^\$ /) : (txt[i] ~ /^(gpusim|make|cc) /)) {
                c = txt[i]; sub(/^\$ /, "", c); ln = num[i]
                while (c ~ /\\$/ && i < n) { sub(/\\$/, "", c); i++; c = c " " txt[i] }
                sub(/[ \t]+#[^\x27"]*$/, "", c)
                gsub(/[ \t]+/, " ", c)
                emit(c, ln)
                while (dollar && i < n && txt[i + 1] !~ /^\$ /) {
                    i++; print txt[i] > (dir "/" k ".exp")
                }
                if (dollar) close(dir "/" k ".exp")
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

# Output a page shows under a command it does not run (SKIP) but whose
# output comes from one that can: a prefix of the command, then that one.
AS='make run|gpusim run quickstart --no-out'

# The lines of EXP (a page's sample output; "..." stands for lines left
# out) must appear in OUT in the same order, each exactly (trailing blanks
# aside).  Prints the first that does not, and returns 1.
check_output() {
    awk '
    # line o matches the page line e: equal, or where e has "...", its
    # parts in order within o
    function match_line(o, e,   parts, np, j, at, k) {
        if (index(e, "...") == 0) return o == e
        np = split(e, parts, /\.\.\./); at = 1
        for (j = 1; j <= np; j++) {
            if (parts[j] == "") continue
            k = index(substr(o, at), parts[j]); if (k == 0) return 0
            at += k - 1 + length(parts[j])
        }
        return 1
    }
    FNR == NR { sub(/[ \t]+$/, ""); out[++no] = $0; next }
    { sub(/[ \t]+$/, "") }
    $0 ~ /^[ \t]*(\.\.\.)?$/ { next }
    { while (++at <= no && !match_line(out[at], $0)) ; if (at > no) { print "    the page shows: " $0; print "    not in the output (in this order)"; bad = 1; exit 1 } }
    END { exit bad }
    ' "$1" "$2"
}

ran=0; failed=0; skipped=0
for f in README.md docs/*.md; do
    [ -f "$f" ] || continue
    w=$tmp/run/$(echo "$f" | tr / _)
    mkdir -p "$w/checkout"
    cp -R "$repo/scenarios" "$repo/plots" "$repo/policies" "$w/checkout/"
    [ -d "$shared" ] && ln -s "$shared" "$w/shared"
    rm -rf "$tmp/c" && mkdir "$tmp/c"
    extract "$f" "$tmp/c"
    k=0
    while [ -f "$tmp/c/$((k + 1)).cmd" ]; do
        k=$((k + 1))
        cmd=$(cat "$tmp/c/$k.cmd"); line=$(cat "$tmp/c/$k.line")
        exp=$tmp/c/$k.exp
        why=$(printf '%s\n' "$SKIP" | while IFS='|' read -r pre reason; do
            case $cmd in "$pre"*) echo "$reason"; break ;; esac
        done)
        if [ -z "$why" ] && case $cmd in *../shared/*) true ;; *) false ;; esac &&
           [ ! -d "$shared/traces" ]; then
            why="needs ../shared/traces, which is missing"
        fi
        if [ -n "$why" ]; then
            as=$(printf '%s\n' "$AS" | while IFS='|' read -r pre other; do
                case $cmd in "$pre"*) echo "$other"; break ;; esac
            done)
            if [ -n "$as" ] && [ -f "$exp" ]; then
                why=""; cmd=$as
            else
                echo "docs: $f:$line: skipped ($why): $cmd"
                skipped=$((skipped + 1))
                continue
            fi
        fi
        ran=$((ran + 1))
        if (cd "$w/checkout" && PATH="$tmp/bin:$PATH" GPUSIM_PLOTS= \
              timeout 600 sh -e -c "$cmd" >"$tmp/out" 2>&1 </dev/null); then
            if [ -f "$exp" ] && ! check_output "$tmp/out" "$exp" >"$tmp/why"; then
                echo "docs: $f:$line: FAILED (the output shown differs): $cmd"
                cat "$tmp/why"
                failed=$((failed + 1))
            else
                echo "docs: $f:$line: ok: $cmd"
            fi
        else
            echo "docs: $f:$line: FAILED: $cmd"
            tail -n 15 "$tmp/out" | sed 's/^/    /'
            failed=$((failed + 1))
        fi
    done
done
echo "docs ran=$ran failed=$failed skipped=$skipped"
[ "$failed" -eq 0 ]
