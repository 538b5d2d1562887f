#!/usr/bin/env bash
# Issue 34's two-machine comparison over every full GPU family space, from committed files only (scripts/reproduce.py
# on folders of the tool's saved answers): the 2026-12-02-h200-read-ceiling record's machine GPU-ff598177 (36a3067;
# its calls 1-3 ran hist and maxpool, rotate and conv, bgr2rgba, flip and histeq) against this record's machine
# GPU-6ddfb53d (f89c0ee; call 1: conv, bgr2rgba, histeq; call 2: rotate, flip, maxpool, hist); then conv and hist
# with more sessions where they disagree (call 3, GPU-ca661968, f0c09d5) against each of them.
# Usage: bash agreement.sh [pimg-tune] (default build/tuner/app/pimg-tune).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
tune=${1:-$root/build/tuner/app/pimg-tune}
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
mkdir -p "$t/old" "$t/new" "$t/a" "$t/b" "$t/c" "$t/a2" "$t/b2"
tar xJf "$root/bench/results/2026-12-02-h200-read-ceiling/best-json.tar.xz" -C "$t/old"
tar xJf "$here/best-json.tar.xz" -C "$t/new"
for f in "$t"/old/call[123]-best-*.json; do n=${f##*/}; cp "$f" "$t/a/${n#call?-}"; done
for f in "$t"/new/call[12]-best-*.json; do n=${f##*/}; cp "$f" "$t/b/${n#call?-}"; done
for f in "$t"/new/call3-best-*.json; do n=${f##*/}; cp "$f" "$t/c/${n#call?-}"; done
for f in conv hist; do cp "$t/a/best-$f.json" "$t/a2/"; cp "$t/b/best-$f.json" "$t/b2/"; done
echo "== seven families, GPU-ff598177 (36a3067) against GPU-6ddfb53d (f89c0ee)"
python3 "$root/scripts/reproduce.py" "$t/a" "$t/b" --tune "$tune" || true
echo
echo "== conv and hist, GPU-ff598177 (36a3067) against GPU-ca661968 (f0c09d5, more sessions where they disagree)"
python3 "$root/scripts/reproduce.py" "$t/a2" "$t/c" --tune "$tune" || true
echo
echo "== conv and hist, GPU-6ddfb53d (f89c0ee) against GPU-ca661968 (f0c09d5, more sessions where they disagree)"
python3 "$root/scripts/reproduce.py" "$t/b2" "$t/c" --tune "$tune" || true
