#!/usr/bin/env bash
# Installs dependencies, builds, and runs every check once (docs/ci.md): the ordinary build (GCC) compiles and runs
# the labels that need it (nvrtc, mpi, faults, seeds, install), the PoCL kernel tests (opencl: PoCL's compiler runs
# about twice as slow inside an ASan process, scripts/asan-costs.sh) and one end-to-end tune (smoke); the sanitizer build (scripts/sanitize.sh:
# clang, ASan + UBSan) compiles and runs the unit, OpenMP and end-to-end labels. PIMG_PLAIN_ONLY=1 builds and runs every label in the ordinary build instead (no clang needed).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/phase.sh
jobs=$(nproc 2>/dev/null || echo 2)
labels="nvrtc;mpi;faults;seeds;install;opencl;smoke"
[ -z "${PIMG_PLAIN_ONLY:-}" ] || labels=all
phase deps bash scripts/install-deps.sh
phase build bash scripts/build.sh "-DPIMG_TEST_LABELS=$labels"
export PIMG_CACHE_DIR="${PIMG_CACHE_DIR:-$(mktemp -d)}"
# PoCL builds work-group functions faster as work-item loops without its vectoriser (`loops`) than with it (its
# default), and once per kernel instead of once per work-group size (no specialisation): the PoCL tests of both
# builds are compile-bound (docs/ci.md). Tuning runs keep PoCL's defaults.
export POCL_WORK_GROUP_METHOD="${POCL_WORK_GROUP_METHOD:-loops}"
export POCL_WORK_GROUP_SPECIALIZATION="${POCL_WORK_GROUP_SPECIALIZATION:-0}"
select=()
[ "$labels" = all ] || select=(-L "^(${labels//;/|})\$")
phase ctest ctest --test-dir build --output-on-failure -j "$jobs" "${select[@]}" --output-junit "$PWD/build/ctest-junit.xml"
[ "$labels" = all ] || phase sanitize bash scripts/sanitize.sh
