#!/usr/bin/env python3
"""Files and functions that are too long to read (issue 37): a C++ file under tuner/, variants/, report/ or
results/ over 600 lines, or a function (or a lambda at namespace scope) whose body spans more than 120 lines.

Usage: code-size.py SOURCE_DIR [--max-file-lines N] [--max-function-lines N] [--allow FILE] [--list]

Functions are found by their braces (strings, characters and comments skipped): a block opened at namespace or
class level whose text before the brace ends in a parameter list (with qualifiers, a trailing return type or a
constructor's initialisers) is a function body; everything inside it, lambdas included, counts as the function.
--allow names a file of known offenders ("path" or "path:function", one per line, # comments): they are reported
but do not fail, and an entry that no longer offends fails, so the list can only shrink. Exits 1 on an offender
not allowed or a stale allowance; --list prints every file and function over the limits and exits 0.
"""
import argparse
import os
import re
import sys

ROOTS = ("tuner", "variants", "report", "results")
SUFFIXES = (".cpp", ".hpp", ".h", ".cc", ".cu", ".cl")


def strip_code(text):
    """The text with comments, strings and character literals blanked (newlines kept, so line numbers hold)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            if not m:
                out.append(c)
                i += 1
                continue
            end = text.find(")" + m.group(1) + '"', i)
            j = n if end < 0 else end + len(m.group(1)) + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c in "\"'":
            if c == "'" and i > 0 and text[i - 1].isalnum():  # a digit separator (1'000)
                out.append(" ")
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(" " * (j - i))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


HEAD = re.compile(r"\)\s*(const|noexcept|override|final|mutable|volatile|&|&&|\s)*(->[^{;]*)?$")
NAME = re.compile(r"([~\w:<>]+)\s*\($")


def function_name(before):
    """The name before a function body's parameter list (the text before the brace), else ''."""
    depth = 0
    for k in range(len(before) - 1, -1, -1):
        if before[k] == ")":
            depth += 1
        elif before[k] == "(":
            depth -= 1
            if depth == 0:
                m = NAME.search(before[: k + 1])
                return m.group(1) if m else ""
    return ""


def functions(text):
    """(name, first line, lines) of every function body at namespace or class level."""
    code = strip_code(text)
    found = []
    stack = []  # per open brace: 'scope' (namespace, class, enum, extern, initialiser) or ('fn', name, line)
    start = 0  # where the current statement began (after the last ; { or } at this level)
    line = 1
    for i, c in enumerate(code):
        if c == "\n":
            line += 1
        elif c == "{":
            inside_fn = any(isinstance(s, tuple) for s in stack)
            if inside_fn:
                stack.append("inner")
            else:
                before = " ".join(code[start:i].split())
                # A constructor's member initialisers: ") : a_(x), b_{y}" -- cut at the parameter list's end.
                init = re.search(r"\)\s*(noexcept\s*)?:\s*[\w:]+\s*[({]", before)
                head = before[: init.start() + 1] if init else before
                if HEAD.search(head) and not re.match(r"(namespace|class|struct|union|enum)\b", head):
                    stack.append(("fn", function_name(head), line))
                else:
                    stack.append("scope")
            start = i + 1
        elif c == "}":
            if stack:
                top = stack.pop()
                if isinstance(top, tuple):
                    found.append((top[1], top[2], line - top[2] + 1))
            start = i + 1
        elif c == ";" and not any(isinstance(s, tuple) for s in stack):
            start = i + 1
    return found


def sources(root):
    for top in ROOTS:
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for f in sorted(files):
                if f.endswith(SUFFIXES):
                    yield os.path.relpath(os.path.join(dirpath, f), root)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("source")
    ap.add_argument("--max-file-lines", type=int, default=600)
    ap.add_argument("--max-function-lines", type=int, default=120)
    ap.add_argument("--allow", help="known offenders, one 'path' or 'path:function' a line")
    ap.add_argument("--list", action="store_true")
    args = ap.parse_args()

    offenders = {}
    for path in sources(args.source):
        with open(os.path.join(args.source, path), encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        n = text.count("\n")
        if n > args.max_file_lines:
            offenders[path] = f"{path}: {n} lines (at most {args.max_file_lines})"
        for name, first, lines in functions(text):
            if lines > args.max_function_lines:
                offenders[f"{path}:{name}"] = f"{path}:{first}: function {name or '?'} {lines} lines (at most {args.max_function_lines})"

    if args.list:
        for key in sorted(offenders):
            print(offenders[key])
        return 0
    allowed = set()
    if args.allow:
        with open(args.allow, encoding="utf-8") as fh:
            allowed = {l.split("#")[0].strip() for l in fh} - {""}
    failed = False
    for key in sorted(offenders):
        if key in allowed:
            print(f"allowed (being split): {offenders[key]}")
        else:
            print(f"too long: {offenders[key]}")
            failed = True
    for key in sorted(allowed - set(offenders)):
        print(f"stale allowance (no longer too long; remove it from {args.allow}): {key}")
        failed = True
    print(f"{len(offenders)} over the limits, {len(allowed & set(offenders))} of them allowed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
