#!/usr/bin/env bash
# Replays of the public T4 spaces of ../shared/t4 (imported with `pimg-tune import`), 30 seeds per
# strategy, runs ended at 1,000 evaluations. Writes the tables (*.txt) and the markdown sections with
# convergence plots (*.md, *.svg) into this folder. Usage: run.sh [PIMG_TUNE] (default build/...).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
tune=${1:-$root/build/tuner/app/pimg-tune}
# ../shared beside the checkout, or beside the folder of worktrees; T4_DIR overrides.
t4=${T4_DIR:-$root/../shared/t4}
[ -d "$t4" ] || t4=$root/../../shared/t4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
seeds=30
cap=1000
# With priors: both convolution devices in one store, so each space's gp gets the other's results.
"$tune" import "$t4"/convolution_A100_T4.json.gz "$t4"/convolution_A4000_T4.json.gz --db "$work/conv.db"
# Without priors: one device per store.
for d in A100 A4000; do "$tune" import "$t4/convolution_${d}_T4.json.gz" --db "$work/conv-$d.db"; done
"$tune" import "$t4"/dedispersion_A100_T4.json.gz --db "$work/dedisp.db"
run() {  # NAME DB FAMILY STRATEGY...
  local name=$1 db=$2 family=$3
  shift 3
  local args=()
  for s in "$@"; do args+=(--strategy "$s"); done
  "$tune" strategies --db "$db" --family "$family" --seeds $seeds --max-evals $cap "${args[@]}" \
    --report "$here/$name.md" > "$here/$name.txt"
}
run conv-with-priors "$work/conv.db" t4:convolution random gp genetic diffevo local &
run conv-A100-alone "$work/conv-A100.db" t4:convolution random gp &
wait
run conv-A4000-alone "$work/conv-A4000.db" t4:convolution random gp &
run dedispersion "$work/dedisp.db" t4:dedispersion random gp &
wait
