set terminal png size 900,900
set output 'docs/benchmarks/results/2026-11-23-h100-e2e-sweep-64x128-hub.png'
set multiplot layout 2,1 title 'warpwatch bench e2e: 64 patterns, m 128'
set logscale x
set grid
set key outside right
set xlabel 'streams'
set ylabel 'samples/s (accepted and matched)'
set format y '%.1s%c'
plot 'docs/benchmarks/results/2026-11-23-h100-e2e-sweep-64x128-hub.dat' index 0 using 1:2 with linespoints title 'cpu', 'docs/benchmarks/results/2026-11-23-h100-e2e-sweep-64x128-hub.dat' index 1 using 1:2 with linespoints title 'cuda'
set ylabel 'p99 detection latency (ms)'
set format y '%g'
plot 'docs/benchmarks/results/2026-11-23-h100-e2e-sweep-64x128-hub.dat' index 0 using 1:3 with linespoints title 'cpu', 'docs/benchmarks/results/2026-11-23-h100-e2e-sweep-64x128-hub.dat' index 1 using 1:3 with linespoints title 'cuda'
unset multiplot
