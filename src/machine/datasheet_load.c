/* Loading the datasheet: the built-in table, or the file KB_DATASHEET names. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "kbench/datasheet.h"
#include "machine/datasheet_builtin.h"

const char *kb_datasheet_builtin(size_t *length) {
    if (length)
        *length = kb_datasheet_csv_size;
    return kb_datasheet_csv;
}

/* A datasheet file is a few kilobytes; anything past a megabyte is not one. */
#define KB_DATASHEET_MAX_BYTES (1 << 20)

static kb_status read_file(const char *path, kb_datasheet *out) {
    FILE *f = fopen(path, "rb");
    if (!f)
        return kb_fail(KB_EIO, "cannot read KB_DATASHEET=%s: %s", path, strerror(errno));
    char *text = malloc(KB_DATASHEET_MAX_BYTES + 1);
    if (!text) {
        fclose(f);
        return kb_fail(KB_ENOMEM, "out of memory reading %s", path);
    }
    size_t n = fread(text, 1, KB_DATASHEET_MAX_BYTES + 1, f);
    bool error = ferror(f);
    fclose(f);
    kb_status st;
    if (error)
        st = kb_fail(KB_EIO, "cannot read KB_DATASHEET=%s", path);
    else if (n > KB_DATASHEET_MAX_BYTES)
        st = kb_fail(KB_EFORMAT, "KB_DATASHEET=%s is larger than %d bytes", path,
                     KB_DATASHEET_MAX_BYTES);
    else
        st = kb_datasheet_parse(text, n, path, out);
    free(text);
    return st;
}

kb_status kb_datasheet_load(kb_datasheet *out) {
    const char *path = getenv("KB_DATASHEET");
    if (path && *path)
        return read_file(path, out);
    return kb_datasheet_parse(kb_datasheet_csv, kb_datasheet_csv_size, "datasheet.csv (built in)",
                              out);
}
