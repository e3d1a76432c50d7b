#ifndef KB_RESULTS_TRACE_NAMES_H
#define KB_RESULTS_TRACE_NAMES_H

#include <stddef.h>

/* The distinct names of a trace (kernels, CPU ops), each stored once and numbered in the
 * order first seen: a million events name a few hundred kernels. */
typedef struct kb_trace_names {
    char **names;
    int count, capacity;
    int *slots; /* open addressing: index + 1, 0 for empty */
    size_t nslots;
} kb_trace_names;

/* The number of name, added when new; -1 (failing with KB_ENOMEM) when out of memory. */
int kb_trace_names_add(kb_trace_names *names, const char *name);

void kb_trace_names_free(kb_trace_names *names);

#endif
