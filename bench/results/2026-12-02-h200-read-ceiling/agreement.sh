#!/usr/bin/env bash
# The two-machine comparisons of this record, from committed files only (scripts/reproduce.py on folders of the
# tool's saved answers): (1) the full spaces of five families, the 2026-12-02-h200-l2-flush record's machines
# (dd2ed97) against this record's call 1 and 3 machine (GPU-ff598177); (2) the full hist space, calls 1 and 4
# (GPU-ff598177 against GPU-31d15778), and each against call 6's machine (GPU-b3e86c8d). Usage: bash agreement.sh [pimg-tune] (default build/tuner/app/pimg-tune).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
tune=${1:-$root/build/tuner/app/pimg-tune}
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
mkdir -p "$t/old" "$t/all" "$t/new" "$t/call1" "$t/call4"
tar xJf "$root/bench/results/2026-12-02-h200-l2-flush/best-json.tar.xz" -C "$t/old"
tar xJf "$here/best-json.tar.xz" -C "$t/all"
# Earlier machines: each family's whole space (call 3: hist-gpu with repro/hist; 5: bgr2rgba, maxpool; 6: flip; 7: histeq).
for f in call3-best-hist call5-best-bgr2rgba call5-best-maxpool call6-best-flip call7-best-histeq; do
  cp "$t/old/$f.json" "$t/old/best-${f#*-best-}.json"
done
for f in hist maxpool bgr2rgba flip histeq; do cp "$t/all/call$( [ $f = hist ] || [ $f = maxpool ] && echo 1 || echo 3)-best-$f.json" "$t/new/best-$f.json"; done
cp "$t/all/call1-best-hist.json" "$t/call1/best-hist.json"
cp "$t/all/call4-best-hist.json" "$t/call4/best-hist.json"
mkdir -p "$t/call6"
cp "$t/all/call6-best-hist.json" "$t/call6/best-hist.json"
echo "== (1) five families, earlier machines (dd2ed97) against GPU-ff598177 (36a3067)"
python3 "$root/scripts/reproduce.py" "$t/old" "$t/new" --tune "$tune" || true
echo
echo "== (2) hist, GPU-ff598177 (36a3067) against GPU-31d15778 (88a5da6)"
python3 "$root/scripts/reproduce.py" "$t/call1" "$t/call4" --tune "$tune" || true
echo
echo "== (3) hist, GPU-31d15778 (88a5da6) against GPU-b3e86c8d (9796d8e)"
python3 "$root/scripts/reproduce.py" "$t/call4" "$t/call6" --tune "$tune" || true
echo
echo "== (4) hist, GPU-ff598177 (36a3067) against GPU-b3e86c8d (9796d8e)"
python3 "$root/scripts/reproduce.py" "$t/call1" "$t/call6" --tune "$tune" || true
