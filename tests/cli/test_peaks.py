"""End-to-end checks of `kbench peaks` with a temporary KB_CACHE_DIR: every key documented in
the `kbench peaks` section of docs/cli.md is in `--json` with its documented type, the counts
are likwid-bench's, a second run reads the cache, `--refresh` measures again, damaged cache
and datasheet files are handled as documented, and bad usage exits 2. Always with --quick, and
no number is judged by its size: timings belong in benchmarks, not tests.

Usage: python3 test_peaks.py path/to/kbench
"""

import json
import os
import sys
import tempfile
from pathlib import Path

from harness import (check, check_documented, check_shortest_reals, doc_section, finish, kbench,
                     key_table)

KERNELS = ["load", "copy", "triad"]
LEVELS = ["L1", "L2", "L3", "DRAM"]


def run(cache, *args, env=None):
    return kbench("peaks", *args, env={"KB_CACHE_DIR": cache, **(env or {})})


def check_documented_keys(out):
    keys = key_table(doc_section("cli.md", "peaks").split("`--json` keys", 1)[1])
    check(len(keys) > 30, f"docs/cli.md lists only {len(keys)} peaks keys")
    if out["datasheet"] is None:
        keys = [(key, doc_type) for key, doc_type in keys if not key.startswith("datasheet.")]
    check_documented(out, keys, "peaks --json", require_values=True)


def rate_ok(rate, where):
    check(set(rate) == {"best", "median", "min", "max"}, f"{where}: keys {sorted(rate)}")
    check(0 < rate["min"] <= rate["median"] <= rate["max"] == rate["best"],
          f"{where}: not ordered: {rate}")


def check_peaks(out, threads):
    peaks = out["peaks"]
    check(peaks["format"] == "kbench-peaks/3", f"format {peaks['format']}")
    check(peaks["quick"] is True, "a --quick run's peaks say quick")
    counting = out["counting"]
    check(counting["convention"] == "likwid-bench", "counting convention")
    check(counting["write_allocate_included"] is False, "write-allocate is left out")
    per = counting["bytes_per_element"]
    check(per["load"] == {"read": 8, "write": 0, "write_allocate": 0}, f"load {per['load']}")
    check(per["copy"] == {"read": 8, "write": 8, "write_allocate": 8}, f"copy {per['copy']}")
    check(per["triad"] == {"read": 16, "write": 8, "write_allocate": 8}, f"triad {per['triad']}")
    check(counting["flops_per_fma_lane"] == 2, "2 FLOPs per FMA lane")

    sets = peaks["sets"]
    check([s["threads"] for s in sets] == [1, threads], f"thread counts {[s['threads'] for s in sets]}")
    for s in sets:
        seen = {(b["kernel"], b["level"]) for b in s["bandwidth"]}
        check(seen == {(k, l) for k in KERNELS for l in LEVELS},
              f"{s['threads']} threads: bandwidth entries {sorted(seen)}")
        for b in s["bandwidth"]:
            where = f"{s['threads']}t {b['kernel']} {b['level']}"
            rate_ok(b["gbytes_per_s"], where)
            wa = b["gbytes_per_s_with_write_allocate"]
            # Beyond the last-level cache the x86 levels' copy and triad store non-temporally:
            # no line is read before it is written (the DRAM level's working set is 4x it).
            nt = b["level"] == "DRAM" and peaks["bandwidth_simd"] in ("avx2", "avx512")
            if b["kernel"] == "load" or b["level"] == "L1" or nt:
                check(wa is None, f"{where}: write-allocate figure {wa}")
            else:
                # The same measurement counted with write-allocate: 24/16 and 32/24.
                factor = {"copy": 1.5, "triad": 32 / 24}[b["kernel"]]
                check(abs(wa["best"] / b["gbytes_per_s"]["best"] - factor) < 1e-6,
                      f"{where}: write-allocate factor")
        levels = [b["working_set_bytes"] for b in s["bandwidth"] if b["kernel"] == "load"]
        check(levels == sorted(levels) and levels[-1] >= 64 << 20,
              f"{s['threads']} threads: working sets {levels}")
        simds = {(f["type"], f["simd"]) for f in s["flops"]}
        for t in ("float32", "float64"):
            check((t, "scalar") in simds, f"{t} scalar FLOP peak missing")
        for f in s["flops"]:
            rate_ok(f["gflops_per_s"], f"{s['threads']}t {f['type']} {f['simd']}")
        check_curves(s)


def check_curves(s):
    """A curve per kernel, ascending to the DRAM level's working set, each point a working set
    the kernel measures: whole 512-byte blocks of each of its arrays per thread."""
    curves = s["curves"]
    check(sorted(curves) == sorted(KERNELS), f"{s['threads']} threads: curves {sorted(curves)}")
    arrays = {"load": 1, "copy": 2, "triad": 3}
    for kernel, points in curves.items():
        where = f"{s['threads']}t {kernel} curve"
        sizes = [p["working_set_bytes"] for p in points]
        check(len(sizes) > 20 and sizes == sorted(set(sizes)), f"{where}: working sets {sizes}")
        check(all(ws % (512 * arrays[kernel] * s["threads"]) == 0 for ws in sizes),
              f"{where}: working sets not in whole blocks: {sizes}")
        dram = [b["working_set_bytes"] for b in s["bandwidth"]
                if b["kernel"] == kernel and b["level"] == "DRAM"]
        check(sizes[-1:] == dram, f"{where}: last point {sizes[-1:]}, DRAM {dram}")
        for p in points:
            rate_ok(p["gbytes_per_s"], f"{where} {p['working_set_bytes']}")
            check(len(p["history"]) >= 1, f"{where}: no history")


def forget_load(path):
    """Peaks measured under load stand only until the load falls by 0.5 (docs/roofline.md): a
    cache entry whose reuse is checked next gets an unknown load average, so that a busy
    machine's changing load does not have the next run measure again."""
    entry = json.loads(Path(path).read_text())
    entry["peaks"]["load_average"] = None
    Path(path).write_text(json.dumps(entry))


def fnv1a64(text):
    """The cache file's name hash (peaks_cache.c), computed independently."""
    h = 14695981039346656037
    for byte in text.encode():
        h = ((h ^ byte) * 1099511628211) % 2**64
    return h


def main():
    with tempfile.TemporaryDirectory() as tmp:
        cache = os.path.join(tmp, "cache")

        # First run: measures (progress on stderr), writes the cache.
        first = run(cache, "--quick", "--json", "--threads", "2")
        check(first.returncode == 0, f"first run exit {first.returncode}: {first.stderr}")
        out = json.loads(first.stdout)
        check_shortest_reals(first.stdout, "peaks --json")
        check(out["cache"]["reused"] is False, "first run measures")
        check("kbench peaks: measuring bandwidth load L1" in first.stderr,
              f"no progress on stderr: {first.stderr[:200]}")
        check(Path(out["cache"]["path"]).parent == Path(cache),
              f"cache file {out['cache']['path']} not in KB_CACHE_DIR")
        check(Path(out["cache"]["path"]).is_file(), "cache file written")
        check("threads=2" in out["cache"]["key"], f"key {out['cache']['key']}")
        check_documented_keys(out)
        check_peaks(out, 2)

        # Second run: the cache, nothing measured, the same peaks (but the load average).
        forget_load(out["cache"]["path"])
        second = run(cache, "--quick", "--json", "--threads", "2")
        check(second.returncode == 0, f"second run exit {second.returncode}: {second.stderr}")
        again = json.loads(second.stdout)
        check(again["cache"]["reused"] is True, "second run reuses the cache")
        check("measuring bandwidth" not in second.stderr, "second run measured again")
        check(again["peaks"] == {**out["peaks"], "load_average": None},
              "second run's peaks differ from the cache")

        # --refresh measures again and rewrites the cache.
        third = run(cache, "--quick", "--json", "--threads", "2", "--refresh")
        check(third.returncode == 0, f"--refresh exit {third.returncode}: {third.stderr}")
        refreshed = json.loads(third.stdout)
        check(refreshed["cache"]["reused"] is False, "--refresh measures")
        check("measuring" in third.stderr, "--refresh shows progress")
        cached = json.loads(Path(out["cache"]["path"]).read_text())
        check(cached["format"] == "kbench-peaks-cache/1", "cache file format")
        # The file keeps 17 digits, the output 7: compare what identifies the measurement.
        check(cached["peaks"]["measured_at"] == refreshed["peaks"]["measured_at"]
              and all(abs(a["gbytes_per_s"]["best"] / b["gbytes_per_s"]["best"] - 1) < 1e-6
                      for s, r in zip(cached["peaks"]["sets"], refreshed["peaks"]["sets"])
                      for a, b in zip(s["bandwidth"], r["bandwidth"])),
              "--refresh rewrote the cache")

        # Measured again, the peaks keep the history: every figure now has two measurements,
        # the bound is the higher credible one, and the history_summary says so.
        for s in refreshed["peaks"]["sets"]:
            for b in s["bandwidth"] + s["flops"]:
                h = b["history"]
                if not check(len(h) == 2 and h[0]["at"] <= h[1]["at"],
                             f"history of two after --refresh: {h}"):
                    break
                summary = b["history_summary"]
                values = sorted(x["value"] for x in h)
                check(summary["count"] == 2 and abs(summary["bound"] / values[1] - 1) < 1e-6
                      and abs(summary["lowest"] / values[0] - 1) < 1e-6
                      and not summary["highest_is_outlier"], f"history_summary: {summary}")
        check(isinstance(refreshed["history_notes"], list)
              and isinstance(refreshed["checks"], list), "history_notes and checks")

        # Full peaks are cached apart from --quick's (issue 12, bug 3): a full cache entry, made
        # here from the quick one under the full key (a full measurement takes about a minute),
        # survives `--quick --refresh` byte for byte, and both a full and a --quick run then use
        # it. Its load average is unknown: peaks measured under load stand only until the load
        # falls, which on a busy machine would have the full run measure after all.
        quick_file = Path(refreshed["cache"]["path"])
        entry = json.loads(quick_file.read_text())
        check(entry["key"].endswith(";measure=quick"), f"quick key {entry['key']}")
        entry["key"] = entry["key"][: -len("quick")] + "full"
        entry["peaks"]["quick"] = False
        entry["peaks"]["load_average"] = None
        full_file = quick_file.parent / f"peaks-{fnv1a64(entry['key']):016x}.json"
        full_file.write_text(json.dumps(entry))
        full_bytes = full_file.read_bytes()
        requick = run(cache, "--quick", "--json", "--threads", "2", "--refresh")
        check(requick.returncode == 0 and "measuring" in requick.stderr, "quick --refresh measures")
        check(json.loads(requick.stdout)["cache"]["path"] == str(quick_file),
              "quick --refresh writes the quick entry")
        check(full_file.read_bytes() == full_bytes, "quick --refresh changed the full peaks' cache")
        for args in ([], ["--quick"]):
            used = run(cache, *args, "--json", "--threads", "2")
            got = json.loads(used.stdout) if used.returncode == 0 else {}
            check(got.get("cache", {}).get("reused") is True and "measuring" not in used.stderr
                  and got["cache"]["path"] == str(full_file),
                  f"{args or 'a full run'} did not use the full cache: {used.stderr[:300]}")
        full_file.unlink()  # the checks below are of the quick entry alone

        # Another thread count is another cache entry; text output works from the cache.
        one = run(cache, "--quick", "--threads", "1")
        check(one.returncode == 0, f"--threads 1 exit {one.returncode}: {one.stderr}")
        check("measuring" in one.stderr, "--threads 1 is its own cache entry")
        forget_load(next(p for p in Path(cache).glob("peaks-*.json")
                         if ";threads=1;" in json.loads(p.read_text())["key"]))
        text = run(cache, "--quick", "--threads", "1")
        check(text.returncode == 0 and "measuring" not in text.stderr, "text run reuses")
        for word in ("bandwidth, GB/s", "flops, GFLOP/s", "DRAM", "float64", "read from",
                     "load curve, GB/s", "bandwidth curves, GB/s",
                     "history: every measurement kept", "typical"):
            check(word in text.stdout, f"text output lacks '{word}'")

        # A damaged cache file is reported and measured over.
        Path(out["cache"]["path"]).write_text("{ not json")
        damaged = run(cache, "--quick", "--json", "--threads", "2")
        check(damaged.returncode == 0, f"damaged cache exit {damaged.returncode}")
        check("ignoring the cache" in damaged.stderr, f"damaged cache: {damaged.stderr[:200]}")
        check(json.loads(damaged.stdout)["cache"]["reused"] is False, "damaged cache remeasured")

        # A malformed KB_DATASHEET is an error that names the file and line.
        sheet = os.path.join(tmp, "sheet.csv")
        Path(sheet).write_text("id,name\nx,y\n")
        bad_sheet = run(cache, "--quick", env={"KB_DATASHEET": sheet})
        check(bad_sheet.returncode == 1, f"bad datasheet exit {bad_sheet.returncode}")
        check(sheet in bad_sheet.stderr and "line 1" in bad_sheet.stderr,
              f"bad datasheet message: {bad_sheet.stderr}")
        check(bad_sheet.stdout == "", "nothing on stdout after a failure")

        # Usage errors exit 2 and measure nothing; --help exits 0.
        for args in (["--threads", "0"], ["--threads", "abc"], ["--threads"], ["--bogus"],
                     ["extra"], ["--threads=5000"]):
            bad = run(cache, *args)
            check(bad.returncode == 2, f"{args}: exit {bad.returncode}, not 2")
            check("measuring" not in bad.stderr and bad.stdout == "", f"{args}: ran anyway")
        helped = run(cache, "--help")
        check(helped.returncode == 0 and "--refresh" in helped.stdout, "--help")

    return finish("peaks")


if __name__ == "__main__":
    sys.exit(main())
