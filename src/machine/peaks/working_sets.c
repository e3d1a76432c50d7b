/* The working sets the peaks are measured on, from the cache sizes. */
#include <math.h>
#include <unistd.h>

#include "machine/peaks/working_sets.h"

void kb_caches_with_defaults(const kb_cache in[KB_CACHE_LEVEL_COUNT], int logical_cpus,
                             kb_cache out[KB_CACHE_LEVEL_COUNT]) {
    /* An ordinary server core of the last decade, for a VM without cache information or qemu. */
    static const int64_t default_size[KB_CACHE_LEVEL_COUNT] = {[KB_CACHE_L1D] = 32 << 10,
                                                               [KB_CACHE_L1I] = 32 << 10,
                                                               [KB_CACHE_L2] = 1 << 20,
                                                               [KB_CACHE_L3] = 8 << 20};
    if (logical_cpus < 1)
        logical_cpus = 1;
    for (int c = 0; c < KB_CACHE_LEVEL_COUNT; c++) {
        out[c] = in[c];
        if (out[c].size <= 0)
            out[c].size = default_size[c];
        if (out[c].line_size <= 0)
            out[c].line_size = 64;
        if (out[c].shared_by <= 0)
            out[c].shared_by = c == KB_CACHE_L3 ? logical_cpus : 1;
    }
}

int kb_bw_array_count(kb_bw_kernel kernel) {
    return kernel == KB_BW_LOAD ? 1 : kernel == KB_BW_COPY ? 2 : 3;
}

static const kb_cache_level cache_of[] = {KB_CACHE_L1D, KB_CACHE_L2, KB_CACHE_L3};

int64_t kb_level_capacity(const kb_cache caches[KB_CACHE_LEVEL_COUNT], kb_mem_level level,
                          int threads) {
    if (level >= KB_MEM_DRAM)
        return INT64_MAX;
    const kb_cache *c = &caches[cache_of[level]];
    if (c->size <= 0)
        return 0;
    /* In 64 bits and saturating: the caches may come from a peaks file. */
    int64_t per = c->shared_by > 0 ? c->shared_by : 1;
    int64_t instances = threads < 1 ? 1 : ((int64_t)threads + per - 1) / per;
    return c->size > INT64_MAX / instances ? INT64_MAX : c->size * instances;
}

static int64_t physical_memory(void) {
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? (int64_t)pages * page : 0;
}

int64_t kb_peaks_working_set(const kb_cache caches[KB_CACHE_LEVEL_COUNT], int logical_cpus,
                             kb_mem_level level, int threads, bool quick) {
    kb_cache c[KB_CACHE_LEVEL_COUNT];
    kb_caches_with_defaults(caches, logical_cpus, c);
    if (logical_cpus < 1)
        logical_cpus = 1;
    if (threads < 1)
        threads = 1;
    if (level == KB_MEM_DRAM) {
        /* Four times every last-level cache together, so that at most a quarter of the data
         * could be a cache hit (STREAM's rule). */
        int64_t instances =
            (logical_cpus + c[KB_CACHE_L3].shared_by - 1) / c[KB_CACHE_L3].shared_by;
        int64_t bytes = 4 * c[KB_CACHE_L3].size * instances;
        /* In a VM, 128 MiB measured from 17 to 28 GB/s from one run to the next (each run
         * steady) as its pages landed differently; 1 GiB stayed within a few percent. */
        int64_t floor = quick ? (int64_t)64 << 20 : (int64_t)1 << 30;
        if (bytes < floor)
            bytes = floor;
        int64_t memory = physical_memory();
        if (memory > 0 && bytes > memory / 4)
            bytes = memory / 4;
        return bytes;
    }
    /* Half of each thread's share of its cache instance, so that the stack, the code and
     * stray lines do not push the working set out of it. */
    const kb_cache *cache = &c[cache_of[level]];
    int sharing = cache->shared_by < threads ? cache->shared_by : threads;
    return threads * (cache->size / sharing / 2);
}

int kb_bw_curve_working_sets(kb_bw_kernel kernel, const kb_cache caches[KB_CACHE_LEVEL_COUNT],
                             int logical_cpus, int threads, bool quick, int64_t *sizes, int max) {
    kb_cache c[KB_CACHE_LEVEL_COUNT];
    kb_caches_with_defaults(caches, logical_cpus, c);
    if (threads < 1)
        threads = 1;
    /* A block of each array for each thread: the unit kb_bw_measure rounds working sets to. */
    int64_t unit = (int64_t)KB_BW_BLOCK_BYTES * kb_bw_array_count(kernel) * threads;
    int64_t dram = kb_peaks_working_set(caches, logical_cpus, KB_MEM_DRAM, threads, quick);
    dram = dram / unit * unit;
    int64_t llc = kb_level_capacity(c, KB_MEM_L3, threads);
    int64_t last = llc > dram / KB_BW_CURVE_LLC_MULTIPLE ? dram : KB_BW_CURVE_LLC_MULTIPLE * llc;
    int count = 0;
    int64_t previous = 0;
    /* Point k is first * 2^(k / points per octave), in whole units. */
    for (int k = 0; count < max - 1; k++) {
        double bytes = (double)KB_BW_CURVE_FIRST_BYTES_PER_THREAD * threads *
                       exp2((double)k / KB_BW_CURVE_POINTS_PER_OCTAVE);
        int64_t rounded = (int64_t)(bytes / (double)unit + 0.5) * unit;
        if (rounded > last)
            break;
        if (rounded > previous)
            sizes[count++] = previous = rounded;
    }
    if (count < max && dram > previous)
        sizes[count++] = dram;
    return count;
}
