#include <stddef.h>

#include "cli/commands.h"
#include "results/bench_cli.h"

int kb_cmd_list(int argc, char **argv) {
    return kb_bench_cli("kbench list", "kbench", true, argc, argv, NULL, 0);
}
