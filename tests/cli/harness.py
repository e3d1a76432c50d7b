"""Helpers shared by the end-to-end tests (tests/cli) and the Python tests (tests/baselines): one
tally of checks, running the kbench under test, the share of generated cases a sanitizer build
checks, the key tables of the docs with the values they name in kbench's JSON, the form of the
numbers in that JSON, results files edited (scaled), and installing the build for a program of
a user's.

Every script in tests/cli is run as `python3 test_X.py path/to/kbench` (tests/CMakeLists.txt
puts this folder on PYTHONPATH for them and for tests/baselines)."""

import os
import random
import re
import subprocess
import sys
import threading
from pathlib import Path
from typing import NamedTuple

DOCS = Path(__file__).resolve().parents[2] / "docs"
CACHE_LEVELS = ["L1d", "L1i", "L2", "L3"]
# What kbench reads from the environment to choose how it runs: the tests set these
# themselves, so that the shell they are started from cannot change what they see.
SETTINGS = ("KB_SIMD", "KB_NUM_THREADS", "KB_DATASHEET", "KB_GPUS", "KB_COMPILE", "KB_CC")

failures = []
checked = 0
_tally_lock = threading.Lock()  # the NumPy-heavy tests check from several threads


# ---- The tally ----------------------------------------------------------------------------

def count(n=1):
    """Counts n checks whose failures the caller reports with fail()."""
    global checked
    with _tally_lock:
        checked += n


def fail(message):
    """Records a failure, printed at once (a long test shows its failures as they happen).
    Returns False, so that `return fail(...)` ends a check."""
    with _tally_lock:
        failures.append(message)
        print("FAIL:", message, flush=True)
    return False


def check(condition, message):
    """Counts one check, failed with message unless condition holds; returns condition, so
    that what depends on it can be skipped."""
    count()
    if not condition:
        fail(message)
    return condition


def finish(name):
    """Prints the tally; returns the exit status: 0 when no check failed."""
    print(f"{name}: {checked - len(failures)} passed, {len(failures)} failed")
    return 1 if failures else 0


# ---- Running kbench -----------------------------------------------------------------------

class Outcome(NamedTuple):
    """What a command did: unpacks as (returncode, stdout, stderr)."""
    returncode: int
    stdout: str
    stderr: str


def kbench(*args, env=None, timeout=300):
    """Runs the kbench under test (the script's argument) with args, in this process's
    environment without SETTINGS, plus env; output as text, undecodable bytes replaced."""
    full = {k: v for k, v in os.environ.items() if k not in SETTINGS}
    full.update(env or {})
    p = subprocess.run([sys.argv[1], *args], env=full, capture_output=True, text=True,
                       errors="replace", timeout=timeout)
    return Outcome(p.returncode, p.stdout, p.stderr)


# ---- Cases under the sanitizers ------------------------------------------------------------

# The sanitizer build runs these tests for memory errors, leaks and undefined behaviour, and
# each process it starts pays AddressSanitizer's start and LeakSanitizer's scan at exit (about
# 40 ms where a Release kbench takes 2). The tests that generate hundreds of like cases check
# about one in KB_TEST_SAMPLE_ONE_IN of them there (tests/CMakeLists.txt sets it), the same ones
# in every run; the Release build checks every case.
SAMPLE_ONE_IN = max(1, int(os.environ.get("KB_TEST_SAMPLE_ONE_IN", "1")))


def sampled(cases, groups=None):
    """cases, or about one in SAMPLE_ONE_IN of them, chosen by a fixed pseudo-random sequence
    (not by a stride, which would follow the period of a product of lists); groups(case), when
    given, names the groups a case belongs to (an op and a dtype, say), and the first case of
    each group that the choice left out is kept too, so that every group is still checked."""
    cases = list(cases)
    pick = random.Random(20261128)
    keep = [pick.randrange(SAMPLE_ONE_IN) == 0 for _ in cases]
    if groups:
        covered = {g for case, kept in zip(cases, keep) if kept for g in groups(case)}
        for i, case in enumerate(cases):
            missing = [g for g in groups(case) if g not in covered]
            if missing:
                keep[i] = True
                covered.update(missing)
    return [case for case, kept in zip(cases, keep) if kept]


# ---- Results files edited ----------------------------------------------------------------

def scaled(case, factor):
    """The case with every sample and statistic multiplied by factor."""
    case["samples_ns"] = [[round(s * factor) for s in rep] for rep in case["samples_ns"]]
    st = case["statistics"]
    for key in list(st):
        if key.endswith("_ns"):
            st[key] *= factor
    # Rounding may move an end past the median; keep the file valid.
    st["min_ns"] = min(st["min_ns"], st["ci_low_ns"])
    st["max_ns"] = max(st["max_ns"], st["ci_high_ns"])


# ---- Documented keys ----------------------------------------------------------------------

def doc_section(doc, command):
    """The `kbench COMMAND` section of docs/DOC, up to the next section."""
    section = (DOCS / doc).read_text().split(f"## `kbench {command}`", 1)[1]
    return re.split(r"\n## ", section, maxsplit=1)[0]


def key_table(text):
    """(key, type) of every row of the key tables in text. The first cell names one key or
    several ("`cpu.x86_family`, `cpu.x86_model`"); a name that starts with a dot shares the
    first name's prefix ("`a.load`, `.copy`" is a.load and a.copy). The second cell is the
    type, as type_ok reads it."""
    keys = []
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 3 or not cells[0].startswith("`"):
            continue
        names = re.findall(r"`([^`]+)`", cells[0])
        for name in names:
            if name.startswith("."):
                name = names[0].rsplit(".", 1)[0] + name
            keys.append((name, cells[1]))
    return keys


def lookup(obj, path):
    """Values at a dotted path: `*` fans out over the cache levels, `name[]` over an array's
    items, and a null on the way (a clock that was not measured) ends that branch. KeyError
    when a key is missing, a level is absent or `name[]` is not an array."""
    values = [obj]
    for part in path.split("."):
        nxt = []
        for v in values:
            if v is None:
                continue
            if part == "*":
                if not isinstance(v, dict) or any(level not in v for level in CACHE_LEVELS):
                    raise KeyError(path)
                nxt.extend(v[level] for level in CACHE_LEVELS)
                continue
            name = part[:-2] if part.endswith("[]") else part
            if not isinstance(v, dict) or name not in v:
                raise KeyError(path)
            item = v[name]
            if not part.endswith("[]"):
                nxt.append(item)
            elif isinstance(item, list):
                nxt.extend(item)
            elif item is not None:
                raise KeyError(path)
        values = nxt
    return values


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def type_ok(value, doc_type, empty_strings=False):
    """True when value is of the type the docs name ("string", "int or null", "array of
    strings", ...); strings must be non-empty unless empty_strings is set."""
    if value is None:
        return "or null" in doc_type
    base = doc_type.replace(" or null", "")
    checks = {
        "string": lambda v: isinstance(v, str) and (empty_strings or v != ""),
        "int": _is_int,
        "number": lambda v: _is_int(v) or isinstance(v, float),
        "bool": lambda v: isinstance(v, bool),
        "object": lambda v: isinstance(v, dict),
        "array of strings": lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v),
        "array of objects": lambda v: isinstance(v, list) and all(isinstance(x, dict) for x in v),
        "array of numbers": lambda v: isinstance(v, list)
        and all(_is_int(x) or isinstance(x, float) for x in v),
        "array of arrays of int": lambda v: isinstance(v, list)
        and all(isinstance(r, list) and all(_is_int(x) for x in r) for r in v),
    }
    check_type = checks.get(base)
    return bool(check_type and check_type(value))


def check_documented(obj, keys, label, empty_strings=False, require_values=False):
    """Every (key, type) of keys is in obj with its documented type; with require_values, each
    key must name at least one value."""
    for key, doc_type in keys:
        try:
            values = lookup(obj, key)
        except KeyError:
            fail(f"{label}: documented key {key} missing")
            continue
        if require_values:
            check(values, f"{label}: {key}: no values")
        for v in values:
            check(type_ok(v, doc_type, empty_strings), f"{label}: {key} = {v!r} is not {doc_type}")


def check_shortest_reals(text, label):
    """Every real number in the JSON text kbench wrote (outside its strings) is written as
    Python's repr writes it: the fewest digits that read back as the same double (0.05, not
    jansson's 0.050000000000000003), still a real (2.0, 1e-07); the text must hold some."""
    bare = re.sub(r'"(?:[^"\\]|\\.)*"', '""', text)
    reals = [t for t in re.findall(r"-?[0-9][0-9.eE+-]*", bare) if re.search("[.eE]", t)]
    longer = [t for t in reals if t != repr(float(t))]
    check(reals and not longer, f"{label}: {len(reals)} reals; not in their shortest form: "
          f"{longer[:5]}")


# ---- Installing the build -----------------------------------------------------------------

def install(prefix):
    """Installs the build the kbench under test belongs to into prefix, as a user would;
    returns (env, flags): an environment in which pkg-config finds that install, and what
    `pkg-config --cflags --libs kbench` prints there, split."""
    build = os.path.dirname(os.path.abspath(sys.argv[1]))
    subprocess.run(["cmake", "--install", build, "--prefix", prefix], check=True,
                   stdout=subprocess.DEVNULL)
    pcdirs = [os.path.join(prefix, d, "pkgconfig")
              for d in ["lib", "lib64", "lib/x86_64-linux-gnu", "lib/aarch64-linux-gnu"]]
    env = dict(os.environ, PKG_CONFIG_PATH=":".join(pcdirs))
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "kbench"], env=env,
                           check=True, capture_output=True, text=True).stdout.split()
    return env, flags


def linked_env(flags, **extra):
    """The environment a program built with flags runs in: the install's library folders on
    LD_LIBRARY_PATH, plus extra."""
    libdirs = [f[2:] for f in flags if f.startswith("-L")]
    return dict(os.environ, LD_LIBRARY_PATH=":".join(libdirs), **extra)
