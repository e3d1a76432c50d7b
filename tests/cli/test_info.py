"""End-to-end checks of `kbench info`: text and JSON output, every key documented in
docs/cli.md present with its documented type, and the KB_SIMD / KB_NUM_THREADS settings.

Usage: python3 test_info.py path/to/kbench
"""

import json
import platform
import re
import sys

from harness import (CACHE_LEVELS, check, check_documented, check_shortest_reals, doc_section,
                     finish, kbench, key_table)

SECTIONS = ["build", "system", "cpu", "simd", "threads", "warnings"]


def run(*args, env=None):
    return kbench("info", *args, env=env, timeout=60)


def documented():
    """The keys table and the warning codes of the `kbench info` section of docs/cli.md."""
    keys_part, codes_part = doc_section("cli.md", "info").split("Warning codes:", 1)
    codes = re.findall(r"^\| `([a-z_]+)` \|", codes_part, flags=re.M)
    return key_table(keys_part), codes


def text_value(stdout, label):
    """The value of an aligned `  label   value` line, or None."""
    m = re.search(r"^  " + re.escape(label) + r" {2,}(.*)$", stdout, flags=re.M)
    return m.group(1).strip() if m else None


def main():
    keys, codes = documented()
    check(len(keys) > 30 and len(codes) >= 9, "docs/cli.md: keys table or warning codes not found")

    # Text output.
    r = run()
    if check(r.returncode == 0, f"info: exit {r.returncode}, stderr {r.stderr!r}"):
        check(r.stderr == "", f"info: unexpected stderr {r.stderr!r}")
        check(r.stdout.startswith("kbench "), "info: first line is not 'kbench VERSION'")
        for section in SECTIONS:
            check(re.search(rf"^{section}$", r.stdout, flags=re.M), f"info: no '{section}' section")
        for label in ["compiler", "flags", "build type", "os", "kernel", "vendor", "model",
                      "logical cpus", "physical cores", "nominal clock", "measured clock",
                      "instruction sets", "compiled", "available", "selected", "usable cores"]:
            check(text_value(r.stdout, label) is not None, f"info: no '{label}' line")
        for level in CACHE_LEVELS:
            check(text_value(r.stdout, f"{level} cache") is not None, f"info: no {level} cache")
    text = r.stdout

    # JSON output: every documented key, with its documented type.
    r = run("--json")
    info = None
    if check(r.returncode == 0, f"info --json: exit {r.returncode}, stderr {r.stderr!r}"):
        try:
            info = json.loads(r.stdout)
        except json.JSONDecodeError as e:
            check(False, f"info --json: not JSON: {e}")
    if info is not None:
        check_documented(info, keys, "info --json")
        check_shortest_reals(r.stdout, "info --json")
        for w in info.get("warnings", []):
            check(w.get("code") in codes, f"info --json: undocumented warning code {w.get('code')}")
        check(info["cpu"]["logical_cpus"] >= 1, "info --json: logical_cpus < 1")
        check(info["simd"]["selected"] in info["simd"]["available"],
              "info --json: selected level not available")
        check(text_value(text, "selected") == info["simd"]["selected"],
              "info: text and JSON disagree on the selected level")
        check(set(info["simd"]["available"]) <= set(info["simd"]["compiled"]),
              "info --json: a level is available but not compiled")
        measured = info["clock"]["measured_mhz"]
        if measured is not None:
            check(info["clock"]["measured_repetitions"] > 0, "info --json: measured, 0 repetitions")
            check(info["clock"]["measured_min_mhz"] <= measured <= info["clock"]["measured_max_mhz"],
                  "info --json: measured clock outside its own range")

    # OMP_PROC_BIND binds the main thread to one place at start-up; the usable cores are
    # still all of them, and kbench info says what bounds them.
    if info is not None:
        r = run("--json", env={"OMP_PROC_BIND": "true"})
        if check(r.returncode == 0, f"OMP_PROC_BIND=true: exit {r.returncode} {r.stderr!r}"):
            bound = json.loads(r.stdout)["threads"]
            check(bound["usable_cores"] == info["threads"]["usable_cores"],
                  f"OMP_PROC_BIND=true: {bound['usable_cores']} usable cores, not "
                  f"{info['threads']['usable_cores']}")
            check("OMP_PROC_BIND" in bound["bound_by"] or bound["usable_cores"] == 1,
                  f"OMP_PROC_BIND=true: bound by {bound['bound_by']!r}")
        r = run(env={"OMP_PROC_BIND": "true"})
        check(text_value(r.stdout, "usable cores") == str(info["threads"]["usable_cores"])
              and text_value(r.stdout, "bound by"), "OMP_PROC_BIND=true: text usable cores")

    # Settings.
    r = run(env={"KB_SIMD": "scalar"})
    check(r.returncode == 0 and text_value(r.stdout, "selected") == "scalar",
          f"KB_SIMD=scalar: exit {r.returncode}, selected {text_value(r.stdout, 'selected')!r}")
    r = run("--json", env={"KB_SIMD": "scalar"})
    check(r.returncode == 0 and json.loads(r.stdout)["simd"]["selected"] == "scalar",
          "KB_SIMD=scalar --json: selected is not scalar")

    foreign = "avx2" if platform.machine().lower() in ("aarch64", "arm64") else "neon"
    for value in ["bogus", foreign]:
        for args in [(), ("--json",)]:
            r = run(*args, env={"KB_SIMD": value})
            check(r.returncode == 1, f"KB_SIMD={value} {args}: exit {r.returncode}, not 1")
            check(len(r.stderr.splitlines()) == 1 and "KB_SIMD" in r.stderr,
                  f"KB_SIMD={value} {args}: stderr is not one line naming KB_SIMD: {r.stderr!r}")
            check(r.stdout == "", f"KB_SIMD={value} {args}: printed to stdout")

    r = run(env={"KB_NUM_THREADS": "3"})
    check(r.returncode == 0 and text_value(r.stdout, "threads") == "3",
          f"KB_NUM_THREADS=3: exit {r.returncode}, threads {text_value(r.stdout, 'threads')!r}")
    r = run("--json", env={"KB_NUM_THREADS": "3"})
    check(r.returncode == 0 and json.loads(r.stdout)["threads"]["count"] == 3,
          "KB_NUM_THREADS=3 --json: threads.count is not 3")
    r = run(env={"KB_NUM_THREADS": "zero"})
    check(r.returncode == 1 and len(r.stderr.splitlines()) == 1,
          f"KB_NUM_THREADS=zero: exit {r.returncode}, stderr {r.stderr!r}")

    # Usage.
    r = run("--bogus")
    check(r.returncode == 2 and "--bogus" in r.stderr and r.stdout == "",
          f"info --bogus: exit {r.returncode}, stderr {r.stderr!r}")
    r = run("extra")
    check(r.returncode == 2, f"info extra: exit {r.returncode}, not 2")
    r = run("--help")
    check(r.returncode == 0 and "usage: kbench info" in r.stdout,
          f"info --help: exit {r.returncode}, stdout {r.stdout[:80]!r}")

    return finish("info")


if __name__ == "__main__":
    sys.exit(main())
