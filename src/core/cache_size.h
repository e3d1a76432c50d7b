#ifndef KB_CORE_CACHE_SIZE_H
#define KB_CORE_CACHE_SIZE_H

#include <stdbool.h>
#include <stdint.h>

/* Cache sizes in bytes as sysfs describes cpu0's caches, else as the C library reports them,
 * else a default. Kernels size their blocks by them rather than by constants tuned to one CPU.
 *
 * The L2 cache of one core, else 1 MiB. */
int64_t kb_cache_l2_bytes(void);

/* The last-level cache as cpu0 sees it (L3, shared by the cores of its complex), else its L2. */
int64_t kb_cache_llc_bytes(void);

/* Whether data of this many bytes comes from memory rather than the caches: at least half the
 * last-level cache. Half: the last level is shared with the other cores (and, in a VM, other
 * guests) and holds the kernel's other data too. Kernels that stream such data prefetch
 * ahead of their loads, and so does the load kernel of kbench peaks, so that the bound holds
 * them to what a prefetching loop gets (docs/performance.md). */
static inline bool kb_cache_far(int64_t bytes) {
    return bytes >= kb_cache_llc_bytes() / 2;
}

/* How far ahead such a streaming loop prefetches: 1 KiB, sixteen 64-byte lines, about the
 * latency of memory at the rate a core streams. */
#define KB_FAR_AHEAD_BYTES 1024

/* The L1 data cache of one core, else 32 KiB. */
int64_t kb_cache_l1d_bytes(void);

/* A size as sysfs writes it: "32K", "1024K", "32M" or plain bytes; 0 when malformed. */
int64_t kb_parse_cache_size(const char *text);

#endif
