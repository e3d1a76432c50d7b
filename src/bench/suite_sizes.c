/* The size axis the expr and ew suites share: the working set each size names, read from the
 * machine's caches at run time, and the relative cost the shard balancer gives it. */
#include <string.h>

#include "bench/suites.h"
#include "kbench/machine.h"

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
