/* The data tables: the file KB_DATASHEET or KB_GPUS names, read whole with one wording of
 * errors, or the one built in. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "machine/table_file.h"

/* A table file is a few kilobytes; anything past a megabyte is not one. */
#define KB_TABLE_FILE_MAX_BYTES (1 << 20)

static kb_status read_file(const char *variable, const char *path, char **text, size_t *length) {
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

kb_status kb_table_load(const char *variable, const char *builtin, size_t builtin_length,
                        const char *builtin_name, const kb_csv_rows *spec, void *rows, int *count) {
    const char *path = getenv(variable);
    if (!path || !*path)
        return kb_csv_read_rows(builtin, builtin_length, builtin_name, spec, rows, count);
    char *text;
    size_t length;
    kb_status st = read_file(variable, path, &text, &length);
    if (st == KB_OK) {
        st = kb_csv_read_rows(text, length, path, spec, rows, count);
        free(text);
    } else {
        void *none = NULL;
        memcpy(rows, &none, sizeof none);
        *count = 0;
    }
    return st;
}
