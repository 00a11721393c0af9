#!/usr/bin/env python3
"""Every C file of src/, include/ and tests/ is as clang-format leaves it (TAP), with the
tree's .clang-format and clang-format 14 (the version of Debian 12, which CI installs:
another version formats some lines otherwise). Without it the check skips and says why,
and fails under CI=true, as the other tests do for a missing tool.

usage: format_check.py SOURCE_ROOT
"""
import os
import shutil
import subprocess
import sys

TOOL = "clang-format-14"


def c_files(root):
    for top in ("src", "include", "tests"):
        for dirpath, _, names in os.walk(os.path.join(root, top)):
            for n in sorted(names):
                if n.endswith((".c", ".h")):
                    yield os.path.relpath(os.path.join(dirpath, n), root)


def main():
    root = sys.argv[1]
    tool = shutil.which(TOOL)
    if not tool:
        print("1..1")
        if os.environ.get("CI") == "true":
            print(f"not ok 1 - {TOOL} is installed (CI=true: install it, as .ci/run does)")
            return 1
        print(f"ok 1 - the format check # SKIP {TOOL} not found (apt-get install {TOOL})")
        return 0
    files = sorted(c_files(root))
    # one process for every file (one each took over 30 s on a loaded machine); the
    # complaints name their file
    r = subprocess.run([tool, "--dry-run", "--Werror", "--style=file"] + files, cwd=root,
                       capture_output=True, text=True)
    complaints = {}
    for line in r.stderr.splitlines():
        name = line.split(":", 1)[0]
        if name in files:
            complaints.setdefault(name, []).append(line)
    print(f"1..{len(files) + 1}")
    print(f"{'ok' if r.returncode == 0 or complaints else 'not ok'} 1 - {TOOL} ran"
          + ("" if r.returncode == 0 or complaints else f": {r.stderr.strip()[:200]}"))
    failed = 0 if r.returncode == 0 or complaints else 1
    for i, rel in enumerate(files, 2):
        if rel not in complaints:
            print(f"ok {i} - {rel} is formatted")
            continue
        failed += 1
        print(f"not ok {i} - {rel} is formatted: run {TOOL} -i {rel}")
        for line in complaints[rel][:3]:
            print(f"# {line}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
