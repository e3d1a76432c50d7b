#ifndef KB_UTIL_HASH_H
#define KB_UTIL_HASH_H

#include <stddef.h>
#include <stdint.h>

/* FNV-1a, 64 bits: short, stable across platforms and byte orders, and fast enough for
 * megabytes. For names, cache keys, seeds and content fingerprints, where nobody attacks the
 * hash; not a cryptographic one. */
#define KB_FNV1A_OFFSET 14695981039346656037ull

/* The hash of n bytes, continuing from h (KB_FNV1A_OFFSET to start). */
uint64_t kb_fnv1a_bytes(uint64_t h, const void *data, size_t n);

/* The hash of a NUL-terminated string. */
uint64_t kb_fnv1a(const char *s);

#endif
