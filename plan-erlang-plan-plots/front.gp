# gpusim plan's front: gnuplot -c front.gp /ABSOLUTE/DIR, or in DIR: gnuplot front.gp
d = ARGC >= 1 ? ARG1 : '.'
set terminal pngcairo size 1000,650 noenhanced
set output d.'/front.png'
set title 'gpusim plan: cost against SLA attainment (each point a fleet; the front labelled)'
set xlabel 'cost, $ per hour'
set ylabel 'SLA attainment (share of jobs and requests within their targets)'
set xrange [38.912000:217.088000]
set yrange [0.80:1.04]
set key bottom right
set grid
plot d.'/candidates.dat' using 1:2:3 with yerrorbars pt 7 ps 0.6 title 'candidates (95% CI)', \
     d.'/front.dat' using 1:2 with linespoints lw 2 pt 6 title 'Pareto front', \
     d.'/front.dat' using 1:($2 + (int($0) % 2 ? -0.012 : 0.012)):3 with labels left offset 0.8,0 font ',8' notitle, \
     '-' using 1:2 with points pt 5 ps 2 lc rgb 'red' title 'the plan: cheapest feasible'
61.440000 0.997761
e
