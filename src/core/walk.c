/* Walking the elements of a strided n-d view in C order. */
#include <string.h>

#include "kbench/array.h"

void kb_walk_init(kb_walk *walk, const kb_array *array) {
    memset(walk, 0, sizeof *walk);
    walk->base = array->data;
    int64_t count = kb_array_size(array);
    if (count == 0)
        return; /* remaining = 0: no rows */

    /* Keep the dimensions that move, then merge neighbours where the outer one steps exactly
     * over the whole inner one. */
    int n = 0;
    int64_t shape[KB_MAX_DIMS], strides[KB_MAX_DIMS];
    for (int i = 0; i < array->ndim; i++) {
        if (array->shape[i] == 1)
            continue;
        if (n > 0 && strides[n - 1] == array->strides[i] * array->shape[i]) {
            shape[n - 1] *= array->shape[i];
            strides[n - 1] = array->strides[i];
            continue;
        }
        shape[n] = array->shape[i];
        strides[n] = array->strides[i];
        n++;
    }
    if (n == 0) {
        walk->row_length = 1;
        walk->row_stride = (int64_t)kb_array_itemsize(array);
        walk->remaining = 1;
        return;
    }
    walk->row_length = shape[n - 1];
    walk->row_stride = strides[n - 1];
    walk->ndim = n - 1;
    memcpy(walk->shape, shape, (size_t)walk->ndim * sizeof shape[0]);
    memcpy(walk->strides, strides, (size_t)walk->ndim * sizeof strides[0]);
    walk->remaining = count / walk->row_length;
}

bool kb_walk_next(kb_walk *walk, char **row) {
    if (walk->remaining == 0)
        return false;
    char *p = walk->base;
    for (int i = 0; i < walk->ndim; i++)
        p += walk->index[i] * walk->strides[i];
    *row = p;
    walk->remaining--;
    for (int i = walk->ndim - 1; i >= 0; i--) {
        if (++walk->index[i] < walk->shape[i])
            break;
        walk->index[i] = 0;
    }
    return true;
}
