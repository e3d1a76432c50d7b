/* The per-core cache sizes kernels size their blocks by, read once at run time. */
#include <unistd.h>

#include "core/cache_size.h"

int64_t kb_cache_l2_bytes(void) {
    static int64_t cached;
    int64_t bytes = __atomic_load_n(&cached, __ATOMIC_RELAXED);
    if (bytes > 0)
        return bytes;
    long reported = 0;
#ifdef _SC_LEVEL2_CACHE_SIZE
    reported = sysconf(_SC_LEVEL2_CACHE_SIZE);
#endif
    /* glibc knows it from CPUID on x86 but often not on Arm; 1 MiB is a mid-range core's
     * (Zen 4, Neoverse V1/V2, recent Xeons have 1-2 MiB) and errs on the small side. */
    bytes = reported >= 64 * 1024 && reported <= (1L << 30) ? reported : 1 << 20;
    __atomic_store_n(&cached, bytes, __ATOMIC_RELAXED);
    return bytes;
}
