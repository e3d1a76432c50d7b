#!/usr/bin/env python3
"""The `ew` suite of kbench run: its cases (every single elementwise op in float32 and float64,
at the L2 and DRAM sizes, per SIMD level and thread count), and a run of its L2 cases at the
scalar level and at the best one against the NumPy baseline, which evaluates the same op on the
same input: kbench's output must equal NumPy's (exp within float rounding), and each case must
count its inputs read and its output written, against the copy or triad bandwidth.

Usage: test_ew_suite.py path/to/kbench"""

import json
import os
import re
import sys
import tempfile

from harness import check, count, fail, finish, kbench

# op: (float inputs, reads a bool condition, roofline traffic)
OPS = {"add": (2, False, "triad"), "mul": (2, False, "triad"), "neg": (1, False, "copy"),
       "abs": (1, False, "copy"), "sqrt": (1, False, "copy"), "exp": (1, False, "copy"),
       "where": (2, True, "triad")}
ITEM = {"f32": 4, "f64": 8}


def main():
    code, out, err = kbench("list", "ew")
    names = out.split()
    check(code == 0, f"kbench list ew: exit {code}, {err.strip()}")
    for op in OPS:
        for dtype in ITEM:
            for size in ("L2", "DRAM"):
                for simd in ("scalar",):
                    check(f"ew/{op}/{dtype}/{size}/simd={simd}/threads=1" in names,
                          f"ew/{op}/{dtype}/{size}/simd={simd}/threads=1 missing from kbench "
                          "list ew")
    check(all(re.fullmatch(r"ew/\w+/f(32|64)/(L2|DRAM)/simd=\w+/threads=\d+", n) for n in names),
          "every ew case names its op, dtype, size, SIMD level and thread count")
    levels = {re.search(r"simd=(\w+)", n).group(1) for n in names}

    code, out, err = kbench("run", "--help")
    check(code == 0 and re.search(r"^\s+ew\b", out, re.M), "kbench run --help names the ew suite")

    with tempfile.TemporaryDirectory() as tmp:
        results = os.path.join(tmp, "ew.json")
        code, out, err = kbench("run", "ew", "--filter", r"ew/\w+/f(32|64)/L2/simd=\w+/threads=1$",
                                "--baseline", "numpy", "--no-roofline", "--min-time", "0.002",
                                "-o", results, env={"KB_CACHE_DIR": tmp})
        if not check(code == 0, f"kbench run ew: exit {code}, {err.strip()[-500:]}"):
            return finish("ew suite")
        doc = json.load(open(results))
        l2 = doc["context"]["cpu"]["caches"]["L2"]["size_bytes"] or 1 << 20
        cases = doc["cases"]
        ours = [c for c in cases if "baseline" not in c["params"]]
        theirs = [c for c in cases if "baseline" in c["params"]]
        check(len(ours) == len(OPS) * len(ITEM) * len(levels),
              f"{len(ours)} kbench cases, not one per op, dtype and level")
        check(len(theirs) == len(OPS) * len(ITEM),
              f"{len(theirs)} baseline cases, not one per op and dtype")
        for c in theirs:
            count()
            b = c.get("baseline") or {}
            if c["status"] != "ok" or b.get("check") != "ok":
                fail(f"{c['name']}: status {c['status']}, check {b.get('check')}: "
                     f"{b.get('detail') or c.get('error')}")
        for c in ours:
            p = c["params"]
            nvars, condition, traffic = OPS[p["op"]]
            per_element = ITEM[p["dtype"]] * (nvars + 1) + (1 if condition else 0)
            n = c["bytes_per_call"] / per_element
            count()
            if c["status"] != "ok":
                fail(f"{c['name']}: status {c['status']}: {c.get('error')}")
            elif n != int(n) or n % 64 or not 0 < c["bytes_per_call"] <= l2 / 2:
                fail(f"{c['name']}: bytes_per_call {c['bytes_per_call']} is not {per_element} "
                     f"bytes for each of a multiple of 64 elements within half of L2 ({l2})")
            count()
            if c.get("traffic") != traffic:
                fail(f"{c['name']}: traffic {c.get('traffic')}, not {traffic}")
    return finish("ew suite")


if __name__ == "__main__":
    sys.exit(main())
