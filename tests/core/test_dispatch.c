/* The dispatch setting, its registry and the thread count: what the API accepts and refuses. The
 * environment variables are checked end to end in tests/cli (each needs a fresh process). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "kbench/cpu.h"
#include "kbench/simd.h"
#include "kbench/threads.h"

static void levels_parse_and_refuse_unknown_names(void **state) {
    int request;
    assert_int_equal(kb_simd_parse("auto", &request), KB_OK);
    assert_int_equal(request, KB_SIMD_AUTO_REQUEST);
    for (int l = 0; l < KB_SIMD_LEVEL_COUNT; l++) {
        assert_int_equal(kb_simd_parse(kb_simd_name((kb_simd_level)l), &request), KB_OK);
        assert_int_equal(request, l);
    }
    assert_int_equal(kb_simd_parse("avx3", &request), KB_EINVAL);
    assert_non_null(strstr(kb_last_error(), "avx3"));
}

static void only_available_levels_can_be_set(void **state) {
    const kb_cpu_features *f = kb_cpu_features_get();
    assert_true(kb_simd_available(KB_SIMD_SCALAR));
    for (int l = 0; l < KB_SIMD_LEVEL_COUNT; l++) {
        kb_simd_level level = (kb_simd_level)l;
        kb_status st = kb_simd_set(l);
        if (kb_simd_available(level)) {
            assert_int_equal(st, KB_OK);
            kb_simd_level now;
            assert_int_equal(kb_simd_current(&now), KB_OK);
            assert_int_equal(now, level);
        } else {
            assert_int_equal(st, KB_EUNSUPPORTED);
            assert_non_null(strstr(kb_last_error(), kb_simd_name(level)));
        }
    }
#if defined(__x86_64__)
    assert_false(kb_simd_available(KB_SIMD_NEON));
    assert_int_equal(kb_simd_available(KB_SIMD_AVX512),
                     f->avx512f && f->avx512bw && f->avx512dq && f->avx512vl);
    assert_int_equal(kb_simd_available(KB_SIMD_AVX2), f->avx2 && f->fma);
#elif defined(__aarch64__)
    assert_false(kb_simd_available(KB_SIMD_AVX2));
    assert_true(kb_simd_available(KB_SIMD_NEON));
    assert_int_equal(kb_simd_available(KB_SIMD_SVE), f->sve);
    if (f->sve)
        assert_true(f->sve_vector_bits >= 128 && f->sve_vector_bits % 128 == 0);
#endif
    assert_int_equal(kb_simd_set(KB_SIMD_AUTO_REQUEST), KB_OK);
    kb_simd_level now;
    assert_int_equal(kb_simd_current(&now), KB_OK);
    assert_int_equal(now, kb_simd_best());
    assert_int_equal(kb_simd_set(99), KB_EINVAL);
}

/* The registry's fallback rule, for every family and compiled level: the table that runs is
 * the level's own or one down its fallback chain, of a level compiled too and run by every
 * CPU that runs this one. */
static void every_level_runs_a_table_down_its_fallback_chain(void **state) {
    assert_int_equal(kb_simd_fallback(KB_SIMD_SCALAR), KB_SIMD_SCALAR);
    assert_int_equal(kb_simd_fallback(KB_SIMD_SVE), KB_SIMD_NEON);
    int compiled = 0;
    for (int f = 0; f < KB_SIMD_FAMILY_COUNT; f++) {
        kb_simd_family family = (kb_simd_family)f;
        assert_string_not_equal(kb_simd_family_name(family), "?");
        for (int l = 0; l < KB_SIMD_LEVEL_COUNT; l++) {
            kb_simd_level level = (kb_simd_level)l;
            if (!kb_simd_compiled(level))
                continue;
            compiled++;
            kb_simd_level runs = kb_simd_table_level(family, level);
            assert_true(kb_simd_compiled(runs));
            assert_int_equal(kb_simd_table_level(family, runs), runs);
            if (kb_simd_available(level))
                assert_true(kb_simd_available(runs));
            kb_simd_level step = level;
            while (step != runs && step != KB_SIMD_SCALAR)
                step = kb_simd_fallback(step);
            if (step != runs)
                fail_msg("%s at %s runs %s's table, not one down its fallback chain",
                         kb_simd_family_name(family), kb_simd_name(level), kb_simd_name(runs));
        }
    }
    assert_true(compiled >= KB_SIMD_FAMILY_COUNT); /* scalar at least, for every family */
    assert_string_equal(kb_simd_family_name(KB_SIMD_FAMILY_COUNT), "?");
    assert_int_equal(kb_simd_table_level(KB_SIMD_FAMILY_COUNT, KB_SIMD_AVX2), KB_SIMD_SCALAR);
    assert_int_equal(kb_simd_table_level(KB_SIMD_FAMILY_REDUCE, KB_SIMD_LEVEL_COUNT),
                     KB_SIMD_SCALAR);
}

static void thread_count_defaults_to_usable_cores(void **state) {
    int usable = kb_usable_cores(), n;
    assert_true(usable >= 1);
    assert_int_equal(kb_threads_set(3), KB_OK);
    assert_int_equal(kb_threads_current(&n), KB_OK);
    assert_int_equal(n, 3);
    assert_int_equal(kb_threads_set(0), KB_OK);
    assert_int_equal(kb_threads_current(&n), KB_OK);
    assert_int_equal(n, usable);
    assert_int_equal(kb_threads_set(-2), KB_EINVAL);
    assert_int_equal(kb_threads_current(&n), KB_OK);
    assert_int_equal(n, usable);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(levels_parse_and_refuse_unknown_names),
        cmocka_unit_test(only_available_levels_can_be_set),
        cmocka_unit_test(every_level_runs_a_table_down_its_fallback_chain),
        cmocka_unit_test(thread_count_defaults_to_usable_cores),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
