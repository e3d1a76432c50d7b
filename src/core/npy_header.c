/* The .npy header: parsing and checking the Python dict literal that describes the array. */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "core/fail.h"
#include "core/npy_format.h"
#include "kbench/npy.h"

/* The header is the repr() of a Python dict, which NumPy reads with ast.literal_eval. Rather
 * than a general Python literal parser, this accepts exactly the literals that can make up a
 * valid header, with Python's syntax for each (either quote, any whitespace, optional
 * trailing commas), and rejects the rest. Every failure names what is wrong in one line. */

size_t kb_npy_prefix_len(int major, int minor) {
    if (minor != 0)
        return 0;
    if (major == 1)
        return KB_NPY_MAGIC_LEN + 2 + 2;
    if (major == 2 || major == 3)
        return KB_NPY_MAGIC_LEN + 2 + 4;
    return 0;
}

size_t kb_npy_header_end(const void *buf, size_t size) {
    const unsigned char *b = buf;
    if (size < KB_NPY_MAGIC_LEN + 2 || memcmp(b, KB_NPY_MAGIC, KB_NPY_MAGIC_LEN) != 0)
        return 0;
    size_t prefix = kb_npy_prefix_len(b[6], b[7]);
    if (prefix == 0 || size < prefix)
        return 0;
    size_t length = (size_t)b[8] | (size_t)b[9] << 8;
    if (prefix == 12)
        length |= (size_t)b[10] << 16 | (size_t)b[11] << 24;
    return prefix + length;
}

typedef struct cursor {
    const char *p, *end;
    bool python2_longs; /* 1.0 and 2.0 files written by Python 2 may have 3L for 3 */
} cursor;

static bool at(const cursor *c, char ch) {
    return c->p < c->end && *c->p == ch;
}

static bool is_digit(char ch) {
    return ch >= '0' && ch <= '9';
}

static bool is_name_char(char ch) {
    return is_digit(ch) || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_';
}

/* Inside brackets Python joins lines, so newlines count as spaces there, and NumPy pads the
 * header with spaces and ends it with a newline. */
static void skip_space(cursor *c) {
    while (c->p < c->end &&
           (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r' || *c->p == '\f'))
        c->p++;
}

/* Copies text for a message: printable ASCII only, since the file's bytes may be anything,
 * and cut short so one bad field cannot swamp the line. */
static const char *printable(const char *s, size_t n, char *out, size_t cap) {
    size_t limit = cap - 4, j = 0;
    for (size_t i = 0; i < n; i++) {
        if (j == limit) {
            memcpy(out + j, "...", 3);
            j += 3;
            break;
        }
        out[j++] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
    }
    out[j] = '\0';
    return out;
}

/* What a value starts with, for "expected X, found Y" messages. */
static const char *found(const cursor *c, char *out, size_t cap) {
    if (c->p >= c->end)
        return "the end of the header";
    const char *q = c->p;
    while (q < c->end && q - c->p < 16 && *q != ',' && *q != '}' && *q != ' ' && *q != '\n')
        q++;
    if (q == c->p)
        q++;
    char text[24];
    printable(c->p, (size_t)(q - c->p), text, sizeof text);
    /* A string literal shows its own quotes. */
    bool quote = *c->p != '\'' && *c->p != '"';
    size_t n = strlen(text);
    if (n + 3 > cap)
        n = cap - 3;
    size_t j = 0;
    if (quote)
        out[j++] = '\'';
    memcpy(out + j, text, n);
    j += n;
    if (quote)
        out[j++] = '\'';
    out[j] = '\0';
    return out;
}

/* A string literal without escapes: NumPy's keys and descrs never need one, and a backslash
 * would change what the bytes mean. */
static kb_status parse_string(cursor *c, const char **s, size_t *n) {
    char quote = *c->p++;
    const char *start = c->p;
    while (c->p < c->end && *c->p != quote) {
        if (*c->p == '\\')
            return kb_fail(KB_EFORMAT, "npy: escape sequences in header strings are not "
                                       "supported");
        if (*c->p == '\n' || *c->p == '\r')
            break;
        c->p++;
    }
    if (c->p >= c->end || *c->p != quote)
        return kb_fail(KB_EFORMAT, "npy: unterminated string in header");
    *s = start;
    *n = (size_t)(c->p - start);
    c->p++;
    return KB_OK;
}

/* A Python int literal: an optional sign, decimal digits (no leading zeros, '_' between
 * digits allowed), and in old versions an 'L' suffix. */
static kb_status parse_int(cursor *c, int64_t *value) {
    bool negative = false;
    if (at(c, '-') || at(c, '+')) {
        negative = *c->p == '-';
        c->p++;
        skip_space(c);
    }
    if (c->p >= c->end || !is_digit(*c->p)) {
        char what[32];
        return kb_fail(KB_EFORMAT, "npy: shape must be a tuple of integers, found %s",
                       found(c, what, sizeof what));
    }
    const char *start = c->p;
    bool overflow = false;
    uint64_t v = 0;
    while (c->p < c->end && (is_digit(*c->p) || (*c->p == '_' && c->p + 1 < c->end &&
                                                 is_digit(c->p[1]) && is_digit(c->p[-1])))) {
        if (*c->p != '_') {
            unsigned d = (unsigned)(*c->p - '0');
            if (v > (UINT64_MAX - d) / 10)
                overflow = true;
            else
                v = v * 10 + d;
        }
        c->p++;
    }
    if (*start == '0' && v != 0) {
        char text[32];
        return kb_fail(KB_EFORMAT, "npy: bad integer '%s' in shape (leading zero)",
                       printable(start, (size_t)(c->p - start), text, sizeof text));
    }
    if (c->python2_longs && (at(c, 'L') || at(c, 'l')))
        c->p++;
    if (c->p < c->end && (is_name_char(*c->p) || *c->p == '.')) {
        cursor bad = {start, c->end, false};
        char what[32];
        return kb_fail(KB_EFORMAT, "npy: shape must be a tuple of integers, found %s",
                       found(&bad, what, sizeof what));
    }
    if (overflow || v > (uint64_t)INT64_MAX) {
        char text[32];
        return kb_fail(KB_EFORMAT, "npy: dimension %s%s in shape is too large", negative ? "-" : "",
                       printable(start, (size_t)(c->p - start), text, sizeof text));
    }
    *value = negative ? -(int64_t)v : (int64_t)v;
    return KB_OK;
}

static kb_status parse_shape(cursor *c, kb_npy_header *h) {
    if (!at(c, '(')) {
        char what[32];
        return kb_fail(KB_EFORMAT, "npy: shape must be a tuple, found %s",
                       found(c, what, sizeof what));
    }
    c->p++;
    size_t count = 0;
    bool comma = false;
    for (;;) {
        skip_space(c);
        if (at(c, ')'))
            break;
        if (count > 0 && !comma) {
            char what[32];
            return kb_fail(KB_EFORMAT, "npy: bad shape: expected ',' or ')', found %s",
                           found(c, what, sizeof what));
        }
        int64_t dim = 0;
        kb_status st = parse_int(c, &dim);
        if (st != KB_OK)
            return st;
        if (dim < 0)
            return kb_fail(KB_EFORMAT, "npy: negative dimension %lld in shape", (long long)dim);
        if (count < KB_MAX_DIMS)
            h->shape[count] = dim;
        count++;
        skip_space(c);
        comma = at(c, ',');
        if (comma)
            c->p++;
    }
    c->p++;
    /* (3) is the integer 3 in Python; only (3,) is a tuple. */
    if (count == 1 && !comma)
        return kb_fail(KB_EFORMAT, "npy: shape must be a tuple, found an integer in "
                                   "parentheses");
    if (count > KB_MAX_DIMS)
        return kb_fail(KB_EUNSUPPORTED, "npy: shape has %zu dimensions; kbench supports at most %d",
                       count, KB_MAX_DIMS);
    h->ndim = (int)count;
    return KB_OK;
}

static kb_status parse_bool(cursor *c, bool *value) {
    const char *start = c->p;
    while (c->p < c->end && is_name_char(*c->p))
        c->p++;
    size_t n = (size_t)(c->p - start);
    if (n == 4 && memcmp(start, "True", 4) == 0)
        *value = true;
    else if (n == 5 && memcmp(start, "False", 5) == 0)
        *value = false;
    else {
        cursor bad = {start, c->end, false};
        char what[32];
        return kb_fail(KB_EFORMAT, "npy: fortran_order must be True or False, found %s",
                       found(&bad, what, sizeof what));
    }
    return KB_OK;
}

/* Type codes NumPy may write that kbench has no dtype for, named for the message. */
static const char *unsupported_kind(char kind) {
    switch (kind) {
        case 'O':
            return "object";
        case 'S':
        case 'a':
            return "byte string";
        case 'U':
            return "unicode string";
        case 'V':
            return "void";
        case 'M':
            return "datetime64";
        case 'm':
            return "timedelta64";
        case 'c':
            return "complex";
        default:
            return NULL;
    }
}

/* A descr string is a byte order ('<', '>', '|', or '=' and none for native), a kind letter
 * and the item size in bytes, such as '<f4'; bfloat16 has no type code, and is written by
 * name as ml_dtypes registers it with NumPy. */
static kb_status parse_descr_string(const char *s, size_t n, kb_dtype as, kb_npy_header *h) {
    char text[48];
    if (n == 8 && memcmp(s, "bfloat16", 8) == 0) {
        h->dtype = KB_BF16;
        h->byteorder = KB_NPY_HOST_ORDER; /* ml_dtypes' types are in the writer's order */
        return KB_OK;
    }
    size_t i = 0;
    char order = '=';
    if (n > 0 && (s[0] == '<' || s[0] == '>' || s[0] == '|' || s[0] == '=')) {
        order = s[0];
        i = 1;
    }
    if (i == n)
        return kb_fail(KB_EFORMAT, "npy: bad descr '%s'", printable(s, n, text, sizeof text));
    char kind = s[i++];
    const char *what = unsupported_kind(kind);
    if (what && kind != 'V')
        return kb_fail(KB_EUNSUPPORTED, "npy: unsupported dtype '%s' (%s)",
                       printable(s, n, text, sizeof text), what);
    unsigned size = 0;
    size_t digits = 0;
    for (; i < n && is_digit(s[i]) && digits < 3; i++, digits++)
        size = size * 10 + (unsigned)(s[i] - '0');
    if (i != n || digits == 0)
        return kb_fail(KB_EFORMAT, "npy: bad descr '%s'", printable(s, n, text, sizeof text));
    if (kind == 'V') {
        /* Untyped items: read as the caller's dtype, never guessed. */
        if (as == KB_NPY_AS_NONE)
            return kb_fail(KB_EUNSUPPORTED,
                           "npy: unsupported dtype '%s' (void: untyped %u-byte items; if they "
                           "hold a type such as bfloat16, name it: --as bfloat16)",
                           printable(s, n, text, sizeof text), size);
        if (size != kb_dtype_size(as))
            return kb_fail(
                KB_EINVAL, "npy: cannot read dtype '%s' (%u-byte items) as %s (%zu bytes)",
                printable(s, n, text, sizeof text), size, kb_dtype_name(as), kb_dtype_size(as));
        h->dtype = as;
        h->byteorder = size == 1 ? '|' : order == '|' || order == '=' ? KB_NPY_HOST_ORDER : order;
        return KB_OK;
    }
    static const struct {
        char kind;
        unsigned size;
        kb_dtype dtype;
    } codes[] = {
        {'b', 1, KB_BOOL},   {'i', 1, KB_INT8},  {'i', 2, KB_INT16},  {'i', 4, KB_INT32},
        {'i', 8, KB_INT64},  {'u', 1, KB_UINT8}, {'u', 2, KB_UINT16}, {'u', 4, KB_UINT32},
        {'u', 8, KB_UINT64}, {'f', 2, KB_F16},   {'f', 4, KB_F32},    {'f', 8, KB_F64},
    };
    for (size_t k = 0; k < sizeof codes / sizeof codes[0]; k++) {
        if (codes[k].kind != kind || codes[k].size != size)
            continue;
        if (size == 1) {
            order = '|'; /* byte order does not apply, whatever the file says */
        } else if (order == '|') {
            return kb_fail(KB_EFORMAT, "npy: bad descr '%s': '|' is only for single-byte types",
                           printable(s, n, text, sizeof text));
        } else if (order == '=') {
            order = KB_NPY_HOST_ORDER;
        }
        h->dtype = codes[k].dtype;
        h->byteorder = order;
        return KB_OK;
    }
    if (kind == 'f' && (size == 10 || size == 12 || size == 16))
        return kb_fail(KB_EUNSUPPORTED, "npy: unsupported dtype '%s' (long double)",
                       printable(s, n, text, sizeof text));
    return kb_fail(KB_EFORMAT, "npy: bad descr '%s'", printable(s, n, text, sizeof text));
}

static kb_status parse_descr(cursor *c, kb_dtype as, kb_npy_header *h) {
    if (at(c, '[') || at(c, '('))
        return kb_fail(KB_EUNSUPPORTED, "npy: unsupported dtype: structured (descr is a list)");
    if (!at(c, '\'') && !at(c, '"')) {
        char what[32];
        return kb_fail(KB_EFORMAT, "npy: descr must be a string, found %s",
                       found(c, what, sizeof what));
    }
    const char *s;
    size_t n;
    kb_status st = parse_string(c, &s, &n);
    if (st != KB_OK)
        return st;
    return parse_descr_string(s, n, as, h);
}

enum { KEY_DESCR, KEY_FORTRAN_ORDER, KEY_SHAPE, KEY_COUNT };
static const char *const key_names[KEY_COUNT] = {"descr", "fortran_order", "shape"};

static kb_status parse_dict(cursor *c, kb_dtype as, kb_npy_header *h) {
    skip_space(c);
    if (!at(c, '{')) {
        char what[32];
        return kb_fail(KB_EFORMAT, "npy: header is not a dict: found %s",
                       found(c, what, sizeof what));
    }
    c->p++;
    bool seen[KEY_COUNT] = {false};
    for (;;) {
        skip_space(c);
        if (at(c, '}'))
            break;
        if (!at(c, '\'') && !at(c, '"')) {
            char what[32];
            if (c->p >= c->end)
                return kb_fail(KB_EFORMAT, "npy: header dict is not closed");
            return kb_fail(KB_EFORMAT, "npy: header keys must be strings, found %s",
                           found(c, what, sizeof what));
        }
        const char *s;
        size_t n;
        kb_status st = parse_string(c, &s, &n);
        if (st != KB_OK)
            return st;
        int key = 0;
        while (key < KEY_COUNT &&
               !(strlen(key_names[key]) == n && memcmp(s, key_names[key], n) == 0))
            key++;
        char text[48];
        if (key == KEY_COUNT)
            return kb_fail(KB_EFORMAT, "npy: unknown key '%s' in header",
                           printable(s, n, text, sizeof text));
        if (seen[key])
            return kb_fail(KB_EFORMAT, "npy: duplicate key '%s' in header", key_names[key]);
        seen[key] = true;
        skip_space(c);
        if (!at(c, ':')) {
            char what[32];
            return kb_fail(KB_EFORMAT, "npy: expected ':' after '%s', found %s", key_names[key],
                           found(c, what, sizeof what));
        }
        c->p++;
        skip_space(c);
        if (key == KEY_DESCR)
            st = parse_descr(c, as, h);
        else if (key == KEY_FORTRAN_ORDER)
            st = parse_bool(c, &h->fortran_order);
        else
            st = parse_shape(c, h);
        if (st != KB_OK)
            return st;
        skip_space(c);
        if (at(c, ',')) {
            c->p++;
            continue;
        }
        if (at(c, '}'))
            break;
        char what[32];
        if (c->p >= c->end)
            return kb_fail(KB_EFORMAT, "npy: header dict is not closed");
        return kb_fail(KB_EFORMAT, "npy: expected ',' or '}' after '%s', found %s", key_names[key],
                       found(c, what, sizeof what));
    }
    c->p++;
    skip_space(c);
    if (c->p != c->end) {
        char what[32];
        return kb_fail(KB_EFORMAT, "npy: unexpected %s after the header dict",
                       found(c, what, sizeof what));
    }
    for (int key = 0; key < KEY_COUNT; key++)
        if (!seen[key])
            return kb_fail(KB_EFORMAT, "npy: header has no '%s' key", key_names[key]);
    return KB_OK;
}

kb_status kb_npy_parse_header_as(const void *buf, size_t size, kb_dtype as, kb_npy_header *out) {
    if ((!buf && size > 0) || !out)
        return kb_fail(KB_EINVAL, "npy: no buffer or no header to fill");
    const unsigned char *b = buf;
    if (size == 0)
        return kb_fail(KB_EFORMAT, "npy: empty file: not a .npy file");
    size_t magic = size < KB_NPY_MAGIC_LEN ? size : KB_NPY_MAGIC_LEN;
    if (memcmp(b, KB_NPY_MAGIC, magic) != 0)
        return kb_fail(KB_EFORMAT, "npy: bad magic: not a .npy file");
    if (size < KB_NPY_MAGIC_LEN + 2)
        return kb_fail(KB_EFORMAT, "npy: truncated header: %zu bytes", size);
    kb_npy_header h;
    memset(&h, 0, sizeof h);
    h.major = b[6];
    h.minor = b[7];
    size_t prefix = kb_npy_prefix_len(h.major, h.minor);
    if (prefix == 0)
        return kb_fail(KB_EUNSUPPORTED, "npy: unsupported format version %d.%d", h.major, h.minor);
    if (size < prefix)
        return kb_fail(KB_EFORMAT, "npy: truncated header: %zu bytes", size);
    size_t end = kb_npy_header_end(b, size);
    if (end > size)
        return kb_fail(KB_EFORMAT, "npy: truncated header: %zu bytes announced, %zu present",
                       end - prefix, size - prefix);

    cursor c = {(const char *)b + prefix, (const char *)b + end, h.major < 3};
    kb_status st = parse_dict(&c, as, &h);
    if (st != KB_OK)
        return st;

    size_t itemsize = kb_dtype_size(h.dtype);
    int64_t count;
    if (kb_shape_size(h.ndim, h.shape, itemsize, &count) != KB_OK)
        return kb_fail(KB_EFORMAT, "npy: shape is too large: the data would exceed 2^63 bytes");
    uint64_t bytes = (uint64_t)count * itemsize;
    if (bytes > SIZE_MAX - end)
        return kb_fail(KB_EUNSUPPORTED, "npy: %llu bytes of data do not fit in memory here",
                       (unsigned long long)bytes);
    h.data_offset = end;
    h.data_size = (size_t)bytes;
    *out = h;
    return KB_OK;
}

kb_status kb_npy_parse_header(const void *buf, size_t size, kb_npy_header *out) {
    return kb_npy_parse_header_as(buf, size, KB_NPY_AS_NONE, out);
}
