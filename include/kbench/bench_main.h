#ifndef KBENCH_BENCH_MAIN_H
#define KBENCH_BENCH_MAIN_H

#include "kbench/bench.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A ready-made main program for benchmarks defined with kb_bench_def: the options, output
 * and exit statuses of `kbench run` and `kbench list` (docs/cli.md), for the cases of defs.
 *
 *     static const kb_bench_def benches[] = {{.name = "mylib/dot", ...}};
 *     int main(int argc, char **argv) { return kb_bench_main(argc, argv, benches, 1); }
 *
 *     ./mybench [run] [--filter REGEX] [--min-time S] [-o results.json] ...
 *     ./mybench list [--filter REGEX] [--shard K/N]
 *
 * It is the one function of libkbench that prints (the table to stdout; progress,
 * environment warnings and errors to stderr), as a main program does, and it returns the
 * exit status rather than exiting: 0 when every case ran, 1 when any failed (the failures are
 * in the results) or an output could not be written, 2 for bad arguments. */
int kb_bench_main(int argc, char **argv, const kb_bench_def *defs, int ndefs);

#ifdef __cplusplus
}
#endif

#endif
