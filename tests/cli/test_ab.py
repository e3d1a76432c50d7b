#!/usr/bin/env python3
"""A/B of two builds in one run: `kbench run --baseline kbench=PATH` times the build at PATH
(through `PATH serve`) as a baseline of every case, at each thread count of the group,
interleaved with this build's implementations; its results are checked against this build's
and its speedups reported, labelled a C call against a C call; `kbench compare --ab` judges this
build's cases against the other's from that one file. `kbench serve` itself answers
the runner protocol: a setup computes and saves the case's result (checked here against
NumPy), a run returns as many samples as asked, and bad requests get failure replies without
ending the loop; it evaluates expr cases too, and --ab pairs those, whose names end in
/output=..., with this build's output=into cases; an ew case's spec names its elementwise
call, which serve runs in place of the source. Timings are never checked.

Usage: python3 test_ab.py path/to/kbench"""

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from harness import check, finish, kbench

# Two shapes: the other build must load each group's input anew, though kbench writes it to
# the same path every time.
CASES = "^reduce/(sum|argmax)/f32/(64x64|1024x1024)/axis=None/simd=auto/"
RUN = ["run", "reduce", "--filter", CASES, "--min-time", "0.01", "--no-roofline",
       "--no-monitor"]
LABEL = "C call vs C call of another kbench build"


def check_ab_run(tmp):
    out = Path(tmp, "ab.json")
    r = kbench(*RUN, "--baseline", f"kbench={sys.argv[1]}", "-o", str(out))
    if not check(r.returncode == 0, f"A/B run failed: {r.stderr}"):
        return
    results = json.loads(out.read_text())
    own = [c for c in results["cases"] if c["baseline"] is None]
    other = [c for c in results["cases"] if c["baseline"] is not None]
    threads = sorted({c["threads"] for c in own})
    groups = sorted({c["group"] for c in own})
    want = sorted(f"{g}/baseline=kbench/threads={t}" for g in groups for t in threads)
    check(sorted(c["name"] for c in other) == want,
          f"baseline cases {[c['name'] for c in other]}, expected {want}")
    for c in other:
        check(c["baseline"]["library"] == "kbench" and c["baseline"]["check"] == "ok"
              and c["baseline"]["error_ratio"] == 0,
              f"{c['name']}: {c['baseline']} (the same build must agree exactly)")
        check(c["status"] == "ok" and len(c["samples_ns"][0]) >= 10, f"{c['name']}: no samples")
    check(results["context"]["baselines"]["comparison"] == LABEL,
          f"comparison {results['context']['baselines']['comparison']!r}")
    libraries = results["context"]["baselines"]["runner"]["libraries"]
    check("kbench" in libraries and libraries["kbench"]["git_commit"]
          == results["context"]["git_commit"], f"runner libraries {libraries}")
    rows = results["speedups"]["rows"]
    check(len(rows) == len(own) and all(r["baseline_case"].split("/baseline=")[1]
                                        == f"kbench/threads={r['case'].rsplit('=', 1)[1]}"
                                        for r in rows),
          f"speedup rows pair each implementation with the other build at its threads: {rows}")
    check(f"Speedup over the baselines ({LABEL})" in r.stdout, "table heading")

    # The gate: the other build as BASE, this one's simd=auto cases as NEW, one file.
    verdicts = Path(tmp, "ab-compare.json")
    r = kbench("compare", "--ab", str(out), "--format", "json", "-o", str(verdicts))
    if check(r.returncode == 0, f"compare --ab failed: {r.stderr}"):
        compared = json.loads(verdicts.read_text())
        names = sorted(c["name"] for c in compared["cases"])
        check(names == sorted(c["name"] for c in own),
              f"compare --ab cases {names}, expected this build's {sorted(c['name'] for c in own)}")
        check(all(c["verdict"] not in ("new", "missing", "failed") for c in compared["cases"]),
              f"verdicts {[c['verdict'] for c in compared['cases']]}")
    r = kbench("compare", "--ab", str(out), str(out))
    check(r.returncode == 2, f"compare --ab with two files: {r.returncode} {r.stderr!r}")


def run_ab(tmp, suite, pattern):
    """A quick A/B run of the suite's cases matching pattern against the other build: its
    results file and the other build's cases, or None when the run failed."""
    out = Path(tmp, f"ab-{suite}.json")
    r = kbench("run", suite, "--filter", pattern, "--min-time", "0.005", "--no-roofline",
               "--no-monitor", "--baseline", f"kbench={sys.argv[1]}", "-o", str(out))
    if not check(r.returncode == 0, f"A/B {suite} run failed: {r.stderr}"):
        return None
    return out, [c for c in json.loads(out.read_text())["cases"] if c["baseline"] is not None]


def check_ab_expr(tmp):
    """expr cases, whose names end in /output=...: the other build evaluates each group's
    expression fused into an output allocated once, so --ab compares it with this build's
    simd=auto/threads=N/output=into case, neither the output=alloc case nor an eager twin."""
    ran = run_ab(tmp, "expr", "^expr/(fma|softmax)/f32/L2/simd=auto/threads=1/")
    if not ran:
        return
    out, other = ran
    groups = ["expr/fma/f32/L2", "expr/softmax/f32/L2"]
    check(sorted(c["name"] for c in other) == [f"{g}/baseline=kbench/threads=1" for g in groups],
          f"the other build's expr cases: {[c['name'] for c in other]}")
    for c in other:
        check(c["status"] == "ok" and c["baseline"]["check"] == "ok", f"{c['name']}: {c}")
    verdicts = Path(tmp, "ab-expr-compare.json")
    r = kbench("compare", "--ab", str(out), "--format", "json", "-o", str(verdicts))
    if check(r.returncode == 0, f"compare --ab of expr failed: {r.stderr}"):
        compared = json.loads(verdicts.read_text())["cases"]
        want = [f"{g}/simd=auto/threads=1/output=into" for g in groups]
        check(sorted(c["name"] for c in compared) == want,
              f"compare --ab expr cases {[c['name'] for c in compared]}, expected {want}")
        check(all(c["verdict"] not in ("new", "missing", "failed") for c in compared),
              f"verdicts {[c['verdict'] for c in compared]}")


def check_ab_ew(tmp):
    """ew cases: the other build times the case's own elementwise call (the spec's "ew"), on
    operands it evaluated once, and its result agrees exactly with this build's."""
    ran = run_ab(tmp, "ew", "^ew/(add|where)/f32/L2/simd=auto/threads=1$")
    if not ran:
        return
    _, other = ran
    check(sorted(c["name"] for c in other)
          == [f"ew/{op}/f32/L2/baseline=kbench/threads=1" for op in ("add", "where")],
          f"the other build's ew cases: {[c['name'] for c in other]}")
    for c in other:
        check(c["status"] == "ok" and c["baseline"]["check"] == "ok"
              and c["baseline"]["error_ratio"] == 0, f"{c['name']}: {c['baseline']}")


def check_serve_ew(tmp):
    """A setup whose "ew" names another call than its source computes the call's result:
    the elementwise call, not the expression, is what runs."""
    a = np.random.default_rng(8).uniform(-1, 1, (2, 9)).astype(np.float32)
    inp, out = Path(tmp, "ew-in.npy"), Path(tmp, "ew-out.npy")
    np.save(inp, a)
    case = {"kind": "expr", "source": "x + y", "vars": ["x", "y"]}
    code, replies, err = serve([
        {"cmd": "setup", "library": "kbench", "case": dict(case, ew={"op": "mul",
         "operands": ["x", "y"]}), "input": str(inp), "output": str(out), "threads": 1},
        {"cmd": "run", "calls": 2, "samples": 3, "warmup": 1},
        {"cmd": "setup", "library": "kbench", "case": dict(case, ew={"op": "matmul",
         "operands": ["x", "y"]}), "input": str(inp), "output": str(out)},
        {"cmd": "setup", "library": "kbench", "case": dict(case, ew={"op": "add",
         "operands": []}), "input": str(inp), "output": str(out)},
    ])
    check(code == 0 and err == "" and len(replies) == 4, f"serve: {code} {err!r} {replies}")
    if len(replies) == 4:
        mul, run, unknown, empty = replies
        check(mul["ok"] and np.array_equal(np.load(out), a[0] * a[1]),
              f"the call's result, x * y: {mul}")
        check(run["ok"] and len(run["sample_ns"]) == 3, f"run {run}")
        check(not unknown["ok"] and "op of the ew suite" in unknown["error"], f"{unknown}")
        check(not empty["ok"] and "operands" in empty["error"], f"{empty}")


def check_ab_needs_pairs(tmp):
    plain = Path(tmp, "plain.json")
    r = kbench(*RUN, "-o", str(plain))
    if check(r.returncode == 0, f"plain run failed: {r.stderr}"):
        r = kbench("compare", "--ab", str(plain))
        check(r.returncode == 2 and "--baseline kbench=PATH" in r.stderr,
              f"compare --ab of a run without the other build: {r.returncode} {r.stderr!r}")


def check_refused_paths():
    for value in ("kbench=", "kbench=/nonexistent/kbench", "kbench"):
        r = kbench(*RUN, "--baseline", value)
        check(r.returncode == 2 and "--baseline" in r.stderr.splitlines()[0],
              f"--baseline {value}: {r.returncode} {r.stderr!r}")


def serve(requests):
    p = subprocess.run([sys.argv[1], "serve"], input="".join(json.dumps(q) + "\n"
                                                          for q in requests),
                       capture_output=True, text=True, timeout=60)
    return p.returncode, [json.loads(line) for line in p.stdout.splitlines()], p.stderr


def check_serve(tmp):
    a = np.random.default_rng(7).standard_normal((5, 7)).astype(np.float32)
    inp, out, expr_out = Path(tmp, "in.npy"), Path(tmp, "out.npy"), Path(tmp, "expr.npy")
    np.save(inp, a)
    code, replies, err = serve([
        {"cmd": "hello"},
        {"cmd": "require", "library": "kbench"},
        {"cmd": "require", "library": "numpy"},
        {"cmd": "setup", "library": "kbench", "id": "kbench/threads=1",
         "case": {"kind": "reduce", "op": "max", "axis": 0}, "input": str(inp),
         "output": str(out), "threads": 1},
        {"cmd": "run", "id": "kbench/threads=1", "calls": 3, "samples": 4, "warmup": 1,
         "flush_bytes": 65536},
        "not an object",
        {"cmd": "setup", "library": "kbench", "case": {"kind": "matmul"}, "input": str(inp),
         "output": str(out)},
        {"cmd": "run", "id": "nothing", "calls": 1, "samples": 1},
        {"cmd": "teardown"},
        # An expression over the input's rows (a, b, c, d, e), evaluated fused into an output
        # allocated by setup.
        {"cmd": "setup", "library": "kbench", "id": "kbench/threads=1",
         "case": {"kind": "expr", "source": "m = max(a, axis=-1, keepdims=True); a*b - m + c",
                  "vars": ["a", "b", "c", "d", "e"]}, "input": str(inp), "output": str(expr_out),
         "threads": 1},
        {"cmd": "run", "id": "kbench/threads=1", "calls": 2, "samples": 3, "warmup": 1},
        {"cmd": "setup", "library": "kbench", "id": "kbench/threads=2",
         "case": {"kind": "expr", "source": "a + b", "vars": ["a", "b"]}, "input": str(inp),
         "output": str(out)},
        {"cmd": "setup", "library": "kbench", "id": "kbench/threads=2",
         "case": {"kind": "expr", "source": "a +", "vars": ["a", "b", "c", "d", "e"]},
         "input": str(inp), "output": str(out)},
    ])
    check(code == 0 and err == "", f"serve exited {code}: {err!r}")
    if not check(len(replies) == 13, f"{len(replies)} replies to 13 requests: {replies}"):
        return
    hello, require, numpy, setup, run, bad, matmul, nothing, teardown = replies[:9]
    expr_setup, expr_run, wrong_rows, bad_source = replies[9:]
    check(expr_setup["ok"] and expr_setup["result_shape"] == [7], f"expr setup {expr_setup}")
    want = a[0] * a[1] - a[0].max() + a[2]
    check(np.allclose(np.load(expr_out), want, rtol=1e-6, atol=1e-6),
          "the saved expression's result is not NumPy's")
    check(expr_run["ok"] and len(expr_run["sample_ns"]) == 3, f"expr run {expr_run}")
    check(not wrong_rows["ok"] and "needs an input of that many rows" in wrong_rows["error"],
          f"expr over 2 variables of a 5-row input: {wrong_rows}")
    check(not bad_source["ok"] and not bad_source.get("unsupported"),
          f"an expression that does not parse: {bad_source}")
    check(hello["ok"] and "version" in hello, f"hello {hello}")
    check(require["ok"] and require["library"] == "kbench", f"require {require}")
    check(not numpy["ok"] and numpy.get("unsupported"), f"require numpy {numpy}")
    check(setup["ok"] and setup["result_dtype"] == "float32" and setup["result_shape"] == [7],
          f"setup {setup}")
    check(np.array_equal(np.load(out), a.max(axis=0)), "the saved result is not NumPy's max")
    check(run["ok"] and len(run["sample_ns"]) == 4 and all(t > 0 for t in run["sample_ns"]),
          f"run {run}")
    check(not bad["ok"] and not matmul["ok"] and matmul.get("unsupported") and not nothing["ok"],
          f"bad requests {bad} {matmul} {nothing}")
    check(teardown["ok"], f"teardown {teardown}")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        check_ab_run(tmp)
        check_ab_expr(tmp)
        check_ab_ew(tmp)
        check_ab_needs_pairs(tmp)
        check_refused_paths()
        check_serve(tmp)
        check_serve_ew(tmp)
    return finish("ab")


if __name__ == "__main__":
    sys.exit(main())
