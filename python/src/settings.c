/* kbench.set_simd, set_threads and info: the library's process-wide settings and what
 * `kbench info --json` reports. */
#include <stdlib.h>

#include "module.h"

PyObject *kb_python_set_simd(PyObject *self, PyObject *level) {
    if (!PyUnicode_Check(level)) {
        PyErr_Format(PyExc_TypeError, "set_simd() takes a level name such as 'avx2', not %.100s",
                     Py_TYPE(level)->tp_name);
        return NULL;
    }
    const char *name = PyUnicode_AsUTF8(level);
    if (!name)
        return NULL;
    int request;
    if (kb_simd_parse(name, &request) != KB_OK)
        return kb_python_raise(PyExc_ValueError);
    /* A level this build or CPU lacks is refused, never replaced by another. */
    if (kb_simd_set(request) != KB_OK)
        return kb_python_raise(PyExc_ValueError);
    Py_RETURN_NONE;
}

PyObject *kb_python_get_simd(PyObject *self, PyObject *unused) {
    kb_simd_level level;
    if (kb_simd_current(&level) != KB_OK)
        return kb_python_raise(PyExc_ValueError);
    return PyUnicode_FromString(kb_simd_name(level));
}

PyObject *kb_python_set_threads(PyObject *self, PyObject *count) {
    long n = PyLong_AsLong(count);
    if (n == -1 && PyErr_Occurred())
        return NULL;
    if (n < 0 || n > 4096) {
        PyErr_Format(PyExc_ValueError,
                     "set_threads() takes 1 to 4096 threads, or 0 for the default, not %ld", n);
        return NULL;
    }
    if (kb_threads_set((int)n) != KB_OK)
        return kb_python_raise(PyExc_ValueError);
    Py_RETURN_NONE;
}

PyObject *kb_python_get_threads(PyObject *self, PyObject *unused) {
    int n;
    if (kb_threads_current(&n) != KB_OK)
        return kb_python_raise(PyExc_ValueError);
    return PyLong_FromLong(n);
}

PyObject *kb_python_info_json(PyObject *self, PyObject *unused) {
    kb_info info;
    char *text = NULL;
    kb_status st;
    /* Measuring the clock takes about a tenth of a second: other threads run meanwhile. */
    Py_BEGIN_ALLOW_THREADS;
    st = kb_info_gather(&info);
    if (st == KB_OK)
        st = kb_info_json(&info, &text);
    Py_END_ALLOW_THREADS;
    if (st != KB_OK)
        return kb_python_raise(PyExc_ValueError);
    PyObject *result = PyUnicode_FromString(text);
    free(text);
    return result;
}
