#ifndef KB_CORE_NPY_FORMAT_H
#define KB_CORE_NPY_FORMAT_H

#include <stddef.h>

#include "kbench/npy.h"

/* What the .npy reader and writer share: the file's fixed prefix and the host's byte order.
 *
 * A file starts with the magic "\x93NUMPY", a major and a minor version byte, then the
 * header's length as a little-endian integer (2 bytes in version 1.0, 4 bytes in 2.0 and
 * 3.0), then the header text, then the element data. */

#define KB_NPY_MAGIC "\x93NUMPY"
#define KB_NPY_MAGIC_LEN 6

/* The byte order character of this host, as NumPy writes it. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define KB_NPY_HOST_ORDER '>'
#else
#define KB_NPY_HOST_ORDER '<'
/* No dtype to read void items as: kb_npy_parse_header's behaviour. */
#define KB_NPY_AS_NONE KB_DTYPE_COUNT

/* kb_npy_parse_header, reading a void descr of as's item size as dtype as (see
 * kb_npy_read_as). */
kb_status kb_npy_parse_header_as(const void *buf, size_t size, kb_dtype as, kb_npy_header *out);

#endif

/* Length of the prefix before the header text for a format version; 0 if unsupported. */
size_t kb_npy_prefix_len(int major, int minor);

/* Where the header of the file starting at buf ends (= where its data starts), read from the
 * prefix alone, so a reader knows how much to read before parsing; 0 when buf holds less
 * than a whole prefix or is not the start of a supported .npy file. */
size_t kb_npy_header_end(const void *buf, size_t size);

/* No dtype to read void items as: kb_npy_parse_header's behaviour. */
#define KB_NPY_AS_NONE KB_DTYPE_COUNT

/* kb_npy_parse_header, reading a void descr of as's item size as dtype as (see
 * kb_npy_read_as). */
kb_status kb_npy_parse_header_as(const void *buf, size_t size, kb_dtype as, kb_npy_header *out);

#endif
