#!/usr/bin/env bash
# Racing against no racing on one machine in one call (issue 34; docs/measurement.md, "Racing"): each SPACE is
# tuned twice, each time into a fresh store with a fresh compile cache: as written (racing at its default) and with
# `race: 0` added to its measure, in alternating order (the first space racing first, the next not, ...). Prints
# each run's wall time; then scripts/reproduce.py says whether the two runs agree on every winner, and
# scripts/race-replay.py replays racing on the samples of the run without it (nothing within 2% of a winner may be
# dropped). PIMG_TUNE_TIMEOUT (seconds, default none) bounds each run.
# Usage: race-bench.sh PIMG_TUNE OUT_DIR SPACE.yaml...
set -uo pipefail
exe=$1 out=$2
shift 2
mkdir -p "$out"
summary=$out/race-summary.txt
k=0
for space in "$@"; do
  name=$(basename "$space" .yaml)
  family=$(awk '/^family:/ {print $2; exit}' "$space")
  off=$out/$name-race0.yaml
  if grep -q '^measure: {' "$space"; then
    sed 's/^measure: {/measure: {race: 0, /' "$space" > "$off"
  else
    { cat "$space"; echo "measure: {race: 0}"; } > "$off"
  fi
  # The spaces' data paths are relative to the repository root: the copy runs from there too.
  order=(on off)
  [ $((k % 2)) = 0 ] || order=(off on)
  k=$((k + 1))
  for mode in "${order[@]}"; do
    file=$space
    [ "$mode" = on ] || file=$off
    rm -rf "$out/$name-$mode.db" "$out/cache-$name-$mode"
    t0=$(date +%s%N)
    PIMG_CACHE_DIR=$out/cache-$name-$mode timeout "${PIMG_TUNE_TIMEOUT:-0}" "$exe" "$family" --quiet --space "$file" \
      --db "$out/$name-$mode.db" > "$out/$name-$mode.txt" 2>&1
    rc=$?
    t1=$(date +%s%N)
    rm -rf "$out/cache-$name-$mode"
    raced=$(sqlite3 "$out/$name-$mode.db" "SELECT count(*) FROM evaluations WHERE instr(flags, 'raced') > 0" 2>/dev/null ||
      python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(\"SELECT count(*) FROM evaluations WHERE instr(flags, 'raced') > 0\").fetchone()[0])" "$out/$name-$mode.db")
    printf '%s racing %-3s exit %s in %.1f s, %s configurations raced; %s\n' "$name" "$mode" "$rc" \
      "$(( (t1 - t0) / 1000000000 )).$(( (t1 - t0) / 100000000 % 10 ))" "$raced" "$(tail -1 "$out/$name-$mode.txt")" | tee -a "$summary"
  done
  python3 scripts/reproduce.py "$out/$name-on.db" "$out/$name-off.db" --tune "$exe" > "$out/$name-reproduce.txt" 2>&1
  echo "$name: reproduce.py (racing on vs off) exit $?: $(tail -1 "$out/$name-reproduce.txt")" | tee -a "$summary"
  python3 scripts/race-replay.py "$out/$name-off.db" > "$out/$name-replay.txt" 2>&1
  echo "$name: race-replay.py on the run without racing: $(tail -1 "$out/$name-replay.txt")" | tee -a "$summary"
done
