#!/usr/bin/env bash
# Installs every Debian 12 package pimg-tune needs to build, test and tune on the CPU (clang and its
# runtime libraries for the sanitizer and libFuzzer build of scripts/sanitize.sh; Open MPI for the
# mpi backend's worker programs; procps, python3 and util-linux for tests/faults/fault_injection.sh;
# headless Chromium for the check that a rendered report shows its summary on the first screen,
# scripts/report-screenshots.sh; Python's jsonschema to check T4 exports against the published schemas,
# tests/t4_schema.hpp; NVRTC alone, from Debian's non-free component, for the test that compiles CUDA
# kernels for sm_90 without a CUDA toolkit, tests/nvrtc; zsh and fish to check the completion scripts the tool
# writes for them; gdb to check that the installed program's split debug information is found, tests/consumer).
# Idempotent: packages already present are skipped by apt-get; safe to run again.
set -euo pipefail

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"

# libnvrtc11.2 (NVRTC 11.8, which compiles for sm_90) is in Debian's non-free component, which a
# default Debian 12 does not enable. Enable it for the current suite in a file of its own, leaving
# every other apt source as it is; nothing is written where some source already lists non-free.
nonfree=/etc/apt/sources.list.d/pimg-debian-non-free.sources
. /etc/os-release
if [ "${ID:-}" = debian ] && [ ! -e "$nonfree" ] &&
   ! grep -Eqs '^(Components:.*[[:space:]]non-free([[:space:]]|$)|deb[[:space:]].*[[:space:]]non-free([[:space:]]|$))' \
     /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; then
  echo "install-deps: enabling Debian's non-free component for ${VERSION_CODENAME} in $nonfree"
  printf '%s\n' "# Written by pimg-tune's scripts/install-deps.sh: Debian's non-free component, for libnvrtc11.2." \
    "Types: deb" "URIs: http://deb.debian.org/debian" "Suites: ${VERSION_CODENAME}" "Components: non-free" \
    "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg" | $SUDO tee "$nonfree" >/dev/null
fi

packages=(
  build-essential cmake ninja-build pkg-config git
  ocl-icd-opencl-dev opencl-clhpp-headers opencl-c-headers pocl-opencl-icd clinfo
  libsqlite3-dev sqlite3 zlib1g-dev libfmt-dev libyaml-cpp-dev libcli11-dev libmuparser-dev
  libgtest-dev libgmock-dev libbenchmark-dev libstb-dev libomp-dev libjpeg-dev
  libopencv-imgproc-dev
  gnuplot-nox
  procps python3 util-linux
  python3-jsonschema
  openmpi-bin libopenmpi-dev
  clang libclang-rt-14-dev
  chromium fonts-dejavu-core
  libnvrtc11.2
  zsh fish
  gdb
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
