#!/usr/bin/env bash
# Replays of the public T4 spaces of ../shared/t4 (imported with `pimg-tune import`, one device per
# store, so no strategy has priors) with the default strategy (portfolio) against random search, gp
# and the genetic algorithm, SEEDS seeds per strategy (default 30) starting at FIRST_SEED (default
# 101: the options were chosen on seeds 1..10, so these runs are disjoint from them), runs ended at
# 1,000 evaluations, at most two replays at a time; then the proposal-time benchmark. Writes the
# tables (*.txt), the markdown sections with convergence plots (*.md, *.svg) and proposal-time.txt
# into this folder. Usage: run.sh [PIMG_TUNE] (default build/...).
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
first=${FIRST_SEED:-101}
cap=1000
for d in A100 A4000; do "$tune" import "$t4/convolution_${d}_T4.json.gz" --db "$work/conv-$d.db"; done
"$tune" import "$t4"/dedispersion_A100_T4.json.gz --db "$work/dedisp.db"
run() {  # NAME DB FAMILY STRATEGY...
  local name=$1 db=$2 family=$3
  shift 3
  local args=()
  for s in "$@"; do args+=(--strategy "$s"); done
  "$tune" strategies --db "$db" --family "$family" --seeds "$seeds" --first-seed "$first" --max-evals $cap \
    "${args[@]}" --report "$here/$name.md" > "$here/$name.txt"
}
run conv-A100 "$work/conv-A100.db" t4:convolution random portfolio gp genetic &
run conv-A4000 "$work/conv-A4000.db" t4:convolution random portfolio gp genetic &
wait
run dedispersion "$work/dedisp.db" t4:dedispersion random portfolio &
"$bench" --benchmark_filter=ProposalTime > "$here/proposal-time.txt"
wait
