# cost_sla.gp -- cost against SLA violations, one point per run (policy x
# seed).  Variables: datadir, policies, out.  Reads D/cost_sla-POLICY.dat
# (columns: cost_usd sla_violations).
# gpusim runs it as  gnuplot -c SCRIPT DATADIR POLICIES TIERS SCENARIO OUT
# (its strings arrive as arguments, never as code: sim/io/gnuplot.h);
# by hand, gnuplot -e "datadir='D'; policies='a b'; ..." SCRIPT works too.
if (ARGC >= 5) { datadir = ARG1; policies = ARG2; tiers = ARG3; scenario = ARG4; out = ARG5 }
set terminal pngcairo size 900,600 enhanced font ",10"
set output out
sc = exists("scenario") ? scenario.": " : ""
set title sc."cost against SLA violations (one point per seed)" noenhanced
set xlabel "cost (USD)"
set ylabel "SLA violations (wait limit + deadline)"
set grid
set key outside right top
plot for [p in policies] datadir.'/cost_sla-'.p.'.dat' using 1:2 with points pt 7 ps 1.2 title p
