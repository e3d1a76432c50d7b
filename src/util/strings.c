/* String copies for every layer: on the heap, failing with kb_fail, or into a fixed buffer. */
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "util/strings.h"

char *kb_strdup(const char *s) {
    size_t n = strlen(s) + 1;
    char *copy = malloc(n);
    if (!copy) {
        kb_fail(KB_ENOMEM, "out of memory");
        return NULL;
    }
    return memcpy(copy, s, n);
}

void kb_copy_string(char *dst, size_t size, const char *src) {
    if (size == 0)
        return;
    size_t n = strlen(src);
    if (n >= size)
        n = size - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}
