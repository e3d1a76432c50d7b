/* kbench.eval(expression, **arrays): what `kbench eval` evaluates, on arrays read in place. */
#include <string.h>

#include "module.h"

/* NumPy's RuntimeWarnings of an evaluation, kept until the GIL is held again. */
enum { MAX_WARNINGS = 8 };
typedef struct warnings {
    int count;
    char messages[MAX_WARNINGS][128];
} warnings;

static void keep_warning(const char *message, void *context) {
    warnings *w = context;
    if (w->count < MAX_WARNINGS)
        snprintf(w->messages[w->count++], sizeof w->messages[0], "%s", message);
}

/* The exception for a failed evaluation: a syntax error in the expression is SyntaxError, as
 * from Python's own eval; an axis out of range numpy.exceptions.AxisError; what kbench does
 * not compute yet NotImplementedError; any other bad value ValueError. */
static PyObject *eval_error(kb_status st) {
    const char *message = kb_last_error();
    switch (st) {
        case KB_EFORMAT:
            return kb_python_raise(PyExc_SyntaxError);
        case KB_EUNSUPPORTED:
            return kb_python_raise(PyExc_NotImplementedError);
        case KB_ENOMEM:
            return PyErr_NoMemory();
        default:
            return kb_python_raise(strstr(message, " out of range for a ") ? kb_python_axis_error
                                                                           : PyExc_ValueError);
    }
}

/* The bindings' arrays, and kbench's views of them. */
typedef struct inputs {
    Py_ssize_t count;
    PyArrayObject **arrays;
    kb_array *views;
    kb_expr_binding *bindings;
    int64_t elements;
} inputs;

/* The evaluated array as NumPy's, or as a NumPy scalar when it has no dimensions (as NumPy's
 * reductions give one). */
static PyObject *to_numpy(const kb_array *result, const inputs *in) {
    /* A bfloat16 result keeps the dtype of a bfloat16 input (ml_dtypes'). */
    PyArrayObject *like = NULL;
    for (Py_ssize_t i = 0; i < in->count && !like; i++)
        if (in->views[i].dtype == result->dtype)
            like = in->arrays[i];
    npy_intp dims[KB_MAX_DIMS];
    for (int i = 0; i < result->ndim; i++)
        dims[i] = (npy_intp)result->shape[i];
    PyArray_Descr *descr = kb_python_descr_of(result->dtype, like);
    if (!descr)
        return NULL;
    PyArrayObject *array = (PyArrayObject *)PyArray_NewFromDescr(&PyArray_Type, descr, result->ndim,
                                                                 dims, NULL, NULL, 0, NULL);
    if (!array)
        return NULL;
    kb_array view;
    if (kb_python_view(array, &view) < 0 || kb_array_copy(&view, result) != KB_OK) {
        if (!PyErr_Occurred())
            kb_python_raise(PyExc_ValueError);
        Py_DECREF(array);
        return NULL;
    }
    return PyArray_Return(array);
}

static void inputs_free(inputs *in) {
    for (Py_ssize_t i = 0; i < in->count; i++)
        Py_XDECREF(in->arrays[i]);
    PyMem_Free(in->arrays);
    PyMem_Free(in->views);
    PyMem_Free(in->bindings);
}

static int inputs_read(PyObject *kwargs, inputs *in) {
    memset(in, 0, sizeof *in);
    Py_ssize_t n = kwargs ? PyDict_GET_SIZE(kwargs) : 0;
    in->arrays = PyMem_Calloc((size_t)n + 1, sizeof *in->arrays);
    in->views = PyMem_Calloc((size_t)n + 1, sizeof *in->views);
    in->bindings = PyMem_Calloc((size_t)n + 1, sizeof *in->bindings);
    if (!in->arrays || !in->views || !in->bindings) {
        PyErr_NoMemory();
        return -1;
    }
    Py_ssize_t pos = 0;
    PyObject *key, *value;
    while (kwargs && PyDict_Next(kwargs, &pos, &key, &value)) {
        const char *name = PyUnicode_AsUTF8(key);
        if (!name)
            return -1;
        PyArrayObject *array = kb_python_as_array(value);
        if (!array)
            return -1;
        in->arrays[in->count] = array;
        if (kb_python_view(array, &in->views[in->count]) < 0)
            return -1;
        in->bindings[in->count] = (kb_expr_binding){name, &in->views[in->count]};
        in->elements += kb_array_size(&in->views[in->count]);
        in->count++;
    }
    return 0;
}

PyObject *kb_python_eval(PyObject *self, PyObject *args, PyObject *kwargs) {
    const char *source;
    if (!PyArg_ParseTuple(args, "s:eval", &source))
        return NULL;
    kb_expr *expr;
    kb_status st = kb_expr_parse(source, &expr);
    if (st != KB_OK)
        return eval_error(st);
    inputs in;
    PyObject *out = NULL;
    if (inputs_read(kwargs, &in) == 0) {
        kb_array result = {0};
        warnings w = {0};
        PyThreadState *state = in.elements < KB_PYTHON_GIL_ELEMENTS ? NULL : PyEval_SaveThread();
        st = kb_expr_eval_warn(expr, in.bindings, (int)in.count, &result, keep_warning, &w);
        if (state)
            PyEval_RestoreThread(state);
        int warned = 0;
        for (int i = 0; i < w.count && warned == 0; i++)
            warned = PyErr_WarnEx(PyExc_RuntimeWarning, w.messages[i], 1);
        if (st != KB_OK)
            eval_error(st);
        else if (warned == 0)
            out = to_numpy(&result, &in);
        kb_array_free(&result);
    }
    inputs_free(&in);
    kb_expr_free(expr);
    return out;
}
