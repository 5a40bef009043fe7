#!/bin/sh
# tools/mkman.sh GPUSIM -- write gpusim(1) on stdout from the binary's own
# help texts (`gpusim help` and `gpusim help COMMAND`), so the manual page
# never drifts from the program: each command's help becomes a section,
# shown as written (.nf), with the version in the header.
set -e
g=${1:-./gpusim}
ver=$("$g" --version | sed -n 's/^gpusim \([^ ]*\).*/\1/p')
esc() { sed -e 's/\\/\\e/g' -e 's/^\./\\\&./' -e "s/^'/\\\\\&'/"; }
cat <<HEAD
.TH GPUSIM 1 "" "gpusim $ver" "User Commands"
.SH NAME
gpusim \- GPU cluster simulator and capacity planner
.SH SYNOPSIS
.B gpusim
.I COMMAND
.RI [ ARGS ]
.SH DESCRIPTION
gpusim replays a workload (a real trace, or a generated one) against a
modeled fleet of GPUs under a pluggable scheduling policy, and reports
utilization, queueing delay, SLA violations and cost.
.PP
.nf
HEAD
"$g" help | esc
echo ".fi"
for c in run compare sweep plan train trace place-exp policies scenario; do
    "$g" help "$c" >/dev/null 2>&1 || continue
    echo ".SH COMMAND: $(echo "$c" | tr a-z A-Z)"
    echo ".nf"
    "$g" help "$c" | esc
    echo ".fi"
done
cat <<TAIL
.SH EXIT STATUS
0 on success; 2 for bad input or usage (a message names the file, line or
JSON path); 1 when a result or standard output cannot be written, or a
worker process died.  Interrupted by a signal, gpusim removes its temporary
files, stops its workers and dies of that signal (status 128 + signo).
.SH FILES
.TP
.I PREFIX/share/gpusim
plot scripts, notebooks, the Python reader gpusim_h5.py and example
scenarios.
.SH SEE ALSO
The README and docs/ of the source tree.
TAIL
