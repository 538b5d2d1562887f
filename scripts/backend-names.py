#!/usr/bin/env python3
"""Files that name a backend outside the places a backend owns (issue 37: capabilities, not names).

Usage: backend-names.py SOURCE_DIR [--allow FILE] [--list]

The backends are the folders of tuner/backends/. A file names backend B where its text holds B as a string
literal ("B" or 'B'), as a path component (B/ or /B in an #include, a CMake path, a script's path; a
test folder tests/B cited in a comment does not count), or its build names: the option PIMG_WITH_<B> and the
target (pimg_|pimg::)backend_B. Code and build files are read (C++, CUDA, OpenCL, Python, shell, SQL, CMake);
documentation and data are not. B may be named only in
  - tuner/backends/B/ (the backend: its CMakeLists.txt sets its registration order and declares its option, its
    register.cpp registers it) and variants/<family>/B/ (a family's plug-in for the backend, its native/ code
    built by the backend);
  - tests/, bench/ and scripts/*.sh: they choose a backend to exercise, time or run, as a user does.
The registry (tuner/app/) names none: it calls each folder's registration from a table generated in the order
the folders declare. And besides: option(PIMG_WITH_<B> ...) is declared once, in tuner/backends/B/CMakeLists.txt
(host, always built, has none), which sets PIMG_BACKEND_ORDER once to a number no other backend has; and
tuner/backends/B/register.cpp defines register_B_backend and adds the backend once (add_backend(make_B_backend...)).
So adding a backend touches its folder (with its one CMake option), its tests and, optionally, families'
plug-ins for it (docs/design.md, "Adding a backend"). --allow names a file of exceptions, "path | backend | text | why" a line: a line of path holding
text (a whole file where text is empty) may name backend. An exception that excuses nothing fails, so the list
can only shrink. Exits 1 on a file naming a backend outside those places or a stale exception; --list prints
every file naming each backend (allowed or not) and exits 0.
"""
import argparse
import os
import re
import subprocess
import sys

CODE_SUFFIXES = (".cpp", ".hpp", ".h", ".cc", ".c", ".cu", ".cuh", ".cl", ".py", ".sh", ".sql", ".cmake", ".in")
USERS = (re.compile(r"tests/"), re.compile(r"bench/(?!results/)"), re.compile(r"scripts/[^/]*\.sh$"))
NOT_READ = (re.compile(r"bench/results/"), re.compile(r"docs/"))


def source_files(root):
    """The tree's files that git tracks or would track (untracked, not ignored), else every file under root."""
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-co", "--exclude-standard"], check=True,
                             capture_output=True, text=True).stdout
        return sorted(set(out.splitlines()))
    except (OSError, subprocess.CalledProcessError):
        found = []
        for d, dirs, files in os.walk(root):
            dirs[:] = [x for x in dirs if not x.startswith(".") and not x.startswith("build")]
            found += [os.path.relpath(os.path.join(d, f), root) for f in files]
        return sorted(found)


def is_code(path):
    return (path.endswith(CODE_SUFFIXES) or os.path.basename(path) == "CMakeLists.txt") and \
        not any(p.match(path) for p in NOT_READ)


TEST_FOLDER = re.compile(r"tests/[\w-]+")  # tests/<backend> is a test folder a comment may cite


def name_pattern(backend):
    b = re.escape(backend)
    option = re.escape(backend.upper())
    literal_or_path = r"""(["']){b}\1|(?<![\w.$-]){b}/|/{b}(?![\w.-])""".format(b=b)
    option_or_target = r"\bPIMG_WITH_{o}\b|\b(?:pimg_|pimg::)backend_{b}\b".format(b=b, o=option)
    return re.compile(literal_or_path + "|" + option_or_target)


def read_text(root, path):
    try:
        with open(os.path.join(root, path), encoding="utf-8") as f:
            return f.read()
    except (OSError, UnicodeDecodeError):
        return ""


ORDER = re.compile(r"^\s*set\(\s*PIMG_BACKEND_ORDER\s+(\S+?)\s*\)", re.M)


def registration_problems(root, backends):
    """Where a backend's option, order or registration is not the one its folder owns: its option declared elsewhere
    or twice; its CMakeLists.txt not setting PIMG_BACKEND_ORDER once to a number of its own; its register.cpp
    missing register_<name>_backend or not adding the backend exactly once."""
    problems = []
    cmake_files = [p for p in source_files(root) if os.path.basename(p) == "CMakeLists.txt" or p.endswith(".cmake")]
    orders = {}
    for b in backends:
        declared = re.compile(r"option\(\s*PIMG_WITH_{}\b".format(re.escape(b.upper())))
        where = []
        for path in cmake_files:
            where += [path] * len(declared.findall(read_text(root, path)))
        own = f"tuner/backends/{b}/CMakeLists.txt"
        if any(p != own for p in where) or len(where) > 1:
            problems.append(f"option PIMG_WITH_{b.upper()} declared in {', '.join(where)}: only in {own}, once")
        order = ORDER.findall(read_text(root, own))
        if len(order) != 1 or not order[0].isdigit():
            problems.append(f"{own}: set(PIMG_BACKEND_ORDER <number>) {len(order)} times, want once, a number")
        elif order[0] in orders:
            problems.append(f"{own}: PIMG_BACKEND_ORDER {order[0]} is {orders[order[0]]}'s already")
        else:
            orders[order[0]] = b
        register = f"tuner/backends/{b}/register.cpp"
        text = read_text(root, register)
        if not re.search(r"\bvoid\s+register_{}_backend\(".format(re.escape(b)), text):
            problems.append(f"{register}: no register_{b}_backend(Registry&, pix::PortableTargets&)")
        adds = len(re.findall(r"add_backend\(make_{}_backend\(".format(re.escape(b)), text))
        if adds != 1:
            problems.append(f"{register}: {adds} add_backend(make_{b}_backend(...)) lines, want 1")
    return problems


def allowed(path, backend):
    parts = path.split("/")
    return (path.startswith(f"tuner/backends/{backend}/") or
            (len(parts) > 3 and parts[0] == "variants" and parts[2] == backend) or
            any(p.match(path) for p in USERS))


def read_allow(path):
    entries = []
    if not path:
        return entries
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            fields = [x.strip() for x in line.split("|")]
            if len(fields) != 4 or not fields[3]:
                sys.exit(f"{path}:{n}: want 'path | backend | text | why', got: {line}")
            entries.append({"path": fields[0], "backend": fields[1], "text": fields[2], "where": f"{path}:{n}",
                             "used": False})
    return entries


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("source_dir")
    ap.add_argument("--allow", default="")
    ap.add_argument("--list", action="store_true", help="print every file naming each backend and exit 0")
    args = ap.parse_args()
    root = args.source_dir
    backends = sorted(d for d in os.listdir(os.path.join(root, "tuner", "backends"))
                      if os.path.isdir(os.path.join(root, "tuner", "backends", d)))
    patterns = {b: name_pattern(b) for b in backends}
    allow = read_allow(args.allow)
    naming = {b: [] for b in backends}    # every file naming b
    offenders = {b: [] for b in backends}  # (path, line number, line) naming b where it may not
    for path in filter(is_code, source_files(root)):
        try:
            with open(os.path.join(root, path), encoding="utf-8") as f:
                lines = f.read().splitlines()
        except (OSError, UnicodeDecodeError):
            continue
        for b in backends:
            hits = [(n, line) for n, line in enumerate(lines, 1) if patterns[b].search(TEST_FOLDER.sub("tests/", line))]
            if not hits:
                continue
            naming[b].append(path)
            if allowed(path, b):
                continue
            for n, line in hits:
                excused = [e for e in allow if e["path"] == path and e["backend"] == b and e["text"] in line]
                for e in excused:
                    e["used"] = True
                if not excused:
                    offenders[b].append((path, n, line.strip()))
    if args.list:
        for b in backends:
            print(f"{b}: {len(naming[b])} files")
            for p in naming[b]:
                print(f"  {p}{'' if allowed(p, b) else '  (outside its places)'}")
        return 0
    bad = 0
    for problem in registration_problems(root, backends):
        print(problem)
        bad += 1
    for b in backends:
        for path, n, line in offenders[b]:
            print(f"{path}:{n}: names backend '{b}' outside tuner/backends/{b}/ and variants/*/{b}/: {line}")
            bad += 1
    for e in allow:
        if not e["used"]:
            print(f"{e['where']}: stale exception ({e['path']} no longer names '{e['backend']}' there): remove it")
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
