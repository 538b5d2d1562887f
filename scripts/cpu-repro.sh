#!/usr/bin/env bash
# Issue 15's CPU re-measurement: tunes each space of spaces/repro-cpu/ into OUTDIR/<family>.db (confirmation
# stage on, OpenCV and serial baselines on the host device) and writes each family's `best` beside it.
# Usage: scripts/cpu-repro.sh OUTDIR [PIMG_TUNE=build/tuner/app/pimg-tune]. Run it on an idle machine.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: scripts/cpu-repro.sh OUTDIR}
tune=${PIMG_TUNE:-build/tuner/app/pimg-tune}
mkdir -p "$out"
for space in spaces/repro-cpu/*.yaml; do
  family=$(awk '/^family:/ {print $2; exit}' "$space")
  t0=$(date +%s)
  "$tune" "$family" --space "$space" --db "$out/$family.db" --quiet > "$out/$family.txt" 2>&1
  "$tune" best "$family" --db "$out/$family.db" --top 3 > "$out/best-$family.txt"
  echo "$family: $(( $(date +%s) - t0 )) s, $(tail -1 "$out/$family.txt")"
done
