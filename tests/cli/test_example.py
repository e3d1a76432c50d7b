"""examples/bench_dot.c as a user builds it: install kbench into a temporary prefix, compile
the example with `pkg-config --cflags --libs kbench` alone, and run it through
kb_bench_main with a very short --min-time: its cases are listed, measured and written to a
results file with the documented fields; a bad option exits 2.

Usage: python3 test_example.py path/to/kbench"""
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from harness import check, finish, install, linked_env

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "bench_dot.c"


def main():
    with tempfile.TemporaryDirectory() as prefix:
        env, flags = install(prefix)
        exe = os.path.join(prefix, "bench_dot")
        subprocess.run(["cc", "-O2", "-std=c17", "-Wall", "-Wextra", "-Werror", str(EXAMPLE),
                        "-o", exe] + flags, check=True, env=env)
        run_env = linked_env(flags, KB_CACHE_DIR=os.path.join(prefix, "cache"))

        def run(*args):
            return subprocess.run([exe, *args], env=run_env, capture_output=True, text=True,
                                  timeout=120)

        listed = run("list")
        names = listed.stdout.split()
        check(listed.returncode == 0, f"list exited {listed.returncode}: {listed.stderr}")
        check(names == [f"example/dot/n={n}/impl={i}" for n in (1000, 100000, 10000000)
                        for i in ("naive", "unrolled")], f"list printed {names}")

        out = os.path.join(prefix, "dot.json")
        ran = run("run", "--filter", "n=1000/", "--min-time", "0.001", "--quick-peaks", "-q",
                  "-o", out)
        check(ran.returncode == 0, f"run exited {ran.returncode}: {ran.stderr}")
        check("example/dot/n=1000/impl=unrolled" in ran.stdout, f"table lacks a case: {ran.stdout}")
        with open(out) as f:
            results = json.load(f)
        cases = results["cases"]
        check(results["schema"] == "kbench-results", "schema")
        check(results["context"]["command"].endswith("run --filter n=1000/ --min-time 0.001 --quick-peaks -q -o "
                                                     + out), results["context"]["command"])
        check([c["name"] for c in cases] == ["example/dot/n=1000/impl=naive",
                                             "example/dot/n=1000/impl=unrolled"], "cases")
        for c in cases:
            check(c["status"] == "ok", f"{c['name']}: {c['error']}")
            check(c["bytes_per_call"] == 8000 and c["flops_per_call"] == 2000, "counts")
            check(c["group"] == "example/dot/n=1000", c["group"])
            check(c["implementation"] == {"impl": c["params"]["impl"]}, "implementation")
            check(sum(len(r) for r in c["samples_ns"]) >= 10, "at least 10 samples")
            check(c["rates"]["gflop_per_s"] > 0, "rates")
            check(c["traffic"] == "load" and c["flop_type"] == "float32", "declared peaks")
            check(c["roofline"] is not None and c["roofline"]["percent_of_bound"] > 0,
                  f"roofline {c['roofline']}")

        bad = run("--min-time", "soon")
        check(bad.returncode == 2 and "bad --min-time" in bad.stderr,
              f"bad option: exit {bad.returncode}, {bad.stderr}")
        helped = run("--help")
        check(helped.returncode == 0 and "--filter" in helped.stdout, "help")

    sys.exit(finish("example"))


if __name__ == "__main__":
    main()
