"""kbench's reductions against NumPy on random arrays: shapes (0-d and empty included), every
dtype, strided and negatively strided views, axes (None, one, tuples), keepdims and ddof; exact
where NumPy is exact, within kbench's documented error bound otherwise (reference.py)."""
import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import kbench
import reference as ref


@st.composite
def views(draw, dtypes=ref.DTYPES):
    """A view of a random array: a random shape, then a step (negative too) and an offset per
    axis, and sometimes a transpose, so that the view is rarely contiguous."""
    dtype = ref.dtype_of(draw(st.sampled_from(dtypes)))
    ndim = draw(st.integers(0, 4))
    base_shape = tuple(draw(st.lists(st.integers(0, 7), min_size=ndim, max_size=ndim)))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    base = ref.random_array(rng, base_shape, dtype)
    index = []
    for n in base_shape:
        step = draw(st.sampled_from([1, 1, 2, -1, -2, 3]))
        start = draw(st.integers(0, max(n - 1, 0))) if draw(st.booleans()) else None
        index.append(slice(start, None, step))
    a = base[tuple(index)]
    if ndim > 1 and draw(st.booleans()):
        a = a.transpose(draw(st.permutations(range(ndim))))
    if ref.is_float(dtype) and a.size and draw(st.integers(0, 9)) == 0:
        a = a.copy()
        a.flat[draw(st.integers(0, a.size - 1))] = draw(st.sampled_from([np.nan, np.inf, -np.inf]))
    return a


@st.composite
def axes(draw, ndim, single=False):
    if ndim == 0 or draw(st.integers(0, 3)) == 0:
        return None
    if single or draw(st.booleans()):
        return draw(st.integers(-ndim, ndim - 1))
    chosen = draw(st.lists(st.integers(0, ndim - 1), unique=True, max_size=ndim))
    return tuple(k - ndim if draw(st.booleans()) else k for k in chosen)


def identity_free(op, a, axis):
    """min, max, argmin and argmax of no elements are errors (tested in test_errors.py)."""
    return op not in ("min", "max", "argmin", "argmax") or ref.reduced_count(a.shape, axis) > 0


@given(data=st.data(), op=st.sampled_from(ref.OPS), keepdims=st.booleans())
def test_reductions_match_numpy(data, op, keepdims):
    a = data.draw(views())
    axis = data.draw(axes(a.ndim, single=op in ("argmin", "argmax")))
    assume(identity_free(op, a, axis))
    got = getattr(kbench, op)(a, axis=axis, keepdims=keepdims)
    assert isinstance(got, (np.ndarray, np.generic))
    ref.check(op, a, axis, keepdims, got)


@given(data=st.data(), op=st.sampled_from(["var", "std"]),
       ddof=st.sampled_from([0, 1, 2, 0.5]))
def test_ddof_matches_the_exact_reference(data, op, ddof):
    a = data.draw(views([d for d in ref.DTYPES if d != "bool"]))
    axis = data.draw(axes(a.ndim))
    assume(ref.reduced_count(a.shape, axis) > ddof)
    ref.check(op, a, axis, False, getattr(kbench, op)(a, axis=axis, ddof=ddof), ddof=ddof)


@given(data=st.data(), op=st.sampled_from(ref.OPS))
def test_eval_matches_the_functions(data, op):
    """kbench.eval of a call is the same call, bit for bit."""
    a = data.draw(views())
    axis = data.draw(axes(a.ndim, single=op in ("argmin", "argmax")))
    assume(identity_free(op, a, axis))
    got = kbench.eval(f"np.{op}(x, axis={axis!r})", x=a)
    want = getattr(kbench, op)(a, axis=axis)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    assert np.asarray(got).dtype == np.asarray(want).dtype


@pytest.mark.parametrize("dtype", ref.FLOATS)
def test_long_sums_follow_the_bound(dtype):
    """The bound of docs/reductions.md on lengths past one block, along every axis."""
    rng = np.random.default_rng(7)
    a = ref.random_array(rng, (3000, 7), ref.dtype_of(dtype))
    for axis in (None, 0, 1, (0, 1)):
        for op in ("sum", "mean", "var", "std"):
            ref.check(op, a, axis, False, getattr(kbench, op)(a, axis=axis))
            ref.check(op, a[::-3, ::-1], axis, False, getattr(kbench, op)(a[::-3, ::-1], axis=axis))
