#!/usr/bin/env bash
# The main job on a fresh Debian 12 machine: install dependencies, build, tune the conv family on
# every device present (OpenCL devices such as PoCL, OpenMP on the host, the serial and OpenCV
# baselines), and write the database and the markdown report with its plots under out/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh
mkdir -p out
./build/tuner/app/pimg-tune conv --space spaces/conv.yaml --db out/pimg-tune.db --report out/report/conv.md
./build/tuner/app/pimg-tune best conv --db out/pimg-tune.db --json > out/best-conv.json
echo "database: out/pimg-tune.db  report: out/report/conv.md  best: out/best-conv.json"
