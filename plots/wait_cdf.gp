# wait_cdf.gp -- queueing-delay CDF per tier, one line per policy, pooled
# over the seeds.  Variables: datadir, policies, tiers (the tiers with jobs),
# out.  Reads D/wait-POLICY-TIER.dat (columns: wait_min cdf).
# gpusim runs it as  gnuplot -c SCRIPT DATADIR POLICIES TIERS SCENARIO OUT
# (its strings arrive as arguments, never as code: sim/io/gnuplot.h);
# by hand, gnuplot -e "datadir='D'; policies='a b'; ..." SCRIPT works too.
if (ARGC >= 5) { datadir = ARG1; policies = ARG2; tiers = ARG3; scenario = ARG4; out = ARG5 }
set terminal pngcairo size 1100,800 enhanced font ",10"
set output out
n = words(tiers)
rows = (n + 1) / 2
sc = exists("scenario") ? scenario.": " : ""
set multiplot layout rows, 2 title sc."queueing delay CDF per tier" noenhanced
set grid
set logscale x
set xlabel "wait (min, log scale; waits under 0.01 min at the left edge)"
set ylabel "fraction of started jobs"
set yrange [0:1.02]
set key bottom right
do for [t in tiers] {
    # the wait axis from the data, from 0.01 min; every job of the tier
    # started at once (all waits at the edge) gets a decade, never
    # gnuplot's "empty x range"
    xmax = 0.01
    do for [p in policies] {
        stats datadir.'/wait-'.p.'-'.t.'.dat' using 1 nooutput
        if (STATS_records > 0 && STATS_max > xmax) { xmax = STATS_max }
    }
    set xrange [0.01:(xmax > 0.1 ? xmax : 0.1)]
    set title t
    plot for [p in policies] datadir.'/wait-'.p.'-'.t.'.dat' using ($1 < 0.01 ? 0.01 : $1):2 with steps lw 1.5 title p
}
unset multiplot
