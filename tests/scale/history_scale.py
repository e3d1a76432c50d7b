"""Scale of the history (docs/history.md, "Scale"): N runs of a real results file, each with
its medians moved by a few per cent and a commit and a day of its own, ingested into SQLite
and into a throwaway PostgreSQL server (fsync on), with the time each `kbench history add`
of all N files took and how long `history list` and `kbench detect` over every series then
take: wall-clock and kbench's CPU seconds, and the load average before and after, since the
machine may be shared. A measurement, not a test.

Usage: python3 tests/scale/history_scale.py RESULTS.json [--runs N] [--kbench build/kbench]
       (RESULTS.json from `kbench run reduce --min-time 0.01 -o RESULTS.json`)"""

import argparse
import copy
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cli"))
from pg_server import PgServer  # noqa: E402


def variants(base, n, out_dir):
    """n copies of base: run i started on day i at commit c<i>, each case's statistics (the
    samples are left as they are) scaled by a factor near 1 drawn from a fixed seed."""
    rng = random.Random(15)
    paths = []
    for i in range(n):
        r = copy.deepcopy(base)
        r["context"]["date"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(1.7e9 + 86400 * i))
        r["context"]["git_commit"] = f"c{i:04d}"
        for case in r["cases"]:
            st = case["statistics"]
            if st is None:
                continue
            f = rng.uniform(0.97, 1.03)
            for key in list(st):
                if key.endswith("_ns"):
                    st[key] *= f
            st["min_ns"] = min(st["min_ns"], st["ci_low_ns"])
            st["max_ns"] = max(st["max_ns"], st["ci_high_ns"])
        path = out_dir / f"run{i:04d}.json"
        path.write_text(json.dumps(r, separators=(",", ":")))
        paths.append(str(path))
    return paths


def timed(args):
    """The command's wall-clock seconds and the CPU seconds (user and system) kbench used:
    on a machine shared with other work, the second says what the first cannot."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    p = subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        sys.exit(f"{' '.join(args[:3])} failed: {p.stderr}")
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return seconds, cpu


def measure(kbench, db, paths, label):
    load = os.getloadavg()[0]
    add, add_cpu = timed([kbench, "history", "add", "--db", db, *paths])
    listing, list_cpu = timed([kbench, "history", "list", "--db", db, "--format", "json"])
    detect, detect_cpu = timed([kbench, "detect", "--db", db, "--format", "json"])
    print(f"{label}: history add of {len(paths)} files {add:.1f} s ({add / len(paths):.2f} s "
          f"per run; kbench's CPU {add_cpu:.1f} s); history list {listing:.1f} s (CPU "
          f"{list_cpu:.1f} s); detect {detect:.1f} s (CPU {detect_cpu:.1f} s); load average "
          f"{load:.1f} before, {os.getloadavg()[0]:.1f} after, on {os.cpu_count()} cores",
          flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("results")
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--kbench", default="build/kbench")
    ap.add_argument("--skip-postgresql", action="store_true")
    a = ap.parse_args()
    base = json.loads(Path(a.results).read_text())
    with tempfile.TemporaryDirectory(prefix="kbscale-") as d:
        tmp = Path(d)
        paths = variants(base, a.runs, tmp)
        size = sum(os.path.getsize(p) for p in paths) / 1e6
        print(f"{a.runs} runs of {len(base['cases'])} cases, {size:.0f} MB of JSON", flush=True)
        measure(a.kbench, f"sqlite:{tmp}/history.sqlite", paths, "sqlite")
        print(f"sqlite file: {os.path.getsize(tmp / 'history.sqlite') / 1e6:.0f} MB")
        if not a.skip_postgresql:
            with PgServer(fsync=True) as pg:
                measure(a.kbench, pg.createdb("scale")[0], paths, "postgresql")


if __name__ == "__main__":
    main()
