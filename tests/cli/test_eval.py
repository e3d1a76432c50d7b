#!/usr/bin/env python3
"""kbench eval against NumPy: every reduction over several axes, keepdims and ddof, for every
dtype, written with -o and compared with NumPy's own result (its dtype and shape exactly, its
values exactly for integers, min, max, argmin and argmax, and within a tolerance for floating
sums, products, means and variances); printing without -o against str() of the NumPy array;
and the exit status and one-line message of each kind of error.

Floating references are computed in float64 from the same input and rounded to the result's
dtype, because NumPy's own float16 and bfloat16 (ml_dtypes) reductions accumulate in the
narrow type and are less accurate than what they would be compared with.

Usage: test_eval.py path/to/kbench"""

import os
import platform
import re
import sys
import tempfile
import warnings
from concurrent.futures import ThreadPoolExecutor

import numpy as np

try:
    import ml_dtypes
except ImportError:
    ml_dtypes = None

from harness import count, fail, finish, kbench, sampled
from npy_files import header_bytes

np.seterr(all="ignore")
warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's "Mean of empty slice" and the like
rng = np.random.default_rng(20240612)

BF16 = np.dtype(ml_dtypes.bfloat16) if ml_dtypes else None
FLOATS = ["float16", "float32", "float64"] + (["bfloat16"] if BF16 else [])
INTS = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
OPS = ["sum", "prod", "mean", "min", "max", "argmin", "argmax", "var", "std"]
# Relative tolerances for results computed in floating point: float64 and float32 as agreed for
# kbench, float16 and bfloat16 two units in the last place of the type.
RTOL = {"float64": 1e-12, "float32": 1e-5, "float16": 2 * 2.0**-10, "bfloat16": 2 * 2.0**-7}


def run(*args, env=None):
    return kbench("eval", *args, env=env)


def dtype_of(name):
    return BF16 if name == "bfloat16" else np.dtype(name)


def save(path, a):
    """np.save, except for bfloat16, which np.save writes as raw void ('<V2'): kbench reads the
    descr 'bfloat16', as ml_dtypes names it."""
    if a.dtype == BF16:
        header = "{'descr': 'bfloat16', 'fortran_order': False, 'shape': %r, }" % (a.shape,)
        with open(path, "wb") as f:
            f.write(header_bytes(header) + np.ascontiguousarray(a).tobytes())
    else:
        np.save(path, a)


def make_input(dtype_name, shape, op):
    """Data on which NumPy's answer is well conditioned: positive floats near 1 (no
    cancellation in sums, no overflow in products), small integers for products."""
    if dtype_name == "bool":
        return rng.integers(0, 2, shape).astype(bool)
    if dtype_name in FLOATS:
        lo, hi = (0.9, 1.1) if op == "prod" else (0.5, 1.5)
        return rng.uniform(lo, hi, shape).astype(dtype_of(dtype_name))
    info = np.iinfo(dtype_name)
    if op == "prod":
        return rng.integers(max(info.min, -2), 3, shape).astype(dtype_name)
    # The full range: sums wrap around, as NumPy's do.
    return rng.integers(info.min, info.max, shape, endpoint=True, dtype=dtype_name).reshape(shape)


def reference(op, a, axis, keepdims, ddof):
    """NumPy's result and its dtype (see the module's docstring for floating inputs)."""
    kw = {"axis": axis, "keepdims": keepdims}
    if op in ("var", "std"):
        kw["ddof"] = ddof
    direct = np.asarray(getattr(np, op)(a, **kw))
    if a.dtype.name in FLOATS and op in ("sum", "prod", "mean", "var", "std"):
        wide = np.asarray(getattr(np, op)(a.astype(np.float64), **kw))
        return wide.astype(a.dtype), direct.dtype
    return direct, direct.dtype


def compare(label, got, want, want_dtype, rtol):
    count()
    if got.dtype != want_dtype:
        return fail("%s: dtype %s, NumPy gives %s" % (label, got.dtype, want_dtype))
    if got.shape != want.shape:
        return fail("%s: shape %s, NumPy gives %s" % (label, got.shape, want.shape))
    g = got.astype(np.float64) if got.dtype == BF16 else got
    w = want.astype(np.float64) if want.dtype == BF16 else want
    if rtol is None:
        same = np.array_equal(g, w, equal_nan=g.dtype.kind == "f")
        if not same:
            return fail("%s: %s, NumPy gives %s" % (label, g.ravel()[:8], w.ravel()[:8]))
        return
    g64, w64 = g.astype(np.float64), w.astype(np.float64)
    bad = ~(np.abs(g64 - w64) <= rtol * np.abs(w64)) & ~(np.isnan(g64) & np.isnan(w64))
    if bad.any():
        i = np.flatnonzero(bad.ravel())[0]
        fail("%s: element %d is %r, NumPy gives %r (rtol %g)"
             % (label, i, g64.ravel()[i], w64.ravel()[i], rtol))


def axis_text(axis):
    return repr(axis).replace(" ", "")


def reduction_cases():
    """(op, dtype, shape, axis, keepdims, ddof) covering each op on each dtype."""
    shapes_axes = [
        ((1000,), [None, 0, -1]),
        ((7, 130), [None, 0, 1, -1, (0, 1), ()]),
        ((5, 6, 7), [None, 0, 1, 2, (0, 2), (-1, 0), (1,)]),
        ((), [None]),
        ((4, 0), [1]),
    ]
    cases = []
    k = 0
    for op in OPS:
        for dtype in INTS + FLOATS:
            for shape, axes in shapes_axes:
                for axis in axes:
                    if op in ("argmin", "argmax") and isinstance(axis, tuple):
                        continue
                    if op in ("min", "max", "argmin", "argmax") and 0 in shape:
                        continue  # an error in NumPy: checked with the errors
                    k += 1
                    keepdims = k % 3 == 0
                    ddof = (k % 3) if op in ("var", "std") and 0 not in shape else 0
                    if ddof and int(np.prod(shape)) <= 2 * ddof:
                        ddof = 0
                    cases.append((op, dtype, shape, axis, keepdims, ddof))
    return cases


def expression(op, axis, keepdims, ddof, prefix=""):
    parts = ["x"]
    if axis is not None or keepdims:
        parts.append("axis=%s" % axis_text(axis))
    if keepdims:
        parts.append("keepdims=True")
    if ddof:
        parts.append("ddof=%d" % ddof)
    return "%s%s(%s)" % (prefix, op, ", ".join(parts))


def check_reductions(tmp):
    inputs = {}
    jobs = []
    cases = sampled(reduction_cases(), groups=lambda case: [case[:2]])  # each op on each dtype
    for i, (op, dtype, shape, axis, keepdims, ddof) in enumerate(cases):
        key = (dtype, shape, op == "prod")
        if key not in inputs:
            path = os.path.join(tmp, "in_%d.npy" % len(inputs))
            a = make_input(dtype, shape, op)
            save(path, a)
            inputs[key] = (path, a)
        path, a = inputs[key]
        out = os.path.join(tmp, "out_%d.npy" % i)
        expr = expression(op, axis, keepdims, ddof, prefix="np." if i % 4 == 0 else "")
        jobs.append((op, a, axis, keepdims, ddof, expr, path, out))

    def one(job):
        op, a, axis, keepdims, ddof, expr, path, out = job
        return job, run(expr, "x=" + path, "-o", out)

    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        for job, (code, _, err) in pool.map(one, jobs):
            op, a, axis, keepdims, ddof, expr, path, out = job
            label = "%s on %s%s" % (expr, a.dtype, list(a.shape))
            if code != 0:
                fail("%s: exit %d: %s" % (label, code, err.strip()))
                continue
            want, want_dtype = reference(op, a, axis, keepdims, ddof)
            float_result = op in ("sum", "prod", "mean", "var", "std") and (
                a.dtype.name in FLOATS or op in ("mean", "var", "std"))
            rtol = RTOL[np.dtype(want_dtype).name] if float_result else None
            compare(label, np.load(out), want, want_dtype, rtol)


def check_nan_extremes(tmp):
    """min and max propagate NaN; argmin and argmax find the first NaN."""
    a = rng.uniform(-1, 1, (6, 50))
    a[1, 7] = np.nan
    a[3, 0] = np.nan
    a[3, 40] = np.nan
    a[4, 10] = np.inf
    a[5, 11] = -np.inf
    for dtype in ("float16", "float32", "float64"):
        x = a.astype(dtype)
        path = os.path.join(tmp, "nan_%s.npy" % dtype)
        save(path, x)
        for op in ("min", "max", "argmin", "argmax"):
            for axis in (None, 0, 1):
                out = os.path.join(tmp, "nan_out.npy")
                expr = expression(op, axis, False, 0)
                code, _, err = run(expr, "x=" + path, "-o", out)
                label = "%s on %s with NaN" % (expr, dtype)
                if code != 0:
                    fail("%s: exit %d: %s" % (label, code, err.strip()))
                    continue
                want = np.asarray(getattr(np, op)(x, axis=axis))
                compare(label, np.load(out), want, want.dtype, None)


def check_settings(tmp):
    """--simd and --threads change how the work is split, not what it computes beyond the last
    bits (and not at all across thread counts)."""
    a = rng.uniform(0.5, 1.5, (300, 257))
    path = os.path.join(tmp, "settings.npy")
    save(path, a)
    want = np.sum(a, axis=0)
    results = {}
    for simd in ("scalar", "auto"):
        for threads in ("1", "3"):
            out = os.path.join(tmp, "settings_%s_%s.npy" % (simd, threads))
            code, _, err = run("sum(x, axis=0)", "x=" + path, "-o", out, "--simd", simd,
                               "--threads", threads)
            if code != 0:
                fail("--simd %s --threads %s: exit %d: %s" % (simd, threads, code, err.strip()))
                continue
            results[simd, threads] = np.load(out)
            compare("sum --simd %s --threads %s" % (simd, threads), results[simd, threads],
                    want, want.dtype, 1e-12)
    for simd in ("scalar", "auto"):
        if (simd, "1") in results and (simd, "3") in results:
            if results[simd, "1"].tobytes() != results[simd, "3"].tobytes():
                fail("--simd %s: results differ between 1 and 3 threads" % simd)
    code, _, err = run("sum(x)", "x=" + path, "--simd=scalar", "--threads=2",
                       "--output=" + os.path.join(tmp, "eq.npy"))
    if code != 0:
        fail("--opt=value forms: exit %d: %s" % (code, err.strip()))


# ---- printing ---------------------------------------------------------------------------

def printing_cases():
    f64 = rng.standard_normal(12)
    cases = {
        "float64 0-d": np.array(3.5),
        "float64 0-d integral": np.array(2.0),
        "float64 0-d tiny": np.array(1.5e-5),
        "float64 0-d huge": np.array(1e16),
        "float64 0-d long": np.array(0.1 + 0.2),
        "float64 0-d negative zero": np.array(-0.0),
        "float64 0-d nan": np.array(np.nan),
        "float64 0-d -inf": np.array(-np.inf),
        "float32 0-d": np.array(0.1, dtype=np.float32),
        "float32 0-d big": np.array(1e6, dtype=np.float32),
        "float32 0-d below": np.array(999999.0, dtype=np.float32),
        "float16 0-d": np.array(0.1, dtype=np.float16),
        "float16 0-d big": np.array(65504, dtype=np.float16),
        "int64 0-d": np.array(-42),
        "uint64 0-d max": np.array(2**64 - 1, dtype=np.uint64),
        "bool 0-d": np.array(True),
        "float64 1-d": np.array([1.5, 2.5, 3.5]),
        "float64 integral": np.array([1.0, 2.0, 30.0]),
        "float64 mixed": np.array([1.5, 1.0, -10.25]),
        "float64 random": f64,
        "float64 scientific": np.array([1.5e-5, 1.0]),
        "float64 wide exponents": np.array([1e-300, 1e300]),
        "float64 huge and nan": np.array([1e100, np.nan, 1e-5]),
        "float64 nan inf": np.array([np.nan, 1e-3, 1, -np.inf]),
        "float64 all nan": np.array([np.nan, np.inf]),
        "float64 eight digits": np.array([1.23456789012, 2]),
        "float64 negative scientific": np.array([-1.5e-5, 1.0, 2.5e10]),
        "float64 random scientific": rng.standard_normal(7) * 10.0**rng.integers(-9, 9, 7),
        "float64 random 2-d": rng.standard_normal((3, 9)),
        "float32 random": rng.standard_normal(9).astype(np.float32),
        "float32 0-d tiny": np.array(1.5e-7, dtype=np.float32),
        "float16 random": rng.standard_normal(9).astype(np.float16),
        "float16 0-d": np.array(-2.5, dtype=np.float16),
        "float64 wrap": np.arange(30.0),
        "float64 2-d": np.array([[1.5, 2], [3, 4]]),
        "float64 summarized": np.arange(1001.0),
        "float32 thirds": np.array([1 / 3, 0.1, 2], dtype=np.float32),
        "float32 summarized wrap": np.arange(1500, dtype=np.float32) / 7,
        "float32 rounded": np.array([0.012345678, 1], dtype=np.float32),
        "float16": np.array([0.1, 3, 65504], dtype=np.float16),
        "float16 small": np.array([0.0001, 0.1], dtype=np.float16),
        "int": np.array([1, 10, 100, -5]),
        "int8": np.array([-128, 0, 127], dtype=np.int8),
        "uint64": np.array([0, 2**64 - 1], dtype=np.uint64),
        "int64 extremes": np.array([2**63 - 1, -(2**63)]),
        "bool": np.array([True, False, True]),
        "bool all true": np.array([[True, True]]),
        "int 3-d": np.arange(24).reshape(2, 3, 4),
        "int 3-d summarized": np.arange(2000).reshape(10, 10, 20),
        "int 2-d summarized": np.arange(2000).reshape(2, 1000),
        "int 4-d": np.arange(16).reshape(2, 2, 2, 2),
        "empty": np.zeros((0,)),
        "empty 2-d": np.zeros((2, 0)),
        "uint8 long": np.arange(200, dtype=np.uint8),
    }
    return cases


def check_printing(tmp):
    for i, (name, a) in enumerate(printing_cases().items()):
        path = os.path.join(tmp, "print_%d.npy" % i)
        save(path, a)
        code, out, err = run("x", "x=" + path)
        want = str(a[()]) if a.ndim == 0 else str(a)
        count()
        if code != 0:
            fail("printing %s: exit %d: %s" % (name, code, err.strip()))
        elif out != want + "\n":
            fail("printing %s:\n%s\nNumPy prints:\n%s" % (name, out, want))
    # A reduction's printed result, as NumPy prints the scalar or array it returns.
    path = os.path.join(tmp, "print_reduce.npy")
    a = np.arange(6.0).reshape(2, 3)
    save(path, a)
    for expr, want in (("mean(x, axis=0)", str(np.mean(a, axis=0))),
                       ("mean(x)", str(np.mean(a))),
                       ("sum(x, axis=1, keepdims=True)", str(np.sum(a, axis=1, keepdims=True))),
                       ("argmax(x)", str(np.argmax(a))),
                       ("min(x, axis=())", str(np.min(a, axis=()))),
                       ("sum(max(x, axis=1))", str(np.sum(np.max(a, axis=1))))):
        code, out, err = run(expr, "x=" + path)
        count()
        if code != 0 or out != want + "\n":
            fail("printing %s: exit %d, %r, NumPy prints %r %s" % (expr, code, out, want, err))


# ---- errors -----------------------------------------------------------------------------

def expect(args, code, pattern, label=None, env=None):
    """Runs kbench eval with args; the exit status must be code and the first line of stderr
    must match pattern (a regular expression, anchored); failures (exit 1) print exactly one
    line."""
    count()
    label = label or " ".join(args)
    got, out, err = run(*args, env=env)
    lines = err.splitlines()
    if got != code:
        return fail("%s: exit %d, expected %d (%s)" % (label, got, code, err.strip()))
    if out:
        fail("%s: printed %r on stdout" % (label, out))
    if not lines or not re.fullmatch(pattern, lines[0]):
        return fail("%s: stderr %r does not match %r" % (label, err, pattern))
    if code == 1 and len(lines) != 1:
        fail("%s: %d lines on stderr, expected one: %r" % (label, len(lines), err))
    if code == 2 and (len(lines) != 2 or "kbench eval --help" not in lines[1]):
        fail("%s: a usage error should add a hint to --help: %r" % (label, err))


def check_errors(tmp):
    x = os.path.join(tmp, "err_x.npy")
    save(x, np.arange(6.0).reshape(2, 3))
    empty = os.path.join(tmp, "err_empty.npy")
    save(empty, np.zeros((0, 3)))
    garbage = os.path.join(tmp, "err_garbage.npy")
    with open(garbage, "wb") as f:
        f.write(b"this is not a .npy file")
    bx = "x=" + x

    # The expression (exit 1).
    E = "kbench eval: "
    expect(["meen(x)", bx], 1, re.escape(E + "unknown function 'meen' at column 1"))
    expect(["mean(x, axes=0)", bx], 1, re.escape(E + "unknown keyword 'axes' at column 9"))
    expect(["mean(x, axis=0", bx], 1, re.escape(E + "expected ')' at column 15"))
    expect(["mean(x axis=0)", bx], 1, re.escape(E + "expected ')' at column 8"))
    expect(["mean(y)", bx], 1, re.escape(E + "unknown variable 'y' at column 6"))
    expect(["sum(x, ddof=1)", bx], 1,
           re.escape(E + "ddof is only valid for var and std at column 8"))
    expect(["sum(x, axis=2)", bx], 1,
           re.escape(E + "axis 2 out of range for a 2-d array at column 1"))
    expect(["np.sum(np.mean(x, axis=-3))", bx], 1,
           re.escape(E + "axis -3 out of range for a 2-d array at column 8"))
    expect(["sum(x, keepdims=1.5)", bx], 1,
           re.escape(E + "keepdims must be True or False at column 17"))
    expect(["argmin(x, axis=(0, 1))", bx], 1,
           re.escape(E + "argmin takes one axis or None, not a tuple of axes at column 16"))
    expect(["max(x, axis=0)", "x=" + empty], 1, E + r"zero-size array .*max.* at column 1")
    expect(["x +", bx], 1, re.escape(E + "unexpected end of the expression at column 4"))
    expect(["x $", bx], 1, re.escape(E + "unexpected character '$' at column 3"))
    expect(["", bx], 1, re.escape(E + "empty expression at column 1"))
    expect(["(" * 10000 + "x" + ")" * 10000, bx], 1,
           re.escape(E + "expression nested more than 64 levels deep at column 65"),
           label="10000 nested parentheses")
    # Files (exit 1).
    expect(["x", "x=" + os.path.join(tmp, "missing.npy")], 1, E + r".*missing\.npy.*")
    expect(["x", "x=" + garbage], 1, E + r".+")
    expect(["x", bx, "-o", os.path.join(tmp, "no", "such", "dir.npy")], 1, E + r".+")
    # Usage (exit 2).
    expect([], 2, re.escape(E + "missing the expression"))
    expect(["--threads", "2"], 2, re.escape(E + "missing the expression"))
    forms = " (expected NAME=FILE or NAME=NUMBER)"
    expect(["x", "x"], 2, re.escape(E + "malformed binding 'x'" + forms))
    expect(["x", "x="], 2, re.escape(E + "malformed binding 'x='" + forms))
    expect(["x", "1x=" + x], 2, re.escape(E + "malformed binding '1x=%s'" % x + forms))
    expect(["x", bx, bx], 2, re.escape(E + "variable 'x' is bound twice"))
    expect(["x", bx, "--bogus"], 2, re.escape(E + "unknown option '--bogus'"))
    expect(["x", bx, "-o"], 2, re.escape(E + "option '-o' needs a value"))
    # Two outputs for one result: refused, nothing written (issue 12, bug 8: only the second
    # was written). A tuple of results takes one -o per result (test_fusion_golden).
    out_a, out_b = os.path.join(tmp, "twice_a.npy"), os.path.join(tmp, "twice_b.npy")
    expect(["x", bx, "-o", out_a, "--output", out_b], 2,
           re.escape(E + "the expression gives 1 result: give -o 1 time, not 2"))
    if os.path.exists(out_a) or os.path.exists(out_b):
        fail("eval -o A --output B wrote a file")
    expect(["x", bx, "--threads", "0"], 2,
           re.escape(E + "--threads expects a positive integer, not '0'"))
    expect(["x", bx, "--threads", "two"], 2,
           re.escape(E + "--threads expects a positive integer, not 'two'"))
    # Above KB_NUM_THREADS's bound is a value --threads does not take: bad usage, not a failure.
    expect(["x", bx, "--threads", "5000"], 2,
           re.escape(E + "--threads expects at most 4096 threads, not '5000'"))
    expect(["x", bx, "--simd", "bogus"], 2, E + r"unknown SIMD level 'bogus'.*")
    # A level kbench knows but this machine cannot run is a failure, not a usage error.
    foreign = "neon" if platform.machine() in ("x86_64", "AMD64") else "avx2"
    expect(["x", bx, "--simd", foreign], 1, E + r"SIMD level '%s' is not .*" % foreign)

    # Settings from the environment: refused before anything is computed, unless an option
    # overrides them.
    expect(["sum(x)", bx], 1, E + r"KB_SIMD: unknown SIMD level 'bogus'.*",
           label="KB_SIMD=bogus", env={"KB_SIMD": "bogus"})
    expect(["sum(x)", bx], 1, E + r"KB_NUM_THREADS.*",
           label="KB_NUM_THREADS=many", env={"KB_NUM_THREADS": "many"})
    count()
    code, out, err = run("sum(x)", bx, "--simd", "scalar", env={"KB_SIMD": "bogus"})
    if code != 0 or out != "15.0\n":
        fail("--simd overriding KB_SIMD=bogus: exit %d, %r %r" % (code, out, err))

    # Help and "--" before an expression that starts with '-'.
    count()
    code, out, err = run("--help")
    if code != 0 or not out.startswith("usage: kbench eval") or err:
        fail("eval --help: exit %d, %r" % (code, out[:80]))
    code, out, err = run("--", "-x", bx)
    if code != 0 or out != str(-np.arange(6.0).reshape(2, 3)) + "\n":
        fail("eval -- -x: exit %d, %r" % (code, err))
    code, out, err = kbench("--help")
    if code != 0 or "eval" not in out:
        fail("kbench --help does not list eval: %r" % out)


def check_numpy_forms(tmp):
    """Issue 12, bug 7: what NumPy accepts, kbench accepts with NumPy's result, and NumPy's
    RuntimeWarnings appear on stderr in its words (exit status unchanged): axis 0 or -1 of a
    0-d array for the ufunc reductions, ddof negative, fractional or a bool, a positional
    axis (and NumPy's other positional parameters as None), keepdims=1, an empty mean, no
    degrees of freedom, inf - inf. What NumPy refuses, kbench refuses (exit 1)."""
    arrays = {"z": np.array(3.0, np.float32), "a": np.arange(6.0).reshape(2, 3),
              "e": np.zeros((0,)), "f": np.zeros((0, 3)), "i": np.array([np.inf, -np.inf]),
              "j": np.array([np.inf, 1.0]), "c": np.full(6, 2.0)}
    paths = {}
    for name, a in arrays.items():
        paths[name] = os.path.join(tmp, f"forms_{name}.npy")
        save(paths[name], a)
    exprs = ["sum(z, axis=0)", "sum(z, axis=-1)", "prod(z, axis=0)", "min(z, axis=-1)",
             "max(z, axis=0)", "argmax(z, axis=0)", "argmin(z, axis=-1)",
             "sum(z, axis=0, keepdims=True)", "mean(z, axis=0)", "sum(z, axis=(0,))",
             "sum(z, axis=1)", "var(a, ddof=-1)", "var(a, ddof=1.5)", "var(a, ddof=True)",
             "var(a, ddof=False)", "std(a, axis=1, ddof=2.5)", "sum(a, 0)", "sum(a, 1)",
             "mean(a, -1)", "var(a, 0, None, None, 1)", "sum(a, 0, None, None, True)",
             "argmax(a, 0)", "min(a, 1, None, True)", "std(a, None, None, None, 1, True)",
             "sum(a, keepdims=1)", "mean(a, axis=0, keepdims=0)", "mean(e)", "mean(f, axis=0)",
             "var(e)", "std(f, axis=0)", "var(a, ddof=6)", "var(a, ddof=7)", "var(c, ddof=6)",
             "mean(i)", "sum(i)", "var(j)", "std(j)", "prod(i)", "max(i)", "argmax(j)"]
    names = {op: getattr(np, op) for op in ("sum", "prod", "mean", "min", "max", "argmin",
                                            "argmax", "var", "std")}
    out = os.path.join(tmp, "forms_out.npy")
    for expr in exprs:
        count()
        with warnings.catch_warnings(record=True) as caught, np.errstate(all="warn"):
            warnings.simplefilter("always")
            try:
                want = np.asarray(eval(expr, {"np": np, **names}, dict(arrays)))
            except Exception:  # NumPy refuses it
                want = None
        messages = [str(w.message) for w in caught if w.category is RuntimeWarning]
        args = [expr] + [f"{n}={paths[n]}" for n in arrays if n in expr.split("(", 1)[1]]
        code, _, err = run(*args, "-o", out)
        if want is None:
            if code != 1:
                fail(f"{expr}: NumPy refuses it, kbench exit {code} {err!r}")
            continue
        if code != 0:
            fail(f"{expr}: exit {code}, {err!r}; NumPy gives {want!r}")
            continue
        got = np.load(out)
        if got.shape != want.shape or got.dtype != want.dtype or not np.allclose(
                got, want, rtol=1e-6, equal_nan=True):
            fail(f"{expr}: {got!r}, NumPy {want!r}")
        lines = [l for l in err.splitlines() if "RuntimeWarning" in l]
        if lines != ["kbench eval: RuntimeWarning: " + m for m in messages]:
            fail(f"{expr}: warnings {lines}, NumPy {messages}")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        check_numpy_forms(tmp)
        check_reductions(tmp)
        check_nan_extremes(tmp)
        check_settings(tmp)
        check_printing(tmp)
        check_errors(tmp)
    sys.exit(finish("eval"))


if __name__ == "__main__":
    main()
