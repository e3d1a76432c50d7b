#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "app/usage.h"

int kb_usage_error(const char *command, const char *format, ...) {
    va_list args;
    va_start(args, format);
    fprintf(stderr, "kbench %s: ", command);
    vfprintf(stderr, format, args);
    va_end(args);
    fprintf(stderr, "\nTry 'kbench %s --help'.\n", command);
    return KB_EXIT_USAGE;
}

int kb_report_failure(const char *command) {
    fprintf(stderr, "kbench %s: %s\n", command, kb_last_error());
    return KB_EXIT_FAILURE;
}

int kb_wants_help(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            return 0;
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
            return 1;
    }
    return 0;
}
