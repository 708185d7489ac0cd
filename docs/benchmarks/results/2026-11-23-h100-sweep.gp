set terminal png size 900,900
set output 'docs/benchmarks/results/2026-11-23-h100-sweep.png'
set multiplot layout 2,1 title 'warpwatch bench e2e on the H100 host (16 cores): 8 patterns, m 64, frames of 100, as fast as possible'
set logscale x
set grid
set key outside right
set xlabel 'streams'
set ylabel 'samples/s (accepted and matched)'
set format y '%.1s%c'
plot 'docs/benchmarks/results/2026-11-23-h100-sweep.dat' index 0 using 1:2 with linespoints title 'cuda', 'docs/benchmarks/results/2026-11-23-h100-sweep.dat' index 1 using 1:2 with linespoints title 'cpu'
set ylabel 'p99 detection latency (ms)'
set format y '%g'
plot 'docs/benchmarks/results/2026-11-23-h100-sweep.dat' index 0 using 1:3 with linespoints title 'cuda', 'docs/benchmarks/results/2026-11-23-h100-sweep.dat' index 1 using 1:3 with linespoints title 'cpu'
unset multiplot
