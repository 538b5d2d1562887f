#!/usr/bin/env bash
# Faults of the machine and hostile input against the pimg-tune binary (docs/reliability.md, issue 17):
# full filesystems, killed and stopped workers and tuners, held write locks, concurrent tuners, and a
# corpus of refused inputs. Prints the figures docs/reliability.md quotes; fails unless all are 100%.
# Usage: fault_injection.sh PIMG_TUNE_EXE TEST_DATA_DIR
set -u
TUNE=$(realpath "$1")
DATA=$(realpath "$2")
W=$(mktemp -d "${TMPDIR:-/tmp}/pimg-faults.XXXXXX")
export PIMG_CACHE_DIR=$W/cache
mkdir -p "$W/cache" "$W/tmp" "$W/logs"
L=$W/logs
export TMPDIR=$W/tmp
cd "$W" || exit 1

FAULTS=0 RECOVERED=0 REFUSED=0 UNCHANGED=0 READS=0 READS_CLEAN=0 DUPLICATES=0 FAILED=0 SKIPPED=0
fail() { echo "FAIL: $*"; FAILED=$((FAILED + 1)); }
note() { echo "-- $*"; }
section() { echo "== $* (at ${SECONDS}s)"; }

# A tiny OpenMP conv space: 2 schedules x 2 thread counts (4 configurations).
space() {  # file size repeats timeout_s [filter]
  cat >"$1" <<EOF
family: conv
problems:
  - filter: ${5:-box3}
    sizes: [$2]
    channels: 1
backends:
  openmp: {devices: [0]}
variants:
  omp_rows:
    schedule: [static, dynamic]
    threads: [1, 2]
strategy: {name: exhaustive}
measure: {warmups: 1, repeats: $3, max_repeats: $3, cache: hot, timeout_s: $4, confirm: {top: 0}}
EOF
}
space small.yaml 64x64 3 5
space slow.yaml 4096x4096 10 2 sharpen3
space claim.yaml 8192x8192 30 30 sharpen3  # each configuration measured for about a second
sed -i 's/threads: \[1, 2\]/threads: [2]/' claim.yaml  # two configurations: one stored, one claimed when stopped
HEALTHY=4

tune() { "$TUNE" conv --quiet "$@"; }
q() { sqlite3 "$1" "$2" 2>/dev/null; }
# Every configuration of the space stored, and the latest evaluation of each ok.
all_ok() { [ "$(q "$1" "SELECT count(*) FROM latest WHERE status='ok'")" = "$HEALTHY" ] &&
  [ "$(q "$1" "SELECT count(*) FROM latest")" = "$HEALTHY" ]; }
children() { pgrep -P "$1" -f ' worker$' 2>/dev/null; }  # the tuner's workers
wait_rows() {  # db n: until the database holds n evaluations (20 s at most)
  local i
  for i in $(seq 400); do [ "$(q "$1" 'SELECT count(*) FROM evaluations')" -ge "$2" ] 2>/dev/null && return; sleep 0.05; done
}
wait_child() {  # pid -> first child pid within 20 s
  local i
  for i in $(seq 200); do
    c=$(children "$1" | head -1)
    [ -n "$c" ] && { echo "$c"; return; }
    sleep 0.1
  done
}

# A fault case: the injection has run; resume (a plain rerun) must end with every healthy
# configuration stored as ok, the database intact.
recovered() {  # name db space
  FAULTS=$((FAULTS + 1))
  tune --space "$3" --db "$2" >/dev/null 2>"$L/resume.err"
  local rc=$?
  if [ $rc -eq 0 ] && all_ok "$2" && [ "$(q "$2" 'PRAGMA integrity_check')" = ok ]; then
    RECOVERED=$((RECOVERED + 1))
  else
    fail "$1: after resume (exit $rc): $(q "$2" 'SELECT status, count(*) FROM latest GROUP BY status' | tr '\n' ' ')$(head -c 300 "$L/resume.err")"
  fi
  # Statuses that blame a healthy configuration must never have been stored.
  local blamed
  blamed=$(q "$2" "SELECT count(*) FROM evaluations WHERE status IN ('crash','timeout','compile_error')")
  [ "${blamed:-0}" = 0 ] || fail "$1: $blamed healthy configurations were stored as crash/timeout/compile_error"
}

# A refused input: exit code 2 and the files it names (database and its folder) byte for byte as before.
files_of() { for f in "$@"; do
  if [ -f "$f" ]; then sha256sum <"$f"; else echo "absent $f"; fi
  ls -a "$(dirname "$f")" | grep -F -- "$(basename "$f")-" || true
done; }
snapshot() { files_of "$@"; ls -a "$W" | sort | sha256sum; }
refuse() {  # name expected-message-part files... -- command...
  local name=$1 expect=$2 files=()
  shift 2
  while [ "$1" != -- ]; do files+=("$1"); shift; done
  shift
  REFUSED=$((REFUSED + 1))
  local before after rc
  before=$(snapshot "${files[@]}")
  timeout 10 "$@" >"$L/out" 2>"$L/err" </dev/null
  rc=$?
  after=$(snapshot "${files[@]}")
  if [ $rc -ne 2 ]; then fail "$name: exit $rc, expected 2: $(head -c 300 "$L/err")"
  elif [ "$before" != "$after" ]; then fail "$name: a file changed"
  elif ! grep -qF -- "$expect" "$L/err"; then fail "$name: message lacks '$expect': $(head -c 300 "$L/err")"
  else UNCHANGED=$((UNCHANGED + 1)); fi
}
# A reading command on a database: succeeds, leaves its bytes unchanged and no side file.
reads() {  # name db command...
  local name=$1 db=$2 before after
  shift 2
  READS=$((READS + 1))
  before=$(files_of "$db")
  "$@" >"$L/out" 2>"$L/err"
  local rc=$?
  after=$(files_of "$db")
  if [ $rc -eq 0 ] && [ "$before" = "$after" ]; then READS_CLEAN=$((READS_CLEAN + 1))
  else fail "$name: exit $rc or the database changed: $(head -c 300 "$L/err")"; fi
}

# --- a healthy database for the refusals and reads -------------------------------------------------
tune --space small.yaml --db good.db >/dev/null || { echo "FAIL: the healthy run failed"; exit 1; }
all_ok good.db || { echo "FAIL: the healthy run did not store $HEALTHY ok configurations"; exit 1; }
cp good.db master.db

# --- refused inputs ----------------------------------------------------------------------------------
section "refused inputs"
mkfifo fifo.yaml fifo.db
mkdir adir
truncate -s 17M big.yaml
bad() { sed "$1" small.yaml >"$2"; }
bad 's/repeats: 3/repeats: 2000000000/' b-repeats.yaml
bad 's/warmups: 1/warmups: 2147483647/' b-warmups.yaml
bad 's/timeout_s: 5/timeout_s: 1e9/' b-timeout.yaml
bad 's/repeats: 3/repeats: 0/' b-repeats0.yaml
bad 's/strategy: {name: exhaustive}/strategy: {name: random, options: {fraction: nan}}/' b-nan.yaml
bad 's/strategy: {name: exhaustive}/strategy: {name: random, options: {fraction: inf}}/' b-inf.yaml
bad 's/threads: \[1, 2\]/threads: [4294967297]/' b-threads.yaml
bad 's/threads: \[1, 2\]/threads: {range: [0, 4294967296]}/' b-range.yaml
python3 - "$W" <<'EOF'
import struct, sys, zlib
w = sys.argv[1]
def chunk(t, d): return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
raw = b"".join(b"\0" + bytes((x * 7 + y) & 255 for x in range(64)) for y in range(64))
ihdr = struct.pack(">IIBBBBB", 64, 64, 8, 0, 0, 0, 0)
idat = zlib.compress(raw)
good = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")
open(f"{w}/img64.png", "wb").write(good)
bad = bytearray(good); bad[8 + 25 + 8 + len(idat) // 2] ^= 0x55  # a byte inside IDAT
open(f"{w}/corrupt.png", "wb").write(bytes(bad))
open(f"{w}/noend.png", "wb").write(good[:-12])
EOF
sed 's|sizes: \[64x64\]|input: '"$W"'/corrupt.png|' small.yaml >b-corrupt-png.yaml
sed 's|sizes: \[64x64\]|input: '"$W"'/noend.png|' small.yaml >b-noend-png.yaml
sed 's|sizes: \[64x64\]|sizes: [128]\n    input: '"$W"'/img64.png|' small.yaml >b-sizes-image.yaml
sed 's|sizes: \[64x64\]|input: '"$DATA"'/images/bad/cut-with-eoi.jpg|' small.yaml >b-cut-jpeg.yaml
python3 - "$W" <<'EOF'
import sqlite3, sys
w = sys.argv[1]
c = sqlite3.connect(f"{w}/foreign.db"); c.execute("CREATE TABLE notes (x)"); c.execute("INSERT INTO notes VALUES (1)"); c.commit(); c.close()
c = sqlite3.connect(f"{w}/newer.db"); c.execute("CREATE TABLE evaluations (x)"); c.execute("PRAGMA user_version = 99"); c.commit(); c.close()
open(f"{w}/text.db", "w").write("this is not a database\n" * 100)
EOF
: >empty.db
cp master.db t.db
T="$TUNE"
refuse space-dev-zero "not a regular file" t.db -- "$T" conv --space /dev/zero --db t.db
refuse space-fifo "not a regular file" t.db -- "$T" conv --space fifo.yaml --db t.db
refuse space-directory "a directory" t.db -- "$T" conv --space adir --db t.db
refuse space-17MiB "at most" t.db -- "$T" conv --space big.yaml --db t.db
refuse repeats-2e9 "measure.repeats" t.db -- "$T" conv --space b-repeats.yaml --db t.db
refuse warmups-int-max "measure.warmups" t.db -- "$T" conv --space b-warmups.yaml --db t.db
refuse timeout-1e9 "measure.timeout_s" t.db -- "$T" conv --space b-timeout.yaml --db t.db
refuse repeats-0 "measure.repeats" t.db -- "$T" conv --space b-repeats0.yaml --db t.db
refuse fraction-nan "fraction" t.db -- "$T" conv --space b-nan.yaml --db t.db
refuse fraction-inf "fraction" t.db -- "$T" conv --space b-inf.yaml --db t.db
refuse threads-2^32+1 "32-bit" t.db -- "$T" conv --space b-threads.yaml --db t.db
refuse range-2^32 "b-range.yaml" t.db -- "$T" conv --space b-range.yaml --db t.db
refuse png-corrupt-idat "CRC mismatch" t.db -- "$T" conv --space b-corrupt-png.yaml --db t.db
refuse png-no-iend "truncated PNG" t.db -- "$T" conv --space b-noend-png.yaml --db t.db
refuse jpeg-cut-with-end-marker "corrupt or truncated JPEG" t.db -- "$T" conv --space b-cut-jpeg.yaml --db t.db
refuse sizes-vs-image "contradicts the image file" t.db -- "$T" conv --space b-sizes-image.yaml --db t.db
refuse db-empty-name "discard" t.db -- "$T" conv --space small.yaml --db ''
refuse db-memory "discard" t.db -- "$T" conv --space small.yaml --db :memory:
refuse db-uri "discard" t.db -- "$T" conv --space small.yaml --db "file:t.db?mode=memory"
refuse db-directory "not a regular file" t.db -- "$T" conv --space small.yaml --db adir
refuse db-fifo "not a regular file" fifo.db -- "$T" conv --space small.yaml --db fifo.db
refuse report-unwritable "--report" t.db -- "$T" conv --space small.yaml --db t.db --report /proc/none/r.md
refuse report-under-file "--report" t.db -- "$T" conv --space small.yaml --db t.db --report small.yaml/r.md
refuse report-name-too-long "--report" t.db -- "$T" conv --space small.yaml --db t.db --report "$(printf 'r%.0s' $(seq 300)).md"
refuse retry-failed-bogus "--retry-failed" t.db -- "$T" conv --space small.yaml --db t.db --retry-failed nonsense
refuse repeats-flag-0 "repeats" t.db -- "$T" conv --space small.yaml --db t.db --repeats 0
refuse tune-foreign-db "not a pimg-tune database" foreign.db -- "$T" conv --space small.yaml --db foreign.db
refuse tune-newer-schema "newer" newer.db -- "$T" conv --space small.yaml --db newer.db
refuse tune-text-file "not a pimg-tune database" text.db -- "$T" conv --space small.yaml --db text.db
refuse best-foreign "not a pimg-tune database" foreign.db -- "$T" best conv --db foreign.db
refuse report-foreign "not a pimg-tune database" foreign.db -- "$T" report --db foreign.db --out "$W/rep/r.md"
refuse strategies-foreign "not a pimg-tune database" foreign.db -- "$T" strategies --family conv --db foreign.db
refuse export-newer "newer" newer.db -- "$T" export --family conv --db newer.db
refuse best-newer "newer" newer.db -- "$T" best conv --db newer.db
refuse best-empty-file "empty" empty.db -- "$T" best conv --db empty.db
refuse best-text-file "not a pimg-tune database" text.db -- "$T" best conv --db text.db
refuse best-missing "no such database" t.db -- "$T" best conv --db missing.db
refuse report-out-directory "--out" t.db -- "$T" report --db t.db --out adir
refuse export-out-unwritable "--out" t.db -- "$T" export --family conv --db t.db --out /proc/none/x.json
[ -s empty.db ] && fail "best wrote into an empty file"

# --- reading commands: read-only, no side files -------------------------------------------------------
section "reading commands"
cp master.db r.db
reads best r.db "$T" best conv --db r.db
reads export r.db "$T" export --family conv --db r.db --format t4-all
reads strategies r.db "$T" strategies --family conv --db r.db --seeds 2
reads report r.db "$T" report --db r.db --out "$W/rep/r.md"
HAVE_NS=0
if unshare -rm true 2>/dev/null; then HAVE_NS=1; fi
if [ $HAVE_NS = 1 ]; then
  mkdir -p ro && cp master.db ro/ro.db
  READS=$((READS + 1))
  if unshare -rm bash -c "mount --bind ro ro && mount -o remount,bind,ro ro && '$T' best conv --db ro/ro.db >/dev/null" &&
    [ -z "$(ls ro | grep -v '^ro.db$')" ]; then READS_CLEAN=$((READS_CLEAN + 1)); else fail "best on a read-only mount"; fi
else
  note "no user namespaces: the read-only mount and the tmpfs cases are skipped"
  SKIPPED=$((SKIPPED + 4))
fi

# --- faults: full filesystems ---------------------------------------------------------------------
section "full filesystems"
if [ $HAVE_NS = 1 ]; then
  # TMPDIR on a small tmpfs, filled while the first problem is measured: the compiler has no room for the
  # second problem's programs (a CPU device compiles a task's programs before measuring it, so the first
  # problem's, about a second per configuration, leaves time to fill it). Stored as env_error, never
  # compile_error; resume (with room again) measures them all.
  cat >full.yaml <<EOF2
family: conv
problems:
  - {filter: sharpen3, sizes: [8192x8192], channels: 1}
  - {filter: box3, sizes: [64x64], channels: 1}
backends:
  openmp: {devices: [0]}
variants:
  omp_rows:
    schedule: [static, dynamic]
    threads: [2]
strategy: {name: exhaustive}
measure: {warmups: 1, repeats: 30, max_repeats: 30, cache: hot, timeout_s: 30, confirm: {top: 0}}
EOF2
  mkdir -p small-tmp && rm -rf cache-tmpfs && mkdir cache-tmpfs
  unshare -rm bash -c "mount -t tmpfs -o size=4m tmpfs small-tmp || exit 9
    TMPDIR=$W/small-tmp PIMG_CACHE_DIR=$W/cache-tmpfs '$T' conv --quiet --space full.yaml --db full-tmp.db >/dev/null 2>$L/full-tmp.err &
    t=\$!
    for i in \$(seq 400); do [ \"\$(sqlite3 full-tmp.db 'SELECT count(*) FROM evaluations' 2>/dev/null)\" = 1 ] && break; sleep 0.05; done
    head -c 8m /dev/zero > small-tmp/filler 2>/dev/null
    wait \$t"
  envs=$(q full-tmp.db "SELECT count(*) FROM latest WHERE status='env_error'")
  [ "${envs:-0}" -ge 1 ] || grep -q "resume with:" "$L/full-tmp.err" ||
    fail "full TMPDIR: neither env_error stored nor a clean stop ($(head -c 300 "$L/full-tmp.err"))"
  PIMG_CACHE_DIR=$W/cache-tmpfs recovered full-tmpdir full-tmp.db full.yaml
  # The compile cache on a full tmpfs: compiles still work (the cache is only a cache).
  mkdir -p small-cache
  unshare -rm bash -c "mount -t tmpfs -o size=64k tmpfs small-cache &&
    PIMG_CACHE_DIR=$W/small-cache '$T' conv --quiet --space small.yaml --db full-cache.db" >/dev/null 2>&1
  recovered full-cache full-cache.db small.yaml
  # The database on a full tmpfs: a clean stop (exit 3) naming the file and the resume command.
  mkdir -p small-db
  unshare -rm bash -c "mount -t tmpfs -o size=400k tmpfs small-db && cp good.db small-db/d.db &&
    head -c 330k /dev/zero > small-db/filler 2>/dev/null;
    '$T' conv --quiet --space small.yaml --db small-db/d.db --no-resume >/dev/null 2>$W/full-db.err; echo \$? > $W/full-db.rc;
    rm small-db/filler; cp small-db/d.db $W/full-db.db"
  rc=$(cat full-db.rc)
  [ "$rc" = 3 ] && grep -q "small-db/d.db" full-db.err && grep -q "resume with:" full-db.err ||
    fail "full database disk: exit $rc: $(head -c 300 full-db.err)"
  recovered full-db-disk full-db.db small.yaml
fi
# A file size limit on the tuner (ulimit -f): the database cannot grow. Exit 3, resume works.
cp master.db fsize.db
size_kb=16
(ulimit -f "$size_kb"; "$T" conv --quiet --space small.yaml --db fsize.db --no-resume >/dev/null 2>fsize.err; echo $? >fsize.rc)
rc=$(cat fsize.rc)
if [ "$rc" = 0 ]; then note "file size limit: the run fit in $size_kb KiB"; else
  [ "$rc" = 3 ] && grep -q "fsize.db" fsize.err && grep -q "resume with:" fsize.err || fail "file size limit: exit $rc: $(head -c 300 fsize.err)"
fi
recovered fsize-limit fsize.db small.yaml

# --- faults: workers killed from outside or stopped ---------------------------------------------------
section "workers killed or stopped"
# The 4096x4096 space: its worker measures each configuration for a few tenths of a second, so it is still there
# after `trial` rows (the 64x64 space's one worker measures the rest within 0.1 s and leaves).
for trial in 1 2; do
  rm -rf "$W/cache" && mkdir "$W/cache"  # cold compiles: the worker is busy with a configuration
  "$T" conv --quiet --space slow.yaml --db kill-$trial.db >/dev/null 2>&1 &
  tuner=$!
  wait_rows kill-$trial.db $trial
  # The next configuration's worker (between two configurations there may be none for a moment); the case fails
  # when the run ends before one is found, instead of passing with nothing killed.
  worker=
  for i in $(seq 500); do
    worker=$(children $tuner | head -1)
    [ -n "$worker" ] || ! kill -0 $tuner 2>/dev/null && break
    sleep 0.02
  done
  if [ -n "$worker" ]; then
    kill -9 "$worker"
    wait $tuner
    recovered "worker-sigkill-$trial" kill-$trial.db slow.yaml
  else
    wait $tuner
    fail "worker-sigkill-$trial: the run ended before a worker could be killed"
  fi
done
# Every replacement worker killed as it starts: bounded retries, then exit 3 with the resume command.
"$T" conv --quiet --space small.yaml --db kill-all.db >/dev/null 2>"$L/kill-all.err" &
tuner=$!
wait_child $tuner >/dev/null
for i in $(seq 60); do pkill -9 -P $tuner -f ' worker$' 2>/dev/null; sleep 0.05; done
wait $tuner
rc=$?
[ $rc = 0 ] || { [ $rc = 3 ] && grep -q "resume with:" "$L/kill-all.err"; } || fail "workers killed at start: exit $rc: $(head -c 300 "$L/kill-all.err")"
recovered worker-killed-at-start kill-all.db small.yaml
# A stop of the whole job (Ctrl-Z) longer than timeout_s (2 s), once the configurations are compiled
# and measuring; and the worker alone stopped. The job runs in a session of its own, where SIGTSTP
# would be discarded (an orphaned process group), so it is stopped with SIGSTOP, as Ctrl-Z stops it.
tune --space slow.yaml --db slow-warm.db >/dev/null 2>&1 || fail "the slow space does not tune"
for trial in 1; do
  setsid "$TUNE" conv --quiet --space slow.yaml --db stop-$trial.db >/dev/null 2>&1 &
  tuner=$!
  wait_rows stop-$trial.db $trial
  sleep 0.3
  kill -STOP -- -$tuner 2>/dev/null
  sleep 3
  kill -CONT -- -$tuner 2>/dev/null
  wait $tuner
  HEALTHY=4 recovered "ctrl-z-$trial" stop-$trial.db slow.yaml
done
"$T" conv --quiet --space slow.yaml --db stopw.db >/dev/null 2>&1 &
tuner=$!
wait_rows stopw.db 1
sleep 0.3
worker=$(children $tuner | head -1)
[ -n "$worker" ] && kill -STOP "$worker" && sleep 3 && kill -CONT "$worker" 2>/dev/null
wait $tuner
recovered worker-stopped stopw.db slow.yaml
# A tuner stopped (Ctrl-Z) while it holds a claim: a second tuner on the same database says who holds it and
# gives up after PIMG_LEASE_WAIT_S (600 s by default) with exit 3 and the resume hint, instead of waiting for
# the claim's six hours.
setsid "$TUNE" conv --quiet --space claim.yaml --db claim.db >/dev/null 2>&1 &
tuner=$!
wait_rows claim.db 1
sleep 0.3
kill -STOP -- -$tuner 2>/dev/null
FAULTS=$((FAULTS + 1))
PIMG_LEASE_WAIT_S=2 timeout 60 "$T" conv --space claim.yaml --db claim.db >/dev/null 2>"$L/claim.err"
rc=$?
if [ $rc = 3 ] && grep -q "is claimed by another tuner on claim.db" "$L/claim.err" &&
  grep -q "pid $tuner" "$L/claim.err" && grep -q "resume with:" "$L/claim.err"; then
  RECOVERED=$((RECOVERED + 1))
else
  fail "a stopped tuner's claim: exit $rc: $(head -c 400 "$L/claim.err")"
fi
kill -CONT -- -$tuner 2>/dev/null
wait $tuner
HEALTHY=2 recovered claim-of-a-stopped-tuner claim.db claim.yaml

# --- faults: a damaged compile cache -----------------------------------------------------------------------
# Every cache entry truncated to half (the issue's case: all 80 healthy configurations were stored as crash):
# entries carry a checksum, so each is discarded and rebuilt, and every configuration is ok; afterwards every
# entry is whole again (ends in its checksum's magic).
section "damaged compile cache"
FAULTS=$((FAULTS + 1))
PIMG_CACHE_DIR=$W/cache-dmg tune --space small.yaml --db cache-a.db >/dev/null 2>&1
find "$W/cache-dmg" -type f | while read -r f; do truncate -s $(($(stat -c %s "$f") / 2)) "$f"; done
PIMG_CACHE_DIR=$W/cache-dmg tune --space small.yaml --db cache-b.db >/dev/null 2>"$L/cache-dmg.err"
rc=$?
whole=$(find "$W/cache-dmg" -type f | while read -r f; do [ "$(tail -c 8 "$f")" = pimgsum1 ] || echo "$f"; done)
if [ $rc = 0 ] && HEALTHY=4 all_ok cache-b.db && [ -z "$whole" ] && [ -n "$(find "$W/cache-dmg" -type f)" ]; then
  RECOVERED=$((RECOVERED + 1))
else
  fail "truncated compile cache: exit $rc, $(q cache-b.db "SELECT group_concat(status) FROM latest"), not whole: $whole: $(head -c 300 "$L/cache-dmg.err")"
fi

# --- faults: a held write lock ----------------------------------------------------------------------------
section "held write lock"
hold_lock() {  # db seconds
  python3 -c "
import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None); c.execute('BEGIN IMMEDIATE')
open(sys.argv[1] + '.held', 'w').close(); time.sleep(float(sys.argv[2])); c.execute('ROLLBACK')" "$1" "$2" &
  for i in $(seq 100); do [ -e "$1.held" ] && break; sleep 0.05; done
}
cp master.db lock.db
hold_lock lock.db 6
holder=$!
PIMG_DB_BUSY_MS=300 "$T" conv --quiet --space small.yaml --db lock.db --no-resume >/dev/null 2>lock.err
rc=$?
wait $holder
[ $rc = 3 ] && grep -q "lock.db" lock.err && grep -q "resume with:" lock.err || fail "held lock: exit $rc: $(head -c 300 lock.err)"
[ "$(q lock.db 'SELECT count(*) FROM evaluations')" = "$HEALTHY" ] || fail "held lock: stored rows changed"
recovered held-lock lock.db small.yaml
cp master.db lock2.db && rm -f lock.db.held
hold_lock lock2.db 1.5
holder=$!
"$T" conv --quiet --space small.yaml --db lock2.db --no-resume >/dev/null 2>lock2.err || fail "short lock: $(head -c 300 lock2.err)"
wait $holder
recovered short-lock lock2.db small.yaml

# --- faults: kill -9 of the tuner during OpenMP compiles --------------------------------------------------
section "kill -9 during compiles"
for trial in 1 2; do
  rm -rf "$W/cache" && mkdir "$W/cache"
  "$T" conv --quiet --space small.yaml --db k9-$trial.db >/dev/null 2>&1 &
  tuner=$!
  worker=$(wait_child $tuner)
  for i in $(seq 100); do pgrep -f "$W/tmp/pimg-omp-.*src.cpp" >/dev/null && break; sleep 0.05; done
  kill -9 $tuner
  wait $tuner 2>/dev/null
  sleep 1
  pgrep -f "$W/tmp/pimg-omp-" >/dev/null && fail "kill -9 during a compile: a compiler is still running"
  recovered "tuner-kill9-compile-$trial" k9-$trial.db small.yaml
  [ -z "$(ls "$W/tmp")" ] || fail "kill -9 during a compile: temporary files left after resume: $(ls "$W/tmp" | head -5 | tr '\n' ' ')"
done

# --- concurrency: tuners resuming one space at once -----------------------------------------------------
section "concurrent tuners"
space conc.yaml 64x64 3 5 gaussian5
sed -i 's/threads: \[1, 2\]/threads: [1, 2]\n    chunk: [1, 2, 4]/' conc.yaml
for n in 2 3; do
  cp master.db conc-$n.db
  pids=()
  for k in $(seq $n); do tune --space conc.yaml --db conc-$n.db >/dev/null 2>conc-$n-$k.err & pids+=($!); done
  for p in "${pids[@]}"; do wait "$p" || fail "concurrent tuner $p failed"; done
  d=$(q conc-$n.db "SELECT count(*) FROM (SELECT count(*) AS k FROM evaluations e JOIN variants v ON v.id = e.variant_id
       JOIN problems p ON p.id = e.problem_id WHERE p.canonical LIKE '%gaussian5%' GROUP BY e.device_id, e.problem_id, e.variant_id, e.config_id HAVING k > 1)")
  DUPLICATES=$((DUPLICATES + ${d:-0}))
  FAULTS=$((FAULTS + 1))
  m=$(q conc-$n.db "SELECT count(*) FROM latest e JOIN problems p ON p.id = e.problem_id WHERE p.canonical LIKE '%gaussian5%' AND status = 'ok'")
  if [ "${m:-0}" = 12 ] && [ "${d:-0}" = 0 ]; then RECOVERED=$((RECOVERED + 1)); else fail "$n concurrent tuners: $m ok, $d measured twice"; fi
done

section "done"
pct() { if [ "$2" -gt 0 ]; then echo "$(( 100 * $1 / $2 ))%"; else echo "-"; fi; }
echo "faults injected: $FAULTS; runs ending with every healthy configuration ok after resume: $RECOVERED/$FAULTS ($(pct $RECOVERED $FAULTS))"
echo "refused inputs: $REFUSED; refused with exit 2 and every file byte for byte unchanged: $UNCHANGED/$REFUSED ($(pct $UNCHANGED $REFUSED))"
echo "reading commands: $READS; unchanged database and no side file: $READS_CLEAN/$READS ($(pct $READS_CLEAN $READS))"
echo "duplicate measurements under concurrency: $DUPLICATES"
[ $SKIPPED = 0 ] || echo "skipped (no user namespaces): $SKIPPED"
[ $FAILED = 0 ] && rm -rf "$W"
[ $FAILED = 0 ] || echo "$FAILED checks failed; files kept in $W"
exit $((FAILED > 0))
