"""The API's edges: inputs of every kind (buffer-protocol objects without a copy, lists, other
byte orders, 0-d arrays), out=, keepdims, eval's warnings, and the stub and docstrings."""
import array
import ast
import pathlib
import warnings

import numpy as np
import pytest

import kbench

STUB = pathlib.Path(kbench.__file__).with_name("__init__.pyi")


def test_buffer_protocol_objects():
    assert kbench.sum(array.array("i", [1, 2, 3])) == 6
    assert kbench.max(memoryview(b"\x05\x09\x02")) == 9
    m = memoryview(array.array("d", range(12))).cast("B").cast("d", (3, 4))
    np.testing.assert_array_equal(kbench.sum(m, axis=0), np.sum(np.asarray(m), axis=0))
    assert kbench.argmax(bytearray(b"\x01\x07\x03")) == 1


def test_buffer_inputs_are_read_in_place():
    """A view of a writable buffer: a change to the buffer shows in the next result."""
    buf = bytearray(np.arange(4, dtype=np.float64).tobytes())
    view = memoryview(buf).cast("d")
    assert kbench.sum(view) == 6.0
    np.frombuffer(buf, np.float64)[0] = 10.0
    assert kbench.sum(view) == 16.0


def test_zero_strides():
    """A broadcast view repeats its elements without memory of its own: strides of 0."""
    x = np.broadcast_to(np.arange(3.0), (4, 3))
    assert x.strides[0] == 0
    np.testing.assert_array_equal(kbench.sum(x, axis=0), [0.0, 4.0, 8.0])
    assert kbench.argmax(x) == 2


def test_lists_and_scalars():
    assert kbench.sum([[1, 2], [3, 4]]) == np.sum([[1, 2], [3, 4]])
    assert kbench.mean(3.5) == 3.5
    assert kbench.sum(np.float32(2)).dtype == np.float32


def test_zero_d_axis_as_numpy():
    x = np.array(4.0)
    assert kbench.sum(x, axis=0) == np.sum(x, axis=0)
    assert kbench.argmax(x, axis=-1) == np.argmax(x, axis=-1)
    with pytest.raises(np.exceptions.AxisError):
        kbench.mean(x, axis=0)
    with pytest.raises(np.exceptions.AxisError):
        np.mean(x, axis=0)


def test_other_byte_order():
    x = np.arange(10, dtype=">f8")
    assert kbench.sum(x) == 45.0
    assert kbench.max(x.astype(">i4")) == 9


def test_results_are_numpy():
    x = np.arange(6.0).reshape(2, 3)
    assert type(kbench.sum(x)) is np.float64
    r = kbench.sum(x, axis=0)
    assert type(r) is np.ndarray and r.flags.c_contiguous and r.flags.writeable
    assert kbench.sum(x, keepdims=True).shape == (1, 1)
    assert kbench.argmin(x, axis=1, keepdims=True).shape == (2, 1)


def test_out():
    x = np.arange(12.0).reshape(3, 4)
    out = np.full(8, -1.0)[::2]  # strided: written in place
    assert kbench.sum(x, axis=0, out=out) is out
    np.testing.assert_array_equal(out, x.sum(axis=0))
    cast = np.zeros(3, np.int32)
    assert kbench.mean(x, axis=1, out=cast) is cast
    np.testing.assert_array_equal(cast, np.mean(x, axis=1, out=np.zeros(3, np.int32)))
    zero_d = np.zeros(())
    assert kbench.max(x, out=zero_d) is zero_d and zero_d == 11.0


def test_eval():
    x = np.arange(24.0).reshape(2, 3, 4)
    np.testing.assert_array_equal(kbench.eval("np.sum(x, axis=(0, 2))", x=x),
                                  np.sum(x, axis=(0, 2)))
    np.testing.assert_allclose(kbench.eval("std(v, 1, ddof=1)", v=x), np.std(x, 1, ddof=1))
    assert kbench.eval("sum(max(x, axis=-1))", x=x) == np.sum(np.max(x, axis=-1))
    assert kbench.eval("mean(a)", a=[1, 2]) == 1.5


def test_eval_warnings_as_numpy():
    with pytest.warns(RuntimeWarning, match="Mean of empty slice"):
        assert np.isnan(kbench.eval("mean(x)", x=np.zeros(0)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(RuntimeWarning):
            kbench.eval("var(x, ddof=1)", x=np.zeros(1))


def test_bfloat16_keeps_its_dtype():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    x = np.arange(8).astype(ml_dtypes.bfloat16)
    assert kbench.sum(x).dtype == x.dtype
    assert kbench.max(x.reshape(2, 4), axis=0).dtype == x.dtype
    assert float(kbench.mean(x)) == 3.5
    assert kbench.eval("min(x)", x=x).dtype == x.dtype


def test_stub_and_docstrings():
    tree = ast.parse(STUB.read_text())
    stubbed = {node.name: ast.get_docstring(node) for node in tree.body
               if isinstance(node, ast.FunctionDef)}
    for name in kbench.__all__:
        assert stubbed.get(name), f"{name} has no stub with a docstring"
        assert getattr(kbench, name).__doc__, f"{name} has no docstring"
    assert (STUB.parent / "py.typed").exists()
    # The signatures Python sees are the stub's.
    import inspect
    assert str(inspect.signature(kbench.var)) == \
        "(a, axis=None, *, ddof=0, keepdims=False, out=None)"
