#!/usr/bin/env bash
# Builds the tests with clang under AddressSanitizer + UndefinedBehaviorSanitizer (and libFuzzer
# coverage in the readers the fuzz targets drive, so scripts/fuzz.sh can use the same build) into ./build-asan, and runs the unit,
# OpenMP and end-to-end tests there. CUDA, the PoCL kernel tests and the benchmarks are left out of
# this build (they run in the ordinary build); see docs/ci.md and docs/reliability.md.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/phase.sh
jobs=$(nproc 2>/dev/null || echo 2)
phase sanitize-configure env CC=clang CXX=clang++ cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DPIMG_SANITIZE=ON -DPIMG_FUZZ=ON -DPIMG_WITH_CUDA=OFF -DPIMG_BUILD_BENCH=OFF "-DPIMG_TEST_LABELS=unit;openmp;e2e" "$@"
phase sanitize-build cmake --build build-asan -j "$jobs"
# Leaks: PoCL and the OpenCL ICD loader keep allocations until exit, so leak checking is off.
# max_allocation_size_mb fails the memory self-test's 1 GiB blocks at once, since workers have no
# address-space limit under ASan;
# handle_segv=0 lets the self-test kernels that segfault die of SIGSEGV as they do outside ASan.
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:handle_segv=0:max_allocation_size_mb=1000:allocator_may_return_null=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export PIMG_CACHE_DIR="${PIMG_CACHE_DIR:-$(mktemp -d)}"
# OpenMP kernels are compiled by the system's g++, as in the ordinary build: the process already holds GCC's
# OpenMP runtime (libgomp, through OpenCV), and kernels built by clang would load a second one (libomp), whose
# threads spin for 200 ms after every parallel region (scripts/asan-costs.sh measures both).
export PIMG_HOST_CXX="${PIMG_HOST_CXX:-g++}"
phase sanitize-ctest ctest --test-dir build-asan --output-on-failure -j "$jobs" -L '^(unit|openmp|e2e)$' \
  --output-junit "$PWD/build-asan/ctest-junit.xml"
