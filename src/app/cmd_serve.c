/* `kbench serve`: this build as a baseline runner for another build's run (kbench run
 * --baseline kbench=PATH starts `PATH serve` and drives it over stdin and stdout). */
#include <stdio.h>

#include "app/commands.h"
#include "app/options.h"
#include "app/usage.h"
#include "bench/baseline_serve.h"
#include "core/internal.h"

static const char *const command = "kbench serve";

int kb_cmd_serve(int argc, char **argv) {
    const kb_option table[] = {{.kind = KB_OPTION_END}};
    const kb_program program = {
        .name = command,
        .synopsis = "usage: kbench serve\n\n"
                    "Answers the requests of another kbench's run on stdin, one JSON object per\n"
                    "line, with one JSON reply per line on stdout: the baseline runner's\n"
                    "protocol (baselines/runner.py), for the library \"kbench\", this build.\n"
                    "`kbench run --baseline kbench=PATH` starts `PATH serve` to time the build\n"
                    "at PATH interleaved with its own, on the same machine in the same run\n"
                    "(docs/baselines.md). Not for typing at.\n\n",
        .options = table,
        .epilogue = "exit status: 0 after quit or the end of input, 1 when a reply cannot be\n"
                    "written, 2 bad arguments.\n",
    };
    kb_arg_list rest = {0};
    int status;
    if (kb_program_parse(&program, argc, argv, &rest, &status)) {
        if (rest.count > 0)
            status = kb_usage_error(command, "unexpected argument '%s'", rest.items[0]);
        else
            status =
                kb_baseline_serve(stdin, stdout) == KB_OK ? KB_EXIT_OK : kb_report_failure(command);
    }
    kb_arg_list_free(&rest);
    return status;
}
