#!/usr/bin/env bash
# Runs each libFuzzer target (fuzz/) for FUZZ_SECONDS (default 30) from a seed corpus taken from the test
# data, with libFuzzer's random seed FUZZ_SEED (default 1: CI meets much the same inputs on every run of a
# commit, so a red run is the commit's doing; FUZZ_SEED=0 draws a new seed, for searching). A finding (crash,
# sanitizer report, timeout) fails the script and leaves the input under build-asan/fuzz-findings/.
# Needs build-asan (scripts/sanitize.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${FUZZ_SECONDS:-30}"
fuzz_seed="${FUZZ_SEED:-1}"
out=build-asan/fuzz-findings
mkdir -p "$out"
[ -x build-asan/fuzz/pimg_space_fuzz ] || { echo "fuzz: build-asan/fuzz is missing; run scripts/sanitize.sh" >&2; exit 1; }
export ASAN_OPTIONS="detect_leaks=0:max_allocation_size_mb=1000:allocator_may_return_null=1"
seeds=$(mktemp -d)
mkdir -p "$seeds/space" "$seeds/constraint" "$seeds/image" "$seeds/su" "$seeds/pyexpr" "$seeds/import"
cp tests/data/spaces/good/*.yaml tests/data/e2e/*.yaml spaces/*.yaml "$seeds/space/"
find tests/data/spaces/bad -name '*.yaml' -size -20k -exec cp {} "$seeds/space/" \;
find tests/data/images -type f -exec cp {} "$seeds/image/" \;
cp tests/data/su/*.su "$seeds/su/"
i=0
grep -rh -A3 'constraints' spaces tests/data/spaces/good tests/data/e2e | sed -n 's/^ *- *//p' | while read -r c; do
  i=$((i + 1))
  printf '%s' "$c" > "$seeds/constraint/$i"
done
printf 'block_x * block_y <= max_work_group_size' > "$seeds/constraint/base"
printf 'mem == local ? block_x %% 8 == 0 : !(block_y / 2)' > "$seeds/constraint/ops"
# The T1 expression language: the values, conditions and sizes of the T1 files in ../shared/t1 (when
# present) and of the project's own, and a few written here.
i=0
find ../shared/t1 tests/data/t1 -name '*.json' -size -200k 2>/dev/null | xargs -r grep -hoE '"(Values|Expression|Size|X|Y|Z)": *"[^"]+"' |
  sed -E 's/^"[A-Za-z]+": *"(.*)"$/\1/' | sort -u | while IFS= read -r x; do
  i=$((i + 1))
  printf '%s' "$x" > "$seeds/pyexpr/$i"
done || true
printf '[2**i for i in range(0, 6)] + [x for x in (1, 2) if x %% 2]' > "$seeds/pyexpr/comprehension"
printf '(-9223372036854775807-1) // -1 if not ppx in [1, 2] else abs(big)' > "$seeds/pyexpr/overflow"
printf 'max(ProblemSize[0] // block_size_x, 1 ** 9223372036854775807) < 2.5e3 <= mode == "global"' > "$seeds/pyexpr/mixed"
# The importer: the hostile corpus's files (its 80 MiB gzip bomb left out: the target's limit is 1 MiB).
find tests/data/hostile/import -type f ! -name 'bomb-*' -exec cp {} "$seeds/import/" \;
# The targets run side by side, as many at a time as there are cores (each libFuzzer process uses one), each for
# the full FUZZ_SECONDS; the script fails when any of them found something.
parallel=$(nproc 2>/dev/null || echo 2)
logs=$(mktemp -d)
trap 'rm -rf "$seeds" "$logs"' EXIT
pids=()
names=()
for target in space constraint image su pyexpr import; do
  while [ "$(jobs -rp | wc -l)" -ge "$parallel" ]; do sleep 1; done
  echo "fuzz: pimg_${target}_fuzz for ${seconds} s"
  build-asan/fuzz/pimg_${target}_fuzz -max_total_time="$seconds" -seed="$fuzz_seed" -timeout=10 -rss_limit_mb=4096 \
    -artifact_prefix="$out/${target}-" -print_final_stats=1 "$seeds/$target" >"$logs/$target.log" 2>&1 &
  pids+=($!)
  names+=("$target")
done
failed=0
for i in "${!pids[@]}"; do
  status=0
  wait "${pids[$i]}" || status=$?
  echo "fuzz: pimg_${names[$i]}_fuzz exit ${status}"
  if [ "$status" -eq 0 ]; then
    tail -n 12 "$logs/${names[$i]}.log"
    continue
  fi
  failed=1
  # A finding: the report from its first line, and the input itself (base64, at most 4 KiB), so a CI log
  # is enough to reproduce it: base64 -d > input; build-asan/fuzz/pimg_<target>_fuzz input
  sed -n '/ERROR: \|SUMMARY: \|^==[0-9]*==/,$p' "$logs/${names[$i]}.log" | grep -v '^INFO:\|^#[0-9]' | head -n 60
  for f in "$out/${names[$i]}"-*; do
    [ -f "$f" ] || continue
    echo "fuzz: input $f ($(stat -c %s "$f") bytes), base64:"
    head -c 4096 "$f" | base64
  done
done
exit "$failed"
