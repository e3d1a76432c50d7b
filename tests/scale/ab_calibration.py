#!/usr/bin/env python3
"""Calibration of the pull-request gate's A/B rule (`kbench compare --ab`, docs/ci.md): how
often it calls a case `regressed` when base and head are the same commit built twice (A/A),
and how often it catches a head whose float32 sums do 10% more work (KB_TEST_SLOWDOWN=1.1 in
the head's process only: the base runs as `kbench serve`, which never reads it).

Each round is one `HEAD run --baseline kbench=BASE` of the selection, interleaved as the gate
runs it, then `HEAD compare --ab`. Rounds alternate A/A and slowed. Every comparison is kept
(--keep DIR), and the rates are given for the rule at several thresholds from the same data,
recomputed as compare decides: regressed when ratio > 1 + T, p < alpha and the ratio's 95%
interval lies above 1. A measurement, not a test: it takes minutes and its numbers depend on
the machine and its load.

Usage: ab_calibration.py --head build/kbench --base build-base/kbench [--rounds 30]
           [--filter REGEX] [--slow REGEX] [--min-time S] [--keep DIR]"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

FILTER = r"^reduce/(sum|mean|max|argmax|std)/f(32|64)/(64x64|1024x1024|131072|65536)/.*simd=auto/threads=1$"
SLOW = r"^reduce/sum/f32/"  # the cases KB_TEST_SLOWDOWN slows
THRESHOLDS = (0.03, 0.05, 0.07, 0.10)
ALPHA = 0.01


def one_round(args, tmp, k, slowed):
    run = Path(tmp, f"round{k}.json")
    env = dict(os.environ)
    env.pop("KB_TEST_SLOWDOWN", None)
    if slowed:
        env["KB_TEST_SLOWDOWN"] = "1.1"
    cmd = [args.head, "run", "quick", "--filter", args.filter, "--baseline",
           f"kbench={args.base}", "--no-roofline", "--min-time", str(args.min_time), "-q",
           "-o", str(run)]
    r = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"round {k}: {' '.join(cmd)} failed: {r.stderr}")
    out = Path(args.keep or tmp, f"compare{k}-{'slow' if slowed else 'aa'}.json")
    r = subprocess.run([args.head, "compare", "--ab", str(run), "--format", "json", "-o",
                        str(out)], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"round {k}: compare --ab failed: {r.stderr}")
    run.unlink()
    return json.loads(out.read_text())["cases"]


def regressed(case, threshold):
    return (case["ratio"] is not None and case["ratio"] > 1 + threshold
            and case["p_value"] is not None and case["p_value"] < ALPHA
            and case["ratio_low"] is not None and case["ratio_low"] > 1)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--head", required=True, help="the kbench that runs (head)")
    p.add_argument("--base", required=True, help="the other build of the same commit (base)")
    p.add_argument("--rounds", type=int, default=30, help="A/B runs of each kind")
    p.add_argument("--filter", default=FILTER)
    p.add_argument("--slow", default=SLOW, help="the cases the slowdown reaches (regex)")
    p.add_argument("--min-time", type=float, default=0.1, help="kbench run --min-time")
    p.add_argument("--keep", help="keep every comparison's JSON in this directory")
    args = p.parse_args()
    slow = re.compile(args.slow)
    if args.keep:
        Path(args.keep).mkdir(parents=True, exist_ok=True)
    aa = []  # (case, compared) from A/A rounds and the unslowed cases of slowed rounds
    caught = {}  # slowed case -> list of compared
    start = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(2 * args.rounds):
            slowed = k % 2 == 1
            for c in one_round(args, tmp, k, slowed):
                if slowed and slow.search(c["name"]):
                    caught.setdefault(c["name"], []).append(c)
                else:
                    aa.append(c)
            print(f"round {k + 1}/{2 * args.rounds} done, {time.monotonic() - start:.0f} s",
                  file=sys.stderr)
    print(f"{2 * args.rounds} A/B runs ({args.rounds} A/A, {args.rounds} with "
          f"KB_TEST_SLOWDOWN=1.1 in the head), {time.monotonic() - start:.0f} s; "
          f"alpha {ALPHA}")
    print(f"A/A comparisons: {len(aa)} (cases x runs)")
    for t in THRESHOLDS:
        false = sum(regressed(c, t) for c in aa)
        line = f"threshold {t:.0%}: A/A regressed {false}/{len(aa)} = {false / len(aa):.2%}"
        for name, cs in sorted(caught.items()):
            hit = sum(regressed(c, t) for c in cs)
            line += f"; {name.split('/simd=')[0]} caught {hit}/{len(cs)} = {hit / len(cs):.0%}"
        print(line)
    for name, cs in sorted(caught.items()):
        ratios = sorted(c["ratio"] for c in cs if c["ratio"] is not None)
        print(f"slowed {name}: median ratio {ratios[len(ratios) // 2]:.3f} "
              f"(min {ratios[0]:.3f}, max {ratios[-1]:.3f})")
    worst = {}
    for c in aa:
        if c["ratio"] is not None:
            worst.setdefault(c["name"], []).append(c["ratio"])
    spread = sorted(((max(abs(r - 1) for r in rs), n) for n, rs in worst.items()), reverse=True)
    print("A/A largest |ratio - 1| per case, worst 5: "
          + ", ".join(f"{n.split('/simd=')[0]} {d:.3f}" for d, n in spread[:5]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
