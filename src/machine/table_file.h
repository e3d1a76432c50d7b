#ifndef KB_MACHINE_TABLE_FILE_H
#define KB_MACHINE_TABLE_FILE_H

#include <stddef.h>

#include "kbench/error.h"
#include "util/internal.h"

/* How the rows of the CPU datasheet (datasheet.c) and of the GPU table (gpus.c) are read. */
extern const kb_csv_rows kb_datasheet_rows;
extern const kb_csv_rows kb_gpus_rows;

/* The table in force: the file the variable names (KB_DATASHEET=FILE, KB_GPUS=FILE) when it
 * is set and not empty, read whole, else the built-in text, named builtin_name; its rows read
 * by kb_csv_read_rows into *rows and *count (none on failure). KB_EIO "cannot read
 * VARIABLE=PATH: REASON", KB_EFORMAT for a file above a megabyte (a table is a few kilobytes),
 * KB_ENOMEM, or kb_csv_read_rows's error. */
kb_status kb_table_load(const char *variable, const char *builtin, size_t builtin_length,
                        const char *builtin_name, const kb_csv_rows *spec, void *rows, int *count);

#endif
