/* Environment warnings, each against a fake /proc and /sys tree and a fake build description,
 * so every warning is produced (and withheld) on any machine the tests run on. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "test_util.h"
#include "kbench/environment.h"

static const kb_build_info release_build = {
    .version = "0",
    .git_commit = "x",
    .compiler = "cc",
    .c_flags = "-O3",
    .build_type = "Release",
    .arch = "x86_64",
    .sanitizers = false,
    .optimized = true,
};

/* A tree where nothing is wrong: performance governor, turbo off, idle, ASLR off. */
static void write_quiet_machine(test_dir *t) {
    test_dir_write(t, "/sys/devices/system/cpu/online", "0-1\n");
    test_dir_write(t, "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "performance\n");
    test_dir_write(t, "/sys/devices/system/cpu/cpu1/cpufreq/scaling_governor", "performance\n");
    test_dir_write(t, "/sys/devices/system/cpu/intel_pstate/no_turbo", "1\n");
    test_dir_write(t, "/proc/loadavg", "0.05 0.10 0.20 1/300 4242\n");
    test_dir_write(t, "/proc/sys/kernel/randomize_va_space", "0\n");
    test_dir_write(t, "/proc/cpuinfo", "flags\t\t: fpu sse2 avx2\n");
}

static int setup(void **state) {
    static test_dir t;
    if (test_dir_create(&t) != 0)
        return -1;
    write_quiet_machine(&t);
    *state = &t;
    return 0;
}

static int teardown(void **state) {
    test_dir_destroy(*state);
    return 0;
}

static kb_env_report check(const test_dir *t, int usable_cores, const kb_build_info *build) {
    kb_env_inputs in = {
        .root = t->root, .use_cpuid = false, .usable_cores = usable_cores, .build = build};
    kb_env_report r;
    kb_env_check(&in, &r);
    /* Whatever the warnings, they are well formed and in code order. */
    for (int i = 0; i < r.count; i++) {
        assert_true(r.warnings[i].message[0] != '\0');
        assert_null(strchr(r.warnings[i].message, '\n'));
        if (i > 0)
            assert_true(r.warnings[i - 1].code < r.warnings[i].code);
    }
    return r;
}

static const char *message_of(const kb_env_report *r, kb_env_code code) {
    for (int i = 0; i < r->count; i++)
        if (r->warnings[i].code == code)
            return r->warnings[i].message;
    return NULL;
}

static void quiet_machine_has_no_warnings(void **state) {
    kb_env_report r = check(*state, 4, &release_build);
    assert_int_equal(r.count, 0);
    assert_true(r.load.known && r.load.average == 0.05 && r.load.usable_cores == 4);
}

static void governor_other_than_performance_warns(void **state) {
    test_dir *t = *state;
    test_dir_write(t, "/sys/devices/system/cpu/cpu1/cpufreq/scaling_governor", "powersave\n");
    kb_env_report r = check(t, 4, &release_build);
    assert_int_equal(r.count, 1);
    const char *m = message_of(&r, KB_ENV_GOVERNOR);
    assert_non_null(m);
    assert_non_null(strstr(m, "powersave"));
    assert_non_null(strstr(m, "1 of 2"));
}

static void missing_governor_is_unknown(void **state) {
    test_dir *t = *state;
    char path[512];
    for (int cpu = 0; cpu < 2; cpu++) {
        snprintf(path, sizeof path, "%s/sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor",
                 t->root, cpu);
        assert_int_equal(remove(path), 0);
    }
    kb_env_report r = check(t, 4, &release_build);
    assert_int_equal(r.count, 1);
    assert_true(kb_env_has(&r, KB_ENV_GOVERNOR_UNKNOWN));
    assert_false(kb_env_has(&r, KB_ENV_GOVERNOR));
}

static void turbo_switches_are_read(void **state) {
    test_dir *t = *state;
    test_dir_write(t, "/sys/devices/system/cpu/intel_pstate/no_turbo", "0\n");
    kb_env_report r = check(t, 4, &release_build);
    assert_int_equal(r.count, 1);
    assert_true(kb_env_has(&r, KB_ENV_TURBO));

    /* Without intel_pstate, the cpufreq boost switch decides. */
    char path[512];
    snprintf(path, sizeof path, "%s/sys/devices/system/cpu/intel_pstate/no_turbo", t->root);
    assert_int_equal(remove(path), 0);
    test_dir_write(t, "/sys/devices/system/cpu/cpufreq/boost", "1\n");
    r = check(t, 4, &release_build);
    assert_true(kb_env_has(&r, KB_ENV_TURBO));
    assert_non_null(strstr(message_of(&r, KB_ENV_TURBO), "cpufreq/boost"));

    test_dir_write(t, "/sys/devices/system/cpu/cpufreq/boost", "0\n");
    r = check(t, 4, &release_build);
    assert_int_equal(r.count, 0);

    snprintf(path, sizeof path, "%s/sys/devices/system/cpu/cpufreq/boost", t->root);
    assert_int_equal(remove(path), 0);
    r = check(t, 4, &release_build);
    assert_int_equal(r.count, 1);
    assert_true(kb_env_has(&r, KB_ENV_TURBO_UNKNOWN));
}

static void hypervisor_flag_warns(void **state) {
    test_dir *t = *state;
    test_dir_write(t, "/proc/cpuinfo", "flags\t\t: fpu sse2 hypervisor avx2\n");
    kb_env_report r = check(t, 4, &release_build);
    assert_int_equal(r.count, 1);
    assert_true(kb_env_has(&r, KB_ENV_HYPERVISOR));

    test_dir_write(t, "/proc/cpuinfo", "flags\t\t: fpu\n");
    test_dir_write(t, "/sys/hypervisor/type", "xen\n");
    r = check(t, 4, &release_build);
    assert_int_equal(r.count, 1);
    assert_non_null(strstr(message_of(&r, KB_ENV_HYPERVISOR), "xen"));
}

static void high_load_warns(void **state) {
    test_dir *t = *state;
    test_dir_write(t, "/proc/loadavg", "3.50 1.00 0.50 4/300 4242\n");
    kb_env_report r = check(t, 4, &release_build);
    assert_int_equal(r.count, 1);
    assert_non_null(strstr(message_of(&r, KB_ENV_LOAD), "3.50"));
    /* The numbers, for results files and `kbench compare`, are kept beside the message. */
    assert_true(r.load.known && r.load.average == 3.5 && r.load.usable_cores == 4);
    r = check(t, 8, &release_build); /* 3.5 is under half of 8 */
    assert_int_equal(r.count, 0);
    assert_true(r.load.known && r.load.average == 3.5 && r.load.usable_cores == 8);
    r = check(t, 0, &release_build); /* no core count: the check is skipped */
    assert_int_equal(r.count, 0);
    assert_false(r.load.known);
    test_dir_write(t, "/proc/loadavg", "busy\n");
    r = check(t, 4, &release_build);
    assert_int_equal(r.count, 0);
    assert_false(r.load.known);
    /* A load no results file can hold is not kept as a number. */
    test_dir_write(t, "/proc/loadavg", "nan 1.00 0.50 4/300 4242\n");
    r = check(t, 4, &release_build);
    assert_false(r.load.known);
}

static void aslr_warns(void **state) {
    test_dir *t = *state;
    test_dir_write(t, "/proc/sys/kernel/randomize_va_space", "2\n");
    kb_env_report r = check(t, 4, &release_build);
    assert_int_equal(r.count, 1);
    assert_true(kb_env_has(&r, KB_ENV_ASLR));
    assert_non_null(strstr(message_of(&r, KB_ENV_ASLR), "=2"));
}

static void debug_and_sanitizer_builds_warn(void **state) {
    kb_build_info debug = release_build;
    debug.optimized = false;
    debug.build_type = "Debug";
    kb_env_report r = check(*state, 4, &debug);
    assert_int_equal(r.count, 1);
    assert_non_null(strstr(message_of(&r, KB_ENV_DEBUG_BUILD), "Debug"));

    debug.sanitizers = true;
    r = check(*state, 4, &debug);
    assert_int_equal(r.count, 2);
    assert_true(kb_env_has(&r, KB_ENV_DEBUG_BUILD));
    assert_true(kb_env_has(&r, KB_ENV_SANITIZER_BUILD));

    r = check(*state, 4, NULL); /* no build description: no build checks */
    assert_int_equal(r.count, 0);
}

/* The live inputs describe this very test binary, so its own build type shows. */
static void live_check_reports_this_build(void **state) {
    kb_env_inputs in;
    kb_env_inputs_live(&in);
    assert_string_equal(in.root, "");
    assert_true(in.usable_cores >= 1);
    assert_ptr_equal(in.build, kb_build_info_get());
    kb_env_report r;
    kb_env_check(&in, &r);
    assert_true(r.count <= KB_ENV_CODE_COUNT);
    assert_int_equal(kb_env_has(&r, KB_ENV_DEBUG_BUILD), !in.build->optimized);
    assert_int_equal(kb_env_has(&r, KB_ENV_SANITIZER_BUILD), in.build->sanitizers);
}

static void codes_have_distinct_names(void **state) {
    for (int a = 0; a < KB_ENV_CODE_COUNT; a++) {
        const char *name = kb_env_code_name((kb_env_code)a);
        assert_string_not_equal(name, "?");
        for (int b = 0; b < a; b++)
            assert_string_not_equal(name, kb_env_code_name((kb_env_code)b));
    }
    assert_string_equal(kb_env_code_name(KB_ENV_CODE_COUNT), "?");
}

#define TREE_TEST(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void) {
    const struct CMUnitTest tests[] = {
        TREE_TEST(quiet_machine_has_no_warnings),
        TREE_TEST(governor_other_than_performance_warns),
        TREE_TEST(missing_governor_is_unknown),
        TREE_TEST(turbo_switches_are_read),
        TREE_TEST(hypervisor_flag_warns),
        TREE_TEST(high_load_warns),
        TREE_TEST(aslr_warns),
        TREE_TEST(debug_and_sanitizer_builds_warn),
        cmocka_unit_test(live_check_reports_this_build),
        cmocka_unit_test(codes_have_distinct_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
