#!/bin/bash
# ab.sh N DIR: N pairs of runs, space.yaml (two confirmation sessions, the host class's default) then space-8.yaml
# (eight), alternating so that the machine's pace meets both alike, each into its own store DIR/sS-rNN.db (log beside).
here=$(dirname "$0")
for i in $(seq -w 1 $1); do
  for s in 2 8; do
    f=$here/space.yaml; [ $s = 8 ] && f=$here/space-8.yaml
    ${PIMG_TUNE:-build/tuner/app/pimg-tune} conv --space "$f" --db $2/s$s-r$i.db > $2/s$s-r$i.log 2>&1
  done
done
