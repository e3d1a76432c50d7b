#!/usr/bin/env python3
"""`x ** k` with a small integer k, which kbench computes by multiplication
(docs/expressions.md#small-integer-powers), against NumPy's `x ** k` end to end: float32 and
float64 arrays of special values (signed zeros, infinities, NaN, subnormals, the largest
finite, values a part in 256 on either side of the thresholds where x ** k overflows, turns
subnormal and underflows) and random ones, for k = 2, 3, 4 (the bound) and 5 (past it: pow),
fused and --eager, at every SIMD level this machine runs. The dtype and shape must be NumPy's;
NaN, infinities, zeros and signs must be NumPy's exactly; every other value must be within the
documented bound of the exact power (long double), that of pow (1 ULP) for k = 5. A scalar
bound by name (k=3) and an integer-valued float literal (3.0) give the literal's bits.

Usage: test_int_power.py path/to/kbench"""

import os
import sys
import tempfile

import numpy as np

from harness import check, finish, kbench

BOUND = {2: 0.5, 3: 2, 4: 3, 5: 1}  # ULP; 5 is pow's (docs/expressions.md)


def inputs(dtype, k, rng):
    info = np.finfo(dtype)
    big, tiny, least = float(info.max), float(info.tiny), float(info.smallest_subnormal)
    v = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, -3.0, big, -big, tiny, -tiny,
         least, -least]
    for t in (big ** (1 / k), tiny ** (1 / k), least ** (1 / k)):
        for f in (1 - 2.0 ** -8, 1 + 2.0 ** -8):
            v += [t * f, -t * f]
    lo, hi = np.log2(tiny) / k, np.log2(big) / k
    v += list(rng.choice([-1, 1], 2000) * np.exp2(rng.uniform(lo, hi, 2000)))
    return np.array(v, dtype=dtype)


def ulps(got, exact, dtype):
    """|got - exact| in units in the last place of dtype at exact (tests/ulp.h's measure)."""
    info = np.finfo(dtype)
    with np.errstate(all="ignore"):
        e = np.maximum(np.frexp(exact)[1], info.minexp + 1)
        err = np.abs(got.astype(np.longdouble) - exact) / np.ldexp(np.longdouble(1),
                                                                   e - (info.nmant + 1))
        return np.where(got == exact.astype(dtype), 0.0, err)


def levels():
    return [lv for lv in ("scalar", "avx2", "avx512", "neon", "sve")
            if kbench("eval", "1", "--simd", lv).returncode == 0]


def run(tmp, source, x, *extra):
    path, out = os.path.join(tmp, "x.npy"), os.path.join(tmp, "out.npy")
    np.save(path, x)
    if os.path.exists(out):
        os.remove(out)
    code, _, err = kbench("eval", source, f"x={path}", "-o", out, *extra)
    if not check(code == 0, f"{source} {extra}: exit {code}, {err.strip()}"):
        return None
    return np.load(out)


def main():
    rng = np.random.default_rng(19)
    with tempfile.TemporaryDirectory() as tmp:
        for dtype in (np.float32, np.float64):
            for k in (2, 3, 4, 5):
                x = inputs(dtype, k, rng)
                with np.errstate(all="ignore"):
                    want = x ** k
                    exact = x.astype(np.longdouble) ** k
                    special = ~np.isfinite(want) | (want == 0) | ~np.isfinite(exact.astype(dtype))
                for level in levels():
                    for mode in ((), ("--eager",)):
                        label = f"{np.dtype(dtype).name} x ** {k} [{level}{' eager' if mode else ''}]"
                        got = run(tmp, f"x ** {k}", x, "--simd", level, *mode)
                        if got is None:
                            continue
                        check(got.dtype == want.dtype and got.shape == want.shape,
                              f"{label}: {got.dtype}{got.shape}, NumPy {want.dtype}{want.shape}")
                        same = (np.isnan(got) == np.isnan(want)) & (
                            np.isnan(want) | ((got == want) & (np.signbit(got) == np.signbit(want))))
                        bad = special & ~same
                        check(not bad.any(), f"{label}: NumPy's special values differ at "
                              f"{x[bad][:4]}: kbench {got[bad][:4]}, NumPy {want[bad][:4]}")
                        err = ulps(got[~special], exact[~special], dtype)
                        check(err.max() <= BOUND[k], f"{label}: {err.max():.3g} ULP from the exact "
                              f"power at {x[~special][np.argmax(err)]!r}, bound {BOUND[k]}")
                        if k <= 4:
                            # every way of writing k gives the same bits
                            for source, more in (("x ** k", ("k=%d" % k,)),
                                                 (f"x ** {k}.0", ())):
                                other = run(tmp, source, x, "--simd", level, *mode, *more)
                                check(other is not None and other.tobytes() == got.tobytes(),
                                      f"{label}: {source} {more} differs from x ** {k}")
    return finish("int power")


if __name__ == "__main__":
    sys.exit(main())
