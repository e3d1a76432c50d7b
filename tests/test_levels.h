/* The SIMD levels a kernel test runs at: every level the CPU runs, or, where KB_TEST_LEVEL
 * names one, that level alone. The aarch64 build runs the reduction kernel tests again at
 * SVE's other vector lengths (tests/CMakeLists.txt), where only the SVE level's code differs,
 * so those runs name sve and leave the scalar and NEON levels to the first run. A name that is
 * not a level this CPU runs ends the test with an error rather than leave it testing nothing. */
#ifndef KB_TESTS_TEST_LEVELS_H
#define KB_TESTS_TEST_LEVELS_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kbench/simd.h"

static inline bool test_level_runs(kb_simd_level level) {
    const char *only = getenv("KB_TEST_LEVEL");
    if (!only || !*only)
        return kb_simd_available(level);
    bool known = false;
    for (int l = 0; l < KB_SIMD_LEVEL_COUNT; l++)
        known |= kb_simd_available((kb_simd_level)l) &&
                 strcmp(only, kb_simd_name((kb_simd_level)l)) == 0;
    if (!known) {
        fprintf(stderr, "KB_TEST_LEVEL=%s: not a SIMD level this CPU runs\n", only);
        exit(1);
    }
    return kb_simd_available(level) && strcmp(only, kb_simd_name(level)) == 0;
}

#endif
