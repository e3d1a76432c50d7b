/* libFuzzer target for the inputs of `kbench compare`, Google Benchmark JSON above all: any
 * bytes must give either sample sets that are usable as they are (a name, an op, positive
 * finite times, or a failure with its message) or a status with a one-line message; never a
 * crash, a leak or undefined behaviour. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <jansson.h>

#include "kbench/significance.h"
#include "results/compare_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    json_error_t error;
    json_t *root = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, &error);
    if (!root)
        return 0;
    kb_compare_input in;
    if (kb_compare_input_from_json(root, "fuzz", &in) == KB_OK) {
        for (int i = 0; i < in.nsets; i++) {
            const kb_sample_set *s = &in.sets[i];
            if (!s->name || !s->op || (s->failed && (!s->error || s->n != 0)))
                __builtin_trap();
            for (int64_t k = 0; k < s->n; k++)
                if (!(s->ns[k] > 0) || !isfinite(s->ns[k]))
                    __builtin_trap();
            kb_mann_whitney mw;
            if (s->n > 0 && s->n < 4096 &&
                (kb_mann_whitney_test(s->ns, s->n, s->ns, s->n, &mw) != KB_OK || mw.p != 1))
                __builtin_trap();
        }
        kb_compare_input_free(&in);
    } else {
        const char *m = kb_last_error();
        if (m[0] == '\0' || strchr(m, '\n'))
            __builtin_trap();
    }
    json_decref(root);
    return 0;
}
