#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "core/internal.h"
#include "kbench/peaks.h"
#include "machine/peaks/peaks_json.h"
#include "util/internal.h"

kb_status kb_peaks_load(const char *path, kb_peaks *out) {
    memset(out, 0, sizeof *out);
    json_t *root;
    kb_status st = kb_json_load_file(path, false, &root);
    if (st != KB_OK)
        return st;
    /* `kbench peaks --json` and the cache file hold the peaks under "peaks". */
    json_t *peaks = json_object_get(root, "peaks");
    st = kb_peaks_json_read(json_is_object(peaks) ? peaks : root, out);
    if (st != KB_OK) {
        char reason[512];
        snprintf(reason, sizeof reason, "%s", kb_last_error());
        kb_fail(st, "%s: %s", path, reason);
    }
    json_decref(root);
    return st;
}
