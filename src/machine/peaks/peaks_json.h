#ifndef KB_MACHINE_PEAKS_PEAKS_JSON_H
#define KB_MACHINE_PEAKS_PEAKS_JSON_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "kbench/peaks.h"

/* The peaks as a jansson value, for the cache file, which wraps it with its key; NULL when out
 * of memory. And back: KB_EFORMAT, with the reason, when root is not such an object. */
json_t *kb_peaks_json_build(const kb_peaks *peaks);
kb_status kb_peaks_json_read(json_t *root, kb_peaks *out);

#endif
