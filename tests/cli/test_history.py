"""End-to-end checks of `kbench history`, the same against SQLite and against a throwaway
PostgreSQL server (pg_server.py): a tiny real `kbench run` stored and read back (values checked
against the file, through export csv and json), the commit and branch and their overrides,
list, show and their formats, list's last change point on a series with a step (and none
without it) and the report's history view of it, a repetition without samples, a file stored
once, a process killed inside its transaction leaving no partial run, four concurrent ingests
losing nothing, a hostile case name stored verbatim, malformed files refused with one line
naming the file and the field and nothing written, machines never mixed in a series, prune,
Google Benchmark input, usage errors and the default store.

Usage: python3 test_history.py path/to/kbench"""

import copy
import csv
import io
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from harness import check, finish, kbench, scaled
from pg_server import PgServer

DATA = Path(__file__).resolve().parent / "data"
TINY = "^reduce/sum/f32/64x64/axis=None/simd=scalar/"  # two cases of a few microseconds


def slower(results, factor, date, commit=None):
    """A copy of a results file whose every time is factor times longer, started at date."""
    r = copy.deepcopy(results)
    r["context"]["date"] = date
    if commit:
        r["context"]["git_commit"] = commit
    for case in r["cases"]:
        scaled(case, factor)
    return r


def write(path, results):
    Path(path).write_text(json.dumps(results))
    return str(path)


def exported(db):
    """The store's points as export json reads them: {(case, run): point}, and the series."""
    r = kbench("history", "export", "--db", db, "--format", "json")
    if not check(r.returncode == 0, f"export json: {r.returncode} {r.stderr}"):
        return {}, []
    doc = json.loads(r.stdout)
    check(doc["schema"] == "kbench-history-export" and doc["schema_version"] == 1,
          f"export header {doc['schema']!r}")
    points = {(s["case"], p["run_id"]): p for s in doc["series"] for p in s["points"]}
    return points, doc["series"]


def one_line_failure(r, label, *fragments):
    lines = r.stderr.strip().splitlines()
    check(r.returncode == 1, f"{label}: exit {r.returncode}, expected 1 ({r.stderr!r})")
    check(len(lines) == 1 and all(f in lines[0] for f in fragments),
          f"{label}: stderr {r.stderr!r}, expected one line with {fragments}")


def round_trip(db, tmp, base, base_path):
    r = kbench("history", "add", base_path, "--db", db, "--branch", "feature/x")
    check(r.returncode == 0 and "stored as run" in r.stdout and "2 cases (kbench)" in r.stdout,
          f"add: {r.returncode} {r.stdout!r} {r.stderr!r}")
    points, series = exported(db)
    check(len(series) == 2 and len(points) == 2, f"round trip: {len(series)} series")
    commit = base["context"]["git_commit"]
    for case in base["cases"]:
        found = [p for (name, _), p in points.items() if name == case["name"]]
        if not check(len(found) == 1, f"round trip: {case['name']} not exported"):
            continue
        p, st = found[0], case["statistics"]
        for key in ("median_ns", "ci_low_ns", "ci_high_ns", "mad_ns"):
            check(p[key] == st[key], f"round trip {key}: {p[key]} != {st[key]}")
        check(p["n_samples"] == st["n"], f"round trip n: {p['n_samples']}")
        check(p["gb_per_s"] == case["rates"]["gb_per_s"], f"round trip GB/s {p['gb_per_s']}")
        check(p["percent_of_bound"] is None, "no roofline, no % of bound")
        check(p["time"] == base["context"]["date"], f"round trip time {p['time']}")
        check(p["branch"] == "feature/x", f"branch {p['branch']!r}")
        check(p["commit"] == (None if commit == "unknown" else commit), f"commit {p['commit']!r}")
        check(p["flags"] == ("unstable" if st["unstable"] else ""), f"flags {p['flags']!r}")

    # CSV says the same, every number exactly.
    r = kbench("history", "export", "--db", db, "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    check(r.returncode == 0 and len(rows) == 2, f"export csv: {r.returncode} {len(rows)} rows")
    for row in rows:
        p = points.get((row["case"], int(row["run_id"])))
        if check(p is not None, f"csv row {row['case']} not in json"):
            check(float(row["median_ns"]) == p["median_ns"] and row["time"] == p["time"] and
                  row["branch"] == "feature/x" and row["percent_of_bound"] == "",
                  f"csv row {row}")

    # The same bytes again: stored once.
    r = kbench("history", "add", base_path, "--db", db)
    check(r.returncode == 0 and "already stored as run" in r.stdout, f"again: {r.stdout!r}")
    check(len(exported(db)[0]) == 2, "a file added twice is stored once")


def list_and_show(db, tmp, base):
    # Later and 50% slower, at a commit given on the command line: two points are too few for
    # a change point (five a side at least), so the last change is none.
    later = write(tmp / "later.json", slower(base, 1.5, "2099-01-01T00:00:00Z"))
    r = kbench("history", "add", later, "--db", db, "--commit", "deadbeef", "--branch", "main")
    check(r.returncode == 0, f"add later: {r.stderr}")
    r = kbench("history", "list", "--db", db, "--format", "json")
    rows = json.loads(r.stdout) if r.returncode == 0 else []
    check(len(rows) == 2, f"list json: {len(rows)} rows")
    for row in rows:
        check(row["length"] == 2 and row["last"]["commit"] == "deadbeef" and
              row["last"]["time"] == "2099-01-01T00:00:00Z", f"list row {row}")
        check(row["last_change"] is None, f"last change of two points {row['last_change']}")
    r = kbench("history", "list", "--db", db)
    lines = r.stdout.splitlines()
    check(r.returncode == 0 and len(lines) == 3 and lines[0].startswith("case") and
          lines[1].endswith("  -"), f"list table: {r.stdout!r}")
    r = kbench("history", "list", "--db", db, "--format", "markdown")
    check(r.returncode == 0 and r.stdout.startswith("| case |") and r.stdout.count("\n") == 4,
          f"list markdown: {r.stdout!r}")
    name = base["cases"][0]["name"]
    r = kbench("history", "show", name, "--db", db)
    check(r.returncode == 0 and r.stdout.startswith(name) and "deadbeef" in r.stdout and
          r.stdout.count("\n") == 6, f"show: {r.stdout!r}")
    r = kbench("history", "show", name, "--db", db, "--format", "json", "--last", "1")
    shown = json.loads(r.stdout) if r.returncode == 0 else [{}]
    check(len(shown) == 1 and len(shown[0].get("points", [])) == 1 and
          shown[0]["points"][0]["commit"] == "deadbeef", f"show json --last 1: {r.stdout!r}")
    r = kbench("history", "show", name, "--db", db, "--format", "markdown")
    check(r.returncode == 0 and r.stdout.startswith("### ") and "| time |" in r.stdout,
          f"show markdown: {r.stdout!r}")
    one_line_failure(kbench("history", "show", "no/such/case", "--db", db), "show unknown",
                     "no series of case 'no/such/case'")


def last_change(new_db, tmp, base):
    """history list's last change is the detector's: 24 runs, the last 12 slower by 20% (each
    run moved by up to 0.2% besides), give one change point at run 13 (c12), at +20% within
    the jitter; the same runs without the step give none."""
    paths = []
    for i in range(24):
        factor = (1.2 if i >= 12 else 1.0) * (1 + 0.002 * (i % 3 - 1))
        date = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(1.7e9 + 86400 * i))
        paths.append(write(tmp / f"step{i}.json", slower(base, factor, date, f"c{i:02d}")))
    db = new_db("step")
    r = kbench("history", "add", "--db", db, *paths)
    check(r.returncode == 0, f"add the stepped runs: {r.stderr}")
    r = kbench("history", "list", "--db", db, "--format", "json")
    rows = json.loads(r.stdout) if r.returncode == 0 else []
    check(len(rows) == 2, f"stepped list: {len(rows)} rows")
    for row in rows:
        step = row["last_change"]
        check(step is not None and abs(step["change"] - 0.2) < 0.01 and
              step["point"]["commit"] == "c12", f"last change of the stepped series {step}")
    r = kbench("history", "list", "--db", db)
    check(r.returncode == 0 and r.stdout.count("% at c12") == 2, f"stepped table {r.stdout!r}")
    # The report's history view reads the same store: a chart a series, a regression mark each.
    page = tmp / "step.html"
    r = kbench("report", "--db", db, "-o", str(page))
    html = page.read_text() if r.returncode == 0 else ""
    check(html.count('class="chart hist"') == 2 and html.count('<g class="cpt reg">') == 2 and
          "+20.0% at c12" in html, f"report of the stepped store: {r.returncode} {r.stderr}")
    flat = []
    for i in range(24):
        date = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(1.7e9 + 86400 * i))
        flat.append(write(tmp / f"flat{i}.json",
                          slower(base, 1 + 0.002 * (i % 3 - 1), date, f"f{i:02d}")))
    flat_db = new_db("flat")
    r = kbench("history", "add", "--db", flat_db, *flat)
    check(r.returncode == 0, f"add the flat runs: {r.stderr}")
    r = kbench("history", "list", "--db", flat_db, "--format", "json")
    rows = json.loads(r.stdout) if r.returncode == 0 else []
    check(len(rows) == 2 and all(row["last_change"] is None for row in rows),
          f"flat series: {rows}")


def empty_repetition(db, tmp, base):
    """A repetition without samples (valid in a results file) is stored as no row: the fuzz
    target found that SQLite took its bytes for NULL and refused the run."""
    r = copy.deepcopy(base)
    r["cases"][0]["samples_ns"] = [[]] + r["cases"][0]["samples_ns"]
    r = kbench("history", "add", write(tmp / "empty_rep.json", r), "--db", db)
    check(r.returncode == 0 and "stored as run" in r.stdout, f"empty repetition: {r.stderr}")
    n = base["cases"][0]["statistics"]["n"]
    check([p["n_samples"] for p in exported(db)[0].values()].count(n) >= 1,
          "empty repetition: the case's samples")


def killed_mid_ingest(db, tmp, base):
    before = len(exported(db)[0])
    path = write(tmp / "killed.json", slower(base, 2, "2098-01-01T00:00:00Z"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("KB_")}
    env["KB_HISTORY_TEST_PAUSE_MS"] = "60000"
    p = subprocess.Popen([sys.argv[1], "history", "add", path, "--db", db], env=env,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(2)  # well inside the pause, half-way through the cases
    check(p.poll() is None, "the ingest paused inside its transaction")
    p.send_signal(signal.SIGKILL)
    p.wait()
    check(len(exported(db)[0]) == before, "a killed ingest left points behind")
    # Nothing of it was kept, not even its content hash: the file goes in whole now.
    r = kbench("history", "add", path, "--db", db)
    check(r.returncode == 0 and "stored as run" in r.stdout, f"after the kill: {r.stdout!r}")
    check(len(exported(db)[0]) == before + 2, "the file stored after the kill")


def concurrent(db, tmp, base):
    """Four processes at once, into a store none of them has seen yet (the migration races
    too): every run arrives."""
    paths = [write(tmp / f"c{i}.json", slower(base, 1 + i / 10, f"2097-01-0{i + 1}T00:00:00Z",
                                             f"c{i}")) for i in range(4)]
    env = {k: v for k, v in os.environ.items() if not k.startswith("KB_")}
    procs = [subprocess.Popen([sys.argv[1], "history", "add", p, "--db", db], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for p in paths]
    outs = [p.communicate(timeout=120) for p in procs]
    check(all(p.returncode == 0 for p in procs), f"concurrent: {[o[1] for o in outs]}")
    points, series = exported(db)
    check(len(points) == 8 and len(series) == 2, f"concurrent: {len(points)} points")
    check(sorted(p["commit"] for p in points.values()) == sorted(["c0", "c1", "c2", "c3"] * 2),
          "concurrent: each run's commit once per case")


def hostile(db, tmp):
    names = ["'); DROP TABLE runs;--", 'say "hi"; DELETE FROM cases', "x' OR '1'='1"]
    doc = {"context": {"date": "2026-01-02T03:04:05+00:00", "num_cpus": 2},
           "benchmarks": [{"name": n, "run_type": "iteration", "real_time": 100 + k,
                           "time_unit": "ns"} for n in names for k in range(3)]}
    path = write(tmp / "hostile.json", doc)
    r = kbench("history", "add", path, "--db", db)
    check(r.returncode == 0 and "(google-benchmark)" in r.stdout, f"hostile add: {r.stderr}")
    points, series = exported(db)
    check(sorted(s["case"] for s in series) == sorted(names), f"hostile: {series}")
    for n in names:
        r = kbench("history", "show", n, "--db", db, "--format", "json")
        shown = json.loads(r.stdout) if r.returncode == 0 else []
        check(len(shown) == 1 and shown[0]["case"] == n and
              shown[0]["points"][0]["median_ns"] == 101, f"hostile show {n!r}: {r.stderr}")
    r = kbench("history", "add", str(DATA / "gbench_base.json"), "--db", db)
    check(r.returncode == 0 and "stored as run" in r.stdout, "the runs table survived")


def malformed(db, tmp, base):
    before = exported(db)[0]
    missing = copy.deepcopy(base)
    del missing["cases"][1]["statistics"]["median_ns"]
    mistyped = copy.deepcopy(base)
    mistyped["cases"][0]["statistics"]["n"] = "many"
    no_date = copy.deepcopy(base)
    no_date["context"]["date"] = "yesterday"
    cases = [("missing.json", missing, "cases[1].statistics.median_ns"),
             ("mistyped.json", mistyped, "cases[0].statistics.n"),
             ("no_date.json", no_date, "context.date")]
    for name, doc, field in cases:
        path = write(tmp / name, doc)
        one_line_failure(kbench("history", "add", path, "--db", db), name, path, field)
    text = json.dumps(slower(base, 3, "2096-01-01T00:00:00Z"))
    path = tmp / "truncated.json"
    path.write_text(text[: len(text) // 2])
    one_line_failure(kbench("history", "add", str(path), "--db", db), "truncated", str(path),
                     "not valid JSON")
    check(exported(db)[0] == before, "a refused file wrote nothing")


def machines(db, tmp, base):
    other = copy.deepcopy(base)
    other["context"]["cpu"]["model"] = "Some Other CPU"
    other["context"]["date"] = "2095-01-01T00:00:00Z"
    for doc, name in ((base, "here.json"), (other, "there.json")):
        r = kbench("history", "add", write(tmp / name, doc), "--db", db)
        check(r.returncode == 0, f"add {name}: {r.stderr}")
    name = base["cases"][0]["name"]
    r = kbench("history", "show", name, "--db", db, "--format", "json")
    shown = json.loads(r.stdout) if r.returncode == 0 else []
    check(len(shown) == 2 and shown[0]["machine"] != shown[1]["machine"] and
          all(len(s["points"]) == 1 for s in shown), f"machines mixed: {r.stdout!r}")
    # Added without --branch: the file's own.
    branch = base["context"]["git_branch"]
    check(all(s["points"][0]["branch"] == (None if branch == "unknown" else branch)
              for s in shown), f"branch from the file: {r.stdout!r}")
    if len(shown) == 2:
        prefix = shown[1]["machine"][:6]
        r = kbench("history", "show", name, "--db", db, "--machine", prefix, "--format", "json")
        mine = json.loads(r.stdout) if r.returncode == 0 else []
        check(len(mine) == 1 and mine[0]["machine"].startswith(prefix), f"--machine: {r.stdout}")


def prune(db, tmp, base):
    old = write(tmp / "old.json", slower(base, 1, "2001-01-01T00:00:00Z"))
    recent = write(tmp / "recent.json", slower(base, 1.1, "2094-01-01T00:00:00Z"))
    for path in (old, recent):
        check(kbench("history", "add", path, "--db", db).returncode == 0, f"add {path}")
    r = kbench("history", "prune", "--keep-days", "3650", "--db", db)
    check(r.returncode == 0 and r.stdout.startswith("removed 1 run that started before"),
          f"prune: {r.stdout!r} {r.stderr!r}")
    points, _ = exported(db)
    check(len(points) == 2 and all(p["time"].startswith("2094") for p in points.values()),
          f"prune kept {sorted(p['time'] for p in points.values())}")


def usage(db):
    for sub in ("add", "list", "show", "export", "prune"):
        r = kbench("history", sub, "--help")
        check(r.returncode == 0 and r.stdout.startswith(f"usage: kbench history {sub}"),
              f"{sub} --help: {r.stdout[:60]!r}")
    r = kbench("history")
    check(r.returncode == 2 and "missing subcommand (add, list, show, export or prune)" in r.stderr,
          f"no subcommand: {r.stderr!r}")
    for args in (("list", "--format", "csv"), ("export", "--format", "table"), ("prune",),
                 ("show",), ("add",), ("list", "--last", "0")):
        r = kbench("history", *args, "--db", db)
        check(r.returncode == 2, f"{args}: exit {r.returncode}, expected 2")
    r = kbench("history", "list", "--db", "mysql://host/db")
    one_line_failure(r, "unknown kind of store", "unknown kind of history")


def default_store(tmp, base_path):
    env = {"XDG_DATA_HOME": str(tmp / "xdg")}
    r = kbench("history", "add", base_path, env=env)
    check(r.returncode == 0 and (tmp / "xdg" / "kbench" / "history.sqlite").exists(),
          f"XDG default: {r.stderr}")
    r = kbench("history", "list", env={"KB_HISTORY_DB": "sqlite:" + str(tmp / "env.sqlite")})
    check(r.returncode == 0 and (tmp / "env.sqlite").exists(), f"KB_HISTORY_DB: {r.stderr}")


def suite(backend, new_db, tmp, base, base_path):
    print(f"-- {backend}", flush=True)
    db = new_db("main")
    round_trip(db, tmp, base, base_path)
    list_and_show(db, tmp, base)
    killed_mid_ingest(db, tmp, base)
    malformed(db, tmp, base)
    last_change(new_db, tmp, base)
    empty_repetition(new_db("empty"), tmp, base)
    concurrent(new_db("concurrent"), tmp, base)
    hostile(new_db("hostile"), tmp)
    machines(new_db("machines"), tmp, base)
    prune(new_db("prune"), tmp, base)


def main():
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        base_path = str(tmp / "base.json")
        r = kbench("run", "reduce", "--filter", TINY, "--min-time", "0.01", "--no-roofline", "-q",
                   "-o", base_path)
        if not check(r.returncode == 0, f"kbench run exited {r.returncode}: {r.stderr}"):
            return
        base = json.loads(Path(base_path).read_text())
        usage("sqlite:" + str(tmp / "usage.sqlite"))
        default_store(tmp, base_path)
        suite("sqlite", lambda n: "sqlite:" + str(tmp / f"{n}.sqlite"), tmp, base, base_path)
        with PgServer() as pg:
            suite("postgresql", lambda n: pg.createdb(n)[0], tmp, base, base_path)


if __name__ == "__main__":
    main()
    sys.exit(finish("test_history"))
