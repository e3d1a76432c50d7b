#ifndef KB_MACHINE_PROBE_ENV_CHECKS_H
#define KB_MACHINE_PROBE_ENV_CHECKS_H

#include <stdbool.h>

#include "kbench/environment.h"

/* The checks behind kb_env_check, grouped by what they read. Each appends its warnings in
 * the order of kb_env_code. */
void kb_env_check_cpufreq(const kb_env_inputs *inputs, kb_env_report *report);
void kb_env_check_system(const kb_env_inputs *inputs, kb_env_report *report);
void kb_env_check_build(const kb_env_inputs *inputs, kb_env_report *report);

/* Appends a warning; a second warning with the same code is dropped. */
void kb_env_add(kb_env_report *report, kb_env_code code, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

#endif
