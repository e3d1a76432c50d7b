/* Loading the GPU datasheet: the built-in table, or the file KB_GPUS names. */
#include <stdlib.h>

#include "core/internal.h"
#include "kbench/gpus.h"
#include "machine/gpus_builtin.h"
#include "machine/table_file.h"

const char *kb_gpus_builtin(size_t *length) {
    if (length)
        *length = kb_gpus_csv_size;
    return kb_gpus_csv;
}

kb_status kb_gpus_load(kb_gpus *out) {
    out->rows = NULL;
    out->count = 0;
    const char *path = getenv("KB_GPUS");
    if (path && *path) {
        char *text;
        size_t length;
        kb_status st = kb_table_file_read("KB_GPUS", path, &text, &length);
        if (st == KB_OK)
            st = kb_gpus_parse(text, length, path, out);
        free(text);
        return st;
    }
    return kb_gpus_parse(kb_gpus_csv, kb_gpus_csv_size, "gpus.csv (built in)", out);
}
