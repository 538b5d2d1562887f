#!/usr/bin/env bash
# Issue 34's timing of the main job: its steps after the build (tune spaces/conv.yaml with the report, then
# `best --json`) with empty compile caches, as on a fresh machine, into OUTDIR; the wall time goes to OUTDIR/wall.txt.
# Usage: scripts/main-job-time.sh OUTDIR [PIMG_TUNE=build/tuner/app/pimg-tune]. Run it on an idle machine (or beside
# the load being measured); scripts/export-evaluations.py and scripts/reproduce.py read the stores it leaves.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: scripts/main-job-time.sh OUTDIR}
tune=${PIMG_TUNE:-build/tuner/app/pimg-tune}
rm -rf "$out"
mkdir -p "$out/pocl-cache"
export XDG_CACHE_HOME=$out/cache POCL_CACHE_DIR=$out/pocl-cache
s=$(date +%s.%N)
"$tune" conv --space spaces/conv.yaml --db "$out/pimg-tune.db" --report "$out/report/conv.md" > "$out/tune.log" 2>&1
"$tune" best conv --db "$out/pimg-tune.db" --json > "$out/best-conv.json"
e=$(date +%s.%N)
echo "tune+report+best: $(python3 -c "print(f'{$e - $s:.1f}')") s" | tee "$out/wall.txt"
