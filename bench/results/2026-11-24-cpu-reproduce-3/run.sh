#!/usr/bin/env bash
# Waits for the sanitizer run to end, then two consecutive runs of spaces/conv.yaml on the idle machine.
while ! grep -q '^rc=' /tmp/sanitize.log; do sleep 5; done
cd /work/main
for i in 1 2; do
  export PIMG_CACHE_DIR=$(mktemp -d)
  /usr/bin/time -v /work/repro-bin/pimg-tune conv --space spaces/conv.yaml --db /work/cpu-bench4/conv-$i.db --quiet > /work/cpu-bench4/conv-$i.log 2>&1
done
python3 scripts/reproduce.py /work/cpu-bench4/conv-1.db /work/cpu-bench4/conv-2.db --json /work/cpu-bench4/conv-1-vs-2.json --tune /work/repro-bin/pimg-tune > /work/cpu-bench4/conv-1-vs-2.md 2>&1
echo done > /work/cpu-bench4/DONE
