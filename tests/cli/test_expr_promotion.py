#!/usr/bin/env python3
"""kbench's type promotion against NumPy 2's: the dtype of x + y for every pair of dtypes the
elementwise operations take (numpy.result_type), of x + scalar for each kind of Python scalar
(NEP 50: weak scalars), and of every operator and function on each dtype, each with NumPy's
value on small inputs; and NumPy's refusals (a Python int out of a type's bounds, boolean
subtraction, bitwise operations on floats) refused alike.

Usage: test_expr_promotion.py path/to/kbench"""

import os
import sys
import tempfile
import warnings

import numpy as np

from expr_functions import NUMPY_FUNCTIONS
from harness import count, fail, finish, kbench, sampled

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64"]
FUNCTIONS = NUMPY_FUNCTIONS
OPERATORS = ["+", "-", "*", "/", "//", "%", "**", "<", "==", "&", "|"]

warnings.simplefilter("ignore")
np.seterr(all="ignore")


def dtypes_of(env):
    """The dtypes of an expression's arrays (its names include functions and scalars too)."""
    return [str(v.dtype) for v in env.values() if isinstance(v, np.ndarray)]


def numpy_result(expr, env):
    try:
        return np.asarray(eval(expr, {**FUNCTIONS, "np": np}, env)), None
    except (TypeError, ValueError, OverflowError) as e:
        return None, e


def check(expr, env, files):
    """kbench eval of expr gives NumPy's dtype and values, or fails where NumPy raises."""
    ref, error = numpy_result(expr, env)
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.npy")
        code, _, err = kbench("eval", expr, *files, "-o", out)
        count()
        if error is not None:
            if code != 1:
                fail(f"{expr} with {dtypes_of(env)}: NumPy raised "
                     f"{type(error).__name__} ({error}), kbench exit {code}")
            return
        if code != 0:
            fail(f"{expr} with {dtypes_of(env)}: kbench failed: "
                 f"{err.strip()}; NumPy gave {ref.dtype}")
            return
        got = np.load(out)
        if got.dtype != ref.dtype:
            fail(f"{expr} with {dtypes_of(env)}: {got.dtype}, NumPy "
                 f"{ref.dtype}")
        elif not np.allclose(got.astype(np.float64), ref.astype(np.float64), rtol=1e-3,
                             equal_nan=True):
            fail(f"{expr} with {dtypes_of(env)}: {got}, NumPy {ref}")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        arrays = {}
        for t in DTYPES:
            a = np.array([1, 2, 3]).astype(t) if t != "bool" else np.array([True, False, True])
            path = os.path.join(tmp, t + ".npy")
            np.save(path, a)
            arrays[t] = (a, path)

        # numpy.result_type, pair by pair (add's type is the promoted type), then each check
        # of a value and its dtype: (expression, NumPy's names, kbench's arguments).
        pairs = [(s, t) for s in DTYPES for t in DTYPES]
        checks = []
        # Python scalars (weak) beside each dtype, including ints beyond the type's bounds.
        for t in DTYPES:
            a, p = arrays[t]
            for scalar in ["2", "2.5", "True", "300", "-1", "70000", "1e300"]:
                for op in ["+", "*", ">"]:
                    checks.append((f"x {op} {scalar}", {"x": a}, ["x=" + p]))
            checks.append(("x * alpha", {"x": a, "alpha": 0.5}, ["x=" + p, "alpha=0.5"]))
            checks.append(("x * k", {"x": a, "k": 3}, ["x=" + p, "k=3"]))
        # Every operator and function on each dtype.
        for t in DTYPES:
            a, p = arrays[t]
            for op in OPERATORS:
                checks.append((f"x {op} x", {"x": a}, ["x=" + p]))
            checks.append(("(-x)", {"x": a}, ["x=" + p]))
            checks.append(("~x", {"x": a}, ["x=" + p]))
            for f in FUNCTIONS:
                checks.append((f"{f}(x)", {"x": a}, ["x=" + p]))
            checks.append(("where(x, x, 2.5)", {"x": a, "where": np.where}, ["x=" + p]))
            checks.append(("clip(x, 1, 300)", {"x": a, "clip": np.clip}, ["x=" + p]))
            checks.append(("maximum(x, 2)", {"x": a, "maximum": np.maximum}, ["x=" + p]))

        for s, t in sampled(pairs):
            (a, pa), (b, pb) = arrays[s], arrays[t]
            want = np.result_type(a, b)
            with tempfile.TemporaryDirectory() as out_dir:
                out = os.path.join(out_dir, "r.npy")
                code, _, err = kbench("eval", "x + y", "x=" + pa, "y=" + pb, "-o", out)
                count()
                if code != 0:
                    fail(f"result_type({s}, {t}): kbench failed: {err.strip()}")
                elif np.load(out).dtype != want:
                    fail(f"result_type({s}, {t}) = {want}, kbench {np.load(out).dtype}")
        for expr, env, files in sampled(checks):
            check(expr, env, files)
    return finish("expr promotion")


if __name__ == "__main__":
    sys.exit(main())
