#include <stddef.h>

#include "cli/commands.h"
#include "results/bench_cli.h"

int kb_cmd_run(int argc, char **argv) {
    return kb_bench_cli("kbench run", "kbench", false, argc, argv, NULL, 0);
}
