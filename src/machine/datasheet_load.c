/* Loading the datasheet: the built-in table, or the file KB_DATASHEET names. */
#include <stdlib.h>

#include "core/internal.h"
#include "kbench/datasheet.h"
#include "machine/datasheet_builtin.h"
#include "machine/table_file.h"

const char *kb_datasheet_builtin(size_t *length) {
    if (length)
        *length = kb_datasheet_csv_size;
    return kb_datasheet_csv;
}

kb_status kb_datasheet_load(kb_datasheet *out) {
    const char *path = getenv("KB_DATASHEET");
    if (path && *path) {
        char *text;
        size_t length;
        kb_status st = kb_table_file_read("KB_DATASHEET", path, &text, &length);
        if (st == KB_OK)
            st = kb_datasheet_parse(text, length, path, out);
        free(text);
        return st;
    }
    return kb_datasheet_parse(kb_datasheet_csv, kb_datasheet_csv_size, "datasheet.csv (built in)",
                              out);
}
