#!/usr/bin/env bash
# 1,000 fresh seeds (9001..10000) of the default on the three public T4 spaces, writer's objective, runs ended at
# 400 evaluations. Usage: big.sh PIMG_TUNE OUT TAG [--option portfolio.pair_turn=0|1]
# old: big.sh build/tuner/app/pimg-tune OUT old --option portfolio.pair_turn=0; new: ... OUT new --option portfolio.pair_turn=1
# With below.patch applied (not committed to the tool), PIMG_BELOW=1 prints each budget's count of seeds below 0.97
# of the optimum to stderr: $tag-$space.below.txt.
set -euo pipefail
tune=$1 out=$2 tag=$3; shift 3; mkdir -p $out
t4=/work/shared/t4; w=$(mktemp -d)
for d in A100 A4000; do "$tune" import "$t4/convolution_${d}_T4.json.gz" --db "$w/conv-$d.db" > /dev/null; done
"$tune" import "$t4/dedispersion_A100_T4.json.gz" --db "$w/dedisp.db" > /dev/null
run() { PIMG_BELOW=1 nice "$tune" strategies --db "$2" --family "$3" --seeds 1000 --first-seed 9001 --max-evals 400 --strategy default "${@:4}" > "$out/$tag-$1.txt" 2> "$out/$tag-$1.below.txt"; }
run conv-A100 $w/conv-A100.db t4:convolution "$@"
run conv-A4000 $w/conv-A4000.db t4:convolution "$@"
run dedisp-A100 $w/dedisp.db t4:dedispersion "$@"
rm -rf $w
