#!/usr/bin/env python3
"""scripts/backend-names.py on small made-up trees (issue 37, "Adding a backend"): a backend `foo` that owns its
folder (its order, its option and its register.cpp) passes, and --list shows it named in that folder and its tests
alone; each way of spreading it elsewhere fails: its option declared in the top CMakeLists.txt, a CMake file outside
its folder naming its option or target, the registry naming it, its registration or its order missing or
repeated.

Usage: backend_names_test.py SCRIPT (the path of backend-names.py). Exits 1 on the first case that answers wrong.
"""
import os
import subprocess
import sys
import tempfile

FOO_REGISTER = ('#include "pimg/registry.hpp"\n#if PIMG_WITH_FOO\n#include "foo_backend.hpp"\n#endif\n'
                "void register_foo_backend(Registry& r, pix::PortableTargets&) {\n"
                '  r.add_source_language("foo", "Foo");\n#if PIMG_WITH_FOO\n  r.add_backend(make_foo_backend());\n'
                "#endif\n}\n")
GOOD = {
    "tuner/backends/foo/CMakeLists.txt": 'set(PIMG_BACKEND_ORDER 20)\noption(PIMG_WITH_FOO "Foo backend" ON)\n'
                                         "if(NOT PIMG_WITH_FOO)\n  return()\nendif()\n"
                                         "add_library(pimg_backend_foo STATIC foo_backend.cpp)\n",
    "tuner/backends/foo/foo_backend.cpp": '// the "foo" backend\n',
    "tuner/backends/foo/register.cpp": FOO_REGISTER,
    "tuner/backends/host/CMakeLists.txt": "set(PIMG_BACKEND_ORDER 10)\n"
                                          "add_library(pimg_backend_host STATIC host_backend.cpp)\n",
    "tuner/backends/host/register.cpp": "void register_host_backend(Registry& r, pix::PortableTargets&) {\n"
                                        "  r.add_backend(make_host_backend(r));\n}\n",
    "tuner/CMakeLists.txt": "foreach(name IN LISTS PIMG_BACKEND_DIRS)\n  add_subdirectory(backends/${name})\n"
                            "endforeach()\n",
    "tuner/app/CMakeLists.txt": "foreach(name IN LISTS PIMG_BACKENDS)\n  target_link_libraries(pimg_all PUBLIC "
                                "pimg::backend_${name})\nendforeach()\n",
    "tuner/app/registry_builtin.cpp": "  for (const BackendRegistration& b : backend_registrations()) b.add(r, gpus);\n",
    "CMakeLists.txt": "add_subdirectory(tuner)\n",
    "tests/CMakeLists.txt": "if(TARGET pimg_backend_foo)\n  pimg_test_dir(foo foo)\nendif()\n",
}
# The files naming foo in GOOD, as --list prints them.
FOO_FILES = ["tests/CMakeLists.txt", "tuner/backends/foo/CMakeLists.txt", "tuner/backends/foo/foo_backend.cpp",
             "tuner/backends/foo/register.cpp"]

FOO_CMAKE = GOOD["tuner/backends/foo/CMakeLists.txt"]
BAD = {
    "the option in the top CMakeLists.txt": {"CMakeLists.txt": 'option(PIMG_WITH_FOO "Foo" ON)\n'
                                                               "add_subdirectory(tuner)\n"},
    "add_subdirectory under the option": {"tuner/CMakeLists.txt": "if(PIMG_WITH_FOO)\n"
                                                                  "  add_subdirectory(backends/foo)\nendif()\n"},
    "the app linking the target by name": {"tuner/app/CMakeLists.txt": "target_link_libraries(pimg_all PUBLIC "
                                                                       "pimg::backend_foo)\n"},
    "a family's build naming it": {"variants/CMakeLists.txt": 'if(PIMG_WITH_FOO)\n  add_definitions(-DX)\nendif()\n'},
    "the registry adding it": {"tuner/app/registry_builtin.cpp": "#if PIMG_WITH_FOO\n"
                               "  r.add_backend(make_foo_backend());\n#endif\n"},
    "the registry declaring its language": {"tuner/app/registry_builtin.cpp": '  r.add_source_language("foo", "Foo");\n'},
    "no register.cpp": {"tuner/backends/foo/register.cpp": None},
    "register.cpp without its function": {"tuner/backends/foo/register.cpp":
                                          FOO_REGISTER.replace("register_foo_backend", "add_foo")},
    "register.cpp adding it twice": {"tuner/backends/foo/register.cpp":
                                     FOO_REGISTER.replace("#endif\n}", "  r.add_backend(make_foo_backend());\n#endif\n}")},
    "register.cpp not adding it": {"tuner/backends/foo/register.cpp":
                                   FOO_REGISTER.replace("  r.add_backend(make_foo_backend());\n", "")},
    "no order": {"tuner/backends/foo/CMakeLists.txt": FOO_CMAKE.replace("set(PIMG_BACKEND_ORDER 20)\n", "")},
    "an order another backend has": {"tuner/backends/foo/CMakeLists.txt": FOO_CMAKE.replace(" 20)", " 10)")},
    "an order that is not a number": {"tuner/backends/foo/CMakeLists.txt": FOO_CMAKE.replace(" 20)", " second)")},
}


def run(script, files, *args):
    with tempfile.TemporaryDirectory() as root:  # outside any checkout: the script walks the folder
        for path, text in files.items():
            if text is None:
                continue
            os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
            with open(os.path.join(root, path), "w", encoding="utf-8") as f:
                f.write(text)
        r = subprocess.run([sys.executable, script, root, *args], capture_output=True, text=True)
        return r.returncode, r.stdout + r.stderr


def listed(out, backend):
    """The files --list prints under backend."""
    lines = out.splitlines()
    start = lines.index(next(x for x in lines if x.startswith(f"{backend}: ")))
    files = []
    for line in lines[start + 1:]:
        if not line.startswith("  "):
            break
        files.append(line.strip())
    return files


def main():
    script = sys.argv[1]
    failed = 0
    rc, out = run(script, GOOD)
    if rc != 0:
        print(f"FAIL: a backend in its own places should pass, got {rc}:\n{out}")
        failed += 1
    rc, out = run(script, GOOD, "--list")
    if rc != 0 or listed(out, "foo") != FOO_FILES:
        print(f"FAIL: --list should name foo in {FOO_FILES} alone, got {rc}:\n{out}")
        failed += 1
    else:
        print(f"ok: --list names foo in its folder and its tests alone: {', '.join(FOO_FILES)}")
    for case, change in BAD.items():
        rc, out = run(script, {**GOOD, **change})
        if rc != 1:
            print(f"FAIL: {case} should fail, got {rc}:\n{out}")
            failed += 1
        else:
            print(f"ok: {case}: {out.strip().splitlines()[0]}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
