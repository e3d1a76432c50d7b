#!/usr/bin/env python3
"""The benchmark workflows' steps (scripts/ci/) run here, as scripts/ci-local runs them:
`ci-local nightly --shards 3` on a few tiny cases (three shard processes, merge, history in
SQLite, detect, report) and checks each output against `kbench list` and the history itself,
and the history and detect steps again with PostgreSQL (a throwaway server, pg_server.py);
`ci-local pr` against this build on both sides (prebuilt, so nothing is compiled) and the gate's
verdict against its own comparison; then the steps with logic of their own, one by one: the
selection (scripts/ci/filters, against kbench list filtered here), the shard matrix, the
decision to run the gate (in a throwaway git repository), the confirmation of regressions and
the gate's exit status on made-up comparisons, and the checks of the comment poster and the
issue alert on untrusted input (dry runs: nothing reaches GitHub). Timings are never checked.

Usage: python3 test_ci_local.py path/to/kbench"""

import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from harness import check, finish
from pg_server import PgServer

ROOT = Path(__file__).resolve().parents[2]
CI = ROOT / "scripts/ci"
CI_LOCAL = ROOT / "scripts/ci-local"
TINY = "^reduce/(sum|max)/f32/(8|64x64)/"


def env_for(tmp, **extra):
    """This environment without the CI settings of the shell it runs from, a cache of its own
    (the quick peaks are measured there) and no GitHub variables."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("KB_CI_", "GITHUB_", "KBENCH_DB")) and k not in
           ("KB_SIMD", "KB_NUM_THREADS", "KB_RUN_TAG", "KB_TEST_SLOWDOWN")}
    env.update(KB_CACHE_DIR=str(Path(tmp, "cache")), OMP_WAIT_POLICY="PASSIVE")
    env.update(extra)
    return env


def run(cmd, env, cwd=None, timeout=600):
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True, env=env,
                          cwd=cwd, timeout=timeout)


def listed(kbench, env, *filters):
    args = [kbench, "list", "quick"]
    for f in filters:
        args += ["--filter", f]
    r = run(args, env)
    return r.stdout.split() if r.returncode == 0 else None


def check_nightly(kbench, tmp):
    out = Path(tmp, "nightly")
    env = env_for(tmp)
    # No roofline: peaks measured on a loaded machine (three shards at once, other tests beside
    # them) are too low, and a result above them is `impossible` and fails its shard.
    nightly_args = [CI_LOCAL, "nightly", "--shards", "3", "--kbench", kbench, "--out", out,
                    "--peaks", "none"]
    r = nightly = run(nightly_args, env)
    if not check(r.returncode == 0, f"ci-local nightly: {r.returncode}\n{r.stderr}"):
        for log in sorted(out.glob("shards/*.log")):
            print(f"--- {log}\n{log.read_text()}")
        return
    arch = os.uname().machine
    # What the default selection is, computed here from the full list.
    want = [n for n in listed(kbench, env) if re.search(TINY, n)
            and re.search(r"/simd=(scalar|auto)/threads=1$", n)]
    check(len(want) >= 3, f"the tiny selection has {len(want)} cases")
    shards = sorted(out.glob(f"shards/shard-{arch}-*.json"))
    check(len(shards) == 3, f"shard files {shards}")
    own = []
    for k, path in enumerate(shards, 1):
        results = json.loads(path.read_text())
        ctx = results["context"]
        shard = ctx["selection"]["shard"]
        check((shard["index"], shard["count"]) == (k, 3), f"{path}: shard {shard}")
        check(ctx["environment_variables"].get("KB_RUN_TAG") == "ci-local",
              f"{path}: the run tag is not recorded: {ctx['environment_variables']}")
        own += [c["name"] for c in results["cases"] if c["baseline"] is None]
    check(sorted(own) == sorted(want), f"the shards measured {sorted(own)}, expected {want}")
    merged = json.loads(Path(out, "merged", f"{arch}.json").read_text())
    names = [c["name"] for c in merged["cases"]]
    mine = [n for n in names if "/baseline=" not in n]
    numpy = [n for n in names if "/baseline=numpy" in n]
    check(sorted(mine) == sorted(want) and len(set(names)) == len(names),
          f"merged cases {names}, expected {want} and their baselines")
    groups = {n.split("/simd=")[0] for n in want}
    check(sorted(n.split("/baseline=")[0] for n in numpy) == sorted(groups),
          f"one NumPy baseline per group: {numpy}")
    check(all(c["status"] == "ok" for c in merged["cases"]), "a merged case failed")
    # The history holds the merged run, each case a series of one point.
    db = f"sqlite:{out}/history/history.sqlite"
    r = run([kbench, "history", "list", "--db", db, "--format", "json"], env)
    if check(r.returncode == 0, f"history list: {r.stderr}"):
        rows = json.loads(r.stdout)
        stored = sorted(s["case"] for s in rows)
        check(stored == sorted(names) and all(s["length"] == 1 for s in rows),
              f"history series {stored}, expected {sorted(names)}")
    detect = json.loads(Path(out, "detect", "detect.json").read_text())
    check(detect["schema"] == "kbench-detect" and detect["series"] == len(names)
          and detect["regressions"] == 0 and detect["change_points"] == [],
          f"detect over one run: {detect}")
    check(Path(out, "detect.outputs").read_text() == "regressions=0\n",
          "detect's step output")
    check(Path(out, "detect", "alert.md").exists(), "no alert.md")
    html = Path(out, "report.html")
    check(html.exists() and all(n in html.read_text() for n in want),
          "the report lacks the cases")
    check("nothing regressed: no issue" in nightly.stderr, "no word about the issue")
    # A second night: the history grows to two points a series.
    r = run(nightly_args, env)
    if check(r.returncode == 0, f"second ci-local nightly: {r.stderr}"):
        r = run([kbench, "history", "show", want[0], "--db", db, "--format", "json"], env)
        if check(r.returncode == 0, f"history show: {r.stderr}"):
            series = json.loads(r.stdout)
            check(len(series) == 1 and series[0]["length"] == 2
                  and [p["run_id"] for p in series[0]["points"]] == [1, 2],
                  f"history show after two nights: {series}")


def check_postgresql(kbench, tmp):
    """The nightly's history in PostgreSQL (KBENCH_DB_URL): the merged run stored and searched,
    and the URL's password in none of what the steps print or write (the alert becomes a
    public issue, detect.json an artifact). The throwaway server trusts local users, so the
    passwords are not needed to connect."""
    merged = Path(tmp, "nightly", "merged", f"{os.uname().machine}.json")
    if not merged.exists():
        return
    with PgServer() as pg:
        url = pg.createdb("nightly")[0].replace("kbench@", "kbench:s3cret-one@") + \
            "&password=s3cret-two"
        env = env_for(tmp, KBENCH_DB_URL=url)
        out = Path(tmp, "pg")
        history = run([CI / "history", kbench, merged], env)
        detect = run([CI / "detect", kbench, out], env)
        if not check(history.returncode == 0 and detect.returncode == 0,
                     f"history and detect in PostgreSQL: {history} {detect}"):
            return
        cases = len(json.loads(merged.read_text())["cases"])
        found = json.loads((out / "detect.json").read_text())
        check(found["series"] == cases and found["source"].startswith("postgresql://kbench:***@"),
              f"detect over PostgreSQL: {found}")
        said = (history.stdout + history.stderr + detect.stdout + detect.stderr
                + (out / "detect.json").read_text() + (out / "alert.md").read_text())
        check("s3cret" not in said and "password=***" in found["source"],
              f"the URL's password was printed or written: {said}")
        # An empty password and an empty password= parameter are named alike.
        empty = pg.url_of("nightly").replace("kbench@", "kbench:@") + "&password="
        r = run([kbench, "detect", "--db", empty, "--format", "json"], env)
        check(r.returncode == 0 and json.loads(r.stdout)["source"]
              == pg.url_of("nightly").replace("kbench@", "kbench:***@") + "&password=***",
              f"detect with empty passwords: {r}")


def check_pr(kbench, tmp):
    out = Path(tmp, "pr")
    env = env_for(tmp)
    r = run([CI_LOCAL, "pr", "HEAD", "--head-kbench", kbench, "--base-kbench", kbench,
             "--cases", "^reduce/sum/f32/(8|64x64)/", "--out", out], env)
    compared = out / "compare.json"
    if not check(r.returncode in (0, 1) and compared.exists(),
                 f"ci-local pr: {r.returncode}\n{r.stderr}"):
        return
    cases = json.loads(compared.read_text())["cases"]
    want = listed(kbench, env, r"^reduce/sum/f32/(8|64x64)/.*/simd=auto/threads=1$")
    check(sorted(c["name"] for c in cases) == sorted(want), f"compared {cases}, expected {want}")
    regressed = sorted(c["name"] for c in cases if c["verdict"] == "regressed")
    gate = json.loads((out / "gate.json").read_text())
    screened = sorted(c["name"] for c in cases
                      if c["ratio"] > 1.02 or (c["ratio_high"] or 0) > 1.05)
    check(gate["regressed_first"] == regressed and gate["screened"] == screened
          and set(gate["confirmed"]) <= set(screened)
          and (gate["confirm_runs"] >= 1) == bool(screened),
          f"gate.json {gate} against the first run's cases {cases}")
    check(r.returncode == (1 if gate["confirmed"] else 0),
          f"exit {r.returncode} with confirmed regressions {gate['confirmed']}")
    comment = (out / "comment.md").read_text()
    check(comment.startswith("<!-- kbench-ab-gate -->\n") and all(n in comment for n in want),
          f"comment: {comment[:300]!r}")
    # Usage errors, before anything is built or run.
    for args, message in ((["pr"], "needs BASE_REF"),
                          (["pr", "no-such-ref", "--head-kbench", kbench], "is not a commit"),
                          (["nightly", "--shards", "0"], "--shards 0"),
                          (["nightly", "--kbench", "/nonexistent"], "not an executable"),
                          (["weekly"], "unknown mode")):
        r = run([CI_LOCAL, *args], env)
        check(r.returncode == 2 and message in r.stderr, f"ci-local {args}: {r.returncode} "
                                                         f"{r.stderr!r}")
    r = run([CI_LOCAL, "--help"], env)
    check(r.returncode == 0 and "usage: scripts/ci-local nightly" in r.stdout, "--help")


def check_filters(kbench, tmp):
    full = listed(kbench, env_for(tmp))
    for settings, keep in (
            ({"KB_CI_CASES": "^reduce/(sum|max)/f64/", "KB_CI_SIMD": "scalar, auto",
              "KB_CI_THREADS": "1"},
             lambda n: re.search(r"^reduce/(sum|max)/f64/.*/simd=(scalar|auto)/threads=1$", n)),
            ({"KB_CI_THREADS": "all"}, lambda n: not n.endswith("/threads=1")),
            ({"KB_CI_SIMD": "auto", "KB_CI_THREADS": "1,all"}, lambda n: "/simd=auto/" in n),
            ({"KB_CI_CASES": "/argmax/"}, lambda n: "/argmax/" in n),
            ({}, lambda n: True)):
        r = run([CI / "filters"], env_for(tmp, **settings))
        filters = r.stdout.splitlines()
        # A selection of nothing (all threads but one, on one usable core) is kbench's error.
        got = listed(kbench, env_for(tmp), *filters[1::2]) or []
        want = [n for n in full if keep(n)]
        check(r.returncode == 0 and filters[0::2] == ["--filter"] * (len(filters) // 2)
              and got == want, f"filters {settings}: {filters} select {got}, expected {want}")
    r = run([CI / "filters"], env_for(tmp, KB_CI_SIMD="auto,sse9"))
    check(r.returncode == 2 and "sse9" in r.stderr, f"a bad SIMD level: {r.stderr!r}")
    r = run([CI / "bench-shard", kbench, "1", "2", Path(tmp, "x.json")],
            env_for(tmp, KB_CI_THREADS="two"))
    check(r.returncode == 2 and not Path(tmp, "x.json").exists(),
          f"bench-shard with a bad thread count: {r.returncode} {r.stderr!r}")


def check_shard_list(tmp):
    r = run([CI / "shard-list", "3"], env_for(tmp))
    check(r.returncode == 0 and r.stdout == "shards=[1,2,3]\ncount=3\n", f"shard-list 3: {r}")
    outputs = Path(tmp, "outputs")
    r = run([CI / "shard-list", "1"], env_for(tmp, GITHUB_OUTPUT=str(outputs)))
    check(r.returncode == 0 and outputs.read_text() == "shards=[1]\ncount=1\n",
          "shard-list into GITHUB_OUTPUT")
    for bad in ("0", "100", "x", "-1"):
        r = run([CI / "shard-list", bad], env_for(tmp))
        check(r.returncode == 2, f"shard-list {bad}: {r.returncode}")


def check_wants_bench(tmp):
    repo = Path(tmp, "repo")
    repo.mkdir()
    git = ["git", "-C", repo, "-c", "user.name=t", "-c", "user.email=t@t"]
    env = env_for(tmp)
    run([*git, "init", "-q"], env)
    (repo / "README.md").write_text("a\n")
    run([*git, "add", "."], env)
    run([*git, "commit", "-qm", "base"], env)
    base = run([*git, "rev-parse", "HEAD"], env).stdout.strip()

    def wants(**settings):
        r = run([CI / "pr-wants-bench"], env_for(tmp, KB_CI_BASE_SHA=base, **settings),
                cwd=repo)
        return r.stdout.strip() if r.returncode == 0 else f"exit {r.returncode}: {r.stderr}"

    (repo / "README.md").write_text("b\n")
    run([*git, "commit", "-qam", "docs"], env)
    check(wants() == "bench=false", f"a docs change: {wants()}")
    check(wants(KB_CI_LABELS='["benchmark"]') == "bench=true", "the benchmark label")
    check(wants(KB_CI_LABELS='["benchmark"]', KB_CI_ACTION="labeled", KB_CI_LABEL="docs")
          == "bench=false", "labelled with another label")
    (repo / "src").mkdir()
    (repo / "src/x.c").write_text("int x;\n")
    run([*git, "add", "."], env)
    run([*git, "commit", "-qm", "src"], env)
    check(wants() == "bench=true", f"a src change: {wants()}")
    check(wants(KB_CI_ACTION="labeled", KB_CI_LABEL="benchmark") == "bench=true",
          "labelled benchmark")


def check_gate_and_posting(kbench, tmp):
    env = env_for(tmp)
    name = "reduce/sum/f32/8/axis=None/simd=auto/threads=1"

    def compared(*cases, spread=0.01):
        d = Path(tmp, f"gate{len(list(Path(tmp).glob('gate*')))}")
        d.mkdir()
        (d / "compare.json").write_text(json.dumps({"cases": [
            {"name": n, "verdict": v, "ratio": r, "ratio_low": r - spread,
             "ratio_high": r + spread, "p_value": 1e-9} for n, v, r in cases]}))
        (d / "comment.md").write_text("<!-- kbench-ab-gate -->\n")
        return d

    def confirm(d, **settings):
        r = run([CI / "ab-confirm", kbench, kbench, d],
                env_for(tmp, **{"KB_CI_CONFIRM_MIN_TIME": "0.05", **settings}))
        return r, json.loads((d / "gate.json").read_text()) if r.returncode == 0 else {}

    # Nothing slower than the screen (2%): no run, nothing regressed.
    d = compared(("a", "unchanged", 1.015), ("b", "improved", 0.8))
    r, gate = confirm(d)
    check(gate.get("screened") == [] and gate.get("confirmed") == [] and gate["confirm_runs"] == 0
          and "nothing regressed" in (d / "comment.md").read_text(), f"ab-confirm: {r} {gate}")
    # No confirmation: the first run's regressions stand as they are.
    d = compared(("a", "regressed", 1.2), ("b", "unchanged", 1.03))
    r, gate = confirm(d, KB_CI_CONFIRM="0")
    check(gate.get("confirmed") == ["a"] and gate["screened"] == ["a", "b"]
          and gate["confirm_runs"] == 0, f"ab-confirm without confirmation: {r} {gate}")
    # A case within compare's threshold but beyond the screen is measured again, alone, for
    # KB_CI_CONFIRM_MIN_TIME, and stands as the median of its runs' ratios says.
    d = compared((name, "unchanged", 1.03), ("b", "unchanged", 1.0))
    r, gate = confirm(d, KB_CI_CONFIRM="1")
    if check(r.returncode == 0, f"ab-confirm of one case: {r.stderr}"):
        again = json.loads((d / "confirm1-compare.json").read_text())["cases"]
        settings = json.loads((d / "confirm1.json").read_text())["context"]["settings"]
        check([c["name"] for c in again] == [name] and settings["min_time_s"] == 0.05,
              f"measured again: {again}, {settings}")
        middle = (1.03 + again[0]["ratio"]) / 2
        check(gate["screened"] == [name] and gate["regressed_first"] == []
              and gate["confirm_runs"] == 1 and gate["ratios"][name] == [1.03, again[0]["ratio"]]
              and gate["confirmed"] == ([name] if middle > 1.05 and again[0]["ratio"] > 1.02
                                        else []),
              f"ab-confirm of one case: {gate} after {again}")
        check(f"| `{name}` | 1.030, " in (d / "comment.md").read_text()
              and f"| {middle:.3f} |" in (d / "comment.md").read_text(), "the comment's table")
    # The median of three: a first run far above the threshold does not stand when the two
    # runs after it (base against itself: about 1) do not agree; a first run that could not rule
    # a regression out (its interval reaching above 5%) is screened though its ratio is 1.01.
    d = compared((name, "regressed", 1.5), spread=0.01)
    r, gate = confirm(d)
    if check(r.returncode == 0, f"ab-confirm, median of three: {r.stderr}"):
        later = gate["ratios"][name][1:]
        check(gate["confirm_runs"] == 2 and len(later) == 2 and gate["confirmed"]
              == ([name] if sorted([1.5, *later])[1] > 1.05 and min(later) > 1.02 else []),
              f"median of three: {gate}")
    d = compared((name, "unchanged", 1.01), spread=0.2)
    r, gate = confirm(d, KB_CI_CONFIRM="1")
    check(r.returncode == 0 and gate["screened"] == [name], f"a wide interval: {r} {gate}")
    for variable, value in (("KB_CI_CONFIRM", "many"), ("KB_CI_CONFIRM", "1.5"),
                            ("KB_CI_SCREEN", "x"), ("KB_CI_CONFIRM_MIN_TIME", "0"),
                            ("KB_CI_THRESHOLD", "fast")):
        r, _ = confirm(d, **{variable: value})
        check(r.returncode != 0 and variable in r.stderr, f"{variable}={value}: {r}")

    # ab-gate decides on gate.json alone.
    d = Path(tmp, "decide")
    d.mkdir()
    gate = {"screened": ["x"], "regressed_first": ["x"], "confirm_runs": 2, "confirmed": [],
            "ratios": {"x": [1.2, 1.0, None]}}
    (d / "gate.json").write_text(json.dumps(gate))
    r = run([CI / "ab-gate", d], env)
    check(r.returncode == 0, f"ab-gate without a confirmed regression: {r}")
    gate.update(confirmed=["x"], ratios={"x": [1.2, 1.1, 1.15]})
    (d / "gate.json").write_text(json.dumps(gate))
    r = run([CI / "ab-gate", d], env)
    check(r.returncode == 1 and "regressed: x: time ratio (head / base) 1.200, 1.100, 1.150"
          in r.stdout and "1 regression(s) confirmed" in r.stderr, f"ab-gate: {r}")

    post = Path(tmp, "post")
    post.mkdir()
    (post / "comment.md").write_text("<!-- kbench-ab-gate -->\nbody\n")
    dry = env_for(tmp, KB_CI_DRY_RUN="1", GITHUB_REPOSITORY="o/r")
    for number, ok in (("17\n", True), ("17; rm -rf /", False), ("", False), ("0", False)):
        (post / "pr").write_text(number)
        r = run([CI / "post-comment", post], dry)
        check((r.returncode == 0 and "would post" in r.stdout and "o/r#17" in r.stdout) if ok
              else (r.returncode == 1 and "pull request number" in r.stderr),
              f"post-comment with pr {number!r}: {r.returncode} {r.stdout!r} {r.stderr!r}")
    (post / "pr").write_text("17")
    (post / "comment.md").write_text("no marker\n")
    r = run([CI / "post-comment", post], dry)
    check(r.returncode == 1 and "marker" in r.stderr, f"post-comment without the marker: {r}")

    alert = Path(tmp, "alert.md")
    alert.write_text("regressed\n")
    r = run([CI / "alert-issue", alert], dry)
    check(r.returncode == 0 and "gh issue create" in r.stdout and "kbench-regression" in r.stdout
          and str(alert) in r.stdout, f"alert-issue dry run: {r.stdout!r} {r.stderr!r}")
    r = run([CI / "alert-issue", Path(tmp, "none.md")], dry)
    check(r.returncode == 2, f"alert-issue without its file: {r.returncode}")


def main():
    kbench = os.path.realpath(sys.argv[1])
    with tempfile.TemporaryDirectory() as tmp:
        check_nightly(kbench, tmp)
        check_postgresql(kbench, tmp)
        check_pr(kbench, tmp)
        check_filters(kbench, tmp)
        check_shard_list(tmp)
        check_wants_bench(tmp)
        check_gate_and_posting(kbench, tmp)
    return finish("ci_local")


if __name__ == "__main__":
    sys.exit(main())
