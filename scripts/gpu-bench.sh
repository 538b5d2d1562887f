#!/usr/bin/env bash
# One call on the bare GPU machine (Ubuntu 24.04, CUDA 13, nothing installable): build pimg-tune with
# what scripts/gpu-carry.sh brought in .device-carry/, run the GPU and NVRTC tests, tune conv on CUDA
# and NVIDIA OpenCL (spaces/conv-gpu.yaml), run the benchmarks, and write the database, the report,
# the logs and a summary under out/gpu, packed as $OUT/gpu-results.tgz beside $OUT/summary.txt.
# Usage there: [PIMG_OBSERVE=1] [PIMG_RANKS="1 2 4"] [PIMG_TEST_REGEX=RE | PIMG_TEST_LABELS=L | PIMG_SKIP_TESTS=1] [PIMG_SKIP_BENCH=1] bash scripts/gpu-bench.sh [SPACE.yaml ...]  (PIMG_RANKS: scripts/ranks-bench.sh)   (default spaces/conv-gpu.yaml and conv-gpu-separable.yaml; the device tool:
# carry .device-carry and .git-commit). Each space is tuned into the same database, as the family its file names;
# an argument ending in .json is a T1 kernel description, tuned by `pimg-tune t1` as family t1-<its name>.
# PIMG_SEEDS=1 (issue 21): the seeds' experiments instead, every spaces/seeds/*-gpu.yaml (or the spaces given)
# into out/gpu/seeds.db within PIMG_SEEDS_BUDGET seconds (default 360), their reports and pictures, the seed
# report and seed 004's author's program timed beside the tuned OpenMP configuration (scripts/gpu-seeds.sh);
# no tests (unless PIMG_TEST_REGEX) and no benchmarks. Carry ../shared/peers with scripts/gpu-carry.sh.
# PIMG_T1_BAT=1 (issue 35): BAT's CUDA T1 files tuned by random search, PIMG_T1_BUDGET configurations each
# (scripts/t1-bat.sh), into out/gpu/t1-bat.db. PIMG_CEILING="64 1024" (issue 39): every way the ceiling copies at
# those MiB (bench/ceiling_bench.cpp, PIMG_NOMINAL_GBS for the share of a datasheet's bandwidth), out/gpu/ceiling.csv.
# PIMG_PROFILE=1 (issue 39): Nsight Compute over the winners that miss their bars (scripts/gpu-profile.sh). PIMG_RACE=1 (issue 34): each space given tuned with racing and
# without, timed and compared (scripts/race-bench.sh), into out/gpu/race.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out=$root/out/gpu
# PIMG_KEEP_OUT=1 tunes into the database of an earlier call (carried as out/gpu, or left by a warm machine).
[ -n "${PIMG_KEEP_OUT:-}" ] || rm -rf "$out"
carry=$root/.device-carry
mkdir -p "$out"
log() { echo "== $*" | tee -a "$out/summary.txt"; }

[ -d "$carry" ] || { echo "no .device-carry: run scripts/gpu-carry.sh first and carry it"; exit 2; }
# Whatever happens, what was written comes back: one archive (the device tool returns few files), packed when the
# script exits and, since the device tool ends a call at its limit without a signal a script can catch (a call
# that ran past 600 s on 2026-12-02 brought nothing back), by a watchdog 45 s before PIMG_CALL_S (the seconds the
# call has left when the script starts; default 600, 0: no watchdog). The archive is written beside and renamed,
# so a call ended while packing leaves the previous one whole.
pack() {
  [ -n "${OUT:-}" ] || return 0
  tar czf "$OUT/gpu-results.tgz.part" -C "$root/out" gpu 2>/dev/null && mv -f "$OUT/gpu-results.tgz.part" "$OUT/gpu-results.tgz"
  cp "$out/summary.txt" "$OUT/" 2>/dev/null
  return 0
}
watchdog=
call_s=${PIMG_CALL_S:-600}
if [ -n "${OUT:-}" ] && [ "$call_s" -gt 60 ]; then
  # Its output goes to the summary only, not to the call's: a sleep left holding the call's output open would keep
  # the call waiting after the script ends.
  (sleep $((call_s - 45)) && echo "== watchdog: $((call_s - 45)) s into the call, what is written so far packed" >> "$out/summary.txt" &&
    pack) < /dev/null > /dev/null 2>&1 &
  watchdog=$!
fi
trap '[ -z "$watchdog" ] || { pkill -P "$watchdog" 2>/dev/null; kill "$watchdog" 2>/dev/null; }; pack' EXIT
# The NVIDIA OpenCL driver is installed but not registered with the ICD loader.
if [ -e /usr/lib/libnvidia-opencl.so.1 ] && [ ! -e /etc/OpenCL/vendors/nvidia.icd ]; then
  mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
fi
opencl_lib=$(ldconfig -p | awk '/libOpenCL\.so\.1 .*x86-64/ {print $NF; exit}')
[ -n "$opencl_lib" ] || opencl_lib=$carry/opencl/libOpenCL.so.1
sqlite_lib=$(ldconfig -p | awk '/libsqlite3\.so\.0 .*x86-64/ {print $NF; exit}')
export PKG_CONFIG_PATH=$carry/lib/pkgconfig
export CPATH=$carry/include${CPATH:+:$CPATH}
export LIBRARY_PATH=$carry/lib${LIBRARY_PATH:+:$LIBRARY_PATH}
export LD_LIBRARY_PATH=$carry/lib:$carry/opencl${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PIMG_CACHE_DIR=$root/build-gpu/cache
export PATH=/usr/local/cuda/bin:$PATH
export CUDA_CACHE_PATH=$root/build-gpu/nv-cache
command -v pkg-config >/dev/null || export PKG_CONFIG=$carry/bin/pkgconf

# The shared data the spaces read (../shared/data), when the machine's copy of the tree lacks it.
if [ ! -e ../shared/data/semblance ] && [ -d "$carry/shared/data" ]; then
  mkdir -p ../shared && cp -r "$carry/shared/data" ../shared/
fi
if [ ! -e ../shared/t1 ] && [ -d "$carry/shared/t1" ]; then
  mkdir -p ../shared && cp -r "$carry/shared/t1" ../shared/
fi
if [ ! -e ../shared/peers ] && [ -d "$carry/shared/peers" ]; then
  mkdir -p ../shared && cp -r "$carry/shared/peers" ../shared/
fi

log "device: $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader)"
# Which machine: reproducibility across machines (issue 34) needs to know whether two calls met the same one.
log "machine: $(hostname), GPU $(nvidia-smi --query-gpu=uuid,pci.bus_id --format=csv,noheader | tr '\n' ' ')"
log "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)  commit: $(cat .git-commit 2>/dev/null || git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)"
t0=$(date +%s)
# The commit from .git-commit: the machine's copy of the tree may hold a .git of another commit.
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DPIMG_BUILD_BENCH=ON -DCMAKE_PREFIX_PATH="$carry" \
  -DPIMG_GIT_COMMIT="$(cat .git-commit 2>/dev/null)" \
  -DSQLite3_INCLUDE_DIR="$carry/include" -DSQLite3_LIBRARY="$sqlite_lib" \
  -DOpenCL_INCLUDE_DIR=/usr/include -DOpenCL_LIBRARY="$opencl_lib" > "$out/configure.log" 2>&1 \
  || { tail -30 "$out/configure.log"; exit 1; }
cmake --build build-gpu -j "$(nproc)" > "$out/build.log" 2>&1 || { grep -E "error|Error" "$out/build.log" | head -30; exit 1; }
log "built in $(( $(date +%s) - t0 )) s"

exe=build-gpu/tuner/app/pimg-tune
$exe devices | tee "$out/devices.txt"

# Validation on the GPU: every CUDA and OpenCL variant against the CPU reference.
# PIMG_TEST_REGEX runs the tests whose names match it instead (ctest -R), e.g. 'MpiCuda' for the MPI
# variant whose ranks run on the GPUs. ctest names one entry per GoogleTest suite ('CudaRun', 'Cuda/NvrtcMma'),
# not per test: 'CudaRun.Mma' matches nothing, '^CudaRun$' runs every CudaRun test.
if [ -n "${PIMG_TEST_REGEX:-}" ]; then
  ctest --test-dir build-gpu -R "$PIMG_TEST_REGEX" -j 4 --output-on-failure > "$out/tests.log" 2>&1
  log "tests matching $PIMG_TEST_REGEX: $(grep -E 'tests passed|tests failed' "$out/tests.log" | tail -1)"
elif [ -z "${PIMG_SKIP_TESTS:-}" ] && [ -z "${PIMG_SEEDS:-}" ]; then
  # PIMG_TEST_LABELS narrows the labels (default nvrtc|opencl; the GPU suites are labelled nvrtc, and a label that
  # matches no test is an error here rather than an empty pass).
  ctest --test-dir build-gpu -L "${PIMG_TEST_LABELS:-nvrtc|opencl}" --no-tests=error -j 8 --output-on-failure > "$out/tests.log" 2>&1
  log "tests: $(grep -E 'tests passed|tests failed|No tests were found' "$out/tests.log" | tail -1)"
fi

spaces=("$@")
# PIMG_CEILING="MiB ..." (issue 39): every way the bandwidth ceiling copies at those working-set sizes, each with its
# share of the fastest and of PIMG_NOMINAL_GBS (bench/ceiling_bench.cpp), into out/gpu/ceiling.csv; nothing tuned.
if [ -n "${PIMG_CEILING:-}" ]; then
  # shellcheck disable=SC2086
  PIMG_BACKEND=${PIMG_BACKEND:-cuda} build-gpu/bench/pimg_ceiling_bench $PIMG_CEILING > "$out/ceiling.csv" 2> "$out/ceiling.err"
  rc=$?
  log "ceiling: exit $rc; the fastest way at each size:"
  awk -F, 'NR > 1 && !seen[$3 FS $4]++' "$out/ceiling.csv" | tee -a "$out/summary.txt"
  [ -n "${OUT:-}" ] && cp "$out/ceiling.csv" "$OUT/" 2>/dev/null
  exit $rc
fi
# PIMG_PROFILE=1 (issue 39): Nsight Compute over the H200 winners that miss their bars (scripts/gpu-profile.sh), one
# text report per kernel under out/gpu/profile; nothing tuned.
if [ -n "${PIMG_PROFILE:-}" ]; then
  bash scripts/gpu-profile.sh "$out/profile" | tee -a "$out/summary.txt"
  exit "${PIPESTATUS[0]}"
fi
# PIMG_T1_BAT=1 (issue 35): BAT's T1 files instead (scripts/t1-bat.sh; the files given, or all of them).
if [ -n "${PIMG_T1_BAT:-}" ]; then
  bash scripts/t1-bat.sh "$exe" "$out/t1-bat.db" "${spaces[@]}"
  exit $?
fi
# PIMG_RACE=1 (issue 34): racing against no racing on the spaces given (scripts/race-bench.sh), into out/gpu/race.
if [ -n "${PIMG_RACE:-}" ]; then
  bash scripts/race-bench.sh "$exe" "$out/race" "${spaces[@]}"
  rc=$?
  cat "$out/race/race-summary.txt" >> "$out/summary.txt"
  exit $rc
fi
if [ -n "${PIMG_SEEDS:-}" ]; then
  bash scripts/gpu-seeds.sh "$exe" "$out" "${spaces[@]}"
  rc=$?
  [ -n "${OUT:-}" ] && cp "$out/seeds/README.md" "$OUT/seeds-README.md" 2>/dev/null
  exit $rc
fi
# PIMG_OBSERVE=1 (issue 18): conv and hist from 1024^2 to 8192^2 on CUDA and the CPUs with every observation
# (transfers pinned and pageable, footprint, NVML energy, whole-program runs of the top configurations with
# their start-up parts, Nsight Compute counters of those when ncu is on the PATH); docs/observers.md.
if [ -n "${PIMG_OBSERVE:-}" ] && [ ${#spaces[@]} -eq 0 ]; then
  spaces=(spaces/observe/conv-gpu.yaml spaces/observe/hist-gpu.yaml)
  export PIMG_NCU=${PIMG_NCU:-1}
  log "observers: ncu $(command -v ncu || echo 'not on the PATH: no CUDA counters')"
fi
[ ${#spaces[@]} -gt 0 ] || spaces=(spaces/conv-gpu.yaml spaces/conv-gpu-separable.yaml)

# PIMG_RANKS="1 2 4" (issue 6): the spaces tuned by the distributed runner on that many GPUs instead.
if [ -n "${PIMG_RANKS:-}" ]; then
  # PIMG_GPUS overrides the GPU count and PIMG_RANKS_FLAGS adds pimg-tune flags to the ranks' runs
  # (PIMG_GPUS=2 PIMG_RANKS_FLAGS=--share-devices tries the distributed runner on a one-GPU machine).
  PIMG_GPUS=${PIMG_GPUS:-$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')} \
    bash scripts/ranks-bench.sh "$exe" "$out" "${spaces[@]}" ${PIMG_RANKS_FLAGS:+-- $PIMG_RANKS_FLAGS}
  exit $?
fi

# The family a space file or a T1 file (*.json) is tuned as.
family_of() {
  case $1 in
    *.json) $exe t1 "$1" --check | sed -n 's/.*: family \([^,]*\),.*/\1/p' ;;
    *) awk '/^family:/ {print $2; exit}' "$1" ;;
  esac
}
for space in "${spaces[@]}"; do
  t1=$(date +%s)
  family=$(family_of "$space")
  # PIMG_TUNE_TIMEOUT (seconds) bounds each space, so a call ends inside the device's limit; the
  # database keeps what was measured, and a later call resumes it.
  case $space in
    *.json) tune=(t1 "$space") ;;
    *) tune=("$family" --space "$space") ;;
  esac
  timeout "${PIMG_TUNE_TIMEOUT:-0}" $exe "${tune[@]}" --db "$out/gpu.db" --top 3 >> "$out/tune.txt" 2>> "$out/tune-progress.log"
  log "tune $space: exit $? in $(( $(date +%s) - t1 )) s; $(tail -1 "$out/tune.txt")"
done
$exe report --db "$out/gpu.db" --out "$out/report/gpu.md" > /dev/null
# Where each configuration's wall time went (docs/design.md, "Where the time goes"), per device and family.
command -v python3 > /dev/null && python3 scripts/time-breakdown.py "$out/gpu.db" | tee -a "$out/summary.txt"
for family in $(for s in "${spaces[@]}"; do family_of "$s"; done | sort -u); do
  $exe best "$family" --db "$out/gpu.db" --json > "$out/best-$family.json"
done

[ -n "${PIMG_SKIP_BENCH:-}" ] || build-gpu/bench/pimg_bench --benchmark_format=console > "$out/bench.txt" 2>&1
log "bench: $(grep -c '^BM_' "$out/bench.txt") benchmarks"
grep -E '^## |^\| ' "$out/report/gpu.md" | grep -i -E 'ratio|npp|speed' | head -20 | tee -a "$out/summary.txt"
tail -n 40 "$out/tune.txt"
