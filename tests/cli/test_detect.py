"""End-to-end checks of `kbench detect --input`: series made here with known steps give known
change points in JSON (parsed and checked key by key), markdown (the alert, with links to the
commits) and the table; --filter, --last, --since, --repo-url; exit statuses (1 with
--fail-on-regression only when something regressed, 2 with one line on stderr for bad usage
and bad input). And a real regression: 30 runs of a tiny case, the last 10 with
KB_TEST_SLOWDOWN=2 (the float32 sum done twice per call), in which detect must name run 21
and nothing else.

Usage: python3 test_detect.py path/to/kbench"""

import json
import math
import os
import random
import sys
import tempfile
from pathlib import Path

from harness import check, check_shortest_reals, finish, kbench

REPO = "https://example.org/kbench"
SLOW = "reduce/sum/f32/1024x1024/axis=0/simd=auto/threads=1"
FLAT = "reduce/max/f64/64x64/axis=None/simd=auto/threads=1"
FAST = "reduce/mean/f32/8/axis=None/simd=auto/threads=1"
TINY = "reduce/sum/f32/64x64/axis=None/simd=scalar/threads=1"


def commit(i):
    return f"{i:040x}"


def series(name, n, step_at=None, factor=1.0, seed=0):
    """n points around 100 us, multiplied by factor from point step_at on, log-normal noise of
    0.5%; point i is on day i + 1 of January 2026 with commit(i)."""
    rng = random.Random(seed)
    points = []
    for i in range(n):
        level = 1e5 * (factor if step_at is not None and i >= step_at else 1)
        m = level * math.exp(rng.gauss(0, 0.005))
        points.append({"commit": commit(i), "time": f"2026-01-{i % 31 + 1:02d}T03:00:00Z"
                       if i < 31 else f"2026-02-{i - 30:02d}T03:00:00Z",
                       "median": m, "ci_low": m * 0.99, "ci_high": m * 1.01})
    return {"case": name, "machine": "ci-1", "points": points}


def one_line_error(result, label, fragment, status=2):
    lines = result.stderr.strip().splitlines()
    check(result.returncode == status, f"{label}: exit {result.returncode}, expected {status}")
    check(len(lines) >= 1 and fragment in lines[0], f"{label}: stderr {result.stderr!r}")
    check(result.stdout == "", f"{label}: stdout {result.stdout!r}")


def check_json(path):
    r = kbench("detect", "--input", path, "--format", "json")
    if not check(r.returncode == 0, f"json: exit {r.returncode}, stderr {r.stderr!r}"):
        return
    check_shortest_reals(r.stdout, "detect json")
    d = json.loads(r.stdout)
    check(d["schema"] == "kbench-detect" and d["schema_version"] == 1, f"schema: {d['schema']}")
    check(d["source"] == path and d["repository"] == REPO, f"source {d['source']!r}")
    check(d["settings"] == {"max_p": 0.01, "permutations": 199, "min_change": 0.02,
                            "min_segment": 5, "last": None, "since": None},
          f"settings: {d['settings']}")
    check((d["series"], d["points"], d["regressions"], d["improvements"]) == (3, 100, 1, 1),
          f"counts: {d['series']} {d['points']} {d['regressions']} {d['improvements']}")
    cps = {c["case"]: c for c in d["change_points"]}
    check(sorted(cps) == sorted([SLOW, FAST]), f"change points: {sorted(cps)}")
    slow, fast = cps.get(SLOW), cps.get(FAST)
    if not (slow and fast):
        return
    check(slow["run"] == 21 and slow["commit_before"] == commit(19)
          and slow["commit_after"] == commit(20) and slow["time_after"] == "2026-01-21T03:00:00Z",
          f"slow: run {slow['run']}, {slow['commit_before']}..{slow['commit_after']}, "
          f"{slow['time_after']}")
    check(slow["direction"] == "regression" and abs(slow["change"] - 0.10) < 0.01
          and 0 < slow["p_value"] <= 0.01 and slow["machine"] == "ci-1",
          f"slow: {slow['direction']} {slow['change']} p {slow['p_value']}")
    for side, level in (("before", 1e5), ("after", 1.1e5)):
        s = slow[side]
        check(s["ci_low_ns"] <= s["median_ns"] <= s["ci_high_ns"]
              and abs(s["median_ns"] / level - 1) < 0.01, f"slow {side}: {s}")
    check(fast["run"] == 26 and fast["direction"] == "improvement"
          and abs(fast["change"] + 0.10) < 0.01, f"fast: {fast}")


def check_markdown(path):
    r = kbench("detect", "--input", path, "--format", "markdown")
    md = r.stdout
    check(r.returncode == 0 and md.startswith("## kbench detect: 1 regression, 1 improvement\n"),
          f"markdown: exit {r.returncode}, {md[:80]!r}")
    regressions = md.split("**Regressions**")[-1].split("**Improvements**")[0]
    check(f"`{SLOW}` on `ci-1` from run 21" in regressions
          and ("**+10." in regressions or "**+9." in regressions),
          f"markdown regression: {regressions!r}")
    check(f"({REPO}/commit/{commit(20)})" in regressions
          and f"({REPO}/compare/{commit(19)}...{commit(20)})" in regressions,
          f"markdown links: {regressions!r}")
    check(FAST in md.split("**Improvements**")[-1] and FLAT not in md, "markdown improvements")
    other = "https://git.example.com/k"
    r = kbench("detect", "--input", path, "--format", "markdown", "--repo-url", other + "/")
    check(f"({other}/commit/{commit(20)})" in r.stdout and REPO not in r.stdout, "--repo-url")

    r = kbench("detect", "--input", path)
    check(r.returncode == 0 and SLOW in r.stdout and "regression" in r.stdout
          and "improvement" in r.stdout and "3 series, 100 points" in r.stdout,
          f"table: {r.stdout!r}")


def check_window_and_status(path):
    # The step is at point 20 of 30: the last 8 points are all after it, the last 15 hold it.
    def found(*args):
        r = kbench("detect", "--input", path, "--format", "json", "--filter", "^reduce/sum",
                   *args)
        check(r.returncode == 0, f"{args}: exit {r.returncode} {r.stderr!r}")
        return [c["run"] for c in json.loads(r.stdout)["change_points"]] if r.stdout else None
    check(found("--last", "8") == [], "--last 8 sees no change")
    check(found("--last", "15") == [21], "--last 15: run 21, counted over the whole series")
    check(found("--since", "2026-01-12") == [21], "--since a day")
    check(found("--since", "2026-01-18T00:00:00Z") == [], "--since leaves 3 points before")

    r = kbench("detect", "--input", path, "--fail-on-regression")
    check(r.returncode == 1 and r.stderr.strip() == "kbench detect: 1 regression",
          f"--fail-on-regression: exit {r.returncode}, stderr {r.stderr!r}")
    r = kbench("detect", "--input", path, "--fail-on-regression", "--filter", "-^reduce/sum")
    check(r.returncode == 0, f"--fail-on-regression without the regression: {r.returncode}")
    r = kbench("detect", "--input", path, "--min-change", "20%", "--fail-on-regression")
    check(r.returncode == 0 and "no change points" in r.stdout, "--min-change 20%")


def check_errors(tmp, path):
    def write(name, content):
        p = os.path.join(tmp, name)
        Path(p).write_text(content if isinstance(content, str) else json.dumps(content))
        return p
    missing = os.path.join(tmp, "absent.json")
    one_line_error(kbench("detect", "--input", missing), "missing file", missing)
    one_line_error(kbench("detect", "--input", write("t.json", "not json")), "not JSON",
                   "not valid JSON")
    one_line_error(kbench("detect", "--input", write("o.json", {"x": 1})), "no series",
                   "series: missing")
    bad = series(SLOW, 12)
    bad["points"][3]["median"] = -1
    one_line_error(kbench("detect", "--input", write("m.json", [series(FLAT, 12), bad])),
                   "negative median", "[1].points[3].median: expected a positive number")
    bad["points"][3]["median"] = "NaN"
    one_line_error(kbench("detect", "--input", write("n.json", [bad])), "NaN as a string",
                   "[0].points[3].median: expected a number, found a string")
    bad["points"][3]["median"] = 1e5
    bad["points"][5]["time"] = "yesterday"
    one_line_error(kbench("detect", "--input", write("d.json", [bad])), "bad time",
                   "[0].points[5].time: expected a UTC time")
    one_line_error(kbench("detect", "--input", write("c.json", [{"points": []}])), "no case",
                   "[0].case: missing")

    # Without --input or --db: the user's history, here a new, empty one.
    empty = os.path.join(tmp, "empty.sqlite")
    r = kbench("detect", env={"KB_HISTORY_DB": empty})
    check(r.returncode == 0 and "0 series" in r.stdout and empty in r.stdout,
          f"detect of the default history: {r.returncode} {r.stdout!r} {r.stderr!r}")
    for args, fragment in [(["--input", path, "--last", "5", "--since", "2026-01-01"],
                            "--last and --since exclude each other"),
                           (["--input", path, "--format", "csv"], "--format"),
                           (["--input", path, "--min-change", "5"], "--min-change"),
                           (["--input", path, "--max-p", "0.001"], "199 permutations cannot"),
                           (["--input", path, "--since", "January"], "--since"),
                           (["--input", path, "--last", "0"], "--last"),
                           (["--input", path, "--min-segment", "1"], "--min-segment"),
                           (["--input", path, "--filter", "("], "("),
                           (["--input", path, "--filter", "^nothing"], "matches"),
                           (["--input", path, "--input", path], "--input"),
                           (["--input", path, "extra"], "extra"),
                           (["--bogus"], "--bogus")]:
        one_line_error(kbench("detect", *args), f"usage {args}", fragment)

    r = kbench("detect", "--help")
    check(r.returncode == 0 and "--fail-on-regression" in r.stdout
          and "usage: kbench detect" in r.stdout, "help")
    check("detect" in kbench("--help").stdout, "listed by kbench --help")


def check_real_regression(tmp):
    """30 runs of one tiny case, the last 10 doing the sum four times per call: detect names run
    21 as the one regression, from the runs' medians in a JSON file and from a fresh history the
    runs were added to.
    Four times, not twice: at a load of 5 to 10, runs before the step had medians 1.8 times
    the others, one of them at run 20, and the detector put a doubling there."""
    points = []
    db = "sqlite:" + os.path.join(tmp, "history.sqlite")
    for i in range(30):
        out = os.path.join(tmp, f"run{i}.json")
        env = {"KB_TEST_SLOWDOWN": "4"} if i >= 20 else {}
        r = kbench("run", "reduce", "--filter", f"^{TINY}$", "--min-time", "0.01",
                   "--no-roofline", "-q", "-o", out, env=env)
        if not check(r.returncode == 0, f"run {i + 1}: exit {r.returncode} {r.stderr!r}"):
            return
        r = kbench("history", "add", out, "--db", db, "--commit", commit(i))
        if not check(r.returncode == 0, f"history add of run {i + 1}: {r.stderr!r}"):
            return
        d = json.loads(Path(out).read_text())
        (case,) = d["cases"]
        points.append({"commit": commit(i), "time": d["context"]["date"],
                       "median": case["statistics"]["median_ns"]})
    path = os.path.join(tmp, "real.json")
    Path(path).write_text(json.dumps([{"case": TINY, "machine": "here", "points": points}]))
    for source in (["--input", path], ["--db", db]):
        r = kbench("detect", *source, "--format", "json", "--fail-on-regression")
        d = json.loads(r.stdout) if r.stdout else {"change_points": []}
        found = [(c["run"], c["direction"], round(c["change"], 2), c["commit_after"])
                 for c in d["change_points"]]
        # The step is found at run 21. Before it, the load of the tests beside this one can shift
        # the level, and the data then do hold a change point: the first runs slower (medians
        # 1.5x in six runs of the sanitizer build), an improvement after them; or five runs in a
        # row 1.25x the others (a fresh clone's make test, ctest -j2), a regression of 23%. So
        # before the step, improvements and regressions smaller than the least the step must
        # show (50%; it is 4x) are allowed; after it, nothing.
        step = [f for f in found if f[0] == 21]
        others = [f for f in found if f[0] != 21]
        check(r.returncode == 1 and len(step) == 1 and step[0][1] == "regression"
              and step[0][2] > 0.5 and step[0][3] == commit(20)
              and all(f[0] < 21 and (f[1] == "improvement" or f[2] < 0.5) for f in others),
              f"real regression from {source[0]}: {found} ({r.stderr!r}), medians "
              f"{[round(p['median']) for p in points]}")
    r = kbench("detect", "--db", db, "--input", path)
    check(r.returncode == 2 and "exclude" in r.stderr, f"--db with --input: {r.stderr!r}")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "series.json")
        Path(path).write_text(json.dumps({"repository": REPO, "series": [
            series(SLOW, 30, 20, 1.10, seed=1), series(FLAT, 30, seed=2),
            series(FAST, 40, 25, 0.90, seed=3)]}))
        check_json(path)
        check_markdown(path)
        check_window_and_status(path)
        check_errors(tmp, path)
        check_real_regression(tmp)


main()
sys.exit(finish("detect"))
