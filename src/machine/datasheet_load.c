/* Loading the datasheet: the built-in table, or the file KB_DATASHEET names. */
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
    return kb_table_load("KB_DATASHEET", kb_datasheet_csv, kb_datasheet_csv_size,
                         "datasheet.csv (built in)", &kb_datasheet_rows, &out->rows, &out->count);
}
