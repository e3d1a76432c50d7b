/* The SIMD levels a kernel test runs at: every level the CPU runs, or, where KB_TEST_LEVEL
 * names one, that level alone. The aarch64 build runs its kernel tests again at SVE's other
 * vector lengths (tests/CMakeLists.txt), where only the SVE level's code differs, so those
 * runs name sve and leave the scalar and NEON levels to the first run. */
#ifndef KB_TESTS_TEST_LEVELS_H
#define KB_TESTS_TEST_LEVELS_H

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "kbench/simd.h"

static inline bool test_level_runs(kb_simd_level level) {
    if (!kb_simd_available(level))
        return false;
    const char *only = getenv("KB_TEST_LEVEL");
    return !only || !*only || strcmp(only, kb_simd_name(level)) == 0;
}

#endif
