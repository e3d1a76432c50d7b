#!/usr/bin/env python3
"""Builds the kbench package into a fresh virtual environment and runs its tests, for CTest.

    package_env.py install SOURCE_DIR WORK_DIR  fresh WORK_DIR/venv (python3 -m venv, seeing the
                                          system's site-packages: NumPy, ml_dtypes), then pip
                                          installs scikit-build-core, pytest and Hypothesis
                                          (from PyPI unless scripts/install-deps put them in
                                          the system's) and the package from SOURCE_DIR, built
                                          in WORK_DIR/wheel-build, kept between runs so that a
                                          rebuild compiles only what changed
    package_env.py pytest SOURCE_DIR WORK_DIR   runs tests/python with that environment's python

The environment is WORK_DIR/venv/bin/python; cli/test_baseline_python.py runs the baseline
runner with it (KB_PYTHON)."""
import os
import shutil
import subprocess
import sys
import venv

TOOLS = ["scikit-build-core>=0.10", "pytest", "hypothesis"]


def run(*command, cwd=None):
    print("+", " ".join(command), flush=True)
    subprocess.run(command, check=True, cwd=cwd)


def install(source, work):
    env_dir = os.path.join(work, "venv")
    shutil.rmtree(env_dir, ignore_errors=True)
    venv.EnvBuilder(system_site_packages=True, with_pip=True).create(env_dir)
    python = os.path.join(env_dir, "bin", "python")
    run(python, "-m", "pip", "install", "-q", "--disable-pip-version-check", *TOOLS)
    # No build isolation: the build uses the environment's scikit-build-core and NumPy
    # instead of downloading them into a throwaway environment each time.
    run(python, "-m", "pip", "install", "-q", "--disable-pip-version-check",
        "--no-build-isolation", "-C", f"build-dir={os.path.join(work, 'wheel-build')}", source)
    # The package that was installed, not the source tree, is what the tests import.
    run(python, "-c", "import kbench, sys; print('kbench', kbench.__version__, kbench.__file__)",
        cwd=work)


def pytest(source, work):
    python = os.path.join(work, "venv", "bin", "python")
    if not os.path.exists(python):
        sys.exit(f"package_env.py: {python} is missing: the python/install test builds it")
    run(python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:warnings",
        os.path.join(source, "tests", "python"), cwd=work)


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in ("install", "pytest"):
        sys.exit(__doc__)
    step, source, work = sys.argv[1:]
    os.makedirs(work, exist_ok=True)
    {"install": install, "pytest": pytest}[step](os.path.abspath(source), os.path.abspath(work))


if __name__ == "__main__":
    try:
        main()
    except subprocess.CalledProcessError as exc:
        sys.exit(f"package_env.py: {' '.join(exc.cmd)} failed with exit status {exc.returncode}")
