#ifndef KB_MACHINE_MACHINE_JSON_H
#define KB_MACHINE_MACHINE_JSON_H

#include <stdbool.h>

#include <jansson.h>

#include "kbench/environment.h"
#include "kbench/machine.h"
#include "kbench/simd.h"
#include "kbench/version.h"

/* The parts of a description of this build and machine that `kbench info --json` and a results
 * file's context share, as the objects docs/cli.md and docs/results-schema.md document. Each
 * returns a new reference, NULL when out of memory. What a machine does not expose is null,
 * never 0, and text from the system is kept however it is encoded (kb_json_text). */

/* {"compiler", "c_flags", "build_type", "arch", "optimized", "sanitizers"} */
json_t *kb_build_json(const kb_build_info *build);

/* {"os", "kernel_name", "kernel_release", "kernel_version", "hostname", "arch", "hypervisor"} */
json_t *kb_system_json(const kb_machine *m);

/* {"vendor", "model", "logical_cpus", "physical_cores", "sockets", "caches",
 * "instruction_sets"}, the last from kb_cpu_features_describe's comma-separated list. */
json_t *kb_cpu_json(const kb_machine *m, const char *instruction_sets);

/* The SIMD levels for which has() is true, as bits (1u << level). */
unsigned kb_simd_levels(bool (*has)(kb_simd_level));

/* {"compiled", "available", "selected"}, the first two from kb_simd_levels' bits. */
json_t *kb_simd_json(unsigned compiled, unsigned available, kb_simd_level selected);

/* {"count", "usable_cores"} */
json_t *kb_threads_json(int count, int usable_cores);

/* [{"code", "message"}, ...] */
json_t *kb_env_warnings_json(const kb_env_report *env);

#endif
