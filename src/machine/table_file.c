/* The data tables that KB_DATASHEET and KB_GPUS name read whole, with one wording of errors. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "machine/table_file.h"

kb_status kb_table_file_read(const char *variable, const char *path, char **text, size_t *length) {
    *text = NULL;
    *length = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return kb_fail(KB_EIO, "cannot read %s=%s: %s", variable, path, strerror(errno));
    char *buf = malloc(KB_TABLE_FILE_MAX_BYTES + 1);
    if (!buf) {
        fclose(f);
        return kb_fail(KB_ENOMEM, "out of memory reading %s", path);
    }
    size_t n = fread(buf, 1, KB_TABLE_FILE_MAX_BYTES + 1, f);
    bool error = ferror(f);
    fclose(f);
    kb_status st = KB_OK;
    if (error)
        st = kb_fail(KB_EIO, "cannot read %s=%s", variable, path);
    else if (n > KB_TABLE_FILE_MAX_BYTES)
        st = kb_fail(KB_EFORMAT, "%s=%s is larger than %d bytes", variable, path,
                     KB_TABLE_FILE_MAX_BYTES);
    if (st != KB_OK) {
        free(buf);
        return st;
    }
    buf[n] = '\0';
    *text = buf;
    *length = n;
    return KB_OK;
}
