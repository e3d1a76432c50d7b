/* `kbench info`: describes the machine, the build and the environment a number is measured in. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/commands.h"
#include "app/options.h"
#include "app/usage.h"
#include "kbench/info.h"
#include "machine/internal.h"
#include "util/internal.h"

/* Gathered before anything is printed, so that a failure (an invalid KB_SIMD or KB_NUM_THREADS)
 * leaves stdout empty. */
static int gather(kb_info *in) {
    if (kb_info_gather(in) != KB_OK)
        return kb_report_failure("kbench info");
    kb_warn_oversubscribed("kbench info");
    return KB_EXIT_OK;
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

static void print_text(const kb_info *in) {
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
        kb_format_bytes(size, sizeof size, c->size);
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

static int print_json(const kb_info *in) {
    char *text = NULL;
    bool written = kb_info_json(in, &text) == KB_OK && puts(text) != EOF;
    free(text);
    if (!written) {
        fprintf(stderr, "kbench info: cannot write JSON to stdout\n");
        return KB_EXIT_FAILURE;
    }
    return KB_EXIT_OK;
}

int kb_cmd_info(int argc, char **argv) {
    bool json = false;
    const kb_option options[] = {
        {KB_OPTION_FLAG, 0, "json", .target = &json,
         .help = "print one JSON object instead of text (keys: the CLI documentation)"},
        {.kind = KB_OPTION_END},
    };
    const kb_program program = {
        .name = "kbench info",
        .synopsis = "usage: kbench info [--json]\n\n"
                    "Describes this build, this machine (OS, CPU, caches, nominal and measured\n"
                    "clock), the SIMD level and thread count in force, and conditions that make\n"
                    "timings unreliable. Measuring the clock takes about a tenth of a second.\n\n",
        .options = options,
        .epilogue = "environment: KB_SIMD=auto|scalar|avx2|avx512|neon|sve, KB_NUM_THREADS=N\n"
                    "exit status: 0 success, 1 failure (such as an invalid KB_SIMD), 2 bad\n"
                    "arguments.\n",
    };
    int status;
    if (!kb_program_parse(&program, argc, argv, NULL, &status))
        return status;
    kb_info in;
    if ((status = gather(&in)) != KB_EXIT_OK)
        return status;
    if (json)
        return print_json(&in);
    print_text(&in);
    return KB_EXIT_OK;
}
