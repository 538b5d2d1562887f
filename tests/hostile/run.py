#!/usr/bin/env python3
"""Runs the hostile-input corpus (tests/data/hostile/cases.tsv) through the pimg-tune binary.

Each case runs in a fresh working folder holding copies of tests/data/hostile/ and a few made here (a FIFO, a
directory, stores of the current and of an older schema, a read-only store, a symbolic link). A case passes
when the command exits 0 or 2 (never 1, never a signal) within 10 s and 1 GiB of resident memory; a `refuse`
case must exit 2 with the expected words on stderr; a `refuse` or `read` case must leave every file there as
it was (content, or a link's target name), apart from the files its `writes` column names.

Usage: run.py PIMG_TUNE_EXE SOURCE_DIR"""
import hashlib, os, shlex, shutil, sqlite3, subprocess, sys, tempfile, threading, time

TIME_LIMIT_S = 10
MEMORY_LIMIT_KB = 1 << 20

exe, source = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
data = os.path.join(source, "tests", "data")
hostile = os.path.join(data, "hostile")


def make_folder(base):
    """The case's working folder, from the corpus and the stores made once in `base`."""
    w = tempfile.mkdtemp(prefix="case-", dir=base)
    shutil.copytree(os.path.join(hostile, "t1"), os.path.join(w, "t1"))
    shutil.copy(os.path.join(data, "t1", "sharpen.cl"), os.path.join(w, "t1"))
    shutil.copytree(os.path.join(hostile, "import"), os.path.join(w, "import"))
    for name in ("store.db", "old.db", "readonly.db"):
        shutil.copy(os.path.join(base, name), w)
    os.chmod(os.path.join(w, "readonly.db"), 0o444)
    os.mkfifo(os.path.join(w, "fifo"))
    os.mkdir(os.path.join(w, "adir"))
    open(os.path.join(w, "empty.db"), "w").close()
    open(os.path.join(w, "victim.txt"), "w").write("not to be overwritten\n")
    os.symlink("victim.txt", os.path.join(w, "link.md"))
    c = sqlite3.connect(os.path.join(w, "foreign.db"))
    c.execute("CREATE TABLE notes (x)")
    c.commit()
    c.close()
    return w


def make_stores(base):
    env = dict(os.environ, PIMG_CACHE_DIR=os.path.join(base, "cache"))
    subprocess.run([exe, "import", "--db", os.path.join(base, "store.db"),
                    os.path.join(hostile, "import", "small_A100_T4.json")], check=True, capture_output=True, env=env)
    shutil.copy(os.path.join(base, "store.db"), os.path.join(base, "readonly.db"))
    # A store of schema 7 (the migrations before the last), holding one imported row.
    migrations = sorted(f for f in os.listdir(os.path.join(source, "results", "migrations")) if f.endswith(".sql"))
    c = sqlite3.connect(os.path.join(base, "old.db"))
    for i, m in enumerate(migrations[:-1], 1):
        c.executescript(open(os.path.join(source, "results", "migrations", m)).read())
        c.execute(f"PRAGMA user_version = {i}")
    c.commit()
    c.close()


def snapshot(w, skip):
    out = {}
    for root, dirs, files in os.walk(w):
        for n in files + [d for d in dirs if os.path.islink(os.path.join(root, d))]:
            p = os.path.join(root, n)
            rel = os.path.relpath(p, w)
            if rel in skip:
                continue
            if os.path.islink(p):
                out[rel] = "link:" + os.readlink(p)
            elif os.path.isfile(p):
                out[rel] = hashlib.sha256(open(p, "rb").read()).hexdigest()
            else:
                out[rel] = "special"
    return out


def run_case(base, name, kind, expect, writes, args):
    w = make_folder(base)
    skip = set(writes.split(",")) if writes != "-" else set()
    before = snapshot(w, skip)
    argv = [exe] + [a.replace("{data}", data) for a in shlex.split(args)]
    env = dict(os.environ, PIMG_CACHE_DIR=os.path.join(w, "cache"), TMPDIR=w)
    start = time.monotonic()
    p = subprocess.Popen(argv, cwd=w, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    streams = {}
    readers = [threading.Thread(target=lambda k, f: streams.__setitem__(k, f.read()), args=(k, f))
               for k, f in (("out", p.stdout), ("err", p.stderr))]
    for t in readers:
        t.start()
    while True:  # wait4 gives this child's own resource use (its peak resident size)
        pid, status, usage = os.wait4(p.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() - start > TIME_LIMIT_S:
            p.kill()
            os.wait4(p.pid, 0)
            for t in readers:
                t.join()
            shutil.rmtree(w, ignore_errors=True)
            print(f"{name:34s} still running after {TIME_LIMIT_S} s", flush=True)
            return f"still running after {TIME_LIMIT_S} s"
        time.sleep(0.005)
    for t in readers:
        t.join()
    p.returncode = os.waitstatus_to_exitcode(status)
    seconds = time.monotonic() - start
    rss = usage.ru_maxrss
    err = streams["err"]
    err = err.decode(errors="replace")
    problems = []
    if p.returncode < 0:
        problems.append(f"killed by signal {-p.returncode}")
    elif p.returncode not in (0, 2):
        problems.append(f"exit {p.returncode}")
    if kind == "refuse" and p.returncode != 2:
        problems.append(f"exit {p.returncode}, not 2")
    if kind == "refuse" and expect != "-" and expect not in err:
        problems.append(f"stderr lacks '{expect}'")
    if kind == "refuse" and p.returncode == 2 and len(err.strip().splitlines()) > 3:
        problems.append("a refusal of more than three lines")
    if rss > MEMORY_LIMIT_KB:
        problems.append(f"{rss >> 10} MiB resident")
    if kind in ("refuse", "read"):
        after = snapshot(w, skip)
        changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
        if kind == "refuse":
            changed = [k for k in changed if not k.startswith("cache")]
        else:  # a reader may write new files it names; it changes none that existed
            changed = [k for k in changed if k in before]
        if changed:
            problems.append("changed " + ", ".join(changed[:5]))
    shutil.rmtree(w, ignore_errors=True)
    first = (err.strip().splitlines() or [""])[-1][:150]
    status = "; ".join(problems) if problems else "ok"
    print(f"{name:34s} exit {p.returncode:3d} {seconds:5.2f} s  {status if problems else first}", flush=True)
    return status if problems else None


def main():
    base = tempfile.mkdtemp(prefix="pimg-hostile-")
    try:
        make_stores(base)
        cases = []
        for line in open(os.path.join(hostile, "cases.tsv")):
            if line.strip() and not line.startswith("#"):
                cases.append(line.rstrip("\n").split("\t"))
        failed = []
        # The reference-run cases run a T1 kernel (OpenCL): only where an OpenCL device is listed.
        devices = subprocess.run([exe, "devices"], capture_output=True, text=True).stdout
        opencl = any(line.startswith("opencl:") for line in devices.splitlines())
        for fields in cases:
            if len(fields) != 5:
                sys.exit(f"cases.tsv: a line of {len(fields)} fields, not 5: {fields}")
            if fields[0].startswith("t1-reference-") and not opencl:
                print(f"{fields[0]:34s} skipped: no OpenCL device", flush=True)
                continue
            why = run_case(base, *fields)
            if why:
                failed.append(f"{fields[0]}: {why}")
        print(f"{len(cases)} cases, {len(cases) - len(failed)} passed")
        for f in failed:
            print("FAIL", f)
        return 1 if failed else 0
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
