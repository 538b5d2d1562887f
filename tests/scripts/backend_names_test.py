#!/usr/bin/env python3
"""scripts/backend-names.py on small made-up trees (issue 37, "Adding a backend"): a backend `foo` that owns its
folder, its option and one registry line passes; each way of spreading it elsewhere fails: its option declared in
the top CMakeLists.txt, a CMake file outside its folder naming its option or target, a second registry line, none.

Usage: backend_names_test.py SCRIPT (the path of backend-names.py). Exits 1 on the first case that answers wrong.
"""
import os
import subprocess
import sys
import tempfile

GOOD = {
    "tuner/backends/foo/CMakeLists.txt": 'option(PIMG_WITH_FOO "Foo backend" ON)\nif(NOT PIMG_WITH_FOO)\n  return()\n'
                                         'endif()\nadd_library(pimg_backend_foo STATIC foo_backend.cpp)\n',
    "tuner/backends/foo/foo_backend.cpp": '// the "foo" backend\n',
    "tuner/backends/host/CMakeLists.txt": "add_library(pimg_backend_host STATIC host_backend.cpp)\n",
    "tuner/CMakeLists.txt": "foreach(name IN LISTS PIMG_BACKEND_DIRS)\n  add_subdirectory(backends/${name})\n"
                            "endforeach()\n",
    "tuner/app/CMakeLists.txt": "foreach(name IN LISTS PIMG_BACKENDS)\n  target_link_libraries(pimg_all PUBLIC "
                                "pimg::backend_${name})\nendforeach()\n",
    "tuner/app/registry_builtin.cpp": '#if PIMG_WITH_FOO\n#include "foo_backend.hpp"\n#endif\n'
                                      "  r.add_backend(make_host_backend(r));\n#if PIMG_WITH_FOO\n"
                                      "  r.add_backend(make_foo_backend());\n#endif\n",
    "CMakeLists.txt": "add_subdirectory(tuner)\n",
    "tests/CMakeLists.txt": "if(TARGET pimg_backend_foo)\n  pimg_test_dir(foo foo)\nendif()\n",
}

BAD = {
    "the option in the top CMakeLists.txt": {"CMakeLists.txt": 'option(PIMG_WITH_FOO "Foo" ON)\n'
                                                               "add_subdirectory(tuner)\n"},
    "add_subdirectory under the option": {"tuner/CMakeLists.txt": "if(PIMG_WITH_FOO)\n"
                                                                  "  add_subdirectory(backends/foo)\nendif()\n"},
    "the app linking the target by name": {"tuner/app/CMakeLists.txt": "target_link_libraries(pimg_all PUBLIC "
                                                                       "pimg::backend_foo)\n"},
    "a family's build naming it": {"variants/CMakeLists.txt": 'if(PIMG_WITH_FOO)\n  add_definitions(-DX)\nendif()\n'},
    "two registry lines": {"tuner/app/registry_builtin.cpp": GOOD["tuner/app/registry_builtin.cpp"] +
                           "  r.add_backend(make_foo_backend());\n"},
    "no registry line": {"tuner/app/registry_builtin.cpp": "  r.add_backend(make_host_backend(r));\n"},
}


def run(script, files):
    with tempfile.TemporaryDirectory() as root:  # outside any checkout: the script walks the folder
        for path, text in files.items():
            os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
            with open(os.path.join(root, path), "w", encoding="utf-8") as f:
                f.write(text)
        r = subprocess.run([sys.executable, script, root], capture_output=True, text=True)
        return r.returncode, r.stdout + r.stderr


def main():
    script = sys.argv[1]
    failed = 0
    rc, out = run(script, GOOD)
    if rc != 0:
        print(f"FAIL: a backend in its own places should pass, got {rc}:\n{out}")
        failed += 1
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
