#ifndef KB_UTIL_JSON_TEXT_H
#define KB_UTIL_JSON_TEXT_H

#include <stdint.h>

#include <jansson.h>

/* A JSON string of text from the system or a user (a hostname, a kernel version, an
 * environment variable), which need not be valid UTF-8: jansson refuses invalid UTF-8, so such
 * text is kept with its non-ASCII bytes replaced by '?' rather than dropped. NULL when out of
 * memory. */
json_t *kb_json_text(const char *s);

/* JSON has no "unknown" number: a value a machine does not report (0 or less) is null. */
json_t *kb_json_positive(double v);
json_t *kb_json_count(int64_t v);

#endif
