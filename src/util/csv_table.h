#ifndef KB_UTIL_CSV_TABLE_H
#define KB_UTIL_CSV_TABLE_H

#include <stdbool.h>
#include <stddef.h>

#include "kbench/error.h"

/* The CSV tables kbench carries as data (data/datasheet.csv, data/gpus.csv), read one record
 * at a time: lines starting with # and blank lines are skipped, the first other line must
 * name the table's columns in order, fields are separated by commas and may be "quoted" (""
 * is a quote), and spaces around a field are not part of it. Every failure is KB_EFORMAT
 * "NAME line N: what is wrong", or KB_ENOMEM. */

/* A field is at most a line long; lines longer than this are malformed anyway. */
#define KB_CSV_FIELD_SIZE 512

typedef struct kb_csv_reader {
    const char *text;
    size_t length, pos;
    const char *name; /* the table in messages: "datasheet.csv" */
    int line;
    const char *const *columns;
    int ncolumns;
    bool header;                       /* the header line has been read */
    char (*fields)[KB_CSV_FIELD_SIZE]; /* the current record's fields, one per column */
} kb_csv_reader;

/* Starts reading text (length bytes, NUL bytes refused) whose header must name columns. */
kb_status kb_csv_open(kb_csv_reader *r, const char *text, size_t length, const char *name,
                      const char *const *columns, int ncolumns);

/* The next record into r->fields (*more true), or the end of the table (*more false; a
 * table without a header line is an error). */
kb_status kb_csv_next(kb_csv_reader *r, bool *more);

void kb_csv_close(kb_csv_reader *r);

/* Fails with "NAME line N: message" for the current line. */
kb_status kb_csv_fail(const kb_csv_reader *r, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

/* A whole number in decimal or 0x hex within [min, max]; empty gives missing. Decimal even
 * with leading zeros, and no sign or spaces. col names the column in messages. */
kb_status kb_csv_whole(const kb_csv_reader *r, int col, const char *text, long min, long max,
                       long missing, long *out);

/* A number within [min, max]; empty gives 0 (unknown). */
kb_status kb_csv_number(const kb_csv_reader *r, int col, double min, double max, double *out);

/* Column col's text into out of size bytes; required refuses an empty field. */
kb_status kb_csv_text(const kb_csv_reader *r, int col, char *out, size_t size, bool required);

#endif
