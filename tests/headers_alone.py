#!/usr/bin/env python3
"""Every public header (include/*.h) compiles alone, with the build's own compiler (TAP):
a program that includes only that one header builds. Each header includes what it uses.

usage: headers_alone.py SOURCE_ROOT COMPILER [ARGS...]
"""
import os
import subprocess
import sys
import tempfile


def main():
    root, compiler = sys.argv[1], sys.argv[2:]
    include = os.path.join(root, "include")
    headers = sorted(h for h in os.listdir(include) if h.endswith(".h"))
    print(f"1..{len(headers)}")
    failed = 0
    with tempfile.TemporaryDirectory(prefix="headers-alone.") as scratch:
        for i, h in enumerate(headers, 1):
            src = os.path.join(scratch, h.replace(".h", "_alone.c"))
            with open(src, "w", encoding="utf-8") as f:
                f.write(f'#include "{h}"\nint main(void) {{ return 0; }}\n')
            r = subprocess.run(compiler + ["-std=c11", "-Wall", "-Wextra", "-Werror",
                                           "-fsyntax-only", "-I", include, src],
                               capture_output=True, text=True)
            ok = r.returncode == 0
            failed += not ok
            print(f"{'ok' if ok else 'not ok'} {i} - include/{h} compiles alone")
            if not ok:
                print("\n".join("# " + line for line in (r.stderr or r.stdout).splitlines()[:8]))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
