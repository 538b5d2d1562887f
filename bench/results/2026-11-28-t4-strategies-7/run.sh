#!/usr/bin/env bash
# Replays of the public T4 spaces of ../shared/t4 (imported with `pimg-tune import`, one device per
# store, so no strategy has priors) with the default search strategy (`default`, the portfolio)
# against random search, gp and the genetic algorithm, SEEDS seeds per strategy (default 30) on
# three held-out seed sets, FIRST_SEEDS (default "101 201 301": the ideas of this round were judged
# on seeds 1..90 and 401..490, choice.sh; none beat the default, which is unchanged), runs ended at
# 1,000 evaluations, at most two replays at a time; dedispersion; then the proposal-time benchmark,
# checked against the 1 ms bar by scripts/proposal-time.sh (three times). Writes the tables (*.txt),
# the markdown sections with convergence plots (*.md, *.svg) and proposal-time.txt into this folder.
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
cap=1000
for d in A100 A4000; do "$tune" import "$t4/convolution_${d}_T4.json.gz" --db "$work/conv-$d.db"; done
"$tune" import "$t4"/dedispersion_A100_T4.json.gz --db "$work/dedisp.db"
run() {  # NAME FIRST DB FAMILY [--option ...] -- STRATEGY...
  local name=$1 first=$2 db=$3 family=$4
  shift 4
  local args=()
  while [ "$1" != -- ]; do args+=("$1"); shift; done
  shift
  for s in "$@"; do args+=(--strategy "$s"); done
  "$tune" strategies --db "$db" --family "$family" --seeds "$seeds" --first-seed "$first" --max-evals $cap \
    "${args[@]}" --report "$here/$name.md" > "$here/$name.txt"
}
for first in ${FIRST_SEEDS:-101 201 301}; do
  last=$((first + seeds - 1))
  run "conv-A100-seeds-$first-$last" "$first" "$work/conv-A100.db" t4:convolution -- random default gp genetic &
  run "conv-A4000-seeds-$first-$last" "$first" "$work/conv-A4000.db" t4:convolution -- random default gp genetic &
  wait
done
run dedispersion 101 "$work/dedisp.db" t4:dedispersion -- random default
# Timings last, with nothing else running: the benchmark (20 proposals after 50 / 200 / 400
# outcomes) and its check against the bar, three times.
for i in 1 2 3; do bash "$root/scripts/proposal-time.sh" "$(dirname "$bench")/.." || true; done > "$here/proposal-time.txt"
