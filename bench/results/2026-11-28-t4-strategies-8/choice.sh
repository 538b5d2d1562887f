#!/usr/bin/env bash
# Every replay round 8's options were chosen on (option-choice-runs.txt): both convolution spaces of
# ../shared/t4 (one device per store, no priors), the default strategy (the portfolio), runs ended at
# 400 evaluations; one line per row: per space the mean fraction of the optimum at 25 / 50 / 100 / 200
# / 400 evaluations and the time score [95% CI]. Rows name their seeds. The ideas not kept are
# scratch switches (scratch.patch against 5e76c9f: local search's `flip`, FLIP_PAIRS, GP_POW2_MIN,
# GP_POW2_LEN; off or at the committed value when unset, so the patched build replays the committed
# default to the last digit). Build pimg-tune with the patch:
#   git worktree add /tmp/r8 5e76c9f && cd /tmp/r8 && git apply bench/results/2026-11-28-t4-strategies-8/scratch.patch
#   cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPIMG_WITH_CUDA=OFF -DPIMG_WITH_OPENCL=OFF \
#     -DPIMG_WITH_MPI=OFF -DPIMG_WITH_OPENCV=OFF -DPIMG_WITH_OPENMP=OFF && cmake --build build --target pimg-tune
# Usage: choice.sh PATCHED_PIMG_TUNE
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
tune=$1
t4=${T4_DIR:-$root/../shared/t4}
[ -d "$t4" ] || t4=$root/../../shared/t4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for d in A100 A4000; do "$tune" import "$t4/convolution_${d}_T4.json.gz" --db "$work/conv-$d.db" > /dev/null; done
row() {  # LABEL FIRST SEEDS [pimg-tune options...]; the environment carries the switches
  local label=$1 first=$2 seeds=$3 line="$1 (seeds $2..$(($2 + $3 - 1)))"
  shift 3
  for d in A100 A4000; do
    "$tune" strategies --db "$work/conv-$d.db" --family t4:convolution --strategy default --seeds "$seeds" \
      --first-seed "$first" --max-evals 400 "$@" > "$work/$d.txt" &
  done
  wait
  for d in A100 A4000; do
    line="$line | $d $(grep -E '^  portfolio +[0-9]\.[0-9]{3} ±' "$work/$d.txt" | awk '{print $2,$4,$6,$8,$10,$(NF-2),$(NF-1),$NF}')"
  done
  echo "$line"
}
old=(--option portfolio.pow2=0 --option portfolio.follow=0 --option portfolio.local_stall=24)  # round 7's default
# Regime walks (local search's `flip`): at the best local optimum, one parameter of at most 2 (4) values
# changed and the walk continued with it held (FLIP_PAIRS=0: no two-parameter moves while held).
row "round 7 default" 1 90 "${old[@]}"
row "flip 2" 1 90 "${old[@]}" --option portfolio.flip=2
row "flip 4" 1 90 "${old[@]}" --option portfolio.flip=4
FLIP_PAIRS=0 row "flip 2, no pairs while held" 1 90 "${old[@]}" --option portfolio.flip=2
# gp's power-of-two dimension (GP_POW2_LEN: its first length; GP_POW2_MIN: powers of two and others
# a parameter needs, 1 also takes tile sizes 1..4).
row "pow2" 1 90 "${old[@]}" --option portfolio.pow2=1
for l in 0.6 1 10; do GP_POW2_LEN=$l row "pow2, first length $l" 1 90 "${old[@]}" --option portfolio.pow2=1; done
GP_POW2_MIN=1 row "pow2, min 1" 1 90 "${old[@]}" --option portfolio.pow2=1
row "round 7 default" 401 90 "${old[@]}"
row "pow2" 401 90 "${old[@]}" --option portfolio.pow2=1
row "pow2, follow 1" 1 90 "${old[@]}" --option portfolio.pow2=1 --option portfolio.follow=1
row "pow2, stall 16" 1 90 "${old[@]}" --option portfolio.pow2=1 --option portfolio.stall=16
# 300 seeds, 1001..1300.
row "round 7 default" 1001 300 "${old[@]}"
row "pow2" 1001 300 "${old[@]}" --option portfolio.pow2=1
row "pow2, follow 1" 1001 300 "${old[@]}" --option portfolio.pow2=1 --option portfolio.follow=1
row "pow2, follow 1, flip 2" 1001 300 "${old[@]}" --option portfolio.pow2=1 --option portfolio.follow=1 --option portfolio.flip=2
for ls in 8 16 36; do
  row "pow2, follow 1, local_stall $ls" 1001 300 --option portfolio.local_stall=$ls
done
row "pow2, follow 1, stall 36" 1001 300 "${old[@]}" --option portfolio.pow2=1 --option portfolio.follow=1 --option portfolio.stall=36
row "pow2, follow 1, learn 3" 1001 300 "${old[@]}" --option portfolio.pow2=1 --option portfolio.follow=1 --option portfolio.learn=3
GP_POW2_MIN=1 row "pow2 min 1, follow 1, local_stall 16" 1001 300 --option portfolio.local_stall=16
row "pow2, follow 1, local_stall 16, stall 16" 1001 300 --option portfolio.local_stall=16 --option portfolio.stall=16
# The committed default (pow2 1, follow 1, local_stall 12), its neighbours and what each part adds.
row "default" 1001 300
row "default" 1 90
row "default" 401 90
row "default, follow 0" 1001 300 --option portfolio.follow=0
row "default, pow2 0" 1001 300 --option portfolio.pow2=0
for o in stall=20 stall=28 candidates=384 learn=3 local_stall=14; do row "default, $o" 1001 300 --option portfolio.$o; done
# The fresh set of run.sh, with round 7's default beside the committed one.
row "round 7 default" 3001 1000 "${old[@]}"
