/* kb_peaks_get: this machine's peaks, from the cache when it holds good ones, else measured. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "kbench/peaks.h"
#include "kbench/threads.h"
#include "machine/peaks/peaks_threads.h"

static void warn(kb_peaks_source *src, const char *what) {
    size_t used = strlen(src->cache_warning);
    snprintf(src->cache_warning + used, sizeof src->cache_warning - used, "%s%s: %s",
             used ? "; " : "", what, kb_last_error());
}

/* Peaks measured while other work held the cores are too low, and every later result would be
 * held against them: such peaks stand only until the machine is quieter than it was then. */
static bool quieter_now(const kb_peaks *cached, int cores) {
    double load[1];
    if (cached->load_average < 0 || cached->load_average <= 0.5 * cores || getloadavg(load, 1) != 1)
        return false;
    return load[0] < cached->load_average - 0.5;
}

/* True, with *out and *src filled, when the cache of the given kind (quick or full) holds
 * peaks that still stand. */
static bool reuse_cached(const kb_machine *m, const kb_peaks_options *o, bool quick, kb_peaks *out,
                         kb_peaks_source *src) {
    memset(src, 0, sizeof *src);
    bool found = false;
    if (kb_peaks_cache_key(m, o->threads, quick, src->cache_key, (int)sizeof src->cache_key) !=
            KB_OK ||
        kb_peaks_cache_path(src->cache_key, src->cache_path, (int)sizeof src->cache_path) !=
            KB_OK ||
        kb_peaks_cache_read(src->cache_path, src->cache_key, out, &found) != KB_OK || !found ||
        quieter_now(out, kb_usable_cores()))
        return false;
    src->reused = true;
    return true;
}

kb_status kb_peaks_get(const kb_peaks_options *options, bool refresh, kb_peaks *out,
                       kb_peaks_source *src) {
    memset(src, 0, sizeof *src);
    kb_peaks_options o = options ? *options : (kb_peaks_options){0};
    /* The key names the count actually measured. */
    kb_status st = kb_peaks_threads(o.threads, &o.threads);
    if (st != KB_OK)
        return st;

    kb_machine m;
    kb_machine_probe(&m);
    /* A --quick request takes cached full peaks when there are any: better numbers, no wait. */
    if (o.quick && !refresh && reuse_cached(&m, &o, false, out, src))
        return KB_OK;
    memset(src, 0, sizeof *src);
    bool cache =
        kb_peaks_cache_key(&m, o.threads, o.quick, src->cache_key, (int)sizeof src->cache_key) ==
            KB_OK &&
        kb_peaks_cache_path(src->cache_key, src->cache_path, (int)sizeof src->cache_path) == KB_OK;
    if (!cache)
        warn(src, "no cache");

    /* Read even when the peaks are measured again, for the history they add to. */
    kb_peaks *older = malloc(sizeof *older);
    bool found = false;
    if (!older)
        return kb_fail(KB_ENOMEM, "out of memory");
    if (cache && kb_peaks_cache_read(src->cache_path, src->cache_key, older, &found) != KB_OK)
        warn(src, "ignoring the cache");
    if (found && !refresh && !quieter_now(older, kb_usable_cores())) {
        *out = *older;
        free(older);
        src->reused = true;
        return KB_OK;
    }
    st = kb_peaks_measure(&o, out);
    if (st == KB_OK && found)
        kb_peaks_keep_history(out, older);
    free(older);
    if (st != KB_OK)
        return st;
    if (cache && kb_peaks_cache_write(src->cache_path, src->cache_key, out) != KB_OK)
        warn(src, "not cached");
    return KB_OK;
}
