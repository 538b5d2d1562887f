#!/usr/bin/env bash
# Nsight Compute on the GPU machine, after scripts/gpu-bench.sh built build-gpu: one launch of each named
# CUDA configuration, profiled with the sections that say what limits a kernel (speed of light, compute
# and memory workload, occupancy, launch and instruction statistics), one text report per configuration
# under OUTDIR (default out/gpu/profile). The clocks are left alone (--clock-control none, as the device
# machine asks) and caches are flushed before the profiled launch (ncu's default), the tuner's cold method;
# ncu replays the kernel for its passes, so its durations are not the tuner's medians: its ratios (% of peak
# throughput, issue-slot use, stall reasons) are what count. The configurations (the list at the end) are the
# H200's confirmed winners that miss issue 39's bars (bench/results/2026-11-29-h200-family-spaces/winners.tsv,
# 2026-11-30-h200-staged-vectors).
# Usage: bash scripts/gpu-profile.sh [OUTDIR]   (the configurations are the list at the end)
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:-out/gpu/profile}
mkdir -p "$out"
exe=build-gpu/tuner/app/pimg-tune
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null || true)
[ -n "$ncu" ] || { echo "gpu-profile: no ncu on this machine"; exit 2; }

# profile NAME FAMILY 'PROBLEM (flow YAML)' 'VARIANT: {PARAMS} (flow YAML)' KERNEL-REGEX [LAUNCHES]
profile() {
  local name=$1 family=$2 problem=$3 variant=$4 kernel=$5 launches=${6:-1}
  printf 'family: %s\nproblems:\n  - %s\nbackends:\n  cuda: {}\nvariants:\n  %s\nmeasure: {warmups: 0, repeats: 1, timeout_s: 120, confirm: {top: 0}}\n' \
    "$family" "$problem" "$variant" > "$out/$name.yaml"
  "$ncu" --target-processes all --clock-control none --kernel-name "regex:$kernel" --launch-count "$launches" \
    --section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
    --section Occupancy --section LaunchStats --section InstructionStats --section WarpStateStats \
    "$exe" "$family" --space "$out/$name.yaml" --db "$out/profile.db" --no-isolation --no-resume --quiet \
    > "$out/$name.txt" 2>&1
  echo "== profile $name: exit $? ($(grep -E 'Compute \(SM\) Throughput|DRAM Throughput|Issue Slots Busy' "$out/$name.txt" | tr -s ' ' | tr '\n' ';'))"
}

profile conv-sharpen3 conv '{filter: sharpen3, channels: 1, border: replicate, sizes: [8192]}' \
  'cuda_vec: {block_x: [32], block_y: [4], vec: [8], rows: [4], shfl: [1], simd: [1], separable: [0], packed: [0]}' \
  conv_cuda_vec
profile conv-gaussian5 conv '{filter: gaussian5, channels: 3, layout: interleaved, border: replicate, sizes: [8192]}' \
  'cuda_vec: {block_x: [32], block_y: [4], vec: [4], rows: [8], shfl: [0], simd: [0], separable: [0], packed: [0]}' \
  conv_cuda_vec
# The best gaussian5 known on the H200 (spaces/repro/conv.yaml, spaces/conv-gpu-separable.yaml's knobs): a row pass
# then a column pass on packed 16-bit lanes (bench/results/2026-11-30-h200-gpu-tests, 0.2077 ms).
profile conv-gaussian5-separable conv '{filter: gaussian5, channels: 3, layout: interleaved, border: replicate, sizes: [8192]}' \
  'cuda_vec: {block_x: [32], block_y: [4], vec: [8], rows: [8], shfl: [0], simd: [0], separable: [1], packed: [1]}' \
  conv_cuda_vec
profile hist-shared hist '{channels: 1, sizes: [8192], dist: uniform}' \
  'cuda_shared: {block: [1024], copies: [32], groups: [264], items: [2], layout: [interleaved], onepass: [0], vec: [16]}' \
  '^hist_shared$'
profile histeq-fused histeq '{sizes: [8192], dist: uniform}' \
  'cuda_fused: {hist_block: [1024], groups: [0], copies: [32], layout: [interleaved], vec: [16], map_block: [512], map_groups: [1056], map_vec: [16], map_order: [reverse]}' \
  '^histeq_' 4
profile rotate-nearest-c3 rotate '{angle: 30, interp: nearest, channels: 3, layout: interleaved, sizes: [8192]}' \
  'cuda_direct: {block_x: [64], block_y: [4], gather: [1], incr: [1], items_x: [1], items_y: [4], ldg: [1], pack: [0], spread: [0]}' \
  '^rotate_cuda$'
