/* The CSV tables kbench carries as data, read one record at a time with one wording of errors. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "util/csv_table.h"

kb_status kb_csv_fail(const kb_csv_reader *r, const char *format, ...) {
    char message[400];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    return kb_fail(KB_EFORMAT, "%s line %d: %s", r->name, r->line, message);
}

/* Splits one line into fields; quoted fields may hold commas and "" for a quote. */
static kb_status split(const kb_csv_reader *r, const char *line, size_t length, int *count) {
    size_t i = 0;
    *count = 0;
    for (;;) {
        if (*count == r->ncolumns)
            return kb_csv_fail(r, "more than %d fields", r->ncolumns);
        char *out = r->fields[(*count)++];
        size_t n = 0;
        if (i < length && line[i] == '"') {
            for (i++;; i++) {
                if (i >= length)
                    return kb_csv_fail(r, "field %d: unterminated quote", *count);
                if (line[i] == '"') {
                    if (i + 1 < length && line[i + 1] == '"')
                        i++;
                    else
                        break;
                }
                if (n + 1 >= KB_CSV_FIELD_SIZE)
                    return kb_csv_fail(r, "field %d is too long", *count);
                out[n++] = line[i];
            }
            i++; /* the closing quote */
            if (i < length && line[i] != ',')
                return kb_csv_fail(r, "field %d: text after the closing quote", *count);
        } else {
            for (; i < length && line[i] != ','; i++) {
                if (line[i] == '"')
                    return kb_csv_fail(r, "field %d: a quote inside an unquoted field", *count);
                if (n + 1 >= KB_CSV_FIELD_SIZE)
                    return kb_csv_fail(r, "field %d is too long", *count);
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

kb_status kb_csv_open(kb_csv_reader *r, const char *text, size_t length, const char *name,
                      const char *const *columns, int ncolumns) {
    *r = (kb_csv_reader){
        .text = text, .length = length, .name = name, .columns = columns, .ncolumns = ncolumns};
    /* On the heap: a record's fields are several kilobytes. */
    r->fields = malloc((size_t)ncolumns * KB_CSV_FIELD_SIZE);
    if (!r->fields)
        return kb_fail(KB_ENOMEM, "out of memory reading %s", name);
    if (!text)
        return kb_fail(KB_EINVAL, "%s: no text", name);
    return KB_OK;
}

void kb_csv_close(kb_csv_reader *r) {
    free(r->fields);
    r->fields = NULL;
}

static kb_status check_header(const kb_csv_reader *r, int count) {
    for (int c = 0; c < r->ncolumns; c++)
        if (c >= count || strcmp(r->fields[c], r->columns[c]) != 0)
            return kb_csv_fail(r,
                               "the header must name the columns %s,%s,...,%s in order; "
                               "column %d is '%.40s'",
                               r->columns[0], r->columns[1], r->columns[r->ncolumns - 1], c + 1,
                               c < count ? r->fields[c] : "(missing)");
    return count == r->ncolumns
               ? KB_OK
               : kb_csv_fail(r, "the header has %d columns, not %d", count, r->ncolumns);
}

kb_status kb_csv_next(kb_csv_reader *r, bool *more) {
    *more = false;
    while (r->pos < r->length) {
        r->line++;
        const char *line = r->text + r->pos;
        size_t n = 0;
        while (r->pos + n < r->length && line[n] != '\n')
            n++;
        r->pos += n + 1;
        if (memchr(line, '\0', n))
            return kb_csv_fail(r, "a NUL byte");
        if (n > 0 && line[n - 1] == '\r')
            n--;
        size_t lead = 0;
        while (lead < n && (line[lead] == ' ' || line[lead] == '\t'))
            lead++;
        if (lead == n || line[lead] == '#')
            continue;
        int count;
        kb_status st = split(r, line, n, &count);
        if (st == KB_OK && !r->header) {
            st = check_header(r, count);
            r->header = true;
            if (st == KB_OK)
                continue;
        }
        if (st == KB_OK && count != r->ncolumns)
            st = kb_csv_fail(r, "%d fields, not %d", count, r->ncolumns);
        *more = st == KB_OK;
        return st;
    }
    return r->header ? KB_OK : kb_fail(KB_EFORMAT, "%s: no header line", r->name);
}

kb_status kb_csv_whole(const kb_csv_reader *r, int col, const char *text, long min, long max,
                       long missing, long *out) {
    if (!*text) {
        *out = missing;
        return KB_OK;
    }
    bool digit = isdigit((unsigned char)text[0]);
    bool hex = text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
    errno = 0;
    char *end = NULL;
    /* Not strtol's base 0, which would read 010 as octal 8. */
    long v = digit ? strtol(text, &end, hex ? 16 : 10) : 0;
    if (!digit || errno || end == text || *end || v < min || v > max)
        return kb_csv_fail(r, "column %s: '%.40s' is not a whole number from %ld to %ld",
                           r->columns[col], text, min, max);
    *out = v;
    return KB_OK;
}

kb_status kb_csv_number(const kb_csv_reader *r, int col, double min, double max, double *out) {
    const char *text = r->fields[col];
    if (!*text) {
        *out = 0;
        return KB_OK;
    }
    errno = 0;
    char *end;
    double v = strtod(text, &end);
    if (errno || end == text || *end || !(v >= min && v <= max))
        return kb_csv_fail(r, "column %s: '%.40s' is not a number from %g to %g", r->columns[col],
                           text, min, max);
    *out = v;
    return KB_OK;
}

kb_status kb_csv_text(const kb_csv_reader *r, int col, char *out, size_t size, bool required) {
    const char *text = r->fields[col];
    if (required && !*text)
        return kb_csv_fail(r, "column %s is empty", r->columns[col]);
    if (strlen(text) >= size)
        return kb_csv_fail(r, "column %s is longer than %zu characters", r->columns[col], size - 1);
    memcpy(out, text, strlen(text) + 1);
    return KB_OK;
}
