#!/usr/bin/env bash
# Issue 6's bar: the wall time of one tuning run on 1, 2, 4... devices of this host with the
# distributed runner (docs/mpi.md part 2), each count into a fresh database, after one untimed run on
# all of them that fills the compile cache, so every timed run loads the same programs. Writes
# OUT/<space>-ranks.md: wall times, their ratio to one device (the sequential runner, no mpirun),
# and whether each run stored the same configurations, statuses and validations as the one-device run.
# PIMG_COLD_CACHE=1: no warm-up run; each timed run starts from an empty compile cache of its own, so its wall time
# includes compiling every program (a fresh CUDA_CACHE_PATH too; the compile pipeline's share: on one device the sequential runner's, on several
# rank 0's for its host).
# Usage: PIMG_RANKS="1 2 4" PIMG_GPUS=N bash scripts/ranks-bench.sh PIMG_TUNE OUT SPACE.yaml|T1.json... [-- EXTRA FLAGS]
# (scripts/gpu-bench.sh calls it with PIMG_GPUS from nvidia-smi; on a CPU machine, PIMG_GPUS=2 and
# `-- --share-devices` try it out, with time-shared timings.)
set -uo pipefail
cd "$(dirname "$0")/.."
exe=$1 out=$2
shift 2
spaces=() extra=()
while [ $# -gt 0 ]; do
  if [ "$1" = "--" ]; then shift; extra=("$@"); break; fi
  spaces+=("$1"); shift
done
ranks=${PIMG_RANKS:-1 2 4}
devices=${PIMG_GPUS:-1}
launcher=(mpirun --oversubscribe --bind-to none --mca btl_vader_single_copy_mechanism none)
[ "$(id -u)" = 0 ] && launcher+=(--allow-run-as-root)
# Without ssh or rsh (the GPU machines) Open MPI's default launcher refuses even local ranks.
command -v ssh > /dev/null || command -v rsh > /dev/null || launcher+=(--mca plm isolated)
mkdir -p "$out"
log() { echo "== $*" | tee -a "$out/summary.txt"; }
# A run's messages, each line stamped with the seconds since the run started (where its time goes); progress lines
# left out.
stamp() {
  perl -MTime::HiRes=time -e '$t0 = time; $| = 1; while (<STDIN>) { s/\r/\n/g;
    for (split /\n/) { next if /^\[\d+\//; printf "%7.2f %s\n", time - $t0, $_ } }'
}
now() { date +%s.%N; }
for space in "${spaces[@]}"; do
  # A space file is tuned by its family's command, a T1 file (*.json) by `pimg-tune t1`.
  case $space in
    *.json) name=$(basename "$space" .json) tune=(t1 "$space") ;;
    *) name=$(basename "$space" .yaml) tune=("$(awk '/^family:/ {print $2; exit}' "$space")" --space "$space") ;;
  esac
  if [ -n "${PIMG_COLD_CACHE:-}" ]; then
    log "$name: every timed run from an empty compile cache"
  elif [ "$devices" -gt 1 ]; then
    "${launcher[@]}" -np "$devices" "$exe" "${tune[@]}" --quiet --db "$out/$name-warm.db" "${extra[@]}" \
      > "$out/$name-warm.txt" 2>&1
    log "$name: compile cache filled on $devices devices: exit $?"
  else
    "$exe" "${tune[@]}" --quiet --db "$out/$name-warm.db" > "$out/$name-warm.txt" 2>&1
    log "$name: compile cache filled on $devices devices: exit $?"
  fi
  table="$out/$name-ranks.md"
  printf '| devices (ranks) | wall s | speed-up over 1 | measured | evaluations per rank | same stored set as 1 |\n|---|---|---|---|---|---|\n' > "$table"
  base=""
  declare -A walls=()
  for r in $ranks; do
    if [ "$r" -gt "$devices" ]; then log "$name: $r devices: only $devices here, skipped"; continue; fi
    db="$out/$name-$r.db"
    rm -f "$db"
    # The driver's own cache of compiled GPU code too (NVIDIA's OpenCL reuses it across processes): a run after
    # another would find the earlier run's programs there.
    [ -z "${PIMG_COLD_CACHE:-}" ] || export PIMG_CACHE_DIR="$(mktemp -d)" CUDA_CACHE_PATH="$(mktemp -d)"
    t1=$(now)
    if [ "$r" = 1 ]; then
      # One device: the others hidden, or a `cuda: {}` space would open (and measure the ceiling of) every GPU.
      CUDA_VISIBLE_DEVICES=0 "$exe" "${tune[@]}" --db "$db" --top 3 > >(stamp > "$out/$name-$r.txt") 2> >(stamp > "$out/$name-$r.log")
    else
      "${launcher[@]}" -np "$r" "$exe" "${tune[@]}" --db "$db" --top 3 "${extra[@]}" \
        > >(stamp > "$out/$name-$r.txt") 2> >(stamp > "$out/$name-$r.log")
    fi
    rc=$?
    walls[$r]=$(awk -v a="$t1" -v b="$(now)" 'BEGIN {printf "%.2f", b - a}')
    log "$name on $r: exit $rc in ${walls[$r]} s"
  done
  # The table once every count has run, so that the ranks may run in any order ("2 1": the larger first): each
  # speed-up against the 1-device run (else the first run), each stored set against the 1-device run's.
  for r in $ranks; do
    [ -n "${walls[$r]:-}" ] || continue
    [ -n "$base" ] || base=${walls[1]:-${walls[$r]}}
    db="$out/$name-$r.db"
    same=$( [ -e "$out/$name-1.db" ] && python3 scripts/same-results.py "$out/$name-1.db" "$db" 2>&1 || echo "no 1-device run")
    measured=$(grep -o '[0-9]* measured' "$out/$name-$r.txt" | head -1)
    per_rank=$(grep -o 'evaluations per rank: .*' "$out/$name-$r.txt" | cut -d: -f2)
    printf '| %s | %s | %sx | %s | %s | %s |\n' "$r" "${walls[$r]}" \
      "$(awk -v a="$base" -v b="${walls[$r]}" 'BEGIN {printf "%.2f", a / b}')" "${measured% measured}" \
      "${per_rank:- all}" "$same" >> "$table"
  done
  tee -a "$out/summary.txt" < "$table"
done
