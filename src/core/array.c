/* kb_array: strided n-d views, their shapes and strides, allocation and release. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "core/array_uninit.h"
#include "core/fail.h"
#include "core/owner.h"
#include "kbench/array.h"
#include "kbench/memory.h"

kb_status kb_shape_size(int ndim, const int64_t *shape, size_t itemsize, int64_t *count) {
    if (ndim < 0 || ndim > KB_MAX_DIMS)
        return kb_fail(KB_EINVAL, "%d dimensions; kbench supports 0 to %d", ndim, KB_MAX_DIMS);
    int64_t n = 1;
    bool empty = false;
    for (int i = 0; i < ndim; i++) {
        if (shape[i] < 0)
            return kb_fail(KB_EINVAL, "negative dimension %lld", (long long)shape[i]);
        if (shape[i] == 0)
            empty = true;
    }
    /* Even an empty array must have a representable shape: check the product of the
     * nonzero dimensions, as NumPy does. */
    int64_t limit = INT64_MAX / (int64_t)(itemsize ? itemsize : 1);
    for (int i = 0; i < ndim; i++) {
        if (shape[i] == 0)
            continue;
        if (n > limit / shape[i])
            return kb_fail(KB_EINVAL, "array size overflows: the shape has too many elements");
        n *= shape[i];
    }
    *count = empty ? 0 : n;
    return KB_OK;
}

void kb_contiguous_strides(int ndim, const int64_t *shape, size_t itemsize, kb_order order,
                           int64_t *strides) {
    int64_t stride = (int64_t)itemsize;
    for (int k = 0; k < ndim; k++) {
        int i = order == KB_ORDER_C ? ndim - 1 - k : k;
        strides[i] = stride;
        stride *= shape[i] > 0 ? shape[i] : 1;
    }
}

kb_status kb_array_view(kb_array *out, kb_dtype dtype, int ndim, const int64_t *shape,
                        const int64_t *strides, void *data, unsigned flags) {
    size_t itemsize = kb_dtype_size(dtype);
    if (itemsize == 0)
        return kb_fail(KB_EINVAL, "invalid dtype %d", (int)dtype);
    int64_t count;
    kb_status st = kb_shape_size(ndim, shape, itemsize, &count);
    if (st != KB_OK)
        return st;
    if (strides && count > 0) {
        /* The farthest byte reachable must be representable as an offset. */
        int64_t reach = 0;
        for (int i = 0; i < ndim; i++) {
            int64_t s = strides[i] < 0 ? -strides[i] : strides[i];
            if (strides[i] == INT64_MIN ||
                (shape[i] > 1 && s > (INT64_MAX - reach) / (shape[i] - 1)))
                return kb_fail(KB_EINVAL, "strides reach beyond the addressable range");
            reach += s * (shape[i] - 1);
        }
    }
    memset(out, 0, sizeof *out);
    out->dtype = dtype;
    out->ndim = ndim;
    out->data = data;
    out->flags = flags;
    for (int i = 0; i < ndim; i++)
        out->shape[i] = shape[i];
    if (strides)
        memcpy(out->strides, strides, (size_t)ndim * sizeof strides[0]);
    else
        kb_contiguous_strides(ndim, shape, itemsize, KB_ORDER_C, out->strides);
    return KB_OK;
}

kb_status kb_array_new_uninit(kb_array *out, kb_dtype dtype, int ndim, const int64_t *shape,
                              kb_order order) {
    size_t itemsize = kb_dtype_size(dtype);
    if (itemsize == 0)
        return kb_fail(KB_EINVAL, "invalid dtype %d", (int)dtype);
    int64_t count;
    kb_status st = kb_shape_size(ndim, shape, itemsize, &count);
    if (st != KB_OK)
        return st;
    size_t bytes = (size_t)count * itemsize;
    void *data = kb_aligned_alloc(bytes);
    if (!data)
        return KB_ENOMEM;
    int64_t strides[KB_MAX_DIMS];
    kb_contiguous_strides(ndim, shape, itemsize, order, strides);
    st = kb_array_view(out, dtype, ndim, shape, strides, data, 0);
    if (st != KB_OK) {
        kb_aligned_free(data);
        return st;
    }
    out->owned = data;
    out->owned_size = bytes;
    out->owned_kind = KB_OWNED_ALIGNED;
    return KB_OK;
}

kb_status kb_array_new(kb_array *out, kb_dtype dtype, int ndim, const int64_t *shape,
                       kb_order order) {
    kb_status st = kb_array_new_uninit(out, dtype, ndim, shape, order);
    if (st == KB_OK)
        memset(out->data, 0, out->owned_size);
    return st;
}

void kb_array_free(kb_array *array) {
    if (!array)
        return;
    if (array->owned_kind == KB_OWNED_ALIGNED)
        kb_aligned_free(array->owned);
    else if (array->owned_kind == KB_OWNED_MMAP)
        munmap(array->owned, array->owned_size);
    memset(array, 0, sizeof *array);
}

int64_t kb_array_size(const kb_array *array) {
    int64_t n = 1;
    for (int i = 0; i < array->ndim; i++)
        n *= array->shape[i];
    return n;
}

size_t kb_array_itemsize(const kb_array *array) {
    return kb_dtype_size(array->dtype);
}

static bool is_contiguous(const kb_array *array, kb_order order) {
    if (kb_array_size(array) == 0)
        return true;
    int64_t expected = (int64_t)kb_array_itemsize(array);
    for (int k = 0; k < array->ndim; k++) {
        int i = order == KB_ORDER_C ? array->ndim - 1 - k : k;
        /* A dimension of length 1 never moves, so its stride does not matter (as NumPy). */
        if (array->shape[i] == 1)
            continue;
        if (array->strides[i] != expected)
            return false;
        expected *= array->shape[i];
    }
    return true;
}

bool kb_array_is_c_contiguous(const kb_array *array) {
    return is_contiguous(array, KB_ORDER_C);
}

bool kb_array_is_f_contiguous(const kb_array *array) {
    return is_contiguous(array, KB_ORDER_F);
}

void *kb_array_at(const kb_array *array, const int64_t *index) {
    char *p = array->data;
    for (int i = 0; i < array->ndim; i++)
        p += index[i] * array->strides[i];
    return p;
}
