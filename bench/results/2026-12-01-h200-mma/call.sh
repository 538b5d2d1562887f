#!/usr/bin/env bash
# Calls 2-4 on the device machine (issue 39): the CudaRun tests (cuda_mma exact over the matrix), SPACE tuned, then
# Nsight Compute over one cuda_mma configuration per problem (the sections of scripts/gpu-profile.sh).
# Usage there: bash bench/results/2026-12-01-h200-mma/call.sh SPACE 'SHARPEN3 PARAMS' 'GAUSSIAN5 PARAMS'
#   call 2: mma2.yaml '{warps: [4], rows: [8], tiles: [1], ahead: [4]}' '{warps: [4], rows: [4], tiles: [1], ahead: [4]}'
#           (run without the LD_LIBRARY_PATH line below: its profiles did not start)
#   call 3: mma3.yaml '{warps: [4], rows: [8], tiles: [1], ahead: [0]}' '{warps: [4], rows: [16], tiles: [1], ahead: [2]}'
#   call 4: mma4.yaml, the same with loads: [8] in both
#   bench/results/2026-12-01-h200-mma-stage: its stage.yaml by path
set -uo pipefail
cd "$(dirname "$0")/../../.."
here=bench/results/2026-12-01-h200-mma
space=$1
[ -f "$space" ] || space=$here/$1  # a path from the repository root, or a file of this folder
PIMG_TEST_REGEX='^CudaRun$' PIMG_SKIP_BENCH=1 bash scripts/gpu-bench.sh "$space"
out=out/gpu/profile
export LD_LIBRARY_PATH=$PWD/.device-carry/lib:$PWD/.device-carry/opencl${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} PATH=/usr/local/cuda/bin:$PATH
mkdir -p "$out"
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null || true)
for spec in "sharpen3|{filter: sharpen3, channels: 1, border: replicate, sizes: [8192]}|$2" \
            "gaussian5|{filter: gaussian5, channels: 3, layout: interleaved, border: replicate, sizes: [8192]}|$3"; do
  IFS='|' read -r name problem params <<< "$spec"
  printf 'family: conv\nproblems:\n  - %s\nbackends:\n  cuda: {}\nvariants:\n  cuda_mma: %s\nmeasure: {warmups: 0, repeats: 1, timeout_s: 120, confirm: {top: 0}}\n' \
    "$problem" "$params" > "$out/mma-$name.yaml"
  "$ncu" --target-processes all --clock-control none --kernel-name regex:^conv_cuda_mma$ --launch-count 1 \
    --section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
    --section Occupancy --section LaunchStats --section InstructionStats --section WarpStateStats \
    build-gpu/tuner/app/pimg-tune conv --space "$out/mma-$name.yaml" --db "$out/profile.db" --no-isolation --no-resume --quiet \
    > "$out/mma-$name.txt" 2>&1
  echo "== profile mma-$name: exit $?"
done
