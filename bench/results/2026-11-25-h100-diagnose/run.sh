#!/usr/bin/env bash
# Diagnoses on the GPU machine (issues 18 and 20): what one NVML query costs, whether Nsight Compute profiles
# kernels of pimg-tune's own binaries (a CUDA test, the tuner's worker, the cold program), then the
# one-configuration ncu check (spaces/observe/ncu-smoke.yaml with PIMG_NCU=1) through the GPU script.
# Run from the repository root on the GPU machine, after scripts/gpu-carry.sh; results under $OUT.
set -uo pipefail
cd "$(dirname "$0")/../../.."
PIMG_SKIP_BENCH=1 PIMG_SKIP_TESTS=1 PIMG_NCU=1 bash scripts/gpu-bench.sh spaces/observe/ncu-smoke.yaml
export LD_LIBRARY_PATH=$PWD/.device-carry/lib:$PWD/.device-carry/opencl${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
d=${OUT:-/tmp}/diagnose
mkdir -p "$d"
python3 scripts/nvml-latency.py > "$d/nvml-latency.txt" 2>&1
ncu --version > "$d/ncu-version.txt" 2>&1
timeout 120 ncu --clock-control none --metrics gpu__time_duration.sum,launch__registers_per_thread \
  build-gpu/tests/pimg_cuda_tests --gtest_filter='CudaRun.CopyKernelCopiesEveryByte' > "$d/ncu-gtest.txt" 2>&1
echo "exit $?" >> "$d/ncu-gtest.txt"
timeout 200 ncu --clock-control none --target-processes all --metrics gpu__time_duration.sum \
  build-gpu/tuner/app/pimg-tune rotate --space spaces/observe/ncu-smoke.yaml --db /tmp/ncu-whole.db \
  > "$d/ncu-whole-tuner.txt" 2>&1
echo "exit $?" >> "$d/ncu-whole-tuner.txt"
grep -c "gpu__time_duration" "$d"/ncu-*.txt
timeout 150 python3 scripts/nvrtc-scaling.py .device-carry/shared/t1/convolution_milo.cu /usr/local/cuda/lib64/libnvrtc.so.13 > "$d/nvrtc-scaling.txt" 2>&1
