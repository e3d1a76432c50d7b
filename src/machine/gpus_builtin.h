#ifndef KB_MACHINE_GPUS_BUILTIN_H
#define KB_MACHINE_GPUS_BUILTIN_H

#include <stddef.h>

/* data/gpus.csv, byte for byte, generated at build time by cmake/embed_file.cmake. */
extern const char kb_gpus_csv[];
extern const size_t kb_gpus_csv_size;

#endif
