#ifndef KB_MACHINE_PEAKS_WORKING_SETS_H
#define KB_MACHINE_PEAKS_WORKING_SETS_H

#include "kbench/peaks.h"

/* The bandwidth kernels run over whole blocks of this many bytes per array and thread, so that
 * every SIMD loop runs without a tail (bandwidth.c). */
#define KB_BW_BLOCK_BYTES 512

/* The arrays a kernel touches, each in whole blocks per thread: load reads a; copy writes a
 * from b; triad writes a from b and c. */
int kb_bw_array_count(kb_bw_kernel kernel);

/* The caches with what the machine did not tell filled in: 32 KiB L1d and L1i and 1 MiB L2,
 * private, and 8 MiB of L3 shared by every logical CPU; 64-byte lines. */
void kb_caches_with_defaults(const kb_cache in[KB_CACHE_LEVEL_COUNT], int logical_cpus,
                             kb_cache out[KB_CACHE_LEVEL_COUNT]);

/* Bytes of a memory level that threads threads can use together: each cache instance they
 * occupy, filling instances one after another. */
int64_t kb_level_capacity(const kb_cache caches[KB_CACHE_LEVEL_COUNT], kb_mem_level level,
                          int threads);

#endif
