#ifndef KB_RESULTS_UNITS_H
#define KB_RESULTS_UNITS_H

#include <stddef.h>

/* A number with three significant digits and no exponent: "0.512", "1.50", "12.3", "123",
 * "1234" (larger numbers keep all their integer digits); "-" for 0 or less. */
void kb_format_3(char *buf, size_t size, double v);

#endif
