#ifndef KB_APP_USAGE_H
#define KB_APP_USAGE_H

#include "kbench/error.h"

/* Exit statuses shared by every subcommand. */
enum { KB_EXIT_OK = 0, KB_EXIT_FAILURE = 1, KB_EXIT_USAGE = 2 };

/* Prints "kbench: <message>" plus a hint to try --help, and returns KB_EXIT_USAGE. */
int kb_usage_error(const char *command, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

/* Prints "kbench <command>: <kb_last_error()>" and returns KB_EXIT_FAILURE. */
int kb_report_failure(const char *command);

/* True when argv holds -h or --help before any "--". */
int kb_wants_help(int argc, char **argv);

#endif
