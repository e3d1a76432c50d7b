/* kbench._kbench: the extension module behind the kbench package, a thin user of libkbench. */
#define KB_PYTHON_IMPORT_ARRAY
#include "module.h"

PyObject *kb_python_axis_error;

#define REDUCTION_DOC(name, extra, what)                                                           \
#name "(a, axis=None, *, " extra "keepdims=False, out=None)\n--\n\n" what                      \
          "\n\nAs numpy." #name ", computed by kbench on the array in place (any strides, any "    \
          "dtype kbench reduces). 0-d results are NumPy scalars, as NumPy gives them."

#define METHOD(name, extra, what)                                                                  \
    {                                                                                              \
#name, (PyCFunction)(void (*)(void))kb_python_##name, METH_FASTCALL | METH_KEYWORDS,       \
            REDUCTION_DOC(name, extra, what)                                                       \
    }

static PyMethodDef methods[] = {
    METHOD(sum, "", "Sum of the elements over the given axes."),
    METHOD(prod, "", "Product of the elements over the given axes."),
    METHOD(mean, "", "Arithmetic mean over the given axes."),
    METHOD(min, "", "Minimum over the given axes; NaN propagates."),
    METHOD(max, "", "Maximum over the given axes; NaN propagates."),
    METHOD(argmin, "", "Index of the first minimum along one axis, or of the flattened array."),
    METHOD(argmax, "", "Index of the first maximum along one axis, or of the flattened array."),
    METHOD(var, "ddof=0, ", "Variance over the given axes, dividing by N - ddof."),
    METHOD(std, "ddof=0, ", "Standard deviation over the given axes, dividing by N - ddof."),
    {"eval", (PyCFunction)(void (*)(void))kb_python_eval, METH_VARARGS | METH_KEYWORDS,
     "eval(expression, /, **arrays)\n--\n\nEvaluates an expression as `kbench eval` does."},
    {"set_simd", kb_python_set_simd, METH_O,
     "set_simd(level, /)\n--\n\nSets the process-wide SIMD level."},
    {"get_simd", kb_python_get_simd, METH_NOARGS, "get_simd()\n--\n\nThe SIMD level in force."},
    {"set_threads", kb_python_set_threads, METH_O,
     "set_threads(n, /)\n--\n\nSets the process-wide thread count; 0 restores the default."},
    {"get_threads", kb_python_get_threads, METH_NOARGS,
     "get_threads()\n--\n\nThe thread count in force."},
    {"info_json", kb_python_info_json, METH_NOARGS,
     "info_json()\n--\n\nWhat `kbench info --json` prints, as text."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "kbench._kbench",
    .m_doc = "The C extension behind the kbench package; use kbench's own functions.",
    .m_size = -1,
    .m_methods = methods,
};

/* numpy.exceptions.AxisError (NumPy 1.25 and later), else numpy.AxisError. */
static PyObject *find_axis_error(void) {
    PyObject *exceptions = PyImport_ImportModule("numpy.exceptions");
    if (!exceptions) {
        PyErr_Clear();
        exceptions = PyImport_ImportModule("numpy");
    }
    if (!exceptions)
        return NULL;
    PyObject *axis_error = PyObject_GetAttrString(exceptions, "AxisError");
    Py_DECREF(exceptions);
    return axis_error;
}

/* The entry point Python looks up by the module's name. */
PyMODINIT_FUNC PyInit__kbench(void);

PyMODINIT_FUNC PyInit__kbench(void) {
    import_array();
    if (kb_python_reduce_init() < 0 || !(kb_python_axis_error = find_axis_error()))
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m)
        return NULL;
    const kb_build_info *build = kb_build_info_get();
    if (PyModule_AddStringConstant(m, "__version__", build->version) < 0 ||
        PyModule_AddStringConstant(m, "git_commit", build->git_commit) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
