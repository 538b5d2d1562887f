#!/usr/bin/env bash
# The seeds' experiments on this machine's CPU devices (issue 21): every CPU space of spaces/seeds/ tuned
# into its own database under OUTDIR, each family's report beside it, and the seed report built from
# them all (scripts/seed-report.py), with seed 004's author's own program (built from
# ../shared/peers/reg-openmp) timed beside the tuned OpenMP configuration of the same run appended
# (scripts/seed004-peer.py). Run from the repository root, where ../shared/data/semblance is the seed 004 input. The GPU twins (spaces/seeds/*-gpu.yaml) go through scripts/gpu-bench.sh instead; their
# database feeds scripts/seed-report.py the same way.
# Usage: scripts/seed-bench.sh OUTDIR [SPACE.yaml ...]   (default: spaces/seeds/*.yaml without -gpu)
set -uo pipefail
[ $# -ge 1 ] || { echo "usage: $0 OUTDIR [SPACE.yaml ...]" >&2; exit 2; }
out=$1
shift
exe=${PIMG_TUNE:-build/tuner/app/pimg-tune}
[ -x "$exe" ] || { echo "$exe: not built (cmake --build build --target pimg-tune)" >&2; exit 2; }
spaces=("$@")
if [ ${#spaces[@]} -eq 0 ]; then
  for f in spaces/seeds/*.yaml; do
    case $f in *-gpu.yaml) ;; *) spaces+=("$f") ;; esac
  done
fi
mkdir -p "$out"
status=0
dbs=()
for space in "${spaces[@]}"; do
  name=$(basename "$space" .yaml)
  family=$(awk '/^family:/ {print $2; exit}' "$space")
  db=$out/$name.db
  echo "== $name ($family)"
  start=$(date +%s)
  if ! "$exe" "$family" --quiet --space "$space" --db "$db" --report "$out/$name/$family.md" 2>&1 | tee "$out/$name.log"; then
    status=1
  fi
  echo "   $(( $(date +%s) - start )) s"
  [ -f "$db" ] && dbs+=("$db")
done
[ ${#dbs[@]} -gt 0 ] && python3 "$(dirname "$0")/seed-report.py" --out "$out/README.md" "${dbs[@]}" || status=1
if [ -f "$out/004-semblance.db" ] && [ -f "$out/README.md" ]; then
  if python3 "$(dirname "$0")/seed004-peer.py" --db "$out/004-semblance.db" --out "$out/004-peer.md" --runs 5; then
    { echo; cat "$out/004-peer.md"; } >> "$out/README.md"
  else
    status=1
  fi
fi
exit $status
