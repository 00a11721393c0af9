"""Run the junction tests of a Windows build under stock Wine, which cannot make junctions,
so that they check cdm's refusal (the build's own Wine makes them, so there they check the
junctions). Usage: stock_wine.py BUILD_DIR STOCK_WINE WINEPREFIX TEST...

Each test's command and environment come from `meson introspect --tests`, with the build's
Wine ($WINE of the scenarios, the wrapper of the .exe tests) replaced by STOCK_WINE. Writes BUILD_DIR/meson-logs/stocklog.json in the shape of
meson's testlog.json (for .ci/count.py); exits 1 when a test failed.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

build, stock, prefix, names = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
tests = json.loads(subprocess.check_output(["meson", "introspect", build, "--tests"]))
wine = next(t["env"]["WINE"] for t in tests if "WINE" in t["env"])
failed = 0
with open(os.path.join(build, "meson-logs", "stocklog.json"), "w") as log:
    for t in (t for t in tests if t["name"] in names):
        swap = lambda s: s.replace(wine, stock)
        env = dict(os.environ, **{k: swap(v) for k, v in t["env"].items()})
        env["WINEPREFIX"] = prefix
        env["PATH"] = os.pathsep.join(p for p in env["PATH"].split(os.pathsep)
                                      if not os.path.exists(os.path.join(p, "wineserver"))
                                      or os.path.dirname(stock) == p)
        cmd = [swap(c) for c in t["cmd"]]
        if cmd[0].endswith(".exe"):  # meson puts the cross file's Wine before these
            cmd.insert(0, stock)
        # files, not pipes: a wineserver started by the test keeps its copies open
        with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
            rc = subprocess.run(cmd, env=env, cwd=t["workdir"] or build, stdout=out,
                                stderr=err, timeout=300).returncode
            out.seek(0)
            err.seek(0)
            run = subprocess.CompletedProcess(cmd, rc, out.read(), err.read())
        bad = run.returncode != 0 or re.search(r"^not ok", run.stdout, re.M)
        failed += bool(bad)
        name = f"stock Wine / {t['name']}"
        print(f"{name}: {'FAIL' if bad else 'OK'}")
        if bad:
            print(run.stdout + run.stderr)
        log.write(json.dumps({"name": name, "result": "FAIL" if bad else "OK",
                              "stdout": run.stdout}) + "\n")
sys.exit(1 if failed else 0)
