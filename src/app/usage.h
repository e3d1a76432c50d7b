#ifndef KB_APP_USAGE_H
#define KB_APP_USAGE_H

#include "kbench/error.h"

/* The exit statuses of every kbench program: the kbench commands, and the programs built on
 * kb_bench_main. */
typedef enum kb_exit_status {
    KB_EXIT_OK = 0,
    KB_EXIT_FAILURE = 1, /* after one line on stderr saying why */
    KB_EXIT_USAGE = 2,   /* bad arguments, after a message and a hint to try --help */
} kb_exit_status;

/* program is how messages name the program: "kbench eval", "./mybench list". */

/* Prints "<program>: <message>" and a hint to try --help; returns KB_EXIT_USAGE. */
int kb_usage_error(const char *program, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

/* Prints "<program>: <kb_last_error()>"; returns KB_EXIT_FAILURE. */
int kb_report_failure(const char *program);

/* KB_EXIT_OK when the SIMD level and thread count in force are valid (KB_SIMD and
 * KB_NUM_THREADS, or what options set in their place); else reports the bad one, the same
 * way in every command, and returns KB_EXIT_FAILURE. Each command calls it once its
 * arguments are known to be good, before any work. */
int kb_check_settings(const char *program);

/* Warns on stderr when the thread count in force is above the usable cores: allowed, but the
 * threads share cores. Called by the commands whose kernels run with that count. */
void kb_warn_oversubscribed(const char *program);

/* The exit status once a program is done: status, unless stdout could not be written, which
 * fails a program that had succeeded (and is reported then; a program that failed has said
 * why already). Called once per process, by the kbench dispatcher and by kb_bench_main. */
int kb_finish_stdout(const char *program, int status);

#endif
