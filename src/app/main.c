/* The kbench executable: a table of commands, one cmd_*.c each, and the one check that
 * what they printed reached stdout. */
#include <stdio.h>
#include <string.h>

#include "app/commands.h"
#include "app/options.h"
#include "app/usage.h"
#include "kbench/version.h"
#include "util/strings.h"

static const struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} commands[] = {
    {"info", kb_cmd_info, "describe this machine, this build and the settings in force"},
    {"npy", kb_cmd_npy, "inspect and convert NumPy .npy files"},
    {"eval", kb_cmd_eval, "evaluate a reduction on .npy inputs"},
    {"run", kb_cmd_run, "measure benchmark cases and report their statistics"},
    {"list", kb_cmd_list, "list the benchmark cases a run would measure"},
    {"compare", kb_cmd_compare, "compare two runs: ratios, significance, verdicts; a CI gate"},
    {"report", kb_cmd_report, "write results and a comparison as one self-contained HTML page"},
    {"merge", kb_cmd_merge, "combine the results files of a sharded run into one"},
    {"detect", kb_cmd_detect, "find where series of runs changed level; a regression alert"},
    {"peaks", kb_cmd_peaks, "measure peak bandwidth and FLOP/s; compare with the datasheet"},
    {"trace", kb_cmd_trace, "hold profiler traces against the GPU datasheet; diff two"},
    {"serve", kb_cmd_serve, "time this build for another's run (kbench run --baseline kbench=)"},
    {"history", kb_cmd_history, "store runs in SQLite or PostgreSQL; list and show series"},
};

enum { ncommands = sizeof commands / sizeof commands[0] };

static int find_command(const char *name) {
    for (int i = 0; i < ncommands; i++)
        if (strcmp(name, commands[i].name) == 0)
            return i;
    return -1;
}

/* `kbench help ...` and `kbench version ...` are kbench's own words, and -h or --help among
 * them (before "--") wins as it does on every command's line: `help COMMAND --help` is that
 * command's help, anything else the general help. -1 when no help is asked for. */
static int help_in_pseudo_command(const kb_program *program, char **words, int nwords) {
    bool asked = false, ended = false;
    char *topic = NULL;
    int others = 0;
    for (int i = 1; i < nwords; i++) {
        if (!ended && (strcmp(words[i], "-h") == 0 || strcmp(words[i], "--help") == 0)) {
            asked = true;
            continue;
        }
        ended = ended || strcmp(words[i], "--") == 0;
        topic = words[i];
        others++;
    }
    if (!asked)
        return -1;
    int i = strcmp(words[0], "help") == 0 && others == 1 ? find_command(topic) : -1;
    if (i >= 0) {
        char *help_args[] = {topic, "--help", NULL};
        return commands[i].run(2, help_args);
    }
    kb_program_print_help(program, stdout);
    return KB_EXIT_OK;
}

static int dispatch(int argc, char **argv) {
    /* Room for the table's lines of at most 80 columns. */
    char synopsis[256 + 81 * ncommands];
    size_t n = (size_t)snprintf(synopsis, sizeof synopsis,
                                "usage: kbench COMMAND [OPTIONS]\n"
                                "       kbench --help | --version | version\n\n"
                                "kbench measures array kernels and ships kernels worth "
                                "measuring.\n\n"
                                "commands:\n");
    for (int i = 0; i < ncommands && n < sizeof synopsis; i++)
        n += (size_t)snprintf(synopsis + n, sizeof synopsis - n, "  %-10s %s\n", commands[i].name,
                              commands[i].summary);
    if (n < sizeof synopsis)
        snprintf(synopsis + n, sizeof synopsis - n, "\n");
    bool version = false;
    const kb_option options[] = {
        {KB_OPTION_FLAG, 0, "version", .target = &version, .help = "print kbench's version"},
        {.kind = KB_OPTION_END},
    };
    const kb_program program = {
        .name = "kbench",
        .synopsis = synopsis,
        .options = options,
        .epilogue = "'kbench COMMAND --help' describes a command.\n"
                    "environment: KB_SIMD=auto|scalar|avx2|avx512|neon|sve, KB_NUM_THREADS=N\n"
                    "exit status: the command's; 2 for an unknown command or bad arguments.\n",
        .flags = KB_OPTIONS_STOP_AT_ARGUMENT,
    };
    kb_arg_list rest = {0};
    int status;
    bool go_on = kb_program_parse(&program, argc, argv, &rest, &status);
    /* The command and its arguments are the end of argv: options stop at the command. */
    char **command = argv + (argc - rest.count);
    int ncommand = rest.count;
    kb_arg_list_free(&rest);
    if (!go_on)
        return status;
    if (ncommand >= 1 && (strcmp(command[0], "help") == 0 || strcmp(command[0], "version") == 0) &&
        (status = help_in_pseudo_command(&program, command, ncommand)) >= 0)
        return status;
    /* `kbench version` is `kbench --version`. */
    if (ncommand >= 1 && strcmp(command[0], "version") == 0) {
        if (ncommand > 1) {
            fprintf(stderr, "kbench version: takes no arguments\nTry 'kbench --help'.\n");
            return KB_EXIT_USAGE;
        }
        version = true;
    }
    if (version) {
        const kb_build_info *b = kb_build_info_get();
        printf("kbench %s (%s)\n", b->version, b->git_commit);
        return KB_EXIT_OK;
    }
    if (ncommand == 0) {
        kb_program_print_help(&program, stderr);
        return KB_EXIT_USAGE;
    }
    /* `kbench help COMMAND` is `kbench COMMAND --help`. */
    bool help = strcmp(command[0], "help") == 0;
    if (help && ncommand == 1) {
        kb_program_print_help(&program, stdout);
        return KB_EXIT_OK;
    }
    if (help && ncommand > 2) {
        fprintf(stderr, "kbench help: one command at a time\nTry 'kbench --help'.\n");
        return KB_EXIT_USAGE;
    }
    const char *name = command[help ? 1 : 0];
    int found = find_command(name);
    if (found >= 0) {
        char *help_args[] = {command[1], "--help", NULL};
        return help ? commands[found].run(2, help_args) : commands[found].run(ncommand, command);
    }
    /* The nearest command within two edits, if one is that near: a typo's likely meaning. */
    const char *nearest = NULL;
    int best = 2;
    for (int i = 0; i < ncommands; i++) {
        int d = kb_edit_distance(name, commands[i].name, best);
        if (d < best || (d == best && !nearest)) {
            best = d;
            nearest = commands[i].name;
        }
    }
    if (nearest)
        fprintf(stderr, "kbench: unknown command '%s' (did you mean '%s'?)\n", name, nearest);
    else
        fprintf(stderr, "kbench: unknown command '%s'\n", name);
    fprintf(stderr, "Try 'kbench --help'.\n");
    return KB_EXIT_USAGE;
}

int main(int argc, char **argv) {
    return kb_finish_stdout("kbench", dispatch(argc, argv));
}
