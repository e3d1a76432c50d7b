#!/usr/bin/env python3
"""A differential fuzzer of the expression language: random expressions over random arrays,
evaluated by `kbench eval` and by NumPy 2 (SciPy for sigmoid and erf), which must agree on
whether the expression fails and, when it does not, on the result's dtype, shape and values.

What is generated: trees of Python's operators (+ - * / // % ** comparisons & | ~ unary -),
NumPy's elementwise functions, where, clip, astype and the reductions, over variables of every
dtype kbench computes in (bool, the integers, float16, float32, float64) whose shapes broadcast
(and sometimes do not), values that include NaN, infinities, signed zeros, subnormals and each
type's extremes, and Python int and float literals (weak scalars, NEP 50). Each expression runs
at one SIMD level of those this machine has and on 1 or 2 threads, in turn.

How results are compared:
- an expression NumPy refuses (OverflowError for a Python int out of a type's bounds,
  ValueError for a negative integer power, TypeError for boolean subtraction...) must fail in
  kbench with exit status 1, and the other way round;
- the dtype and shape must be NumPy's exactly;
- integer and boolean results must be equal, and so must float results of expressions whose
  operations are all exact in IEEE arithmetic (+ - * / sqrt, comparisons, floor, ...): both
  sides round each one correctly;
- float results that went through an inexact operation (exp, log, sin, ..., pow, erf, sigmoid,
  the float reductions, whose summation orders differ) may differ by the functions' documented
  error (docs/expressions.md), which an element's error can only grow by the sums and products
  after it: |kbench - numpy| <= TOL_ULPS * eps * (1 + reduced elements) * M, M the largest
  finite magnitude among the element's operands and intermediates. So that this bound holds,
  the generator never feeds an inexact value to an operation that could magnify its error
  without bound (a comparison, floor, a divisor, another function's argument); NaN and infinity
  must match, except that a value may overflow on one side only within TOL_ULPS of the
  largest finite, and NumPy's float32 reductions may overflow where kbench's, accumulating in
  float64, do not (operands beyond the square root of the largest finite);
- `a ** k` of exact values with a small integer literal k, which kbench computes by
  multiplication (docs/expressions.md), as the whole expression: within POWER_ULPS[k] of the
  exact power (a ** k in long double), the bound docs/expressions.md gives; NaN, infinities,
  zeros and signs exactly.

Also: results are bit-identical on 1, 2 and 3 threads at every level (check_threads).

Usage: test_expr_differential.py path/to/kbench [--count N] [--seed S]
The default is the fixed budget `make test` runs (KB_EXPR_FUZZ_COUNT overrides it); a failing
case is printed with its seed, expression, inputs and both results, and can be replayed with
--seed S --count 1."""

import argparse
import os
import sys
import tempfile
import warnings

import numpy as np

from expr_functions import NUMPY_FUNCTIONS
from harness import count, fail, finish, kbench

DEFAULT_COUNT = 400
TOL_ULPS = 16
# x ** k of a float32 or float64 array by multiplication: its bound in ULP of the exact power
# (docs/expressions.md; tests/expr/test_int_power.c measures it).
POWER_ULPS = {2: 0.5, 3: 2, 4: 3}

INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
FLOATS = ["float16", "float32", "float64"]
DTYPES = ["bool"] + INTS + FLOATS
VARS = ["x", "y", "z"]

# Functions of one array: (name, whether the result is exact, whether the argument must be
# exact for the bound to hold, whether integers are allowed).
UNARY = [
    ("abs", True, False), ("square", True, False), ("sqrt", True, True),
    ("floor", True, True), ("ceil", True, True), ("rint", True, True), ("sign", True, True),
    ("isnan", True, True), ("isfinite", True, True), ("reciprocal", True, True),
    ("exp", False, True), ("expm1", False, True), ("exp2", False, True), ("log", False, True),
    ("log1p", False, True), ("log2", False, True), ("log10", False, True), ("sin", False, True),
    ("cos", False, True), ("tan", False, True), ("arcsin", False, True),
    ("arccos", False, True), ("arctan", False, True), ("tanh", False, True),
    ("sinh", False, True), ("cosh", False, True), ("sigmoid", False, True), ("erf", False, True),
]
REDUCTIONS = ["sum", "prod", "mean", "min", "max", "argmin", "argmax", "var", "std"]
COMPARE = ["<", "<=", ">", ">=", "==", "!="]
BINARY = ["+", "-", "*", "/", "//", "%", "**", "&", "|"]

NAMESPACE = {
    **NUMPY_FUNCTIONS, "maximum": np.maximum,
    "minimum": np.minimum, "where": np.where, "clip": np.clip,
    "astype": lambda a, t: np.asarray(a).astype(t),
    **{r: getattr(np, r) for r in REDUCTIONS},
}


class Node:
    """An expression: its text, whether its values are exact (see the module's docstring),
    how many elements reductions summed into it, and the NumPy value (None: NumPy refused)."""

    def __init__(self, text, exact, reduced=0, power=None):
        self.text, self.exact, self.reduced = text, exact, reduced
        # for `base ** k` with exact base values and an integer literal k: (base, k)
        self.power = power


class Generator:
    def __init__(self, rng):
        self.rng = rng

    def choice(self, seq):
        return seq[int(self.rng.integers(len(seq)))]

    def shapes(self):
        """Shapes of the three variables, broadcasting together (mostly)."""
        ndim = int(self.rng.integers(0, 4))
        base = [int(self.rng.integers(1, 5)) for _ in range(ndim)]
        out = []
        for _ in VARS:
            k = int(self.rng.integers(0, ndim + 1))
            s = [d if self.rng.random() < 0.7 else 1 for d in base[ndim - k:]]
            out.append(tuple(s))
        if ndim and self.rng.random() < 0.05:  # a mismatch, which both must refuse
            s = list(out[0]) or [1]
            s[-1] = base[-1] + 1
            out[0] = tuple(s)
        return out

    def values(self, dtype, shape):
        n = int(np.prod(shape, dtype=np.int64))
        rng = self.rng
        if dtype == "bool":
            return (rng.random(n) < 0.5).reshape(shape)
        if dtype in INTS:
            info = np.iinfo(dtype)
            small = rng.integers(-4, 5, n)
            full = rng.integers(info.min, info.max, n, endpoint=True, dtype=np.int64
                                if dtype != "uint64" else np.uint64)
            pick = rng.random(n)
            v = np.where(pick < 0.6, small.astype(dtype), full.astype(dtype))
            extremes = np.array([info.min, info.max, 0], dtype=dtype)
            ex = rng.random(n) < 0.1
            v[ex] = extremes[rng.integers(0, 3, int(ex.sum()))]
            return v.reshape(shape)
        info = np.finfo(dtype)
        v = rng.normal(0, 3, n)
        wide = rng.random(n) < 0.15
        v[wide] = rng.normal(0, 1, int(wide.sum())) * 10.0 ** rng.integers(-30, 30, int(wide.sum()))
        specials = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, float(info.max),
                             -float(info.max), float(info.tiny), float(info.smallest_subnormal),
                             1.0, -1.0, 0.5])
        sp = rng.random(n) < 0.12
        v[sp] = specials[rng.integers(0, len(specials), int(sp.sum()))]
        with np.errstate(all="ignore"):
            return v.astype(dtype).reshape(shape)

    def literal(self):
        r = self.rng.random()
        if r < 0.45:
            return Node(str(int(self.rng.integers(-5, 6))), True)
        if r < 0.5:
            return Node(self.choice(["300", "-1", "70000", "-129", "4294967296"]), True)
        if r < 0.9:
            return Node(self.choice(["0.5", "2.0", "-1.5", "0.1", "3.25", "1e-3"]), True)
        return Node(self.choice(["1e30", "-1e300", "1e-40", "True", "False"]), True)

    def leaf(self):
        return Node(self.choice(VARS), True)

    def expr(self, depth, need_exact=False, need_array=True):
        """A random expression; need_exact: its values must be exact; need_array: it must
        involve a variable (no Python arithmetic on literals only)."""
        if depth <= 0 or self.rng.random() < 0.2:
            return self.leaf()
        r = self.rng.random()
        if r < 0.08 and not need_exact:
            # a power with a small integer literal (computed by multiplication up to 4), its
            # edges and beyond
            a = self.expr(depth - 1, True)
            k = self.choice(["2", "3", "4", "5", "-2", "3.0", "4.0", "5.0"])
            return Node(f"({a.text} ** {k})", False, a.reduced, (a, int(float(k))))
        if r < 0.35:
            op = self.choice(BINARY + COMPARE)
            magnify = op in ("/", "//", "%", "**", "&", "|") or op in COMPARE
            a = self.expr(depth - 1, need_exact or magnify)
            b = self.literal() if self.rng.random() < 0.35 else self.expr(
                depth - 1, need_exact or magnify)
            if self.rng.random() < 0.5:
                a, b = b, a
            exact = a.exact and b.exact and op != "**"
            if need_exact and not exact:
                return self.leaf()
            return Node(f"({a.text} {op} {b.text})", exact, max(a.reduced, b.reduced))
        if r < 0.42:
            op = self.choice(["-", "~"])
            a = self.expr(depth - 1, need_exact or op == "~")
            return Node(f"({op}{a.text})", a.exact, a.reduced)
        if r < 0.72:
            name, exact, strict = self.choice(UNARY)
            a = self.expr(depth - 1, need_exact or strict)
            exact = exact and a.exact
            if need_exact and not exact:
                return self.leaf()
            return Node(f"{name}({a.text})", exact, a.reduced)
        if r < 0.8:
            name = self.choice(["maximum", "minimum", "where", "clip"])
            if name == "where":
                c = self.expr(depth - 1, True)
                a, b = self.expr(depth - 1, need_exact), self.either(depth - 1, need_exact)
                return Node(f"where({c.text}, {a.text}, {b.text})", a.exact and b.exact,
                            max(a.reduced, b.reduced))
            if name == "clip":
                a = self.expr(depth - 1, need_exact)
                lo, hi = sorted([int(self.rng.integers(-5, 6)), int(self.rng.integers(-5, 6))])
                return Node(f"clip({a.text}, {lo}, {hi})", a.exact, a.reduced)
            a, b = self.expr(depth - 1, need_exact), self.either(depth - 1, need_exact)
            return Node(f"{name}({a.text}, {b.text})", a.exact and b.exact,
                        max(a.reduced, b.reduced))
        if r < 0.86:
            a = self.expr(depth - 1, True)
            t = self.choice(DTYPES)
            if t in INTS:
                # A float beyond the integer type is undefined in NumPy (C's cast) and refused
                # by kbench: only values every integer type holds are cast to one.
                a = Node(f"where(isfinite({a.text}), clip({a.text}, 0, 100), 0)", a.exact,
                         a.reduced)
            return Node(f"astype({a.text}, '{t}')", a.exact, a.reduced)
        name = self.choice(REDUCTIONS)
        a = self.expr(depth - 1, need_exact or name in ("argmin", "argmax", "min", "max"))
        axis = self.choice(["", ", axis=0", ", axis=-1", ", axis=None"])
        keep = ", keepdims=True" if self.rng.random() < 0.4 else ""
        exact = a.exact and name in ("min", "max", "argmin", "argmax")
        if need_exact and not exact:
            return self.leaf()
        return Node(f"{name}({a.text}{axis}{keep})", exact, a.reduced + 64)

    def either(self, depth, need_exact):
        return self.literal() if self.rng.random() < 0.3 else self.expr(depth, need_exact)


# ---- NumPy's side ---------------------------------------------------------------------------

def numpy_eval(text, arrays):
    """NumPy's result, or the exception it raises; intermediates' magnitudes are tracked by
    wrapping each operation (see magnitudes())."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return np.asarray(eval(text, {**NAMESPACE, **arrays})), None
        except (TypeError, ValueError, OverflowError, ZeroDivisionError,
                np.exceptions.AxisError) as e:
            return None, e


def magnitude(text, arrays, shape):
    """The largest finite magnitude, per element of the result's shape, among the inputs and
    every parenthesized or called subexpression that broadcasts to it (the others count by
    their largest element); and the machine epsilon of the least precise float type among
    them, whose rounding the result may carry."""
    m = np.zeros(shape)
    eps = 0.0
    peak = 0.0  # the largest anywhere, which a reduction may have mixed into any element
    subs = set()
    # Every balanced span that starts at '(' or a name before '(': the subexpressions.
    stack = []
    for i, c in enumerate(text):
        if c == "(":
            j = i
            while j > 0 and (text[j - 1].isalnum() or text[j - 1] == "_"):
                j -= 1
            stack.append(j)
        elif c == ")" and stack:
            subs.add(text[stack.pop():i + 1])
    for s in list(subs) + list(arrays):
        v, err = numpy_eval(s, arrays)
        if v is None or v.dtype.kind not in "fiub":
            continue
        if v.dtype.kind == "f":
            eps = max(eps, float(np.finfo(v.dtype).eps))
        with np.errstate(all="ignore"):
            a = np.abs(v.astype(np.float64))
        a = np.where(np.isfinite(a), a, 0.0)
        peak = max(peak, float(a.max()) if a.size else 0.0)
        try:
            m = np.maximum(m, np.broadcast_to(a, shape))
        except ValueError:
            m = np.maximum(m, a.max() if a.size else 0.0)
    return m, eps, peak


def ulps(got, exact, dtype):
    """|got - exact| in units in the last place of dtype at exact (the least subnormal's below
    the normal range), as tests/ulp.h measures: 0 where got is exact rounded, inf where they
    disagree on NaN, an infinity or a sign."""
    info = np.finfo(dtype)
    with np.errstate(all="ignore"):
        rounded = exact.astype(dtype)
        g = got.astype(np.longdouble)
        e = np.maximum(np.frexp(exact)[1], info.minexp + 1)
        err = np.abs(g - exact) / np.ldexp(np.longdouble(1), e - (info.nmant + 1))
    err = np.where(got == rounded, 0.0, err)
    err = np.where(np.isinf(got) != np.isinf(rounded), np.inf, err)
    err = np.where(np.isnan(got) != np.isnan(exact), np.inf, err)
    err = np.where(np.isnan(got) & np.isnan(exact), 0.0, err)
    return np.where(~np.isnan(got) & (np.signbit(got) != np.signbit(exact)), np.inf, err)


def compare_power(name, node, arrays, ref, got):
    """got, kbench's base ** k computed by multiplication, within POWER_ULPS[k] of the exact
    power of NumPy's base values."""
    base, k = node.power
    b, _ = numpy_eval(base.text, arrays)
    with np.errstate(all="ignore"):
        # the base as the loop computes it: an integer base is cast to the float result type
        exact = np.broadcast_to(b, ref.shape).astype(ref.dtype).astype(np.longdouble) ** k
    err = ulps(got, exact, ref.dtype)
    if not (err <= POWER_ULPS[k]).all():
        bad = np.argwhere(np.atleast_1d(err > POWER_ULPS[k]))[:3]
        return fail(f"{name}: {float(np.max(err)):.3g} ULP from the exact power at "
                    f"{bad.tolist()}, bound {POWER_ULPS[k]}\n kbench {got!r}\n numpy  {ref!r}")
    return True


def compare(name, node, arrays, ref, got):
    """Whether got (kbench's) is ref (NumPy's) as the module's docstring says."""
    if got.dtype != ref.dtype or got.shape != ref.shape:
        return fail(f"{name}: dtype/shape {got.dtype}{got.shape}, NumPy {ref.dtype}{ref.shape}")
    if ref.dtype.kind != "f":
        if not np.array_equal(got, ref):
            return fail(f"{name}: values differ\n kbench {got!r}\n numpy  {ref!r}")
        return True
    if node.power and node.power[1] in POWER_ULPS and ref.dtype in (np.float32, np.float64):
        STATS["powers by multiplication"] += 1
        return compare_power(name, node, arrays, ref, got)
    g, r = got.astype(np.float64), ref.astype(np.float64)
    same_nan = np.isnan(g) == np.isnan(r)
    if node.exact:
        ok = same_nan & ((g == r) | np.isnan(r))
    else:
        big = float(np.finfo(ref.dtype).max) * (1 - TOL_ULPS * float(np.finfo(ref.dtype).eps))
        m, eps, peak = magnitude(node.text, arrays, ref.shape)
        eps = max(eps, float(np.finfo(ref.dtype).eps))
        with np.errstate(all="ignore"):
            tol = TOL_ULPS * eps * (1 + node.reduced) * np.maximum(m, np.abs(np.where(
                np.isfinite(r), r, 0)))
            close = np.abs(g - r) <= tol
        overflow = (np.isinf(g) & (np.abs(r) >= big)) | (np.isinf(r) & (np.abs(g) >= big))
        if node.reduced:
            # kbench's reductions accumulate float32 in float64 (docs/reductions.md): the
            # squares of var and std, or a sum, may overflow in NumPy's float32 only.
            root = np.sqrt(float(np.finfo(ref.dtype).max))
            overflow |= np.isinf(r) & np.isfinite(g) & (peak >= root)
        ok = same_nan & (np.isnan(r) | (g == r) | close | overflow)
        # A NaN on one side only is allowed where the other overflowed to inf or NaN came of
        # an infinity only one side reached (inf - inf).
        ok |= ~same_nan & (np.isinf(g) | np.isinf(r) | (np.abs(np.where(np.isnan(g), r, g)) >= big))
    if not ok.all():
        bad = np.argwhere(~ok.reshape(ref.shape) if ref.shape else ~np.atleast_1d(ok))[:3]
        return fail(f"{name}: values differ at {bad.tolist()}\n kbench {got!r}\n numpy  {ref!r}")
    return True


def levels():
    """The SIMD levels this build and CPU run."""
    out = []
    for level in ["scalar", "avx2", "avx512", "neon", "sve"]:
        if kbench("eval", "1", "--simd", level).returncode == 0:
            out.append(level)
    return out


STATS = {"refused by both": 0, "exact": 0, "within the bound": 0, "powers by multiplication": 0}


def run_case(seed, tmp, simd, threads):
    rng = np.random.default_rng(seed)
    gen = Generator(rng)
    shapes = gen.shapes()
    arrays, args = {}, []
    for v, shape in zip(VARS, shapes):
        a = gen.values(gen.choice(DTYPES), shape)
        arrays[v] = a
        path = os.path.join(tmp, f"{v}.npy")
        np.save(path, a)
        args.append(f"{v}={path}")
    node = gen.expr(int(rng.integers(1, 4)))
    name = f"seed {seed} [{simd}, {threads} thread(s)] {node.text!r} with " + ", ".join(
        f"{v}: {a.dtype}{a.shape}" for v, a in arrays.items())
    ref, error = numpy_eval(node.text, arrays)
    out = os.path.join(tmp, "out.npy")
    if os.path.exists(out):
        os.remove(out)
    code, _, err = kbench("eval", node.text, *args, "-o", out, "--simd", simd,
                          "--threads", str(threads))
    count()
    if error is not None:
        if code != 1:
            return fail(f"{name}: NumPy raised {type(error).__name__}: {error}; kbench exit "
                        f"{code}")
        STATS["refused by both"] += 1
        return True
    if code != 0:
        return fail(f"{name}: kbench failed (exit {code}): {err.strip()}; NumPy gave "
                    f"{ref.dtype}{ref.shape}")
    ok = compare(name, node, arrays, ref, np.load(out))
    STATS["exact" if node.exact or ref.dtype.kind != "f" else "within the bound"] += ok
    if not ok:
        print("  inputs:", {k: v.tolist() for k, v in arrays.items()})
    return ok


def check_threads(tmp, available):
    """Results are bit-identical for any thread count: a large expression (blocks split among
    threads at different places) with broadcasting, strides of a transposed operand and
    transcendental functions, at every level, on 1, 2 and 3 threads."""
    rng = np.random.default_rng(7)
    x = rng.normal(size=(301, 1027)).astype(np.float32)
    y = rng.normal(size=(1027,)).astype(np.float64)
    paths = []
    for name, a in (("x", x), ("y", y)):
        paths.append(f"{name}={os.path.join(tmp, name + '.npy')}")
        np.save(os.path.join(tmp, name + ".npy"), a)
    source = "tanh(x) * exp(y / 4) + sigmoid(x - y) ** 1.5 - where(x > 0, log1p(abs(x)), sin(y))"
    for simd in available:
        outputs = []
        for threads in ("1", "2", "3"):
            out = os.path.join(tmp, f"threads{threads}.npy")
            code, _, err = kbench("eval", source, *paths, "-o", out, "--simd", simd,
                                  "--threads", threads)
            count()
            if code != 0:
                fail(f"{simd}, {threads} threads: exit {code}, {err.strip()}")
                continue
            outputs.append(np.load(out).tobytes())
        count()
        if len(set(outputs)) != 1:
            fail(f"{simd}: results differ between 1, 2 and 3 threads")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("kbench")
    parser.add_argument("--count", type=int,
                        default=int(os.environ.get("KB_EXPR_FUZZ_COUNT", DEFAULT_COUNT)))
    parser.add_argument("--seed", type=int, default=20261126)
    args = parser.parse_args()
    available = levels()
    print(f"SIMD levels: {', '.join(available)}; {args.count} expressions from seed {args.seed}")
    with tempfile.TemporaryDirectory() as tmp:
        check_threads(tmp, available)
        for i in range(args.count):
            run_case(args.seed + i, tmp, available[i % len(available)], 1 + (i // len(available)) % 2)
    print(", ".join(f"{k}: {v}" for k, v in STATS.items()))
    return finish("expr differential")


if __name__ == "__main__":
    sys.exit(main())
