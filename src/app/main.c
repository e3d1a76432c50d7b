#include <stdio.h>
#include <string.h>

#include "app/commands.h"
#include "app/usage.h"
#include "kbench/version.h"

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
    {"peaks", kb_cmd_peaks, "measure peak bandwidth and FLOP/s; compare with the datasheet"},
};

static void print_help(FILE *out) {
    fprintf(out, "usage: kbench COMMAND [OPTIONS]\n"
                 "       kbench --help | --version\n\n"
                 "kbench measures array kernels and ships kernels worth measuring.\n\n"
                 "commands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\n'kbench COMMAND --help' describes a command.\n"
                 "environment: KB_SIMD=auto|scalar|avx2|avx512|neon|sve, KB_NUM_THREADS=N\n");
}

int main(int argc, char **argv) {
    if (argc < 2) {
        print_help(stderr);
        return KB_EXIT_USAGE;
    }
    const char *name = argv[1];
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0 || strcmp(name, "help") == 0) {
        print_help(stdout);
        return KB_EXIT_OK;
    }
    if (strcmp(name, "--version") == 0) {
        const kb_build_info *b = kb_build_info_get();
        printf("kbench %s (%s)\n", b->version, b->git_commit);
        return KB_EXIT_OK;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(name, commands[i].name) == 0)
            return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "kbench: unknown command '%s'\nTry 'kbench --help'.\n", name);
    return KB_EXIT_USAGE;
}
