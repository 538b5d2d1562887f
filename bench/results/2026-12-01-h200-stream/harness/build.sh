#!/usr/bin/env bash
# Compile every configuration of configs.txt (TAG PROBLEM KIND DEFINES..., PROBLEM sharpen | gauss, KIND vec |
# stream) and link one experiment per problem: stream_bench_sharpen, stream_bench_gauss.
set -euo pipefail
cd "$(dirname "$0")"
NVCC=${NVCC:-nvcc}
ARCH=${ARCH:-sm_90}
rm -rf obj; mkdir -p obj/sharpen obj/gauss
: > variants-sharpen.inc; : > variants-gauss.inc
pids=()
while read -r tag problem kind defs; do
  [ -z "$tag" ] && continue; [[ $tag == \#* ]] && continue
  echo "V($tag)" >> variants-$problem.inc
  if [ "$kind" = stream ]; then entry="-Dconv_cuda_stream=k_$tag -DKIND_STREAM=1"; else entry="-DCONV_VEC_ENTRY=k_$tag -DKIND_STREAM=0"; fi
  ( $NVCC -O3 -arch=$ARCH -std=c++17 -I../kernels -DPROBLEM_H="\"problem_$problem.h\"" $defs -DTAG=$tag $entry -Xptxas -v -c wrapper.cu -o obj/$problem/$tag.o 2>&1 | grep -E -o "error.*|Used [0-9]* registers" | sed "s/^/$tag /" > obj/$problem/$tag.regs ) &
  pids+=($!)
  if [ ${#pids[@]} -ge ${JOBS:-16} ]; then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
done < configs.txt
wait
cat obj/*/*.regs > regs.txt
for problem in sharpen gauss; do
  [ -s variants-$problem.inc ] || continue
  $NVCC -O3 -arch=$ARCH -std=c++17 -DPROBLEM_$problem=1 -DVARIANTS_INC="\"variants-$problem.inc\"" main.cu obj/$problem/*.o -o stream_bench_$problem
done
