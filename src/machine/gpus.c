/* The GPU datasheet: parsing the CSV table of data/gpus.csv into rows of peaks. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "kbench/gpus.h"
#include "util/internal.h"

/* The columns, in the order the header line must name them: the peaks are KB_GPU_* after
 * COL_FP64. */
enum {
    COL_ID,
    COL_NAME,
    COL_MATCH,
    COL_BOOST_MHZ,
    COL_MEMORY_GBS,
    COL_MEMORY_GIB,
    COL_FP64,
    COL_SOURCE = COL_FP64 + KB_GPU_PEAK_COUNT,
    COL_COUNT
};

static const char *const columns[COL_COUNT] = {
    "id",          "name", "match",       "boost_mhz",   "memory_gbs",
    "memory_gib",  "fp64", "fp64_tensor", "fp32",        "tf32_tensor",
    "fp16_tensor", "fp16", "fp8_tensor",  "int8_tensor", "source"};

const char *kb_gpu_peak_name(kb_gpu_peak peak) {
    return peak >= 0 && peak < KB_GPU_PEAK_COUNT ? columns[COL_FP64 + peak] : "?";
}

#define TRY(expr)                                                                                  \
    do {                                                                                           \
        kb_status st_ = (expr);                                                                    \
        if (st_ != KB_OK)                                                                          \
            return st_;                                                                            \
    } while (0)

static kb_status check_match(const kb_csv_reader *p, const char *match) {
    bool positive = false;
    for (const char *c = match; *c;) {
        while (*c == ' ')
            c++;
        if (!*c)
            break;
        bool negative = *c == '!';
        c += negative;
        size_t n = 0;
        for (; c[n] && c[n] != ' '; n++)
            if (!isalnum((unsigned char)c[n]))
                return kb_csv_fail(p,
                                   "column match: '%s' has a word of other characters than "
                                   "letters and digits",
                                   match);
        if (n == 0)
            return kb_csv_fail(p, "column match: '%s' has a lone '!'", match);
        positive |= !negative;
        c += n;
    }
    if (!positive)
        return kb_csv_fail(p, "column match: '%s' names no word a device name must hold", match);
    return KB_OK;
}

static kb_status parse_row(const kb_csv_reader *p, kb_gpu_row *r) {
    memset(r, 0, sizeof *r);
    TRY(kb_csv_text(p, COL_ID, r->id, sizeof r->id, true));
    for (const char *c = r->id; *c; c++)
        if (!(islower((unsigned char)*c) || isdigit((unsigned char)*c) || strchr("._-", *c)))
            return kb_csv_fail(p, "column id: '%s' has characters other than a-z 0-9 . _ -", r->id);
    TRY(kb_csv_text(p, COL_NAME, r->name, sizeof r->name, true));
    TRY(kb_csv_text(p, COL_MATCH, r->match, sizeof r->match, true));
    TRY(check_match(p, r->match));
    TRY(kb_csv_text(p, COL_SOURCE, r->source, sizeof r->source, true));
    TRY(kb_csv_number(p, COL_BOOST_MHZ, 100, 10000, &r->boost_mhz));
    TRY(kb_csv_number(p, COL_MEMORY_GBS, 1, 1e6, &r->memory_gbs));
    TRY(kb_csv_number(p, COL_MEMORY_GIB, 0.125, 1e6, &r->memory_gib));
    for (int k = 0; k < KB_GPU_PEAK_COUNT; k++)
        TRY(kb_csv_number(p, COL_FP64 + k, 0.001, 1e6, &r->tflops[k]));
    return KB_OK;
}

static kb_status parse_rows(kb_csv_reader *p, kb_gpus *out) {
    int capacity = 0;
    bool more;
    kb_status st;
    while ((st = kb_csv_next(p, &more)) == KB_OK && more) {
        TRY(kb_csv_reserve(p, &out->rows, out->count, &capacity, sizeof *out->rows));
        kb_gpu_row *r = &out->rows[out->count];
        TRY(parse_row(p, r));
        for (int i = 0; i < out->count; i++)
            if (strcmp(out->rows[i].id, r->id) == 0)
                return kb_csv_fail(p, "id '%s' repeats the row of an earlier line", r->id);
        out->count++;
    }
    return st;
}

kb_status kb_gpus_parse(const char *text, size_t length, const char *name, kb_gpus *out) {
    out->rows = NULL;
    out->count = 0;
    kb_csv_reader p;
    kb_status st = kb_csv_open(&p, text, length, name && *name ? name : "gpus", columns, COL_COUNT);
    if (st == KB_OK)
        st = parse_rows(&p, out);
    kb_csv_close(&p);
    if (st != KB_OK)
        kb_gpus_free(out);
    return st;
}

void kb_gpus_free(kb_gpus *g) {
    free(g->rows);
    g->rows = NULL;
    g->count = 0;
}
