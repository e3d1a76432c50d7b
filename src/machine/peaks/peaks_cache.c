/* The per-machine cache of measured peaks: its key, its path, reading and writing it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "core/cache_dir.h"
#include "core/internal.h"
#include "kbench/version.h"
#include "machine/peaks/peaks_json.h"
#include "util/internal.h"

#define KB_CACHE_FORMAT "kbench-peaks-cache/1"

/* What the peak kernels measure, counted up when that changes, so that a history kept by
 * kernels that measured something else is set aside rather than mixed in: 2, load reads as one
 * stream and as several and keeps the faster (bandwidth.c). */
#define KB_PEAKS_METHOD 2

kb_status kb_peaks_cache_key(const kb_machine *m, int threads, bool quick, char *key, int size) {
    const kb_build_info *b = kb_build_info_get();
    const kb_cpu_signature *s = &m->signature;
    /* Everything a peak depends on, and nothing that changes between runs on one machine
     * (the hostname would split CI runners that are the same machine type). A sanitized or
     * unoptimized build measures its own, slower kernels. */
    int n = snprintf(key, (size_t)size,
                     "cpu=%s %s;signature=%d,%d,%d,%d;cpus=%d;kernel=%s;kbench=%s;build=%s%s;"
                     "threads=%d;method=%d;measure=%s",
                     m->cpu_vendor, m->cpu_model, s->x86_family, s->x86_model, s->arm_implementer,
                     s->arm_part, m->logical_cpus, m->kernel_release, b->version,
                     b->optimized ? "optimized" : "unoptimized", b->sanitizers ? "+sanitizers" : "",
                     threads, KB_PEAKS_METHOD, quick ? "quick" : "full");
    if (n < 0 || n >= size)
        return kb_fail(KB_EINVAL, "cache key does not fit in %d bytes", size);
    /* ASCII only, so that the key is valid JSON whatever bytes the system's strings hold. */
    for (char *c = key; *c; c++)
        if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
            *c = '?';
    return KB_OK;
}

kb_status kb_peaks_cache_path(const char *key, char *path, int size) {
    char dir[4096];
    kb_status st = kb_cache_dir(dir, sizeof dir);
    if (st != KB_OK)
        return st;
    int n = snprintf(path, (size_t)size, "%s/peaks-%016llx.json", dir,
                     (unsigned long long)kb_fnv1a(key));
    if (n < 0 || n >= size)
        return kb_fail(KB_EINVAL, "cache file path does not fit in %d bytes", size);
    return KB_OK;
}

typedef struct cache_read {
    const char *key;
    kb_peaks *out;
    bool *found;
} cache_read;

static kb_status read_cache(json_t *root, const char *path, void *context) {
    const cache_read *c = context;
    const char *format, *file_key;
    json_t *peaks;
    json_error_t e;
    if (json_unpack_ex(root, &e, JSON_STRICT, "{s:s, s:s, s:o}", "format", &format, "key",
                       &file_key, "peaks", &peaks) != 0)
        return kb_fail(KB_EFORMAT, "%s: not a kbench peaks cache file: %s", path, e.text);
    if (strcmp(format, KB_CACHE_FORMAT) != 0)
        return kb_fail(KB_EFORMAT, "%s: format is '%.40s', not '%s'", path, format,
                       KB_CACHE_FORMAT);
    if (strcmp(file_key, c->key) != 0)
        return KB_OK;
    kb_status st = kb_peaks_json_read(peaks, c->out);
    if (st != KB_OK)
        return kb_fail_prefix(st, path);
    *c->found = true;
    return KB_OK;
}

kb_status kb_peaks_cache_read(const char *path, const char *key, kb_peaks *out, bool *found) {
    memset(out, 0, sizeof *out);
    *found = false;
    cache_read c = {key, out, found};
    return kb_json_read_file(path, true, read_cache, &c);
}

kb_status kb_peaks_cache_write(const char *path, const char *key, const kb_peaks *peaks) {
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash && slash != dir) {
        *slash = '\0';
        kb_status st = kb_make_dirs(dir);
        if (st != KB_OK)
            return st;
    }
    json_t *p = kb_peaks_json_build(peaks);
    json_t *root =
        p ? json_pack("{s:s, s:s, s:o}", "format", KB_CACHE_FORMAT, "key", key, "peaks", p) : NULL;
    if (!root)
        return kb_fail(KB_ENOMEM, "cannot build the peaks cache file");
    kb_status st = kb_json_save_file(path, root, KB_JSON_EXACT | JSON_INDENT(2));
    json_decref(root);
    return st;
}
