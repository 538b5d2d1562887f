#!/usr/bin/env bash
# The seeds' experiments on the GPU machine (issue 21), called by scripts/gpu-bench.sh with PIMG_SEEDS=1 after
# its build: every spaces/seeds/*-gpu.yaml tuned into one database, OUT/seeds.db, within one time bound for
# them all, each space with its report and pictures under OUT/seeds/NAME/; then the report of the whole
# database (OUT/seeds/report/seeds.md), the seed report (scripts/seed-report.py: OUT/seeds/README.md) and
# seed 004's author's program timed beside the tuned OpenMP configuration (scripts/seed004-peer.py, built
# from ../shared/peers/reg-openmp), appended to the seed report.
# Usage: scripts/gpu-seeds.sh EXE OUT [SPACE.yaml ...]   (default: every spaces/seeds/*-gpu.yaml)
# PIMG_SEEDS_BUDGET: seconds for all the tuning (default 360). Each space gets a share of what is left,
# weighted (searches: the batch of 20 frames 2, seed 004's search 3, the others 1; ladders: ladder_weight, from
# their measured times), and what a space leaves goes to the
# ones after it; a space cut off keeps what it stored (resume: a later call with the database carried goes on).
set -uo pipefail
[ $# -ge 2 ] || { echo "usage: $0 EXE OUT [SPACE.yaml ...]" >&2; exit 2; }
exe=$1
out=$2
shift 2
spaces=("$@")
if [ ${#spaces[@]} -eq 0 ]; then
  # Cheap spaces first; seed 004's search, the longest, last with whatever is left.
  for f in spaces/seeds/*-gpu.yaml; do
    case $f in *004-*) ;; *) spaces+=("$f") ;; esac
  done
  for f in spaces/seeds/004-*-gpu.yaml; do [ -e "$f" ] && spaces+=("$f"); done
fi
# A ladder's share: its seconds on the H200 machine of 2026-11-28 over 15, rounded (bench/results/2026-11-28-h200-seeds:
# a host step costs 7-11 s per problem, so the five- and six-size spaces need most; all eleven about 5 minutes).
ladder_weight() {
  case $1 in
    *000-sharpen*|*002-rotate*) echo 5 ;;
    *000-histeq*|*004-*) echo 4 ;;
    *002-flip*) echo 3 ;;
    *batch*|*maxpool-windows*) echo 2 ;;
    *) echo 1 ;;
  esac
}
weight() {
  case $1 in
    *004-*) echo 3 ;;
    *batch*) echo 2 ;;
    *) echo 1 ;;
  esac
}
db=$out/seeds.db
mkdir -p "$out/seeds"
log() { echo "== $*" | tee -a "$out/summary.txt"; }
start=$(date +%s)
deadline=$(( start + ${PIMG_SEEDS_BUDGET:-360} ))
status=0
# First every space's ladder alone (the seeds' tables; a space's search on the CPUs takes minutes), within
# PIMG_SEEDS_LADDER_SHARE percent of the budget (default 60; 100: the ladders alone); then the searches with what is
# left. With the database carried (PIMG_KEEP_OUT=1), a later call goes on: every (ladder, problem, device) already
# stored is skipped, and each search resumes.
ladder_deadline=$(( start + ${PIMG_SEEDS_BUDGET:-360} * ${PIMG_SEEDS_LADDER_SHARE:-60} / 100 ))
for i in "${!spaces[@]}"; do
  space=${spaces[$i]}
  grep -q '^ladder:' "$space" || continue
  name=$(basename "$space" .yaml)
  family=$(awk '/^family:/ {print $2; exit}' "$space")
  left_weight=0
  for s in "${spaces[@]:$i}"; do left_weight=$(( left_weight + $(ladder_weight "$s") )); done
  bound=$(( (ladder_deadline - $(date +%s)) * $(ladder_weight "$space") / left_weight ))
  [ "$bound" -ge 10 ] || bound=10
  t1=$(date +%s)
  # Not --quiet: the log says, with the time of each line, where the time went (a cut-off ladder's log is all
  # there is of it; stdbuf -oL: piped, pimg-tune's lines sat in its buffer until it exited, so every line of a
  # 2026-11-28 log had its exit's time). A (ladder, problem, device) stored by an earlier call is skipped (resume).
  timeout -k 10 "$bound" stdbuf -oL "$exe" "$family" --ladder-only --space "$space" --db "$db" 2>&1 |
    awk '{ print strftime("%H:%M:%S"), $0; fflush() }' > "$out/seeds/$name-ladder.log"
  rc=${PIPESTATUS[0]}
  log "seeds: $name ($family) ladder: exit $rc in $(( $(date +%s) - t1 )) s (bound $bound s)$([ $rc -eq 124 ] && echo ': cut off, partial')"
done
# PIMG_SEEDS_LADDER_SHARE=100: the ladders alone (the seed report reads ladders only), no searches.
[ "${PIMG_SEEDS_LADDER_SHARE:-60}" -ge 100 ] && spaces_to_search=() || spaces_to_search=("${spaces[@]}")
for i in "${!spaces_to_search[@]}"; do
  space=${spaces[$i]}
  name=$(basename "$space" .yaml)
  family=$(awk '/^family:/ {print $2; exit}' "$space")
  left_weight=0
  for s in "${spaces[@]:$i}"; do left_weight=$(( left_weight + $(weight "$s") )); done
  now=$(date +%s)
  bound=$(( (deadline - now) * $(weight "$space") / left_weight ))
  [ "$bound" -ge 10 ] || bound=10
  t1=$(date +%s)
  timeout -k 10 "$bound" "$exe" "$family" --quiet --space "$space" --db "$db" --report "$out/seeds/$name/$family.md" \
    > "$out/seeds/$name.log" 2>&1
  rc=$?
  [ $rc -eq 0 ] || status=1
  log "seeds: $name ($family): exit $rc in $(( $(date +%s) - t1 )) s (bound $bound s)$([ $rc -eq 124 ] && echo ': cut off, partial')"
done
"$exe" report --db "$db" --out "$out/seeds/report/seeds.md" > /dev/null 2>&1 || log "seeds: report of $db failed"
python3 scripts/seed-report.py --out "$out/seeds/README.md" \
  --note "Measured with \`PIMG_SEEDS=1 scripts/gpu-bench.sh\` (scripts/gpu-seeds.sh) on $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1) with $(nproc) CPU cores, commit $(cat .git-commit 2>/dev/null || git rev-parse --short=12 HEAD 2>/dev/null). Each NNN-*/ folder holds a space's report and pictures (a space cut off by the time bound has none; report/seeds.md is the whole store's)." \
  "$db" || status=1
if python3 scripts/seed004-peer.py --db "$db" --out "$out/seeds/004-peer.md" --runs 3 2> "$out/seeds/004-peer.log"; then
  { echo; cat "$out/seeds/004-peer.md"; } >> "$out/seeds/README.md"
else
  log "seeds: seed 004's own program not timed: $(cat "$out/seeds/004-peer.log"; tail -2 "$out/seeds/004-peer.md" 2>/dev/null)"
fi
log "seeds: report $out/seeds/README.md ($(grep -c '^## Seed' "$out/seeds/README.md" 2>/dev/null) sections)"
exit $status
