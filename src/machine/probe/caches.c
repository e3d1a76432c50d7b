/* The cache hierarchy from sysfs: sizes, line sizes and sharing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "machine/probe/cpulist.h"
#include "machine/probe/probe.h"
#include "machine/probe/sysfile.h"

static const char *const cache_names[KB_CACHE_LEVEL_COUNT] = {
    [KB_CACHE_L1D] = "L1d", [KB_CACHE_L1I] = "L1i", [KB_CACHE_L2] = "L2", [KB_CACHE_L3] = "L3"};

const char *kb_cache_name(kb_cache_level level) {
    return (unsigned)level < KB_CACHE_LEVEL_COUNT ? cache_names[level] : "?";
}

static int slot_of(int64_t level, const char *type) {
    bool data = strcmp(type, "Data") == 0, instruction = strcmp(type, "Instruction") == 0;
    bool unified = strcmp(type, "Unified") == 0;
    if (level == 1)
        return data ? KB_CACHE_L1D : instruction ? KB_CACHE_L1I : unified ? KB_CACHE_L1D : -1;
    if (level == 2 && !instruction)
        return KB_CACHE_L2;
    if (level == 3 && !instruction)
        return KB_CACHE_L3;
    return -1; /* L4 and separate L2 instruction caches are rare and not used by kbench */
}

/* cpu0's caches describe the others on every machine kbench targets; heterogeneous (big.LITTLE)
 * machines would need one description per cluster. */
void kb_probe_caches(kb_machine *m, const char *root) {
    memset(m->caches, 0, sizeof m->caches);
    for (int index = 0; index < 16; index++) {
        char dir[96], path[128], text[4096];
        snprintf(dir, sizeof dir, "/sys/devices/system/cpu/cpu0/cache/index%d", index);
        int64_t level;
        snprintf(path, sizeof path, "%s/level", dir);
        if (!kb_sysfile_int64(root, path, &level))
            break;
        snprintf(path, sizeof path, "%s/type", dir);
        if (!kb_sysfile_read(root, path, text, sizeof text))
            continue;
        int slot = slot_of(level, text);
        if (slot < 0)
            continue;
        kb_cache *c = &m->caches[slot];
        snprintf(path, sizeof path, "%s/size", dir);
        if (kb_sysfile_read(root, path, text, sizeof text))
            c->size = kb_parse_cache_size(text);
        int64_t line;
        snprintf(path, sizeof path, "%s/coherency_line_size", dir);
        if (kb_sysfile_int64(root, path, &line) && line > 0 && line <= 4096)
            c->line_size = (int)line;
        int shared;
        snprintf(path, sizeof path, "%s/shared_cpu_list", dir);
        if (kb_sysfile_read(root, path, text, sizeof text) &&
            kb_cpulist_summary(text, &shared, NULL))
            c->shared_by = shared;
    }
}
