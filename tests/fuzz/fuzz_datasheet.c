/* libFuzzer target for the datasheet table parser (the CSV of data/datasheet.csv, which
 * KB_DATASHEET=FILE replaces with any file): any bytes must give either a table whose every
 * row keeps the ranges and rules of the format, or KB_EFORMAT with a one-line message and an
 * empty table; never a crash, a leak or undefined behaviour (the whole library is built with
 * ASan and UBSan for fuzzing). A parsed table, written back as CSV, must parse to the same
 * rows, and each row must be found by kb_datasheet_match for the CPU it describes. */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kbench/datasheet.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_message(void) {
    const char *m = kb_last_error();
    if (m[0] == '\0' || strchr(m, '\n'))
        __builtin_trap();
}

/* A text field: NUL-terminated within its array, without the spaces the parser trims. */
static void check_text(const char *s, size_t size, bool required) {
    size_t n = strnlen(s, size);
    if (n == size || (required && n == 0))
        __builtin_trap();
    if (n > 0 && (s[0] == ' ' || s[n - 1] == ' '))
        __builtin_trap();
}

static void check_ids(const int *ids, int count, int max) {
    if (count < 0 || count > KB_DATASHEET_MAX_IDS)
        __builtin_trap();
    for (int i = 0; i < count; i++)
        if (ids[i] < 0 || ids[i] > max)
            __builtin_trap();
}

/* 0 (not given) or within [min, max]. */
static void check_optional(double v, double min, double max) {
    if (v != 0 && !(v >= min && v <= max))
        __builtin_trap();
}

static void check_row(const kb_datasheet *d, int index) {
    const kb_datasheet_row *r = &d->rows[index];
    check_text(r->id, sizeof r->id, true);
    for (const char *c = r->id; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || strchr("._-", *c)))
            __builtin_trap();
    for (int i = 0; i < index; i++)
        if (strcmp(d->rows[i].id, r->id) == 0)
            __builtin_trap();
    check_text(r->name, sizeof r->name, true);
    check_text(r->brand, sizeof r->brand, false);
    check_text(r->source, sizeof r->source, true);

    if (r->x86_family < -1 || r->x86_family > 4095 || r->arm_implementer < -1 ||
        r->arm_implementer > 255)
        __builtin_trap();
    check_ids(r->x86_models, r->x86_model_count, 4095);
    check_ids(r->arm_parts, r->arm_part_count, 0xfff);
    if ((r->x86_model_count > 0 && r->x86_family < 0) ||
        (r->arm_part_count > 0 && r->arm_implementer < 0))
        __builtin_trap();
    if (!r->brand[0] && r->x86_family < 0 && r->arm_implementer < 0)
        __builtin_trap();
    if (r->x86_family >= 0 && r->arm_implementer >= 0)
        __builtin_trap();

    check_optional(r->cores, 1, 100000);
    check_optional(r->base_mhz, 100, 10000);
    check_optional(r->boost_mhz, 100, 10000);
    if (r->base_mhz > 0 && r->boost_mhz > 0 && r->boost_mhz < r->base_mhz)
        __builtin_trap();
    check_optional(r->fma_units, 1, 16);
    check_optional(r->vector_bits, 64, 2048);
    if (r->vector_bits & (r->vector_bits - 1))
        __builtin_trap();
    check_optional(r->memory_channels, 1, 64);
    check_optional(r->memory_mts, 100, 100000);

    /* The figures derived from a row are finite and not negative. */
    for (int t = 0; t < KB_FLOP_TYPE_COUNT; t++)
        for (int l = 0; l < KB_SIMD_LEVEL_COUNT; l++) {
            double f = kb_datasheet_core_flops(r, (kb_flop_type)t, (kb_simd_level)l, r->boost_mhz);
            if (!(f >= 0 && isfinite(f)))
                __builtin_trap();
        }
    double bw = kb_datasheet_memory_bandwidth(r);
    if (!(bw >= 0 && isfinite(bw)))
        __builtin_trap();

    /* The CPU the row describes finds a row, and one at least as specific as this one: a
     * brand row when this row names a brand. */
    kb_cpu_signature s = {-1, -1, -1, -1};
    if (r->x86_family >= 0) {
        s.x86_family = r->x86_family;
        s.x86_model = r->x86_model_count > 0 ? r->x86_models[0] : 0;
    }
    if (r->arm_implementer >= 0) {
        s.arm_implementer = r->arm_implementer;
        s.arm_part = r->arm_part_count > 0 ? r->arm_parts[0] : 0;
    }
    const kb_datasheet_row *m = kb_datasheet_match(d, r->brand, &s);
    if (!m || m < d->rows || m >= d->rows + d->count)
        __builtin_trap();
    if (r->brand[0] && !m->brand[0])
        __builtin_trap();
}

/* A growing text buffer for writing the table back; out of memory ends the check quietly. */
typedef struct buffer {
    char *text;
    size_t length, capacity;
    bool failed;
} buffer;

static void put(buffer *b, const char *format, ...) __attribute__((format(printf, 2, 3)));

static void put(buffer *b, const char *format, ...) {
    if (b->failed)
        return;
    for (;;) {
        va_list args;
        va_start(args, format);
        int n = vsnprintf(b->text + b->length, b->capacity - b->length, format, args);
        va_end(args);
        if (n < 0) {
            b->failed = true;
            return;
        }
        if ((size_t)n < b->capacity - b->length) {
            b->length += (size_t)n;
            return;
        }
        size_t grown = 2 * b->capacity + (size_t)n + 1;
        char *text = realloc(b->text, grown);
        if (!text) {
            b->failed = true;
            return;
        }
        b->text = text;
        b->capacity = grown;
    }
}

/* Every text field quoted, with "" for a quote. */
static void put_text(buffer *b, const char *s) {
    put(b, "\"");
    for (; *s; s++)
        put(b, *s == '"' ? "\"\"" : "%c", *s);
    put(b, "\",");
}

static void put_ids(buffer *b, const int *ids, int count, bool hex) {
    for (int i = 0; i < count; i++)
        put(b, hex ? "%s0x%x" : "%s%d", i ? " " : "", ids[i]);
    put(b, ",");
}

static void put_whole(buffer *b, int v, int missing) {
    if (v == missing)
        put(b, ",");
    else
        put(b, "%d,", v);
}

static void put_number(buffer *b, double v) {
    if (v == 0)
        put(b, ",");
    else
        put(b, "%.17g,", v);
}

static void write_table(const kb_datasheet *d, buffer *b) {
    put(b, "# written back by fuzz_datasheet\n"
           "id,name,brand,x86_family,x86_models,arm_implementer,arm_parts,cores,base_mhz,"
           "boost_mhz,fma_units,vector_bits,memory_channels,memory_mts,source\n");
    for (int i = 0; i < d->count; i++) {
        const kb_datasheet_row *r = &d->rows[i];
        put_text(b, r->id);
        put_text(b, r->name);
        put_text(b, r->brand);
        put_whole(b, r->x86_family, -1);
        put_ids(b, r->x86_models, r->x86_model_count, false);
        put_whole(b, r->arm_implementer, -1);
        put_ids(b, r->arm_parts, r->arm_part_count, true);
        put_whole(b, r->cores, 0);
        put_number(b, r->base_mhz);
        put_number(b, r->boost_mhz);
        put_whole(b, r->fma_units, 0);
        put_whole(b, r->vector_bits, 0);
        put_whole(b, r->memory_channels, 0);
        put_number(b, r->memory_mts);
        put_text(b, r->source);
        if (!b->failed)
            b->length--; /* the comma after the last field */
        put(b, "\r\n");
    }
}

static bool same_row(const kb_datasheet_row *a, const kb_datasheet_row *b) {
    return strcmp(a->id, b->id) == 0 && strcmp(a->name, b->name) == 0 &&
           strcmp(a->brand, b->brand) == 0 && strcmp(a->source, b->source) == 0 &&
           a->x86_family == b->x86_family && a->x86_model_count == b->x86_model_count &&
           memcmp(a->x86_models, b->x86_models, sizeof a->x86_models) == 0 &&
           a->arm_implementer == b->arm_implementer && a->arm_part_count == b->arm_part_count &&
           memcmp(a->arm_parts, b->arm_parts, sizeof a->arm_parts) == 0 && a->cores == b->cores &&
           a->base_mhz == b->base_mhz && a->boost_mhz == b->boost_mhz &&
           a->fma_units == b->fma_units && a->vector_bits == b->vector_bits &&
           a->memory_channels == b->memory_channels && a->memory_mts == b->memory_mts;
}

static void check_round_trip(const kb_datasheet *d) {
    buffer b = {malloc(4096), 0, 4096, false};
    if (!b.text)
        return;
    write_table(d, &b);
    if (b.failed) {
        free(b.text);
        return;
    }
    kb_datasheet again;
    kb_status st = kb_datasheet_parse(b.text, b.length, "written back", &again);
    free(b.text);
    if (st == KB_ENOMEM)
        return;
    if (st != KB_OK || again.count != d->count)
        __builtin_trap();
    for (int i = 0; i < d->count; i++)
        if (!same_row(&d->rows[i], &again.rows[i]))
            __builtin_trap();
    kb_datasheet_free(&again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    /* A copy of exactly size bytes, so that ASan catches a read past the end. */
    char *text = malloc(size ? size : 1);
    if (!text)
        return 0;
    memcpy(text, data, size);

    kb_datasheet d;
    d.rows = (kb_datasheet_row *)(void *)text; /* a poison: the parser must reset it */
    d.count = -1;
    kb_status st = kb_datasheet_parse(text, size, "fuzz.csv", &d);
    if (st == KB_OK) {
        if (d.count < 0 || (d.count > 0 && !d.rows))
            __builtin_trap();
        for (int i = 0; i < d.count; i++)
            check_row(&d, i);
        check_round_trip(&d);
        kb_datasheet_free(&d);
    } else {
        if (d.rows || d.count != 0 || (st != KB_EFORMAT && st != KB_ENOMEM))
            __builtin_trap();
        check_message();
    }
    free(text);
    return 0;
}
