"""The independent reference the Python tests hold kbench to: NumPy for the result's dtype,
shape and the ops that pick an element, and exact or long double arithmetic with the error
bounds of docs/reductions.md for the ones that round."""
import numpy as np

try:
    import ml_dtypes
    BFLOAT16 = np.dtype(ml_dtypes.bfloat16)
except ImportError:  # kbench reads bfloat16 without it; the tests that make one need it
    BFLOAT16 = None

INTEGERS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
FLOATS = ["float16", "float32", "float64"] + (["bfloat16"] if BFLOAT16 is not None else [])
DTYPES = ["bool"] + INTEGERS + FLOATS
OPS = ["sum", "prod", "mean", "min", "max", "argmin", "argmax", "var", "std"]

# The unit roundoff of each float type: the result's own rounding.
UNIT = {"float16": 2.0**-11, "bfloat16": 2.0**-8, "float32": 2.0**-24, "float64": 2.0**-53}
# The smallest subnormal (a result that underflows is off by at most that) and the largest
# finite value (beyond it the rounded result is infinite).
TINY = {"float16": 2.0**-24, "bfloat16": 2.0**-133, "float32": 2.0**-149, "float64": 5e-324}
LARGEST = {"float16": 65504.0, "bfloat16": 3.3895313892515355e38,
           "float32": 3.4028234663852886e38, "float64": 1.7976931348623157e308}


def dtype_of(name):
    return BFLOAT16 if name == "bfloat16" else np.dtype(name)


def is_float(dtype):
    return dtype.name in UNIT


def random_array(rng, shape, dtype):
    """Values a reduction of this dtype can be checked on: integers over their whole range (sums
    wrap, as NumPy's), floats in [-4, 4] so that products neither overflow nor vanish."""
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)
    return (rng.random(shape) * 8 - 4).astype(dtype)


def reduced_count(shape, axis):
    if axis is None:
        axes = range(len(shape))
    else:
        axes = axis if isinstance(axis, tuple) else (axis,)
    n = 1
    for k in axes:
        n *= shape[k]
    return n


def with_keepdims(value, shape, axis, keepdims):
    if not keepdims:
        return value
    axes = range(len(shape)) if axis is None else (axis if isinstance(axis, tuple) else (axis,))
    return np.expand_dims(value, tuple(k % len(shape) for k in axes)) if shape else value


def numpy_result(op, a, axis, keepdims):
    """NumPy's own answer (for the dtype and shape, and the value of the ops that pick)."""
    with np.errstate(all="ignore"):
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return np.asarray(getattr(np, op)(a, axis=axis, keepdims=keepdims))


def _reduces_contiguous(a, axis):
    """Whether axis (None, an int or a tuple) reduces an axis of a, longer than 1, whose
    elements are adjacent in memory."""
    axes = range(a.ndim) if axis is None else (axis if isinstance(axis, tuple) else (axis,))
    return any(a.shape[i] > 1 and abs(a.strides[i]) == a.itemsize for i in axes)


def check(op, a, axis, keepdims, got, ddof=0):
    """Asserts that kbench's `got` is op(a) as NumPy defines it: NumPy's dtype and shape, the
    exact value where no rounding is involved, else within kbench's error bound of an exact
    (long double) reference."""
    expected = numpy_result(op, a, axis, keepdims) if ddof == 0 else None
    got = np.asarray(got)
    if expected is not None:
        assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
        assert got.shape == expected.shape, (got.shape, expected.shape)
    exact_ops = op in ("min", "max", "argmin", "argmax")
    integral = a.dtype == np.bool_ or a.dtype.kind in "iu"
    if exact_ops or (integral and op in ("sum", "prod")):
        if got.dtype == BFLOAT16:  # NumPy's comparison sees no NaN in ml_dtypes' type
            got, expected = got.astype(np.float32), expected.astype(np.float32)
        np.testing.assert_array_equal(got, expected)
        return
    wide = a.astype(np.longdouble) if not integral else a.astype(np.longdouble)
    n = reduced_count(a.shape, axis)
    unit = UNIT.get(got.dtype.name, 2.0**-53)
    with np.errstate(all="ignore"):
        if op == "sum":
            ref = np.sum(wide, axis=axis, keepdims=keepdims)
            scale = np.sum(np.abs(wide), axis=axis, keepdims=keepdims)
            lanes = 0 if a.dtype.name == "float64" or integral else 16 * 2.0**-24
            tol = (lanes + n * 2.0**-50 + 2.0**-52) * scale + unit * np.abs(ref)
        elif op == "mean":
            ref = np.sum(wide, axis=axis, keepdims=keepdims) / n
            scale = np.sum(np.abs(wide), axis=axis, keepdims=keepdims) / max(n, 1)
            lanes = 0 if a.dtype.name == "float64" or integral else 16 * 2.0**-24
            tol = (lanes + n * 2.0**-50 + 2.0**-52) * scale + 2 * unit * np.abs(ref)
        elif op == "prod":
            ref = np.prod(wide, axis=axis, keepdims=keepdims)
            # Each factor rounded once in float64, then the result in its type.
            tol = (n + 1) * 2.0**-52 * np.abs(ref) + unit * np.abs(ref)
        else:  # var, std: a two-pass long double reference
            mean = np.sum(wide, axis=axis, keepdims=True) / n
            dev = np.sum((wide - mean) ** 2, axis=axis, keepdims=keepdims)
            var = dev / max(n - ddof, 0) if n - ddof > 0 else dev / 0.0
            meansq = np.sum(wide * wide, axis=axis, keepdims=keepdims) / max(n, 1)
            # One pass by blocks, merged with Chan's formula (docs/reductions.md): within
            # 2^-36 of the scale, then rounded to the result's type; float32 along a kept
            # contiguous axis keeps its deviations and squares in float32 lanes, within 80
            # float32 roundings of the variance (40 of the standard deviation).
            lanes_path = a.dtype.name == "float32" and not _reduces_contiguous(a, axis)
            lanes = 80 * 2.0**-24 if lanes_path else 0
            spread = 2.0**-36 * meansq * max(n, 1) / max(n - ddof, 1)
            if op == "var":
                ref, tol = var, spread + (2 * unit + lanes) * np.abs(var)
            else:
                ref = np.sqrt(var)
                tol = (np.sqrt(spread + 2 * unit * np.abs(var))
                       + (2 * unit + lanes / 2) * np.abs(ref))
    name = got.dtype.name
    ref = np.asarray(ref, dtype=np.longdouble)
    tol = np.asarray(tol, dtype=np.longdouble) + TINY.get(name, 0.0)
    g = got.astype(np.longdouble)
    both_nan = np.isnan(g) & np.isnan(ref)
    same_inf = np.isinf(g) & (g == ref)
    # A result beyond the type's range rounds to infinity of its sign.
    overflow = np.isinf(g) & (np.abs(ref) * (1 - 2 * unit) > LARGEST.get(name, np.inf)) & \
        (np.sign(g) == np.sign(ref))
    ok = both_nan | same_inf | overflow | (np.abs(g - ref) <= tol)
    assert ok.all(), f"{op} of {a.dtype} {a.shape} axis={axis}: got {got}, want {ref} +- {tol}"
