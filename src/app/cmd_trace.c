/* `kbench trace`: PyTorch profiler traces held against the GPU datasheet (analyze), and two
 * traces' kernels side by side (diff). */
#include <float.h>
#include <stdio.h>

#include "app/commands.h"
#include "app/options.h"
#include "app/usage.h"
#include "core/internal.h"
#include "kbench/gpus.h"
#include "kbench/trace.h"

#define TRACE_EXIT_STATUS                                                                          \
    "exit status: 0 success, 1 failure (a trace that cannot be read or is not a\n"                 \
    "Chrome trace, a device the GPU datasheet does not know, an output that cannot\n"              \
    "be written), 2 bad arguments (an unknown --device among them).\n"

#define TRACE_ENVIRONMENT "environment: KB_GPUS=FILE replaces the built-in GPU datasheet.\n"

/* --device: an id or a device name the datasheet knows, checked before any trace is read. */
static kb_status parse_device(const char *name, const char *value, void *target) {
    kb_gpus gpus;
    if (kb_gpus_load(&gpus) != KB_OK)
        return kb_fail(KB_EINVAL, "%s", kb_last_error());
    char ids[512];
    kb_gpus_ids(&gpus, ids, sizeof ids);
    bool known = kb_gpus_find(&gpus, value) != NULL;
    kb_gpus_free(&gpus);
    if (!known)
        return kb_option_bad(name, value, ids);
    *(const char **)target = value;
    return KB_OK;
}

#define DEVICE_OPTION(options)                                                                     \
    {                                                                                              \
        KB_OPTION_STRING, 0, "device", "NAME", &(options).device, parse_device,                    \
            .help = "the GPU the kernels ran on, by datasheet id (h100-sxm) or device name; "      \
                    "default: the trace's deviceProperties"                                        \
    }
#define TF32_OPTION(options)                                                                       \
    {                                                                                              \
        KB_OPTION_FLAG, 0, "tf32",                                                                 \
            .target = &(options).tf32,                                                             \
            .help = "hold float32 products against the TF32 tensor peak (when TF32 was allowed)"   \
    }
#define FORMAT_OPTION(format)                                                                      \
    {                                                                                              \
        KB_OPTION_STRING, 0, "format", "F", &(format), kb_option_report_format,                    \
            .help = "stdout as table (default), markdown or json"                                  \
    }

static int analyze(const char *program, const char *path, const kb_trace_options *options,
                   const char *augment, kb_results_format format) {
    kb_trace_analysis a;
    if (kb_trace_analyze(path, options, &a) != KB_OK)
        return kb_report_failure(program);
    int status = KB_EXIT_OK;
    if (kb_trace_print(&a, format, stdout) != KB_OK ||
        (augment && kb_trace_augment(&a, augment) != KB_OK))
        status = kb_report_failure(program);
    kb_trace_analysis_free(&a);
    return status;
}

static int run_analyze(int argc, char **argv) {
    kb_trace_options options = {0};
    const char *augment = NULL;
    kb_results_format format = KB_RESULTS_TABLE;
    const kb_option table[] = {
        DEVICE_OPTION(options),
        {KB_OPTION_STRING, 0, "augment", "OUT", &augment, .once = true,
         .help = "also write the trace to OUT with each kernel's figures in its args "
                 "(\"kbench\"), whole or not at all"},
        FORMAT_OPTION(format),
        TF32_OPTION(options),
        {KB_OPTION_DOUBLE, 0, "clock", "MHZ", &options.clock_mhz, .min = 1, .max = 10000,
         .expected = "a clock in MHz from 1 to 10000",
         .help = "the clock the kernels ran at: peaks scaled from the datasheet's boost clock"},
        {.kind = KB_OPTION_END},
    };
    const kb_program program = {
        .name = "kbench trace analyze",
        .synopsis =
            "usage: kbench trace analyze TRACE.json [--device NAME] [--augment OUT.json]\n"
            "                            [--format table|markdown|json] [--tf32]\n"
            "                            [--clock MHZ]\n\n"
            "Reads a PyTorch profiler trace (torch.profiler, export_chrome_trace; record\n"
            "shapes for FLOPs), joins each GPU kernel to the CPU op that launched it by\n"
            "External id, counts the FLOPs and bytes of matrix products and convolutions\n"
            "from their input shapes and types, and holds each kernel against the device's\n"
            "datasheet peak for its type and its memory bandwidth, with kbench's roofline\n"
            "flags (impossible, suspicious-high, suspicious-low). Prints a line per kernel\n"
            "name: count, total and mean time, share, % of the bound, of the FLOP peak and\n"
            "of the bandwidth. Kernels and ops with missing or mistyped fields are skipped\n"
            "and counted. kbench's traces documentation gives the formulas.\n\n",
        .options = table,
        .epilogue = TRACE_ENVIRONMENT TRACE_EXIT_STATUS,
    };
    kb_arg_list files = {0};
    int status;
    if (kb_program_parse(&program, argc, argv, &files, &status)) {
        if (files.count < 1)
            status = kb_usage_error(program.name, "missing TRACE");
        else if (files.count > 1)
            status = kb_usage_error(program.name, "expected one TRACE, got %d", files.count);
        else if ((status = kb_check_settings(program.name)) == KB_EXIT_OK)
            status = analyze(program.name, files.items[0], &options, augment, format);
    }
    kb_arg_list_free(&files);
    return status;
}

static int diff(const char *program, const char *a_path, const char *b_path,
                const kb_trace_options *options, kb_results_format format) {
    kb_trace_analysis a, b;
    if (kb_trace_analyze(a_path, options, &a) != KB_OK)
        return kb_report_failure(program);
    if (kb_trace_analyze(b_path, options, &b) != KB_OK) {
        kb_trace_analysis_free(&a);
        return kb_report_failure(program);
    }
    kb_trace_diff d;
    int status = KB_EXIT_OK;
    if (kb_trace_diff_make(&a, &b, &d) != KB_OK || kb_trace_diff_print(&d, format, stdout) != KB_OK)
        status = kb_report_failure(program);
    kb_trace_diff_free(&d);
    kb_trace_analysis_free(&a);
    kb_trace_analysis_free(&b);
    return status;
}

static int run_diff(int argc, char **argv) {
    kb_trace_options options = {0};
    kb_results_format format = KB_RESULTS_TABLE;
    const kb_option table[] = {
        DEVICE_OPTION(options),
        FORMAT_OPTION(format),
        TF32_OPTION(options),
        {.kind = KB_OPTION_END},
    };
    const kb_program program = {
        .name = "kbench trace diff",
        .synopsis = "usage: kbench trace diff A.json B.json [--format table|markdown|json]\n"
                    "                         [--device NAME] [--tf32]\n\n"
                    "Analyzes two PyTorch profiler traces as kbench trace analyze does and\n"
                    "prints, per kernel name, the count, total time and % of the bound in A\n"
                    "and in B and the ratio of the times B/A, the largest change of time\n"
                    "first. A name in one trace only is 'new' or 'gone'.\n\n",
        .options = table,
        .epilogue = TRACE_ENVIRONMENT TRACE_EXIT_STATUS,
    };
    kb_arg_list files = {0};
    int status;
    if (kb_program_parse(&program, argc, argv, &files, &status)) {
        if (files.count < 2)
            status = kb_usage_error(program.name, "expected two traces, A and B");
        else if (files.count > 2)
            status = kb_usage_error(program.name, "unexpected argument '%s' (A and B given)",
                                    files.items[2]);
        else if ((status = kb_check_settings(program.name)) == KB_EXIT_OK)
            status = diff(program.name, files.items[0], files.items[1], &options, format);
    }
    kb_arg_list_free(&files);
    return status;
}

int kb_cmd_trace(int argc, char **argv) {
    const kb_option options[] = {{.kind = KB_OPTION_END}};
    const kb_program program = {
        .name = "kbench trace",
        .synopsis = "usage: kbench trace analyze TRACE.json [--device NAME] [--augment OUT.json]\n"
                    "       kbench trace diff A.json B.json\n\n"
                    "Profiler traces held against the GPU datasheet: what share of the\n"
                    "device's peak FLOP/s and bandwidth each kernel reached, and what changed\n"
                    "between two traces.\n\n"
                    "subcommands:\n"
                    "  analyze  each kernel name's time, achieved rates and % of the peaks\n"
                    "  diff     two traces' kernels side by side, by the change of time\n\n",
        .options = options,
        .epilogue = "'kbench trace SUBCOMMAND --help' describes a subcommand.\n" TRACE_EXIT_STATUS,
        .flags = KB_OPTIONS_STOP_AT_ARGUMENT,
    };
    static const kb_subcommand subcommands[2] = {{"analyze", run_analyze}, {"diff", run_diff}};
    return kb_program_run_subcommand(&program, argc, argv, subcommands);
}
