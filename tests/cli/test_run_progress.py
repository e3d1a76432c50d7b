#!/usr/bin/env python3
"""The progress of `kbench run` on stderr counts every result the run will have, baselines
included, as the table's rows and the results' cases count them: one line per group,
`[FIRST-LAST/TOTAL] T elapsed, about T left: GROUP`, whose ranges follow each other from 1 and
end at TOTAL, the number of rows. A baseline its library cannot compute comes off the total as
its group starts. The first line has no time estimate, having nothing to make it from; every
later one has. The same on a terminal, where the lines overwrite each other, and in the
header's case count. Timings are never checked.

Usage: python3 test_run_progress.py path/to/kbench"""

import json
import os
import pty
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from harness import SETTINGS, check, finish, kbench

CLOCK = r"(?:\d+ s|\d+(?::\d\d)+)"  # 42 s, 3:07, 1:02:03
LINE = re.compile(rf"\[(\d+)(?:-(\d+))?/(\d+)\] ({CLOCK}) elapsed(?:, about ({CLOCK}) left)?: "
                  r"(\S+)")
HEADER = re.compile(r"^kbench run: (\d+) cases?;", re.M)
TINY = "^reduce/(sum|argmax)/f32/64x64/axis=None/"  # two groups, microseconds per call
FAST = ["--min-time", "0.002", "--no-roofline"]


def progress(stderr):
    """The progress lines: [(first, last, total, has_estimate, group)]."""
    found = []
    for line in re.split(r"\r\033\[K|\r?\n|\r", stderr):
        if not line.startswith("["):
            continue
        m = LINE.fullmatch(line)
        if not check(m is not None, f"progress line not as documented: {line!r}"):
            continue
        first, last = int(m[1]), int(m[2] or m[1])
        found.append((first, last, int(m[3]), m[5] is not None, m[6]))
    return found


def check_progress(label, stderr, rows):
    """The lines count rows 1..N in order, N the number of rows, each range a group's rows."""
    lines = progress(stderr)
    if not check(lines, f"{label}: no progress on stderr: {stderr!r}"):
        return
    header = HEADER.search(stderr)
    check(header is not None and int(header[1]) == lines[0][2],
          f"{label}: the header's case count is not the first total: {stderr!r}")
    check(not lines[0][3], f"{label}: the first line has an estimate: {lines[0]}")
    check(all(has for _, _, _, has, _ in lines[1:]),
          f"{label}: a later line has no estimate: {lines}")
    starts = [first for first, *_ in lines]
    ends = [last for _, last, *_ in lines]
    check(starts == [1] + [e + 1 for e in ends[:-1]],
          f"{label}: the counts do not follow each other from 1: {lines}")
    totals = [total for _, _, total, _, _ in lines]
    check(ends[-1] == totals[-1] == len(rows),
          f"{label}: the last line ends at {ends[-1]}/{totals[-1]}, the run has {len(rows)} rows")
    check(totals == sorted(totals, reverse=True) and all(e <= t for e, t in zip(ends, totals)),
          f"{label}: totals {totals} for ranges ending at {ends}")
    for first, last, _, _, group in lines:
        mine = rows[first - 1:last]
        check(mine and all(r == group or r.startswith(group + "/") for r in mine),
              f"{label}: [{first}-{last}] {group} covers {mine}")
    return lines


def run(label, tmp, *args):
    """A run with its results written; checks its progress against the results' cases and the
    table's rows."""
    path = os.path.join(tmp, "r.json")
    r = kbench("run", *args, *FAST, "-o", path)
    if not check(r.returncode == 0, f"{label}: exit {r.returncode}: {r.stderr}"):
        return None
    rows = [c["name"] for c in json.loads(Path(path).read_text())["cases"]]
    table = [line.split()[0] for line in r.stdout.split("\n\n")[0].splitlines()[1:]]
    check(table == rows, f"{label}: table rows {table}, results {rows}")
    return check_progress(label, r.stderr, rows)


def on_a_terminal(tmp):
    """stderr on a terminal: one line, rewritten for each group, with the same counts."""
    path = os.path.join(tmp, "tty.json")
    env = {k: v for k, v in os.environ.items() if k not in SETTINGS}
    leader, follower = pty.openpty()
    with open(os.path.join(tmp, "tty.out"), "w+") as out:
        p = subprocess.Popen([sys.argv[1], "run", "quick", "-f", TINY, *FAST, "-o", path],
                             stdout=out, stderr=follower, env=env)
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # EIO: the terminal's other side is closed
                break
            if not chunk:
                break
            chunks.append(chunk)
        os.close(leader)
        code = p.wait(timeout=300)
    stderr = b"".join(chunks).decode(errors="replace")
    if not check(code == 0, f"on a terminal: exit {code}: {stderr!r}"):
        return
    check("\r\033[K[" in stderr, f"on a terminal, the progress line is not rewritten: {stderr!r}")
    rows = [c["name"] for c in json.loads(Path(path).read_text())["cases"]]
    check_progress("on a terminal", stderr, rows)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        lines = run("two groups", tmp, "quick", "-f", TINY)
        check(lines is None or len(lines) == 2, f"two groups: {lines}")
        run("with NumPy", tmp, "quick", "-f", TINY, "--baseline", "numpy")
        # numexpr computes sum but not argmax: the total shrinks as argmax starts, by one row
        # for each thread count numexpr runs at (one a thread count of the group).
        lines = run("suites and filters", tmp, "selftest", "reduce", "-f", "^selftest/",
                    "-f", TINY, "--baseline", "numpy", "--baseline", "numexpr")
        names = kbench("list", "reduce", "-f", TINY).stdout.split()
        counts = len({n.rsplit("/threads=", 1)[1] for n in names})
        if lines:
            check(len(lines) == 5 and lines[0][2] == lines[-1][2] + counts,
                  f"suites and filters: numexpr's argmax is not taken off once for each of "
                  f"{counts} thread counts: {lines}")
        on_a_terminal(tmp)
    return finish("run progress")


if __name__ == "__main__":
    sys.exit(main())
