#ifndef KBENCH_NPY_H
#define KBENCH_NPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kbench/array.h"
#include "kbench/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* NumPy's .npy format, versions 1.0, 2.0 and 3.0.
 *
 * Supported: every kb_dtype, little- or big-endian (big-endian data is converted to the
 * host's order on read), C or Fortran order, 0 to KB_MAX_DIMS dimensions. bfloat16 has no
 * NumPy type code; kbench writes it with the descr 'bfloat16', which NumPy reads once
 * ml_dtypes is imported. Void items are read only as a dtype the caller names
 * (kb_npy_read_as). Everything else (object, structured, string, datetime and complex dtypes;
 * malformed or truncated files) is rejected with KB_EFORMAT or
 * KB_EUNSUPPORTED and a one-line message. */

typedef struct kb_npy_header {
    int major, minor; /* format version */
    kb_dtype dtype;
    char byteorder; /* '<' or '>' as written in the file ('=', no order and 'bfloat16' give
                       the host's), '|' for single-byte types */
    bool fortran_order;
    int ndim;
    int64_t shape[KB_MAX_DIMS];
    size_t data_offset; /* bytes from the start of the file to the first element */
    size_t data_size;   /* bytes of element data the header describes */
} kb_npy_header;

/* Files at least this large are memory-mapped on read instead of copied. */
#define KB_NPY_MMAP_THRESHOLD ((size_t)16 << 20)

/* Parses the header at the start of buf (the whole file or its first part). */
kb_status kb_npy_parse_header(const void *buf, size_t size, kb_npy_header *out);

/* Reads a whole file held in memory into a new owned array. The file's length must match
 * its header exactly. */
kb_status kb_npy_read_buffer(const void *buf, size_t size, kb_array *out, kb_npy_header *header);

/* Reads a file into a new array (memory-mapped when large). header may be NULL. Messages
 * name the file: "data.npy: truncated header: ...". */
kb_status kb_npy_read(const char *path, kb_array *out, kb_npy_header *header);

/* Reads only a file's header, and checks that the file's length matches it. */
kb_status kb_npy_read_header(const char *path, kb_npy_header *header);

/* The same, reading a void dtype (NumPy's untyped items, descr such as '<V2') as dtype `as`
 * when its items have as's size: a bfloat16 array that NumPy saved without ml_dtypes has
 * descr '<V2'. Every other descr reads as it does without `as`; a void of another size is
 * refused with a message naming both sizes. */
kb_status kb_npy_read_as(const char *path, kb_dtype as, kb_array *out, kb_npy_header *header);
kb_status kb_npy_read_header_as(const char *path, kb_dtype as, kb_npy_header *header);

/* Writes array to path in the given order and format version (major 1, 2 or 3; 0 picks the
 * oldest version whose header can hold the shape). The file appears whole or not at all:
 * it is written to a temporary beside path and renamed. */
kb_status kb_npy_write(const char *path, const kb_array *array, kb_order order, int major);

#ifdef __cplusplus
}
#endif

#endif
