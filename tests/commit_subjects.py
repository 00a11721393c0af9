#!/usr/bin/env python3
"""Commit subjects stay under 72 characters, with the detail in the body (TAP): every
commit since the rule began (FIRST, the first commit held to it). Outside a git clone
(a source tarball) there is nothing to check, and the test says so.

usage: commit_subjects.py SOURCE_ROOT
"""
import shutil
import subprocess
import sys

FIRST = "4e74cfd"  # arch_check: a function cap, unique names, one-owner rules
LIMIT = 72


def main():
    root = sys.argv[1]
    git = shutil.which("git")
    r = subprocess.run([git, "-C", root, "log", "--format=%h %s", f"{FIRST}^..HEAD"],
                       capture_output=True, text=True) if git else None
    if not r or r.returncode != 0:
        print("1..1")
        print("ok 1 - commit subjects # SKIP not a git clone with the commit " + FIRST)
        return 0
    lines = r.stdout.splitlines()
    print(f"1..{len(lines)}")
    failed = 0
    for i, line in enumerate(lines, 1):
        sha, _, subject = line.partition(" ")
        ok = len(subject) < LIMIT
        failed += not ok
        print(f"{'ok' if ok else 'not ok'} {i} - {sha}'s subject is under {LIMIT} characters"
              + ("" if ok else f": {len(subject)}: {subject[:80]}"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
