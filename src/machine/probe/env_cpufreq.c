/* Environment checks on frequency scaling: governor and turbo. */
#include <stdio.h>
#include <string.h>

#include "machine/probe/env_checks.h"
#include "machine/probe/cpulist.h"
#include "machine/probe/sysfile.h"
#include "util/internal.h"

/* A governor other than performance moves the clock with load, so the first repetitions of
 * a run are timed at a lower clock than the last. */
static void check_governor(const char *root, kb_env_report *report) {
    char online[4096];
    if (!kb_sysfile_read(root, "/sys/devices/system/cpu/online", online, sizeof online) ||
        !kb_cpulist_summary(online, NULL, NULL))
        kb_copy_string(online, sizeof online, "0");
    const char *cursor = online;
    int first, last, readable = 0, other = 0;
    char example[64] = "";
    while (kb_cpulist_next(&cursor, &first, &last)) {
        for (int cpu = first; cpu <= last; cpu++) {
            char path[128], governor[64];
            snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor",
                     cpu);
            if (!kb_sysfile_read(root, path, governor, sizeof governor) || !governor[0])
                continue;
            readable++;
            if (strcmp(governor, "performance") != 0) {
                if (other++ == 0)
                    kb_copy_string(example, sizeof example, governor);
            }
        }
    }
    if (other > 0)
        kb_env_add(report, KB_ENV_GOVERNOR,
                   "CPU frequency governor is '%s' on %d of %d CPUs, not 'performance'", example,
                   other, readable);
    else if (readable == 0)
        kb_env_add(report, KB_ENV_GOVERNOR_UNKNOWN,
                   "CPU frequency governor unknown (no cpufreq in /sys); the clock may vary");
}

/* Turbo makes the clock depend on how many cores are busy and on temperature, so a kernel's
 * speed changes with what else runs and with how long it has run. */
static void check_turbo(const char *root, kb_env_report *report) {
    int64_t v;
    if (kb_sysfile_int64(root, "/sys/devices/system/cpu/intel_pstate/no_turbo", &v)) {
        if (v == 0)
            kb_env_add(report, KB_ENV_TURBO, "turbo boost is on (intel_pstate/no_turbo=0)");
        return;
    }
    static const char *const boost_files[] = {
        "/sys/devices/system/cpu/cpufreq/boost",
        /* amd-pstate and newer kernels have the switch per policy only */
        "/sys/devices/system/cpu/cpu0/cpufreq/boost",
    };
    for (size_t i = 0; i < sizeof boost_files / sizeof boost_files[0]; i++) {
        if (kb_sysfile_int64(root, boost_files[i], &v)) {
            if (v != 0)
                kb_env_add(report, KB_ENV_TURBO, "CPU boost is on (%s=%lld)",
                           boost_files[i] + strlen("/sys/devices/system/cpu/"), (long long)v);
            return;
        }
    }
    kb_env_add(report, KB_ENV_TURBO_UNKNOWN,
               "whether turbo boost is on is unknown (no intel_pstate or cpufreq boost in /sys)");
}

void kb_env_check_cpufreq(const kb_env_inputs *inputs, kb_env_report *report) {
    check_governor(inputs->root, report);
    check_turbo(inputs->root, report);
}
