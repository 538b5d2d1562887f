#!/usr/bin/env bash
# Replays of the public T4 spaces of ../shared/t4 (imported with `pimg-tune import`) with the default
# strategy (portfolio) against random search, gp and the genetic algorithm, SEEDS seeds per strategy
# (default 50), runs ended at 1,000 evaluations, at most two replays at a time; then the proposal-time
# benchmark. Writes the tables (*.txt), the markdown sections with convergence plots (*.md, *.svg) and
# proposal-time.txt into this folder. Usage: run.sh [PIMG_TUNE] (default build/...).
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
seeds=${SEEDS:-50}
cap=1000
# Without priors (the case that counts: a store with one device): one device per store.
for d in A100 A4000; do "$tune" import "$t4/convolution_${d}_T4.json.gz" --db "$work/conv-$d.db"; done
"$tune" import "$t4"/dedispersion_A100_T4.json.gz --db "$work/dedisp.db"
# With priors: both convolution devices in one store, so each space's model gets the other's results.
"$tune" import "$t4"/convolution_A100_T4.json.gz "$t4"/convolution_A4000_T4.json.gz --db "$work/conv.db"
run() {  # NAME DB FAMILY STRATEGY...
  local name=$1 db=$2 family=$3
  shift 3
  local args=()
  for s in "$@"; do args+=(--strategy "$s"); done
  "$tune" strategies --db "$db" --family "$family" --seeds "$seeds" --max-evals $cap "${args[@]}" \
    --report "$here/$name.md" > "$here/$name.txt"
}
run conv-A100-alone "$work/conv-A100.db" t4:convolution random portfolio gp genetic &
run conv-A4000-alone "$work/conv-A4000.db" t4:convolution random portfolio gp genetic &
wait
run dedispersion "$work/dedisp.db" t4:dedispersion random portfolio gp &
run conv-with-priors "$work/conv.db" t4:convolution random portfolio gp &
wait
"$bench" --benchmark_filter=ProposalTime > "$here/proposal-time.txt"
