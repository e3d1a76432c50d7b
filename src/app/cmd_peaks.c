#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/commands.h"
#include "app/peaks_report.h"
#include "app/usage.h"

static void print_help(void) {
    printf("usage: kbench peaks [--json] [--refresh] [--quick] [--threads N]\n\n"
           "Peak memory bandwidth (load, copy, triad; working sets in L1, L2, L3 and DRAM) and\n"
           "peak FLOP/s (FMA chains, float32 and float64, each SIMD level) measured on this\n"
           "machine at 1 thread and at all cores, with the datasheet's theoretical peaks when\n"
           "kbench knows the CPU. Measured peaks are cached per machine and reused; measuring\n"
           "takes about 15 seconds. Bytes are counted as likwid-bench counts them (no\n"
           "write-allocate traffic); see docs/roofline.md.\n\n"
           "options:\n"
           "  --json       print one JSON object instead of tables (keys: docs/cli.md)\n"
           "  --refresh    measure again even when the cache holds this machine's peaks\n"
           "  --quick      short measurements (a second or two; for tests, not for numbers)\n"
           "  --threads N  the all-cores thread count (default: the usable cores)\n"
           "  -h, --help   show this help\n\n"
           "environment: KB_CACHE_DIR (cache directory; default $XDG_CACHE_HOME/kbench or\n"
           "~/.cache/kbench), KB_DATASHEET=FILE (a datasheet table to use instead of the\n"
           "built-in one)\n");
}

static void show_progress(void *context, const char *message) {
    fprintf(stderr, "kbench peaks: measuring %s\n", message);
}

static int gather(kb_peaks_report *r, int threads, bool refresh, bool quick) {
    kb_datasheet datasheet;
    if (kb_datasheet_load(&datasheet) != KB_OK)
        return kb_report_failure("peaks");
    kb_peaks_options o = {threads, quick, show_progress, NULL};
    if (kb_peaks_get(&o, refresh, &r->peaks, &r->source) != KB_OK) {
        kb_datasheet_free(&datasheet);
        return kb_report_failure("peaks");
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
    if (kb_wants_help(argc, argv)) {
        print_help();
        return KB_EXIT_OK;
    }
    bool json = false, refresh = false, quick = false;
    int threads = 0; /* the usable cores */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--json") == 0) {
            json = true;
        } else if (strcmp(a, "--refresh") == 0) {
            refresh = true;
        } else if (strcmp(a, "--quick") == 0) {
            quick = true;
        } else if (strcmp(a, "--threads") == 0 || strncmp(a, "--threads=", 10) == 0) {
            const char *value = a[9] == '=' ? a + 10 : (i + 1 < argc ? argv[++i] : NULL);
            if (!value)
                return kb_usage_error("peaks", "--threads needs a value");
            char *end;
            errno = 0;
            long n = strtol(value, &end, 10);
            if (errno || end == value || *end || n < 1 || n > 4096)
                return kb_usage_error("peaks", "--threads must be from 1 to 4096, not '%s'", value);
            threads = (int)n;
        } else if (a[0] == '-') {
            return kb_usage_error("peaks", "unknown option '%s'", a);
        } else {
            return kb_usage_error("peaks", "unexpected argument '%s'", a);
        }
    }
    static kb_peaks_report report; /* large; one per process */
    memset(&report, 0, sizeof report);
    int rc = gather(&report, threads, refresh, quick);
    if (rc != KB_EXIT_OK)
        return rc;
    return json ? kb_peaks_print_json(&report) : kb_peaks_print_text(&report);
}
