/* The messages and exit statuses every kbench program ends with. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "app/usage.h"
#include "kbench/simd.h"
#include "kbench/threads.h"

int kb_usage_error(const char *program, const char *format, ...) {
    va_list args;
    va_start(args, format);
    fprintf(stderr, "%s: ", program);
    vfprintf(stderr, format, args);
    va_end(args);
    fprintf(stderr, "\nTry '%s --help'.\n", program);
    return KB_EXIT_USAGE;
}

int kb_report_failure(const char *program) {
    fprintf(stderr, "%s: %s\n", program, kb_last_error());
    return KB_EXIT_FAILURE;
}

int kb_check_settings(const char *program) {
    kb_simd_level level;
    int threads;
    if (kb_simd_current(&level) != KB_OK || kb_threads_current(&threads) != KB_OK)
        return kb_report_failure(program);
    return KB_EXIT_OK;
}

void kb_warn_oversubscribed(const char *program) {
    int threads, cores = kb_usable_cores();
    if (kb_threads_current(&threads) == KB_OK && threads > cores)
        fprintf(stderr,
                "%s: warning: %d threads asked for, but %d core%s usable: threads will share "
                "cores and timings suffer\n",
                program, threads, cores, cores == 1 ? " is" : "s are");
}

int kb_finish_stdout(const char *program, int status) {
    errno = 0;
    /* A write error may have been recorded by an earlier flush, which fflush does not
     * report again. */
    bool failed = fflush(stdout) != 0 || ferror(stdout);
    if (!failed || status != KB_EXIT_OK)
        return status;
    fprintf(stderr, "%s: cannot write to stdout: %s\n", program,
            errno ? strerror(errno) : "write error");
    return KB_EXIT_FAILURE;
}
