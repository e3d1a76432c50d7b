/* The machine description: sanity bounds on the live machine (which may be a VM, a container
 * or qemu-aarch64 reading the host's /sys, so only what holds everywhere is checked), and
 * exact results on fake /proc and /sys trees. The clock bound is a sanity check that the
 * measurement works at all, not a claim about its accuracy. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "test_util.h"
#include "kbench/machine.h"
#include "machine/probe/arm_cpu_names.h"
#include "machine/probe/cpulist.h"

static void assert_named(const char *s) {
    assert_non_null(s);
    assert_true(s[0] != '\0');
    assert_null(strchr(s, '\n'));
}

static void live_machine_is_plausible(void **state) {
    kb_machine m;
    kb_machine_probe(&m);
    assert_named(m.os);
    assert_named(m.kernel_name);
    assert_named(m.kernel_release);
    assert_named(m.hostname);
    assert_named(m.arch);
    assert_named(m.cpu_vendor);
    assert_named(m.cpu_model);
    assert_true(m.logical_cpus >= 1);
    assert_true(m.physical_cores >= 0 && m.physical_cores <= m.logical_cpus);
    assert_true(m.sockets >= 0);
    if (m.sockets > 0 && m.physical_cores > 0)
        assert_true(m.sockets <= m.physical_cores);

    int64_t previous = 0;
    for (int l = 0; l < KB_CACHE_LEVEL_COUNT; l++) {
        const kb_cache *c = &m.caches[l];
        assert_true(c->size >= 0 && c->line_size >= 0 && c->shared_by >= 0);
        if (c->line_size > 0) /* a power of two from 16 to 512 bytes */
            assert_true(c->line_size >= 16 && c->line_size <= 512 &&
                        (c->line_size & (c->line_size - 1)) == 0);
        if (c->size == 0 || l == KB_CACHE_L1I)
            continue;
        /* Each data cache level is larger than the one before it. */
        assert_true(c->size > previous);
        previous = c->size;
    }

    if (m.nominal_source == KB_CLOCK_UNKNOWN) {
        assert_true(m.nominal_mhz == 0);
    } else {
        assert_true(m.nominal_mhz > 100 && m.nominal_mhz < 10000);
    }
    assert_string_not_equal(kb_clock_source_name(m.nominal_source), "?");
}

static void measured_clock_is_in_a_sane_range(void **state) {
    kb_clock_measurement c;
    kb_status st = kb_clock_measure(0.005, 3, &c);
#if defined(__x86_64__) || defined(__aarch64__)
    assert_int_equal(st, KB_OK);
#endif
    if (st != KB_OK) {
        assert_int_equal(st, KB_EUNSUPPORTED);
        assert_true(c.mhz == 0 && c.repetitions == 0);
        return;
    }
    assert_int_equal(c.repetitions, 3);
    assert_true(c.min_mhz <= c.mhz && c.mhz <= c.max_mhz);
    assert_true(c.mhz > 100 && c.mhz < 10000);
}

static void clock_measurement_refuses_bad_arguments(void **state) {
    kb_clock_measurement c;
    assert_int_equal(kb_clock_measure(-1, 3, &c), KB_EINVAL);
    assert_int_equal(kb_clock_measure(0.001, KB_CLOCK_MAX_REPETITIONS + 1, &c), KB_EINVAL);
    assert_non_null(strstr(kb_last_error(), "repetitions"));
    assert_true(c.mhz == 0);
}

static void cpu_lists_parse(void **state) {
    int count = 0, lowest = -1;
    assert_true(kb_cpulist_summary("0-3,8,10-11", &count, &lowest));
    assert_int_equal(count, 7);
    assert_int_equal(lowest, 0);
    assert_true(kb_cpulist_summary("5\n", &count, &lowest));
    assert_int_equal(count, 1);
    assert_int_equal(lowest, 5);
    assert_true(kb_cpulist_summary("12-13,2", &count, &lowest));
    assert_int_equal(lowest, 2);
    assert_false(kb_cpulist_summary("", &count, &lowest));
    assert_false(kb_cpulist_summary("3-1", &count, &lowest));
    assert_false(kb_cpulist_summary("0-", &count, &lowest));
    assert_false(kb_cpulist_summary("x", &count, &lowest));
    assert_false(kb_cpulist_summary("1,x", &count, &lowest));
}

static void arm_parts_have_names(void **state) {
    assert_string_equal(kb_arm_part_name(0x41, 0xd0c), "Neoverse N1");
    assert_string_equal(kb_arm_part_name(0x41, 0xd40), "Neoverse V1");
    assert_string_equal(kb_arm_part_name(0x41, 0xd4f), "Neoverse V2");
    assert_null(kb_arm_part_name(0x41, 0xfff));
    assert_string_equal(kb_arm_implementer_name(0x41), "ARM");
    assert_null(kb_arm_implementer_name(0x01));
    for (int l = 0; l < KB_CACHE_LEVEL_COUNT; l++)
        assert_string_not_equal(kb_cache_name((kb_cache_level)l), "?");
    assert_string_equal(kb_cache_name(KB_CACHE_LEVEL_COUNT), "?");
}

static void write_cache(test_dir *t, int index, const char *level, const char *type,
                        const char *size, const char *shared) {
    char dir[128], path[160];
    snprintf(dir, sizeof dir, "/sys/devices/system/cpu/cpu0/cache/index%d", index);
    snprintf(path, sizeof path, "%s/level", dir);
    test_dir_write(t, path, level);
    snprintf(path, sizeof path, "%s/type", dir);
    test_dir_write(t, path, type);
    snprintf(path, sizeof path, "%s/size", dir);
    test_dir_write(t, path, size);
    snprintf(path, sizeof path, "%s/coherency_line_size", dir);
    test_dir_write(t, path, "64\n");
    snprintf(path, sizeof path, "%s/shared_cpu_list", dir);
    test_dir_write(t, path, shared);
}

static void write_topology(test_dir *t, int cpu, const char *core, const char *package) {
    char path[128];
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/core_cpus_list", cpu);
    test_dir_write(t, path, core);
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/package_cpus_list", cpu);
    test_dir_write(t, path, package);
}

/* A two-socket Neoverse N1 server in miniature: 2 sockets x 2 cores x 2 threads. */
static void fake_arm_server_is_described(void **state) {
    test_dir t;
    assert_int_equal(test_dir_create(&t), 0);
    test_dir_write(&t, "/etc/os-release", "NAME=\"Test\"\nPRETTY_NAME=\"Test OS 1.0\"\nID=test\n");
    test_dir_write(&t, "/proc/sys/kernel/ostype", "Linux\n");
    test_dir_write(&t, "/proc/sys/kernel/osrelease", "6.1.0-test\n");
    test_dir_write(&t, "/proc/sys/kernel/hostname", "fakehost\n");
    test_dir_write(&t, "/proc/sys/kernel/arch", "aarch64\n");
    test_dir_write(&t, "/proc/cpuinfo",
                   "processor\t: 0\nBogoMIPS\t: 50.00\n"
                   "Features\t: fp asimd evtstrm crc32 cpuid\n"
                   "CPU implementer\t: 0x41\nCPU architecture: 8\n"
                   "CPU variant\t: 0x3\nCPU part\t: 0xd0c\n"
                   "CPU revision\t: 1\n\nprocessor\t: 1\n");
    test_dir_write(&t, "/sys/devices/system/cpu/online", "0-7\n");
    for (int cpu = 0; cpu < 8; cpu++) {
        char core[32]; /* room for any two ints */
        snprintf(core, sizeof core, "%d-%d\n", cpu & ~1, (cpu & ~1) + 1);
        write_topology(&t, cpu, core, cpu < 4 ? "0-3\n" : "4-7\n");
    }
    write_cache(&t, 0, "1\n", "Data\n", "64K\n", "0-1\n");
    write_cache(&t, 1, "1\n", "Instruction\n", "64K\n", "0-1\n");
    write_cache(&t, 2, "2\n", "Unified\n", "1024K\n", "0-1\n");
    write_cache(&t, 3, "3\n", "Unified\n", "32768K\n", "0-3\n");
    test_dir_write(&t, "/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", "3000000\n");

    kb_machine m;
    kb_machine_probe_at(&m, t.root);
    test_dir_destroy(&t);

    assert_string_equal(m.os, "Test OS 1.0");
    assert_string_equal(m.kernel_name, "Linux");
    assert_string_equal(m.kernel_release, "6.1.0-test");
    assert_string_equal(m.kernel_version, "unknown");
    assert_string_equal(m.hostname, "fakehost");
    assert_string_equal(m.arch, "aarch64");
    assert_string_equal(m.cpu_vendor, "ARM");
    assert_string_equal(m.cpu_model, "Neoverse N1");
    assert_string_equal(m.hypervisor, "");
    assert_int_equal(m.logical_cpus, 8);
    assert_int_equal(m.physical_cores, 4);
    assert_int_equal(m.sockets, 2);
    assert_int_equal(m.caches[KB_CACHE_L1D].size, 64 * 1024);
    assert_int_equal(m.caches[KB_CACHE_L1I].size, 64 * 1024);
    assert_int_equal(m.caches[KB_CACHE_L2].size, 1024 * 1024);
    assert_int_equal(m.caches[KB_CACHE_L3].size, 32 * 1024 * 1024);
    assert_int_equal(m.caches[KB_CACHE_L1D].line_size, 64);
    assert_int_equal(m.caches[KB_CACHE_L1D].shared_by, 2);
    assert_int_equal(m.caches[KB_CACHE_L3].shared_by, 4);
    assert_true(m.nominal_mhz == 3000);
    assert_int_equal(m.nominal_source, KB_CLOCK_MAX_FREQ);
    assert_string_equal(kb_clock_source_name(m.nominal_source), "cpuinfo_max_freq");
}

/* The machine a tree holding only the given /proc/cpuinfo describes. */
static kb_machine probe_cpuinfo(const char *cpuinfo) {
    test_dir t;
    assert_int_equal(test_dir_create(&t), 0);
    test_dir_write(&t, "/proc/cpuinfo", cpuinfo);
    kb_machine m;
    kb_machine_probe_at(&m, t.root);
    test_dir_destroy(&t);
    return m;
}

static void unknown_arm_part_is_shown_as_midr(void **state) {
    kb_machine m = probe_cpuinfo("CPU implementer\t: 0x99\nCPU variant\t: 0x1\n"
                                 "CPU part\t: 0x123\nCPU revision\t: 2\n");
    assert_string_equal(m.cpu_vendor, "0x99");
    assert_string_equal(m.cpu_model, "MIDR 0x991f1232");
}

/* An Intel VM: no cpufreq, so the rated clock comes from the model name; a hypervisor flag. */
static void fake_x86_vm_is_described(void **state) {
    test_dir t;
    assert_int_equal(test_dir_create(&t), 0);
    test_dir_write(&t, "/proc/cpuinfo",
                   "processor\t: 0\nvendor_id\t: GenuineIntel\n"
                   "model name\t: Intel(R) Xeon(R) CPU E5-2680 v4 @ 2.40GHz\n"
                   "cpu MHz\t\t: 2399.998\n"
                   "flags\t\t: fpu sse sse2 avx avx2 hypervisor\n");
    test_dir_write(&t, "/sys/devices/system/cpu/online", "0\n");
    kb_machine m;
    kb_machine_probe_at(&m, t.root);
    test_dir_destroy(&t);
    assert_string_equal(m.cpu_vendor, "GenuineIntel");
    assert_string_equal(m.cpu_model, "Intel(R) Xeon(R) CPU E5-2680 v4 @ 2.40GHz");
    assert_int_equal(m.logical_cpus, 1);
    assert_int_equal(m.physical_cores, 0); /* no topology: unknown, not guessed */
    assert_int_equal(m.nominal_source, KB_CLOCK_MODEL_NAME);
    assert_true(m.nominal_mhz == 2400);
    assert_string_equal(m.hypervisor, "unknown");
}

/* The CPU's identity beyond its name: KVM calls an EPYC Genoa just "AMD EPYC", but its
 * family and model (25 and 17) tell it from a Milan; an Arm core is its MIDR part. */
static void signature_from_fake_trees(void **state) {
    kb_machine m = probe_cpuinfo("processor\t: 0\nvendor_id\t: AuthenticAMD\n"
                                 "cpu family\t: 25\nmodel\t\t: 17\nmodel name\t: AMD EPYC\n");
    assert_int_equal(m.signature.x86_family, 25);
    assert_int_equal(m.signature.x86_model, 17);
    assert_int_equal(m.signature.arm_implementer, -1);
    assert_int_equal(m.signature.arm_part, -1);

    m = probe_cpuinfo("CPU implementer\t: 0x41\nCPU variant\t: 0x1\n"
                      "CPU part\t: 0xd40\nCPU revision\t: 1\n");
    assert_int_equal(m.signature.x86_family, -1);
    assert_int_equal(m.signature.arm_implementer, 0x41);
    assert_int_equal(m.signature.arm_part, 0xd40);

    m = probe_cpuinfo("processor\t: 0\n");
    assert_int_equal(m.signature.x86_family, -1);
    assert_int_equal(m.signature.x86_model, -1);
    assert_int_equal(m.signature.arm_part, -1);
}

static void cpu_mhz_is_the_last_resort(void **state) {
    kb_machine m = probe_cpuinfo("vendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC\n"
                                 "cpu MHz\t\t: 2596.142\n");
    assert_int_equal(m.nominal_source, KB_CLOCK_CPUINFO_MHZ);
    assert_true(m.nominal_mhz > 2596.1 && m.nominal_mhz < 2596.2);
}

static void base_frequency_wins(void **state) {
    test_dir t;
    assert_int_equal(test_dir_create(&t), 0);
    const char *dir = "/sys/devices/system/cpu/cpu0/cpufreq/";
    char path[128];
    snprintf(path, sizeof path, "%sbase_frequency", dir);
    test_dir_write(&t, path, "2100000\n");
    snprintf(path, sizeof path, "%scpuinfo_max_freq", dir);
    test_dir_write(&t, path, "3900000\n");
    kb_machine m;
    kb_machine_probe_at(&m, t.root);
    test_dir_destroy(&t);
    assert_int_equal(m.nominal_source, KB_CLOCK_BASE_FREQUENCY);
    assert_true(m.nominal_mhz == 2100);
}

/* A tree with nothing in it, as a sandbox or an emulator might present: all unknown. */
static void empty_tree_is_unknown_not_an_error(void **state) {
    test_dir t;
    assert_int_equal(test_dir_create(&t), 0);
    kb_machine m;
    kb_machine_probe_at(&m, t.root);
    test_dir_destroy(&t);
    assert_string_equal(m.os, "unknown");
    assert_string_equal(m.kernel_release, "unknown");
    assert_string_equal(m.cpu_vendor, "unknown");
    assert_string_equal(m.cpu_model, "unknown");
    assert_string_equal(m.hypervisor, "");
    assert_int_equal(m.logical_cpus, 1);
    assert_int_equal(m.physical_cores, 0);
    assert_int_equal(m.sockets, 0);
    for (int l = 0; l < KB_CACHE_LEVEL_COUNT; l++) {
        assert_int_equal(m.caches[l].size, 0);
        assert_int_equal(m.caches[l].line_size, 0);
        assert_int_equal(m.caches[l].shared_by, 0);
    }
    assert_true(m.nominal_mhz == 0);
    assert_int_equal(m.nominal_source, KB_CLOCK_UNKNOWN);
}

static void hypervisor_type_file_names_it(void **state) {
    test_dir t;
    assert_int_equal(test_dir_create(&t), 0);
    test_dir_write(&t, "/sys/hypervisor/type", "xen\n");
    char name[32];
    assert_true(kb_hypervisor_detect(t.root, false, name, (int)sizeof name));
    assert_string_equal(name, "xen");
    /* "hypervisor" must be a whole flag, not part of another. */
    test_dir_write(&t, "/sys/hypervisor/type", "");
    test_dir_write(&t, "/proc/cpuinfo", "flags\t: fpu hypervisorx\n");
    assert_false(kb_hypervisor_detect(t.root, false, name, (int)sizeof name));
    assert_string_equal(name, "");
    test_dir_destroy(&t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(live_machine_is_plausible),
        cmocka_unit_test(measured_clock_is_in_a_sane_range),
        cmocka_unit_test(clock_measurement_refuses_bad_arguments),
        cmocka_unit_test(cpu_lists_parse),
        cmocka_unit_test(arm_parts_have_names),
        cmocka_unit_test(fake_arm_server_is_described),
        cmocka_unit_test(unknown_arm_part_is_shown_as_midr),
        cmocka_unit_test(fake_x86_vm_is_described),
        cmocka_unit_test(signature_from_fake_trees),
        cmocka_unit_test(cpu_mhz_is_the_last_resort),
        cmocka_unit_test(base_frequency_wins),
        cmocka_unit_test(empty_tree_is_unknown_not_an_error),
        cmocka_unit_test(hypervisor_type_file_names_it),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
