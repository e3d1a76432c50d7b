/* The GPU datasheet's lookups: a row by device name or id, and its peaks. */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "kbench/gpus.h"

/* Whether word (n bytes) appears in name, case ignored, not inside a longer run of letters
 * and digits: "L4" is in "NVIDIA L4" but not in "NVIDIA L40S". */
static bool has_word(const char *name, const char *word, size_t n) {
    size_t length = strlen(name);
    for (size_t i = 0; i + n <= length; i++) {
        if (i > 0 && isalnum((unsigned char)name[i - 1]))
            continue;
        if (i + n < length && isalnum((unsigned char)name[i + n]))
            continue;
        if (strncasecmp(name + i, word, n) == 0)
            return true;
    }
    return false;
}

/* The total length of the row's words when it matches name, else 0. */
static size_t score(const kb_gpu_row *r, const char *name) {
    size_t total = 0;
    for (const char *c = r->match; *c;) {
        while (*c == ' ')
            c++;
        bool negative = *c == '!';
        c += negative;
        size_t n = strcspn(c, " ");
        if (n > 0 && has_word(name, c, n) == negative)
            return 0;
        if (!negative)
            total += n;
        c += n;
    }
    return total;
}

const kb_gpu_row *kb_gpus_match(const kb_gpus *g, const char *device_name) {
    const kb_gpu_row *best = NULL;
    size_t best_score = 0;
    for (int i = 0; g && device_name && i < g->count; i++) {
        size_t s = score(&g->rows[i], device_name);
        if (s > best_score) {
            best = &g->rows[i];
            best_score = s;
        }
    }
    return best;
}

const kb_gpu_row *kb_gpus_find(const kb_gpus *g, const char *text) {
    for (int i = 0; g && text && i < g->count; i++)
        if (strcmp(g->rows[i].id, text) == 0)
            return &g->rows[i];
    return kb_gpus_match(g, text);
}

void kb_gpus_ids(const kb_gpus *g, char *buf, size_t size) {
    if (size == 0)
        return;
    buf[0] = '\0';
    size_t used = 0;
    for (int i = 0; g && i < g->count && used < size; i++)
        used += (size_t)snprintf(buf + used, size - used, "%s%s", i ? ", " : "", g->rows[i].id);
}

double kb_gpu_flops(const kb_gpu_row *r, kb_gpu_peak peak, double mhz) {
    if (!r || peak < 0 || peak >= KB_GPU_PEAK_COUNT || !(r->tflops[peak] > 0))
        return 0;
    double scale = mhz > 0 && r->boost_mhz > 0 ? mhz / r->boost_mhz : 1;
    return r->tflops[peak] * 1e12 * scale;
}

double kb_gpu_bandwidth(const kb_gpu_row *r) {
    return r && r->memory_gbs > 0 ? r->memory_gbs * 1e9 : 0;
}
