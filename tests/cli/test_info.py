"""End-to-end checks of `kbench info`: text and JSON output, every key documented in
docs/cli.md present with its documented type, and the KB_SIMD / KB_NUM_THREADS settings.

Usage: python3 test_info.py path/to/kbench
"""

import json
import os
import platform
import re
import subprocess
import sys
from pathlib import Path

from doc_types import type_ok

DOCS = Path(__file__).resolve().parents[2] / "docs" / "cli.md"
CACHE_LEVELS = ["L1d", "L1i", "L2", "L3"]
SECTIONS = ["build", "system", "cpu", "simd", "threads", "warnings"]

failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
    return condition


def run(kbench, *args, env=None):
    full_env = {k: v for k, v in os.environ.items() if k not in ("KB_SIMD", "KB_NUM_THREADS")}
    full_env.update(env or {})
    return subprocess.run(
        [kbench, "info", *args], env=full_env, capture_output=True, text=True, timeout=60
    )


def documented():
    """The keys table and the warning codes of the `kbench info` section of docs/cli.md."""
    text = DOCS.read_text()
    section = text.split("## `kbench info`", 1)[1]
    section = re.split(r"\n## ", section, maxsplit=1)[0]
    keys_part, codes_part = section.split("Warning codes:", 1)
    keys = []
    for line in keys_part.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 3 or not cells[0].startswith("`"):
            continue
        for key in re.findall(r"`([^`]+)`", cells[0]):
            keys.append((key, cells[1]))
    codes = re.findall(r"^\| `([a-z_]+)` \|", codes_part, flags=re.M)
    return keys, codes


def lookup(obj, path):
    """Values at a dotted path; `*` fans out over the cache levels, `[]` over array items."""
    values = [obj]
    for part in path.split("."):
        nxt = []
        for v in values:
            if part == "*":
                nxt.extend(v[level] for level in CACHE_LEVELS if level in v)
                continue
            name = part[:-2] if part.endswith("[]") else part
            if not isinstance(v, dict) or name not in v:
                raise KeyError(path)
            item = v[name]
            nxt.extend(item if part.endswith("[]") else [item])
        values = nxt
    return values


def text_value(stdout, label):
    """The value of an aligned `  label   value` line, or None."""
    m = re.search(r"^  " + re.escape(label) + r" {2,}(.*)$", stdout, flags=re.M)
    return m.group(1).strip() if m else None


def main():
    kbench = sys.argv[1]
    keys, codes = documented()
    check(len(keys) > 30 and len(codes) >= 9, "docs/cli.md: keys table or warning codes not found")

    # Text output.
    r = run(kbench)
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
    r = run(kbench, "--json")
    info = None
    if check(r.returncode == 0, f"info --json: exit {r.returncode}, stderr {r.stderr!r}"):
        try:
            info = json.loads(r.stdout)
        except json.JSONDecodeError as e:
            check(False, f"info --json: not JSON: {e}")
    if info is not None:
        for key, doc_type in keys:
            try:
                values = lookup(info, key)
            except KeyError:
                check(False, f"info --json: documented key {key} missing")
                continue
            for v in values:
                check(type_ok(v, doc_type), f"info --json: {key} = {v!r} is not {doc_type}")
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
        r = run(kbench, "--json", env={"OMP_PROC_BIND": "true"})
        if check(r.returncode == 0, f"OMP_PROC_BIND=true: exit {r.returncode} {r.stderr!r}"):
            bound = json.loads(r.stdout)["threads"]
            check(bound["usable_cores"] == info["threads"]["usable_cores"],
                  f"OMP_PROC_BIND=true: {bound['usable_cores']} usable cores, not "
                  f"{info['threads']['usable_cores']}")
            check("OMP_PROC_BIND" in bound["bound_by"] or bound["usable_cores"] == 1,
                  f"OMP_PROC_BIND=true: bound by {bound['bound_by']!r}")
        r = run(kbench, env={"OMP_PROC_BIND": "true"})
        check(text_value(r.stdout, "usable cores") == str(info["threads"]["usable_cores"])
              and text_value(r.stdout, "bound by"), "OMP_PROC_BIND=true: text usable cores")

    # Settings.
    r = run(kbench, env={"KB_SIMD": "scalar"})
    check(r.returncode == 0 and text_value(r.stdout, "selected") == "scalar",
          f"KB_SIMD=scalar: exit {r.returncode}, selected {text_value(r.stdout, 'selected')!r}")
    r = run(kbench, "--json", env={"KB_SIMD": "scalar"})
    check(r.returncode == 0 and json.loads(r.stdout)["simd"]["selected"] == "scalar",
          "KB_SIMD=scalar --json: selected is not scalar")

    foreign = "avx2" if platform.machine().lower() in ("aarch64", "arm64") else "neon"
    for value in ["bogus", foreign]:
        for args in [(), ("--json",)]:
            r = run(kbench, *args, env={"KB_SIMD": value})
            check(r.returncode == 1, f"KB_SIMD={value} {args}: exit {r.returncode}, not 1")
            check(len(r.stderr.splitlines()) == 1 and "KB_SIMD" in r.stderr,
                  f"KB_SIMD={value} {args}: stderr is not one line naming KB_SIMD: {r.stderr!r}")
            check(r.stdout == "", f"KB_SIMD={value} {args}: printed to stdout")

    r = run(kbench, env={"KB_NUM_THREADS": "3"})
    check(r.returncode == 0 and text_value(r.stdout, "threads") == "3",
          f"KB_NUM_THREADS=3: exit {r.returncode}, threads {text_value(r.stdout, 'threads')!r}")
    r = run(kbench, "--json", env={"KB_NUM_THREADS": "3"})
    check(r.returncode == 0 and json.loads(r.stdout)["threads"]["count"] == 3,
          "KB_NUM_THREADS=3 --json: threads.count is not 3")
    r = run(kbench, env={"KB_NUM_THREADS": "zero"})
    check(r.returncode == 1 and len(r.stderr.splitlines()) == 1,
          f"KB_NUM_THREADS=zero: exit {r.returncode}, stderr {r.stderr!r}")

    # Usage.
    r = run(kbench, "--bogus")
    check(r.returncode == 2 and "--bogus" in r.stderr and r.stdout == "",
          f"info --bogus: exit {r.returncode}, stderr {r.stderr!r}")
    r = run(kbench, "extra")
    check(r.returncode == 2, f"info extra: exit {r.returncode}, not 2")
    r = run(kbench, "--help")
    check(r.returncode == 0 and "usage: kbench info" in r.stdout,
          f"info --help: exit {r.returncode}, stdout {r.stdout[:80]!r}")

    for f in failures:
        print("FAIL:", f)
    print(f"test_info: {len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
