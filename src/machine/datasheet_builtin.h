#ifndef KB_MACHINE_DATASHEET_BUILTIN_H
#define KB_MACHINE_DATASHEET_BUILTIN_H

#include <stddef.h>

/* data/datasheet.csv, byte for byte, generated at build time by cmake/embed_file.cmake. */
extern const char kb_datasheet_csv[];
extern const size_t kb_datasheet_csv_size;

#endif
