#!/usr/bin/env python3
"""Calibration of the pull-request gate (docs/ci.md, "The decision, and its calibration"): how
often it calls a case regressed when base and head are the same commit built twice (A/A), and
how often it catches a head whose float32 sums do 10% more work (KB_TEST_SLOWDOWN=1.1 in the head's
process only: the base runs as `kbench serve`, which never reads it).

Each round is the gate as CI runs it, through its own steps: scripts/ci/ab-run (one
interleaved run of the selection), scripts/ci/ab-compare (kbench compare --ab) and
scripts/ci/ab-confirm (the regressed cases measured again). Rounds alternate A/A and slowed.
It reports both the single run's verdicts (the rule of compare --ab alone, also at other
thresholds, recomputed as compare decides: ratio > 1 + T, p < alpha and the ratio's 95%
interval above 1) and the gate's confirmed ones. Every round's files are kept (--keep DIR), and
--analyze DIR reports on kept rounds without running anything. A measurement, not a test: it
takes minutes, and its numbers depend on the machine and its load.

Usage: ab_calibration.py --head build/kbench --base build-base/kbench [--rounds 30]
           [--cases REGEX] [--slow REGEX] [--keep DIR]
       ab_calibration.py --analyze DIR"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CI = ROOT / "scripts/ci"
CASES = r"^reduce/(sum|mean|max|argmax|std)/f(32|64)/(64x64|1024x1024|131072|65536)/"
SLOW = r"^reduce/sum/f32/"  # the cases KB_TEST_SLOWDOWN slows
THRESHOLDS = (0.05, 0.07, 0.10, 0.15)
ALPHA = 0.01


def one_round(args, where, slowed):
    env = {k: v for k, v in os.environ.items() if not k.startswith("KB_CI_")}
    env.pop("KB_TEST_SLOWDOWN", None)
    env.update(KB_CI_SUITE="quick", KB_CI_CASES=args.cases, KB_CI_THREADS="1")
    if slowed:
        env["KB_TEST_SLOWDOWN"] = "1.1"
    where.mkdir(parents=True)
    for step in (["ab-run", args.head, args.base, where / "ab.json"],
                 ["ab-compare", args.head, where / "ab.json", where],
                 ["ab-confirm", args.head, args.base, where]):
        r = subprocess.run([CI / step[0], *map(str, step[1:])], env=env, capture_output=True,
                           text=True)
        if r.returncode != 0:
            sys.exit(f"{where}: {step[0]} failed: {r.stderr}")
    for f in where.glob("*.json"):  # the runs' raw samples: large, and not needed again
        if f.name == "ab.json" or re.fullmatch(r"confirm\d+\.json", f.name):
            f.unlink()


def regressed(case, threshold):
    return (case["ratio"] is not None and case["ratio"] > 1 + threshold
            and case["p_value"] is not None and case["p_value"] < ALPHA
            and case["ratio_low"] is not None and case["ratio_low"] > 1)


def analyze(rounds, slow):
    aa, caught = [], {}  # (case, confirmed); slowed case -> [(case, confirmed)]
    for where in rounds:
        confirmed = set(json.loads((where / "gate.json").read_text())["confirmed"])
        slowed = where.name.endswith("-slow")
        for c in json.loads((where / "compare.json").read_text())["cases"]:
            entry = (c, c["name"] in confirmed)
            if slowed and slow.search(c["name"]):
                caught.setdefault(c["name"], []).append(entry)
            else:
                aa.append(entry)
    n_slow = sum(1 for w in rounds if w.name.endswith("-slow"))
    print(f"{len(rounds)} rounds ({len(rounds) - n_slow} A/A, {n_slow} with KB_TEST_SLOWDOWN=1.1 "
          f"in the head); alpha {ALPHA}; A/A comparisons (cases x rounds): {len(aa)}")

    def line(label, hit):
        false = sum(hit(c, ok) for c, ok in aa)
        text = f"{label}: A/A regressed {false}/{len(aa)} = {false / len(aa):.2%}"
        for name, entries in sorted(caught.items()):
            n = sum(hit(c, ok) for c, ok in entries)
            text += (f"; {name.split('/simd=')[0]} caught {n}/{len(entries)} = "
                     f"{n / len(entries):.0%}")
        print(text)

    for t in THRESHOLDS:
        line(f"one run, threshold {t:.0%}", lambda c, ok, t=t: regressed(c, t))
    line("the gate (its defaults: screened at 2% or an interval above 5%; the median of 3 runs "
         "above 5%, each confirmation above 2%)",
         lambda c, ok: ok)
    for name, entries in sorted(caught.items()):
        ratios = sorted(c["ratio"] for c, _ in entries if c["ratio"] is not None)
        print(f"slowed {name}: ratio of medians, median {ratios[len(ratios) // 2]:.3f} "
              f"(min {ratios[0]:.3f}, max {ratios[-1]:.3f})")
    spread = {}
    for c, _ in aa:
        if c["ratio"] is not None:
            spread.setdefault(c["name"].split("/simd=")[0], []).append(abs(c["ratio"] - 1))
    worst = sorted(((max(d), n) for n, d in spread.items()), reverse=True)[:5]
    print("A/A largest |ratio - 1|, worst 5 cases: " + ", ".join(f"{n} {d:.3f}" for d, n in worst))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--head", help="the kbench that runs (head)")
    p.add_argument("--base", help="another build of the same commit (base)")
    p.add_argument("--rounds", type=int, default=30, help="rounds of each kind")
    p.add_argument("--cases", default=CASES, help="scripts/ci/filters' KB_CI_CASES")
    p.add_argument("--slow", default=SLOW, help="the cases the slowdown reaches (regex)")
    p.add_argument("--keep", help="keep every round's files in this directory")
    p.add_argument("--analyze", help="report on the rounds kept in this directory; run nothing")
    args = p.parse_args()
    slow = re.compile(args.slow)
    if args.analyze:
        # A round still running (or stopped) has no gate.json yet: left out.
        rounds = sorted((w for w in Path(args.analyze).glob("round*-*")
                         if (w / "gate.json").exists()),
                        key=lambda w: int(re.match(r"round(\d+)", w.name).group(1)))
        if not rounds:
            sys.exit(f"ab_calibration: no rounds in {args.analyze}")
        analyze(rounds, slow)
        return 0
    if not args.head or not args.base:
        p.error("--head and --base are needed (or --analyze DIR)")
    args.head, args.base = os.path.realpath(args.head), os.path.realpath(args.base)
    start = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        keep = Path(args.keep or tmp)
        rounds = []
        for k in range(2 * args.rounds):
            where = keep / f"round{k + 1}-{'slow' if k % 2 else 'aa'}"
            one_round(args, where, slowed=k % 2 == 1)
            rounds.append(where)
            print(f"round {k + 1}/{2 * args.rounds} done, {time.monotonic() - start:.0f} s",
                  file=sys.stderr)
        print(f"{time.monotonic() - start:.0f} s")
        analyze(rounds, slow)
    return 0


if __name__ == "__main__":
    sys.exit(main())
