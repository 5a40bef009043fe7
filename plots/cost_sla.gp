# cost_sla.gp -- cost against SLA violations, one point per run (policy x
# seed).  Variables: datadir, policies, out.  Reads D/cost_sla-POLICY.dat
# (columns: cost_usd sla_violations).
set terminal pngcairo size 900,600 enhanced font ",10"
set output out
sc = exists("scenario") ? scenario.": " : ""
set title sc."cost against SLA violations (one point per seed)" noenhanced
set xlabel "cost (USD)"
set ylabel "SLA violations (wait limit + deadline)"
set grid
set key outside right top
plot for [p in policies] datadir.'/cost_sla-'.p.'.dat' using 1:2 with points pt 7 ps 1.2 title p
