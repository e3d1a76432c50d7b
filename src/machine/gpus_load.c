/* Loading the GPU datasheet: the built-in table, or the file KB_GPUS names. */
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
    return kb_table_load("KB_GPUS", kb_gpus_csv, kb_gpus_csv_size, "gpus.csv (built in)",
                         &kb_gpus_rows, &out->rows, &out->count);
}
