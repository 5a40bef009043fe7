# latency_cdf.gp -- the inference services' time to first token and
# inter-token latency, a CDF per policy (every request of every service and
# seed).  Variables: datadir, policies, tiers (here the panels: "ttft" and,
# when a request had one, "itl"), out.  Reads D/ttft-POLICY.dat and
# D/itl-POLICY.dat (columns: seconds cdf; "0 0" when a policy had none).
# gpusim runs it as  gnuplot -c SCRIPT DATADIR POLICIES PANELS SCENARIO OUT
# (its strings arrive as arguments, never as code: sim/io/gnuplot.h).
if (ARGC >= 5) { datadir = ARG1; policies = ARG2; tiers = ARG3; scenario = ARG4; out = ARG5 }
set terminal pngcairo size 1100,480 enhanced font ",10"
set output out
sc = exists("scenario") ? scenario.": " : ""
set multiplot layout 1, words(tiers) title sc."inference latency CDF (every service and seed)" noenhanced
set grid
set logscale x
set ylabel "fraction of requests"
set yrange [0:1.02]
set key bottom right
lo = 1e-4          # seconds: shorter values sit at the left edge
do for [m in tiers] {
    xmax = lo
    do for [p in policies] {
        stats datadir.'/'.m.'-'.p.'.dat' using 1 nooutput
        if (STATS_records > 0 && STATS_max > xmax) { xmax = STATS_max }
    }
    set xrange [lo:(xmax > 10 * lo ? xmax * 1.2 : 10 * lo)]
    set title (m eq "ttft" ? "time to first token" : "inter-token latency")
    set xlabel (m eq "ttft" ? "TTFT (s, log scale)" : "ITL (s, log scale)")
    plot for [p in policies] datadir.'/'.m.'-'.p.'.dat' using ($1 < lo ? lo : $1):2 with steps lw 1.5 title p
}
unset multiplot
