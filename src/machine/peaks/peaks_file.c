#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "core/internal.h"
#include "kbench/peaks.h"
#include "machine/peaks/peaks_json.h"

kb_status kb_peaks_load(const char *path, kb_peaks *out) {
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "r");
    if (!f)
        return kb_fail(KB_EIO, "cannot read %s: %s", path, strerror(errno));
    json_error_t e;
    json_t *root = json_loadf(f, JSON_REJECT_DUPLICATES, &e);
    fclose(f);
    if (!root)
        return kb_fail(KB_EFORMAT, "%s: line %d: %s", path, e.line, e.text);
    /* `kbench peaks --json` and the cache file hold the peaks under "peaks". */
    json_t *peaks = json_object_get(root, "peaks");
    kb_status st = kb_peaks_json_read(json_is_object(peaks) ? peaks : root, out);
    if (st != KB_OK) {
        char reason[512];
        snprintf(reason, sizeof reason, "%s", kb_last_error());
        kb_fail(st, "%s: %s", path, reason);
    }
    json_decref(root);
    return st;
}
