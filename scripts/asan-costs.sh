#!/usr/bin/env bash
# What PoCL and clang-built OpenMP kernels cost inside an ASan process (docs/ci.md, why the `opencl` label runs in
# the ordinary build and scripts/sanitize.sh sets PIMG_HOST_CXX=g++): the same small tune by the ordinary build's
# pimg-tune and by the sanitizer build's, on one backend at a time, each with empty caches, REPEATS times
# (default 3; the median is printed with the minimum and maximum). Needs build/ and build-asan/.
# Usage: scripts/asan-costs.sh [SPACE.yaml]   (default tests/data/e2e/hist-small.yaml)
set -euo pipefail
cd "$(dirname "$0")/.."
space=${1:-tests/data/e2e/hist-small.yaml}
repeats=${REPEATS:-3}
family=$(awk '/^family:/ {print $2; exit}' "$space")
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:handle_segv=0:max_allocation_size_mb=1000:allocator_may_return_null=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
echo "space $space, $(nproc) cores, $(date -u +%Y-%m-%dT%H:%M:%SZ), commit $(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)"
# run LABEL BUILD BACKEND [VAR=VALUE...]: the tune's wall seconds, REPEATS times.
run() {
  local label=$1 exe=$2/tuner/app/pimg-tune backend=$3 times=()
  shift 3
  for _ in $(seq "$repeats"); do
    local tmp t0
    tmp=$(mktemp -d)
    t0=$(date +%s.%N)
    if ! env POCL_CACHE_DIR="$tmp/pocl" PIMG_CACHE_DIR="$tmp/cache" "$@" "$exe" "$family" --space "$space" \
        --backend "$backend" --db "$tmp/t.db" --quiet > "$tmp/out.txt" 2>&1; then
      echo "$label: the tune failed:"; tail -3 "$tmp/out.txt"; rm -rf "$tmp"; return 1
    fi
    times+=("$(echo "$(date +%s.%N) - $t0" | bc)")
    rm -rf "$tmp"
  done
  printf '%-34s %s s (median of %s; min %s, max %s)\n' "$label" \
    "$(printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%.1f", a[int((NR+1)/2)]}')" "$repeats" \
    "$(printf '%s\n' "${times[@]}" | sort -n | head -1 | xargs printf '%.1f')" \
    "$(printf '%s\n' "${times[@]}" | sort -n | tail -1 | xargs printf '%.1f')"
}
run "PoCL, ordinary build" build opencl
run "PoCL, ASan build" build-asan opencl
run "OpenMP by g++, ordinary build" build openmp PIMG_HOST_CXX=g++
run "OpenMP by g++, ASan build" build-asan openmp PIMG_HOST_CXX=g++
run "OpenMP by clang++, ASan build" build-asan openmp PIMG_HOST_CXX=clang++
