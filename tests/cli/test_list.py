"""End-to-end checks of `kbench list --format json` (issue 12, polish): for several
selections, the JSON array names the cases the plain list prints, in its order; each case has
the keys the `kbench list` section of docs/cli.md documents, with the types it gives, its
parameters are those its name is made of, and its name, group, params and implementation are
what a results file gives the same case; table, csv and markdown print the plain list; a bad
--format is bad usage (exit 2) with one line saying why, then the hint to try --help.

Usage: python3 test_list.py path/to/kbench"""

import json
import sys

from harness import (check, check_documented, check_shortest_reals, doc_section, finish, kbench,
                     key_table)

KEYS = key_table(doc_section("cli.md", "list"))
ONE = "^reduce/sum/f32/64x64/axis=None/simd=scalar/threads=1$"
SELECTIONS = [
    [],
    ["selftest"],
    ["reduce", "--filter", "/sum/", "--filter", "-threads=1$"],
    ["mean_axis0", "--shard", "2/3"],
    ["quick", "selftest", "--filter", "64x64|empty"],
]


def check_case(case, label):
    """Its parameters are the parts of its name after the first, as `value` or `name=value`;
    its implementation is the parameters its group leaves out."""
    check_documented(case, KEYS, label)
    parts = case["name"].split("/")
    params = case["params"]
    named = parts[len(parts) - len(params):]
    check(all(part in (v, f"{k}={v}") for part, (k, v) in zip(named, params.items())),
          f"{label}: params {params} are not those of its name")
    impl = case["implementation"]
    check(impl == {k: v for k, v in params.items() if k in impl}, f"{label}: implementation")
    group = [p for p in parts if p.split("=")[0] not in impl]
    check(case["group"] == "/".join(group), f"{label}: group {case['group']}")
    check(case["cost"] > 0, f"{label}: cost {case['cost']}")


def parse(text, label):
    """The JSON document text holds; None, failing, when it holds none."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        check(False, f"{label}: not JSON: {e}: {text[:80]!r}")
        return None


def selections():
    for selection in SELECTIONS:
        label = " ".join(["list", *selection])
        plain = kbench("list", *selection)
        r = kbench("list", *selection, "--format", "json")
        if not check(plain.returncode == 0 and r.returncode == 0 and r.stderr == "",
                     f"{label}: exit {plain.returncode} / {r.returncode}, {r.stderr!r}"):
            continue
        cases = parse(r.stdout, label + " --format json")
        names = plain.stdout.splitlines()
        if not check(isinstance(cases, list) and [c.get("name") for c in cases] == names,
                     f"{label} --format json: not the names of the plain list, in its order"):
            continue
        check(r.stdout.count("\n") == len(cases) + 2, f"{label}: not one line per case")
        check_shortest_reals(r.stdout, label + " --format json")
        for c in cases:
            check_case(c, f"{label}: {c['name']}")
        for fmt in ("table", "csv", "markdown"):
            other = kbench("list", *selection, "--format", fmt)
            check(other.returncode == 0 and other.stdout == plain.stdout,
                  f"{label} --format {fmt}: not the plain list")


def like_results():
    """A case's keys and values are those of the results file of a run of it."""
    listed = kbench("list", "reduce", "--filter", ONE, "--format", "json")
    run = kbench("run", "reduce", "--filter", ONE, "--min-time", "0.001", "--no-roofline", "-q",
                 "--format", "json")
    if not check(listed.returncode == 0 and run.returncode == 0,
                 f"list/run of one case: exit {listed.returncode}/{run.returncode}: {run.stderr}"):
        return
    listed, run = parse(listed.stdout, "list of one case"), parse(run.stdout, "run of one case")
    if not check(isinstance(listed, list) and len(listed) == 1 and run and len(run["cases"]) == 1,
                 "one case listed and run"):
        return
    case, result = listed[0], run["cases"][0]
    for key in ("name", "group", "params", "implementation"):
        check(case[key] == result[key], f"{key}: listed {case[key]!r}, results {result[key]!r}")


def usage():
    r = kbench("list", "selftest", "--format", "json", "--shard", "2/2", "--filter", "empty")
    check(r.returncode == 0 and r.stdout == "[]\n", f"empty shard: {r.returncode} {r.stdout!r}")
    for args, message in [(["--format", "xml"],
                           "kbench list: unknown format 'xml' (expected table, csv, markdown or "
                           "json)"),
                          (["--format"], "kbench list: option '--format' needs a value")]:
        r = kbench("list", *args)
        hint = "Try 'kbench list --help'."
        check(r.returncode == 2 and r.stdout == "" and r.stderr.splitlines() == [message, hint],
              f"list {' '.join(args)}: exit {r.returncode}, stderr {r.stderr!r}")
    r = kbench("list", "--help")
    check(r.returncode == 0 and "--format F" in r.stdout and "json" in r.stdout,
          f"list --help does not offer --format json: {r.stdout}")


def main():
    check(["name", "group", "params", "implementation", "cost"] == [k for k, _ in KEYS],
          f"documented keys {KEYS}")
    selections()
    like_results()
    usage()
    return finish("list")


if __name__ == "__main__":
    sys.exit(main())
