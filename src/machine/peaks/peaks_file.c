/* kb_peaks_load: peaks from a file a user names. */
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "core/internal.h"
#include "kbench/peaks.h"
#include "machine/peaks/peaks_json.h"
#include "util/internal.h"

static kb_status read_peaks(json_t *root, const char *label, void *out) {
    /* `kbench peaks --json` and the cache file hold the peaks under "peaks". */
    json_t *peaks = json_object_get(root, "peaks");
    kb_status st = kb_peaks_json_read(json_is_object(peaks) ? peaks : root, out);
    return st == KB_OK ? KB_OK : kb_fail_prefix(st, label);
}

kb_status kb_peaks_load(const char *path, kb_peaks *out) {
    memset(out, 0, sizeof *out);
    return kb_json_read_file(path, false, read_peaks, out);
}
