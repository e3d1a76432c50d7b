#ifndef KB_RESULTS_JSON_H
#define KB_RESULTS_JSON_H

#include <jansson.h>

#include "kbench/results.h"
#include "util/internal.h"

/* The results file as a JSON value (docs/results-schema.md); NULL when out of memory. */
json_t *kb_results_to_json(const kb_results *results);

/* A roofline's flags as an array of their names ("impossible", ...). */
json_t *kb_roofline_flags_json(const kb_roofline *f);

/* The reverse, with validation; label names the source in messages. */
kb_status kb_results_from_json(const json_t *root, const char *label, kb_results *out);

/* The same for a document whose cases' samples were lifted out of its text before it was
 * parsed (kb_json_lift_rows(text, length, "cases", "samples_ns", samples)): a case whose
 * samples were lifted takes them from samples (they move into out); the others, and every case
 * when samples is NULL, read theirs from root. */
kb_status kb_results_from_json_lifted(const json_t *root, kb_json_lifted *samples,
                                      const char *label, kb_results *out);

/* Parses a results file's text, its samples lifted out first (text is changed in place), and
 * hands the document and the samples to read (kb_results_from_json_lifted reads them): as
 * kb_json_read_text, at a fraction of the cost for the samples. */
typedef kb_status (*kb_results_text_reader)(json_t *root, kb_json_lifted *samples,
                                            const char *label, void *out);
kb_status kb_results_read_text(char *text, size_t length, const char *label,
                               kb_results_text_reader read, void *out);

#endif
