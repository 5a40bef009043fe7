# cost_sla.gp -- cost against SLA violations, one point per run (policy x
# seed).  Variables: datadir, policies, out.  Reads D/cost_sla-POLICY.dat
# (columns: cost_usd sla_violations wait_mean_s).  When every run costs the
# same (a fixed fleet billed over the same window), a cost axis says
# nothing: the plot is then SLA violations and the mean wait by policy, one
# point per seed, and the title gives the one cost.  Every axis range is set
# from the data, so a single seed or all-equal values never give gnuplot's
# "empty range" warnings.
# gpusim runs it as  gnuplot -c SCRIPT DATADIR POLICIES TIERS SCENARIO OUT
# (its strings arrive as arguments, never as code: sim/io/gnuplot.h);
# by hand, gnuplot -e "datadir='D'; policies='a b'; ..." SCRIPT works too.
if (ARGC >= 5) { datadir = ARG1; policies = ARG2; tiers = ARG3; scenario = ARG4; out = ARG5 }
set terminal pngcairo size 1000,560 noenhanced font ",10"
set output out
sc = exists("scenario") ? scenario.": " : ""
xmin = 1e300; xmax = -1e300; smax = 0; wmax = 0
do for [i = 1:words(policies)] {
    stats datadir.'/cost_sla-'.word(policies, i).'.dat' using 1 nooutput
    if (STATS_records > 0 && STATS_min < xmin) { xmin = STATS_min }
    if (STATS_records > 0 && STATS_max > xmax) { xmax = STATS_max }
    stats datadir.'/cost_sla-'.word(policies, i).'.dat' using 2 nooutput
    if (STATS_records > 0 && STATS_max > smax) { smax = STATS_max }
    stats datadir.'/cost_sla-'.word(policies, i).'.dat' using 3 nooutput
    if (STATS_records > 0 && STATS_max > wmax) { wmax = STATS_max }
}
# counts from 0, with room above the highest point (1 when all are 0)
set yrange [0:(smax > 0 ? smax * 1.1 : 1)]
set grid
if (xmax - xmin <= 1e-9 * abs(xmax)) {
    set multiplot layout 1, 2 title sprintf("%severy run costs $%.2f: SLA violations and waits by policy (one point per seed)", sc, xmax)
    set xrange [0.5:words(policies) + 0.5]
    set xtics 1
    set xtics ()
    do for [i = 1:words(policies)] { set xtics add (word(policies, i) i) }
    set xlabel "policy"
    set key off
    set title "SLA violations (wait limit + deadline)"
    set ylabel "jobs"
    plot for [i = 1:words(policies)] datadir.'/cost_sla-'.word(policies, i).'.dat' using (i):2 with points pt 7 ps 1.2 title word(policies, i)
    set title "mean queueing delay"
    set ylabel "wait (s)"
    set yrange [0:(wmax > 0 ? wmax * 1.1 : 1)]
    plot for [i = 1:words(policies)] datadir.'/cost_sla-'.word(policies, i).'.dat' using (i):3 with points pt 7 ps 1.2 title word(policies, i)
    unset multiplot
} else {
    set title sc."cost against SLA violations (one point per seed)"
    set xlabel "cost (USD)"
    set ylabel "SLA violations (wait limit + deadline)"
    pad = (xmax - xmin) * 0.05
    set xrange [xmin - pad:xmax + pad]
    set key outside right top
    plot for [p in policies] datadir.'/cost_sla-'.p.'.dat' using 1:2 with points pt 7 ps 1.2 title p
}
