/* Small files of /proc, /sys and /etc, read under a root that tests can substitute. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "machine/probe/sysfile.h"

bool kb_sysfile_path(const char *root, const char *path, char *buf, size_t size) {
    int n = snprintf(buf, size, "%s%s", root ? root : "", path);
    return n >= 0 && (size_t)n < size;
}

bool kb_sysfile_read(const char *root, const char *path, char *buf, size_t size) {
    if (size == 0)
        return false;
    buf[0] = '\0';
    char full[4096];
    if (!kb_sysfile_path(root, path, full, sizeof full))
        return false;
    FILE *f = fopen(full, "r");
    if (!f)
        return false;
    size_t n = fread(buf, 1, size - 1, f);
    bool ok = !ferror(f);
    fclose(f);
    if (!ok) {
        buf[0] = '\0';
        return false;
    }
    buf[n] = '\0';
    while (n > 0 && strchr(" \t\r\n", buf[n - 1]))
        buf[--n] = '\0';
    return true;
}

bool kb_sysfile_int64(const char *root, const char *path, int64_t *out) {
    char text[64];
    if (!kb_sysfile_read(root, path, text, sizeof text) || text[0] == '\0')
        return false;
    errno = 0;
    char *end;
    long long v = strtoll(text, &end, 10);
    if (errno || end == text || *end != '\0')
        return false;
    *out = v;
    return true;
}
