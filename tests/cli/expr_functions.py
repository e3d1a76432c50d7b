"""The expression language's elementwise functions as NumPy and SciPy compute them: the
reference the expression tests evaluate kbench's results against (docs/expressions.md)."""

import numpy as np
import scipy.special

NUMPY_FUNCTIONS = {  # each takes one array
    "abs": np.abs, "square": np.square, "sqrt": np.sqrt, "floor": np.floor, "ceil": np.ceil,
    "rint": np.rint, "sign": np.sign, "isnan": np.isnan, "isfinite": np.isfinite,
    "reciprocal": np.reciprocal, "exp": np.exp, "expm1": np.expm1, "exp2": np.exp2,
    "log": np.log, "log1p": np.log1p, "log2": np.log2, "log10": np.log10, "sin": np.sin,
    "cos": np.cos, "tan": np.tan, "arcsin": np.arcsin, "arccos": np.arccos,
    "arctan": np.arctan, "tanh": np.tanh, "sinh": np.sinh, "cosh": np.cosh,
    "sigmoid": scipy.special.expit, "erf": scipy.special.erf,
}
