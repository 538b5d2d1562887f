#!/usr/bin/env bash
# Issue 34's comparisons with this record's machine GPU-606dada1 (7cceb3b: more sessions where they disagree), from
# committed files only (scripts/reproduce.py on folders of the tool's saved answers): conv and hist against the other
# run of the same rule (GPU-ca661968, f0c09d5, call 3 of ../2026-12-02-h200-seven-families-two-machines), then all
# seven families against the two machines measured before the rule (GPU-ff598177, ../2026-12-02-h200-read-ceiling;
# GPU-6ddfb53d, calls 1-2 of ../2026-12-02-h200-seven-families-two-machines).
# Usage: bash agreement.sh [pimg-tune] (default build/tuner/app/pimg-tune).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
tune=${1:-$root/build/tuner/app/pimg-tune}
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
mkdir -p "$t/old" "$t/prev" "$t/ff" "$t/6d" "$t/ca" "$t/new" "$t/new2"
tar xJf "$root/bench/results/2026-12-02-h200-read-ceiling/best-json.tar.xz" -C "$t/old"
tar xJf "$root/bench/results/2026-12-02-h200-seven-families-two-machines/best-json.tar.xz" -C "$t/prev"
tar xJf "$here/best-json.tar.xz" -C "$t/new"
for f in "$t"/old/call[123]-best-*.json; do n=${f##*/}; cp "$f" "$t/ff/${n#call?-}"; done
for f in "$t"/prev/call[12]-best-*.json; do n=${f##*/}; cp "$f" "$t/6d/${n#call?-}"; done
for f in "$t"/prev/call3-best-*.json; do n=${f##*/}; cp "$f" "$t/ca/${n#call?-}"; done
cp "$t/new/best-conv.json" "$t/new/best-hist.json" "$t/new2/"
echo "== conv and hist, both runs with more sessions where they disagree: GPU-ca661968 (f0c09d5) against GPU-606dada1 (7cceb3b)"
python3 "$root/scripts/reproduce.py" "$t/ca" "$t/new2" --tune "$tune" || true
echo
echo "== seven families, GPU-ff598177 (36a3067) against GPU-606dada1 (7cceb3b)"
python3 "$root/scripts/reproduce.py" "$t/ff" "$t/new" --tune "$tune" || true
echo
echo "== seven families, GPU-6ddfb53d (f89c0ee) against GPU-606dada1 (7cceb3b)"
python3 "$root/scripts/reproduce.py" "$t/6d" "$t/new" --tune "$tune" || true
