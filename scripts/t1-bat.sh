#!/usr/bin/env bash
# BAT's T1 files (../shared/t1/bat) as a user of another tuner would bring them (issue 35): each CUDA file that
# pimg-tune accepts is tuned by `pimg-tune t1` with random search over PIMG_T1_BUDGET configurations (default 150,
# seed 1), every run validated against the default configuration's output; the drafts and other refusals are
# listed with their message. Writes DB, its report beside it and a summary line per file.
# Usage: scripts/t1-bat.sh PIMG_TUNE DB [FILE.json ...]   (scripts/gpu-bench.sh runs it with PIMG_T1_BAT=1)
set -uo pipefail
cd "$(dirname "$0")/.."
exe=$1
db=$2
shift 2
budget=${PIMG_T1_BUDGET:-150}
bat=../shared/t1/bat
# The problem sizes BAT's runner gives the files that leave them out (as tests/e2e/t1_shared_test.cpp).
problem_size() {
  case $1 in
    */GEMM-CAFF.json | */hotspot-CAFF.json) echo 4096,4096 ;;
    */nbody-CAFF.json) echo 131072 ;;
    */MD5Hash-CAFF.json) echo 1000000 ;;
    */TRIAD-CAFF.json | */builtin_vectors-CAFF.json) echo 4096 ;;
    */FFT-CAFF.json) echo 262144 ;;
    *) echo "" ;;
  esac
}
files=("$@")
[ ${#files[@]} -gt 0 ] || mapfile -t files < <(find "$bat" -name '*.json' | sort)
summary=$(dirname "$db")/t1-bat.txt
: > "$summary"
for f in "${files[@]}"; do
  ps=$(problem_size "$f")
  args=(t1 "$f")
  [ -z "$ps" ] || args+=(--problem-size "$ps")
  if ! check=$("$exe" "${args[@]}" --check 2>&1); then
    echo "$f: refused: $(echo "$check" | tail -1)" | tee -a "$summary"
    continue
  fi
  if ! echo "$check" | grep -q '(CUDA)'; then
    echo "$f: not CUDA, left out: $(echo "$check" | tail -1)" | tee -a "$summary"
    continue
  fi
  t0=$(date +%s)
  # PIMG_TUNE_TIMEOUT (seconds) bounds each file, so a call ends inside the device's limit; a later call resumes.
  timeout "${PIMG_TUNE_TIMEOUT:-0}" "$exe" "${args[@]}" --strategy random --budget "$budget" --seed 1 --db "$db" --top 3 \
    --quiet > "$db.$(basename "$f").txt" 2>&1
  rc=$?
  echo "$f: exit $rc in $(( $(date +%s) - t0 )) s; $(tail -1 "$db.$(basename "$f").txt")" | tee -a "$summary"
done
"$exe" report --db "$db" --out "$(dirname "$db")/report/t1-bat.md" > /dev/null
