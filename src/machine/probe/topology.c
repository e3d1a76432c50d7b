/* Sockets, cores and logical CPUs from sysfs. */
#include <stdio.h>
#include <unistd.h>

#include "machine/probe/cpulist.h"
#include "machine/probe/probe.h"
#include "machine/probe/sysfile.h"

/* Counts the groups (cores or packages) of the online CPUs by counting each group once, at
 * its lowest-numbered CPU, so no table of groups seen is needed however many CPUs there are.
 * 0 when any CPU's file is missing: a partial count would be wrong, not approximate. */
static int count_groups(const char *root, const char *online, const char *file,
                        const char *old_file) {
    const char *cursor = online;
    int first, last, groups = 0;
    while (kb_cpulist_next(&cursor, &first, &last)) {
        for (int cpu = first; cpu <= last; cpu++) {
            char path[128], list[4096];
            int lowest;
            snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/%s", cpu, file);
            if (!kb_sysfile_read(root, path, list, sizeof list)) {
                snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/%s", cpu,
                         old_file);
                if (!kb_sysfile_read(root, path, list, sizeof list))
                    return 0;
            }
            if (!kb_cpulist_summary(list, NULL, &lowest))
                return 0;
            if (lowest == cpu)
                groups++;
        }
    }
    return groups;
}

void kb_probe_topology(kb_machine *m, const char *root, bool live) {
    char online[4096];
    int count = 0;
    m->physical_cores = 0;
    m->sockets = 0;
    if (kb_sysfile_read(root, "/sys/devices/system/cpu/online", online, sizeof online) &&
        kb_cpulist_summary(online, &count, NULL)) {
        m->logical_cpus = count;
        /* core_cpus_list and package_cpus_list are the names since Linux 5.4; the older
         * names still exist beside them. */
        m->physical_cores = count_groups(root, online, "core_cpus_list", "thread_siblings_list");
        m->sockets = count_groups(root, online, "package_cpus_list", "core_siblings_list");
        return;
    }
    long n = live ? sysconf(_SC_NPROCESSORS_ONLN) : 0;
    m->logical_cpus = n > 0 ? (int)n : 1;
}
