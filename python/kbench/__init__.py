"""kbench's kernels for NumPy arrays.

The reductions take NumPy's arguments and give NumPy's result types, computed by libkbench on
the array in place (any strides, negative ones included; bool, integers, float16, bfloat16
from ml_dtypes, float32 and float64): sums in float64 blocks combined pairwise, so more
accurate than NumPy's; var and std in one pass. See docs/python.md.

    >>> import numpy as np, kbench
    >>> kbench.mean(np.arange(6.0).reshape(2, 3), axis=0)
    array([1.5, 2.5, 3.5])
"""
import contextlib as _contextlib
import json as _json

from ._kbench import (  # noqa: F401 (the public API)
    __version__,
    argmax,
    argmin,
    eval,
    get_simd,
    get_threads,
    git_commit,
    max,
    mean,
    min,
    prod,
    set_simd,
    set_threads,
    std,
    sum,
    var,
)
from . import _kbench

__all__ = ["sum", "prod", "mean", "min", "max", "argmin", "argmax", "var", "std", "eval",
           "set_simd", "get_simd", "simd", "set_threads", "get_threads", "info"]


def info():
    """What `kbench info --json` reports, as a dict: the build, the system, the CPU, its clock
    (measured, which takes about a tenth of a second), the SIMD levels compiled, available and
    selected, the thread count and the warnings about unreliable timings."""
    return _json.loads(_kbench.info_json())


@_contextlib.contextmanager
def simd(level):
    """Runs the block at the SIMD level `level` ("auto", "scalar", "avx2", "avx512", "neon" or
    "sve"), then restores the level that was in force. The level is process-wide, as
    set_simd's: other threads see it too while the block runs."""
    previous = get_simd()
    set_simd(level)
    try:
        yield
    finally:
        set_simd(previous)
