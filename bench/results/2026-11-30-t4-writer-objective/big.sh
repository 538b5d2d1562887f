#!/usr/bin/env bash
# BIG-seed replays of the default on the three public T4 spaces, writer's objective. Usage: big.sh PIMG_TUNE OUT
set -euo pipefail
tune=$1 out=$2; mkdir -p $out
t4=/work/shared/t4; w=$(mktemp -d)
for d in A100 A4000; do "$tune" import "$t4/convolution_${d}_T4.json.gz" --db "$w/conv-$d.db" > /dev/null; done
"$tune" import "$t4/dedispersion_A100_T4.json.gz" --db "$w/dedisp.db" > /dev/null
run() { "$tune" strategies --db "$2" --family "$3" --seeds 1000 --first-seed 5001 --max-evals 400 --strategy default --strategy random > "$out/$1.txt"; }
run conv-A100 $w/conv-A100.db t4:convolution &
run conv-A4000 $w/conv-A4000.db t4:convolution &
wait
run dedisp-A100 $w/dedisp.db t4:dedispersion
rm -rf $w
