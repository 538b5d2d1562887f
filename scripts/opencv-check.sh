#!/usr/bin/env bash
# Holds the tuner's OpenCV baseline rows against the same OpenCV calls in a standalone program
# (bench/opencv_standalone.cpp), on this machine: one small space per family with only its OpenCV baseline
# (and `serial`, the speed reference) at SIZE, then the standalone program at the same size, then the ratio
# standalone median / tuner median per call (>= 1: the baseline is at least as fast as OpenCV on its own).
# Everything it used and measured goes to OUT (default bench/results/<date>-cpu-opencv-check).
#   scripts/opencv-check.sh [BUILD_DIR] [OUT_DIR] [SIZE]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
out=${2:-$root/bench/results/$(date -u +%F)-cpu-opencv-check}
size=${3:-2048}
tune=$build/tuner/app/pimg-tune
standalone=$build/bench/opencv_standalone
for exe in "$tune" "$standalone"; do
  [[ -x $exe ]] || { echo "opencv-check: $exe is missing (build pimg-tune and opencv_standalone)" >&2; exit 2; }
done
mkdir -p "$out/spaces"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
db=$work/check.db

measure="measure: {warmups: 3, repeats: 50, timeout_s: 60}"
space() {  # family, problem line, variants
  cat > "$out/spaces/$1.yaml" <<YAML
family: $1
problems:
  - $2
backends: {host: {}}
variants: {$3}
$measure
YAML
}
space conv "{filter: [sharpen3, box3, gaussian5], channels: 1, border: zero, sizes: [$size]}" \
  "opencv_filter2d: {}, opencv_blur: {}, opencv_gaussian: {}, serial: {}"
space hist "{channels: 1, sizes: [$size]}" "opencv_calchist: {}, serial: {}"
space histeq "{sizes: [$size]}" "opencv_equalizehist: {}, serial: {}"
space flip "{channels: 1, sizes: [$size]}" "opencv_flip: {}, serial: {}"
space bgr2rgba "{channels: 3, alpha: 255, sizes: [$size]}" "opencv_cvtcolor: {}, serial: {}"
space rotate "{channels: 1, angle: 30, interp: nearest, sizes: [$size]}" "opencv_warp: {}, serial: {}"

{
  echo "date: $(date -u +%FT%TZ)"
  echo "commit: $(git -C "$root" rev-parse --short=12 HEAD 2>/dev/null || cat "$root/.git-commit" 2>/dev/null || echo unknown)"
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //') x $(nproc)"
  echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
} > "$out/machine.txt"

for f in conv hist histeq flip bgr2rgba rotate; do
  "$tune" "$f" --quiet --space "$out/spaces/$f.yaml" --db "$db" > "$out/tune-$f.log" 2>&1
done
"$standalone" --size "${size}x${size}" --runs 50 > "$out/standalone.json"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/machine.txt"

python3 - "$db" "$out/standalone.json" "$out/tuner-rows.tsv" <<'PY' | tee "$out/ratios.md"
import json, sqlite3, sys
db, standalone = sys.argv[1], json.load(open(sys.argv[2]))
rows = {}
c = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
q = """SELECT p.family, v.name, p.canonical, e.median_ms, e.validation, COALESCE(e.flags, '')
       FROM evaluations e JOIN problems p ON p.id = e.problem_id JOIN variants v ON v.id = e.variant_id
       WHERE e.status = 'ok' ORDER BY e.id"""
with open(sys.argv[3], "w") as tsv:
    tsv.write("family\tvariant\tproblem\tmedian_ms\tvalidation\tflags\n")
    for fam, var, problem, med, validation, flags in c.execute(q):
        rows.setdefault(f"{fam}/{var}", []).append((med, validation, flags))
        tsv.write(f"{fam}\t{var}\t{problem}\t{med}\t{validation}\t{flags}\n")
c.close()
print(f"# OpenCV baselines in the tuner against the same call standalone ({standalone['width']}x{standalone['height']}, "
      f"OpenCV {standalone['opencv']}, {standalone['threads']} threads)\n")
print("| baseline | call | tuner median ms | standalone hot ms | standalone cold ms | hot / tuner | cold / tuner | tuner flags |")
print("|---|---|---|---|---|---|---|---|")
worst = None
for call in standalone["calls"]:
    match = rows.get(call["name"], [])
    if not match:
        print(f"| {call['name']} | {call['call']} | not measured | | | | | |")
        continue
    med, validation, flags = match[0]
    hot, cold = call["hot"]["median_ms"] / med, call["cold"]["median_ms"] / med
    worst = hot if worst is None else min(worst, hot)
    print(f"| {call['name']} | {call['call']} | {med:.4f} | {call['hot']['median_ms']:.4f} | "
          f"{call['cold']['median_ms']:.4f} | {hot:.2f} | {cold:.2f} | {flags} |")
print("\n| serial (speed reference) | tuner median ms |\n|---|---|")
for name, found in sorted(rows.items()):
    if name.endswith("/serial"):
        print("| " + name + " | " + ", ".join(f"{r[0]:.4f}" for r in found) + " |")
print(f"\nlowest standalone-hot / tuner ratio: {worst:.2f} (>= 1: the tuner's baseline is at least as fast)"
      if worst is not None else "\nno baseline rows")
PY
