#!/usr/bin/env bash
# Every replay the ideas of round 7 were judged on (option-choice-runs.txt): both convolution spaces of
# ../shared/t4 (one device per store, no priors), the default strategy (the portfolio), seeds 1..90
# (FIRST=401: seeds 401..490), runs ended at 400 evaluations; one line per row: per space the mean
# fraction of the optimum at 25 / 50 / 100 / 200 / 400 evaluations and the time score [95% CI].
# The ideas are scratch switches read from the environment (scratch.patch; off when unset, so the
# patched build replays the default to the last digit); none was kept. Build pimg-tune with the patch:
#   git worktree add /tmp/r7 00d07a0 && cd /tmp/r7 && git apply bench/results/2026-11-28-t4-strategies-7/scratch.patch
#   cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPIMG_WITH_CUDA=OFF -DPIMG_WITH_OPENCL=OFF \
#     -DPIMG_WITH_MPI=OFF -DPIMG_WITH_OPENCV=OFF -DPIMG_WITH_OPENMP=OFF && cmake --build build --target pimg-tune
# Usage: [REPAIR_TUNE=...] choice.sh PATCHED_PIMG_TUNE [UNPATCHED_PIMG_TUNE for the pure local search rows]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
tune=$1
plain=${2:-$root/build/tuner/app/pimg-tune}
t4=${T4_DIR:-$root/../shared/t4}
[ -d "$t4" ] || t4=$root/../../shared/t4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for d in A100 A4000; do "$plain" import "$t4/convolution_${d}_T4.json.gz" --db "$work/conv-$d.db" > /dev/null; done
row() {  # LABEL [pimg-tune options...]; the environment carries the switches
  local label=$1 line=$1
  shift
  for d in A100 A4000; do
    "$tune" strategies --db "$work/conv-$d.db" --family t4:convolution --strategy default --seeds 90 \
      --first-seed "${FIRST:-1}" --max-evals 400 "$@" > "$work/$d.txt" &
  done
  wait
  for d in A100 A4000; do
    line="$line | $d $(grep -E '^  portfolio +[0-9]\.[0-9]{3} ±' "$work/$d.txt" | awk '{print $2,$4,$6,$8,$10,$(NF-2),$(NF-1),$NF}')"
  done
  echo "$line"
}
row default
# The model: kernel form (1 Matern 5/2, 2 Matern 3/2, 3 exponential; 0 squared exponential), acquisition
# (1 lower confidence bound with GP_BETA, 2 probability of improvement), observation noise.
for k in 1 2 3; do GP_KERNEL=$k row "kernel $k"; done
for b in 0.5 1 2 3; do GP_ACQ=1 GP_BETA=$b row "lcb $b"; done
GP_ACQ=2 row pi
for n in 1e-3 1e-1; do GP_NUGGET=$n row "nugget $n"; done
# The walk ordered by the model (LOCAL_MODEL 1: one-parameter moves, 2: the two-parameter moves kept,
# 3: both; MODEL_SCORE 1: posterior mean, 2: expected improvement), or its moves pruned by it.
for lm in 1 2 3; do for ms in 1 2; do LOCAL_MODEL=$lm MODEL_SCORE=$ms row "walk by model lm=$lm score=$ms"; done; done
for a in 1 2; do LOCAL_ADAPT=$a row "adaptive restart $a"; done
for pr in 0.01 0.03 0.1; do LOCAL_PRUNE=$pr row "prune $pr"; done
row "restart 0" --option portfolio.restart=0
row "restart 0 order 0 pairs 0" --option portfolio.restart=0 --option portfolio.order=0 --option portfolio.local_pairs=0
PORT_PROGRESS=1 row "walk keeps turn while it moves"
PORT_PROGRESS=1 row "walk keeps turn while it moves, restart 0" --option portfolio.restart=0
# A third member: multi-start local search (random restarts, random order, no pairs).
for m in 12 24 48; do MLS_STALL=$m row "mls member $m"; done
for m in 24 48; do for st in 12 24 36; do for ls in 12 24; do
  MLS_STALL=$m row "mls $m stall $st local_stall $ls" --option portfolio.stall=$st --option portfolio.local_stall=$ls
done; done; done
for m in 1 2 3; do PAIR_MODE=$m row "pair promise mode $m"; done
# Adaptive patience (PORT_ADAPT 1 both members, 2 gp, 3 the walk): a turn without a better result
# shrinks the member's next patience by PORT_SHRINK (floor PORT_FLOOR); with gp's memory GP_MAXPTS.
for a in 1 2 3; do PORT_ADAPT=$a row "adapt $a"; done
for a in 1 2; do PORT_ADAPT=$a GP_MAXPTS=96 row "adapt $a maxpts 96"; done
for mp in 80 112 128; do PORT_ADAPT=1 GP_MAXPTS=$mp row "adapt 1 maxpts $mp"; done
for fl in 3 12; do PORT_ADAPT=1 PORT_FLOOR=$fl GP_MAXPTS=96 row "adapt 1 floor $fl maxpts 96"; done
PORT_ADAPT=1 PORT_SHRINK=0.67 GP_MAXPTS=96 row "adapt 1 shrink .67 maxpts 96"
for fl in 3 12; do PORT_ADAPT=1 PORT_FLOOR=$fl GP_MAXPTS=128 row "adapt 1 floor $fl maxpts 128"; done
PORT_ADAPT=1 GP_MAXPTS=144 row "adapt 1 maxpts 144"
PORT_ADAPT=1 PORT_SHRINK=0.33 GP_MAXPTS=128 row "adapt 1 shrink .33 maxpts 128"
# Variable-neighbourhood order: the next best point's one-parameter moves before a centre's pairs.
for dl in 0 0.01 0.03 0.1; do VND_DELTA=$dl row "vnd $dl"; done
# The closest rows again on a second set of seeds.
FIRST=401 row "S401 default"
FIRST=401 PORT_ADAPT=1 row "S401 adapt 1"
FIRST=401 PORT_ADAPT=1 GP_MAXPTS=128 row "S401 adapt 1 maxpts 128"
FIRST=401 PORT_ADAPT=1 GP_MAXPTS=96 row "S401 adapt 1 maxpts 96"
FIRST=401 GP_MAXPTS=128 row "S401 maxpts 128"
# A space-filling start (the farthest of GP_MAXIMIN random points, GP_INIT of them).
for mm in 16 64; do for init in 8 16; do GP_MAXIMIN=$mm GP_INIT=$init row "maximin $mm init $init"; done; done
GP_INIT=16 row "init 16 random"
# Regime search: after REGIME_AFTER evaluations without a better result, gp's proposals keep one
# parameter off the best point's value (REGIME_LEN proposals per parameter, shortest length first).
for ra in 24 48; do for rl in 6 12; do REGIME_AFTER=$ra REGIME_LEN=$rl row "regime after $ra len $rl"; done; done
REGIME_AFTER=24 REGIME_LEN=3 row "regime after 24 len 3"
REGIME_AFTER=24 REGIME_LEN=6 REGIME_MODE=1 row "regime after 24 len 6 natural order"
REGIME_AFTER=12 REGIME_LEN=6 row "regime after 12 len 6"
FIRST=401 REGIME_AFTER=24 REGIME_LEN=6 row "S401 regime after 24 len 6"
# How failures are learnt, a margin for the length fit, derived product dimensions, expected
# improvement averaged over length fits.
GP_FAIL_MODE=1 row "failures not learnt by gp"
GP_FAIL_STEP=0 row "failures at the slowest"
for m in 0.5 1 2 4; do GP_LEN_MARGIN=$m row "length margin $m"; done
GP_DERIVED=2 row "derived: log(bx*by) only (first pair)"
GP_DERIVED=1 row "derived: every pair of integer parameters"
GP_IEI=2 row "integrated EI over the current and the previous length fit"
GP_IEI=4 row "integrated EI over the current and three previous length fits"
# The rows of repair-nearest.patch (its own build, REPAIR_TUNE), when given.
if [ -n "${REPAIR_TUNE:-}" ]; then
  main_tune=$tune
  tune=$REPAIR_TUNE
  REPAIR_MODE=1 row "repair nearest"
  REPAIR_MODE=2 row "repair radius 1 then sampling"
  FIRST=401 REPAIR_MODE=1 row "S401 repair nearest"
  tune=$main_tune
fi
# Pure local search (unpatched; multi-start with any-value moves is the A4000's fastest at 200).
for opts in "restart=0" "restart=0 pairs=1" "restart=0 order=1 pairs=1"; do
  args=(--option local.any_value=1)
  for o in $opts; do args+=(--option "local.$o"); done
  line="local any_value=1 $opts"
  for d in A100 A4000; do
    "$plain" strategies --db "$work/conv-$d.db" --family t4:convolution --strategy local --seeds 90 --max-evals 400 "${args[@]}" > "$work/$d.txt" &
  done
  wait
  for d in A100 A4000; do
    line="$line | $d $(grep -E '^  local +[0-9]\.[0-9]{3} ±' "$work/$d.txt" | awk '{print $2,$4,$6,$8,$10,$(NF-2),$(NF-1),$NF}')"
  done
  echo "$line"
done
