#ifndef KB_UTIL_JSON_DUMP_H
#define KB_UTIL_JSON_DUMP_H

#include <stddef.h>

#include <jansson.h>

/* How kbench writes JSON, with the layout (JSON_INDENT(2), JSON_COMPACT) added. What is read
 * back (results, peaks, compare) keeps every double exactly; what people read (kbench info
 * --json, kbench peaks --json) rounds reals to 7 significant digits first. Either way each real
 * is then written in its shortest form (kb_json_shortest_reals). Both are ASCII only, so that
 * no reader trips over an encoding. */
#define KB_JSON_EXACT (JSON_ENSURE_ASCII | JSON_REAL_PRECISION(17))
#define KB_JSON_DISPLAY (JSON_ENSURE_ASCII | JSON_REAL_PRECISION(7))

/* A real, or null for NAN and infinities (JSON has neither); NULL when out of memory. */
json_t *kb_json_real(double v);

/* value as text, as json_dumps writes it with flags but with every real in its shortest form;
 * every JSON kbench writes goes through here. The caller frees it. NULL, failing with
 * KB_ENOMEM, when out of memory. */
char *kb_json_dumps(const json_t *value, size_t flags);

/* A copy of the JSON text with each real (a number with '.', 'e' or 'E'; integers are left
 * alone) written in the fewest significant digits that read back as the same double, laid out
 * as Python's repr lays it out: positional from 1e-4 up to 1e16, with a digit after the point
 * ("0.05", "2.0", "0.0001"), else with an exponent ("1e-05", "1e+16", "5e-324"), so that a real
 * stays a real. jansson's 17 digits print 0.05 as 0.050000000000000003. Strings are copied as
 * they are, escapes included, and so is a number that does not read as a finite double: no
 * "inf" or "nan" is ever written. The caller frees the copy; NULL, failing with KB_ENOMEM,
 * when out of memory. */
char *kb_json_shortest_reals(const char *text);

#endif
