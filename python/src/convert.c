/* Between NumPy's arrays and kbench's views: dtypes both ways, inputs read in place. */
#include <string.h>

#include "module.h"

/* ml_dtypes registers bfloat16 as a user type; its number is found on first sight. */
static int bfloat16_type = -1;

static bool is_bfloat16(PyArray_Descr *descr) {
    if (descr->type_num == bfloat16_type)
        return true;
    if (descr->type_num < NPY_USERDEF || PyDataType_ELSIZE(descr) != 2)
        return false;
    const char *name = descr->typeobj->tp_name;
    const char *dot = strrchr(name, '.');
    if (strcmp(dot ? dot + 1 : name, "bfloat16") != 0)
        return false;
    bfloat16_type = descr->type_num;
    return true;
}

/* Integers by kind and size, since NumPy's C names (long, longlong) depend on the platform. */
static bool integer_of(int type_num, int size, kb_dtype *out) {
    static const kb_dtype sized[2][4] = {{KB_INT8, KB_INT16, KB_INT32, KB_INT64},
                                         {KB_UINT8, KB_UINT16, KB_UINT32, KB_UINT64}};
    bool is_unsigned = PyTypeNum_ISUNSIGNED(type_num);
    int index = size == 1 ? 0 : size == 2 ? 1 : size == 4 ? 2 : size == 8 ? 3 : -1;
    if (index < 0)
        return false;
    *out = sized[is_unsigned][index];
    return true;
}

bool kb_python_dtype_of(PyArray_Descr *descr, kb_dtype *out) {
    switch (descr->type_num) {
        case NPY_BOOL:
            *out = KB_BOOL;
            return true;
        case NPY_HALF:
            *out = KB_F16;
            return true;
        case NPY_FLOAT:
            *out = KB_F32;
            return true;
        case NPY_DOUBLE:
            *out = KB_F64;
            return true;
        case NPY_BYTE:
        case NPY_UBYTE:
        case NPY_SHORT:
        case NPY_USHORT:
        case NPY_INT:
        case NPY_UINT:
        case NPY_LONG:
        case NPY_ULONG:
        case NPY_LONGLONG:
        case NPY_ULONGLONG:
            return integer_of(descr->type_num, (int)PyDataType_ELSIZE(descr), out);
        default:
            if (is_bfloat16(descr)) {
                *out = KB_BF16;
                return true;
            }
            return false;
    }
}

PyArray_Descr *kb_python_descr_of(kb_dtype dtype, PyArrayObject *like) {
    kb_dtype same;
    PyArray_Descr *in = like ? PyArray_DESCR(like) : NULL;
    if (in && kb_python_dtype_of(in, &same) && same == dtype && PyArray_ISNBO(in->byteorder)) {
        Py_INCREF(in);
        return in;
    }
    static const int numbers[KB_DTYPE_COUNT] = {
        [KB_BOOL] = NPY_BOOL,     [KB_INT8] = NPY_INT8,     [KB_INT16] = NPY_INT16,
        [KB_INT32] = NPY_INT32,   [KB_INT64] = NPY_INT64,   [KB_UINT8] = NPY_UINT8,
        [KB_UINT16] = NPY_UINT16, [KB_UINT32] = NPY_UINT32, [KB_UINT64] = NPY_UINT64,
        [KB_F16] = NPY_HALF,      [KB_BF16] = -1,           [KB_F32] = NPY_FLOAT32,
        [KB_F64] = NPY_FLOAT64};
    if (dtype >= KB_DTYPE_COUNT || numbers[dtype] < 0) {
        /* bfloat16 results come only from bfloat16 inputs, which the first case answered. */
        PyErr_Format(PyExc_TypeError, "kbench: no NumPy dtype for %s", kb_dtype_name(dtype));
        return NULL;
    }
    return PyArray_DescrFromType(numbers[dtype]);
}

PyArrayObject *kb_python_as_array(PyObject *obj) {
    if (PyArray_Check(obj) && PyArray_ISNBO(PyArray_DESCR((PyArrayObject *)obj)->byteorder)) {
        Py_INCREF(obj);
        return (PyArrayObject *)obj;
    }
    PyArrayObject *array = (PyArrayObject *)PyArray_FromAny(obj, NULL, 0, 0, 0, NULL);
    if (!array || PyArray_ISNBO(PyArray_DESCR(array)->byteorder))
        return array;
    /* kbench reads native byte order only: the other is converted, as NumPy's own loops do. */
    PyArray_Descr *native = PyArray_DescrNewByteorder(PyArray_DESCR(array), NPY_NATIVE);
    PyArrayObject *copy =
        native ? (PyArrayObject *)PyArray_FromArray(array, native, NPY_ARRAY_FORCECAST) : NULL;
    Py_DECREF(array);
    return copy;
}

int kb_python_view(PyArrayObject *array, kb_array *out) {
    kb_dtype dtype;
    PyArray_Descr *descr = PyArray_DESCR(array);
    if (!kb_python_dtype_of(descr, &dtype)) {
        PyObject *name = PyObject_Str((PyObject *)descr);
        PyErr_Format(PyExc_TypeError, "kbench does not reduce arrays of dtype %S", name);
        Py_XDECREF(name);
        return -1;
    }
    int ndim = PyArray_NDIM(array);
    if (ndim > KB_MAX_DIMS) {
        PyErr_Format(PyExc_ValueError, "kbench takes arrays of at most %d dimensions, not %d",
                     KB_MAX_DIMS, ndim);
        return -1;
    }
    int64_t shape[KB_MAX_DIMS], strides[KB_MAX_DIMS];
    const npy_intp *dims = PyArray_DIMS(array), *steps = PyArray_STRIDES(array);
    for (int i = 0; i < ndim; i++) {
        shape[i] = dims[i];
        strides[i] = steps[i];
    }
    unsigned flags = PyArray_ISWRITEABLE(array) ? 0 : KB_ARRAY_READONLY;
    if (kb_array_view(out, dtype, ndim, shape, strides, PyArray_DATA(array), flags) != KB_OK) {
        kb_python_raise(PyExc_ValueError);
        return -1;
    }
    return 0;
}

PyObject *kb_python_raise(PyObject *type) {
    PyErr_SetString(type, kb_last_error());
    return NULL;
}
