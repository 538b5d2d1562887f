#!/usr/bin/env bash
# Replays of the public T4 spaces of ../shared/t4 (imported with `pimg-tune import`, one device per
# store, so no strategy has priors) with the default search strategy (`default`, the portfolio;
# round 8's defaults: gp's power-of-two dimension, `follow` 1, `local_stall` 12):
#  - the three held-out seed sets of every round, FIRST_SEEDS (default "101 201 301"), SEEDS seeds
#    each (default 30), against random search, gp and the genetic algorithm, runs ended at 1,000
#    evaluations, with the markdown sections and convergence plots;
#  - one fresh set of BIG seeds (default 1000, seeds 3001..4000, never used to choose anything), the
#    default against random search, runs ended at 400 evaluations: each cell's mean with a standard
#    error of about 0.003, so a cell near the bar is judged on its mean, not on one 30-seed draw;
#  - dedispersion; then the proposal-time benchmark against the 1 ms bar (scripts/proposal-time.sh,
#    three times, nothing else running); TIMINGS=0 leaves it out (and proposal-time.txt as it is).
# The options were chosen on seeds 1..90, 401..490 and 1001..1300 (choice.sh, option-choice-runs.txt).
# Usage: run.sh [PIMG_TUNE] (default build/...).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
tune=${1:-$root/build/tuner/app/pimg-tune}
bench=$(dirname "$tune")/../../bench/pimg_strategy_bench
# ../shared beside the checkout, or beside the folder of worktrees; T4_DIR overrides.
t4=${T4_DIR:-$root/../shared/t4}
[ -d "$t4" ] || t4=$root/../../shared/t4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
seeds=${SEEDS:-30}
for d in A100 A4000; do "$tune" import "$t4/convolution_${d}_T4.json.gz" --db "$work/conv-$d.db"; done
"$tune" import "$t4"/dedispersion_A100_T4.json.gz --db "$work/dedisp.db"
run() {  # NAME FIRST SEEDS CAP DB FAMILY -- STRATEGY...
  local name=$1 first=$2 n=$3 cap=$4 db=$5 family=$6
  shift 7
  local args=()
  for s in "$@"; do args+=(--strategy "$s"); done
  "$tune" strategies --db "$db" --family "$family" --seeds "$n" --first-seed "$first" --max-evals "$cap" \
    "${args[@]}" --report "$here/$name.md" > "$here/$name.txt"
}
for first in ${FIRST_SEEDS:-101 201 301}; do
  last=$((first + seeds - 1))
  run "conv-A100-seeds-$first-$last" "$first" "$seeds" 1000 "$work/conv-A100.db" t4:convolution -- random default gp genetic &
  run "conv-A4000-seeds-$first-$last" "$first" "$seeds" 1000 "$work/conv-A4000.db" t4:convolution -- random default gp genetic &
  wait
done
big=${BIG:-1000}
run "conv-A100-seeds-3001-$((3000 + big))" 3001 "$big" 400 "$work/conv-A100.db" t4:convolution -- random default &
run "conv-A4000-seeds-3001-$((3000 + big))" 3001 "$big" 400 "$work/conv-A4000.db" t4:convolution -- random default &
wait
run dedispersion 101 "$seeds" 1000 "$work/dedisp.db" t4:dedispersion -- random default
# Timings last, with nothing else running: the benchmark (20 proposals after 50 / 200 / 400
# outcomes) and its check against the bar, three times.
[ "${TIMINGS:-1}" = 0 ] && exit 0
for i in 1 2 3; do bash "$root/scripts/proposal-time.sh" "$(dirname "$bench")/.." || true; done > "$here/proposal-time.txt"
