#ifndef KB_UTIL_CSV_FIELD_H
#define KB_UTIL_CSV_FIELD_H

#include <stdbool.h>
#include <stdio.h>

/* Writes one CSV field as RFC 4180 has it: quoted when it holds a comma, a quote or a line
 * break, its quotes doubled; then ',' or, for the last field of a record, a newline. */
void kb_csv_field(FILE *out, const char *s, bool last);

#endif
