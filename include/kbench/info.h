#ifndef KBENCH_INFO_H
#define KBENCH_INFO_H

#include "kbench/environment.h"
#include "kbench/error.h"
#include "kbench/machine.h"
#include "kbench/simd.h"
#include "kbench/threads.h"
#include "kbench/version.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Everything `kbench info` reports: the build, the machine, the settings in force and the
 * conditions that make timings unreliable. The CLI and the Python module's kbench.info() both
 * gather it here. */
typedef struct kb_info {
    const kb_build_info *build;
    kb_machine machine;
    kb_clock_measurement clock; /* all zero when it could not be measured */
    char instruction_sets[256];
    kb_simd_level selected;
    int threads;
    int usable_cores;
    kb_cores_info cores; /* what bounds usable_cores */
    kb_env_report env;
} kb_info;

/* Gathers it; measuring the clock takes about a tenth of a second. The settings come first, so
 * that an invalid KB_SIMD or KB_NUM_THREADS fails before anything is measured. */
kb_status kb_info_gather(kb_info *out);

/* As the JSON object `kbench info --json` prints (keys: docs/cli.md), indented by two spaces,
 * reals rounded to 7 significant digits; the caller frees *text. */
kb_status kb_info_json(const kb_info *info, char **text);

#ifdef __cplusplus
}
#endif

#endif
