/* The cache sizes the kernels plan by, set for a test run (KB_TEST_CACHE_SIZES): header-only,
 * included by the tests that size their inputs from the caches. */
#ifndef KB_TESTS_TEST_CACHE_SIZES_H
#define KB_TESTS_TEST_CACHE_SIZES_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cache_size.h"

/* KB_TEST_CACHE_SIZES="L2,LLC" (tests/CMakeLists.txt sets it under emulation and in the sanitizer
 * build, where kernels run tens of times slower) has the kernels size their work by these cache
 * sizes (kb_parse_cache_size's forms, "256K,2M") instead of the machine's, so that the tests of
 * inputs from memory, sized from kb_cache_llc_bytes, take the same paths on arrays of a few MiB.
 * A test calls it first, before anything reads the sizes. */
static inline void test_cache_sizes(void) {
    const char *sizes = getenv("KB_TEST_CACHE_SIZES");
    if (!sizes || !*sizes)
        return;
    char l2[32];
    const char *comma = strchr(sizes, ',');
    size_t n = comma ? (size_t)(comma - sizes) : 0;
    if (!comma || n >= sizeof l2) {
        fprintf(stderr, "KB_TEST_CACHE_SIZES=%s: expected L2,LLC\n", sizes);
        exit(1);
    }
    memcpy(l2, sizes, n);
    l2[n] = '\0';
    int64_t l2_bytes = kb_parse_cache_size(l2), llc_bytes = kb_parse_cache_size(comma + 1);
    if (l2_bytes <= 0 || llc_bytes < l2_bytes) {
        fprintf(stderr, "KB_TEST_CACHE_SIZES=%s: expected L2,LLC sizes, LLC at least L2\n", sizes);
        exit(1);
    }
    kb_cache_sizes_set(l2_bytes, llc_bytes);
}

#endif
