"""End-to-end checks of `kbench run --baseline`: NumPy and numexpr cases join each group, named
<group>/baseline=numpy and, at each thread count of the group, <group>/baseline=numexpr/threads=N
(recorded as that count), with samples, a passed check against kbench's output, the
`C call vs Python call` label and the speedup report in the table, markdown and JSON; a runner
whose NumPy is wrong makes the run fail with the mismatch named; no NumPy, a clear message.
PyTorch and JAX join at each thread count (<group>/baseline=torch/threads=N), are compared with
kbench's cases of the same thread count, and the report names the best baseline of each case; a
case a peer cannot compute is reported as not supported; a missing peer fails the run with the
command that installs it. Timings are never checked.

Usage: python3 test_baselines.py path/to/kbench"""

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from harness import check, finish, kbench

RUNNER = Path(__file__).resolve().parents[2] / "baselines" / "runner.py"
# Two groups: sum (NumPy and numexpr) and argmax (NumPy only), 64x64 float32, scalar and auto.
FILTER = "^reduce/(sum|argmax)/f32/64x64/axis=None/simd=(scalar|auto)/threads=1$"


def run(tmp, *extra, env=None):
    return kbench("run", "reduce", "--filter", FILTER, "--min-time", "0.002", "--no-roofline",
                  "--baseline", "numpy", "--baseline", "numexpr", *extra, env=env)


def agreeing_run(tmp):
    paths = [os.path.join(tmp, "b.json"), os.path.join(tmp, "b.md")]
    r = run(tmp, "-o", paths[0], "-o", paths[1])
    if not check(r.returncode == 0, f"baseline run exited {r.returncode}: {r.stderr}"):
        return
    results = json.loads(Path(paths[0]).read_text())
    names = [c["name"] for c in results["cases"]]
    group = "reduce/{}/f32/64x64/axis=None"
    want = [group.format("sum") + s for s in ("/simd=scalar/threads=1", "/simd=auto/threads=1",
                                              "/baseline=numpy", "/baseline=numexpr/threads=1")]
    want += [group.format("argmax") + s for s in ("/simd=scalar/threads=1",
                                                  "/simd=auto/threads=1", "/baseline=numpy")]
    check(names == want, f"cases {names}")
    for c in results["cases"]:
        if c["baseline"] is None:
            continue
        lib = c["baseline"]["library"]
        # NumPy computes on one thread; numexpr at each thread count of the group, here 1.
        suffix, impl = (("/baseline=numpy", {"baseline": lib}) if lib == "numpy" else
                        (f"/baseline={lib}/threads=1", {"baseline": lib, "threads": "1"}))
        check(c["name"].endswith(suffix) and c["threads"] == 1, f"{c['name']}: library {lib}")
        check(c["status"] == "ok" and c["baseline"]["check"] == "ok"
              and 0 <= c["baseline"]["error_ratio"] <= 1, f"{c['name']}: {c['baseline']}")
        check(c["params"]["baseline"] == lib and c["implementation"] == impl,
              f"{c['name']}: params {c['params']}")
        check(c["group"] == c["name"][:-len(suffix)], f"{c['name']}: group {c['group']}")
        samples = sum(len(rep) for rep in c["samples_ns"])
        check(samples >= 10 and c["statistics"]["n"] == samples, f"{c['name']}: {samples} samples")
        check(c["bytes_per_call"] == 64 * 64 * 4 + (4 if "/sum/" in c["name"] else 8),
              f"{c['name']}: bytes {c['bytes_per_call']}")
    ctx = results["context"]["baselines"]
    check(ctx["comparison"] == "C call vs Python call", f"comparison {ctx}")
    numpy_info = ctx["runner"]["libraries"]["numpy"]
    check(numpy_info["version"] and "simd" in numpy_info["config"], f"NumPy info {numpy_info}")
    check(ctx["runner"]["libraries"]["numexpr"] is not None, "numexpr info")

    sp = results["speedups"]
    check(sp["comparison"] == "C call vs Python call" and sp["ci_level"] == 0.95, "speedups")
    by_case = {}
    for row in sp["rows"]:
        by_case.setdefault(row["case"], []).append(row)
        o = row["over_baseline"]
        check(0 < o["ci_low"] <= o["ratio"] <= o["ci_high"], f"interval {row}")
    cases = {c["name"]: c for c in results["cases"]}
    for name, rows in by_case.items():
        for row in rows:
            base = cases[row["baseline_case"]]
            ratio = base["statistics"]["median_ns"] / cases[name]["statistics"]["median_ns"]
            check(abs(row["over_baseline"]["ratio"] - ratio) <= 1e-9 * ratio,
                  f"{name}: speedup {row['over_baseline']['ratio']} != {ratio}")
            check((row["over_scalar"] is not None) == ("simd=auto" in name),
                  f"{name}: over_scalar {row['over_scalar']}")
    check(len(by_case[group.format("sum") + "/simd=auto/threads=1"]) == 2,
          "sum's auto has a speedup over NumPy and one over numexpr")
    means = {(m["baseline"], m["op"]) for m in sp["geometric_means"]}
    check({("numpy", None), ("numpy", "sum"), ("numpy", "argmax"), ("numexpr", None)} <= means,
          f"geometric means {means}")

    check("Speedup over the baselines (C call vs Python call)" in r.stdout,
          f"no speedup table: {r.stdout}")
    md = Path(paths[1]).read_text()
    check("## Speedup over the baselines (C call vs Python call)" in md, "markdown section")
    check("| `reduce/sum/f32/64x64/axis=None/simd=auto/threads=1` |" in md.split("## Speedup")[1],
          "markdown speedup rows")


def wrong_numpy(tmp):
    """A runner whose np.sum is off by one: the check must catch it."""
    runner = Path(tmp) / "wrong_runner.py"
    runner.write_text(
        "import runpy, numpy\n"
        "right = numpy.sum\n"
        "numpy.sum = lambda a, axis=None: right(a, axis=axis) + 1\n"
        f"runpy.run_path({str(RUNNER)!r}, run_name='__main__')\n")
    r = run(tmp, "--format", "json", "-q", env={"KB_BASELINE_RUNNER": str(runner)})
    check(r.returncode == 1 and "differs from the baseline's beyond tolerance" in r.stderr
          and "baseline=numpy" in r.stderr, f"mismatch: {r.returncode} {r.stderr}")
    if r.stdout:
        cases = {c["name"]: c for c in json.loads(r.stdout)["cases"]}
        bad = cases["reduce/sum/f32/64x64/axis=None/baseline=numpy"]["baseline"]
        check(bad["check"] == "mismatch" and bad["error_ratio"] > 1 and bad["detail"],
              f"mismatch recorded: {bad}")
        good = cases["reduce/argmax/f32/64x64/axis=None/baseline=numpy"]["baseline"]
        check(good["check"] == "ok", f"argmax still agrees: {good}")


def no_numpy(tmp):
    fake = Path(tmp) / "fake"
    fake.mkdir()
    (fake / "numpy.py").write_text("raise ImportError('no numpy here')\n")
    r = run(tmp, "-q", env={"PYTHONPATH": str(fake)})
    check(r.returncode == 1 and "NumPy is not installed" in r.stderr
          and "scripts/install-deps" in r.stderr and r.stdout == "",
          f"without NumPy: {r.returncode} {r.stderr} {r.stdout}")
    r = kbench("run", "--baseline", "pandas")
    check(r.returncode == 2 and "bad --baseline 'pandas'" in r.stderr, f"bad library: {r.stderr}")


def installed(module):
    """Whether the runner's Python has module (scripts/install-deps installs the peers)."""
    python = os.environ.get("KB_PYTHON", "python3")
    found = subprocess.run([python, "-c", f"import {module}"], capture_output=True).returncode
    if found != 0:
        print(f"{module} is not installed (scripts/install-deps installs it): skipping its run")
    return found == 0


PEER_FILTER = "^reduce/(sum|argmax)/f32/64x64/axis=0/simd=auto/threads=[0-9]+$"


def peers_run(tmp):
    """NumPy, PyTorch and JAX on two groups, at every thread count of the suite."""
    path = os.path.join(tmp, "peers.json")
    md = os.path.join(tmp, "peers.md")
    r = kbench("run", "reduce", "--filter", PEER_FILTER, "--min-time", "0.002", "--no-roofline",
               "--baseline", "numpy", "--baseline", "torch", "--baseline", "jax", "-o", path,
               "-o", md)
    if not check(r.returncode == 0, f"peer run exited {r.returncode}: {r.stderr}"):
        return
    results = json.loads(Path(path).read_text())
    cases = {c["name"]: c for c in results["cases"]}
    counts = sorted({c["params"]["threads"] for c in results["cases"] if c["baseline"] is None})
    for op in ("sum", "argmax"):
        group = f"reduce/{op}/f32/64x64/axis=0"
        check(f"{group}/baseline=numpy" in cases, f"{group}: numpy case")
        for lib in ("torch", "jax"):
            for t in counts:
                name = f"{group}/baseline={lib}/threads={t}"
                c = cases.get(name)
                if not check(c is not None, f"no case {name}: {sorted(cases)}"):
                    continue
                check(c["status"] == "ok" and c["baseline"]["check"] == "ok"
                      and c["baseline"]["library"] == lib, f"{name}: {c['baseline']}")
                check(c["implementation"] == {"baseline": lib, "threads": t}
                      and c["threads"] == int(t) and c["group"] == group,
                      f"{name}: {c['implementation']} {c['threads']} {c['group']}")
    libraries = results["context"]["baselines"]["runner"]["libraries"]
    check(libraries["torch"]["version"] and libraries["jax"]["version"],
          f"peer versions: {libraries}")
    check(results["context"]["baselines"]["unsupported"] == [], "nothing unsupported")

    rows = results["speedups"]["rows"]
    by_case = {}
    for row in rows:
        by_case.setdefault(row["case"], []).append(row)
    for name, own_rows in by_case.items():
        threads = cases[name]["params"]["threads"]
        bases = [cases[row["baseline_case"]] for row in own_rows]
        check(all(b["params"].get("threads", threads) == threads for b in bases),
              f"{name} compared only at its thread count: {[b['name'] for b in bases]}")
        check(len(own_rows) == 3, f"{name}: numpy, torch and jax rows: {len(own_rows)}")
        best = min(bases, key=lambda b: b["statistics"]["median_ns"])
        for row in own_rows:
            o = row["over_best_baseline"]
            ratio = best["statistics"]["median_ns"] / cases[name]["statistics"]["median_ns"]
            check(row["best_baseline_case"] == best["name"]
                  and abs(o["ratio"] - ratio) <= 1e-9 * ratio
                  and o["ci_low"] <= o["ratio"] <= o["ci_high"], f"{name}: best {row}")
    means = {(m["baseline"], m["op"]) for m in results["speedups"]["geometric_means"]}
    check({("best", None), ("torch", "sum"), ("jax", None)} <= means, f"means {means}")
    check("over the best baseline" in r.stdout, f"table column: {r.stdout}")
    text = Path(md).read_text()
    check("over the best baseline" in text and "torch/threads=1" in text, "markdown column")


def unsupported_peer(tmp):
    """A runner whose PyTorch refuses argmax: the case is reported, not timed, not failed."""
    runner = Path(tmp) / "refusing_runner.py"
    runner.write_text(
        "import runpy, sys\n"
        f"g = runpy.run_path({str(RUNNER)!r})\n"
        "plain = g['CALLABLES']['torch']\n"
        "def refuse(np, case, a, threads):\n"
        "    if case['op'] == 'argmax':\n"
        "        raise g['Failure']('PyTorch refuses argmax here', unsupported=True)\n"
        "    return plain(np, case, a, threads)\n"
        "g['CALLABLES']['torch'] = refuse\n"
        "sys.exit(g['main']())\n")
    path = os.path.join(tmp, "refused.json")
    r = kbench("run", "reduce", "--filter", PEER_FILTER.replace("[0-9]+", "1"), "--min-time",
               "0.002", "--no-roofline", "--baseline", "torch", "-o", path,
               env={"KB_BASELINE_RUNNER": str(runner)})
    if not check(r.returncode == 0, f"unsupported run exited {r.returncode}: {r.stderr}"):
        return
    results = json.loads(Path(path).read_text())
    name = "reduce/argmax/f32/64x64/axis=0/baseline=torch/threads=1"
    check(results["context"]["baselines"]["unsupported"] == [
        {"case": name, "library": "torch", "reason": "PyTorch refuses argmax here"}],
        f"unsupported: {results['context']['baselines']}")
    check(name not in {c["name"] for c in results["cases"]}, "the unsupported case is not timed")
    check("reduce/sum/f32/64x64/axis=0/baseline=torch/threads=1"
          in {c["name"] for c in results["cases"]}, "sum still has PyTorch")
    check("Not supported by the baseline (not timed):" in r.stdout
          and f"{name}: PyTorch refuses argmax here" in r.stdout, f"table: {r.stdout}")


def missing_peers(tmp):
    fake = Path(tmp) / "nopeers"
    fake.mkdir()
    for module, name in (("torch", "PyTorch"), ("jax", "JAX")):
        (fake / f"{module}.py").write_text(f"raise ImportError('no {module} here')\n")
        r = kbench("run", "reduce", "--filter", PEER_FILTER, "--min-time", "0.002", "-q",
                   "--baseline", "numpy", "--baseline", module, env={"PYTHONPATH": str(fake)})
        check(r.returncode == 1 and f"{name} is not installed" in r.stderr
              and f"run scripts/install-deps (or pip install {module})" in r.stderr
              and r.stdout == "", f"without {name}: {r.returncode} {r.stderr} {r.stdout}")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        agreeing_run(tmp)
        wrong_numpy(tmp)
        no_numpy(tmp)
        if installed("torch") and installed("jax"):
            peers_run(tmp)
            unsupported_peer(tmp)
        missing_peers(tmp)
    sys.exit(finish("baselines"))


if __name__ == "__main__":
    main()
