#ifndef KB_CORE_CACHE_SIZE_H
#define KB_CORE_CACHE_SIZE_H

#include <stdint.h>

/* The L2 cache of one core in bytes, as the C library reports it, else 1 MiB. Kernels size
 * the working set of a block by it rather than by a constant tuned to one CPU. */
int64_t kb_cache_l2_bytes(void);

/* The L1 data cache of one core in bytes, as the C library reports it, else 32 KiB. */
int64_t kb_cache_l1d_bytes(void);

/* The last-level (L3) cache in bytes, as the C library reports it, else 8 MiB: what an array
 * must exceed to be read from memory rather than from cache. */
int64_t kb_cache_l3_bytes(void);

#endif
