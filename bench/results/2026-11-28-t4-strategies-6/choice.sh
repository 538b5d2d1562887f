#!/usr/bin/env bash
# The replays the ideas of this round were judged on (seeds 1..90, both convolution spaces of
# ../shared/t4, one device per store, runs ended at 400 evaluations), as option-choice-runs.txt lists
# them. The options exist at commits 8a8f770 (kick, triples, far, forest_stall, thompson), 96f125e
# (sample_lengths, cap), 6568129 (the portfolio's max_points), 4fcbecb (forget, forget_points) and
# 9b059d1 (short_memory) only; they were taken out again, none beat the default. Build pimg-tune at
# the five and pass them.
# Usage: choice.sh TUNE_AT_8a8f770 TUNE_AT_96f125e TUNE_AT_6568129 TUNE_AT_4fcbecb TUNE_AT_9b059d1
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
tune=$1
tune_b=$2
tune_c=$3
tune_d=$4
tune_e=$5
t4=${T4_DIR:-$root/../shared/t4}
[ -d "$t4" ] || t4=$root/../../shared/t4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for d in A100 A4000; do "$tune" import "$t4/convolution_${d}_T4.json.gz" --db "$work/conv-$d.db" > /dev/null; done
row() {  # LABEL [--option portfolio.X=V ...]: one line, per space the means at 25..400 and the time score
  local label=$1
  shift
  local line="$label"
  for d in A100 A4000; do
    "$tune" strategies --db "$work/conv-$d.db" --family t4:convolution --strategy default --seeds 90 --first-seed 1 \
      --max-evals 400 "$@" > "$work/$d.txt" &
  done
  wait
  for d in A100 A4000; do
    line="$line | $d $(grep -E '^  portfolio +[0-9]\.[0-9]{3} ±' "$work/$d.txt" | awk '{print $2,$4,$6,$8,$10,$(NF-2),$(NF-1),$NF}')"
  done
  echo "$line"
}
p() { echo "--option portfolio.$1"; }
row default
row "kick 3, escape 24" $(p escape=24) $(p kick=3)
row "kick 3, escape 48" $(p escape=48) $(p kick=3)
row "triples 64" $(p triples=64)
row "triples 128" $(p triples=128)
row "far 24" $(p far=24)
row "far 48" $(p far=48)
row "forest 12" $(p forest_stall=12)
row "forest 24" $(p forest_stall=24)
row "thompson 0.25" $(p thompson=0.25)
row "thompson 0.5" $(p thompson=0.5)
row "restart 0.5" $(p restart=0.5)
row "restart 0.5, no pairs" $(p restart=0.5) $(p local_pairs=0)
row "far 24, kick 3, escape 48" $(p far=24) $(p escape=48) $(p kick=3)
row "far 24, escape 48" $(p far=24) $(p escape=48)
row "far 24, restart 0.5, no pairs" $(p far=24) $(p restart=0.5) $(p local_pairs=0)
row "candidates 4096" $(p candidates=4096)
row "order 0.75" $(p order=0.75)
row "order 0.5" $(p order=0.5)
tune=$tune_b
row "sample lengths" $(p sample_lengths=1)
row "cap 0.5" $(p cap=0.5)
row "cap 0.75" $(p cap=0.75)
row "cap 0.9" $(p cap=0.9)
tune=$tune_c
row "max points 96" $(p max_points=96)
row "max points 128" $(p max_points=128)
row "max points 64" $(p max_points=64)
tune=$tune_d
row "forget 48, keep 64" $(p forget=48)
row "forget 24, keep 64" $(p forget=24)
row "forget 48, keep 32" $(p forget=48) $(p forget_points=32)
row "forget 72, keep 64" $(p forget=72)
row "forget 96, keep 64" $(p forget=96)
row "forget 48, keep 96" $(p forget=48) $(p forget_points=96)
tune=$tune_e
row "short memory 64" $(p short_memory=64)
row "short memory 96" $(p short_memory=96)
