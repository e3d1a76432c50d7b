/* Environment checks on the system: hypervisor, load and ASLR. */
#include <math.h>
#include <stdlib.h>

#include "machine/probe/env_checks.h"
#include "kbench/machine.h"
#include "machine/probe/sysfile.h"
#include "util/strings.h"

/* A virtual CPU shares its core with other guests and its timers are virtual: both add
 * noise that no number of repetitions removes. */
static void check_hypervisor(const kb_env_inputs *inputs, kb_env_report *report) {
    char name[64];
    if (kb_hypervisor_detect(inputs->root, inputs->use_cpuid, name, (int)sizeof name))
        kb_env_add(report, KB_ENV_HYPERVISOR, "running under a hypervisor (%s)", name);
}

/* Other runnable work competes for cores and memory bandwidth. Half the cores leaves room
 * for the benchmark's own threads on a machine that is otherwise idle. */
static void check_load(const kb_env_inputs *inputs, kb_env_report *report) {
    char text[128];
    if (inputs->usable_cores <= 0 ||
        !kb_sysfile_read(inputs->root, "/proc/loadavg", text, sizeof text))
        return;
    char *end;
    double load = strtod(text, &end);
    if (end == text)
        return;
    /* Kept as a number only when a results file can hold it: JSON has no NaN or infinity. */
    if (load >= 0 && isfinite(load))
        report->load =
            (kb_env_load){.known = true, .average = load, .usable_cores = inputs->usable_cores};
    if (load > inputs->usable_cores / 2.0)
        kb_env_add(report, KB_ENV_LOAD,
                   "1-minute load average %.2f is above half of the %d usable core%s", load,
                   inputs->usable_cores, kb_plural(inputs->usable_cores));
}

/* With ASLR the stack and heap start at different addresses each run, so alignment (and with
 * it cache-set and 4K-aliasing effects) changes from one run to the next. */
static void check_aslr(const kb_env_inputs *inputs, kb_env_report *report) {
    int64_t v;
    if (kb_sysfile_int64(inputs->root, "/proc/sys/kernel/randomize_va_space", &v) && v != 0)
        kb_env_add(report, KB_ENV_ASLR,
                   "address-space layout randomization is on (randomize_va_space=%lld)",
                   (long long)v);
}

void kb_env_check_system(const kb_env_inputs *inputs, kb_env_report *report) {
    check_hypervisor(inputs, report);
    check_load(inputs, report);
    check_aslr(inputs, report);
}
