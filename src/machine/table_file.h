#ifndef KB_MACHINE_TABLE_FILE_H
#define KB_MACHINE_TABLE_FILE_H

#include <stddef.h>

#include "kbench/error.h"

/* A table file is a few kilobytes; anything past a megabyte is not one. */
#define KB_TABLE_FILE_MAX_BYTES (1 << 20)

/* Reads the data table a variable names (KB_DATASHEET=FILE, KB_GPUS=FILE) whole into *text
 * (for the caller to free; NUL-terminated) and its length. KB_EIO "cannot read
 * VARIABLE=PATH: REASON", KB_EFORMAT for a file above KB_TABLE_FILE_MAX_BYTES, KB_ENOMEM. */
kb_status kb_table_file_read(const char *variable, const char *path, char **text, size_t *length);

#endif
