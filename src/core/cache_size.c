/* The per-core cache sizes kernels size their blocks by, read once at run time (or set, for
 * tests). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/cache_size.h"

int64_t kb_parse_cache_size(const char *text) {
    char *end;
    long long v = strtoll(text, &end, 10);
    if (end == text || v <= 0)
        return 0;
    int64_t scale = 1;
    if (*end == 'K' || *end == 'k')
        scale = 1024, end++;
    else if (*end == 'M' || *end == 'm')
        scale = 1024 * 1024, end++;
    else if (*end == 'G' || *end == 'g')
        scale = 1024 * 1024 * 1024, end++;
    if (*end != '\0' || v > INT64_MAX / scale)
        return 0;
    return (int64_t)v * scale;
}

/* The first line of a sysfs file without its newline; false when it cannot be read. */
static bool read_line(const char *path, char *text, int size) {
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    bool ok = fgets(text, size, f) != NULL;
    fclose(f);
    if (ok)
        text[strcspn(text, "\n")] = '\0';
    return ok;
}

/* cpu0's data or unified cache of a level as the kernel describes it in sysfs; 0 when it does
 * not. */
static int64_t sysfs_size(int level) {
    for (int index = 0; index < 16; index++) {
        char path[96], text[64];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", index);
        if (!read_line(path, text, sizeof text))
            break;
        if (atoi(text) != level)
            continue;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/type", index);
        if (!read_line(path, text, sizeof text) || strcmp(text, "Instruction") == 0)
            continue;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", index);
        return read_line(path, text, sizeof text) ? kb_parse_cache_size(text) : 0;
    }
    return 0;
}

/* A cache's size, kept once read: sysfs first (in a VM, glibc's CPUID reading can be far off:
 * 320 MiB of L3 where sysfs and lscpu say 32 MiB), then the C library (sysconf name, or -1
 * for none), else fallback; a size outside [least, 1 GiB] is not believed. */
static int64_t cache_size(int64_t *cached, int level, int name, int64_t least, int64_t fallback) {
    int64_t bytes = __atomic_load_n(cached, __ATOMIC_RELAXED);
    if (bytes > 0)
        return bytes;
    bytes = sysfs_size(level);
    if (bytes < least || bytes > (1L << 30))
        bytes = name >= 0 ? sysconf(name) : 0;
    if (bytes < least || bytes > (1L << 30))
        bytes = fallback;
    __atomic_store_n(cached, bytes, __ATOMIC_RELAXED);
    return bytes;
}

#ifndef _SC_LEVEL1_DCACHE_SIZE
#define _SC_LEVEL1_DCACHE_SIZE (-1)
#endif
#ifndef _SC_LEVEL2_CACHE_SIZE
#define _SC_LEVEL2_CACHE_SIZE (-1)
#endif

/* The sizes once read (or set by kb_cache_sizes_set); 0 until then. */
static int64_t l1d_cached, l2_cached, llc_cached;

int64_t kb_cache_l1d_bytes(void) {
    /* 32 KiB: every x86 core of the last decade has at least that, most Arm cores 64 KiB. */
    return cache_size(&l1d_cached, 1, _SC_LEVEL1_DCACHE_SIZE, 8 * 1024, 32 * 1024);
}

#ifndef _SC_LEVEL3_CACHE_SIZE
#define _SC_LEVEL3_CACHE_SIZE (-1)
#endif

int64_t kb_cache_llc_bytes(void) {
    /* Without an L3, the L2 is the last level. */
    return cache_size(&llc_cached, 3, _SC_LEVEL3_CACHE_SIZE, kb_cache_l2_bytes(),
                      kb_cache_l2_bytes());
}

int64_t kb_cache_l2_bytes(void) {
    /* 1 MiB is a mid-range core's (Zen 4, Neoverse V1/V2, recent Xeons have 1-2 MiB) and errs
     * on the small side. */
    return cache_size(&l2_cached, 2, _SC_LEVEL2_CACHE_SIZE, 64 * 1024, 1 << 20);
}

void kb_cache_sizes_set(int64_t l2, int64_t llc) {
    if (l2 > 0)
        __atomic_store_n(&l2_cached, l2, __ATOMIC_RELAXED);
    if (llc > 0)
        __atomic_store_n(&llc_cached, llc, __ATOMIC_RELAXED);
}
