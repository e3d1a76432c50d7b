/* Directories made with their parents, for the files kbench keeps (peaks cache, history). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "core/internal.h"
#include "util/make_dirs.h"

kb_status kb_make_dirs(const char *path) {
    char dir[4096];
    if (snprintf(dir, sizeof dir, "%s", path) >= (int)sizeof dir)
        return kb_fail(KB_EINVAL, "directory path is too long: %.64s...", path);
    for (char *p = dir + 1;; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char c = *p;
        *p = '\0';
        if (mkdir(dir, 0755) != 0 && errno != EEXIST)
            return kb_fail(KB_EIO, "cannot create %s: %s", dir, strerror(errno));
        *p = c;
        if (c == '\0')
            return KB_OK;
    }
}
