# utilization.gp -- allocated / available GPUs over time, one line per policy
# (mean over the seeds at each sample step), reading
# D/util-POLICY.dat (columns: time_h utilization).
# gpusim runs it as  gnuplot -c SCRIPT DATADIR POLICIES TIERS SCENARIO OUT
# (its strings arrive as arguments, never as code: sim/io/gnuplot.h);
# by hand, gnuplot -e "datadir='D'; policies='a b'; ..." SCRIPT works too.
if (ARGC >= 5) { datadir = ARG1; policies = ARG2; tiers = ARG3; scenario = ARG4; out = ARG5 }
set terminal pngcairo size 1000,560 enhanced font ",10"
set output out
sc = exists("scenario") ? scenario.": " : ""
set title sc."GPU utilization over time (mean over seeds)" noenhanced
set xlabel "time (h)"
set ylabel "allocated / available GPUs"
set yrange [0:1.05]
set grid
set key outside right top
plot for [p in policies] datadir.'/util-'.p.'.dat' using 1:2 with lines lw 1.5 title p
