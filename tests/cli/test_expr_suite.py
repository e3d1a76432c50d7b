#!/usr/bin/env python3
"""The `expr` suite of kbench run: its cases (every expression in float32 and float64, at the L2
and DRAM sizes, per SIMD level and thread count), and a run of a few of them against the NumPy
and numexpr baselines, whose results must agree with kbench's (the runner evaluates the same
source on the same input) and whose traffic is the fused plan's (docs/fusion.md).

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
    check(all(re.search(r"/simd=\w+/threads=\d+/output=(into|alloc)$", n) for n in names),
          "every expr case names its SIMD level, thread count and output")
    into = {n[:-len("/output=into")] for n in names if n.endswith("/output=into")}
    alloc = {n[:-len("/output=alloc")] for n in names if n.endswith("/output=alloc")}
    check(into and into == alloc, "every expr case both into its output and allocating it")

    with tempfile.TemporaryDirectory() as tmp:
        results = os.path.join(tmp, "expr.json")
        code, out, err = kbench("run", "expr", "--filter",
                                r"expr/(fma|softmax|leaky_relu)/f64/L2/simd=scalar/threads=1",
                                "--baseline", "numpy", "--baseline", "numexpr", "--no-roofline",
                                "--min-time", "0.01", "-o", results,
                                env={"KB_CACHE_DIR": tmp})
        if not check(code == 0, f"kbench run expr: exit {code}, {err.strip()[-500:]}"):
            return finish("expr suite")
        cases = json.load(open(results))["cases"]
        ours = {(c["params"]["expr"], c["params"]["output"]): c for c in cases
                if "baseline" not in c["params"]}
        theirs = [c for c in cases if "baseline" in c["params"]]
        check(sorted(ours) == sorted((e, o) for e in TRAFFIC for o in ("into", "alloc")),
              f"kbench's cases: {sorted(ours)}")
        check(all(c["status"] == "ok" for c in ours.values()), "kbench's cases ran")
        check(len(theirs) == 2 * len(TRAFFIC), f"{len(theirs)} baseline cases, not 6")
        for c in theirs:
            count()
            b = c.get("baseline") or {}
            if c["status"] != "ok" or b.get("check") != "ok":
                fail(f"{c['name']}: status {c['status']}, check {b.get('check')}: "
                     f"{b.get('detail') or c.get('error')}")
        for (name, _), c in ours.items():
            # The input is half of L2 over the variables, in whole rows of 1024.
            per_element, bool_bytes = TRAFFIC[name]
            n = c["working_set_bytes"] / 8
            count()
            if c["bytes_per_call"] != n * (8 * per_element + bool_bytes) / VARIABLES[name]:
                fail(f"{name}: bytes_per_call {c['bytes_per_call']} for {n} input elements")
    return finish("expr suite")


if __name__ == "__main__":
    sys.exit(main())
