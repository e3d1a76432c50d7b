/* What a benchmark case can ask of the harness: its parameters, and failing with a message. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "kbench/bench.h"

kb_status kb_bench_fail(kb_bench_case *c, kb_status status, const char *format, ...) {
    if (status == KB_OK)
        status = KB_EINVAL;
    va_list args;
    va_start(args, format);
    vsnprintf(c->error, sizeof c->error, format, args);
    va_end(args);
    /* One line in every output, whatever the caller formatted. */
    for (char *p = c->error; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    c->status = status;
    return status;
}

const char *kb_bench_param(const kb_bench_case *c, const char *name) {
    for (int i = 0; i < c->nparams; i++)
        if (strcmp(c->param_names[i], name) == 0)
            return c->param_values[i];
    return NULL;
}
