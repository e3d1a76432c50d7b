#ifndef KB_APP_PEAKS_REPORT_H
#define KB_APP_PEAKS_REPORT_H

#include <stdbool.h>

#include "kbench/datasheet.h"
#include "kbench/machine.h"
#include "kbench/peaks.h"

/* Everything `kbench peaks` shows, gathered before anything is printed. */
typedef struct kb_peaks_report {
    kb_machine machine;
    kb_peaks peaks;
    kb_peaks_source source;      /* the cache file and whether it was reused */
    kb_clock_measurement clock;  /* measured now; zero when it could not be */
    const kb_datasheet_row *row; /* NULL when the datasheet does not know this CPU */
} kb_peaks_report;

/* The text tables and the JSON object described in docs/cli.md. Return the exit status. */
int kb_peaks_print_text(const kb_peaks_report *r);
int kb_peaks_print_json(const kb_peaks_report *r);

#endif
