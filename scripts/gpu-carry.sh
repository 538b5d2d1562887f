#!/usr/bin/env bash
# Prepares .device-carry/ on this workstation (Debian 12) with what the bare GPU machine (Ubuntu 24.04,
# nothing installable) lacks to build pimg-tune: headers (sqlite3, CLI11, muparser, stb, OpenCL), the
# shared libraries behind them (Debian builds; Ubuntu 24.04's newer glibc runs them), a pkgconf binary,
# and relocatable CMake/pkg-config files. Real files only (the device tool may drop symlinks), so each
# library is there under its soname (for running) and its unversioned name (for linking).
set -euo pipefail
cd "$(dirname "$0")/.."
carry=.device-carry
arch_lib=/usr/lib/x86_64-linux-gnu

# The real file behind a library name, copied under the given name (its soname).
copy_lib() {
  local name=$1 as=$2 path
  path=$(readlink -f "$arch_lib/$name")
  [ -f "$path" ] || { echo "gpu-carry: $arch_lib/$name not found (install its -dev package)" >&2; exit 1; }
  cp "$path" "$carry/lib/$as"
}

need() {
  [ -e "$1" ] || { echo "gpu-carry: $1 not found (install its -dev package)" >&2; exit 1; }
}

for f in /usr/include/sqlite3.h /usr/include/sqlite3ext.h /usr/include/CLI /usr/include/muParser.h \
         /usr/include/stb /usr/include/CL/cl.h /usr/share/cmake/CLI11/CLI11Config.cmake /usr/bin/pkgconf; do
  need "$f"
done

[ ! -d "$carry" ] || chmod -R u+w "$carry"  # ../shared is read-only, and so are the copies of its folders
rm -rf "$carry"
mkdir -p "$carry/include" "$carry/lib/pkgconfig" "$carry/share/cmake/CLI11" "$carry/bin" "$carry/opencl"

cp /usr/include/sqlite3.h /usr/include/sqlite3ext.h "$carry/include/"
cp -rL /usr/include/CLI /usr/include/stb /usr/include/CL "$carry/include/"
cp /usr/include/muParser*.h "$carry/include/"
# zlib (T4 import) and libjpeg (the image decoders' strict JPEG path): headers, and Debian's libraries
# under their sonames (the GPU machine may lack the -dev packages).
cp /usr/include/zlib.h /usr/include/zconf.h /usr/include/jpeglib.h /usr/include/jerror.h /usr/include/jmorecfg.h \
   /usr/include/x86_64-linux-gnu/jconfig.h "$carry/include/"
cp /usr/share/cmake/CLI11/CLI11Config*.cmake "$carry/share/cmake/CLI11/"

copy_lib libmuparser.so libmuparser.so.2
copy_lib libmuparser.so libmuparser.so
copy_lib libstb.so libstb.so.0
copy_lib libstb.so libstb.so
copy_lib libpkgconf.so.3 libpkgconf.so.3
copy_lib libz.so libz.so.1
copy_lib libz.so libz.so
copy_lib libjpeg.so libjpeg.so.62
copy_lib libjpeg.so libjpeg.so
# The ICD loader apart from lib/, used only when the GPU machine has no libOpenCL.so.1 of its own.
cp "$(readlink -f "$arch_lib/libOpenCL.so.1")" "$carry/opencl/libOpenCL.so.1"
cp "$(readlink -f "$arch_lib/libOpenCL.so.1")" "$carry/opencl/libOpenCL.so"
cp "$(readlink -f /usr/bin/pkgconf)" "$carry/bin/pkgconf"

# pkgconf resolves ${pcfiledir} to this file's directory, so the prefix moves with the folder.
version=$(pkg-config --modversion muparser)
cat > "$carry/lib/pkgconfig/muparser.pc" <<EOF
prefix=\${pcfiledir}/../..
libdir=\${prefix}/lib
includedir=\${prefix}/include

Name: muparser
Description: Mathematical expressions parser library (carried from Debian 12)
Version: $version
Libs: -L\${libdir} -lmuparser
Cflags: -I\${includedir}
EOF

# Seismic input of the semblance family (issue 5): spaces name it as ../shared/data/semblance/...
mkdir -p "$carry/shared/data/semblance"
cp ../shared/data/semblance/* "$carry/shared/data/semblance/"
# T1 kernel descriptions (issue 16): `scripts/gpu-bench.sh ../shared/t1/convolution_milo.json`.
mkdir -p "$carry/shared/t1"
cp -r ../shared/t1/. "$carry/shared/t1/"
# Seed 004's author's programs (issue 21): scripts/gpu-seeds.sh builds and times reg-openmp beside ours.
mkdir -p "$carry/shared/peers"
cp -r ../shared/peers/* "$carry/shared/peers/"

{
  echo "# .device-carry: made by scripts/gpu-carry.sh on $(hostname) at $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "# Debian packages copied from:"
  dpkg-query -W -f '${Package} ${Version}\n' libsqlite3-dev libcli11-dev libmuparser-dev libmuparser2v5 \
    libstb-dev libstb0 opencl-c-headers ocl-icd-libopencl1 pkgconf-bin libpkgconf3 2>/dev/null || true
  echo "# files:"
  (cd "$carry" && find . -type f ! -name MANIFEST.txt | sort | xargs sha256sum)
} > "$carry/MANIFEST.txt"

if find "$carry" -type l | grep -q .; then
  echo "gpu-carry: symlinks in $carry (the carry must hold real files)" >&2
  exit 1
fi
echo "gpu-carry: $carry ready, $(du -sh "$carry" | cut -f1), $(find "$carry" -type f | wc -l) files"

# What travels to the GPU machine: the plain tracked tree (no sparse checkout; the tree_size test keeps it
# under 24 MiB, issue 33) and this carry, together under the device tool's 64 MiB.
mib() { echo $(( ($1 + 1048575) / 1048576 )); }
tree=$({ git ls-files -z 2>/dev/null || true; } | { du -cb --files0-from=- 2>/dev/null || true; } | tail -1 | cut -f1)
tree=${tree:-0}
own=$(du -sb "$carry" | cut -f1)
echo "gpu-carry: tracked tree $(mib "$tree") MiB + $carry $(mib "$own") MiB = $(mib $((tree + own))) MiB of the device tool's 64"
if [ $((tree + own)) -gt $((64 * 1048576)) ]; then
  echo "gpu-carry: over the device tool's 64 MiB: see bench/results/README.md (size budget)" >&2
  exit 1
fi
