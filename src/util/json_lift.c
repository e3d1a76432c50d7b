/* Arrays of arrays of integers lifted out of JSON text before it is parsed (json_lift.h). */
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "util/json_lift.h"
#include "util/reserve.h"

/* The text and where the scan is; the rows of the value being lifted, before they are
 * copied out at their size. */
typedef struct scan {
    char *t;
    size_t n, i;
    int64_t *values, *lengths;
    int64_t values_cap, lengths_cap;
} scan;

/* Room for need items in *items; false when out of memory (the value is then left to the
 * parser, which needs more memory than this did). */
static bool reserve(int64_t **items, int64_t *capacity, int64_t need) {
    if (need <= *capacity)
        return true;
    int64_t *grown = kb_reserve(*items, capacity, need, sizeof **items);
    if (grown)
        *items = grown;
    return grown != NULL;
}

static int at(const scan *s) {
    return s->i < s->n ? (unsigned char)s->t[s->i] : -1;
}

static void space(scan *s) {
    while (s->i < s->n &&
           (s->t[s->i] == ' ' || s->t[s->i] == '\n' || s->t[s->i] == '\r' || s->t[s->i] == '\t'))
        s->i++;
}

/* What ends a number or a literal. */
static bool ends_scalar(char c) {
    return c == ',' || c == ']' || c == '}' || c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

/* Past a string that starts at s->i; false when it does not end. */
static bool skip_string(scan *s) {
    for (s->i++; s->i < s->n; s->i++) {
        if (s->t[s->i] == '\\')
            s->i++;
        else if (s->t[s->i] == '"')
            return s->i++, true;
    }
    return false;
}

/* Past the value at s->i, whatever it is. Brackets are counted, not matched: in text that
 * is JSON they agree, and text that is not is the parser's to refuse. */
static bool skip_value(scan *s) {
    space(s);
    int c = at(s);
    if (c == '"')
        return skip_string(s);
    if (c != '{' && c != '[') {
        while (s->i < s->n && !ends_scalar(s->t[s->i]))
            s->i++;
        return true;
    }
    for (size_t depth = 0; s->i < s->n;) {
        c = at(s);
        if (c == '"') {
            if (!skip_string(s))
                return false;
            continue;
        }
        s->i++;
        if (c == '{' || c == '[')
            depth++;
        else if ((c == '}' || c == ']') && --depth == 0)
            return true;
    }
    return false;
}

/* The key at s->i and the colon after it; *matches when it is key, byte for byte. */
static bool read_key(scan *s, const char *key, bool *matches) {
    space(s);
    if (at(s) != '"')
        return false;
    size_t start = s->i + 1;
    if (!skip_string(s))
        return false;
    size_t len = s->i - 1 - start;
    *matches = len == strlen(key) && memcmp(s->t + start, key, len) == 0;
    space(s);
    if (at(s) != ':')
        return false;
    s->i++;
    space(s);
    return true;
}

/* After a member or an element: true at ',' (passed), false at the closing bracket (passed)
 * or anything else (*ok false). */
static bool next(scan *s, int close, bool *ok) {
    space(s);
    int c = at(s);
    s->i++;
    *ok = c == ',' || c == close;
    return c == ',';
}

/* A non-negative integer literal that fits in an int64, into *v. */
static bool integer(scan *s, int64_t *v) {
    int c = at(s);
    if (c < '0' || c > '9')
        return false;
    int64_t x = 0;
    size_t start = s->i;
    for (; (c = at(s)) >= '0' && c <= '9'; s->i++) {
        if (x > (INT64_MAX - (c - '0')) / 10)
            return false;
        x = 10 * x + (c - '0');
    }
    if (s->t[start] == '0' && s->i - start > 1)
        return false; /* a leading zero: not JSON */
    *v = x;
    return true;
}

/* The rows at s->i into s->values and s->lengths, their counts in *nvalues and *nrows; false
 * (s->i anywhere) when the value is not an array of arrays of such integers. */
static bool rows(scan *s, int64_t *nvalues, int64_t *nrows) {
    *nvalues = *nrows = 0;
    s->i++; /* '[' */
    space(s);
    if (at(s) == ']')
        return s->i++, true;
    bool ok = true;
    do {
        space(s);
        if (at(s) != '[' || !reserve(&s->lengths, &s->lengths_cap, *nrows + 1))
            return false;
        s->i++;
        int64_t first = *nvalues;
        space(s);
        if (at(s) == ']')
            s->i++;
        else
            do {
                space(s);
                if (!reserve(&s->values, &s->values_cap, *nvalues + 1) ||
                    !integer(s, &s->values[*nvalues]))
                    return false;
                ++*nvalues;
            } while (next(s, ']', &ok));
        if (!ok)
            return false;
        s->lengths[(*nrows)++] = *nvalues - first;
    } while (next(s, ']', &ok));
    return ok;
}

/* Lifts the value at s->i into *item when it is rows, and blanks it; else leaves it. */
static kb_status lift(scan *s, kb_int_rows *item) {
    size_t start = s->i;
    int64_t nvalues, nrows;
    if (!rows(s, &nvalues, &nrows)) {
        s->i = start;
        return skip_value(s) ? KB_OK : KB_EFORMAT;
    }
    free(item->values);
    free(item->row_lengths);
    *item = (kb_int_rows){.lifted = true,
                          .values = malloc((size_t)nvalues * sizeof(int64_t) + 1),
                          .row_lengths = malloc((size_t)nrows * sizeof(int64_t) + 1),
                          .nvalues = nvalues,
                          .nrows = nrows};
    if (!item->values || !item->row_lengths)
        return kb_fail(KB_ENOMEM, "out of memory");
    if (nvalues)
        memcpy(item->values, s->values, (size_t)nvalues * sizeof(int64_t));
    if (nrows)
        memcpy(item->row_lengths, s->lengths, (size_t)nrows * sizeof(int64_t));
    /* "[", then blanks that keep the lines, then "]": the same bytes and line breaks. */
    for (size_t k = start + 1; k + 1 < s->i; k++)
        if (s->t[k] != '\n')
            s->t[k] = ' ';
    return KB_OK;
}

/* The elements of the array at s->i; KB_EFORMAT stops the scan where the text is not JSON. */
static kb_status elements(scan *s, const char *member, kb_json_lifted *out) {
    s->i++;
    space(s);
    if (at(s) == ']')
        return KB_OK;
    bool ok = true;
    size_t index = 0;
    do {
        space(s);
        if (at(s) != '{') {
            if (!skip_value(s))
                return KB_EFORMAT;
        } else {
            s->i++;
            space(s);
            if (at(s) == '}')
                s->i++;
            else
                do {
                    bool matches;
                    if (!read_key(s, member, &matches))
                        return KB_EFORMAT;
                    if (matches && at(s) == '[') {
                        int64_t cap = (int64_t)out->count;
                        kb_int_rows *items = out->items;
                        if (index >= out->count) {
                            items = kb_reserve(items, &cap, (int64_t)index + 1, sizeof *items);
                            if (!items)
                                return kb_fail(KB_ENOMEM, "out of memory");
                            memset(items + out->count, 0,
                                   ((size_t)cap - out->count) * sizeof *items);
                            out->items = items;
                            out->count = (size_t)cap;
                        }
                        kb_status st = lift(s, &out->items[index]);
                        if (st != KB_OK)
                            return st;
                    } else if (!skip_value(s)) {
                        return KB_EFORMAT;
                    }
                } while (next(s, '}', &ok));
            if (!ok)
                return KB_EFORMAT;
        }
        index++;
    } while (next(s, ']', &ok));
    return ok ? KB_OK : KB_EFORMAT;
}

kb_status kb_json_lift_rows(char *text, size_t length, const char *array, const char *member,
                            kb_json_lifted *out) {
    memset(out, 0, sizeof *out);
    scan s = {.t = text, .n = length};
    kb_status st = KB_EFORMAT;
    space(&s);
    if (at(&s) == '{') {
        s.i++;
        space(&s);
        bool ok = at(&s) != '}';
        while (ok) {
            bool matches;
            if (!read_key(&s, array, &matches))
                break;
            st = matches && at(&s) == '[' ? elements(&s, member, out)
                 : skip_value(&s)         ? KB_OK
                                          : KB_EFORMAT;
            if (st != KB_OK || !next(&s, '}', &ok))
                break;
        }
    }
    free(s.values);
    free(s.lengths);
    /* Text that is not JSON only ends the scan: the parser says what is wrong with it. */
    return st == KB_ENOMEM ? st : KB_OK;
}

const kb_int_rows *kb_json_lifted_item(const kb_json_lifted *lifted, size_t i) {
    return lifted && i < lifted->count && lifted->items[i].lifted ? &lifted->items[i] : NULL;
}

void kb_json_lifted_free(kb_json_lifted *lifted) {
    for (size_t i = 0; i < lifted->count; i++) {
        free(lifted->items[i].values);
        free(lifted->items[i].row_lengths);
    }
    free(lifted->items);
    memset(lifted, 0, sizeof *lifted);
}
