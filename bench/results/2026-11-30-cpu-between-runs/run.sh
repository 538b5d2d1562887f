#!/usr/bin/env bash
# Runs space.yaml N times (default 8) as fresh processes back to back, each into its own store, then prints each
# configuration's search and confirmed medians per run. Usage: run.sh PIMG_TUNE OUTDIR [N]
set -euo pipefail
tune=$1 out=$2 n=${3:-8}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
for i in $(seq 1 "$n"); do
  s=$(date +%s.%N)
  "$tune" conv --space "$here/space.yaml" --db "$out/run$i.db" > "$out/run$i.txt" 2>&1
  echo "run $i: $(python3 -c "print(round($(date +%s.%N) - $s, 1))") s, started $(date -u -d @"${s%.*}" +%T)" | tee -a "$out/walls.txt"
done
