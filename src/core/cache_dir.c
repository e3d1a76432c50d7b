/* Where kbench keeps its per-machine caches (core/cache_dir.h). */
#include "core/cache_dir.h"

#include <stdio.h>
#include <stdlib.h>

#include "core/internal.h"

kb_status kb_cache_dir(char *dir, size_t size) {
    const char *d = getenv("KB_CACHE_DIR");
    int n;
    if (d && *d) {
        n = snprintf(dir, size, "%s", d);
    } else if ((d = getenv("XDG_CACHE_HOME")) && d[0] == '/') {
        n = snprintf(dir, size, "%s/kbench", d);
    } else if ((d = getenv("HOME")) && *d) {
        n = snprintf(dir, size, "%s/.cache/kbench", d);
    } else {
        return kb_fail(KB_EUNSUPPORTED, "no cache directory: set KB_CACHE_DIR or HOME");
    }
    if (n < 0 || (size_t)n >= size)
        return kb_fail(KB_EINVAL, "cache directory path is too long");
    return KB_OK;
}
