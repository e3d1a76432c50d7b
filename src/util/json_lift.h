#ifndef KB_UTIL_JSON_LIFT_H
#define KB_UTIL_JSON_LIFT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kbench/error.h"

/* Arrays of arrays of integers taken out of JSON text before jansson parses it. A results
 * file's raw samples are most of its numbers: jansson would make a json_t of each (a malloc,
 * then a free), which was most of what reading a large file cost (docs/history.md, "Scale").
 *
 * kb_json_lift_rows finds, in the root object's member ARRAY (an array), each element's member
 * MEMBER whose value is an array of arrays of non-negative integer literals that fit in an
 * int64 (plain digits: no sign, fraction or exponent), parses it, and overwrites its bytes in
 * the text with an empty array "[ ... ]" of the same length and lines, so that jansson's
 * messages keep their line and column. Anything else (a negative number, a real, a string, a
 * malformed value, an escaped key) is left in the text as it was, for the reader's own checks
 * and messages: the lifting changes nothing but the cost of the values it takes. */

typedef struct kb_int_rows {
    bool lifted;          /* false: the element's member was left in the text */
    int64_t *values;      /* the rows one after another */
    int64_t *row_lengths; /* nrows */
    int64_t nvalues, nrows;
} kb_int_rows;

typedef struct kb_json_lifted {
    kb_int_rows *items; /* by index of the element in ARRAY; count of them */
    size_t count;
} kb_json_lifted;

/* Lifts the rows out of text (length bytes, changed in place) into *out (zeroed first; free
 * it with kb_json_lifted_free, also after a failure). KB_ENOMEM only: text that is not JSON is
 * left for the parser to refuse. */
kb_status kb_json_lift_rows(char *text, size_t length, const char *array, const char *member,
                            kb_json_lifted *out);

/* The rows of element i, NULL when none were lifted. */
const kb_int_rows *kb_json_lifted_item(const kb_json_lifted *lifted, size_t i);

void kb_json_lifted_free(kb_json_lifted *lifted);

#endif
