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
    json_t *body = json_is_object(peaks) ? peaks : root;
    /* Another kind of file is named as such, not by the first key the reader misses. */
    const char *format = json_string_value(json_object_get(body, "format"));
    if (!format || strncmp(format, "kbench-peaks/", 13) != 0)
        return kb_fail(KB_EFORMAT,
                       "%s: not a kbench peaks file (no \"format\": \"kbench-peaks/...\"; "
                       "'kbench peaks --json' writes one)",
                       label);
    kb_status st = kb_peaks_json_read(body, out);
    return st == KB_OK ? KB_OK : kb_fail_prefix(st, label);
}

kb_status kb_peaks_load(const char *path, kb_peaks *out) {
    memset(out, 0, sizeof *out);
    return kb_json_read_file(path, false, read_peaks, out);
}
