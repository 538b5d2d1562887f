#!/usr/bin/env bash
# Installs dependencies, builds, and runs every test (unit, OpenCL on PoCL, OpenMP, end to end).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh
export PIMG_CACHE_DIR="${PIMG_CACHE_DIR:-$(mktemp -d)}"
ctest --test-dir build --output-on-failure -j "$(nproc 2>/dev/null || echo 2)"
