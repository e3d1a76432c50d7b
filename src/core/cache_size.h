#ifndef KB_CORE_CACHE_SIZE_H
#define KB_CORE_CACHE_SIZE_H

#include <stdint.h>

/* Cache sizes in bytes as sysfs describes cpu0's caches, else as the C library reports them,
 * else a default. Kernels size their blocks by them rather than by constants tuned to one CPU.
 *
 * The L2 cache of one core, else 1 MiB. */
int64_t kb_cache_l2_bytes(void);

/* The last-level cache as cpu0 sees it (L3, shared by the cores of its complex), else its L2. */
int64_t kb_cache_llc_bytes(void);

/* The L1 data cache of one core, else 32 KiB. */
int64_t kb_cache_l1d_bytes(void);

/* A size as sysfs writes it: "32K", "1024K", "32M" or plain bytes; 0 when malformed. */
int64_t kb_parse_cache_size(const char *text);

#endif
