#ifndef KBENCH_ARRAY_H
#define KBENCH_ARRAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kbench/dtype.h"
#include "kbench/error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KB_MAX_DIMS 32

enum kb_array_flags {
    KB_ARRAY_READONLY = 1u << 0, /* writing through this view is not allowed */
};

/* A strided n-d view of memory, as NumPy's ndarray: element (i0, ..., in-1) lives at
 * data + sum(ik * strides[k]) bytes. Strides are in bytes and may be negative or zero.
 *
 * A view either borrows its memory (kb_array_view) or owns it (kb_array_new, kb_npy_read);
 * kb_array_free releases owned memory and is harmless on a borrowed view. */
typedef struct kb_array {
    kb_dtype dtype;
    int ndim;
    int64_t shape[KB_MAX_DIMS];
    int64_t strides[KB_MAX_DIMS];
    void *data;
    unsigned flags;
    /* Ownership, private to kbench: what kb_array_free releases. */
    void *owned;
    size_t owned_size;
    int owned_kind;
} kb_array;

typedef enum kb_order { KB_ORDER_C, KB_ORDER_F } kb_order;

/* Describes existing memory. strides NULL means C-contiguous. Checks that ndim is in
 * [0, KB_MAX_DIMS], that shapes are non-negative and that the element count and the
 * byte extent do not overflow. */
kb_status kb_array_view(kb_array *out, kb_dtype dtype, int ndim, const int64_t *shape,
                        const int64_t *strides, void *data, unsigned flags);

/* Allocates a zero-filled, KB_ALIGNMENT-aligned, contiguous array in the given order. */
kb_status kb_array_new(kb_array *out, kb_dtype dtype, int ndim, const int64_t *shape,
                       kb_order order);

/* Releases memory the array owns and resets it to an empty 0-d view. */
void kb_array_free(kb_array *array);

/* Fills strides with the contiguous strides of shape in the given order. */
void kb_contiguous_strides(int ndim, const int64_t *shape, size_t itemsize, kb_order order,
                           int64_t *strides);

/* Multiplies the shape out with overflow checking; KB_EINVAL on a negative dimension or
 * a product above INT64_MAX / itemsize. */
kb_status kb_shape_size(int ndim, const int64_t *shape, size_t itemsize, int64_t *count);

int64_t kb_array_size(const kb_array *array); /* number of elements */
size_t kb_array_itemsize(const kb_array *array);
bool kb_array_is_c_contiguous(const kb_array *array);
bool kb_array_is_f_contiguous(const kb_array *array);

/* Address of the element at the given index (one entry per dimension, unchecked). */
void *kb_array_at(const kb_array *array, const int64_t *index);

/* Copies src into dst element by element, converting between dtypes as NumPy's astype does
 * (floats to integers truncate; bool is value != 0). Shapes must match. A float that no
 * integer of dst's type holds (NaN, infinite or out of range) fails with KB_EINVAL and a
 * message that names the first such element in C order by its index in the shape, as NumPy
 * writes an index: "element (1, 2): value nan cannot be converted to int32"; the elements
 * before it are copied. */
kb_status kb_array_copy(kb_array *dst, const kb_array *src);

/* Walks an n-d view row by row: each step yields the start of one row along the last axis
 * with that row's length and byte stride. Dimensions of length 1 are dropped and adjacent
 * dimensions that are contiguous with each other are merged first, so a contiguous array of
 * any rank is a single row. An array with zero elements yields no rows; a 0-d array yields
 * one row of length 1.
 *
 *     kb_walk w;
 *     kb_walk_init(&w, &a);
 *     char *row;
 *     while (kb_walk_next(&w, &row))
 *         for (int64_t i = 0; i < w.row_length; i++) use(row + i * w.row_stride);
 */
typedef struct kb_walk {
    int ndim; /* outer dimensions, after merging */
    int64_t shape[KB_MAX_DIMS];
    int64_t strides[KB_MAX_DIMS];
    int64_t index[KB_MAX_DIMS];
    char *base;
    int64_t row_length;
    int64_t row_stride;
    int64_t remaining; /* rows not yet yielded */
} kb_walk;

void kb_walk_init(kb_walk *walk, const kb_array *array);
bool kb_walk_next(kb_walk *walk, char **row);

#ifdef __cplusplus
}
#endif

#endif
