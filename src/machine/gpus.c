/* The GPU datasheet: parsing the CSV table of data/gpus.csv into rows of peaks. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "kbench/gpus.h"
#include "machine/table_file.h"
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

/* A row after its id (kb_csv_read_rows reads that). */
static kb_status parse_row(const kb_csv_reader *p, void *row) {
    kb_gpu_row *r = row;
    KB_TRY(kb_csv_text(p, COL_NAME, r->name, sizeof r->name, true));
    KB_TRY(kb_csv_text(p, COL_MATCH, r->match, sizeof r->match, true));
    KB_TRY(check_match(p, r->match));
    KB_TRY(kb_csv_text(p, COL_SOURCE, r->source, sizeof r->source, true));
    KB_TRY(kb_csv_number(p, COL_BOOST_MHZ, 100, 10000, &r->boost_mhz));
    KB_TRY(kb_csv_number(p, COL_MEMORY_GBS, 1, 1e6, &r->memory_gbs));
    KB_TRY(kb_csv_number(p, COL_MEMORY_GIB, 0.125, 1e6, &r->memory_gib));
    for (int k = 0; k < KB_GPU_PEAK_COUNT; k++)
        KB_TRY(kb_csv_number(p, COL_FP64 + k, 0.001, 1e6, &r->tflops[k]));
    return KB_OK;
}

const kb_csv_rows kb_gpus_rows = KB_CSV_ROWS(kb_gpu_row, columns, COL_COUNT, parse_row);

kb_status kb_gpus_parse(const char *text, size_t length, const char *name, kb_gpus *out) {
    return kb_csv_read_rows(text, length, name && *name ? name : "gpus", &kb_gpus_rows, &out->rows,
                            &out->count);
}

void kb_gpus_free(kb_gpus *g) {
    kb_csv_free_rows(&g->rows, &g->count);
}
