#!/usr/bin/env bash
# Second diagnosis call (issues 18 and 20): NVRTC's scaling over threads and processes on the 16-core machine,
# the one-configuration ncu check with the cold program named by its real path, then the T1 milo kernel
# tuned for at most PIMG_TUNE_TIMEOUT seconds, to see where its wall time goes now.
set -uo pipefail
cd "$(dirname "$0")/../../.."
d=${OUT:-/tmp}/diagnose2
mkdir -p "$d"
timeout 120 python3 scripts/nvrtc-scaling.py .device-carry/shared/t1/convolution_milo.cu /usr/local/cuda/lib64/libnvrtc.so.13 \
  > "$d/nvrtc-scaling.txt" 2>&1 || true
PIMG_SKIP_BENCH=1 PIMG_SKIP_TESTS=1 PIMG_NCU=1 PIMG_TUNE_TIMEOUT=${PIMG_TUNE_TIMEOUT:-330} \
  bash scripts/gpu-bench.sh spaces/observe/ncu-smoke.yaml ../shared/t1/convolution_milo.json
cat "$d/nvrtc-scaling.txt"
