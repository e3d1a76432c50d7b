/* The axes the expr and ew suites share: the size (the working set each size names, read from
 * the machine's caches at run time, and the relative cost the shard balancer gives it), the
 * SIMD level and the thread count. */
#include <stdio.h>
#include <string.h>

#include "bench/suites.h"
#include "kbench/machine.h"
#include "kbench/simd.h"
#include "kbench/threads.h"

int64_t kb_suite_size_bytes(const char *size) {
    kb_machine m;
    kb_machine_probe(&m);
    int64_t l2 = m.caches[KB_CACHE_L2].size, l3 = m.caches[KB_CACHE_L3].size;
    int64_t llc = l3 > 0 ? l3 : l2 > 0 ? l2 : (int64_t)32 << 20;
    return strcmp(size, "L2") == 0 ? (l2 > 0 ? l2 : (int64_t)1 << 20) / 2 : 4 * llc;
}

double kb_suite_size_cost(const kb_bench_case *c) {
    const char *size = kb_bench_param(c, "size");
    return size && strcmp(size, "DRAM") == 0 ? 4 : 1;
}

int kb_suite_levels(const char *levels[2]) {
    int n = 0;
    levels[n++] = "scalar";
    /* The best level as the reduce suite names it, auto: the speedup report's geometric means
     * and its auto-over-scalar column, and kbench compare --ab, are of simd=auto. */
    if (kb_simd_best() != KB_SIMD_SCALAR)
        levels[n++] = "auto";
    return n;
}

int kb_suite_threads(char all_cores[16], const char *threads[2]) {
    int cores = kb_usable_cores();
    snprintf(all_cores, 16, "%d", cores);
    threads[0] = "1";
    threads[1] = all_cores;
    return cores > 1 ? 2 : 1;
}
