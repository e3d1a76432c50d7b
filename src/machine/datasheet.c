/* The datasheet of CPUs: theoretical peaks from the CSV table, matched to this machine. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "kbench/datasheet.h"

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

/* A field is at most a line long; lines longer than this are malformed anyway. */
#define KB_FIELD_SIZE 512

typedef struct parser {
    const char *name;
    int line;
} parser;

static kb_status fail_at(const parser *p, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

static kb_status fail_at(const parser *p, const char *format, ...) {
    char message[400];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    return kb_fail(KB_EFORMAT, "%s line %d: %s", p->name, p->line, message);
}

/* Splits one line into fields; quoted fields may hold commas and "" for a quote. */
static kb_status split(const parser *p, const char *line, size_t length,
                       char fields[COL_COUNT][KB_FIELD_SIZE], int *count) {
    size_t i = 0;
    *count = 0;
    for (;;) {
        if (*count == COL_COUNT)
            return fail_at(p, "more than %d fields", COL_COUNT);
        char *out = fields[(*count)++];
        size_t n = 0;
        if (i < length && line[i] == '"') {
            for (i++;; i++) {
                if (i >= length)
                    return fail_at(p, "field %d: unterminated quote", *count);
                if (line[i] == '"') {
                    if (i + 1 < length && line[i + 1] == '"')
                        i++;
                    else
                        break;
                }
                if (n + 1 >= KB_FIELD_SIZE)
                    return fail_at(p, "field %d is too long", *count);
                out[n++] = line[i];
            }
            i++; /* the closing quote */
            if (i < length && line[i] != ',')
                return fail_at(p, "field %d: text after the closing quote", *count);
        } else {
            for (; i < length && line[i] != ','; i++) {
                if (line[i] == '"')
                    return fail_at(p, "field %d: a quote inside an unquoted field", *count);
                if (n + 1 >= KB_FIELD_SIZE)
                    return fail_at(p, "field %d is too long", *count);
                out[n++] = line[i];
            }
        }
        /* Spaces around a field are not part of it. */
        while (n > 0 && out[n - 1] == ' ')
            n--;
        out[n] = '\0';
        size_t lead = strspn(out, " ");
        memmove(out, out + lead, n - lead + 1);
        if (i >= length)
            return KB_OK;
        i++; /* the comma */
    }
}

/* A whole number in decimal or 0x hex within [min, max]; empty gives missing. Decimal even
 * with leading zeros (strtol's base 0 would read 010 as octal 8), and no sign or spaces. */
static kb_status whole(const parser *p, int col, const char *text, long min, long max, long missing,
                       long *out) {
    if (!*text) {
        *out = missing;
        return KB_OK;
    }
    bool digit = isdigit((unsigned char)text[0]);
    bool hex = text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
    errno = 0;
    char *end = NULL;
    long v = digit ? strtol(text, &end, hex ? 16 : 10) : 0;
    if (!digit || errno || end == text || *end || v < min || v > max)
        return fail_at(p, "column %s: '%.40s' is not a whole number from %ld to %ld", columns[col],
                       text, min, max);
    *out = v;
    return KB_OK;
}

static kb_status number(const parser *p, int col, const char *text, double min, double max,
                        double *out) {
    if (!*text) {
        *out = 0;
        return KB_OK;
    }
    errno = 0;
    char *end;
    double v = strtod(text, &end);
    if (errno || end == text || *end || !(v >= min && v <= max))
        return fail_at(p, "column %s: '%.40s' is not a number from %g to %g", columns[col], text,
                       min, max);
    *out = v;
    return KB_OK;
}

static kb_status id_list(const parser *p, int col, const char *text, long max, int *ids,
                         int *count) {
    *count = 0;
    char copy[KB_FIELD_SIZE];
    snprintf(copy, sizeof copy, "%s", text);
    char *save = NULL;
    for (char *word = strtok_r(copy, " ", &save); word; word = strtok_r(NULL, " ", &save)) {
        if (*count == KB_DATASHEET_MAX_IDS)
            return fail_at(p, "column %s: more than %d values", columns[col], KB_DATASHEET_MAX_IDS);
        long v = 0;
        kb_status st = whole(p, col, word, 0, max, 0, &v);
        if (st != KB_OK)
            return st;
        ids[(*count)++] = (int)v;
    }
    return KB_OK;
}

static kb_status text_field(const parser *p, int col, const char *text, char *out, size_t size,
                            bool required) {
    if (required && !*text)
        return fail_at(p, "column %s is empty", columns[col]);
    if (strlen(text) >= size)
        return fail_at(p, "column %s is longer than %zu characters", columns[col], size - 1);
    memcpy(out, text, strlen(text) + 1);
    return KB_OK;
}

#define TRY(expr)                                                                                  \
    do {                                                                                           \
        kb_status st_ = (expr);                                                                    \
        if (st_ != KB_OK)                                                                          \
            return st_;                                                                            \
    } while (0)

static kb_status parse_row(const parser *p, char f[COL_COUNT][KB_FIELD_SIZE], kb_datasheet_row *r) {
    memset(r, 0, sizeof *r);
    TRY(text_field(p, COL_ID, f[COL_ID], r->id, sizeof r->id, true));
    for (const char *c = r->id; *c; c++)
        if (!(islower((unsigned char)*c) || isdigit((unsigned char)*c) || strchr("._-", *c)))
            return fail_at(p, "column id: '%s' has characters other than a-z 0-9 . _ -", r->id);
    TRY(text_field(p, COL_NAME, f[COL_NAME], r->name, sizeof r->name, true));
    TRY(text_field(p, COL_BRAND, f[COL_BRAND], r->brand, sizeof r->brand, false));
    TRY(text_field(p, COL_SOURCE, f[COL_SOURCE], r->source, sizeof r->source, true));

    long v = 0;
    TRY(whole(p, COL_X86_FAMILY, f[COL_X86_FAMILY], 0, 4095, -1, &v));
    r->x86_family = (int)v;
    TRY(id_list(p, COL_X86_MODELS, f[COL_X86_MODELS], 4095, r->x86_models, &r->x86_model_count));
    if (r->x86_model_count > 0 && r->x86_family < 0)
        return fail_at(p, "column x86_models needs x86_family");
    TRY(whole(p, COL_ARM_IMPLEMENTER, f[COL_ARM_IMPLEMENTER], 0, 255, -1, &v));
    r->arm_implementer = (int)v;
    TRY(id_list(p, COL_ARM_PARTS, f[COL_ARM_PARTS], 0xfff, r->arm_parts, &r->arm_part_count));
    if (r->arm_part_count > 0 && r->arm_implementer < 0)
        return fail_at(p, "column arm_parts needs arm_implementer");
    if (!r->brand[0] && r->x86_family < 0 && r->arm_implementer < 0)
        return fail_at(p, "row %s names no brand, x86_family or arm_implementer to recognize it by",
                       r->id);
    if (r->x86_family >= 0 && r->arm_implementer >= 0)
        return fail_at(p, "row %s names both an x86 family and an Arm implementer", r->id);

    TRY(whole(p, COL_CORES, f[COL_CORES], 1, 100000, 0, &v));
    r->cores = (int)v;
    TRY(number(p, COL_BASE_MHZ, f[COL_BASE_MHZ], 100, 10000, &r->base_mhz));
    TRY(number(p, COL_BOOST_MHZ, f[COL_BOOST_MHZ], 100, 10000, &r->boost_mhz));
    if (r->base_mhz > 0 && r->boost_mhz > 0 && r->boost_mhz < r->base_mhz)
        return fail_at(p, "column boost_mhz: %g is below base_mhz %g", r->boost_mhz, r->base_mhz);
    TRY(whole(p, COL_FMA_UNITS, f[COL_FMA_UNITS], 1, 16, 0, &v));
    r->fma_units = (int)v;
    TRY(whole(p, COL_VECTOR_BITS, f[COL_VECTOR_BITS], 64, 2048, 0, &v));
    if (v & (v - 1))
        return fail_at(p, "column vector_bits: %ld is not a power of two", v);
    r->vector_bits = (int)v;
    TRY(whole(p, COL_MEMORY_CHANNELS, f[COL_MEMORY_CHANNELS], 1, 64, 0, &v));
    r->memory_channels = (int)v;
    TRY(number(p, COL_MEMORY_MTS, f[COL_MEMORY_MTS], 100, 100000, &r->memory_mts));
    return KB_OK;
}

static kb_status parse_lines(const char *text, size_t length, parser *p, kb_datasheet *out) {
    /* Fields of one line: on the heap, as they are 7.5 KiB. */
    char(*fields)[KB_FIELD_SIZE] = malloc(COL_COUNT * KB_FIELD_SIZE);
    if (!fields)
        return kb_fail(KB_ENOMEM, "out of memory reading %s", p->name);
    int capacity = 0;
    bool header = false;
    kb_status st = KB_OK;
    size_t pos = 0;
    while (pos < length && st == KB_OK) {
        p->line++;
        const char *line = text + pos;
        size_t n = 0;
        while (pos + n < length && line[n] != '\n')
            n++;
        pos += n + 1;
        if (memchr(line, '\0', n)) {
            st = fail_at(p, "a NUL byte");
            break;
        }
        if (n > 0 && line[n - 1] == '\r')
            n--;
        size_t lead = 0;
        while (lead < n && (line[lead] == ' ' || line[lead] == '\t'))
            lead++;
        if (lead == n || line[lead] == '#')
            continue;
        int count;
        st = split(p, line, n, fields, &count);
        if (st != KB_OK)
            break;
        if (!header) {
            for (int c = 0; c < COL_COUNT && st == KB_OK; c++)
                if (c >= count || strcmp(fields[c], columns[c]) != 0)
                    st = fail_at(p,
                                 "the header must name the columns %s,%s,...,%s in order; "
                                 "column %d is '%.40s'",
                                 columns[0], columns[1], columns[COL_COUNT - 1], c + 1,
                                 c < count ? fields[c] : "(missing)");
            if (st == KB_OK && count != COL_COUNT)
                st = fail_at(p, "the header has %d columns, not %d", count, COL_COUNT);
            header = true;
            continue;
        }
        if (count != COL_COUNT) {
            st = fail_at(p, "%d fields, not %d", count, COL_COUNT);
            break;
        }
        if (out->count == capacity) {
            int grown = capacity ? 2 * capacity : 16;
            kb_datasheet_row *rows = realloc(out->rows, (size_t)grown * sizeof *rows);
            if (!rows) {
                st = kb_fail(KB_ENOMEM, "out of memory reading %s", p->name);
                break;
            }
            out->rows = rows;
            capacity = grown;
        }
        kb_datasheet_row *r = &out->rows[out->count];
        st = parse_row(p, fields, r);
        if (st != KB_OK)
            break;
        for (int i = 0; i < out->count; i++)
            if (strcmp(out->rows[i].id, r->id) == 0) {
                st = fail_at(p, "id '%s' repeats the row of an earlier line", r->id);
                break;
            }
        if (st == KB_OK)
            out->count++;
    }
    if (st == KB_OK && !header)
        st = kb_fail(KB_EFORMAT, "%s: no header line", p->name);
    free(fields);
    return st;
}

kb_status kb_datasheet_parse(const char *text, size_t length, const char *name, kb_datasheet *out) {
    out->rows = NULL;
    out->count = 0;
    parser p = {name && *name ? name : "datasheet", 0};
    if (!text)
        return kb_fail(KB_EINVAL, "%s: no text", p.name);
    kb_status st = parse_lines(text, length, &p, out);
    if (st != KB_OK)
        kb_datasheet_free(out);
    return st;
}

void kb_datasheet_free(kb_datasheet *d) {
    free(d->rows);
    d->rows = NULL;
    d->count = 0;
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
