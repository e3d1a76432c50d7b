"""End-to-end check of `kbench run --baseline python`: kbench through its Python module is timed
by the baseline runner beside NumPy, at each thread count of the group
(<group>/baseline=python/threads=N), its result checked against kbench's C call, and the
speedup report leads with "Python call vs Python call" (the module against NumPy at the same
thread count) before the C-call rows, labelled as such, in the table, the markdown and the JSON.
A runner without the module fails the run with the command that builds it. Timings are never
checked.

Needs KB_PYTHON, a Python with the kbench package installed (CTest's python/install builds one).

Usage: python3 test_baseline_python.py path/to/kbench"""

import json
import os
import tempfile
from pathlib import Path

from harness import check, finish, kbench

FILTER = "^reduce/(sum|var)/f32/64x64/axis=(None|0)/simd=(scalar|auto)/threads=[0-9]+$"
BOTH = "Python call vs Python call; C call vs Python call"


def run(*extra, env=None):
    return kbench("run", "reduce", "--filter", FILTER, "--min-time", "0.002", "--no-roofline",
                  "--no-monitor", "--baseline", "numpy", "--baseline", "python", *extra, env=env)


def python_versus_python(tmp):
    paths = [os.path.join(tmp, "p.json"), os.path.join(tmp, "p.md")]
    r = run("-o", paths[0], "-o", paths[1])
    if not check(r.returncode == 0, f"run exited {r.returncode}: {r.stderr}"):
        return
    results = json.loads(Path(paths[0]).read_text())
    cases = {c["name"]: c for c in results["cases"]}
    groups = {c["group"] for c in results["cases"]}
    check(len(groups) == 4, f"groups {groups}")
    counts = {c["threads"] for c in results["cases"] if c["baseline"] is None}
    for g in groups:
        for threads in counts:
            name = f"{g}/baseline=python/threads={threads}"
            c = cases.get(name)
            if not check(c is not None, f"no case {name}: {sorted(cases)}"):
                continue
            check(c["status"] == "ok" and c["baseline"]["library"] == "python"
                  and c["baseline"]["check"] == "ok", f"{name}: {c['baseline']}")
            check(c["threads"] == threads, f"{name}: threads {c['threads']}")
    ctx = results["context"]["baselines"]
    check(ctx["comparison"] == BOTH, f"comparison {ctx['comparison']}")
    about = ctx["runner"]["libraries"].get("python") or {}
    check(about.get("version") and about.get("module", "").endswith(".py"), f"module {about}")

    sp = results["speedups"]
    check(sp["comparison"] == BOTH, f"speedups comparison {sp['comparison']}")
    python_rows = [r for r in sp["rows"] if r["comparison"] == "Python call vs Python call"]
    c_rows = [r for r in sp["rows"] if r["comparison"] == "C call vs Python call"]
    check(len(python_rows) == 4 * len(counts),
          f"{len(python_rows)} Python-call rows (4 groups x {len(counts)} thread counts)")
    for row in python_rows:
        check("/baseline=python/" in row["case"] and row["baseline_case"].endswith("=numpy"),
              f"Python-call row {row}")
        base, own = cases[row["baseline_case"]], cases[row["case"]]
        ratio = base["statistics"]["median_ns"] / own["statistics"]["median_ns"]
        check(abs(row["over_baseline"]["ratio"] - ratio) <= 1e-9 * ratio, f"ratio {row}")
    check(c_rows and all("/baseline=" not in r["case"] and r["baseline_case"].endswith("=numpy")
                         for r in c_rows), "C-call rows compare kbench's C calls with NumPy only")
    means = {(m["comparison"], m["baseline"], m["implementation"], m["op"])
             for m in sp["geometric_means"]}
    check(("Python call vs Python call", "numpy", "python/threads=1", None) in means,
          f"geometric means {means}")

    table = r.stdout
    first, second = (table.find("Speedup of kbench through Python over the baselines "
                                "(Python call vs Python call)"),
                     table.find("Speedup over the baselines (C call vs Python call)"))
    check(0 <= first < second, f"the Python-call table leads: {first}, {second}")
    md = Path(paths[1]).read_text()
    first = md.find("## Speedup of kbench through Python over the baselines "
                    "(Python call vs Python call)")
    second = md.find("## Speedup over the baselines (C call vs Python call)")
    check(0 <= first < second, "the markdown's Python-call section leads")
    check("| `reduce/sum/f32/64x64/axis=0/baseline=python/threads=1` |" in md[first:second],
          "markdown Python-call rows")


def missing_module(tmp):
    """A Python without kbench's module: the run fails at once, naming what to do."""
    blocker = Path(tmp) / "blocker"
    blocker.mkdir()
    (blocker / "kbench.py").write_text("raise ImportError('no kbench here')\n")
    r = run(env={"PYTHONPATH": str(blocker)})
    check(r.returncode != 0 and "kbench's Python module is not installed" in r.stderr
          and "pip install ." in r.stderr, f"missing module: {r.returncode} {r.stderr}")


def main():
    if not os.environ.get("KB_PYTHON"):
        print("test_baseline_python: KB_PYTHON (a Python with the kbench package) is not set")
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        python_versus_python(tmp)
        missing_module(tmp)
    return finish("test_baseline_python")


if __name__ == "__main__":
    raise SystemExit(main())
