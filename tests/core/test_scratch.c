/* kb_scratch_get and kb_scratch_release: buffers kept per thread and per slot, reused while
 * large enough, replaced when not, not kept above KB_SCRATCH_KEEP_MAX, and freed when their
 * thread ends (the sanitizer build's leak check would name a buffer left behind). */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/internal.h"

static void kept_while_large_enough(void **state) {
    (void)state;
    char *a = kb_scratch_get(KB_SCRATCH_WORK, 1000);
    assert_non_null(a);
    assert_int_equal((uintptr_t)a % 64, 0);
    memset(a, 0x5a, 1000); /* the whole request is usable */
    kb_scratch_release(KB_SCRATCH_WORK, a);
    assert_ptr_equal(kb_scratch_get(KB_SCRATCH_WORK, 10), a);
    assert_ptr_equal(kb_scratch_get(KB_SCRATCH_WORK, 1024), a); /* rounded up to 64 bytes */
    char *b = kb_scratch_get(KB_SCRATCH_WORK, 100000);
    assert_non_null(b);
    memset(b, 0x5a, 100000);
    assert_ptr_equal(kb_scratch_get(KB_SCRATCH_WORK, 5000), b);
    kb_scratch_release(KB_SCRATCH_WORK, b);
}

static void slots_are_distinct(void **state) {
    (void)state;
    char *call = kb_scratch_get(KB_SCRATCH_CALL, 4096);
    char *work = kb_scratch_get(KB_SCRATCH_WORK, 4096);
    assert_non_null(call);
    assert_non_null(work);
    assert_ptr_not_equal(call, work);
    memset(call, 1, 4096);
    memset(work, 2, 4096);
    assert_int_equal(call[4095], 1);
}

static void larger_than_kept_is_freed_on_release(void **state) {
    (void)state;
    char *kept = kb_scratch_get(KB_SCRATCH_CALL, 64);
    char *big = kb_scratch_get(KB_SCRATCH_CALL, KB_SCRATCH_KEEP_MAX + 1);
    assert_non_null(big);
    assert_ptr_not_equal(big, kept);
    big[KB_SCRATCH_KEEP_MAX] = 1;
    kb_scratch_release(KB_SCRATCH_CALL, big); /* freed: the sanitizer build checks */
    assert_ptr_equal(kb_scratch_get(KB_SCRATCH_CALL, 64), kept);
}

static void *use_scratch(void *arg) {
    char **out = arg;
    *out = kb_scratch_get(KB_SCRATCH_WORK, 200000);
    if (*out)
        memset(*out, 3, 200000);
    return NULL;
}

/* Threads under qemu-user block for good here (tests/CMakeLists.txt): the cross-built tests,
 * which say so with KB_TEST_THREADS=1, leave this to the native run. */
static void each_thread_has_its_own(void **state) {
    (void)state;
    const char *threads = getenv("KB_TEST_THREADS");
    if (threads && strcmp(threads, "1") == 0)
        skip();
    char *mine = kb_scratch_get(KB_SCRATCH_WORK, 200000);
    char *theirs[2] = {NULL, NULL};
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        assert_int_equal(pthread_create(&t[i], NULL, use_scratch, &theirs[i]), 0);
    for (int i = 0; i < 2; i++)
        assert_int_equal(pthread_join(t[i], NULL), 0);
    assert_non_null(theirs[0]);
    assert_non_null(theirs[1]);
    assert_ptr_not_equal(theirs[0], mine);
    assert_ptr_not_equal(theirs[1], mine);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(kept_while_large_enough),
        cmocka_unit_test(slots_are_distinct),
        cmocka_unit_test(larger_than_kept_is_freed_on_release),
        cmocka_unit_test(each_thread_has_its_own),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
