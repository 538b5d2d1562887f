#!/usr/bin/env bash
# The OpenCL part of spaces/conv-gpu.yaml tuned from empty compile caches with NVIDIA's OpenCL compiles on the
# pipeline's threads (PIMG_COMPILE_WORKERS=0, the tool before compile workers) and in compile worker processes
# (the default), alternated: off, on, off, on; without the whole-program stage (measure.cold.top 0: about 45 s of
# fresh processes, the same in both). Run on the GPU machine after scripts/gpu-bench.sh has built build-gpu (its
# environment repeated here). Writes $OUT/ab/{off,on}-N.{log,db,wall}. AB_RUNS="on-1" runs only those.
set -uo pipefail
cd "$(dirname "$0")/../../.."
root=$PWD carry=$root/.device-carry
export LD_LIBRARY_PATH=$carry/lib:$carry/opencl${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
exe=$root/build-gpu/tuner/app/pimg-tune
ab=${OUT:-/tmp}/ab
mkdir -p "$ab"
stamp() {
  perl -MTime::HiRes=time -e '$t0 = time; $| = 1; while (<STDIN>) { s/\r/\n/g;
    for (split /\n/) { next if /^\[\d+\//; printf "%7.2f %s\n", time - $t0, $_ } }'
}
space=$ab/conv-gpu-opencl.yaml
sed 's/^measure: {warmups: 1, repeats: 5, timeout_s: 10}$/measure: {warmups: 1, repeats: 5, timeout_s: 10, cold: {top: 0}}/' \
  spaces/conv-gpu.yaml > "$space"
grep -q 'cold: {top: 0}' "$space" || { echo "ab.sh: spaces/conv-gpu.yaml's measure line changed"; exit 2; }
runs=${AB_RUNS:-off-1 on-1 off-2 on-2}
for run in $runs; do
  mode=${run%-*}
  cache=$(mktemp -d) nv=$(mktemp -d)
  t0=$(date +%s.%N)
  PIMG_COMPILE_WORKERS=$([ "$mode" = on ] && echo 1 || echo 0) PIMG_CACHE_DIR=$cache CUDA_CACHE_PATH=$nv \
    timeout 200 "$exe" conv --space "$space" --backend opencl --db "$ab/$run.db" --top 1 2>&1 | stamp > "$ab/$run.log"
  rc=${PIPESTATUS[0]}
  echo "$run exit $rc wall $(awk "BEGIN { printf \"%.1f\", $(date +%s.%N) - $t0 }")" | tee "$ab/$run.wall"
  rm -rf "$cache" "$nv"
done
# The same search rows (configuration, status, validation) stored by every run; the confirmation's rows follow each
# run's measured times.
python3 - "$ab" "$runs" <<'PY'
import sqlite3, sys, hashlib
Q = """SELECT p.canonical, v.name, c.canonical, e.status, e.validation FROM evaluations e
JOIN problems p ON p.id = e.problem_id JOIN variants v ON v.id = e.variant_id JOIN configs c ON c.id = e.config_id
WHERE e.stage = 'search'"""
for run in sys.argv[2].split():
    try:
        rows = sorted(sqlite3.connect(f"{sys.argv[1]}/{run}.db").execute(Q).fetchall())
        print(run, len(rows), "search rows", hashlib.md5(repr(rows).encode()).hexdigest()[:12])
    except Exception as e:
        print(run, "unreadable:", e)
PY
