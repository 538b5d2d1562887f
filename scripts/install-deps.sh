#!/usr/bin/env bash
# Installs every Debian 12 package pimg-tune needs to build, test and tune on the CPU (clang and its
# runtime libraries for the sanitizer and libFuzzer build of scripts/sanitize.sh; Open MPI for the
# mpi backend's worker programs; procps, python3 and util-linux for tests/faults/fault_injection.sh;
# headless Chromium for the check that a rendered report shows its summary on the first screen,
# scripts/report-screenshots.sh).
# Idempotent: packages already present are skipped by apt-get; safe to run again.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  ocl-icd-opencl-dev opencl-clhpp-headers opencl-c-headers pocl-opencl-icd clinfo
  libsqlite3-dev sqlite3 zlib1g-dev libfmt-dev libyaml-cpp-dev libcli11-dev libmuparser-dev
  libgtest-dev libgmock-dev libbenchmark-dev libstb-dev libomp-dev libjpeg-dev
  libopencv-imgproc-dev
  gnuplot-nox
  procps python3 util-linux
  openmpi-bin libopenmpi-dev
  clang libclang-rt-14-dev
  chromium fonts-dejavu-core
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "install-deps: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
