# Type stub of the kbench package (python/kbench): its functions, as editors complete them.
from contextlib import AbstractContextManager
from typing import Any, Literal, Optional, Sequence, SupportsIndex, Union

import numpy as np
from numpy.typing import ArrayLike, NDArray

__version__: str
git_commit: str

_Axis = Union[None, SupportsIndex, Sequence[SupportsIndex]]
_Result = Union[NDArray[Any], np.generic]
_Level = Literal["auto", "scalar", "avx2", "avx512", "neon", "sve"]

def sum(a: ArrayLike, axis: _Axis = None, *, keepdims: bool = False,
        out: Optional[NDArray[Any]] = None) -> _Result:
    """Sum over the axes, as numpy.sum: bool and signed integers give int64, unsigned uint64,
    floats their own type (accumulated in float64, pairwise by blocks)."""
def prod(a: ArrayLike, axis: _Axis = None, *, keepdims: bool = False,
         out: Optional[NDArray[Any]] = None) -> _Result:
    """Product over the axes, as numpy.prod (result types as sum's)."""
def mean(a: ArrayLike, axis: _Axis = None, *, keepdims: bool = False,
         out: Optional[NDArray[Any]] = None) -> _Result:
    """Mean over the axes, as numpy.mean: bool and integers give float64."""
def min(a: ArrayLike, axis: _Axis = None, *, keepdims: bool = False,
        out: Optional[NDArray[Any]] = None) -> _Result:
    """Minimum over the axes, as numpy.min; NaN propagates; ValueError over no elements."""
def max(a: ArrayLike, axis: _Axis = None, *, keepdims: bool = False,
        out: Optional[NDArray[Any]] = None) -> _Result:
    """Maximum over the axes, as numpy.max; NaN propagates; ValueError over no elements."""
def argmin(a: ArrayLike, axis: Optional[SupportsIndex] = None, *, keepdims: bool = False,
           out: Optional[NDArray[Any]] = None) -> _Result:
    """Index (int64) of the first minimum, or of the first NaN, as numpy.argmin."""
def argmax(a: ArrayLike, axis: Optional[SupportsIndex] = None, *, keepdims: bool = False,
           out: Optional[NDArray[Any]] = None) -> _Result:
    """Index (int64) of the first maximum, or of the first NaN, as numpy.argmax."""
def var(a: ArrayLike, axis: _Axis = None, *, ddof: float = 0, keepdims: bool = False,
        out: Optional[NDArray[Any]] = None) -> _Result:
    """Variance over the axes, dividing by max(N - ddof, 0), as numpy.var (one pass)."""
def std(a: ArrayLike, axis: _Axis = None, *, ddof: float = 0, keepdims: bool = False,
        out: Optional[NDArray[Any]] = None) -> _Result:
    """Standard deviation over the axes, as numpy.std."""
def eval(expression: str, /, **arrays: ArrayLike) -> _Result:
    """Evaluates an expression written as in NumPy (docs/expressions.md), as `kbench eval`
    does: kbench.eval("std(x, axis=(0, 2), ddof=1)", x=a), kbench.eval("a*b + c", a=a, b=b, c=c)."""
def set_simd(level: _Level, /) -> None:
    """Sets the process-wide SIMD level; ValueError for a level this build or CPU lacks."""
def get_simd() -> str:
    """The SIMD level in force."""
def simd(level: _Level) -> AbstractContextManager[None]:
    """A block run at the SIMD level, restoring the previous one after (process-wide)."""
def set_threads(n: int, /) -> None:
    """Sets the process-wide thread count of the kernels; 0 restores the default."""
def get_threads() -> int:
    """The thread count in force."""
def info() -> dict[str, Any]:
    """What `kbench info --json` reports, as a dict."""
