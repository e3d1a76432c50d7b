#!/usr/bin/env python3
"""The usage monitor of `kbench run`: the results file holds its series (samples in order, each
CPU's busy fraction between 0 and 1, the machine's busy time split into kbench's own and the
rest) and each case's usage, whose `contended` flag says exactly whether its outside activity
reached the documented threshold. With a busy loop on every CPU beside the run, the case is
contended, shown in the table's notes and warned about. `--no-monitor` leaves both out. The
machine's own quietness is never assumed: the quiet side of the flag is checked on made-up
series by tests/bench/test_monitor.c. Timings are never checked.

Usage: python3 test_run_monitor.py path/to/kbench"""

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from harness import check, finish, kbench

CASE = "^reduce/sum/f32/64x64/axis=None/simd=auto/threads=1$"
RUN = ["run", "reduce", "--filter", CASE, "--min-time", "0.6", "--no-roofline",
       "--monitor-interval", "0.1"]


def check_series(monitor, label):
    if not check(monitor is not None, f"{label}: no monitor in the results"):
        return
    check(monitor["interval_s"] == 0.1, f"{label}: interval {monitor['interval_s']}")
    samples = monitor["samples"]
    check(len(samples) >= 3, f"{label}: {len(samples)} samples in a run of over 0.6 s")
    times = [s["t_s"] for s in samples]
    check(times == sorted(times) and times[0] > 0, f"{label}: sample times {times}")
    for s in samples:
        check(len(s["cpu_busy"]) == monitor["ncpus"] and all(0 <= b <= 1 for b in s["cpu_busy"]),
              f"{label}: cpu_busy {s['cpu_busy']}")
        check(abs(s["busy_cpus"] - s["own_cpus"] - s["others_cpus"]) < 1e-9
              or (s["others_cpus"] == 0 and s["own_cpus"] >= s["busy_cpus"]),
              f"{label}: busy {s['busy_cpus']} is not own {s['own_cpus']} + others "
              f"{s['others_cpus']}")
    check(any(s["own_cpus"] > 0 for s in samples), f"{label}: kbench never seen busy")


def check_usage(results, label):
    threshold = results["context"]["monitor"]["contended_threshold_cpus"]
    check(threshold == 0.25, f"{label}: threshold {threshold}")
    for case in results["cases"]:
        usage = case["usage"]
        if not check(usage is not None, f"{label}: {case['name']} has no usage"):
            continue
        check(usage["contended"] == (usage["outside_cpus"] >= threshold),
              f"{label}: {case['name']}: contended {usage['contended']} with "
              f"{usage['outside_cpus']} CPUs outside")
    return [c["usage"]["contended"] for c in results["cases"] if c["usage"]]


def main():
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp, "r.json")
        r = kbench(*RUN, "-q", "-o", str(out))
        if check(r.returncode == 0, f"run failed: {r.stderr}"):
            results = json.loads(out.read_text())
            check_series(results["context"]["monitor"], "monitored run")
            check_usage(results, "monitored run")

        busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
                for _ in range(os.cpu_count() or 1)]
        try:
            r = kbench(*RUN, "-o", str(out))
        finally:
            for p in busy:
                p.kill()
                p.wait()
        if check(r.returncode == 0, f"contended run failed: {r.stderr}"):
            results = json.loads(out.read_text())
            check(check_usage(results, "contended run") == [True],
                  f"busy loops on every CPU, yet not contended: {results['cases'][0]['usage']}")
            check("contended" in r.stdout, f"the table does not say contended: {r.stdout!r}")
            check("1 of 1 case was contended" in r.stderr, f"no warning: {r.stderr!r}")

        r = kbench(*RUN, "--no-monitor", "-q", "-o", str(out))
        if check(r.returncode == 0, f"--no-monitor run failed: {r.stderr}"):
            results = json.loads(out.read_text())
            check(results["context"]["monitor"] is None, "--no-monitor still monitored")
            check(all(c["usage"] is None for c in results["cases"]), "usage without a monitor")

        r = kbench(*RUN[:-1], "0.01")
        check(r.returncode == 2 and "monitor-interval" in r.stderr,
              f"an interval of 0.01 s is not refused: {r.returncode} {r.stderr!r}")
    return finish("run monitor")


if __name__ == "__main__":
    sys.exit(main())
