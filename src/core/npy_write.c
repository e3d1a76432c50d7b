/* Writing arrays as .npy files. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/atomic_file.h"
#include "core/byteswap.h"
#include "core/fail.h"
#include "core/npy_format.h"
#include "kbench/npy.h"

/* NumPy aligns the data to 64 bytes so that a mapped file's elements are aligned for any
 * vector load; kbench does the same. */
#define NPY_ALIGN 64

/* Big enough that a non-contiguous array is written in few system calls. */
#define STAGING_SIZE ((size_t)1 << 20)

/* kbench writes little-endian data, as NumPy does on every common machine, so files compare
 * byte for byte across hosts. The one exception is bfloat16, whose descr has no byte order:
 * ml_dtypes reads it in the host's order, so it is written in the host's order. */
static void descr_of(kb_dtype dtype, char *out, size_t cap) {
    if (dtype == KB_BF16) {
        snprintf(out, cap, "bfloat16");
        return;
    }
    char kind = dtype == KB_BOOL            ? 'b'
                : kb_dtype_is_float(dtype)  ? 'f'
                : kb_dtype_is_signed(dtype) ? 'i'
                                            : 'u';
    size_t size = kb_dtype_size(dtype);
    snprintf(out, cap, "%c%c%zu", size == 1 ? '|' : '<', kind, size);
}

/* The dict as NumPy's repr gives it: keys sorted, "(3,)" for one dimension, a trailing
 * ", " before the brace. Returns its length (the buffer holds any 32-d header). */
static size_t format_dict(char *out, size_t cap, const kb_array *array, kb_order order) {
    char descr[16];
    descr_of(array->dtype, descr, sizeof descr);
    size_t n = (size_t)snprintf(out, cap, "{'descr': '%s', 'fortran_order': %s, 'shape': (", descr,
                                order == KB_ORDER_F ? "True" : "False");
    for (int i = 0; i < array->ndim; i++)
        n +=
            (size_t)snprintf(out + n, cap - n, "%s%lld", i ? ", " : "", (long long)array->shape[i]);
    n += (size_t)snprintf(out + n, cap - n, "%s), }", array->ndim == 1 ? "," : "");
    /* NumPy leaves room for the growing axis (the first in C order, the last in Fortran) to
     * reach 21 digits, so that appending to a file can rewrite its header in place. Doing
     * the same makes kbench's files byte for byte those of np.save. */
    if (array->ndim > 0) {
        int axis = order == KB_ORDER_F ? array->ndim - 1 : 0;
        int digits = snprintf(NULL, 0, "%lld", (long long)array->shape[axis]);
        for (int i = digits; i < 21; i++)
            out[n++] = ' ';
        out[n] = '\0';
    }
    return n;
}

typedef struct sink {
    FILE *f;
    unsigned char *buf;
    size_t used;
} sink;

static kb_status write_all(FILE *f, const void *data, size_t size) {
    if (fwrite(data, 1, size, f) != size)
        return kb_fail(KB_EIO, "cannot write: %s", strerror(errno));
    return KB_OK;
}

static kb_status flush(sink *s) {
    kb_status st = write_all(s->f, s->buf, s->used);
    s->used = 0;
    return st;
}

static kb_status put(sink *s, const void *data, size_t size) {
    if (s->used + size > STAGING_SIZE) {
        kb_status st = flush(s);
        if (st != KB_OK)
            return st;
    }
    if (size >= STAGING_SIZE)
        return write_all(s->f, data, size);
    memcpy(s->buf + s->used, data, size);
    s->used += size;
    return KB_OK;
}

/* Writes the elements in the file's order. For Fortran order the axes are reversed, so that
 * walking the reversed view in C order visits the elements in Fortran order. Contiguous rows
 * go out as they are; anything else is gathered element by element. */
static kb_status write_elements(sink *s, const kb_array *array, kb_order order) {
    kb_array view = *array;
    if (order == KB_ORDER_F) {
        for (int i = 0; i < array->ndim; i++) {
            view.shape[i] = array->shape[array->ndim - 1 - i];
            view.strides[i] = array->strides[array->ndim - 1 - i];
        }
    }
    size_t itemsize = kb_dtype_size(array->dtype);
    bool swap = KB_NPY_HOST_ORDER != '<' && itemsize > 1 && array->dtype != KB_BF16;
    kb_walk walk;
    kb_walk_init(&walk, &view);
    char *row;
    while (kb_walk_next(&walk, &row)) {
        if (walk.row_stride == (int64_t)itemsize && !swap) {
            kb_status st = put(s, row, (size_t)walk.row_length * itemsize);
            if (st != KB_OK)
                return st;
            continue;
        }
        for (int64_t i = 0; i < walk.row_length; i++) {
            if (s->used + itemsize > STAGING_SIZE) {
                kb_status st = flush(s);
                if (st != KB_OK)
                    return st;
            }
            memcpy(s->buf + s->used, row + i * walk.row_stride, itemsize);
            if (swap)
                kb_byteswap(s->buf + s->used, 1, itemsize);
            s->used += itemsize;
        }
    }
    return flush(s);
}

static kb_status check_array(const kb_array *array, kb_order order, int major) {
    if (kb_dtype_size(array->dtype) == 0)
        return kb_fail(KB_EINVAL, "invalid dtype %d", (int)array->dtype);
    if (order != KB_ORDER_C && order != KB_ORDER_F)
        return kb_fail(KB_EINVAL, "invalid order %d", (int)order);
    if (major < 0 || major > 3)
        return kb_fail(KB_EINVAL, "format version %d; kbench writes 1, 2 or 3 (0 for automatic)",
                       major);
    int64_t count;
    kb_status st = kb_shape_size(array->ndim, array->shape, kb_dtype_size(array->dtype), &count);
    if (st != KB_OK)
        return st;
    if (count > 0 && !array->data)
        return kb_fail(KB_EINVAL, "array has no data");
    return KB_OK;
}

typedef struct npy_file {
    const kb_array *array;
    kb_order order;
    int major;
} npy_file;

static kb_status write_file(FILE *f, void *context) {
    const npy_file *file = context;
    const kb_array *array = file->array;
    kb_order order = file->order;
    int major = file->major;
    char dict[2048];
    size_t dict_len = format_dict(dict, sizeof dict, array, order);
    /* The header is padded with spaces and ends in a newline, so the data starts at a
     * multiple of NPY_ALIGN. Version 0 picks the oldest that holds it: 1.0 unless the header
     * passes 64 KiB, which kbench's at most 32 dimensions never reach. */
    size_t prefix = kb_npy_prefix_len(major ? major : 1, 0);
    size_t total = (prefix + dict_len + 1 + NPY_ALIGN - 1) / NPY_ALIGN * NPY_ALIGN;
    if (major == 0 && total - prefix > 65535) {
        prefix = kb_npy_prefix_len(2, 0);
        total = (prefix + dict_len + 1 + NPY_ALIGN - 1) / NPY_ALIGN * NPY_ALIGN;
    }
    if (major == 0)
        major = prefix == kb_npy_prefix_len(1, 0) ? 1 : 2;
    size_t header_len = total - prefix;
    if (major == 1 && header_len > 65535)
        return kb_fail(KB_EINVAL, "a %zu-byte header does not fit format version 1.0", header_len);

    sink s = {f, malloc(STAGING_SIZE), 0};
    if (!s.buf)
        return kb_fail(KB_ENOMEM, "cannot allocate %zu bytes", STAGING_SIZE);
    unsigned char *h = s.buf;
    memcpy(h, KB_NPY_MAGIC, KB_NPY_MAGIC_LEN);
    h[6] = (unsigned char)major;
    h[7] = 0;
    for (size_t i = 0; i < prefix - 8; i++)
        h[8 + i] = (unsigned char)(header_len >> (8 * i));
    memcpy(h + prefix, dict, dict_len);
    memset(h + prefix + dict_len, ' ', total - prefix - dict_len - 1);
    h[total - 1] = '\n';
    s.used = total;
    kb_status st = write_elements(&s, array, order);
    free(s.buf);
    return st;
}

kb_status kb_npy_write(const char *path, const kb_array *array, kb_order order, int major) {
    if (!path || !array)
        return kb_fail(KB_EINVAL, "npy: no path or no array");
    kb_status st = check_array(array, order, major);
    if (st != KB_OK)
        return st;
    npy_file file = {array, order, major};
    return kb_atomic_write(path, write_file, &file);
}
