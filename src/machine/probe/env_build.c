/* Environment checks on the build: debug, sanitizers. */
#include "machine/probe/env_checks.h"

/* Numbers from an unoptimized or instrumented build describe that build, not the kernels. */
void kb_env_check_build(const kb_env_inputs *inputs, kb_env_report *report) {
    const kb_build_info *b = inputs->build;
    if (!b)
        return;
    if (!b->optimized)
        kb_env_add(report, KB_ENV_DEBUG_BUILD, "kbench was built without optimization (%s)",
                   b->build_type ? b->build_type : "unknown build type");
    if (b->sanitizers)
        kb_env_add(report, KB_ENV_SANITIZER_BUILD,
                   "kbench was built with sanitizers, which slow its kernels down");
}
