/* `kbench peaks`: measures or shows this machine's bandwidth and FLOP peaks. */
#include <stdio.h>
#include <string.h>

#include "app/commands.h"
#include "app/options.h"
#include "app/peaks_report.h"
#include "app/usage.h"

static void show_progress(void *context, const char *message) {
    fprintf(stderr, "kbench peaks: measuring %s\n", message);
}

static int gather(kb_peaks_report *r, int threads, bool refresh, bool quick) {
    kb_datasheet datasheet;
    if (kb_datasheet_load(&datasheet) != KB_OK)
        return kb_report_failure("kbench peaks");
    kb_peaks_options o = {threads, quick, show_progress, NULL};
    if (kb_peaks_get(&o, refresh, &r->peaks, &r->source) != KB_OK) {
        kb_datasheet_free(&datasheet);
        return kb_report_failure("kbench peaks");
    }
    if (r->source.cache_warning[0])
        fprintf(stderr, "kbench peaks: %s\n", r->source.cache_warning);
    kb_machine_probe(&r->machine);
    /* As the peaks measure it: the fastest of many short repetitions. */
    if (kb_clock_measure(0.002, quick ? 15 : 41, &r->clock) != KB_OK)
        memset(&r->clock, 0, sizeof r->clock);

    /* The report keeps the matched row past the table's lifetime: copy it out. */
    static kb_datasheet_row row;
    const kb_datasheet_row *match =
        kb_datasheet_match(&datasheet, r->machine.cpu_model, &r->machine.signature);
    if (match) {
        row = *match;
        r->row = &row;
    }
    kb_datasheet_free(&datasheet);
    return KB_EXIT_OK;
}

int kb_cmd_peaks(int argc, char **argv) {
    bool json = false, refresh = false, quick = false;
    int threads = 0; /* the usable cores */
    const kb_option options[] = {
        {KB_OPTION_FLAG, 0, "json", .target = &json,
         .help = "print one JSON object instead of tables (keys: the CLI documentation)"},
        {KB_OPTION_FLAG, 0, "refresh", .target = &refresh,
         .help = "measure again even when the cache holds this machine's peaks"},
        {KB_OPTION_FLAG, 0, "quick", .target = &quick,
         .help = "short measurements (seconds, not a minute; for tests, not for numbers)"},
        {KB_OPTION_INT, 0, "threads", "N", &threads, .min = 1, .max = 4096,
         .expected = "an integer from 1 to 4096",
         .help = "the all-cores thread count (default: the usable cores)"},
        {.kind = KB_OPTION_END},
    };
    const kb_program program = {
        .name = "kbench peaks",
        .synopsis =
            "usage: kbench peaks [--json] [--refresh] [--quick] [--threads N]\n\n"
            "Peak memory bandwidth (load, copy, triad; working sets in L1, L2, L3 and\n"
            "DRAM) and peak FLOP/s (FMA chains, float32 and float64, each SIMD level)\n"
            "measured on this machine at 1 thread and at all cores, with the datasheet's\n"
            "theoretical peaks when kbench knows the CPU. Measured peaks are cached per\n"
            "machine and reused; measuring takes about a minute. Bytes are counted as\n"
            "likwid-bench counts them (no write-allocate traffic), as the roofline page of\n"
            "kbench's documentation describes.\n\n",
        .options = options,
        .epilogue =
            "environment: KB_CACHE_DIR (cache directory; default $XDG_CACHE_HOME/kbench or\n"
            "~/.cache/kbench), KB_DATASHEET=FILE (a datasheet table to use instead of the\n"
            "built-in one)\n"
            "exit status: 0 success, 1 measuring failed or KB_DATASHEET names a missing or\n"
            "malformed file, 2 bad arguments.\n",
    };
    int status;
    if (!kb_program_parse(&program, argc, argv, NULL, &status))
        return status;
    if ((status = kb_check_settings(program.name)) != KB_EXIT_OK)
        return status;
    static kb_peaks_report report; /* large; one per process */
    memset(&report, 0, sizeof report);
    if ((status = gather(&report, threads, refresh, quick)) != KB_EXIT_OK)
        return status;
    return json ? kb_peaks_print_json(&report) : kb_peaks_print_text(&report);
}
