"""End-to-end checks of `kbench report` without a browser: the page of a results file (three
groups of a real run with peaks and NumPy baselines, tests/cli/data/report_run.json), of a
comparison and of a history (24 runs of that file stored by `kbench history add`, one group
regressed at run 12 and one improved at run 16), parsed with html.parser: one table row per
case, one roofline or strip point per case, one speedup bar per implementation, one ratio per
paired case; one row and one chart per series, each with a point per run, the regressed series
first and the change points where they were made; the speedup vs eager of an expr run, with
below-traffic flagged exactly where the rule fails; a case name with markup and quotes comes back
escaped; nothing is loaded from the network; every chart has a title and a description; bad
arguments and unreadable input exit 2 and 1 writing nothing.

Usage: python3 test_report.py path/to/kbench"""

import copy
import json
import os
import sys
import tempfile
from html.parser import HTMLParser
from pathlib import Path

from harness import check, finish, kbench, scaled

DATA = Path(__file__).resolve().parent / "data"
EVIL = 'sum"<script>alert(\'x\')</script>&amp;'


class Page(HTMLParser):
    """Elements of the page with their attributes and the ids of their enclosing elements."""

    def __init__(self):
        super().__init__()
        self.stack, self.elements = [], []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        ids = [e[1].get("id") for e in self.stack if e[1].get("id")]
        self.elements.append((tag, a, ids))
        if tag not in ("meta", "input", "br"):  # HTML's void elements the page uses
            self.stack.append((tag, a))

    def handle_startendtag(self, tag, attrs):
        ids = [e[1].get("id") for e in self.stack if e[1].get("id")]
        self.elements.append((tag, dict(attrs), ids))

    def handle_endtag(self, tag):
        while self.stack:
            if self.stack.pop()[0] == tag:
                break

    def inside(self, tag, container, cls=None):
        return [a for t, a, ids in self.elements
                if t == tag and container in ids and (cls is None or cls in a.get("class", ""))]


def parse(path):
    page = Page()
    page.feed(Path(path).read_text())
    return page


def edited_run(tmp):
    """The fixture with the sum group's cases renamed to EVIL and argmax's FLOPs taken away
    (its cases go to the bandwidth strip)."""
    run = json.loads((DATA / "report_run.json").read_text())
    for c in run["cases"]:
        for key in ("name", "group"):
            c[key] = c[key].replace("reduce/sum/", f"reduce/{EVIL}/")
        if c["params"].get("op") == "sum":
            c["params"]["op"] = EVIL
        if c["params"].get("op") == "argmax":
            c["flops_per_call"] = 0
    path = os.path.join(tmp, "run.json")
    Path(path).write_text(json.dumps(run))
    return path, run


def slower(run, tmp):
    """The run with the std cases twice as slow: a regression for kbench compare."""
    new = copy.deepcopy(run)
    for c in new["cases"]:
        if c["params"].get("op") != "std":
            continue
        c["samples_ns"] = [[s * 2 for s in rep] for rep in c["samples_ns"]]
        for key in list(c["statistics"]):
            if key.endswith("_ns"):
                c["statistics"][key] *= 2
    path = os.path.join(tmp, "new.json")
    Path(path).write_text(json.dumps(new))
    return path


HISTORY_RUNS = 24


def history_store(tmp, run):
    """A SQLite history of HISTORY_RUNS runs of the fixture, a day apart at commits h00, h01,
    ...: the std cases 25% slower from run 12 on (a regression), the argmax cases 20% faster
    from run 16 on (an improvement), every case moved by 0.2% at most besides. Returns the
    store's URL and, by case name, the index of its change point and whether it regressed."""
    paths = []
    for i in range(HISTORY_RUNS):
        r = copy.deepcopy(run)
        r["context"]["date"] = f"2026-01-{i + 1:02d}T03:00:00Z"
        r["context"]["git_commit"] = f"h{i:02d}"
        for c in r["cases"]:
            op = c["params"].get("op")
            factor = 1 + 0.002 * (i % 3 - 1)
            factor *= 1.25 if op == "std" and i >= 12 else 0.8 if op == "argmax" and i >= 16 else 1
            scaled(c, factor)
        path = os.path.join(tmp, f"h{i:02d}.json")
        Path(path).write_text(json.dumps(r))
        paths.append(path)
    url = "sqlite:" + os.path.join(tmp, "history.sqlite")
    r = kbench("history", "add", "--db", url, *paths)
    check(r.returncode == 0, f"history add: {r.stderr}")
    changes = {c["name"]: (12, True) if c["params"].get("op") == "std" else
               (16, False) if c["params"].get("op") == "argmax" else None for c in run["cases"]}
    return url, changes


def history_charts(page):
    return [a for t, a, _ in page.elements if t == "svg" and "hist" in a.get("class", "").split()]


def check_history(tmp, run):
    url, changes = history_store(tmp, run)
    path = os.path.join(tmp, "history.html")
    r = kbench("report", "--db", url, "-o", path)
    if not check(r.returncode == 0, f"report --db exited {r.returncode}: {r.stderr}"):
        return
    html = Path(path).read_text()
    page = parse(path)
    check_common(page, html, "history")
    rows = [a for a in page.inside("tr", "history-series") if "data-case" in a]
    check(sorted(a["data-case"] for a in rows) == sorted(changes),
          f"history: rows {len(rows)} for {len(changes)} series")
    charts = history_charts(page)
    check(len(charts) == len(changes), f"history: {len(charts)} charts, {len(changes)} series")
    runs = json.loads(html.split('id="history-runs">')[1].split("</script>")[0])
    check([x[2] for x in runs] == [f"h{i:02d}" for i in range(HISTORY_RUNS)] and
          runs[0][1] == "2026-01-01T03:00:00Z", f"history: runs {runs[:3]}")
    # Regressed first, then improved, then the rest.
    kinds = [0 if changes[a["data-case"]] and changes[a["data-case"]][1] else
             1 if changes[a["data-case"]] else 2 for a in charts]
    check(kinds == sorted(kinds), f"history: charts not regressed first: {kinds}")
    for a in charts:
        name, want = a["data-case"], changes[a["data-case"]]
        line = page.inside("polyline", a["id"], "med")
        n = len(line[0]["points"].split()) if line else 0
        check(n == HISTORY_RUNS and len(a["data-r"].split()) == HISTORY_RUNS and
              len(a["data-v"].split()) == 3 * HISTORY_RUNS, f"history {name}: {n} points")
        marks = page.inside("g", a["id"], "cpt")
        if want is None:
            check(not marks, f"history {name}: change points {marks} in a steady series")
            continue
        x0, dx = (float(v) for v in a["data-ax"].split()[:2])
        xs = [float(m["x1"]) for m in page.inside("line", a["id"]) if "x1" in m and "y1" in m and
              m["x1"] == m["x2"]]
        cls = "reg" if want[1] else "imp"
        check(len(marks) == 1 and cls in marks[0]["class"] and
              any(abs(x - (x0 + dx * (want[0] - 0.5))) < 0.2 for x in xs),
              f"history {name}: marks {marks}, lines at {xs}, expected run {want[0]}")
    r = kbench("report", "--db", url, "--last", "10", "-o", path)
    charts = history_charts(parse(path)) if r.returncode == 0 else []
    check(len(charts) == len(changes) and all(len(a["data-r"].split()) == 10 for a in charts),
          f"history --last 10: {r.returncode} {r.stderr}")
    # A commit that would end the runs' script element stays inside it, escaped.
    later = copy.deepcopy(run)
    later["context"]["date"] = "2026-02-01T03:00:00Z"
    evil = '</script><script>alert("c")</script>'
    later["context"]["git_commit"] = evil
    Path(tmp, "later.json").write_text(json.dumps(later))
    r = kbench("history", "add", "--db", url, os.path.join(tmp, "later.json"))
    r2 = kbench("report", "--db", url, "-o", path)
    html = Path(path).read_text()
    check(r.returncode == 0 and r2.returncode == 0 and "<script>alert" not in html,
          f"history: an evil commit: {r.stderr} {r2.stderr}")
    runs = json.loads(html.split('id="history-runs">')[1].split("</script>")[0])
    check(runs[-1][2] == evil, f"history: the evil commit reads back as {runs[-1]}")


def check_eager(tmp):
    """A real run of two expressions with their eager twins, whose eager samples are replaced by
    the fused case's times k: the speedup vs eager is then exactly k. At k = 1 below the rule
    (0.8 x the traffic ratio, 1.5 for a*b + c), the case is flagged below-traffic in the
    fusion view, in the cases table and in the overview's count; at k = 10 none is."""
    path = os.path.join(tmp, "eager.json")
    r = kbench("run", "expr", "--filter", r"expr/(fma|softmax)/f64/L2/simd=scalar/threads=1/",
               "--no-roofline", "--no-monitor", "--min-time", "0.002", "-o", path)
    if not check(r.returncode == 0, f"expr run exited {r.returncode}: {r.stderr}"):
        return
    run = json.loads(Path(path).read_text())
    by_name = {c["name"]: c for c in run["cases"]}
    fused = [c for c in run["cases"] if "eval" not in c["params"]]
    flagged = "expr/fma/f64/L2/simd=scalar/threads=1/output=into"
    for f in fused:
        k = 1 if f["name"] == flagged else 10
        e = by_name[f["name"] + "/eval=eager"]
        e["calls_per_sample"] = f["calls_per_sample"]
        e["samples_ns"] = [[t * k for t in rep] for rep in f["samples_ns"]]
        e["statistics"] = {key: v * k if key.endswith("_ns") else v
                           for key, v in f["statistics"].items()}
    Path(path).write_text(json.dumps(run))
    html_path = os.path.join(tmp, "eager.html")
    r = kbench("report", path, "-o", html_path)
    if not check(r.returncode == 0, f"report of the eager run exited {r.returncode}: {r.stderr}"):
        return
    html = Path(html_path).read_text()
    page = parse(html_path)
    check_common(page, html, "eager")
    rows = [a["data-case"] for a in page.inside("tr", "r0-eager") if "data-case" in a]
    check(rows == [f["name"] for f in fused], f"eager view rows {rows}")
    check("Speedup vs eager" in html and "<b>1</b> below-traffic</li>" in html,
          "eager: the view and the overview's count of below-traffic")
    for f in fused:
        for table in ("r0-eager", "r0-cases"):
            start = html.index(f'id="{table}"')
            row = html[html.index(f'data-case="{f["name"]}"', start):]
            row = row[:row.index("</tr>")]
            check(("below-traffic" in row) == (f["name"] == flagged),
                  f"{table}: {f['name']} flagged wrongly: {row}")
    speed = html[html.index(f'data-case="{flagged}"', html.index('id="r0-eager"')):]
    check("1.00&times;" in speed[:speed.index("</tr>")], f"eager: speedup of {flagged}")


def check_common(page, html, label):
    scripts = [a for t, a, _ in page.elements if t == "script"]
    code = [a for a in scripts if a.get("type") != "application/json"]
    check(len(code) == 1 and not [a for a in scripts if "src" in a], f"{label}: scripts {scripts}")
    check("<script>alert" not in html, f"{label}: the evil name is not escaped")
    check(not [a for t, a, _ in page.elements if t in ("link", "img", "iframe")],
          f"{label}: loads something")
    external = [a for t, a, _ in page.elements for k, v in a.items()
                if k in ("src", "href") and v and not v.startswith("#")]
    check(not external, f"{label}: external references {external}")
    check("@import" not in html and "url(" not in html, f"{label}: CSS loads something")
    for t, a, ids in page.elements:
        if t == "svg":
            titled = page.inside("title", a["id"]) and page.inside("desc", a["id"])
            check(titled, f"{label}: chart {a['id']} has no title or description")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        run_path, run = edited_run(tmp)
        cases = run["cases"]
        html_path = os.path.join(tmp, "run.html")
        r = kbench("report", run_path, "-o", html_path)
        if not check(r.returncode == 0 and os.path.exists(html_path),
                     f"kbench report exited {r.returncode}: {r.stderr}"):
            return
        check(r.stdout == "" and "wrote" in r.stderr, f"report: output {r!r}")
        html = Path(html_path).read_text()
        page = parse(html_path)
        check_common(page, html, "run")
        rows = page.inside("tr", "r0-cases")
        check(len(rows) == len(cases) + 1, f"run: {len(rows)} rows for {len(cases)} cases")
        names = [a["data-case"] for a in rows if "data-case" in a]
        check(names == [c["name"] for c in cases], f"run: row names {names[:3]}")
        check(any(EVIL in n for n in names), "run: the evil name does not come back")
        flops = [c for c in cases if c["flops_per_call"] > 0]
        roof = page.inside("circle", "r0-roofline", "pt")
        strip = page.inside("circle", "r0-strip", "pt")
        check(len(roof) == len(flops), f"run: {len(roof)} roofline points, {len(flops)} cases")
        check(len(strip) == len(cases) - len(flops),
              f"run: {len(strip)} strip points for {len(cases) - len(flops)} cases without FLOPs")
        own = [c for c in cases if not c["baseline"]]
        bars = page.inside("g", "r0-speedups", "bar")
        check(len(bars) == len(own), f"run: {len(bars)} speedup bars for {len(own)} cases")
        check(page.inside("circle", "r0-curve", "cpt"), "run: no bandwidth curve points")
        check("geometric mean speedup" in html, "run: no geometric means")
        for word in ("impossible", "suspicious-high", "suspicious-low", "unstable", "contended"):
            check(f"</b> {word}</li>" in html, f"run: no count of {word}")

        new_path = slower(run, tmp)
        cmp_path = os.path.join(tmp, "compare.html")
        r = kbench("report", "--compare", run_path, new_path, "-o", cmp_path)
        if check(r.returncode == 0, f"report --compare exited {r.returncode}: {r.stderr}"):
            html = Path(cmp_path).read_text()
            page = parse(cmp_path)
            check_common(page, html, "compare")
            rows = page.inside("tr", "compare-cases")
            check(len(rows) == len(cases) + 1, f"compare: {len(rows)} rows, {len(cases)} cases")
            points = page.inside("circle", "compare-chart", "pt")
            check(len(points) == len(cases), f"compare: {len(points)} points")
            r = kbench("compare", run_path, new_path, "--format", "json")
            verdicts = {c["name"]: c["verdict"] for c in json.loads(r.stdout)["cases"]}
            colours = {"regressed": "#D55E00", "improved": "#009E73", "noisy": "#E69F00"}
            wrong = [a["data-case"] for a in points
                     if a["fill"] != colours.get(verdicts[a["data-case"]], "#777777")]
            check(not wrong, f"compare: points not coloured by their verdict: {wrong}")
            check("regressed" in verdicts.values(), f"compare: verdicts {verdicts}")
            check(not page.inside("section", "r0"), "compare: a run section without runs")

        check_history(tmp, run)
        check_eager(tmp)

        # Nothing to report, no output, a wrong extension, unreadable input.
        out = os.path.join(tmp, "x.html")
        for args, status, label in [((run_path,), 2, "no -o"), (("-o", out), 2, "no input"),
                                    ((run_path, "--last", "3", "-o", out), 2, "--last alone"),
                                    (("--db", "mysql://x/y", "-o", out), 1, "unknown store"),
                                    ((run_path, "-o", os.path.join(tmp, "x.txt")), 2, "txt"),
                                    ((run_path, "--compare", run_path), 2, "one compare file"),
                                    ((os.path.join(tmp, "none.json"), "-o", out), 1, "missing")]:
            r = kbench("report", *args)
            check(r.returncode == status, f"{label}: exit {r.returncode}, expected {status}")
            check(not os.path.exists(out), f"{label}: wrote {out}")


if __name__ == "__main__":
    main()
    sys.exit(finish("test_report"))
