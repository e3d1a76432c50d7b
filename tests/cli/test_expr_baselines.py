#!/usr/bin/env python3
"""End-to-end checks of the `expr` suite against `--baseline torch`, `--baseline torch-compile`
and `--baseline jax`: each joins every group at each of its thread counts
(<group>/baseline=torch-compile/threads=N), computes the same expression on the same input with
its result checked against kbench's, is held to the least traffic of the case (never more than
kbench's own count, which a library that fuses further could beat), and is compared with kbench's cases of its thread
count in the speedup report; an expression a baseline cannot express is listed as not supported, not
timed, and the run does not fail; torch-compile computes the reduce suite's cases too; a
missing PyTorch fails the run with the command that installs it. Timings are never checked.

Usage: python3 test_expr_baselines.py path/to/kbench"""

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from harness import check, finish, kbench

RUNNER = Path(__file__).resolve().parents[2] / "baselines" / "runner.py"
PEERS = ["torch", "torch-compile", "jax"]
VARIABLES = {"fma": 3, "softmax": 1}
# fma at both thread counts, both levels and both outputs; softmax (reductions with keepdims)
# at one, into its output alone, so that the baselines check what kb_expr_eval_into wrote (the
# group's last call): tiny (half of L2).
FILTER = ("^expr/fma/f32/L2/simd=(scalar|auto)/threads=[0-9]+/output=(into|alloc)$"
          "|^expr/softmax/f32/L2/simd=scalar/threads=1/output=into$")


def installed(module):
    python = os.environ.get("KB_PYTHON", "python3")
    found = subprocess.run([python, "-c", f"import {module}"], capture_output=True).returncode
    if found != 0:
        print(f"{module} is not installed (scripts/install-deps installs it): skipping its run")
    return found == 0


def baselines(*libraries):
    return [arg for lib in libraries for arg in ("--baseline", lib)]


def peers_run(tmp):
    path, md = os.path.join(tmp, "expr.json"), os.path.join(tmp, "expr.md")
    r = kbench("run", "expr", "--filter", FILTER, "--min-time", "0.005", "--no-roofline",
               *baselines(*PEERS), "-o", path, "-o", md, env={"KB_CACHE_DIR": tmp})
    if not check(r.returncode == 0, f"expr run exited {r.returncode}: {r.stderr[-2000:]}"):
        return
    results = json.loads(Path(path).read_text())
    cases = {c["name"]: c for c in results["cases"]}
    ours = [c for c in results["cases"] if c["baseline"] is None]
    check(len(ours) >= 2, f"kbench's cases: {[c['name'] for c in ours]}")
    for own in ours:
        group, threads = own["group"], own["params"]["threads"]
        for lib in PEERS:
            name = f"{group}/baseline={lib}/threads={threads}"
            c = cases.get(name)
            if not check(c is not None, f"no case {name}: {sorted(cases)}"):
                continue
            b = c["baseline"]
            check(c["status"] == "ok" and b["library"] == lib and b["check"] == "ok"
                  and 0 <= b["error_ratio"] <= 1, f"{name}: {c['status']} {b}")
            check(c["implementation"] == {"baseline": lib, "threads": threads}
                  and c["threads"] == int(threads) and c["group"] == group,
                  f"{name}: {c['implementation']} {c['threads']}")
            # Held to the least traffic (input read once, result written once), never more
            # than kbench's own count: fma's and softmax's result is one variable's size.
            nvars = VARIABLES[own["params"]["expr"]]
            least = own["working_set_bytes"] * (nvars + 1) / nvars
            check(c["bytes_per_call"] == least <= own["bytes_per_call"],
                  f"{name}: bytes {c['bytes_per_call']}, not {least}")
    libraries = results["context"]["baselines"]["runner"]["libraries"]
    compiled = libraries.get("torch-compile") or {}
    check(compiled.get("backend") == "inductor" and compiled.get("version"),
          f"torch-compile's description: {compiled}")
    check(results["context"]["baselines"]["unsupported"] == [], "nothing unsupported")
    rows = {}
    for row in results["speedups"]["rows"]:
        rows.setdefault(row["case"], set()).add(row["baseline_case"])
    for own in ours:
        want = {f"{own['group']}/baseline={lib}/threads={own['params']['threads']}"
                for lib in PEERS}
        check(rows.get(own["name"]) == want, f"{own['name']} compared with {rows.get(own['name'])}")
    check("torch-compile/threads=1" in r.stdout and "torch-compile/threads=1" in
          Path(md).read_text(), "the table and the markdown name torch-compile")
    # simd=auto's speedups are averaged, overall and per expression, over each library and
    # the best of each case, and held against simd=scalar.
    if any(c["params"]["simd"] == "auto" for c in ours):
        means = {(m["baseline"], m["implementation"], m["op"]): m["cases"]
                 for m in results["speedups"]["geometric_means"]}
        want = {(lib, f"simd=auto/threads=1/output={out}", op): 1 for lib in PEERS + ["best"]
                for op in (None, "fma") for out in ("into", "alloc")}
        check(all(means.get(k) == n for k, n in want.items()),
              f"geometric means: {sorted(means, key=str)}")
        auto = [row for row in results["speedups"]["rows"] if "/simd=auto/" in row["case"]]
        check(auto and all(row["over_scalar"] for row in auto), "auto over scalar")
        # ... over scalar with the same output.
        for row in auto:
            o = row["over_scalar"]
            scalar = cases[row["case"].replace("/simd=auto/", "/simd=scalar/")]
            ratio = scalar["statistics"]["median_ns"] / cases[row["case"]]["statistics"]["median_ns"]
            check(abs(o["ratio"] - ratio) <= 1e-9 * ratio, f"{row['case']} over scalar: {o}")


def inexpressible(tmp):
    """A PyTorch without exp (the runner's translation stripped of it): softmax cannot be
    expressed, and says so; fma still runs."""
    runner = Path(tmp) / "no_exp_runner.py"
    runner.write_text(
        "import runpy, sys\n"
        f"g = runpy.run_path({str(RUNNER)!r})\n"
        "plain = g['torch_expr_namespace']\n"
        "def without_exp(torch):\n"
        "    ns = plain(torch)\n"
        "    del ns['exp']\n"
        "    return ns\n"
        "g['torch_expr_function'].__globals__['torch_expr_namespace'] = without_exp\n"
        "sys.exit(g['main']())\n")
    path = os.path.join(tmp, "inexpressible.json")
    r = kbench("run", "expr", "--filter", FILTER.replace("[0-9]+", "1"), "--min-time", "0.005",
               "--no-roofline", "--baseline", "torch", "-o", path,
               env={"KB_BASELINE_RUNNER": str(runner), "KB_CACHE_DIR": tmp})
    if not check(r.returncode == 0, f"inexpressible run exited {r.returncode}: {r.stderr}"):
        return
    results = json.loads(Path(path).read_text())
    name = "expr/softmax/f32/L2/baseline=torch/threads=1"
    why = "PyTorch cannot express this expression: it has no exp"
    check(results["context"]["baselines"]["unsupported"] == [
        {"case": name, "library": "torch", "reason": why}],
        f"unsupported: {results['context']['baselines']['unsupported']}")
    names = {c["name"] for c in results["cases"]}
    check(name not in names and "expr/fma/f32/L2/baseline=torch/threads=1" in names,
          f"only fma has PyTorch: {sorted(names)}")
    check("Not supported by the baseline (not timed):" in r.stdout
          and f"{name}: {why}" in r.stdout, f"table: {r.stdout}")


def compiled_reduction(tmp):
    path = os.path.join(tmp, "reduce.json")
    r = kbench("run", "reduce", "--filter", "^reduce/sum/f32/64x64/axis=0/simd=auto/threads=1$",
               "--min-time", "0.005", "--no-roofline", "--baseline", "torch-compile", "-o", path)
    if not check(r.returncode == 0, f"reduce run exited {r.returncode}: {r.stderr[-2000:]}"):
        return
    c = {c["name"]: c for c in json.loads(Path(path).read_text())["cases"]}.get(
        "reduce/sum/f32/64x64/axis=0/baseline=torch-compile/threads=1")
    check(c is not None and c["status"] == "ok" and c["baseline"]["check"] == "ok",
          f"torch-compile sum: {c and c['baseline']}")


def missing_torch(tmp):
    fake = Path(tmp) / "notorch"
    fake.mkdir()
    (fake / "torch.py").write_text("raise ImportError('no torch here')\n")
    r = kbench("run", "expr", "--filter", FILTER, "--min-time", "0.005", "-q",
               "--baseline", "torch-compile", env={"PYTHONPATH": str(fake)})
    check(r.returncode == 1 and "PyTorch is not installed" in r.stderr
          and "run scripts/install-deps (or pip install torch)" in r.stderr and r.stdout == "",
          f"without PyTorch: {r.returncode} {r.stderr} {r.stdout}")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        if installed("torch") and installed("jax"):
            peers_run(tmp)
            inexpressible(tmp)
            compiled_reduction(tmp)
        missing_torch(tmp)
    sys.exit(finish("expression baselines"))


if __name__ == "__main__":
    main()
