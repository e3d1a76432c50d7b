/* `kbench run`: measures the cases of suites and reports their results. */
#include <stddef.h>

#include "app/commands.h"
#include "app/bench_program.h"

int kb_cmd_run(int argc, char **argv) {
    return kb_bench_cli("kbench run", "kbench", false, argc, argv, NULL, 0);
}
