/* Aligned allocation for arrays and scratch buffers. */
#include <stdlib.h>

#include "core/fail.h"
#include "kbench/memory.h"

void *kb_aligned_alloc(size_t size) {
    /* aligned_alloc wants a multiple of the alignment; round up, and never ask for 0. */
    size_t rounded = (size + KB_ALIGNMENT - 1) / KB_ALIGNMENT * KB_ALIGNMENT;
    if (rounded < size) {
        kb_fail(KB_ENOMEM, "cannot allocate %zu bytes", size);
        return NULL;
    }
    void *ptr = aligned_alloc(KB_ALIGNMENT, rounded ? rounded : KB_ALIGNMENT);
    if (!ptr)
        kb_fail(KB_ENOMEM, "cannot allocate %zu bytes", size);
    return ptr;
}

void kb_aligned_free(void *ptr) {
    free(ptr);
}
