"""Each mistake raises the exception NumPy raises for it, with kbench's message."""
import numpy as np
import pytest

import kbench

AxisError = np.exceptions.AxisError


def numpy_raises(call):
    """The exception class NumPy raises for a call (the tests' reference)."""
    try:
        call()
    except Exception as exc:  # noqa: BLE001 - any class is the answer
        return type(exc)
    raise AssertionError("NumPy accepted the call")


a = np.arange(12.0).reshape(3, 4)

MISTAKES = [
    ("sum", (a,), {"axis": 2}, "axis 2 out of range for a 2-d array"),
    ("mean", (a,), {"axis": -3}, "axis -3 out of range"),
    ("var", (a,), {"axis": (0, 5)}, "axis 5 out of range"),
    ("argmax", (a,), {"axis": 2}, "axis 2 out of range"),
    ("sum", (a,), {"axis": 5_000_000_000}, "axis 5000000000 out of range"),
    ("min", (a,), {"axis": 10**30}, "cannot fit"),
    ("sum", (a,), {"axis": (0, 0)}, "axis 0 repeated"),
    ("max", (a,), {"axis": (1, -1)}, "repeated"),
    ("argmin", (a,), {"axis": (0, 1)}, "cannot be interpreted as an integer"),
    ("sum", (a,), {"axis": 1.0}, "cannot be interpreted as an integer"),
    ("min", (np.zeros((0, 3)),), {}, "zero-size array to reduction operation min"),
    ("max", (np.zeros((2, 0)),), {"axis": 1}, "zero-size array"),
    ("argmax", (np.zeros(0),), {}, "zero-size array"),
    ("mean", (np.array(["a", "b"]),), {}, "does not reduce arrays of dtype"),
    ("sum", (a,), {"ddof": 1}, "unexpected keyword argument 'ddof'"),
    ("sum", (a,), {"axes": 1}, "unexpected keyword argument 'axes'"),
    ("sum", (a, 0), {"axis": 1}, "multiple values for argument 'axis'"),
    ("sum", (a,), {"out": np.zeros(5)}, "wrong shape"),
]


@pytest.mark.parametrize("op,args,kwargs,message", MISTAKES)
def test_numpy_exception_with_kbench_message(op, args, kwargs, message):
    expected = numpy_raises(lambda: getattr(np, op)(*args, **kwargs))
    with pytest.raises(Exception) as info:
        getattr(kbench, op)(*args, **kwargs)
    assert isinstance(info.value, expected) or issubclass(expected, type(info.value)), \
        (type(info.value), expected)
    assert message in str(info.value)


def test_a_dtype_kbench_lacks_is_a_type_error():
    """As NumPy's TypeError for a dtype it cannot reduce (strings, above); NumPy itself does
    reduce complex numbers, which kbench does not."""
    with pytest.raises(TypeError, match="kbench does not reduce arrays of dtype complex128"):
        kbench.sum(np.ones(3, complex))
    with pytest.raises(TypeError, match="dtype object"):
        kbench.max(np.array([1, "x"], dtype=object))


def test_axis_error_is_numpys():
    with pytest.raises(AxisError, match="axis 2 out of range for a 2-d array"):
        kbench.sum(a, axis=2)
    # NumPy's AxisError is also a ValueError and an IndexError, as code catching it expects.
    with pytest.raises(IndexError):
        kbench.mean(a, axis=7)


def test_read_only_out_is_refused():
    out = np.zeros(4)
    out.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        kbench.sum(a, axis=0, out=out)
    with pytest.raises(ValueError):
        np.sum(a, axis=0, out=out)


def test_out_that_is_not_an_array():
    with pytest.raises(TypeError, match="out must be a NumPy array"):
        kbench.sum(a, axis=0, out=[0.0] * 4)


def test_missing_and_extra_arguments():
    with pytest.raises(TypeError, match="missing required argument 'a'"):
        kbench.sum()
    with pytest.raises(TypeError, match="at most 2 positional arguments"):
        kbench.sum(a, 0, None)


def test_eval_errors():
    with pytest.raises(SyntaxError, match="at column"):
        kbench.eval("sum(x,", x=a)
    with pytest.raises(ValueError, match="unknown keyword 'axes' at column 8"):
        kbench.eval("sum(x, axes=0)", x=a)
    with pytest.raises(AxisError, match="out of range for a 2-d array"):
        kbench.eval("sum(x, axis=3)", x=a)
    with pytest.raises(ValueError, match="'y'"):
        kbench.eval("sum(y)", x=a)
    with pytest.raises(NotImplementedError, match="dtype is not supported"):
        kbench.eval("sum(x, dtype=1)", x=a)
    assert np.array_equal(kbench.eval("x + x", x=a), a + a)
    with pytest.raises(TypeError, match="does not reduce arrays of dtype"):
        kbench.eval("sum(x)", x=np.ones(2, complex))


def test_settings_errors():
    with pytest.raises(ValueError, match="unknown SIMD level|'avx9'"):
        kbench.set_simd("avx9")
    with pytest.raises(TypeError):
        kbench.set_simd(2)
    with pytest.raises(ValueError, match="1 to 4096 threads"):
        kbench.set_threads(-1)
    with pytest.raises(TypeError):
        kbench.set_threads("2")
