#ifndef KB_APP_RUN_DISPLAY_H
#define KB_APP_RUN_DISPLAY_H

#include <stdbool.h>
#include <stdio.h>

#include "kbench/bench.h"

/* What people see during a run: environment warnings and progress on err (one updating
 * line on a terminal, a line per group otherwise), and the table on out, row by row as cases
 * finish. */
typedef struct kb_run_display {
    const char *program;
    FILE *out, *err;
    bool table;    /* stream the table to out */
    bool progress; /* report progress on err */
    bool tty;      /* err is a terminal */
    bool line_open;
    int name_width;
} kb_run_display;

void kb_run_display_init(kb_run_display *d, const char *program, bool table, bool progress,
                         int name_width);
void kb_run_display_observer(kb_run_display *d, kb_bench_observer *observer);

/* Clears a progress line still on the terminal. */
void kb_run_display_finish(kb_run_display *d);

#endif
