/* A CSV table of rows named by unique ids, read whole: the loop every table of data/ shares. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "util/csv_rows.h"

/* Room for one more row of size bytes in the array *rows points to (count rows used, *capacity
 * allocated), growing it by doubling; KB_ENOMEM leaves it as it was. */
static kb_status reserve(const kb_csv_reader *r, char **rows, int count, int *capacity,
                         size_t size) {
    if (count < *capacity)
        return KB_OK;
    int grown = *capacity ? 2 * *capacity : 16;
    char *bigger = realloc(*rows, (size_t)grown * size);
    if (!bigger)
        return kb_fail(KB_ENOMEM, "out of memory reading %s", r->name);
    *rows = bigger;
    *capacity = grown;
    return KB_OK;
}

static kb_status read_id(const kb_csv_reader *r, char *id, size_t size) {
    kb_status st = kb_csv_text(r, 0, id, size, true);
    if (st != KB_OK)
        return st;
    for (const char *c = id; *c; c++)
        if (!(islower((unsigned char)*c) || isdigit((unsigned char)*c) || strchr("._-", *c)))
            return kb_csv_fail(r, "column %s: '%s' has characters other than a-z 0-9 . _ -",
                               r->columns[0], id);
    return KB_OK;
}

static kb_status read_all(kb_csv_reader *r, const kb_csv_rows *spec, char **rows, int *count) {
    int capacity = 0;
    bool more;
    kb_status st;
    while ((st = kb_csv_next(r, &more)) == KB_OK && more) {
        if ((st = reserve(r, rows, *count, &capacity, spec->row_size)) != KB_OK)
            return st;
        char *row = *rows + (size_t)*count * spec->row_size;
        char *id = row + spec->id_offset;
        memset(row, 0, spec->row_size);
        if ((st = read_id(r, id, spec->id_size)) != KB_OK || (st = spec->parse(r, row)) != KB_OK)
            return st;
        for (int i = 0; i < *count; i++)
            if (strcmp(*rows + (size_t)i * spec->row_size + spec->id_offset, id) == 0)
                return kb_csv_fail(r, "id '%s' repeats the row of an earlier line", id);
        (*count)++;
    }
    return st;
}

kb_status kb_csv_read_rows(const char *text, size_t length, const char *name,
                           const kb_csv_rows *spec, void *rows, int *count) {
    char *array = NULL;
    *count = 0;
    kb_csv_reader r;
    kb_status st = kb_csv_open(&r, text, length, name, spec->columns, spec->ncolumns);
    if (st == KB_OK)
        st = read_all(&r, spec, &array, count);
    kb_csv_close(&r);
    if (st != KB_OK) {
        free(array);
        array = NULL;
        *count = 0;
    }
    memcpy(rows, &array, sizeof array);
    return st;
}

void kb_csv_free_rows(void *rows, int *count) {
    void *array;
    memcpy(&array, rows, sizeof array);
    free(array);
    array = NULL;
    memcpy(rows, &array, sizeof array);
    *count = 0;
}
