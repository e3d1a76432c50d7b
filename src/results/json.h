#ifndef KB_RESULTS_JSON_H
#define KB_RESULTS_JSON_H

#include <jansson.h>

#include "kbench/results.h"

/* The results file as a JSON value (docs/results-schema.md); NULL when out of memory. */
json_t *kb_results_to_json(const kb_results *results);

/* A roofline's flags as an array of their names ("impossible", ...). */
json_t *kb_roofline_flags_json(const kb_roofline *f);

/* The reverse, with validation; label names the source in messages. */
kb_status kb_results_from_json(const json_t *root, const char *label, kb_results *out);

#endif
