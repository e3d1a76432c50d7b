#ifndef KB_APP_BENCH_PROGRAM_H
#define KB_APP_BENCH_PROGRAM_H

#include <stdbool.h>

#include "kbench/bench.h"

/* The program behind kb_bench_main, `kbench run` and `kbench list`. program is how help and
 * messages name it ("kbench run", "./mybench list"); argv[0] is the subcommand or program,
 * and the command line recorded in the results is command_prefix followed by argv. With
 * defs NULL the cases are kbench's built-in suites, chosen by positional arguments. */
int kb_bench_cli(const char *program, const char *command_prefix, bool list, int argc, char **argv,
                 const kb_bench_def *defs, int ndefs);

#endif
