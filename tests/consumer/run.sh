#!/usr/bin/env bash
# The consumer test (ctest Consumer.*): `find_package`: install the build into a temporary prefix,
# build tests/consumer against it in C++17, tune the T1 sharpen kernel on PoCL and look its best
# configuration up from the consumer; `add_subdirectory`: configure tests/consumer with the source
# tree added as a subdirectory (and with PIMG_CONSUMER_BUILD=1 build and run the consumer there).
# Usage: run.sh BUILD_DIR SOURCE_DIR PIMG_TUNE find_package|add_subdirectory. Exit 77: skipped.
set -euo pipefail
build=$1 src=$2 tune=$3 mode=$4
if grep -q '^PIMG_SANITIZE:BOOL=ON' "$build/CMakeCache.txt"; then
  echo "a sanitizer build: its lookup library needs the sanitizer runtime in the consumer; tested by the plain build"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
if [ "$mode" = add_subdirectory ]; then
  cmake -S "$src/tests/consumer" -B "$tmp/b" "${gen[@]}" -DPIMG_SOURCE="$src" -DCMAKE_BUILD_TYPE=Release >"$tmp/log" 2>&1 ||
    { cat "$tmp/log"; exit 1; }
  # Building the consumer compiles the lookup library (a minute on 2 cores): PIMG_CONSUMER_BUILD=1 does it.
  if [ -n "${PIMG_CONSUMER_BUILD:-}" ]; then
    cmake --build "$tmp/b" --target consumer -j2 >>"$tmp/log" 2>&1 || { cat "$tmp/log"; exit 1; }
    out=$("$tmp/b/consumer" "$tmp/none.db" conv x 1x1 || true)
    echo "$out"
    grep -q "no such database" <<<"$out"
  fi
  exit 0
fi
cmake --install "$build" --prefix "$tmp/prefix" >"$tmp/log" 2>&1 || { cat "$tmp/log"; exit 1; }
test -x "$tmp/prefix/bin/pimg-tune"
size=$(stat -c %s "$tmp/prefix/bin/pimg-tune")
[ "$size" -lt $((30 << 20)) ] || { echo "the installed pimg-tune is $size bytes, over 30 MiB"; exit 1; }
# Its debug information split off beside it (cmake/split_debug.cmake, in a build with debug information), where gdb
# finds it: a line of main() resolves to its source file.
if grep -Eq '^CMAKE_BUILD_TYPE:STRING=(RelWithDebInfo|Debug)$' "$build/CMakeCache.txt"; then
  test -s "$tmp/prefix/bin/.debug/pimg-tune.debug" || { echo "no bin/.debug/pimg-tune.debug installed"; exit 1; }
  if command -v gdb >/dev/null; then
    line=$(gdb -batch -ex "info line main" "$tmp/prefix/bin/pimg-tune" 2>&1 | tail -1)
    grep -q 'main.cpp" starts at address' <<<"$line" || { echo "gdb found no line of main(): $line"; exit 1; }
  fi
fi
# The man page and the completions, where man and the shells look.
for f in share/man/man1/pimg-tune.1 share/bash-completion/completions/pimg-tune share/zsh/site-functions/_pimg-tune \
  share/fish/vendor_completions.d/pimg-tune.fish; do
  test -s "$tmp/prefix/$f" || { echo "cmake --install did not install $f"; exit 1; }
done
cmake -S "$src/tests/consumer" -B "$tmp/b" "${gen[@]}" -DCMAKE_PREFIX_PATH="$tmp/prefix" >>"$tmp/log" 2>&1 ||
  { cat "$tmp/log"; exit 1; }
cmake --build "$tmp/b" >>"$tmp/log" 2>&1 || { cat "$tmp/log"; exit 1; }
"$tune" devices | grep -q '^opencl:0' || { echo "no OpenCL device (PoCL): the lookup is not exercised"; exit 77; }
PIMG_CACHE_DIR="$tmp/cache" "$tmp/prefix/bin/pimg-tune" t1 "$src/tests/data/t1/sharpen.json" --db "$tmp/t.db" \
  --repeats 1 --quiet >"$tmp/tune.log" 2>&1 || { cat "$tmp/tune.log"; exit 1; }
device=$(sqlite3 "$tmp/t.db" "SELECT backend || ':' || name FROM devices LIMIT 1")
out=$("$tmp/b/consumer" "$tmp/t.db" t1-sharpen "$device" 256x96)
echo "$out"
grep -Eq '^sharpen block_size_x=(8|16) block_size_y=(1|4) ppx=(1|2) on .* \(exact\)' <<<"$out"
# The id `pimg-tune devices` prints names the same device; one that names none says why.
"$tmp/b/consumer" "$tmp/t.db" t1-sharpen opencl:0 256x96 | grep -q '(exact)'
out=$("$tmp/b/consumer" "$tmp/t.db" t1-sharpen opencl:7 256x96 || true)
echo "$out"
grep -q "no stored configuration: no stored device matches 'opencl:7'" <<<"$out"
# A size never tuned falls back to the nearest one.
"$tmp/b/consumer" "$tmp/t.db" t1-sharpen "$device" 512x512 | grep -q '(nearest_size)'
