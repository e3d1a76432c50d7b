#!/usr/bin/env python3
"""`kbench run --trace FILE` writes the run's timeline as a Chrome trace: a JSON object whose
traceEvents hold, for each case, complete ("X") events that account for every sample of the
results file, in blocks that never overlap (one thing runs at a time), kbench's and each
baseline's on their own named track, alternating as the interleaving alternates them. Each
block's arguments give its sample count, the case's bytes and FLOPs, the block's median and
the rates it implies, worked out here again from the results file's samples. A path that
cannot be written is refused before anything is measured, as -o's is. Timings are never
checked.

Usage: python3 test_run_trace.py path/to/kbench"""

import json
import statistics
import sys
import tempfile
from pathlib import Path

from harness import check, finish, kbench

TINY = "^reduce/sum/f32/64x64/axis=None/simd=(scalar|auto)/threads=1"


def samples_per_call(case):
    """Each sample's time per call, all repetitions in order, as the results file has them."""
    return [t / case["calls_per_sample"] for rep in case["samples_ns"] for t in rep]


def check_trace(trace, results):
    events = trace["traceEvents"]
    tracks = {e["tid"]: e["args"]["name"] for e in events
              if e["ph"] == "M" and e["name"] == "thread_name"}
    check(tracks.get(1) == "kbench", f"track 1 is not kbench's: {tracks}")
    check(any("numpy" in name for name in tracks.values()),
          f"no track for the numpy baseline: {tracks}")
    blocks = [e for e in events if e["ph"] == "X" and e["cat"] in ("kbench", "baseline")]
    by_case = {}
    for b in blocks:
        by_case.setdefault(b["name"], []).append(b)
    cases = {c["name"]: c for c in results["cases"]}
    check(set(by_case) == set(cases),
          f"the trace's cases are not the results': {sorted(by_case)} vs {sorted(cases)}")
    for name, case in cases.items():
        mine = by_case.get(name, [])
        per_call = samples_per_call(case)
        check(sum(b["args"]["samples"] for b in mine) == len(per_call),
              f"{name}: the blocks hold {sum(b['args']['samples'] for b in mine)} samples, "
              f"the results {len(per_call)}")
        want_track = 1 if case["baseline"] is None else next(
            (t for t, n in tracks.items() if case["baseline"]["library"] in n), None)
        at = 0
        for b in sorted(mine, key=lambda b: b["ts"]):
            a = b["args"]
            check(b["tid"] == want_track, f"{name}: block on track {b['tid']}, not {want_track}")
            check(a["bytes_per_call"] == case["bytes_per_call"],
                  f"{name}: bytes {a['bytes_per_call']} vs {case['bytes_per_call']}")
            check(a["flops_per_call"] == case["flops_per_call"],
                  f"{name}: FLOPs {a['flops_per_call']} vs {case['flops_per_call']}")
            mine_samples = per_call[at:at + a["samples"]]
            at += a["samples"]
            median = statistics.median(mine_samples)
            check(abs(a["median_ns_per_call"] - median) <= 1e-9 * median,
                  f"{name}: block median {a['median_ns_per_call']} vs {median}")
            gbs = case["bytes_per_call"] / median
            check(abs(a["gb_per_s"] - gbs) <= 1e-9 * gbs,
                  f"{name}: block GB/s {a['gb_per_s']} vs {gbs}")
            check(b["dur"] * 1e3 >= sum(t * case["calls_per_sample"] for t in mine_samples),
                  f"{name}: a block lasts less than its samples: {b}")
            check(a["case"]["median_ns_per_call"] == case["statistics"]["median_ns"],
                  f"{name}: case median {a['case']['median_ns_per_call']}")
            roofline = case["roofline"]
            if check(roofline is not None, f"{name}: no roofline with --quick-peaks"):
                percent = roofline["percent_of_bound"] * case["statistics"]["median_ns"] / median
                check(abs(a["percent_of_bound"] - percent) <= 1e-9 * percent,
                      f"{name}: block % of bound {a['percent_of_bound']} vs {percent}")
                check(a["case"]["flags"] == roofline["flags"],
                      f"{name}: flags {a['case']['flags']} vs {roofline['flags']}")
    ordered = sorted(blocks, key=lambda b: b["ts"])
    for before, after in zip(ordered, ordered[1:]):
        check(before["ts"] + before["dur"] <= after["ts"] + 1e-3,
              f"blocks overlap: {before['name']} and {after['name']}")
    sides = [b["tid"] for b in ordered]
    switches = sum(1 for x, y in zip(sides, sides[1:]) if x != y)
    check(switches >= 4, f"kbench and numpy did not alternate: {sides[:20]}")
    warm = [e for e in events if e["ph"] == "X" and e["cat"] == "warm-up"]
    check(warm, "no warm-up events in a hot-cache run")
    for w in warm:
        check(any(b["ts"] <= w["ts"] and w["ts"] + w["dur"] <= b["ts"] + b["dur"] + 1e-3
                  for b in by_case.get(w["args"]["case"], [])),
              f"a warm-up lies outside its case's blocks: {w}")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        trace, out = Path(tmp, "trace.json"), Path(tmp, "r.json")
        # Of the trace, not of the peaks: quick peaks measured on a busy machine (and cached, for
        # every run of this build) can be below what a case reaches in a quieter moment.
        r = kbench("run", "reduce", "--filter", TINY, "--min-time", "0.02", "--quick-peaks",
                   "--allow-impossible", "--baseline", "numpy", "--trace", str(trace), "-o",
                   str(out), "-q")
        if check(r.returncode == 0, f"run --trace failed: {r.stderr}"):
            check_trace(json.loads(trace.read_text()), json.loads(out.read_text()))

        missing = Path(tmp, "no", "such", "dir", "t.json")
        r = kbench("run", "reduce", "--filter", TINY, "--trace", str(missing))
        check(r.returncode == 1 and str(missing.parent) in r.stderr and "[" not in r.stderr,
              f"an unwritable trace is not refused at once: {r.returncode} {r.stderr!r}")
        check(not missing.exists(), "a trace was written where it cannot be")
    return finish("run trace")


if __name__ == "__main__":
    sys.exit(main())
