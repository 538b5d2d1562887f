#!/usr/bin/env bash
# A/B: old (vector buffers) vs new (placed buffers), interleaved fresh processes. Usage: ab.sh OUT N
set -u
out=$1 n=$2
space=${SPACE:-/work/main/bench/results/2026-11-30-cpu-between-runs/space.yaml}
mkdir -p $out
source "$(dirname "$0")/pause.sh"; stopall() { [ $1 = STOP ] && pause_helpers || resume_helpers; }
trap 'stopall CONT' EXIT
for i in $(seq 1 $n); do
  for v in old new; do
    [ $v = old ] && t=/work/ci-s3/build/tuner/app/pimg-tune || t=/tmp/ab/pt-new
    stopall STOP
    s=$(date +%s.%N)
    $t conv --space $space --db $out/$v$i.db > $out/$v$i.txt 2>&1
    echo "$v $i $(python3 -c "print(round($(date +%s.%N) - $s, 1))") s" >> $out/walls.txt
  done
done
