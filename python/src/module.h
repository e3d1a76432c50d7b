/* What the files of the Python extension (kbench._kbench) share: the NumPy C API, the array
 * conversions, the exceptions and the functions of the module's method table. */
#ifndef KB_PYTHON_MODULE_H
#define KB_PYTHON_MODULE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* One copy of NumPy's API table, in module.c; the other files refer to it. */
#define PY_ARRAY_UNIQUE_SYMBOL kb_python_numpy_api
#ifndef KB_PYTHON_IMPORT_ARRAY
#define NO_IMPORT_ARRAY
#endif
#define NPY_NO_DEPRECATED_API NPY_1_22_API_VERSION
#include <numpy/arrayobject.h>

#include "kbench/kbench.h"

/* Calls on fewer input elements than this keep the GIL: releasing and taking it back costs
 * more than such a reduction (a few hundred nanoseconds), and nothing in the call can block. */
#define KB_PYTHON_GIL_ELEMENTS 16384

/* numpy.exceptions.AxisError, looked up when the module starts. */
extern PyObject *kb_python_axis_error;

/* The kb_dtype of a NumPy dtype; false when kbench has no such type (ml_dtypes' bfloat16 is
 * recognised by its name). Byte order is not looked at. */
bool kb_python_dtype_of(PyArray_Descr *descr, kb_dtype *out);

/* The NumPy dtype of a kb_dtype, a new reference; like's (NULL: none) when it is the same type,
 * so that bfloat16 results keep ml_dtypes' dtype. */
PyArray_Descr *kb_python_descr_of(kb_dtype dtype, PyArrayObject *like);

/* An input as a NumPy array, a new reference: the object itself when it is an array of native
 * byte order, else NumPy's view of it (buffer-protocol objects are not copied), else NumPy's
 * conversion (lists, scalars, and arrays of the other byte order). NULL with an exception set. */
PyArrayObject *kb_python_as_array(PyObject *obj);

/* A view of a NumPy array's memory; fails with TypeError for a dtype kbench does not have. */
int kb_python_view(PyArrayObject *array, kb_array *out);

/* Raises `type` with kbench's message for the calling thread (kb_last_error) and returns NULL. */
PyObject *kb_python_raise(PyObject *type);

/* The functions of the method table: one file each for the reductions, eval and the settings. */
#define KB_PYTHON_REDUCTIONS(X)                                                                    \
    X(sum, KB_REDUCE_SUM)                                                                          \
    X(prod, KB_REDUCE_PROD)                                                                        \
    X(mean, KB_REDUCE_MEAN)                                                                        \
    X(min, KB_REDUCE_MIN)                                                                          \
    X(max, KB_REDUCE_MAX)                                                                          \
    X(argmin, KB_REDUCE_ARGMIN)                                                                    \
    X(argmax, KB_REDUCE_ARGMAX)                                                                    \
    X(var, KB_REDUCE_VAR)                                                                          \
    X(std, KB_REDUCE_STD)

#define KB_PYTHON_DECLARE(name, op)                                                                \
    PyObject *kb_python_##name(PyObject *self, PyObject *const *args, Py_ssize_t nargs,            \
                               PyObject *kwnames);
KB_PYTHON_REDUCTIONS(KB_PYTHON_DECLARE)
#undef KB_PYTHON_DECLARE

/* Interns the keyword names the reductions compare by identity; -1 with an exception set. */
int kb_python_reduce_init(void);

PyObject *kb_python_eval(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *kb_python_set_simd(PyObject *self, PyObject *level);
PyObject *kb_python_get_simd(PyObject *self, PyObject *unused);
PyObject *kb_python_set_threads(PyObject *self, PyObject *count);
PyObject *kb_python_get_threads(PyObject *self, PyObject *unused);
PyObject *kb_python_info_json(PyObject *self, PyObject *unused);

#endif
