#!/usr/bin/env bash
# 1,000 fresh seeds (7001..8000) of the default and of random search on the three public T4 spaces, writer's
# objective, runs ended at 400 evaluations. Usage: big.sh PIMG_TUNE OUT TAG [--option portfolio.basin_stall=100]
# base: big.sh build/tuner/app/pimg-tune OUT base; restart: ... OUT basin100 --option portfolio.basin_stall=100
set -euo pipefail
tune=$1 out=$2 tag=$3; shift 3; mkdir -p $out
t4=/work/shared/t4; w=$(mktemp -d)
for d in A100 A4000; do "$tune" import "$t4/convolution_${d}_T4.json.gz" --db "$w/conv-$d.db" > /dev/null; done
"$tune" import "$t4/dedispersion_A100_T4.json.gz" --db "$w/dedisp.db" > /dev/null
run() { nice "$tune" strategies --db "$2" --family "$3" --seeds 1000 --first-seed 7001 --max-evals 400 --strategy default --strategy random "${@:4}" > "$out/$tag-$1.txt"; }
run conv-A100 $w/conv-A100.db t4:convolution "$@"
run conv-A4000 $w/conv-A4000.db t4:convolution "$@"
run dedisp-A100 $w/dedisp.db t4:dedispersion "$@"
rm -rf $w
