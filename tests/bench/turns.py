#!/usr/bin/env python3
"""Time commands against a reference command in turns, for ratios near 1.

    turns.py [--rounds N] [--runs N] REFERENCE COMMAND...

Each round runs hyperfine (-N, no shell) on the reference and every command, a few runs
each, so that all are timed within the same second or two; a ratio is taken per round, and
the median round is printed with the range. A single long series of each would be timed
minutes apart, and a busy moment of the machine during one and not the other moves a ratio
near 1 by half. Prints one line per command: NAME MEDIAN_MS MEDIAN_RATIO LOWEST HIGHEST
(tab-separated), after a first line: REFERENCE MEDIAN_MS.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile


def one_round(commands, runs):
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        # hyperfine's warnings about outliers would repeat every round: shown only when it fails
        done = subprocess.run(["hyperfine", "-N", "--warmup", "5", "--runs", str(runs),
                               "--export-json", out.name, *commands],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if done.returncode:
            sys.exit("hyperfine failed:\n" + done.stderr)
        return [r["mean"] * 1000 for r in json.load(open(out.name))["results"]]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rounds", type=int, default=int(os.environ.get("ROUNDS", 9)))
    p.add_argument("--runs", type=int, default=int(os.environ.get("ROUND_RUNS", 60)))
    p.add_argument("reference")
    p.add_argument("commands", nargs="+")
    a = p.parse_args()
    rounds = [one_round([a.reference, *a.commands], a.runs) for _ in range(a.rounds)]
    print("%s\t%.3f" % (a.reference, statistics.median(r[0] for r in rounds)))
    for i, cmd in enumerate(a.commands, start=1):
        ratios = sorted(r[i] / r[0] for r in rounds)
        print("%s\t%.3f\t%.3f\t%.3f\t%.3f" % (cmd, statistics.median(r[i] for r in rounds),
                                             statistics.median(ratios), ratios[0], ratios[-1]))


if __name__ == "__main__":
    sys.exit(main())
