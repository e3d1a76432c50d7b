/* kbench.sum, prod, mean, min, max, argmin, argmax, var and std: NumPy's signatures over
 * kb_reduce_into, with the fewest steps a small call can take (no allocation for a result that
 * is a scalar, keyword names compared by identity, the GIL kept for small inputs). */
#include <limits.h>
#include <string.h>

#include "module.h"

/* The keyword names, interned, so that a call's names (interned by the compiler) match by
 * address; another string of the same text matches by comparison. */
enum { KW_A, KW_AXIS, KW_KEEPDIMS, KW_OUT, KW_DDOF, KW_COUNT };
static const char *const keyword_text[KW_COUNT] = {"a", "axis", "keepdims", "out", "ddof"};
static PyObject *keywords[KW_COUNT];

int kb_python_reduce_init(void) {
    for (int i = 0; i < KW_COUNT; i++)
        if (!(keywords[i] = PyUnicode_InternFromString(keyword_text[i])))
            return -1;
    return 0;
}

static int keyword_index(PyObject *name) {
    for (int i = 0; i < KW_COUNT; i++)
        if (name == keywords[i])
            return i;
    for (int i = 0; i < KW_COUNT; i++)
        if (PyUnicode_Compare(name, keywords[i]) == 0)
            return i;
    return -1;
}

/* The arguments of a call, borrowed; NULL where not given. */
typedef struct call {
    PyObject *values[KW_COUNT];
} call;

static bool has_ddof(kb_reduce_op op) {
    return op == KB_REDUCE_VAR || op == KB_REDUCE_STD;
}

static int parse_call(kb_reduce_op op, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                      call *c) {
    const char *name = kb_reduce_op_name(op);
    memset(c, 0, sizeof *c);
    if (nargs > 2) {
        PyErr_Format(PyExc_TypeError,
                     "%s() takes at most 2 positional arguments (%zd given); keepdims, %sout "
                     "are keyword-only",
                     name, nargs, has_ddof(op) ? "ddof, " : "");
        return -1;
    }
    for (Py_ssize_t i = 0; i < nargs; i++)
        c->values[i] = args[i];
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    for (Py_ssize_t i = 0; i < nkw; i++) {
        PyObject *key = PyTuple_GET_ITEM(kwnames, i);
        int k = keyword_index(key);
        if (k < 0 || (k == KW_DDOF && !has_ddof(op))) {
            PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%U'", name,
                         key);
            return -1;
        }
        if (c->values[k]) {
            PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%s'", name,
                         keyword_text[k]);
            return -1;
        }
        c->values[k] = args[nargs + i];
    }
    if (!c->values[KW_A]) {
        PyErr_Format(PyExc_TypeError, "%s() missing required argument 'a' (pos 1)", name);
        return -1;
    }
    return 0;
}

/* One axis as NumPy takes it: anything with __index__. */
static int axis_value(PyObject *obj, int *out) {
    /* Beyond a Py_ssize_t, OverflowError, as NumPy raises. */
    Py_ssize_t v = PyNumber_AsSsize_t(obj, PyExc_OverflowError);
    if (v == -1 && PyErr_Occurred())
        return -1;
    /* kbench's axes are ints; one beyond them is out of range of any array. */
    if (v > INT_MAX || v < INT_MIN) {
        PyErr_Format(kb_python_axis_error, "axis %zd out of range", v);
        return -1;
    }
    *out = (int)v;
    return 0;
}

static int parse_axis(kb_reduce_op op, PyObject *axis, kb_reduce_args *args) {
    if (!axis || axis == Py_None) {
        args->naxes = -1;
        return 0;
    }
    if (!PyTuple_Check(axis)) {
        args->naxes = 1;
        return axis_value(axis, &args->axes[0]);
    }
    if (op == KB_REDUCE_ARGMIN || op == KB_REDUCE_ARGMAX) {
        PyErr_SetString(PyExc_TypeError, "'tuple' object cannot be interpreted as an integer");
        return -1;
    }
    Py_ssize_t n = PyTuple_GET_SIZE(axis);
    if (n > KB_MAX_DIMS) {
        PyErr_Format(PyExc_ValueError,
                     "axis has %zd entries, more than an array has dimensions (at most %d)", n,
                     KB_MAX_DIMS);
        return -1;
    }
    args->naxes = (int)n;
    for (Py_ssize_t i = 0; i < n; i++)
        if (axis_value(PyTuple_GET_ITEM(axis, i), &args->axes[i]) < 0)
            return -1;
    return 0;
}

static int parse_args(kb_reduce_op op, const call *c, kb_reduce_args *args) {
    args->op = op;
    args->keepdims = false;
    args->ddof = 0;
    if (parse_axis(op, c->values[KW_AXIS], args) < 0)
        return -1;
    if (c->values[KW_KEEPDIMS]) {
        int truth = PyObject_IsTrue(c->values[KW_KEEPDIMS]);
        if (truth < 0)
            return -1;
        args->keepdims = truth;
    }
    if (c->values[KW_DDOF]) {
        double ddof = PyFloat_AsDouble(c->values[KW_DDOF]);
        if (ddof == -1.0 && PyErr_Occurred())
            return -1;
        args->ddof = ddof;
    }
    return 0;
}

/* kbench refused the arguments: the exception NumPy raises for the same mistake, with kbench's
 * message. An axis out of range is numpy.exceptions.AxisError; a repeated axis and an empty
 * reduction without identity are ValueError. */
static PyObject *refused(const kb_array *in, const kb_reduce_args *args) {
    for (int i = 0; i < args->naxes; i++) {
        int axis = args->axes[i];
        if (axis < -in->ndim || axis >= in->ndim)
            return kb_python_raise(kb_python_axis_error);
    }
    return kb_python_raise(PyExc_ValueError);
}

/* Runs the reduction, without the GIL when the input is large. */
static kb_status run(const kb_array *in, const kb_reduce_args *args, kb_array *out) {
    if (kb_array_size(in) < KB_PYTHON_GIL_ELEMENTS)
        return kb_reduce_into(in, args, out);
    PyThreadState *state = PyEval_SaveThread();
    kb_status st = kb_reduce_into(in, args, out);
    PyEval_RestoreThread(state);
    return st;
}

/* A result that is a scalar, as NumPy gives one: computed into the stack, no array made. */
static PyObject *scalar_result(PyArrayObject *array, const kb_array *in, const kb_reduce_args *args,
                               kb_dtype dtype) {
    _Alignas(16) unsigned char buffer[16];
    kb_array out;
    if (kb_array_view(&out, dtype, 0, NULL, NULL, buffer, 0) != KB_OK ||
        run(in, args, &out) != KB_OK)
        return refused(in, args);
    PyArray_Descr *descr = kb_python_descr_of(dtype, array);
    if (!descr)
        return NULL;
    PyObject *scalar = PyArray_Scalar(buffer, descr, NULL);
    Py_DECREF(descr);
    return scalar;
}

static PyObject *array_result(PyArrayObject *array, const kb_array *in, const kb_reduce_args *args,
                              kb_dtype dtype, int ndim, const int64_t *shape) {
    npy_intp dims[KB_MAX_DIMS];
    for (int i = 0; i < ndim; i++)
        dims[i] = (npy_intp)shape[i];
    PyArray_Descr *descr = kb_python_descr_of(dtype, array);
    if (!descr)
        return NULL;
    PyArrayObject *result = (PyArrayObject *)PyArray_NewFromDescr(&PyArray_Type, descr, ndim, dims,
                                                                  NULL, NULL, 0, NULL);
    if (!result)
        return NULL;
    kb_array out;
    if (kb_python_view(result, &out) < 0) {
        Py_DECREF(result);
        return NULL;
    }
    if (run(in, args, &out) != KB_OK) {
        Py_DECREF(result);
        return refused(in, args);
    }
    return (PyObject *)result;
}

/* out=: an array of the result's shape. Of the result's own dtype, it is written in place, at
 * any strides; of another, the result is cast into it as NumPy's reductions cast into out
 * (unsafe casting: a float sum into an int32 out truncates). */
static PyObject *out_result(PyArrayObject *array, const kb_array *in, const kb_reduce_args *args,
                            kb_dtype dtype, int ndim, const int64_t *shape, PyObject *target) {
    const char *name = kb_reduce_op_name(args->op);
    if (!PyArray_Check(target)) {
        PyErr_Format(PyExc_TypeError, "%s(): out must be a NumPy array, not %.100s", name,
                     Py_TYPE(target)->tp_name);
        return NULL;
    }
    PyArrayObject *o = (PyArrayObject *)target;
    bool same_shape = PyArray_NDIM(o) == ndim;
    for (int i = 0; same_shape && i < ndim; i++)
        same_shape = PyArray_DIMS(o)[i] == shape[i];
    if (!same_shape) {
        PyErr_Format(PyExc_ValueError, "%s(): out has the wrong shape for the result", name);
        return NULL;
    }
    if (PyArray_FailUnlessWriteable(o, "out") < 0)
        return NULL;
    kb_dtype out_dtype;
    if (kb_python_dtype_of(PyArray_DESCR(o), &out_dtype) && out_dtype == dtype &&
        PyArray_ISNBO(PyArray_DESCR(o)->byteorder)) {
        kb_array view;
        if (kb_python_view(o, &view) < 0)
            return NULL;
        if (run(in, args, &view) != KB_OK)
            return refused(in, args);
        Py_INCREF(target);
        return target;
    }
    PyObject *result = array_result(array, in, args, dtype, ndim, shape);
    if (!result)
        return NULL;
    int st = PyArray_CopyInto(o, (PyArrayObject *)result);
    Py_DECREF(result);
    if (st < 0)
        return NULL;
    Py_INCREF(target);
    return target;
}

/* NumPy's ufunc reductions (all but mean, var and std) take axis 0 or -1 of a 0-d array, not
 * in a tuple, as all of it; kbench's reductions take no axis of a 0-d array. */
static void zero_d_axis(const kb_array *in, kb_reduce_args *args, PyObject *axis) {
    bool ufunc =
        args->op != KB_REDUCE_MEAN && args->op != KB_REDUCE_VAR && args->op != KB_REDUCE_STD;
    if (in->ndim == 0 && ufunc && args->naxes == 1 && !PyTuple_Check(axis) &&
        (args->axes[0] == 0 || args->axes[0] == -1))
        args->naxes = -1;
}

static PyObject *reduce(kb_reduce_op op, PyObject *const *args, Py_ssize_t nargs,
                        PyObject *kwnames) {
    call c;
    kb_reduce_args rargs;
    if (parse_call(op, args, nargs, kwnames, &c) < 0 || parse_args(op, &c, &rargs) < 0)
        return NULL;
    PyArrayObject *array = kb_python_as_array(c.values[KW_A]);
    if (!array)
        return NULL;
    PyObject *result = NULL;
    kb_array in;
    kb_dtype dtype;
    int ndim;
    int64_t shape[KB_MAX_DIMS];
    PyObject *target = c.values[KW_OUT];
    if (kb_python_view(array, &in) == 0) {
        zero_d_axis(&in, &rargs, c.values[KW_AXIS]);
        if (kb_reduce_result(&in, &rargs, &dtype, &ndim, shape) != KB_OK)
            refused(&in, &rargs);
        else if (target && target != Py_None)
            result = out_result(array, &in, &rargs, dtype, ndim, shape, target);
        else if (ndim == 0)
            result = scalar_result(array, &in, &rargs, dtype);
        else
            result = array_result(array, &in, &rargs, dtype, ndim, shape);
    }
    Py_DECREF(array);
    return result;
}

#define KB_PYTHON_DEFINE(name, op)                                                                 \
    PyObject *kb_python_##name(PyObject *self, PyObject *const *args, Py_ssize_t nargs,            \
                               PyObject *kwnames) {                                                \
        return reduce(op, args, nargs, kwnames);                                                   \
    }
KB_PYTHON_REDUCTIONS(KB_PYTHON_DEFINE)
#undef KB_PYTHON_DEFINE
