#!/usr/bin/env python3
"""Writes the seed corpus for fuzz_history into tests/fuzz/seeds_history/: small kbench results
files cut from a real run (tests/cli/data/report_run.json: two cases, a few samples each, no
peaks) and from Google Benchmark output (tests/cli/data/gbench_base.json), and broken ones near
the edges of what the samples lifter takes (util/json_lift.c): negative, real, too large and
zero-padded samples, empty repetitions, line breaks inside the arrays, a repeated key, a
failed case, truncated text. Plain Python, so that the seeds can be made again anywhere:

    python3 tests/fuzz/make_history_seeds.py
"""

import copy
import json
import os
import shutil

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "cli", "data")
SEEDS = os.path.join(HERE, "seeds_history")


def small_run():
    """Two cases of the real run, their first repetition cut to 6 samples, without peaks."""
    with open(os.path.join(DATA, "report_run.json")) as f:
        run = json.load(f)
    run["context"]["peaks"] = None
    run["context"]["baselines"] = None
    cases = [c for c in run["cases"] if "/simd=scalar/" in c["name"]][:2]
    for c in cases:
        c["samples_ns"] = [c["samples_ns"][0][:3], c["samples_ns"][0][3:6]]
        c["statistics"]["n"] = 6
        c["roofline"] = None
        c["usage"] = None
    run["cases"] = cases
    run["summary"]["cases"] = len(cases)
    run["summary"]["failed"] = 0
    run["speedups"] = None
    return run


def main():
    shutil.rmtree(SEEDS, ignore_errors=True)
    os.makedirs(SEEDS)
    base = small_run()
    text = json.dumps(base, separators=(",", ":"))
    seeds = {"run.json": text, "run_indented.json": json.dumps(base, indent=1)}
    edits = {
        "negative_sample.json": ("[[", "[[-5,"),
        "real_sample.json": ("[[", "[[1.5,"),
        "huge_sample.json": ("[[", "[[92233720368547758070,"),
        "zero_padded_sample.json": ("[[", "[[007,"),
        "empty_repetition.json": ("[[", "[[],["),
        "line_breaks.json": ("[[", "[\n[\n"),
        "repeated_key.json": ('"samples_ns":', '"samples_ns":[[1]],"samples_ns":'),
        "string_sample.json": ("[[", '[["1",'),
    }
    for name, (old, new) in edits.items():
        seeds[name] = text.replace(old, new, 1)
    failed = copy.deepcopy(base)
    c = failed["cases"][1]
    c.update(status="failed", error="the kernel failed", statistics=None, rates=None,
             samples_ns=[])
    failed["summary"]["failed"] = 1
    seeds["failed_case.json"] = json.dumps(failed, separators=(",", ":"))
    seeds["truncated.json"] = text[: len(text) * 2 // 3]
    with open(os.path.join(DATA, "gbench_base.json")) as f:
        gbench = json.load(f)
    gbench["benchmarks"] = gbench["benchmarks"][:6]
    seeds["gbench.json"] = json.dumps(gbench, separators=(",", ":"))
    for name, content in seeds.items():
        with open(os.path.join(SEEDS, name), "w") as f:
            f.write(content)


if __name__ == "__main__":
    main()
