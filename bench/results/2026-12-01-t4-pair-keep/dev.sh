#!/bin/bash
P=${PIMG_TUNE:-build/tuner/app/pimg-tune}
pk=$1
for sp in a100:t4:convolution a4000:t4:convolution dd:t4:dedispersion; do
  db=${sp%%:*}; fam=${sp#*:}
  PIMG_DUMP=1 $P strategies --db $db.db --family $fam --seeds 200 --first-seed 5001 --max-evals 400 --strategy default --option portfolio.pair_keep=$pk > dev-$db-$pk.txt 2> dev-$db-$pk.dump
done
