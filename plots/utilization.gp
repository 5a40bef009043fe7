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
# the time axis from the data: a run of one sample (or all at one time)
# gets an hour around it, never gnuplot's "empty x range"
xmin = 1e300; xmax = -1e300
do for [p in policies] {
    stats datadir.'/util-'.p.'.dat' using 1 nooutput
    if (STATS_records > 0 && STATS_min < xmin) { xmin = STATS_min }
    if (STATS_records > 0 && STATS_max > xmax) { xmax = STATS_max }
}
if (xmax <= xmin) { set xrange [xmin - 0.5:xmin + 0.5] } else { set xrange [xmin:xmax] }
set xlabel "time (h)"
set ylabel "allocated / available GPUs"
set yrange [0:1.05]
set grid
set key outside right top
plot for [p in policies] datadir.'/util-'.p.'.dat' using 1:2 with lines lw 1.5 title p
