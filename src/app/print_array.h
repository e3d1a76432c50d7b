#ifndef KB_APP_PRINT_ARRAY_H
#define KB_APP_PRINT_ARRAY_H

#include <stdio.h>

#include "kbench/array.h"

/* Writes the array as NumPy's str() does, followed by a newline: "3.5" for a 0-d array,
 * "[1.5 2.5 3.5]", nested brackets for more dimensions, lines wrapped at 75 columns, and
 * arrays of more than 1000 elements summarized to their first and last 3 entries along each
 * axis with "...". */
kb_status kb_print_array(FILE *out, const kb_array *array);

#endif
