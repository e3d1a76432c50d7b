/* kb_aligned_alloc and kb_aligned_free: alignment, and the cache of freed large blocks: a freed
 * block comes back for an allocation of about its size (not for one a third smaller or larger
 * than it), at most eight are kept, the oldest leaving first, and kb_aligned_release_cached
 * empties it. Under AddressSanitizer the cache is off, and only the alignment is checked. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "kbench/memory.h"

#if defined(__SANITIZE_ADDRESS__)
#define CACHED 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CACHED 0
#endif
#endif
#ifndef CACHED
#define CACHED 1
#endif

enum { MIB = 1 << 20 };

static void alignment(void **state) {
    (void)state;
    static const size_t sizes[] = {0, 1, 63, 65, 4096, 3 * MIB, 4 * MIB, 9 * MIB + 5};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        char *p = kb_aligned_alloc(sizes[i]);
        assert_non_null(p);
        size_t want = sizes[i] >= KB_HUGE_PAGE_FROM ? KB_HUGE_PAGE_BYTES : KB_ALIGNMENT;
        assert_int_equal((uintptr_t)p % want, 0);
        memset(p, 0x5a, sizes[i]);
        kb_aligned_free(p);
    }
    kb_aligned_free(NULL);
}

static void freed_large_blocks_are_reused(void **state) {
    (void)state;
    if (!CACHED)
        skip();
    kb_aligned_release_cached();
    char *a = kb_aligned_alloc(16 * MIB);
    assert_non_null(a);
    memset(a, 1, 16 * MIB);
    kb_aligned_free(a);
    /* about the same size: the same block, its bytes as they were left */
    char *b = kb_aligned_alloc(15 * MIB);
    assert_ptr_equal(b, a);
    assert_int_equal(b[15 * MIB - 1], 1);
    kb_aligned_free(b);
    /* a third smaller, or larger: not that block */
    char *c = kb_aligned_alloc(8 * MIB), *d = kb_aligned_alloc(24 * MIB);
    assert_ptr_not_equal(c, a);
    assert_ptr_not_equal(d, a);
    kb_aligned_free(c);
    kb_aligned_free(d);
    /* small blocks are never kept */
    kb_aligned_release_cached();
    char *small = kb_aligned_alloc(1024);
    kb_aligned_free(small);
    char *e = kb_aligned_alloc(8 * MIB);
    kb_aligned_free(e);
    assert_ptr_equal(kb_aligned_alloc(8 * MIB), e);
    kb_aligned_free(e);
    kb_aligned_release_cached();
}

static void at_most_eight_blocks_oldest_out(void **state) {
    (void)state;
    if (!CACHED)
        skip();
    kb_aligned_release_cached();
    char *p[9];
    for (int i = 0; i < 9; i++) {
        p[i] = kb_aligned_alloc((size_t)(4 + 4 * i) * MIB);
        assert_non_null(p[i]);
    }
    for (int i = 0; i < 9; i++)
        kb_aligned_free(p[i]);
    /* the first (4 MiB) left when the ninth came in; the others are there */
    for (int i = 8; i >= 1; i--) {
        char *q = kb_aligned_alloc((size_t)(4 + 4 * i) * MIB);
        assert_ptr_equal(q, p[i]);
        p[i] = q;
    }
    for (int i = 1; i < 9; i++)
        kb_aligned_free(p[i]);
    kb_aligned_release_cached();
    /* emptied: a new allocation of the largest size is a fresh block (or, rarely, the system
     * hands back the same address, so only its working matters) */
    char *fresh = kb_aligned_alloc(36 * MIB);
    assert_non_null(fresh);
    memset(fresh, 2, 36 * MIB);
    kb_aligned_free(fresh);
    kb_aligned_release_cached();
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(alignment),
        cmocka_unit_test(freed_large_blocks_are_reused),
        cmocka_unit_test(at_most_eight_blocks_oldest_out),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
