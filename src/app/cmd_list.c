/* `kbench list`: the cases a run would measure. */
#include <stddef.h>

#include "app/commands.h"
#include "app/bench_program.h"

int kb_cmd_list(int argc, char **argv) {
    return kb_bench_cli("kbench list", "kbench", true, argc, argv, NULL, 0);
}
