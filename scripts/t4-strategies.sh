#!/usr/bin/env bash
# The search strategies' recurring experiment (issue 22, rounds 1-8): replays of the public T4 spaces of
# ../shared/t4 (imported with `pimg-tune import`, one device per store, so no strategy has priors) with the
# default search strategy (`default`, the portfolio) against random search, gp and the genetic algorithm.
# Round 8's bench/results/2026-11-28-t4-strategies-8/run.sh made general: the folder it writes is an argument,
# not the folder the script lies in. Rounds 1-7 ran their own frozen copies (each folder's README names the
# commit: `git show COMMIT:bench/results/FOLDER/run.sh`).
#  - the three held-out seed sets of every round, FIRST_SEEDS (default "101 201 301"), SEEDS seeds each
#    (default 30), against random search, gp and the genetic algorithm, runs ended at 1,000 evaluations,
#    with the markdown sections (*.md) and convergence plots (*.svg, not committed: this script makes them);
#  - one fresh set of BIG seeds (default 1000, seeds 3001..3000+BIG, never used to choose anything; BIG=0
#    leaves it out), the default against random search, runs ended at 400 evaluations: each cell's mean with
#    a standard error of about 0.003, so a cell near the bar is judged on its mean, not on one 30-seed draw;
#  - dedispersion; then the proposal-time benchmark against the 1 ms bar (scripts/proposal-time.sh, three
#    times, nothing else running); TIMINGS=0 leaves it out (and OUT_DIR/proposal-time.txt as it is).
# Writes the tables (*.txt), the markdown sections with their plots and proposal-time.txt into OUT_DIR.
# Usage: scripts/t4-strategies.sh OUT_DIR [PIMG_TUNE]   (default build/tuner/app/pimg-tune; T4_DIR overrides
# where the T4 files are: ../shared/t4 beside the checkout, or beside the folder of worktrees).
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: scripts/t4-strategies.sh OUT_DIR [PIMG_TUNE]" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$1"
out=$(cd "$1" && pwd)
tune=${2:-$root/build/tuner/app/pimg-tune}
[ -x "$tune" ] || { echo "t4-strategies.sh: $tune not found: build first (scripts/build.sh)" >&2; exit 2; }
tune=$(cd "$(dirname "$tune")" && pwd)/$(basename "$tune")
bench=$(dirname "$tune")/../../bench/pimg_strategy_bench
t4=${T4_DIR:-$root/../shared/t4}
[ -d "$t4" ] || t4=$root/../../shared/t4
[ -d "$t4" ] || { echo "t4-strategies.sh: no T4 files at $t4 (set T4_DIR)" >&2; exit 2; }
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
    "${args[@]}" --report "$out/$name.md" > "$out/$name.txt"
}
for first in ${FIRST_SEEDS:-101 201 301}; do
  last=$((first + seeds - 1))
  run "conv-A100-seeds-$first-$last" "$first" "$seeds" 1000 "$work/conv-A100.db" t4:convolution -- random default gp genetic &
  run "conv-A4000-seeds-$first-$last" "$first" "$seeds" 1000 "$work/conv-A4000.db" t4:convolution -- random default gp genetic &
  wait
done
big=${BIG:-1000}
if [ "$big" -gt 0 ]; then
  run "conv-A100-seeds-3001-$((3000 + big))" 3001 "$big" 400 "$work/conv-A100.db" t4:convolution -- random default &
  run "conv-A4000-seeds-3001-$((3000 + big))" 3001 "$big" 400 "$work/conv-A4000.db" t4:convolution -- random default &
  wait
fi
run dedispersion 101 "$seeds" 1000 "$work/dedisp.db" t4:dedispersion -- random default
# Timings last, with nothing else running: the benchmark (20 proposals after 50 / 200 / 400
# outcomes) and its check against the bar, three times.
[ "${TIMINGS:-1}" = 0 ] && exit 0
for i in 1 2 3; do bash "$root/scripts/proposal-time.sh" "$(dirname "$bench")/.." || true; done > "$out/proposal-time.txt"
