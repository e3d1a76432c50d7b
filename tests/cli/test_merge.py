#!/usr/bin/env python3
"""`kbench merge`: three shards of one run combine into the run's cases, each once, with its
samples, the selection no longer sharded. Shards that are not one run are refused with one
line naming the shard (and the case), and nothing is written: a shard missing or given twice,
another commit, another kind of machine, other settings, a case in two shards, a case the
shard's plan has that it lacks. Timings are never checked.

Usage: python3 test_merge.py path/to/kbench"""

import copy
import json
import sys
import tempfile
from pathlib import Path

from harness import check, finish, kbench

FILTER = "/64x64/axis=None/simd=auto/threads=1"
RUN = ["run", "reduce", "--filter", FILTER, "--min-time", "0.005", "--no-roofline",
       "--no-monitor", "-q"]


def save(path, results):
    results["summary"]["cases"] = len(results["cases"])
    path.write_text(json.dumps(results))
    return str(path)


def refused(tmp, files, *expected):
    """The merge of files fails with exit 1, one line holding every expected text, no output."""
    out = Path(tmp, "refused.json")
    r = kbench("merge", *files, "-o", str(out))
    line = r.stderr.strip()
    check(r.returncode == 1 and "\n" not in line and all(e in line for e in expected),
          f"merge of {[Path(f).name for f in files]}: {r.returncode} {r.stderr!r}, expected "
          f"{expected}")
    check(not out.exists(), f"a refused merge wrote {out}")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        shards = []
        for k in (1, 2, 3):
            path = Path(tmp, f"s{k}.json")
            r = kbench(*RUN, "--shard", f"{k}/3", "-o", str(path))
            if not check(r.returncode == 0, f"shard {k}: {r.stderr}"):
                return finish("merge")
            shards.append(json.loads(path.read_text()))
        files = [str(Path(tmp, f"s{k}.json")) for k in (1, 2, 3)]
        planned = kbench("list", "reduce", "--filter", FILTER).stdout.split()

        out = Path(tmp, "all.json")
        r = kbench("merge", files[2], files[0], files[1], "-o", str(out))
        if check(r.returncode == 0, f"merge failed: {r.stderr}"):
            merged = json.loads(out.read_text())
            names = [c["name"] for c in merged["cases"]]
            check(sorted(names) == sorted(planned) and len(set(names)) == len(names),
                  f"merged cases {names} are not the planned {planned}")
            check(merged["context"]["selection"]["shard"] == {"index": 1, "count": 1},
                  f"merged selection {merged['context']['selection']}")
            check(merged["summary"]["cases"] == len(planned), f"summary {merged['summary']}")
            by_name = {c["name"]: c for s in shards for c in s["cases"]}
            for c in merged["cases"]:
                check(c["samples_ns"] == by_name[c["name"]]["samples_ns"],
                      f"{c['name']}: samples changed in the merge")
            shard_of = [c["name"] for s in shards for c in s["cases"]]
            check(names == shard_of, "cases not in shard order")

        refused(tmp, files[:2], "shard 3 of 3 is missing")
        refused(tmp, [files[0], files[0], files[2]], "s1.json", "given twice")

        other = copy.deepcopy(shards[1])
        other["context"]["git_commit"] = "0123456789ab"
        refused(tmp, [files[0], save(Path(tmp, "commit.json"), other), files[2]], "commit.json",
                "0123456789ab", "not one run")

        other = copy.deepcopy(shards[1])
        other["context"]["cpu"]["model"] = "Another CPU"
        refused(tmp, [files[0], save(Path(tmp, "machine.json"), other), files[2]],
                "machine.json", "Another CPU", "not one kind of machine")

        other = copy.deepcopy(shards[1])
        other["context"]["settings"]["min_time_s"] = 0.5
        refused(tmp, [files[0], save(Path(tmp, "settings.json"), other), files[2]],
                "settings.json", "other settings")

        twice = copy.deepcopy(shards[1])
        twice["cases"].append(copy.deepcopy(shards[0]["cases"][0]))
        refused(tmp, [files[0], save(Path(tmp, "twice.json"), twice), files[2]], "twice.json",
                shards[0]["cases"][0]["name"], "also in")

        lacking = copy.deepcopy(shards[1])
        gone = lacking["cases"].pop(0)["name"]
        refused(tmp, [files[0], save(Path(tmp, "lacking.json"), lacking), files[2]],
                "lacking.json", gone, "is missing")

        r = kbench("merge", *files)
        check(r.returncode == 2 and "-o" in r.stderr, f"no -o: {r.returncode} {r.stderr!r}")
        r = kbench("merge", *files, "-o", str(Path(tmp, "all.csv")))
        check(r.returncode == 2, f"a .csv output: {r.returncode} {r.stderr!r}")
        r = kbench("merge", "--help")
        check(r.returncode == 0 and "SHARD.json" in r.stdout, f"--help: {r.stdout!r}")
    return finish("merge")


if __name__ == "__main__":
    sys.exit(main())
