/* Arrays printed for people, in NumPy's style. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "app/float_text.h"
#include "app/print_array.h"
#include "core/internal.h"
#include "kbench/half.h"

/* A port of NumPy's array2string with its default options (numpy/_core/arrayprint.py:
 * _formatArray and the Integer, Bool and Floating formats), so that kbench's output reads
 * exactly like the NumPy session it is compared with. */

enum {
    LINE_WIDTH = 75,
    THRESHOLD = 1000, /* more elements than this are summarized */
    EDGE_ITEMS = 3,
};

/* A growable string; an allocation failure is remembered and reported once at the end. */
typedef struct text {
    char *data;
    size_t length, capacity;
    bool failed;
} text;

static void text_add(text *t, const char *s, size_t n) {
    if (t->failed)
        return;
    if (t->length + n + 1 > t->capacity) {
        size_t capacity = t->capacity ? t->capacity : 256;
        while (capacity < t->length + n + 1)
            capacity *= 2;
        char *data = realloc(t->data, capacity);
        if (!data) {
            t->failed = true;
            return;
        }
        t->data = data;
        t->capacity = capacity;
    }
    memcpy(t->data + t->length, s, n);
    t->length += n;
    t->data[t->length] = '\0';
}

static void text_puts(text *t, const char *s) {
    text_add(t, s, strlen(s));
}

/* Python's str.rstrip() of the whole text. */
static void text_rstrip(text *t) {
    while (t->length > 0 && t->data[t->length - 1] == ' ')
        t->data[--t->length] = '\0';
}

typedef enum kind { KIND_BOOL, KIND_SIGNED, KIND_UNSIGNED, KIND_FLOAT } kind;

typedef struct printer {
    const kb_array *array;
    kind kind;
    bool summarize;
    int int_width; /* integers: the widest shown value */
    kb_float_layout floats;
    int64_t index[KB_MAX_DIMS];
} printer;

static kind kind_of(kb_dtype dtype) {
    if (dtype == KB_BOOL)
        return KIND_BOOL;
    if (kb_dtype_is_float(dtype))
        return KIND_FLOAT;
    return kb_dtype_is_signed(dtype) ? KIND_SIGNED : KIND_UNSIGNED;
}

static double load_float(kb_dtype dtype, const void *p) {
    uint16_t h;
    float f;
    double d;
    switch (dtype) {
        case KB_F16:
            memcpy(&h, p, sizeof h);
            return kb_f16_to_f32(h);
        case KB_BF16:
            memcpy(&h, p, sizeof h);
            return kb_bf16_to_f32(h);
        case KB_F32:
            memcpy(&f, p, sizeof f);
            return f;
        default:
            memcpy(&d, p, sizeof d);
            return d;
    }
}

static int64_t load_signed(kb_dtype dtype, const void *p) {
    switch (dtype) {
        case KB_INT8:
            return *(const int8_t *)p;
        case KB_INT16: {
            int16_t v;
            memcpy(&v, p, sizeof v);
            return v;
        }
        case KB_INT32: {
            int32_t v;
            memcpy(&v, p, sizeof v);
            return v;
        }
        default: {
            int64_t v;
            memcpy(&v, p, sizeof v);
            return v;
        }
    }
}

static uint64_t load_unsigned(kb_dtype dtype, const void *p) {
    switch (dtype) {
        case KB_UINT8:
            return *(const uint8_t *)p;
        case KB_UINT16: {
            uint16_t v;
            memcpy(&v, p, sizeof v);
            return v;
        }
        case KB_UINT32: {
            uint32_t v;
            memcpy(&v, p, sizeof v);
            return v;
        }
        default: {
            uint64_t v;
            memcpy(&v, p, sizeof v);
            return v;
        }
    }
}

/* The element at pr->index, unpadded for integers and bools, padded for floats. */
static int raw_text(const printer *pr, const void *p, char *buf) {
    kb_dtype dtype = pr->array->dtype;
    switch (pr->kind) {
        case KIND_BOOL:
            return sprintf(buf, "%s", *(const uint8_t *)p ? "True" : "False");
        case KIND_SIGNED:
            return sprintf(buf, "%" PRId64, load_signed(dtype, p));
        case KIND_UNSIGNED:
            return sprintf(buf, "%" PRIu64, load_unsigned(dtype, p));
        case KIND_FLOAT:
            kb_float_element_text(&pr->floats, load_float(dtype, p), buf);
            return (int)strlen(buf);
    }
    return 0;
}

static void element_text(const printer *pr, char *buf) {
    char raw[KB_FLOAT_TEXT_SIZE];
    raw_text(pr, kb_array_at(pr->array, pr->index), raw);
    if (pr->kind == KIND_BOOL)
        sprintf(buf, "%5s", raw); /* NumPy's " True" lines up with "False" */
    else if (pr->kind == KIND_FLOAT)
        strcpy(buf, raw);
    else
        sprintf(buf, "%*s", pr->int_width, raw);
}

/* The index along an axis of length n of the i-th shown entry out of `shown`. */
static int64_t shown_index(const printer *pr, int64_t n, int64_t i) {
    if (!pr->summarize || n <= 2 * EDGE_ITEMS || i < EDGE_ITEMS)
        return i;
    return n - 2 * EDGE_ITEMS + i;
}

static int64_t shown_count(const printer *pr, int64_t n) {
    return pr->summarize && n > 2 * EDGE_ITEMS ? 2 * EDGE_ITEMS : n;
}

/* NumPy chooses the widths from the shown elements only: visits them in order. */
static kb_status measure(printer *pr) {
    const kb_array *a = pr->array;
    int64_t count = 1;
    for (int d = 0; d < a->ndim; d++)
        count *= shown_count(pr, a->shape[d]);
    double *floats = NULL;
    if (pr->kind == KIND_FLOAT) {
        floats = malloc((size_t)count * sizeof *floats);
        if (!floats)
            return kb_fail(KB_ENOMEM, "out of memory printing an array");
    }
    int64_t pos[KB_MAX_DIMS] = {0};
    for (int64_t k = 0; k < count; k++) {
        for (int d = 0; d < a->ndim; d++)
            pr->index[d] = shown_index(pr, a->shape[d], pos[d]);
        const void *p = kb_array_at(a, pr->index);
        if (pr->kind == KIND_FLOAT) {
            floats[k] = load_float(a->dtype, p);
        } else if (pr->kind != KIND_BOOL) {
            char raw[32];
            int width = raw_text(pr, p, raw);
            pr->int_width = width > pr->int_width ? width : pr->int_width;
        }
        for (int d = a->ndim - 1; d >= 0; d--) {
            if (++pos[d] < shown_count(pr, a->shape[d]))
                break;
            pos[d] = 0;
        }
    }
    if (floats)
        kb_float_layout_init(&pr->floats, a->dtype, floats, (size_t)count);
    free(floats);
    return KB_OK;
}

/* NumPy's _extendLine: wrap before a word that would pass the width, unless the line holds
 * nothing but its indent. */
static void extend_line(text *s, text *line, const char *word, size_t width, size_t indent_len,
                        const char *indent) {
    size_t n = strlen(word);
    if (line->length + n > width && line->length > indent_len) {
        text_rstrip(line);
        text_add(s, line->data, line->length);
        text_puts(s, "\n");
        line->length = 0;
        text_puts(line, indent);
    }
    text_puts(line, word);
}

/* NumPy's recurser: the text of the sub-array at pr->index[0 .. axis-1], with its first line
 * not indented and the others indented by `indent` (axis + 1 spaces). */
static void format_axis(printer *pr, int axis, int width, text *out) {
    const kb_array *a = pr->array;
    int axes_left = a->ndim - axis;
    int64_t n = a->shape[axis];
    bool summary = pr->summarize && n > 2 * EDGE_ITEMS;
    int64_t leading = summary ? EDGE_ITEMS : 0;
    int64_t trailing = summary ? EDGE_ITEMS : n;
    char indent[KB_MAX_DIMS + 2];
    memset(indent, ' ', (size_t)axis + 1);
    indent[axis + 1] = '\0';
    size_t indent_len = (size_t)axis + 1;

    text s = {0};
    if (axes_left == 1) {
        size_t elem_width = (size_t)width - 1; /* room for the closing ']' */
        text line = {0};
        text_puts(&line, indent);
        char word[KB_FLOAT_TEXT_SIZE];
        for (int64_t i = 0; i < leading; i++) {
            pr->index[axis] = i;
            element_text(pr, word);
            extend_line(&s, &line, word, elem_width, indent_len, indent);
            text_puts(&line, " ");
        }
        if (summary) {
            extend_line(&s, &line, "...", elem_width, indent_len, indent);
            text_puts(&line, " ");
        }
        for (int64_t i = trailing; i >= 1; i--) {
            pr->index[axis] = n - i;
            element_text(pr, word);
            extend_line(&s, &line, word, elem_width, indent_len, indent);
            if (i > 1)
                text_puts(&line, " ");
        }
        text_add(&s, line.data, line.length);
        s.failed |= line.failed;
        free(line.data);
    } else {
        char separator[KB_MAX_DIMS + 1];
        memset(separator, '\n', (size_t)axes_left - 1);
        separator[axes_left - 1] = '\0';
        for (int64_t k = 0; k < leading + (summary ? 1 : 0) + trailing; k++) {
            text_puts(&s, indent);
            if (summary && k == leading) {
                text_puts(&s, "...");
            } else {
                int64_t i = k < leading ? k : n - (leading + (summary ? 1 : 0) + trailing - k);
                pr->index[axis] = i;
                text nested = {0};
                format_axis(pr, axis + 1, width - 1, &nested);
                text_add(&s, nested.data, nested.length);
                s.failed |= nested.failed;
                free(nested.data);
            }
            if (k + 1 < leading + (summary ? 1 : 0) + trailing)
                text_puts(&s, separator);
        }
    }
    text_puts(out, "[");
    if (s.length >= indent_len)
        text_add(out, s.data + indent_len, s.length - indent_len);
    text_puts(out, "]");
    out->failed |= s.failed;
    free(s.data);
}

kb_status kb_print_array(FILE *out, const kb_array *array) {
    printer pr = {.array = array, .kind = kind_of(array->dtype)};
    if (array->ndim == 0) {
        char buf[KB_FLOAT_TEXT_SIZE];
        if (pr.kind == KIND_FLOAT)
            kb_float_scalar_text(load_float(array->dtype, array->data), array->dtype, buf);
        else
            raw_text(&pr, array->data, buf);
        fprintf(out, "%s\n", buf);
        return KB_OK;
    }
    if (kb_array_size(array) == 0) {
        fputs("[]\n", out);
        return KB_OK;
    }
    pr.summarize = kb_array_size(array) > THRESHOLD;
    kb_status st = measure(&pr);
    if (st != KB_OK)
        return st;
    text t = {0};
    format_axis(&pr, 0, LINE_WIDTH, &t);
    if (t.failed) {
        free(t.data);
        return kb_fail(KB_ENOMEM, "out of memory printing an array");
    }
    fprintf(out, "%s\n", t.data);
    free(t.data);
    return KB_OK;
}
