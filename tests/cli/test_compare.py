"""End-to-end checks of `kbench compare`: a tiny `kbench run` gives a results file, and copies
of it edited by hand (samples scaled by a known factor, cases removed, renamed or failed, the
machine changed, a load warning added) give every verdict; formats (JSON parses, markdown has its tables, no colour
off a terminal), --fail-on-regression, --filter, --threshold, exit status 2 with one line on
stderr for bad input, and the Google Benchmark fixtures in tests/cli/data. Timings are never
checked: the edits are far beyond any noise.

Usage: python3 test_compare.py path/to/kbench"""

import copy
import json
import os
import sys
import tempfile
from pathlib import Path

from harness import check, check_shortest_reals, finish, kbench, scaled

DATA = Path(__file__).resolve().parent / "data"
TINY = "^reduce/sum/f32/64x64/axis=None/simd=scalar/"  # two cases of a few microseconds


def save(path, results):
    results["summary"]["cases"] = len(results["cases"])
    results["summary"]["failed"] = sum(c["status"] == "failed" for c in results["cases"])
    Path(path).write_text(json.dumps(results))


def verdicts(result):
    return {c["name"]: c["verdict"] for c in json.loads(result.stdout)["cases"]}


def one_line_error(result, label, fragment):
    lines = result.stderr.strip().splitlines()
    check(result.returncode == 2, f"{label}: exit {result.returncode}, expected 2")
    check(len(lines) >= 1 and fragment in lines[0], f"{label}: stderr {result.stderr!r}")
    check(result.stdout == "", f"{label}: stdout {result.stdout!r}")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        base_path = os.path.join(tmp, "base.json")
        # Without the roofline: no peaks to measure, and nothing to flag.
        r = kbench("run", "reduce", "--filter", TINY, "--min-time", "0.01", "--no-roofline", "-q",
                   "-o", base_path)
        if not check(r.returncode == 0 and os.path.exists(base_path),
                     f"kbench run exited {r.returncode}: {r.stderr}"):
            return
        base = json.loads(Path(base_path).read_text())
        if not check(all(c["status"] == "ok" for c in base["cases"]), "the tiny run's cases ran"):
            return
        names = [c["name"] for c in base["cases"]]
        check(len(names) == 2, f"the tiny selection has {names}")
        slow, fast = names

        # A against itself: nothing changed, and the gate passes.
        r = kbench("compare", base_path, base_path, "--format", "json", "--fail-on-regression")
        check(r.returncode == 0, f"A/A exit {r.returncode}: {r.stderr}")
        check(set(verdicts(r).values()) == {"unchanged"}, f"A/A verdicts {verdicts(r)}")
        doc = json.loads(r.stdout)
        check(all(c["ratio"] == 1 and c["p_value"] == 1 for c in doc["cases"]),
              "A/A: ratio and p of 1")
        check(doc["settings"]["threshold"] == 0.05 and doc["settings"]["alpha"] == 0.01,
              f"defaults {doc['settings']}")
        # Issue 12: 0.05, not jansson's 0.050000000000000003.
        check_shortest_reals(r.stdout, "compare --format json")
        check('"threshold": 0.05,' in r.stdout, "compare JSON: threshold not written as 0.05")

        # One case 30% slower, the other 30% faster.
        head = copy.deepcopy(base)
        scaled(head["cases"][0], 1.3)
        scaled(head["cases"][1], 1 / 1.3)
        head_path = os.path.join(tmp, "new.json")
        save(head_path, head)
        r = kbench("compare", base_path, head_path, "--format", "json")
        check(r.returncode == 0, f"without --fail-on-regression exit {r.returncode}")
        check(verdicts(r) == {slow: "regressed", fast: "improved"}, f"verdicts {verdicts(r)}")
        doc = json.loads(r.stdout)
        by_name = {c["name"]: c for c in doc["cases"]}
        c = by_name[slow]
        check(abs(c["ratio"] - 1.3) < 0.01 and c["ratio_low"] <= c["ratio"] <= c["ratio_high"],
              f"ratio {c['ratio']} in [{c['ratio_low']}, {c['ratio_high']}]")
        check(c["test"] == "mann-whitney" and c["p_value"] < 1e-6, f"test {c['test']} p {c['p_value']}")
        check(c["base"]["n"] == by_name[slow]["new"]["n"] > 10, "sample counts")
        check(doc["summary"]["verdicts"]["regressed"] == 1 and
              doc["summary"]["verdicts"]["improved"] == 1, f"summary {doc['summary']}")
        check(abs(doc["summary"]["overall"]["geomean"] - 1) < 0.01, "geomean of 1.3 and 1/1.3")
        check([o["op"] for o in doc["summary"]["ops"]] == ["sum"], f"ops {doc['summary']['ops']}")

        r = kbench("compare", base_path, head_path, "--fail-on-regression")
        check(r.returncode == 1, f"--fail-on-regression exit {r.returncode}")
        check("1 case regressed" in r.stderr, f"stderr {r.stderr!r}")
        check("\033[" not in r.stdout, "colour off a terminal")
        header = r.stdout.splitlines()
        check(any(line.split()[:3] == ["case", "base", "new"] for line in header),
              f"table header in {r.stdout!r}")
        check("summary: 1 regressed, 1 improved" in r.stdout, f"summary line in {r.stdout!r}")

        # A threshold above the change: unchanged; a filter: one case.
        r = kbench("compare", base_path, head_path, "--format", "json", "--threshold", "40%")
        check(set(verdicts(r).values()) == {"unchanged"}, f"--threshold 40% {verdicts(r)}")
        r = kbench("compare", base_path, head_path, "--format", "json", "--filter", "threads=1$")
        check(list(verdicts(r)) == [slow], f"--filter {verdicts(r)}")
        r = kbench("compare", base_path, head_path, "-f", "-threads=1$", "--format", "json")
        check(list(verdicts(r)) == [fast], f"excluding filter {verdicts(r)}")
        one_line_error(kbench("compare", base_path, head_path, "--filter", "nothing-matches"),
                       "empty filter", "select no case")
        one_line_error(kbench("compare", base_path, head_path, "--filter", "("), "bad regex",
                       "bad filter")

        # A verdict never contradicts its own interval. The new times are all below the old
        # ones rank for rank (the rank test is significant), the medians 6% apart, but each
        # side's samples split evenly between two modes, so the bootstrap interval of the
        # ratio of medians holds 1: noisy, not improved.
        modal = copy.deepcopy(base)
        modal["cases"] = [modal["cases"][0]]
        modal_new = copy.deepcopy(modal)
        for results, low in ((modal, 100000), (modal_new, 94000)):
            case = results["cases"][0]
            samples = [low] * 50 + [2 * low] * 50
            case["calls_per_sample"] = 1
            case["samples_ns"] = [samples]
            st = case["statistics"]
            st.update(n=100, median_ns=1.5 * low, mean_ns=1.5 * low, min_ns=low, max_ns=2 * low,
                      q1_ns=low, q3_ns=2 * low, ci_low_ns=low, ci_high_ns=2 * low)
        modal_path = os.path.join(tmp, "modal.json")
        modal_new_path = os.path.join(tmp, "modal_new.json")
        save(modal_path, modal)
        save(modal_new_path, modal_new)
        r = kbench("compare", modal_path, modal_new_path, "--format", "json")
        doc = json.loads(r.stdout) if r.returncode == 0 else {"cases": [{}]}
        c = doc["cases"][0]
        check(r.returncode == 0 and c.get("p_value", 1) < 0.01 and c.get("ratio", 1) < 1 / 1.05
              and c.get("ratio_high", 0) >= 1 and c.get("verdict") == "noisy",
              f"an interval holding 1 gives noisy: {r.returncode} {c} {r.stderr!r}")

        # Markdown and JSON files through -o, markdown on stdout.
        md_path, json_path = os.path.join(tmp, "c.md"), os.path.join(tmp, "c.json")
        r = kbench("compare", base_path, head_path, "--format", "markdown", "-o", md_path,
                   "-o", json_path)
        check(r.returncode == 0, f"-o exit {r.returncode}: {r.stderr}")
        md = Path(md_path).read_text()
        check(md == r.stdout, "the markdown file is what stdout shows")
        check("| case | base | new | ratio | 95% CI | p | verdict |" in md and "|---|" in md,
              "markdown case table")
        check("| op | cases | geometric mean | verdicts |" in md, "markdown op table")
        check(f"| `{slow}` |" in md and "**regressed**" in md, "markdown rows")
        check(json.loads(Path(json_path).read_text())["schema"] == "kbench-compare", "JSON file")

        # Missing, new and failed cases.
        edited = copy.deepcopy(base)
        renamed = edited["cases"][1]
        renamed["name"] = renamed["name"].replace("threads=2", "threads=3")
        renamed["params"]["threads"] = renamed["implementation"]["threads"] = "3"
        failed = copy.deepcopy(edited["cases"][0])
        edited["cases"][0].update(status="failed", error="setup: out of memory")
        for key in ("statistics", "rates", "roofline"):  # null for a failed case
            if key in edited["cases"][0]:
                edited["cases"][0][key] = None
        edited_path = os.path.join(tmp, "edited.json")
        save(edited_path, edited)
        r = kbench("compare", base_path, edited_path, "--format", "json", "--fail-on-regression")
        check(r.returncode == 0, f"failed/new/missing exit {r.returncode}")
        v = verdicts(r)
        check(v == {slow: "failed", fast: "missing", renamed["name"]: "new"}, f"verdicts {v}")
        doc = json.loads(r.stdout)
        check("new: setup: out of memory" in doc["cases"][0]["error"], f"error {doc['cases'][0]}")
        check(doc["cases"][1]["new"] is None and doc["cases"][1]["ratio"] is None,
              "a missing case has no new side")
        del failed

        # Too few samples for the test: three per side, far apart, decided by the intervals.
        few = copy.deepcopy(base)
        few["cases"] = few["cases"][:1]
        few["cases"][0]["samples_ns"] = [[1000, 1010, 1020]]
        few["cases"][0]["calls_per_sample"] = 1
        few["cases"][0]["statistics"].update(n=3, min_ns=1000, ci_low_ns=1000, median_ns=1010,
                                             ci_high_ns=1020, max_ns=1020)
        few_head = copy.deepcopy(few)
        few_head["cases"][0]["samples_ns"] = [[2000, 2010, 2020]]
        few_path, few_head_path = os.path.join(tmp, "few.json"), os.path.join(tmp, "few2.json")
        save(few_path, few)
        save(few_head_path, few_head)
        r = kbench("compare", few_path, few_head_path, "--format", "json")
        c = json.loads(r.stdout)["cases"][0]
        check(c["verdict"] == "regressed" and c["test"] == "ci-overlap" and c["p_min"] > 0.01,
              f"three samples: {c}")
        r = kbench("compare", few_path, few_head_path)
        check("regressed*" in r.stdout and "confidence intervals" in r.stdout,
              f"fallback marked in the table: {r.stdout!r}")

        # Another machine: refused, then allowed and said so.
        other = copy.deepcopy(base)
        other["context"]["cpu"]["model"] = "Some Other CPU"
        other_path = os.path.join(tmp, "other.json")
        save(other_path, other)
        r = kbench("compare", base_path, other_path)
        one_line_error(r, "different machine", "different machines or builds")
        check("CPU model" in r.stderr and "--allow-different-machines" in r.stderr,
              f"names the difference and the option: {r.stderr!r}")
        r = kbench("compare", base_path, other_path, "--allow-different-machines", "--format",
                   "json")
        doc = json.loads(r.stdout)
        check(r.returncode == 0 and doc["different_machines"] and
              doc["differences"][0]["what"] == "CPU model", f"allowed: {doc['differences']}")
        r = kbench("compare", base_path, other_path, "--allow-different-machines")
        check("different machines" in r.stdout and "different machines" not in r.stderr,
              f"the table says the machines differ, once: {r.stderr!r}")
        r = kbench("compare", base_path, other_path, "--allow-different-machines", "--format", "md")
        check("different machines" in r.stdout, "the markdown says the machines differ")

        # A side measured under load: a warning on stderr, a note in every format.
        quiet = copy.deepcopy(base)
        quiet["context"]["environment_warnings"] = [
            w for w in quiet["context"]["environment_warnings"] if w["code"] != "load"]
        loaded = copy.deepcopy(quiet)
        loaded["context"]["environment_warnings"].append(
            {"code": "load", "message": "1-minute load average 5.25 is above half of the 2 usable cores"})
        check(set(base["context"]["load"]) == {"average_1min", "usable_cores"},
              f"a run records its load: {base['context']['load']}")
        loaded["context"]["load"] = {"average_1min": 5.25, "usable_cores": 2}
        quiet_path, loaded_path = os.path.join(tmp, "quiet.json"), os.path.join(tmp, "loaded.json")
        save(quiet_path, quiet)
        save(loaded_path, loaded)
        note = (f"{loaded_path} was measured under load (1-minute load average 5.25 on 2 cores): "
                "timings shift between runs and regressions may be false alarms")
        r = kbench("compare", loaded_path, quiet_path, "--format", "json")
        doc = json.loads(r.stdout)
        check(r.returncode == 0 and f"kbench compare: warning: {note}" in r.stderr.splitlines(),
              f"load warning on stderr: {r.returncode} {r.stderr!r}")
        check(doc["under_load"] == [{"side": "base", "load": True, "load_average": 5.25,
                                     "cores": 2,
                                     "message": loaded["context"]["environment_warnings"][-1]["message"],
                                     "bandwidth_changed": None,
                                     "note": note}], f"under_load in JSON: {doc['under_load']}")
        r = kbench("compare", quiet_path, loaded_path, "--format", "markdown")
        check(f"- **warning**: {note}" in r.stdout.splitlines(), f"load note in markdown: {r.stdout!r}")
        r = kbench("compare", quiet_path, loaded_path)
        check(f"warning: {note}" in r.stdout and note not in r.stderr,
              f"load note in the table, printed once: {r.stderr!r}")
        r = kbench("compare", quiet_path, quiet_path, "--format", "json")
        check(json.loads(r.stdout)["under_load"] == [] and "under load" not in r.stderr,
              f"no load, no note: {r.stderr!r}")
        # A file under load compared with itself: its note once.
        r = kbench("compare", loaded_path, loaded_path)
        check(r.stdout.count("was measured under load") == 1,
              f"one note for a file compared with itself: {r.stdout!r}")
        # A file written before kbench recorded the load's numbers: the message itself.
        loaded["context"]["environment_warnings"][-1]["message"] = "busy"
        del loaded["context"]["load"]
        save(loaded_path, loaded)
        r = kbench("compare", quiet_path, loaded_path, "--format", "json")
        doc = json.loads(r.stdout)
        check(doc["under_load"][0]["side"] == "new" and doc["under_load"][0]["cores"] is None and
              f"{loaded_path} was measured under load (busy): " in r.stderr,
              f"load without numbers: {doc['under_load']} {r.stderr!r}")

        # A run whose bandwidth probes disagree is treated like a run under load.
        changed = copy.deepcopy(quiet)
        message = "load DRAM bandwidth at 2 threads went from 41.0 to 78.0 GB/s during the run (+90%)"
        changed["context"]["environment_warnings"].append(
            {"code": "bandwidth_changed", "message": message})
        changed_path = os.path.join(tmp, "changed.json")
        save(changed_path, changed)
        note = (f"{changed_path}'s memory bandwidth changed during the run ({message}): "
                "timings shift between runs and regressions may be false alarms")
        r = kbench("compare", quiet_path, changed_path, "--format", "json")
        doc = json.loads(r.stdout)
        check(r.returncode == 0 and f"kbench compare: warning: {note}" in r.stderr.splitlines(),
              f"bandwidth_changed on stderr: {r.returncode} {r.stderr!r}")
        check(doc["under_load"] == [{"side": "new", "load": False, "load_average": None,
                                     "cores": None, "message": None,
                                     "bandwidth_changed": message, "note": note}],
              f"bandwidth_changed in JSON: {doc['under_load']}")
        r = kbench("compare", changed_path, quiet_path, "--format", "markdown")
        check(f"- **warning**: {note}" in r.stdout.splitlines(),
              f"bandwidth_changed in markdown: {r.stdout!r}")
        r = kbench("compare", changed_path, quiet_path)
        check(f"warning: {note}" in r.stdout and note not in r.stderr,
              f"bandwidth_changed in the table, printed once: {r.stderr!r}")

        # Bad input: one line on stderr, exit 2.
        one_line_error(kbench("compare", base_path, os.path.join(tmp, "absent.json")), "missing",
                       "absent.json")
        text_path = os.path.join(tmp, "text.json")
        Path(text_path).write_text("not json at all\n")
        one_line_error(kbench("compare", text_path, base_path), "not JSON", "not valid JSON")
        schema_path = os.path.join(tmp, "schema.json")
        Path(schema_path).write_text('{"schema": "something-else"}')
        one_line_error(kbench("compare", base_path, schema_path), "wrong schema",
                       "not a kbench results file")
        broken = copy.deepcopy(base)
        broken["cases"][0]["samples_ns"] = "many"
        broken_path = os.path.join(tmp, "broken.json")
        save(broken_path, broken)
        one_line_error(kbench("compare", base_path, broken_path), "wrong type", "samples_ns")
        one_line_error(kbench("compare", base_path), "one file", "expected two files")
        one_line_error(kbench("compare", base_path, base_path, "--alpha", "2"), "alpha", "--alpha")
        one_line_error(kbench("compare", base_path, base_path, "--threshold", "x"), "threshold",
                       "--threshold")
        # A bare number of 1 or more would be a change of 100% or more: refused, not read so.
        for bare in ("5", "1", "1.5"):
            one_line_error(kbench("compare", base_path, base_path, "--threshold", bare),
                           f"threshold {bare}", "500%")
        r = kbench("compare", base_path, base_path, "--threshold", "500%", "--format", "json")
        check(r.returncode == 0 and json.loads(r.stdout)["settings"]["threshold"] == 5,
              f"--threshold 500% is allowed: {r.returncode} {r.stderr!r}")
        one_line_error(kbench("compare", base_path, base_path, "--format", "csv"), "csv",
                       "--format")
        one_line_error(kbench("compare", base_path, base_path, "--bogus"), "option", "--bogus")

        # Google Benchmark output: BM_sum does 30% more work in the new file.
        gb_base, gb_new = str(DATA / "gbench_base.json"), str(DATA / "gbench_new.json")
        r = kbench("compare", gb_base, gb_new, "--format", "json")
        check(r.returncode == 0, f"gbench exit {r.returncode}: {r.stderr}")
        doc = json.loads(r.stdout)
        check(doc["format"] == "google-benchmark", f"format {doc['format']}")
        v = verdicts(r)
        check(v.get("BM_sum/1024") == "regressed" and v.get("BM_sum/16384") == "regressed",
              f"gbench verdicts {v}")
        check(sorted(v) == ["BM_copy/4096", "BM_sum/1024", "BM_sum/16384"], "aggregates skipped")
        check(all(c["base"]["n"] == 10 for c in doc["cases"]), "ten repetitions per benchmark")
        gb = json.loads(Path(gb_base).read_text())
        reps = [b["real_time"] for b in gb["benchmarks"]
                if b["run_name"] == "BM_copy/4096" and b["run_type"] == "iteration"]
        med = sorted(reps)[4:6]
        check(abs(doc["cases"][2]["base"]["median_ns"] - 1000 * sum(med) / 2) < 1e-6,
              "microseconds converted to nanoseconds")
        r = kbench("compare", gb_base, gb_new, "--fail-on-regression", "--filter", "BM_sum")
        check(r.returncode == 1, f"gbench gate exit {r.returncode}")
        one_line_error(kbench("compare", base_path, gb_new), "mixed kinds", "like with like")
        gb_bad = copy.deepcopy(gb)
        gb_bad["benchmarks"][0]["time_unit"] = "fortnights"
        gb_bad_path = os.path.join(tmp, "gb_bad.json")
        Path(gb_bad_path).write_text(json.dumps(gb_bad))
        one_line_error(kbench("compare", gb_bad_path, gb_new), "gbench unit", "time_unit")
        gb_err = copy.deepcopy(gb)
        gb_err["benchmarks"][0].update(error_occurred=True, error_message="boom")
        gb_err_path = os.path.join(tmp, "gb_err.json")
        Path(gb_err_path).write_text(json.dumps(gb_err))
        r = kbench("compare", gb_err_path, gb_new, "--format", "json")
        check(verdicts(r).get("BM_sum/1024") == "failed", f"gbench error: {verdicts(r)}")

        r = kbench("compare", "--help")
        check(r.returncode == 0 and "--fail-on-regression" in r.stdout, "help")
        check("compare" in kbench("--help").stdout, "listed by kbench --help")


main()
sys.exit(finish("compare"))
