"""End-to-end checks of `kbench run` and `kbench list` on tiny selections with a very short
--min-time: the results file has every key docs/results-schema.md documents, with its
documented type, and consistent statistics; CSV, markdown and JSON on stdout; progress on
stderr; exit statuses (2 for bad options, filters, shard specs and suites, 1 when a case
fails, with the failure in the file); --shard partitions `kbench list` exactly, groups whole.
Timings are never checked.

Usage: python3 test_run.py path/to/kbench"""

import csv
import io
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from doc_types import type_ok

KBENCH = sys.argv[1]
SCHEMA_DOC = Path(__file__).resolve().parents[2] / "docs" / "results-schema.md"
CACHE_LEVELS = ["L1d", "L1i", "L2", "L3"]
TINY = "^reduce/sum/f32/64x64/axis=None/"  # 64x64 float32: a few microseconds per call
ONE = TINY + "simd=scalar/threads=1$"
FAST = ["--min-time", "0.001"]
failures = []
checked = 0


def check(condition, message):
    global checked
    checked += 1
    if not condition:
        failures.append(message)
    return condition


def kbench(*args, timeout=300):
    env = {k: v for k, v in os.environ.items() if k not in ("KB_SIMD", "KB_NUM_THREADS")}
    return subprocess.run([KBENCH, *args], env=env, capture_output=True, text=True,
                          timeout=timeout)


def documented():
    """(path, type) of every key in the tables of docs/results-schema.md."""
    keys = []
    for line in SCHEMA_DOC.read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 3 or not cells[0].startswith("`"):
            continue
        for key in re.findall(r"`([^`]+)`", cells[0]):
            keys.append((key, cells[1]))
    return keys


def lookup(obj, path):
    """Values at a dotted path; `*` fans out over cache levels, `[]` over array items; a null
    on the way (a clock that was not measured) ends that branch."""
    values = [obj]
    for part in path.split("."):
        nxt = []
        for v in values:
            if v is None:
                continue
            if part == "*":
                nxt.extend(v[level] for level in CACHE_LEVELS)
                continue
            name = part[:-2] if part.endswith("[]") else part
            if not isinstance(v, dict) or name not in v:
                raise KeyError(path)
            item = v[name]
            nxt.extend(item if part.endswith("[]") else [item])
        values = nxt
    return values


def check_schema(results, label):
    for key, doc_type in documented():
        try:
            values = lookup(results, key)
        except KeyError:
            check(False, f"{label}: documented key {key} missing")
            continue
        for v in values:
            check(type_ok(v, doc_type, empty_strings=True), f"{label}: {key} = {v!r} is not {doc_type}")


def check_case(case, label):
    if case["status"] != "ok":
        return
    calls = case["calls_per_sample"]
    per_call = [s / calls for rep in case["samples_ns"] for s in rep]
    st = case["statistics"]
    check(st["n"] == len(per_call) and all(len(r) >= 10 for r in case["samples_ns"]),
          f"{label}: {st['n']} samples, {[len(r) for r in case['samples_ns']]} per repetition")
    check(abs(st["median_ns"] - statistics.median(per_call)) <= 1e-9 * st["median_ns"],
          f"{label}: median {st['median_ns']} is not the median of the samples")
    check(st["min_ns"] <= st["ci_low_ns"] <= st["median_ns"] <= st["ci_high_ns"] <= st["max_ns"],
          f"{label}: min <= ci_low <= median <= ci_high <= max fails")
    check(st["outliers_low"] + st["outliers_high"] <= st["n"], f"{label}: outliers")
    if case["bytes_per_call"]:
        check(abs(case["rates"]["gb_per_s"] - case["bytes_per_call"] / st["median_ns"])
              <= 1e-9 * case["rates"]["gb_per_s"], f"{label}: GB/s is not bytes / median")


def run_ok(tmp):
    paths = {ext: os.path.join(tmp, "r." + ext) for ext in ("json", "csv", "md")}
    r = kbench("run", "reduce", "--filter", TINY, *FAST, "-o", paths["json"], "-o", paths["csv"],
               "-o", paths["md"])
    if not check(r.returncode == 0, f"tiny run exited {r.returncode}: {r.stderr}"):
        return
    listed = kbench("list", "reduce", "--filter", TINY).stdout.split()
    check(len(listed) >= 2, f"the tiny selection lists {listed}")
    table = r.stdout.splitlines()
    check(table[0].split()[:2] == ["case", "time/call"], f"table header: {table[0]}")
    check([line.split()[0] for line in table[1:]] == listed, "table rows are the listed cases")
    check(re.search(rf"\[1/{len(listed)}\] .*elapsed, about .* left: reduce/sum/f32/64x64",
                    r.stderr) is not None, f"no progress line on stderr: {r.stderr}")
    check("warning:" in r.stderr or "cases;" in r.stderr, "no run header on stderr")
    check(f"wrote {paths['json']}" in r.stderr, "no 'wrote' line")

    with open(paths["json"]) as f:
        results = json.load(f)
    check(results["schema"] == "kbench-results" and results["schema_version"] == 1, "schema")
    check_schema(results, "tiny run")
    cases = results["cases"]
    check([c["name"] for c in cases] == listed, "file cases are the listed cases")
    check(results["summary"] == {"cases": len(listed), "failed": 0}, "summary")
    ctx = results["context"]
    check(ctx["selection"] == {"suites": ["reduce"], "filters": [TINY],
                               "shard": {"index": 1, "count": 1}}, f"selection {ctx['selection']}")
    check(ctx["settings"]["min_time_s"] == 0.001 and ctx["settings"]["cache"] == "hot",
          "settings")
    check(ctx["command"].startswith("kbench run reduce --filter"), ctx["command"])
    info = json.loads(kbench("info", "--json").stdout)
    check(ctx["simd"]["available"] == info["simd"]["available"], "simd levels as kbench info")
    check({w["code"] for w in ctx["environment_warnings"]} >=
          {w["code"] for w in info["warnings"]} - {"load"}, "environment warnings as kbench info")
    for c in cases:
        label = c["name"]
        p = c["params"]
        check(p["op"] == "sum" and p["dtype"] == "f32" and p["shape"] == "64x64"
              and p["axis"] == "None", f"{label}: params {p}")
        check(label == f"reduce/sum/f32/64x64/axis=None/simd={p['simd']}/threads={p['threads']}",
              f"{label}: name is not made of its params")
        check(c["group"] == "reduce/sum/f32/64x64/axis=None", f"{label}: group")
        check(c["implementation"] == {"simd": p["simd"], "threads": p["threads"]},
              f"{label}: implementation")
        check(c["threads"] == int(p["threads"]), f"{label}: threads in force")
        want_simd = info["simd"]["selected"] if p["simd"] == "auto" else p["simd"]
        check(c["simd"] == want_simd, f"{label}: simd in force {c['simd']}")
        # 4096 float32 read, one float32 written; one add per element.
        check(c["bytes_per_call"] == 64 * 64 * 4 + 4 and c["flops_per_call"] == 4096,
              f"{label}: counts {c['bytes_per_call']}, {c['flops_per_call']}")
        check_case(c, label)

    with open(paths["csv"]) as f:
        rows = list(csv.DictReader(f))
    check([row["name"] for row in rows] == listed, "csv rows")
    check(all(row["op"] == "sum" and row["status"] == "ok" for row in rows), "csv columns")
    check(all(abs(float(row["median_ns"]) - c["statistics"]["median_ns"]) <= 1e-9 *
              c["statistics"]["median_ns"] for row, c in zip(rows, cases)), "csv medians")
    md = Path(paths["md"]).read_text()
    check(md.startswith("# kbench results"), "markdown title")
    check(sum(1 for line in md.splitlines() if line.startswith("| `reduce/")) == len(listed),
          "markdown rows")


def stdout_formats():
    r = kbench("run", "reduce", "--filter", ONE, *FAST, "--format", "json", "-q")
    check(r.returncode == 0 and r.stderr.count("warning:") == r.stderr.count("\n"),
          f"--format json -q: {r.returncode} {r.stderr}")
    if r.returncode == 0:
        results = json.loads(r.stdout)
        check(len(results["cases"]) == 1, "one case on stdout")
    r = kbench("run", "reduce", "--filter", ONE, *FAST, "--format", "csv", "-q")
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    check(r.returncode == 0 and len(rows) == 1 and rows[0]["simd"] == "scalar", "--format csv")
    r = kbench("run", "reduce", "--filter", ONE, *FAST, "--format", "markdown", "-q")
    check(r.returncode == 0 and "| case | time/call |" in r.stdout, "--format markdown")


def settings_recorded(tmp):
    path = os.path.join(tmp, "cold.json")
    r = kbench("run", "reduce", "--filter", ONE, *FAST, "--repetitions", "2", "--cache", "cold",
               "--pin", "--min-samples", "12", "-q", "-o", path)
    if not check(r.returncode == 0, f"cold pinned run exited {r.returncode}: {r.stderr}"):
        return
    with open(path) as f:
        results = json.load(f)
    s = results["context"]["settings"]
    check(s["cache"] == "cold" and s["flush_bytes"] > 0 and s["pin"] and s["pinned_cpus"]
          and s["repetitions"] == 2 and s["min_samples"] == 12, f"settings {s}")
    c = results["cases"][0]
    check(len(c["samples_ns"]) == 2 and all(len(rep) >= 12 for rep in c["samples_ns"]),
          "two repetitions of at least 12 samples")
    check_case(c, "cold")


def failures_exit_1(tmp):
    path = os.path.join(tmp, "failing.json")
    r = kbench("run", "selftest", "failing", *FAST, "-o", path)
    check(r.returncode == 1, f"failing suite exited {r.returncode}")
    check("2 of 4 cases failed; the first, failing/setup: setup: this case fails in setup"
          in r.stderr, f"failure message: {r.stderr}")
    check(re.search(r"^failing/run +FAILED: this case fails while running", r.stdout, re.M)
          is not None, f"table row of a failure: {r.stdout}")
    with open(path) as f:
        results = json.load(f)
    check_schema(results, "failing run")
    by_name = {c["name"]: c for c in results["cases"]}
    check(results["summary"] == {"cases": 4, "failed": 2}, "summary of failures")
    for name in ("failing/setup", "failing/run"):
        c = by_name[name]
        check(c["status"] == "failed" and c["error"] and c["statistics"] is None
              and c["samples_ns"] == [], f"{name} recorded as failed: {c}")
    for name in ("selftest/empty", "selftest/call"):
        check(by_name[name]["status"] == "ok", f"{name} ran")
        check_case(by_name[name], name)


def usage_errors(tmp):
    bad = [
        (["run", "--bogus"], "unknown option '--bogus'"),
        (["run", "--filter", "(sum"], "bad filter '(sum'"),
        (["run", "--filter"], "option '--filter' needs a value"),
        (["run", "--shard", "3/2"], "bad shard '3/2'"),
        (["run", "--shard", "0/2"], "bad shard '0/2'"),
        (["run", "--shard", "two"], "bad shard 'two'"),
        (["list", "--shard", "1/0"], "bad shard '1/0'"),
        (["run", "--min-time", "-1"], "bad --min-time '-1'"),
        (["run", "--min-samples", "5"], "bad --min-samples '5'"),
        (["run", "--repetitions", "0"], "bad --repetitions '0'"),
        (["run", "--cache", "warm"], "bad --cache 'warm'"),
        (["run", "--format", "xml"], "unknown format 'xml'"),
        (["run", "-o", os.path.join(tmp, "r.txt")], "cannot tell the format"),
        (["run", "nosuch"], "unknown suite 'nosuch'"),
        (["run", "--filter", "no case has this name"], "no case matches the selection"),
        (["list", "reduce", "--filter", "-."], "no case matches the selection"),
    ]
    for args, message in bad:
        r = kbench(*args)
        check(r.returncode == 2, f"{args}: exit {r.returncode}, expected 2")
        check(message in r.stderr and "--help" in r.stderr, f"{args}: stderr {r.stderr!r}")
        check(r.stdout == "", f"{args}: printed on stdout")
    for cmd in ("run", "list"):
        r = kbench(cmd, "--help")
        check(r.returncode == 0 and "--shard K/N" in r.stdout and "quick" in r.stdout,
              f"{cmd} --help")
    # An empty shard is not an error: N runners may outnumber the groups.
    r = kbench("run", "selftest", "--filter", "empty", "--shard", "2/2", *FAST, "-q")
    check(r.returncode == 0 and len(r.stdout.splitlines()) == 1, f"empty shard: {r.returncode}")


def shards():
    full = kbench("list", "reduce").stdout.split()
    check(len(full) > 1000 and len(set(full)) == len(full), "reduce lists unique names")
    quick = kbench("list").stdout.split()
    check(0 < len(quick) < len(full) and set(quick) <= set(full), "quick is a subset of reduce")

    def group(name):
        return re.sub(r"/simd=[^/]+/threads=\d+$", "", name)

    for count in (2, 3, 7):
        parts = [kbench("list", "reduce", "--shard", f"{k}/{count}").stdout.split()
                 for k in range(1, count + 1)]
        joined = [n for p in parts for n in p]
        check(sorted(joined) == sorted(full), f"{count} shards do not cover reduce exactly once")
        for p in parts:
            check([n for n in full if n in set(p)] == p, f"a shard of {count} is out of order")
        owner = {}
        for k, p in enumerate(parts):
            for n in p:
                check(owner.setdefault(group(n), k) == k, f"group {group(n)} split by --shard")
        sizes = [len(p) for p in parts]
        check(max(sizes) - min(sizes) <= 0.25 * len(full) / count + 64,
              f"{count} shards badly balanced: {sizes}")
    # Filter then shard, as a CI runner would.
    sel = kbench("list", "reduce", "--filter", "/sum/", "--filter", "-threads=1$").stdout.split()
    check(sel and all("/sum/" in n and not n.endswith("threads=1") for n in sel), "filters")
    parts = [kbench("list", "reduce", "--filter", "/sum/", "--filter", "-threads=1$", "--shard",
                    f"{k}/4").stdout.split() for k in range(1, 5)]
    check(sorted(n for p in parts for n in p) == sorted(sel), "filtered shards cover exactly")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        run_ok(tmp)
        stdout_formats()
        settings_recorded(tmp)
        failures_exit_1(tmp)
        usage_errors(tmp)
    shards()
    for f in failures:
        print("FAIL:", f)
    print(f"{checked - len(failures)} passed, {len(failures)} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
