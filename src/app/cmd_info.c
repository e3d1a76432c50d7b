#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "app/commands.h"
#include "app/usage.h"
#include "kbench/cpu.h"
#include "kbench/environment.h"
#include "kbench/machine.h"
#include "kbench/simd.h"
#include "kbench/threads.h"
#include "kbench/version.h"

/* Everything `kbench info` reports, gathered before anything is printed so that a failure
 * (an invalid KB_SIMD or KB_NUM_THREADS) leaves stdout empty. */
typedef struct info {
    const kb_build_info *build;
    kb_machine machine;
    kb_clock_measurement clock; /* all zero when it could not be measured */
    char instruction_sets[256];
    kb_simd_level selected;
    int threads;
    int usable_cores;
    kb_cores_info cores; /* what bounds usable_cores */
    kb_env_report env;
} info;

static void print_help(void) {
    printf("usage: kbench info [--json]\n\n"
           "Describes this build, this machine (OS, CPU, caches, nominal and measured clock),\n"
           "the SIMD level and thread count in force, and conditions that make timings\n"
           "unreliable. Measuring the clock takes about a tenth of a second.\n\n"
           "options:\n"
           "  --json      print one JSON object instead of text (keys: docs/cli.md)\n"
           "  -h, --help  show this help\n\n"
           "environment: KB_SIMD=auto|scalar|avx2|avx512|neon|sve, KB_NUM_THREADS=N\n");
}

static int gather(info *in) {
    memset(in, 0, sizeof *in);
    /* The settings first: they are what can fail, and they are cheap. */
    if (kb_simd_current(&in->selected) != KB_OK || kb_threads_current(&in->threads) != KB_OK)
        return kb_report_failure("info");
    in->usable_cores = kb_usable_cores();
    kb_cores_describe(&in->cores);
    in->build = kb_build_info_get();
    kb_machine_probe(&in->machine);
    if (kb_clock_measure(0, 0, &in->clock) != KB_OK)
        memset(&in->clock, 0, sizeof in->clock);
    kb_cpu_features_describe(kb_cpu_features_get(), in->instruction_sets,
                             (int)sizeof in->instruction_sets);
    kb_env_inputs inputs;
    kb_env_inputs_live(&inputs);
    inputs.usable_cores = in->usable_cores;
    kb_env_check(&inputs, &in->env);
    return KB_EXIT_OK;
}

/* "32 KiB", "1 MiB", "1.25 MiB". */
static void format_size(char *buf, size_t size, int64_t bytes) {
    static const char *const units[] = {"B", "KiB", "MiB", "GiB"};
    double v = (double)bytes;
    int u = 0;
    while (v >= 1024 && u < 3) {
        v /= 1024;
        u++;
    }
    if (v == (double)(int64_t)v)
        snprintf(buf, size, "%lld %s", (long long)v, units[u]);
    else
        snprintf(buf, size, "%.2f %s", v, units[u]);
}

static void row(const char *label, const char *format, ...) __attribute__((format(printf, 2, 3)));

static void row(const char *label, const char *format, ...) {
    printf("  %-18s", label);
    va_list args;
    va_start(args, format);
    vprintf(format, args);
    va_end(args);
    putchar('\n');
}

static void count_row(const char *label, int value) {
    if (value > 0)
        row(label, "%d", value);
    else
        row(label, "unknown");
}

static void simd_row(const char *label, bool (*has)(kb_simd_level)) {
    char list[128] = "";
    for (int l = 0; l < KB_SIMD_LEVEL_COUNT; l++) {
        if (!has((kb_simd_level)l))
            continue;
        if (list[0])
            strcat(list, " ");
        strcat(list, kb_simd_name((kb_simd_level)l));
    }
    row(label, "%s", list);
}

static void print_text(const info *in) {
    const kb_build_info *b = in->build;
    const kb_machine *m = &in->machine;
    printf("kbench %s (commit %s)\n", b->version, b->git_commit);

    printf("\nbuild\n");
    row("compiler", "%s", b->compiler);
    row("flags", "%s", b->c_flags[0] ? b->c_flags : "(none)");
    row("build type", "%s (%s, %s)", b->build_type, b->optimized ? "optimized" : "not optimized",
        b->sanitizers ? "sanitizers" : "no sanitizers");
    row("architecture", "%s", b->arch);

    printf("\nsystem\n");
    row("os", "%s", m->os);
    row("kernel", "%s %s %s", m->kernel_name, m->kernel_release, m->kernel_version);
    row("hostname", "%s", m->hostname);
    row("architecture", "%s", m->arch);
    row("hypervisor", "%s", m->hypervisor[0] ? m->hypervisor : "none detected");

    printf("\ncpu\n");
    row("vendor", "%s", m->cpu_vendor);
    row("model", "%s", m->cpu_model);
    count_row("logical cpus", m->logical_cpus);
    count_row("physical cores", m->physical_cores);
    count_row("sockets", m->sockets);
    for (int l = 0; l < KB_CACHE_LEVEL_COUNT; l++) {
        const kb_cache *c = &m->caches[l];
        char label[32], size[32], line[32] = "", shared[48] = "";
        snprintf(label, sizeof label, "%s cache", kb_cache_name((kb_cache_level)l));
        if (c->size <= 0) {
            row(label, "unknown");
            continue;
        }
        format_size(size, sizeof size, c->size);
        if (c->line_size > 0)
            snprintf(line, sizeof line, ", %d B lines", c->line_size);
        if (c->shared_by == 1)
            snprintf(shared, sizeof shared, ", private to 1 cpu");
        else if (c->shared_by > 1)
            snprintf(shared, sizeof shared, ", shared by %d cpus", c->shared_by);
        row(label, "%s%s%s", size, line, shared);
    }
    if (m->nominal_mhz > 0)
        row("nominal clock", "%.0f MHz (from %s)", m->nominal_mhz,
            kb_clock_source_name(m->nominal_source));
    else
        row("nominal clock", "unknown");
    if (in->clock.repetitions > 0)
        row("measured clock", "%.0f MHz (median of %d, range %.0f-%.0f)", in->clock.mhz,
            in->clock.repetitions, in->clock.min_mhz, in->clock.max_mhz);
    else
        row("measured clock", "unknown");
    row("instruction sets", "%s", in->instruction_sets[0] ? in->instruction_sets : "(none)");

    printf("\nsimd\n");
    simd_row("compiled", kb_simd_compiled);
    simd_row("available", kb_simd_available);
    row("selected", "%s", kb_simd_name(in->selected));

    printf("\nthreads\n");
    row("threads", "%d", in->threads);
    row("usable cores", "%d", in->usable_cores);
    row("bound by", "%s", in->cores.bound_by);

    printf("\nwarnings\n");
    if (in->env.count == 0)
        printf("  none\n");
    for (int i = 0; i < in->env.count; i++)
        row(kb_env_code_name(in->env.warnings[i].code), "%s", in->env.warnings[i].message);
}

/* A JSON string of text from the system (a hostname, a kernel version), which need not be
 * valid UTF-8: jansson refuses invalid UTF-8, so such text is kept with its non-ASCII bytes
 * replaced rather than dropped. */
static json_t *text(const char *s) {
    json_t *j = json_string(s);
    if (j)
        return j;
    char safe[KB_MACHINE_NAME_SIZE * 2];
    size_t n = 0;
    for (; s[n] && n < sizeof safe - 1; n++)
        safe[n] = (unsigned char)s[n] < 0x80 ? s[n] : '?';
    safe[n] = '\0';
    return json_string(safe);
}

/* JSON has no "unknown" number: a value the machine does not expose is null, never 0. */
static json_t *positive_or_null(double v) {
    return v > 0 ? json_real(v) : json_null();
}

static json_t *count_or_null(int64_t v) {
    return v > 0 ? json_integer(v) : json_null();
}

static json_t *simd_array(bool (*has)(kb_simd_level)) {
    json_t *a = json_array();
    for (int l = 0; l < KB_SIMD_LEVEL_COUNT; l++)
        if (has((kb_simd_level)l))
            json_array_append_new(a, json_string(kb_simd_name((kb_simd_level)l)));
    return a;
}

static json_t *split_commas(const char *list) {
    json_t *a = json_array();
    while (*list) {
        size_t n = strcspn(list, ",");
        if (n > 0)
            json_array_append_new(a, json_stringn(list, n));
        list += n;
        if (*list == ',')
            list++;
    }
    return a;
}

static json_t *build_json(const info *in) {
    const kb_build_info *b = in->build;
    const kb_machine *m = &in->machine;
    json_t *root = json_object();
    json_object_set_new(root, "version", json_string(b->version));
    json_object_set_new(root, "git_commit", json_string(b->git_commit));

    json_t *build = json_object();
    json_object_set_new(build, "compiler", json_string(b->compiler));
    json_object_set_new(build, "c_flags", json_string(b->c_flags));
    json_object_set_new(build, "build_type", json_string(b->build_type));
    json_object_set_new(build, "arch", json_string(b->arch));
    json_object_set_new(build, "optimized", json_boolean(b->optimized));
    json_object_set_new(build, "sanitizers", json_boolean(b->sanitizers));
    json_object_set_new(root, "build", build);

    json_t *system = json_object();
    json_object_set_new(system, "os", text(m->os));
    json_object_set_new(system, "kernel_name", text(m->kernel_name));
    json_object_set_new(system, "kernel_release", text(m->kernel_release));
    json_object_set_new(system, "kernel_version", text(m->kernel_version));
    json_object_set_new(system, "hostname", text(m->hostname));
    json_object_set_new(system, "arch", text(m->arch));
    json_object_set_new(system, "hypervisor", m->hypervisor[0] ? text(m->hypervisor) : json_null());
    json_object_set_new(root, "system", system);

    json_t *cpu = json_object();
    json_object_set_new(cpu, "vendor", text(m->cpu_vendor));
    json_object_set_new(cpu, "model", text(m->cpu_model));
    json_object_set_new(cpu, "logical_cpus", count_or_null(m->logical_cpus));
    json_object_set_new(cpu, "physical_cores", count_or_null(m->physical_cores));
    json_object_set_new(cpu, "sockets", count_or_null(m->sockets));
    json_t *caches = json_object();
    for (int l = 0; l < KB_CACHE_LEVEL_COUNT; l++) {
        const kb_cache *c = &m->caches[l];
        json_t *cache = json_object();
        json_object_set_new(cache, "size_bytes", count_or_null(c->size));
        json_object_set_new(cache, "line_size", count_or_null(c->line_size));
        json_object_set_new(cache, "shared_by", count_or_null(c->shared_by));
        json_object_set_new(caches, kb_cache_name((kb_cache_level)l), cache);
    }
    json_object_set_new(cpu, "caches", caches);
    json_object_set_new(cpu, "instruction_sets", split_commas(in->instruction_sets));
    json_object_set_new(root, "cpu", cpu);

    json_t *clock = json_object();
    json_object_set_new(clock, "nominal_mhz", positive_or_null(m->nominal_mhz));
    json_object_set_new(clock, "nominal_source",
                        json_string(kb_clock_source_name(m->nominal_source)));
    json_object_set_new(clock, "measured_mhz", positive_or_null(in->clock.mhz));
    json_object_set_new(clock, "measured_min_mhz", positive_or_null(in->clock.min_mhz));
    json_object_set_new(clock, "measured_max_mhz", positive_or_null(in->clock.max_mhz));
    json_object_set_new(clock, "measured_repetitions", json_integer(in->clock.repetitions));
    json_object_set_new(root, "clock", clock);

    json_t *simd = json_object();
    json_object_set_new(simd, "compiled", simd_array(kb_simd_compiled));
    json_object_set_new(simd, "available", simd_array(kb_simd_available));
    json_object_set_new(simd, "selected", json_string(kb_simd_name(in->selected)));
    json_object_set_new(root, "simd", simd);

    json_t *threads = json_object();
    json_object_set_new(threads, "count", json_integer(in->threads));
    json_object_set_new(threads, "usable_cores", json_integer(in->usable_cores));
    json_object_set_new(threads, "bound_by", json_string(in->cores.bound_by));
    json_object_set_new(root, "threads", threads);

    json_t *warnings = json_array();
    for (int i = 0; i < in->env.count; i++) {
        json_t *w = json_object();
        json_object_set_new(w, "code", json_string(kb_env_code_name(in->env.warnings[i].code)));
        json_object_set_new(w, "message", text(in->env.warnings[i].message));
        json_array_append_new(warnings, w);
    }
    json_object_set_new(root, "warnings", warnings);
    return root;
}

static int print_json(const info *in) {
    json_t *root = build_json(in);
    int rc = json_dumpf(root, stdout, JSON_INDENT(2) | JSON_ENSURE_ASCII | JSON_REAL_PRECISION(7));
    json_decref(root);
    if (rc != 0) {
        fprintf(stderr, "kbench info: cannot write JSON to stdout\n");
        return KB_EXIT_FAILURE;
    }
    putchar('\n');
    return KB_EXIT_OK;
}

int kb_cmd_info(int argc, char **argv) {
    if (kb_wants_help(argc, argv)) {
        print_help();
        return KB_EXIT_OK;
    }
    bool json = false, options = true;
    for (int i = 1; i < argc; i++) {
        if (options && strcmp(argv[i], "--") == 0)
            options = false;
        else if (options && strcmp(argv[i], "--json") == 0)
            json = true;
        else if (options && argv[i][0] == '-')
            return kb_usage_error("info", "unknown option '%s'", argv[i]);
        else
            return kb_usage_error("info", "unexpected argument '%s'", argv[i]);
    }
    info in;
    int rc = gather(&in);
    if (rc != KB_EXIT_OK)
        return rc;
    if (json)
        return print_json(&in);
    print_text(&in);
    return fflush(stdout) == 0 ? KB_EXIT_OK : KB_EXIT_FAILURE;
}
