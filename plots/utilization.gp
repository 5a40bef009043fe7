# utilization.gp -- allocated / available GPUs over time, one line per policy
# (mean over the seeds at each sample step).  `gpusim compare` runs it as
#   gnuplot -e "datadir='D'; policies='a b'; tiers='...'; out='D/utilization.png'" utilization.gp
# reading D/util-POLICY.dat (columns: time_h utilization).
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
