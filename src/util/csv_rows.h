#ifndef KB_UTIL_CSV_ROWS_H
#define KB_UTIL_CSV_ROWS_H

#include <stddef.h>

#include "kbench/error.h"
#include "util/csv_table.h"

/* A CSV table of data/ read whole into an array of rows, each named by a unique id in its
 * first column: the datasheet of CPUs and the GPU table. What differs between tables, the
 * other columns, is their parse function's. */
typedef struct kb_csv_rows {
    const char *const *columns; /* the header's names, in order; the first is the id */
    int ncolumns;
    size_t row_size;  /* bytes of one row */
    size_t id_offset; /* where a row keeps its id: a char array of id_size bytes */
    size_t id_size;
    /* Fills the rest of a row (zeroed, id read) from the reader's current record; fails with
     * kb_csv_fail. */
    kb_status (*parse)(const kb_csv_reader *r, void *row);
} kb_csv_rows;

/* The kb_csv_rows of rows of type TYPE whose id is a char array member named id. */
#define KB_CSV_ROWS(TYPE, columns, ncolumns, parse)                                                \
    { (columns), (ncolumns), sizeof(TYPE), offsetof(TYPE, id), sizeof(((TYPE *)0)->id), (parse) }

/* Reads text (length bytes, named name in messages) into a malloc'ed array of rows: *rows (the
 * address of the caller's row pointer) and *count. Each row's id is required and of a-z 0-9
 * . _ - only; then spec->parse reads the row; then the id must not repeat an earlier row's.
 * Errors as kb_csv_next's and the parse function's; on failure *rows is NULL and *count 0. */
kb_status kb_csv_read_rows(const char *text, size_t length, const char *name,
                           const kb_csv_rows *spec, void *rows, int *count);

/* Frees the rows kb_csv_read_rows read (*rows, the address of the caller's row pointer) and
 * leaves no rows. */
void kb_csv_free_rows(void *rows, int *count);

#endif
