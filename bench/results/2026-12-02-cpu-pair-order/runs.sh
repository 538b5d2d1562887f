#!/bin/bash
# runs.sh N DIR: N runs of space.yaml one after the other, each into its own store DIR/rNN.db (log beside).
for i in $(seq -w 1 $1); do
  ${PIMG_TUNE:-build/tuner/app/pimg-tune} conv --space "$(dirname "$0")/space.yaml" --db $2/r$i.db > $2/r$i.log 2>&1
done
