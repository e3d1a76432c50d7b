/* Runs as the store keeps them: the kind of file told apart, the machine's and the build's
 * fingerprints, the cases in name order. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "history/run.h"
#include "util/internal.h"

kb_status kb_hrun_from_json(const json_t *root, kb_json_lifted *samples, const char *label,
                            kb_hrun *out) {
    memset(out, 0, sizeof *out);
    kb_status st = kb_gbench_detect(root) ? kb_hrun_from_gbench(root, label, out)
                                          : kb_hrun_from_results(root, samples, label, out);
    if (st == KB_OK)
        st = kb_hrun_sort_cases(out, label);
    if (st != KB_OK)
        kb_hrun_free(out);
    return st;
}

/* The facts of one side (machine or build) as a JSON object, its fingerprint (FNV-1a of
 * "what=value" lines, in order) and a description ("what: value; ..."). */
static kb_status side(const kb_compare_input *in, bool build, const char *extra, char **facts,
                      char fingerprint[17], char *description, size_t size) {
    json_t *o = json_object();
    uint64_t h = KB_FNV1A_OFFSET;
    size_t used = 0;
    description[0] = '\0';
    for (int i = 0; i < in->nfacts + (extra ? 1 : 0) && o; i++) {
        const char *what = i < in->nfacts ? in->facts[i].what : "SIMD compiled";
        const char *value = i < in->nfacts ? in->facts[i].value : extra;
        if (i < in->nfacts && in->facts[i].build != build)
            continue;
        h = kb_fnv1a_bytes(h, what, strlen(what));
        h = kb_fnv1a_bytes(h, "=", 1);
        h = kb_fnv1a_bytes(h, value, strlen(value));
        h = kb_fnv1a_bytes(h, "\n", 1);
        if (json_object_set_new(o, what, json_string(value)) != 0) {
            json_decref(o);
            o = NULL;
        }
        int n =
            snprintf(description + used, size - used, "%s%s: %s", used ? "; " : "", what, value);
        used = n > 0 && (size_t)n < size - used ? used + (size_t)n : used;
    }
    snprintf(fingerprint, 17, "%016llx", (unsigned long long)h);
    *facts = o ? kb_json_dumps(o, JSON_COMPACT) : NULL;
    json_decref(o);
    return *facts ? KB_OK : kb_fail(KB_ENOMEM, "out of memory");
}

kb_status kb_hrun_fingerprints(kb_hrun *run, const kb_compare_input *in, const char *extra_build) {
    kb_status st = side(in, false, NULL, &run->machine_facts, run->machine,
                        run->machine_description, sizeof run->machine_description);
    if (st == KB_OK)
        st = side(in, true, extra_build, &run->build_facts, run->build, run->build_description,
                  sizeof run->build_description);
    return st;
}

static int by_name(const void *a, const void *b) {
    return strcmp(((const kb_hcase *)a)->name, ((const kb_hcase *)b)->name);
}

kb_status kb_hrun_sort_cases(kb_hrun *run, const char *label) {
    /* In one order for every writer, so that concurrent ingests take the series' keys in the
     * same order and never wait for each other in a circle. */
    qsort(run->cases, (size_t)run->ncases, sizeof *run->cases, by_name);
    for (int i = 1; i < run->ncases; i++)
        if (strcmp(run->cases[i - 1].name, run->cases[i].name) == 0)
            return kb_fail(KB_EFORMAT, "%s: case '%s' appears twice", label, run->cases[i].name);
    return KB_OK;
}

void kb_hrun_free(kb_hrun *run) {
    free(run->machine_facts);
    free(run->build_facts);
    free(run->settings);
    free(run->cases);
    kb_results_free(&run->results);
    kb_compare_input_free(&run->input);
    memset(run, 0, sizeof *run);
}
