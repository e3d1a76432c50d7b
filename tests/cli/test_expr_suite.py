#!/usr/bin/env python3
"""The `expr` suite of kbench run: its cases (every expression in float32 and float64, at the L2
and DRAM sizes, per SIMD level and thread count, each with its eager twin /eval=eager), and a
run of a few of them against the NumPy and numexpr baselines, whose results must agree with
kbench's (the runner evaluates the same source on the same input), whose traffic is the fused
plan's and the eager twin's the eager plan's (docs/fusion.md), both worked out by hand here;
numexpr runs at the case's one thread; the speedup over eager of each fused case (JSON,
table, markdown) is the ratio of the two medians, its traffic ratio that of the two counts, and
below-traffic flags exactly the rows under 0.8 x that ratio. No timing is asserted.

Usage: test_expr_suite.py path/to/kbench"""

import json
import os
import re
import sys
import tempfile

from harness import check, count, fail, finish, kbench

EXPRESSIONS = ["poly", "fma", "hypot", "leaky_relu", "softmax", "layer_norm", "logsumexp",
               "rms_norm", "gelu_tanh"]
# (reads + writes) per element, in elements of the dtype, bool bytes apart: the fused plan's,
# each input read once and the output written once (suite_expr.c, docs/fusion.md).
TRAFFIC = {"fma": (4, 0), "softmax": (2, 0), "leaky_relu": (2, 0)}
# The eager plan's, one operation at a time into a temporary: a*b + c is a multiply (a, b read,
# t written) and an add (t, c read, the output written); where(x > 0, x, 0.01*x) a comparison
# (x read, a bool written), a multiply (x read, t written) and a where (the bool, x and t read,
# the output written); the softmax's five operations read and write x's size each time
# (max: read; x - m: read, write; exp: read, write; sum: read; e / s: read, write), and the
# reductions' per-row values (m and s, one per row of 1024: written once, read once each).
EAGER_TRAFFIC = {"fma": (6, 0), "softmax": (8 + 4 / 1024, 0), "leaky_relu": (6, 2)}
VARIABLES = {"fma": 3, "softmax": 1, "leaky_relu": 1}


def main():
    code, out, err = kbench("list", "expr")
    names = out.split()
    check(code == 0, f"kbench list expr: exit {code}, {err.strip()}")
    for e in EXPRESSIONS:
        for dtype in ("f32", "f64"):
            for size in ("L2", "DRAM"):
                check(any(n.startswith(f"expr/{e}/{dtype}/{size}/simd=") for n in names),
                      f"expr/{e}/{dtype}/{size} missing from kbench list expr")
    check(all(re.search(r"/simd=\w+/threads=\d+/output=(into|alloc)(/eval=eager)?$", n)
              for n in names),
          "every expr case names its SIMD level, thread count and output")
    into = {n[:-len("/output=into")] for n in names if n.endswith("/output=into")}
    alloc = {n[:-len("/output=alloc")] for n in names if n.endswith("/output=alloc")}
    check(into and into == alloc, "every expr case both into its output and allocating it")
    fused = [n for n in names if not n.endswith("/eval=eager")]
    eager = [n for n in names if n.endswith("/eval=eager")]
    check(eager == [n for f in fused for n in (f + "/eval=eager",) if n in names]
          and len(eager) == len(fused), "every fused case has its eager twin, and only they")
    check(all(names[names.index(f) + 1] == f + "/eval=eager" for f in fused),
          "each eager twin follows its fused case (the rounds alternate them)")

    with tempfile.TemporaryDirectory() as tmp:
        results = os.path.join(tmp, "expr.json")
        markdown = os.path.join(tmp, "expr.md")
        code, out, err = kbench("run", "expr", "--filter",
                                r"expr/(fma|softmax|leaky_relu)/f64/L2/simd=scalar/threads=1",
                                "--baseline", "numpy", "--baseline", "numexpr", "--no-roofline",
                                "--min-time", "0.01", "-o", results, "-o", markdown,
                                env={"KB_CACHE_DIR": tmp})
        if not check(code == 0, f"kbench run expr: exit {code}, {err.strip()[-500:]}"):
            return finish("expr suite")
        doc = json.load(open(results))
        cases = doc["cases"]
        ours = {(c["params"]["expr"], c["params"]["output"], c["params"].get("eval", "fused")): c
                for c in cases if "baseline" not in c["params"]}
        theirs = [c for c in cases if "baseline" in c["params"]]
        check(sorted(ours) == sorted((e, o, v) for e in TRAFFIC for o in ("into", "alloc")
                                     for v in ("fused", "eager")),
              f"kbench's cases: {sorted(ours)}")
        check(all(c["status"] == "ok" for c in ours.values()), "kbench's cases ran")
        check(sorted(c["name"].split("/", 4)[4] for c in theirs)
              == sorted(["baseline=numpy", "baseline=numexpr/threads=1"] * len(TRAFFIC)),
              f"baseline cases {[c['name'] for c in theirs]}")
        for c in theirs:
            count()
            b = c.get("baseline") or {}
            if c["status"] != "ok" or b.get("check") != "ok" or c["threads"] != 1:
                fail(f"{c['name']}: status {c['status']}, check {b.get('check')}, threads "
                     f"{c['threads']}: {b.get('detail') or c.get('error')}")
        for (name, _, how), c in ours.items():
            # The input is half of L2 over the variables, in whole rows of 1024.
            per_element, bool_bytes = (TRAFFIC if how == "fused" else EAGER_TRAFFIC)[name]
            n = c["working_set_bytes"] / 8
            count()
            want = n * (8 * per_element + bool_bytes) / VARIABLES[name]
            if abs(c["bytes_per_call"] - want) > 1e-9 * want:
                fail(f"{name} {how}: bytes_per_call {c['bytes_per_call']} for {n} input "
                     f"elements, not {want}")
        eager_speedups(doc, ours, out, open(markdown).read())
    return finish("expr suite")


def eager_speedups(doc, ours, table, markdown):
    """One row per fused case: its eager twin, the ratio of the medians within its interval,
    the ratio of the counts, and the flag exactly where the rule fails; none for baselines."""
    e = doc["eager_speedups"]
    if not check(e and e["ci_level"] == 0.95 and e["traffic_share"] == 0.8, f"eager_speedups {e}"):
        return
    rows = {r["case"]: r for r in e["rows"]}
    fused = {c["name"]: c for (_, _, how), c in ours.items() if how == "fused"}
    check(sorted(rows) == sorted(fused), f"eager rows for {sorted(rows)}")
    by_name = {c["name"]: c for c in doc["cases"]}
    for name, row in rows.items():
        count()
        twin = by_name.get(row["eager_case"])
        if row["eager_case"] != name + "/eval=eager" or twin is None:
            fail(f"{name}: eager case {row['eager_case']}")
            continue
        f = fused[name]
        speedup = twin["statistics"]["median_ns"] / f["statistics"]["median_ns"]
        traffic = twin["bytes_per_call"] / f["bytes_per_call"]
        o = row["over_eager"]
        check(abs(o["ratio"] - speedup) <= 1e-9 * speedup and o["ci_low"] <= o["ratio"]
              <= o["ci_high"], f"{name}: speedup {o}, medians give {speedup}")
        check(abs(row["traffic_ratio"] - traffic) <= 1e-9 * traffic,
              f"{name}: traffic ratio {row['traffic_ratio']}, counts give {traffic}")
        check(row["below_traffic"] == (speedup < 0.8 * traffic),
              f"{name}: below_traffic {row['below_traffic']} for {speedup} against {traffic}")
        line = next((ln for ln in table.splitlines()[::-1] if ln.startswith(name + " ")), "")
        check(f"{o['ratio']:.2f}x" in line and f"{traffic:.2f}x" in line
              and ("below-traffic" in line) == row["below_traffic"],
              f"{name}: table row {line!r}")
        # the row of the eager section: a speedup over a baseline can read as the traffic does
        eager_md = markdown.split("## Speedup over eager", 1)[-1]
        md = next((ln for ln in eager_md.splitlines() if ln.startswith(f"| `{name}` |")
                   and f"{traffic:.2f}x" in ln), "")
        check(md and ("below-traffic" in md) == row["below_traffic"],
              f"{name}: markdown row {md!r}")
    check("Speedup over eager" in table and "## Speedup over eager" in markdown,
          "the eager sections of the table and markdown")
    speedup_cases = {r["case"] for r in (doc["speedups"] or {}).get("rows", [])}
    check(speedup_cases and not any(c.endswith("/eval=eager") for c in speedup_cases),
          f"eager twins are no row of the speedups over the baselines: {speedup_cases}")
    best = {r["best_baseline_case"] for r in doc["speedups"]["rows"]}
    check(all("/baseline=" in b for b in best), f"the best baseline is a baseline: {best}")


if __name__ == "__main__":
    sys.exit(main())
