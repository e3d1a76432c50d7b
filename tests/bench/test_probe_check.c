/* A run's probe pairs and the bandwidth_changed warning: a pair more than 25% apart adds it,
 * naming the figure that changed most and how many changed; pairs that agree, or a probe that
 * could not be measured, add nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "bench/probe.h"

static kb_bench_context context; /* large */

static void add(int threads, kb_mem_level level, double before, double after) {
    kb_bench_probe *p = &context.probes[context.nprobes++];
    *p = (kb_bench_probe){threads, KB_BW_LOAD, level, 1 << 30, before, after, 1, 2};
}

static int reset(void **state) {
    memset(&context, 0, sizeof context);
    return 0;
}

static void agreeing_probes_say_nothing(void **state) {
    add(1, KB_MEM_DRAM, 38e9, 40e9);
    add(2, KB_MEM_DRAM, 70e9, 78e9);
    add(2, KB_MEM_L1, 0, 200e9); /* not measured before: no pair */
    kb_probes_check(&context);
    assert_int_equal(context.env.count, 0);
}

static void a_pair_that_disagrees_warns(void **state) {
    add(1, KB_MEM_DRAM, 38e9, 40e9);
    add(2, KB_MEM_DRAM, 78e9, 41e9); /* -47% */
    add(2, KB_MEM_L2, 100e9, 130e9); /* +30% */
    kb_probes_check(&context);
    assert_int_equal(context.env.count, 1);
    assert_true(kb_env_has(&context.env, KB_ENV_BANDWIDTH_CHANGED));
    assert_string_equal(kb_env_code_name(KB_ENV_BANDWIDTH_CHANGED), "bandwidth_changed");
    assert_string_equal(context.env.warnings[0].message,
                        "load DRAM bandwidth at 2 threads went from 78.0 to 41.0 GB/s during the "
                        "run (-47%); 2 of 3 probed figures changed");
}

static void one_pair_names_only_itself(void **state) {
    add(1, KB_MEM_DRAM, 41e9, 77.9e9);
    kb_probes_check(&context);
    assert_string_equal(context.env.warnings[0].message,
                        "load DRAM bandwidth at 1 thread went from 41.0 to 77.9 GB/s during the "
                        "run (+90%)");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(agreeing_probes_say_nothing, reset),
        cmocka_unit_test_setup(a_pair_that_disagrees_warns, reset),
        cmocka_unit_test_setup(one_pair_names_only_itself, reset),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
