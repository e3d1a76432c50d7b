/* The distinct names of a trace, each stored once, found by hashing. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "results/trace_names.h"
#include "util/internal.h"

static size_t slot_of(const kb_trace_names *n, const char *name) {
    size_t mask = n->nslots - 1, i = (size_t)kb_fnv1a(name) & mask;
    while (n->slots[i] && strcmp(n->names[n->slots[i] - 1], name) != 0)
        i = (i + 1) & mask;
    return i;
}

/* Kept at most half full. */
static bool grow(kb_trace_names *n) {
    size_t nslots = n->nslots ? 2 * n->nslots : 64;
    int *old = n->slots;
    size_t old_n = n->nslots;
    n->slots = calloc(nslots, sizeof *n->slots);
    if (!n->slots) {
        n->slots = old;
        return false;
    }
    n->nslots = nslots;
    for (size_t i = 0; i < old_n; i++)
        if (old[i])
            n->slots[slot_of(n, n->names[old[i] - 1])] = old[i];
    free(old);
    return true;
}

int kb_trace_names_add(kb_trace_names *n, const char *name) {
    if ((size_t)(n->count + 1) * 2 > n->nslots && !grow(n))
        return kb_fail(KB_ENOMEM, "out of memory"), -1;
    size_t i = slot_of(n, name);
    if (n->slots[i])
        return n->slots[i] - 1;
    if (n->count == n->capacity) {
        int capacity = n->capacity ? 2 * n->capacity : 64;
        char **names = realloc(n->names, (size_t)capacity * sizeof *names);
        if (!names)
            return kb_fail(KB_ENOMEM, "out of memory"), -1;
        n->names = names;
        n->capacity = capacity;
    }
    char *copy = kb_strdup(name);
    if (!copy)
        return -1;
    n->names[n->count++] = copy;
    n->slots[i] = n->count;
    return n->count - 1;
}

void kb_trace_names_free(kb_trace_names *n) {
    for (int i = 0; i < n->count; i++)
        free(n->names[i]);
    free(n->names);
    free(n->slots);
    memset(n, 0, sizeof *n);
}
