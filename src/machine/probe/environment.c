/* kb_env_check: the environment's warnings about what makes timings unreliable. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "machine/probe/env_checks.h"
#include "kbench/threads.h"

static const char *const code_names[KB_ENV_CODE_COUNT] = {
    [KB_ENV_GOVERNOR] = "governor",
    [KB_ENV_GOVERNOR_UNKNOWN] = "governor_unknown",
    [KB_ENV_TURBO] = "turbo",
    [KB_ENV_TURBO_UNKNOWN] = "turbo_unknown",
    [KB_ENV_HYPERVISOR] = "hypervisor",
    [KB_ENV_LOAD] = "load",
    [KB_ENV_ASLR] = "aslr",
    [KB_ENV_DEBUG_BUILD] = "debug_build",
    [KB_ENV_SANITIZER_BUILD] = "sanitizer_build",
    [KB_ENV_BANDWIDTH_CHANGED] = "bandwidth_changed",
};

const char *kb_env_code_name(kb_env_code code) {
    return (unsigned)code < KB_ENV_CODE_COUNT ? code_names[code] : "?";
}

void kb_env_inputs_live(kb_env_inputs *inputs) {
    inputs->root = "";
    inputs->use_cpuid = true;
    inputs->usable_cores = kb_usable_cores();
    inputs->build = kb_build_info_get();
}

bool kb_env_has(const kb_env_report *report, kb_env_code code) {
    for (int i = 0; i < report->count; i++)
        if (report->warnings[i].code == code)
            return true;
    return false;
}

void kb_env_add(kb_env_report *report, kb_env_code code, const char *format, ...) {
    if (kb_env_has(report, code) || report->count >= KB_ENV_CODE_COUNT)
        return;
    kb_env_warning *w = &report->warnings[report->count++];
    w->code = code;
    va_list args;
    va_start(args, format);
    vsnprintf(w->message, sizeof w->message, format, args);
    va_end(args);
    /* One line by contract, whatever a file under /sys held. */
    for (char *p = w->message; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
}

void kb_env_check(const kb_env_inputs *inputs, kb_env_report *report) {
    memset(report, 0, sizeof *report);
    kb_env_inputs defaults = {.root = ""};
    if (!inputs)
        inputs = &defaults;
    kb_env_check_cpufreq(inputs, report);
    kb_env_check_system(inputs, report);
    kb_env_check_build(inputs, report);
}
