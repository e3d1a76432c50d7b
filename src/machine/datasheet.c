/* The datasheet of CPUs: theoretical peaks from the CSV table, matched to this machine. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "kbench/datasheet.h"
#include "machine/table_file.h"
#include "util/internal.h"

/* The columns, in the order the header line must name them. */
enum {
    COL_ID,
    COL_NAME,
    COL_BRAND,
    COL_X86_FAMILY,
    COL_X86_MODELS,
    COL_ARM_IMPLEMENTER,
    COL_ARM_PARTS,
    COL_CORES,
    COL_BASE_MHZ,
    COL_BOOST_MHZ,
    COL_FMA_UNITS,
    COL_VECTOR_BITS,
    COL_MEMORY_CHANNELS,
    COL_MEMORY_MTS,
    COL_SOURCE,
    COL_COUNT
};

static const char *const columns[COL_COUNT] = {
    "id",    "name",     "brand",     "x86_family", "x86_models",  "arm_implementer", "arm_parts",
    "cores", "base_mhz", "boost_mhz", "fma_units",  "vector_bits", "memory_channels", "memory_mts",
    "source"};

static kb_status id_list(const kb_csv_reader *p, int col, long max, int *ids, int *count) {
    *count = 0;
    char copy[KB_CSV_FIELD_SIZE];
    const char *text = p->fields[col];
    snprintf(copy, sizeof copy, "%s", text);
    char *save = NULL;
    for (char *word = strtok_r(copy, " ", &save); word; word = strtok_r(NULL, " ", &save)) {
        if (*count == KB_DATASHEET_MAX_IDS)
            return kb_csv_fail(p, "column %s: more than %d values", columns[col],
                               KB_DATASHEET_MAX_IDS);
        long v = 0;
        kb_status st = kb_csv_whole(p, col, word, 0, max, 0, &v);
        if (st != KB_OK)
            return st;
        ids[(*count)++] = (int)v;
    }
    return KB_OK;
}

/* A row after its id (kb_csv_read_rows reads that). */
static kb_status parse_row(const kb_csv_reader *p, void *row) {
    kb_datasheet_row *r = row;
    char(*f)[KB_CSV_FIELD_SIZE] = p->fields;
    KB_TRY(kb_csv_text(p, COL_NAME, r->name, sizeof r->name, true));
    KB_TRY(kb_csv_text(p, COL_BRAND, r->brand, sizeof r->brand, false));
    KB_TRY(kb_csv_text(p, COL_SOURCE, r->source, sizeof r->source, true));

    long v = 0;
    KB_TRY(kb_csv_whole(p, COL_X86_FAMILY, f[COL_X86_FAMILY], 0, 4095, -1, &v));
    r->x86_family = (int)v;
    KB_TRY(id_list(p, COL_X86_MODELS, 4095, r->x86_models, &r->x86_model_count));
    if (r->x86_model_count > 0 && r->x86_family < 0)
        return kb_csv_fail(p, "column x86_models needs x86_family");
    KB_TRY(kb_csv_whole(p, COL_ARM_IMPLEMENTER, f[COL_ARM_IMPLEMENTER], 0, 255, -1, &v));
    r->arm_implementer = (int)v;
    KB_TRY(id_list(p, COL_ARM_PARTS, 0xfff, r->arm_parts, &r->arm_part_count));
    if (r->arm_part_count > 0 && r->arm_implementer < 0)
        return kb_csv_fail(p, "column arm_parts needs arm_implementer");
    if (!r->brand[0] && r->x86_family < 0 && r->arm_implementer < 0)
        return kb_csv_fail(
            p, "row %s names no brand, x86_family or arm_implementer to recognize it by", r->id);
    if (r->x86_family >= 0 && r->arm_implementer >= 0)
        return kb_csv_fail(p, "row %s names both an x86 family and an Arm implementer", r->id);

    KB_TRY(kb_csv_whole(p, COL_CORES, f[COL_CORES], 1, 100000, 0, &v));
    r->cores = (int)v;
    KB_TRY(kb_csv_number(p, COL_BASE_MHZ, 100, 10000, &r->base_mhz));
    KB_TRY(kb_csv_number(p, COL_BOOST_MHZ, 100, 10000, &r->boost_mhz));
    if (r->base_mhz > 0 && r->boost_mhz > 0 && r->boost_mhz < r->base_mhz)
        return kb_csv_fail(p, "column boost_mhz: %g is below base_mhz %g", r->boost_mhz,
                           r->base_mhz);
    KB_TRY(kb_csv_whole(p, COL_FMA_UNITS, f[COL_FMA_UNITS], 1, 16, 0, &v));
    r->fma_units = (int)v;
    KB_TRY(kb_csv_whole(p, COL_VECTOR_BITS, f[COL_VECTOR_BITS], 64, 2048, 0, &v));
    if (v & (v - 1))
        return kb_csv_fail(p, "column vector_bits: %ld is not a power of two", v);
    r->vector_bits = (int)v;
    KB_TRY(kb_csv_whole(p, COL_MEMORY_CHANNELS, f[COL_MEMORY_CHANNELS], 1, 64, 0, &v));
    r->memory_channels = (int)v;
    KB_TRY(kb_csv_number(p, COL_MEMORY_MTS, 100, 100000, &r->memory_mts));
    return KB_OK;
}

const kb_csv_rows kb_datasheet_rows = KB_CSV_ROWS(kb_datasheet_row, columns, COL_COUNT, parse_row);

kb_status kb_datasheet_parse(const char *text, size_t length, const char *name, kb_datasheet *out) {
    return kb_csv_read_rows(text, length, name && *name ? name : "datasheet", &kb_datasheet_rows,
                            &out->rows, &out->count);
}

void kb_datasheet_free(kb_datasheet *d) {
    kb_csv_free_rows(&d->rows, &d->count);
}

static bool listed(const int *ids, int count, int value) {
    for (int i = 0; i < count; i++)
        if (ids[i] == value)
            return true;
    return false;
}

/* How well a row fits, 0 when it does not: a brand beats a family or part, a longer brand a
 * shorter one, and a list of models or parts the bare family or implementer. */
static int score(const kb_datasheet_row *r, const char *model, const kb_cpu_signature *s) {
    int points = 0;
    if (r->brand[0]) {
        if (!model || !strstr(model, r->brand))
            return 0;
        points += 1000 + (int)strlen(r->brand);
    }
    if (r->x86_family >= 0) {
        if (!s || s->x86_family != r->x86_family)
            return 0;
        if (r->x86_model_count > 0 && !listed(r->x86_models, r->x86_model_count, s->x86_model))
            return 0;
        points += r->x86_model_count > 0 ? 20 : 10;
    }
    if (r->arm_implementer >= 0) {
        if (!s || s->arm_implementer != r->arm_implementer)
            return 0;
        if (r->arm_part_count > 0 && !listed(r->arm_parts, r->arm_part_count, s->arm_part))
            return 0;
        points += r->arm_part_count > 0 ? 20 : 10;
    }
    return points;
}

const kb_datasheet_row *kb_datasheet_match(const kb_datasheet *d, const char *cpu_model,
                                           const kb_cpu_signature *signature) {
    const kb_datasheet_row *best = NULL;
    int best_score = 0;
    for (int i = 0; d && i < d->count; i++) {
        int s = score(&d->rows[i], cpu_model, signature);
        if (s > best_score) {
            best = &d->rows[i];
            best_score = s;
        }
    }
    return best;
}

double kb_datasheet_core_flops(const kb_datasheet_row *r, kb_flop_type type, kb_simd_level level,
                               double mhz) {
    int level_bits = level == KB_SIMD_AVX2     ? 256
                     : level == KB_SIMD_AVX512 ? 512
                     : level == KB_SIMD_NEON   ? 128
                                               : 0;
    int element_bits = type == KB_FLOP_F32 ? 32 : type == KB_FLOP_F64 ? 64 : 0;
    if (!r || level_bits == 0 || element_bits == 0 || r->fma_units <= 0 || r->vector_bits <= 0 ||
        !(mhz > 0))
        return 0;
    /* A level wider than the pipes (AVX-512 on Zen 4's 256-bit pipes) splits each instruction
     * over them: no more lanes per cycle than the pipes hold. */
    int bits = level_bits < r->vector_bits ? level_bits : r->vector_bits;
    return (double)r->fma_units * (bits / element_bits) * 2.0 * mhz * 1e6;
}

double kb_datasheet_memory_bandwidth(const kb_datasheet_row *r) {
    if (!r || r->memory_channels <= 0 || !(r->memory_mts > 0))
        return 0;
    return r->memory_channels * 8.0 * r->memory_mts * 1e6;
}
