"""End-to-end checks of `kbench run` and `kbench list` on tiny selections with a very short
--min-time: the results file has every key docs/results-schema.md documents, with its
documented type, and consistent statistics; CSV, markdown and JSON on stdout; progress on
stderr; exit statuses (2 for bad options, filters, shard specs and suites, 1 when a case
fails, with the failure in the file); --shard partitions `kbench list` exactly, groups whole;
roofline metrics consistent with the counts and the peaks given with --peaks, the
`impossible` flag failing a run unless --allow-impossible. Timings are never checked.

Usage: python3 test_run.py path/to/kbench"""

import csv
import io
import json
import os
import re
import statistics
import sys
import tempfile
from pathlib import Path

from harness import (DOCS, check, check_documented, check_shortest_reals, finish, kbench,
                     key_table)

TINY = "^reduce/sum/f32/64x64/axis=None/"  # 64x64 float32: a few microseconds per call
ONE = TINY + "simd=scalar/threads=1$"
FAST = ["--min-time", "0.001"]  # main() adds --peaks with quickly measured peaks
SCHEMA = key_table((DOCS / "results-schema.md").read_text())


def check_schema(results, label):
    check_documented(results, SCHEMA, label, empty_strings=True)


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


def peak(peaks, threads, kind, **match):
    """The rate that bounds `threads` (1 or all cores) for the item matching match: the best
    of its set, and at all cores never less than the one-thread peak."""
    def best(chosen):
        for item in chosen[kind]:
            if all(item[k] == v for k, v in match.items()):
                key = "gbytes_per_s" if kind == "bandwidth" else "gflops_per_s"
                return item[key]["best"] * 1e9
        raise KeyError(match)
    one, all_cores = (best(s) for s in peaks["sets"])
    return one if threads == 1 else max(one, all_cores)


def check_roofline(case, peaks, label):
    """The roofline of a case, recomputed from its counts, its median and the peaks."""
    f = case["roofline"]
    if not check(f is not None, f"{label}: no roofline"):
        return
    median_s = case["statistics"]["median_ns"] * 1e-9
    threads = case["threads"]
    check(threads in (1, peaks["sets"][1]["threads"]), f"{label}: threads {threads}")
    bandwidth = peak(peaks, threads, "bandwidth", kernel=case["traffic"], level=f["level"])
    flops = peak(peaks, threads, "flops", type=case["flop_type"], simd=case["simd"])
    bound = max(case["bytes_per_call"] / bandwidth, case["flops_per_call"] / flops)
    close = lambda a, b: abs(a - b) <= 1e-9 * abs(b)
    check(close(f["peak_bytes_per_second"], bandwidth) and close(f["peak_flops_per_second"], flops),
          f"{label}: held against {f['peak_bytes_per_second']}, {f['peak_flops_per_second']}")
    check(close(f["bound_seconds"], bound), f"{label}: bound {f['bound_seconds']} != {bound}")
    check(close(f["percent_of_bound"], 100 * bound / median_s), f"{label}: % of bound")
    check(close(f["bytes_per_second"], case["bytes_per_call"] / median_s), f"{label}: bytes/s")
    check(close(f["intensity_flop_per_byte"], case["flops_per_call"] / case["bytes_per_call"]),
          f"{label}: intensity")
    memory = case["bytes_per_call"] / bandwidth >= case["flops_per_call"] / flops
    check(f["bound"] == ("memory" if memory else "compute"), f"{label}: bound {f['bound']}")
    want = ("impossible" if f["percent_of_bound"] > 100 else
            "suspicious-high" if f["percent_of_bound"] > 90 else
            "suspicious-low" if f["percent_of_bound"] < 10 and bound >= 1e-5 else None)
    check(f["flags"] == ([want] if want else []), f"{label}: flags {f['flags']}")


def scaled_peaks(tmp, factor):
    """The test's peaks with every rate multiplied by factor, as a new file, without the
    bandwidth curves: the capacities are then the OS's, not those of the knees of quick curves
    measured on a busy machine, so that TINY's 16 KiB is in L1 at either thread count, where
    the level's own figure bounds it (check_roofline)."""
    with open(PEAKS[1]) as f:
        doc = json.load(f)
    for s in doc["peaks"]["sets"]:
        s.pop("curves")
        for item in s["bandwidth"] + s["flops"]:
            for key in ("gbytes_per_s", "gflops_per_s"):
                if item.get(key):
                    item[key] = {k: v * factor for k, v in item[key].items()}
            # The bound comes from the history of each figure.
            for sample in item.get("history", []):
                sample["value"] *= factor
    path = os.path.join(tmp, f"peaks-x{factor:g}.json")
    with open(path, "w") as f:
        json.dump(doc, f)
    return path


def half_work_flagged(tmp):
    """Issue 14: a sum of a buffer four times the last-level cache that reads only its first
    half and claims the whole (work=half) is held against twice the bytes it moves, so its
    share of the bound is about twice that of the honest sum (work=all), measured in the same
    interleaved rounds so that a busy machine slows both alike; above 100% it is flagged
    `impossible` and the run fails. On a quiet machine, where the honest sum reaches more than
    60% of the bound, the half must be flagged."""
    path = os.path.join(tmp, "plausibility.json")
    r = kbench("run", "plausibility", "--min-time", "0.05", *PEAKS, "-q", "-o", path)
    results = json.loads(Path(path).read_text()) if os.path.exists(path) else {"cases": []}
    share = {c["params"]["work"]: c["roofline"] for c in results["cases"]}
    fastest = {c["params"]["work"]: c["statistics"]["min_ns"] for c in results["cases"]}
    if not check(set(share) == {"all", "half"}, f"plausibility cases: {r.stderr!r}"):
        return
    full, half = share["all"]["percent_of_bound"], share["half"]["percent_of_bound"]
    # Both claim the same bytes, so the shares of the bound stand as the inverse times. The
    # fastest samples compare them: other work on a loaded machine adds its time slices to
    # samples of either, which pulls the medians' ratio toward 1 (1.1 at a load of 10) but
    # leaves the fastest ones alone.
    ratio = fastest["all"] / fastest["half"]
    check(ratio > 1.5, f"half the work in {fastest['half']:.0f} ns at best, all of it in "
                       f"{fastest['all']:.0f} ns ({half:.0f}% and {full:.0f}% of the bound)")
    flagged = "impossible" in share["half"]["flags"]
    check(flagged == (half > 100), f"flag at {half:.0f}%: {share['half']['flags']}")
    check(r.returncode == (1 if flagged or full > 100 else 0), f"exit {r.returncode}")
    check(flagged or full <= 60, f"a quiet machine ({full:.0f}% for all) flags the half")


def roofline_flags(tmp):
    # Peaks a million times too low: every result is above 100% of its bound.
    slow = scaled_peaks(tmp, 1e-6)
    path = os.path.join(tmp, "impossible.json")
    args = ["run", "reduce", "--filter", ONE, "--min-time", "0.001", "--peaks", slow]
    r = kbench(*args, "-o", path)
    check(r.returncode == 1 and "1 result is above 100% of the roofline bound (impossible)"
          in r.stderr and "--allow-impossible" in r.stderr, f"impossible: {r.returncode} {r.stderr}")
    check(re.search(r"simd=scalar/threads=1 .* impossible", r.stdout) is not None,
          f"impossible not in the table: {r.stdout}")
    # Issue 12, bug 13: the hint measures the peaks into the file given, not the cache, and a
    # percentage of millions keeps the table's columns where the header has them.
    check(f"kbench peaks --refresh --json > {slow}" in r.stderr
          and "`kbench peaks --refresh`" not in r.stderr, f"hint with --peaks FILE: {r.stderr}")
    lines = r.stdout.splitlines()
    header = next((l for l in lines if l.startswith("case ")), "")
    where = header.index(" bound ") + 1 if " bound " in header else -1
    rows = [l for l in lines if l.startswith("reduce/")]
    check(where > 0 and rows and all(l[where - 1] == " " and l[where:where + 2] in ("L1", "L2",
                                                                                 "L3", "DR")
                                     for l in rows),
          f"the bound column moved: {header!r} / {rows!r}")
    with open(path) as f:
        case = json.load(f)["cases"][0]
    check(case["roofline"]["flags"] == ["impossible"], f"flags in the file {case['roofline']}")
    r = kbench(*args, "--allow-impossible", "-q")
    check(r.returncode == 0 and "warning: 1 result is above 100%" in r.stderr,
          f"--allow-impossible: {r.returncode} {r.stderr}")
    # Without peaks: no roofline anywhere.
    r = kbench("run", "reduce", "--filter", ONE, *FAST[:2], "--no-roofline", "--format", "json",
               "-q")
    results = json.loads(r.stdout) if r.returncode == 0 else None
    check(results is not None and results["context"]["peaks"] is None
          and results["cases"][0]["roofline"] is None, "--no-roofline")
    bad = os.path.join(tmp, "bad-peaks.json")
    Path(bad).write_text('{"peaks": {"format": "kbench-peaks/1"}}')
    # Another kind of JSON file is named as such, not by a key the reader missed (issue 12,
    # bug 12: "Object item not found: format").
    other = os.path.join(tmp, "not-peaks.json")
    Path(other).write_text('{"schema": "kbench-results"}')
    for peaks_file, message in ((bad, bad + ": "), (os.path.join(tmp, "none.json"), "cannot read"),
                                (other, other + ": not a kbench peaks file")):
        r = kbench("run", "reduce", "--filter", ONE, *FAST[:2], "--peaks", peaks_file)
        check(r.returncode == 1 and "--peaks: " in r.stderr and message in r.stderr,
              f"--peaks {peaks_file}: {r.returncode} {r.stderr}")


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
    check(re.search(rf"^\[1-{len(listed)}/{len(listed)}\] .* elapsed: reduce/sum/f32/64x64",
                    r.stderr, re.M) is not None, f"no progress line on stderr: {r.stderr}")
    check("warning:" in r.stderr or "cases;" in r.stderr, "no run header on stderr")
    check(f"wrote {paths['json']}" in r.stderr, "no 'wrote' line")

    text = Path(paths["json"]).read_text()
    results = json.loads(text)
    check(results["schema"] == "kbench-results" and results["schema_version"] == 2, "schema")
    # Issue 12: reals in their shortest form, as 0.95 rather than 0.94999999999999996.
    check_shortest_reals(text, "results file")
    check('"ci_level":0.95,' in text, "results file: ci_level is not written as 0.95")
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
        # 4096 float32 read, one float32 written; one add per element, in double.
        check(c["bytes_per_call"] == 64 * 64 * 4 + 4 and c["flops_per_call"] == 4096,
              f"{label}: counts {c['bytes_per_call']}, {c['flops_per_call']}")
        check(c["traffic"] == "load" and c["flop_type"] == "float64", f"{label}: peaks chosen")
        check_case(c, label)
        check_roofline(c, ctx["peaks"]["measured"], label)
    check(ctx["peaks"]["origin"] == "file " + FAST[-1], f"peaks origin {ctx['peaks']['origin']}")
    check(re.search(r"%bound +bound", table[0]) is not None, f"table header: {table[0]}")
    check(all(re.search(r" \d+\.\d% +L1 (mem|flop) ", line) for line in table[1:]),
          f"table rows lack the roofline: {table[1:]}")

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
        check_shortest_reals(r.stdout, "--format json")
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
    check("2 of 5 cases failed; the first, failing/setup: setup: this case fails in setup"
          in r.stderr, f"failure message: {r.stderr}")
    check(re.search(r"^failing/run +FAILED: this case fails while running", r.stdout, re.M)
          is not None, f"table row of a failure: {r.stdout}")
    with open(path) as f:
        results = json.load(f)
    check_schema(results, "failing run")
    by_name = {c["name"]: c for c in results["cases"]}
    check(results["summary"] == {"cases": 5, "failed": 2}, "summary of failures")
    for name in ("failing/setup", "failing/run"):
        c = by_name[name]
        check(c["status"] == "failed" and c["error"] and c["statistics"] is None
              and c["samples_ns"] == [], f"{name} recorded as failed: {c}")
    for name in ("selftest/empty", "selftest/call", "selftest/sum8_loop"):
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
        (["run", "--min-samples", "2000000"],
         "bad --min-samples '2000000' (expected an integer from 10 to 1000000)"),
        (["run", "--repetitions", "0"], "bad --repetitions '0'"),
        (["run", "--cache", "warm"], "bad --cache 'warm'"),
        (["run", "--format", "xml"], "unknown format 'xml'"),
        (["run", "-o", os.path.join(tmp, "r.txt")], "cannot tell the format"),
        (["run", "nosuch"], "unknown suite 'nosuch'"),
        (["run", "--no-roofline", "--quick-peaks"], "exclude one another"),
        (["run", "--peaks"], "option '--peaks' needs a value"),
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
    # An output that cannot be written fails before anything is measured (issue 12, bug 10:
    # the whole run was measured first).
    missing = os.path.join(tmp, "no", "such", "dir", "r.json")
    r = kbench("run", "quick", "-o", missing)
    check(r.returncode == 1 and f"{missing}: cannot write into" in r.stderr
          and "elapsed" not in r.stderr and r.stdout == "",
          f"run -o into a missing directory: {r.returncode} {r.stderr!r}")
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


# The peaks file every run of the test holds its results against: measured quickly once, into
# a cache of the test's own.
PEAKS = []


def make_peaks(tmp):
    path = os.path.join(tmp, "peaks.json")
    r = kbench("peaks", "--quick", "--json", env={"KB_CACHE_DIR": os.path.join(tmp, "cache")})
    if r.returncode != 0:
        sys.exit(f"kbench peaks --quick --json failed: {r.stderr}")
    Path(path).write_text(r.stdout)
    PEAKS[:] = ["--peaks", path]
    # Quick peaks measured on a busy machine may lie below what a kernel reaches in a quiet
    # moment, which would make the runs fail as `impossible`: the runs use peaks a thousand
    # times higher, which exercise the same arithmetic.
    FAST.extend(["--peaks", scaled_peaks(tmp, 1e3)])


def probes(tmp):
    """A run on this machine's peaks probes the bandwidth figures its results use, before and
    after the cases, and adds them to the history in the cache; a run on --peaks FILE does not."""
    env = {k: v for k, v in os.environ.items() if k not in ("KB_SIMD", "KB_NUM_THREADS")}
    env["KB_CACHE_DIR"] = os.path.join(tmp, "cache")
    cache_files = list(Path(env["KB_CACHE_DIR"]).glob("peaks-*.json"))
    if not check(len(cache_files) == 1, f"one cache file: {cache_files}"):
        return

    def histories():
        doc = json.loads(cache_files[0].read_text())
        return {(s["threads"], b["kernel"], b["level"]): [h["value"] for h in b["history"]]
                for s in doc["peaks"]["sets"] for b in s["bandwidth"]}

    path = os.path.join(tmp, "probed.json")
    # Both thread counts of the scalar sums of TINY: one figure per thread count.
    r = kbench("run", "reduce", "--filter", TINY + "simd=scalar/", *FAST[:2], "--quick-peaks",
               "--allow-impossible", "-q", "-o", path, env=env)
    if not check(r.returncode == 0, f"probed run: {r.returncode} {r.stderr}"):
        return
    results = json.loads(Path(path).read_text())
    context = results["context"]
    found = context["peaks"]["probes"]
    check(context["settings"]["probe_seconds"] == 0.05, "--quick-peaks probes for 0.05 s")
    threads = sorted({c["threads"] for c in results["cases"]})
    check(sorted(p["threads"] for p in found) == threads,
          f"one probe per thread count: {found} {threads}")
    levels = {c["threads"]: c["roofline"]["level"] for c in results["cases"]}
    for p in found:
        check(p["kernel"] == "load" and p["level"] == levels[p["threads"]],
              f"the probe is of the figure the results use: {p} {levels}")
        check(p["before_bytes_per_second"] > 0 and p["after_bytes_per_second"] > 0
              and p["before_at"] <= p["after_at"], f"a probe before and after: {p}")
        ratio = (max(p["before_bytes_per_second"], p["after_bytes_per_second"])
                 / min(p["before_bytes_per_second"], p["after_bytes_per_second"]))
        check(p["disagree"] == (ratio > 1.25), f"disagree is the 25% rule: {p}")
    # Each result as a share of its run's probe (before) of its level, as measured.
    before = {(p["threads"], p["level"]): p["before_bytes_per_second"] for p in found}
    for c in results["cases"]:
        f = c["roofline"]
        want = 100 * f["bytes_per_second"] / before[(c["threads"], f["level"])]
        check(f["percent_of_probe"] is not None and abs(f["percent_of_probe"] / want - 1) < 1e-9,
              f"{c['name']}: {f['percent_of_probe']}% of the probe, not {want}")
    changed = [w for w in context["environment_warnings"] if w["code"] == "bandwidth_changed"]
    check(bool(changed) == any(p["disagree"] for p in found),
          f"bandwidth_changed exactly when a pair disagrees: {changed} {found}")
    # The peaks may have been measured again first (they stand only while the load is as
    # high as when they were measured): the probes are the last two of each history.
    after = histories()
    for p in found:
        key = (p["threads"], "load", p["level"])
        last = [v * 1e9 for v in after[key][-2:]]
        probed = [p["before_bytes_per_second"], p["after_bytes_per_second"]]
        check(len(last) == 2 and all(abs(a / b - 1) < 1e-9 for a, b in zip(last, probed)),
              f"both probes in the cache's history: {key} {last} {probed}")
    measured = {(s["threads"], b["kernel"], b["level"]): len(b["history"])
                for s in context["peaks"]["measured"]["sets"] for b in s["bandwidth"]}
    check(all(measured[(p["threads"], "load", p["level"])] == len(after[(p["threads"], "load",
                                                                          p["level"])])
              for p in found), "the results' peaks include the probes in their history")

    # --peaks FILE: the file as given, no probes.
    r = kbench("run", "reduce", "--filter", ONE, *FAST, "-q", "--format", "json")
    if check(r.returncode == 0, f"--peaks run: {r.stderr}"):
        doc = json.loads(r.stdout)
        check(doc["context"]["peaks"]["probes"] == []
              and doc["context"]["settings"]["probe_seconds"] == 0, "--peaks FILE: no probes")
        check(all(c["roofline"]["percent_of_probe"] is None for c in doc["cases"]),
              "--peaks FILE: no % of a probe")


def quiet_warnings():
    """-q gives the environment's conditions in one line, by the codes the full run lists one
    per line (issue 12, polish)."""
    loud = kbench("run", "selftest", "--filter", "selftest/empty", *FAST)
    quiet = kbench("run", "selftest", "--filter", "selftest/empty", *FAST, "-q")
    codes = re.findall(r"^kbench run: warning: .* \((\w+)\)$", loud.stderr, re.M)
    summary = [l for l in quiet.stderr.splitlines() if "may make timings unreliable" in l]
    per_line = re.findall(r"^kbench run: warning: .* \((\w+)\)$", quiet.stderr, re.M)
    check(loud.returncode == 0 and quiet.returncode == 0, "selftest runs")
    check(not per_line, f"-q lists conditions one per line: {quiet.stderr!r}")
    # The load average may cross its threshold between the two runs; the rest is fixed.
    steady = [c for c in codes if c != "load"]
    if len(summary) == 1:
        m = re.search(r"warning: (\d+) conditions? may make timings unreliable: (.*) \(", summary[0])
        listed = m.group(2).split(", ") if m else []
        check(m and int(m.group(1)) == len(listed) and
              [c for c in listed if c != "load"] == steady, f"-q summary {summary} against {codes}")
    else:
        check(not summary and not steady, f"-q summaries {summary} against {codes}")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        make_peaks(tmp)
        quiet_warnings()
        run_ok(tmp)
        roofline_flags(tmp)
        half_work_flagged(tmp)
        stdout_formats()
        settings_recorded(tmp)
        failures_exit_1(tmp)
        usage_errors(tmp)
        probes(tmp)
    shards()
    sys.exit(finish("run"))


if __name__ == "__main__":
    main()
