#ifndef KBENCH_ENVIRONMENT_H
#define KBENCH_ENVIRONMENT_H

#include <stdbool.h>

#include "kbench/version.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Conditions that make timings unreliable, checked before a run and recorded with its
 * results. Each warning has a stable code and a one-line message for people. */
typedef enum kb_env_code {
    KB_ENV_GOVERNOR,         /* "governor": a CPU's frequency governor is not performance */
    KB_ENV_GOVERNOR_UNKNOWN, /* "governor_unknown": no governor readable (no cpufreq) */
    KB_ENV_TURBO,            /* "turbo": turbo/boost is on, so the clock depends on load */
    KB_ENV_TURBO_UNKNOWN,    /* "turbo_unknown": whether turbo is on cannot be read */
    KB_ENV_HYPERVISOR,       /* "hypervisor": running in a virtual machine */
    KB_ENV_LOAD,             /* "load": 1-minute load average above half the usable cores */
    KB_ENV_ASLR,             /* "aslr": address-space layout randomization is on */
    KB_ENV_DEBUG_BUILD,      /* "debug_build": kbench was built without optimization */
    KB_ENV_SANITIZER_BUILD,  /* "sanitizer_build": kbench was built with sanitizers */
    /* "bandwidth_changed": a run's bandwidth probes before and after its cases disagree by
       more than KB_PROBE_CHANGE (kbench/peaks.h); added by the runner, not by kb_env_check */
    KB_ENV_BANDWIDTH_CHANGED,
    KB_ENV_CODE_COUNT
} kb_env_code;

/* The stable code, as listed above; "?" for an invalid value. */
const char *kb_env_code_name(kb_env_code code);

typedef struct kb_env_warning {
    kb_env_code code;
    char message[192]; /* one line, no trailing period */
} kb_env_warning;

/* What the load check compared, as numbers: results files record them (context.load) and
 * `kbench compare` reports them, whether or not there was a `load` warning. */
typedef struct kb_env_load {
    bool known;       /* false when the check was skipped or /proc/loadavg unreadable */
    double average;   /* 1-minute load average, >= 0 */
    int usable_cores; /* the cores it was held against, >= 1 */
} kb_env_load;

/* At most one warning per code. */
typedef struct kb_env_report {
    int count;
    kb_env_warning warnings[KB_ENV_CODE_COUNT];
    kb_env_load load;
} kb_env_report;

/* What the checks look at. kb_env_inputs_live describes this process on this machine; tests
 * point root at a fake /proc and /sys tree and supply their own build description. */
typedef struct kb_env_inputs {
    const char *root;           /* prefix of /proc and /sys paths; "" for the live system */
    bool use_cpuid;             /* also ask CPUID about a hypervisor (live system only) */
    int usable_cores;           /* for the load check; 0 or less skips it */
    const kb_build_info *build; /* NULL skips the build checks */
} kb_env_inputs;

void kb_env_inputs_live(kb_env_inputs *inputs);

/* Runs every check and fills report with the warnings, in the order of kb_env_code. Never
 * fails: a check whose inputs cannot be read either says so (governor, turbo) or stays
 * silent (load, ASLR), as documented per code. */
void kb_env_check(const kb_env_inputs *inputs, kb_env_report *report);

/* Whether report holds a warning with this code. */
bool kb_env_has(const kb_env_report *report, kb_env_code code);

#ifdef __cplusplus
}
#endif

#endif
