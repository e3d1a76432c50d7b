/* The per-core cache sizes kernels size their blocks by, read once at run time. */
#include <unistd.h>

#include "core/cache_size.h"

/* A size the C library reports (sysconf name), kept once read; fallback when it reports
 * nothing plausible. */
static int64_t reported_size(int64_t *cached, int name, int64_t least, int64_t fallback) {
    int64_t bytes = __atomic_load_n(cached, __ATOMIC_RELAXED);
    if (bytes > 0)
        return bytes;
    long reported = name >= 0 ? sysconf(name) : 0;
    bytes = reported >= least && reported <= (1L << 30) ? reported : fallback;
    __atomic_store_n(cached, bytes, __ATOMIC_RELAXED);
    return bytes;
}

int64_t kb_cache_l2_bytes(void) {
    static int64_t cached;
    /* glibc knows it from CPUID on x86 but often not on Arm; 1 MiB is a mid-range core's
     * (Zen 4, Neoverse V1/V2, recent Xeons have 1-2 MiB) and errs on the small side. */
#ifdef _SC_LEVEL2_CACHE_SIZE
    return reported_size(&cached, _SC_LEVEL2_CACHE_SIZE, 64 * 1024, 1 << 20);
#else
    return reported_size(&cached, -1, 64 * 1024, 1 << 20);
#endif
}

int64_t kb_cache_l1d_bytes(void) {
    static int64_t cached;
    /* 32 KiB: every x86 core of the last decade has at least that, most Arm cores 64 KiB. */
#ifdef _SC_LEVEL1_DCACHE_SIZE
    return reported_size(&cached, _SC_LEVEL1_DCACHE_SIZE, 8 * 1024, 32 * 1024);
#else
    return reported_size(&cached, -1, 8 * 1024, 32 * 1024);
#endif
}

int64_t kb_cache_l3_bytes(void) {
    static int64_t cached;
    /* 8 MiB: an ordinary server slice; smaller than most, so arrays beyond it are treated as
     * in memory a little early rather than late. */
#ifdef _SC_LEVEL3_CACHE_SIZE
    return reported_size(&cached, _SC_LEVEL3_CACHE_SIZE, 256 * 1024, 8 << 20);
#else
    return reported_size(&cached, -1, 256 * 1024, 8 << 20);
#endif
}
