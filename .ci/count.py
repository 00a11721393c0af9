"""Count TAP results over every test in meson's testlog.json files (--failed=STEP adds one
failure for a step that failed before its tests could run).

Prints the per-program lines that failed, then one line "N passed, N failed, N skipped".
A program that failed without a failing TAP line (a crash, a timeout) counts as one failure.
Exits 1 when anything failed.
"""
import json
import re
import sys

passed = failed = skipped = 0
for path in sys.argv[1:]:
    if path.startswith("--failed="):  # a step that failed before any test could run
        print(f"{path[len('--failed='):]}: failed before its tests ran")
        failed += 1
        continue
    with open(path) as f:
        for line in f:
            test = json.loads(line)
            out = test.get("stdout") or ""
            ok = len(re.findall(r"^ok \d+(?! .*# SKIP)", out, re.M))
            skip = len(re.findall(r"^ok \d+ .*# SKIP", out, re.M))
            not_ok = len(re.findall(r"^not ok \d+", out, re.M))
            for m in re.finditer(r"^(not ok \d+.*|ok \d+ .*# SKIP.*)$", out, re.M):
                print(f"{test['name']}: {m.group(1)}")
            if test["result"] not in ("OK", "SKIP", "EXPECTEDFAIL") and not_ok == 0:
                print(f"{test['name']}: {test['result']} without a failing TAP line")
                not_ok = 1
            if test["result"] == "SKIP" and ok + skip + not_ok == 0:
                skip = 1
            passed += ok
            skipped += skip
            failed += not_ok
print(f"{passed} passed, {failed} failed, {skipped} skipped")
sys.exit(1 if failed else 0)
