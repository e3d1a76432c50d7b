/* FNV-1a, the one string and content hash of kbench. */
#include <string.h>

#include "util/hash.h"

uint64_t kb_fnv1a_bytes(uint64_t h, const void *data, size_t n) {
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

uint64_t kb_fnv1a(const char *s) {
    return kb_fnv1a_bytes(KB_FNV1A_OFFSET, s, strlen(s));
}
