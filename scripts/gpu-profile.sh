#!/usr/bin/env bash
# Nsight Compute on the GPU machine, after scripts/gpu-bench.sh built build-gpu: one launch of each named
# CUDA configuration, profiled with the sections that say what limits a kernel (speed of light, compute
# and memory workload, occupancy, launch and instruction statistics), one text report per configuration
# under OUTDIR (default out/gpu/profile). ncu locks the clocks to base, so its durations are not the
# tuner's medians; its ratios (% of peak throughput, issue-slot use, stall reasons) are what count.
# Usage: bash scripts/gpu-profile.sh [OUTDIR]   (the configurations are the list at the end)
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:-out/gpu/profile}
mkdir -p "$out"
exe=build-gpu/tuner/app/pimg-tune
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null || true)
[ -n "$ncu" ] || { echo "gpu-profile: no ncu on this machine"; exit 2; }

# profile NAME FAMILY 'PROBLEM (flow YAML)' 'VARIANT: {PARAMS} (flow YAML)' KERNEL-REGEX
profile() {
  local name=$1 family=$2 problem=$3 variant=$4 kernel=$5
  printf 'family: %s\nproblems:\n  - %s\nbackends:\n  cuda: {}\nvariants:\n  %s\nmeasure: {warmups: 0, repeats: 1, timeout_s: 120}\n' \
    "$family" "$problem" "$variant" > "$out/$name.yaml"
  "$ncu" --target-processes all --kernel-name "regex:$kernel" --launch-count 1 \
    --section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
    --section Occupancy --section LaunchStats --section InstructionStats --section WarpStateStats \
    "$exe" "$family" --space "$out/$name.yaml" --db "$out/profile.db" --no-isolation --no-resume --quiet \
    > "$out/$name.txt" 2>&1
  echo "== profile $name: exit $? ($(grep -E 'Compute \(SM\) Throughput|DRAM Throughput|Issue Slots Busy' "$out/$name.txt" | tr -s ' ' | tr '\n' ';'))"
}

profile conv-sharpen3 conv '{filter: sharpen3, channels: 1, border: replicate, sizes: [8192]}' \
  'cuda_vec: {block_x: [32], block_y: [4], vec: [8], rows: [4], shfl: [1]}' conv_cuda_vec
profile conv-gaussian5 conv '{filter: gaussian5, channels: 3, layout: interleaved, border: replicate, sizes: [8192]}' \
  'cuda_vec: {block_x: [32], block_y: [4], vec: [8], rows: [8], separable: [1], packed: [1]}' conv_cuda_vec
profile maxpool-rgb maxpool '{channels: 3, layout: interleaved, sizes: [8192]}' \
  'cuda_rgb: {block_x: [128], block_y: [1], units: [2]}' maxpool_rgb
profile hist-shared hist '{channels: 1, sizes: [8192]}' \
  'cuda_shared: {block: [1024], copies: [32], layout: [interleaved]}' '^hist_shared$'
