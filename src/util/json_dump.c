/* JSON text as kbench writes it: jansson's, with every real in its shortest form. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "util/c_locale.h"
#include "util/json_dump.h"

/* Room for any number jansson writes; a longer token is copied as it is. */
#define TOKEN_SIZE 64

char *kb_json_dumps(const json_t *value, size_t flags) {
    char *raw = json_dumps(value, flags);
    if (!raw) {
        kb_fail(KB_ENOMEM, "out of memory while writing JSON");
        return NULL;
    }
    char *text = kb_json_shortest_reals(raw);
    free(raw);
    return text;
}

/* v as printf's %e writes it ("-d.ddde-XX") with the fewest significant digits, 1 to 17, that
 * read back as v; 17 always do. Found by bisection: v correctly rounded to more digits is
 * nearer v, so once some number of digits reads back as v, every larger number does. Five
 * tries rather than up to seventeen (an augmented trace writes millions of reals). */
static void shortest_e(double v, char *buf, size_t size) {
    int lo = 1, hi = 17; /* hi reads back; every count below lo does not */
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        snprintf(buf, size, "%.*e", mid - 1, v);
        if (strtod(buf, NULL) == v)
            hi = mid;
        else
            lo = mid + 1;
    }
    snprintf(buf, size, "%.*e", hi - 1, v);
}

static void put_zeros(FILE *f, int n) {
    for (int i = 0; i < n; i++)
        fputc('0', f);
}

/* The digits of e (as shortest_e writes them) laid out as Python's repr: positional when the
 * decimal exponent is from -5 (exclusive) to 16 (exclusive), else d.ddde+XX. */
static void put_real(FILE *f, const char *e) {
    const char *p = e;
    if (*p == '-')
        fputc(*p++, f);
    char digits[TOKEN_SIZE];
    int n = 0;
    for (; *p != 'e'; p++)
        if (*p != '.')
            digits[n++] = *p;
    while (n > 1 && digits[n - 1] == '0')
        n--;
    int exponent = atoi(p + 1);
    if (exponent < -4 || exponent >= 16) {
        fputc(digits[0], f);
        if (n > 1) {
            fputc('.', f);
            fwrite(digits + 1, 1, (size_t)n - 1, f);
        }
        fputs(p, f);
    } else if (exponent < 0) {
        fputs("0.", f);
        put_zeros(f, -exponent - 1);
        fwrite(digits, 1, (size_t)n, f);
    } else if (n <= exponent + 1) {
        fwrite(digits, 1, (size_t)n, f);
        put_zeros(f, exponent + 1 - n);
        fputs(".0", f);
    } else {
        fwrite(digits, 1, (size_t)exponent + 1, f);
        fputc('.', f);
        fwrite(digits + exponent + 1, 1, (size_t)(n - exponent - 1), f);
    }
}

/* One number token of length n: a real in its shortest form, anything else as it is. */
static void put_number(FILE *f, const char *token, size_t n) {
    char text[TOKEN_SIZE];
    bool real = memchr(token, '.', n) || memchr(token, 'e', n) || memchr(token, 'E', n);
    if (real && n < sizeof text) {
        memcpy(text, token, n);
        text[n] = '\0';
        char *end;
        double v = strtod(text, &end);
        if (*end == '\0' && isfinite(v)) {
            char e[TOKEN_SIZE];
            shortest_e(v, e, sizeof e);
            put_real(f, e);
            return;
        }
    }
    fwrite(token, 1, n, f);
}

/* The length of the string token at s (its opening quote at s[0]), quotes included. */
static size_t string_length(const char *s) {
    size_t i = 1;
    while (s[i] && s[i] != '"')
        i += s[i] == '\\' && s[i + 1] ? 2 : 1;
    return s[i] ? i + 1 : i;
}

char *kb_json_shortest_reals(const char *text) {
    char *out = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&out, &size);
    if (!f) {
        kb_fail(KB_ENOMEM, "out of memory while writing JSON");
        return NULL;
    }
    /* strtod and printf read and write the decimal point of the thread's locale. */
    locale_t c = kb_c_locale(), previous = c ? uselocale(c) : (locale_t)0;
    for (const char *p = text; *p;) {
        size_t n;
        if (*p == '"') {
            n = string_length(p);
            fwrite(p, 1, n, f);
        } else if (*p == '-' || (*p >= '0' && *p <= '9')) {
            n = strspn(p, "+-.0123456789eE");
            put_number(f, p, n);
        } else {
            n = strcspn(p, "\"-0123456789");
            fwrite(p, 1, n, f);
        }
        p += n;
    }
    if (c)
        uselocale(previous);
    bool failed = ferror(f) != 0;
    if (fclose(f) != 0 || failed) {
        free(out);
        kb_fail(KB_ENOMEM, "out of memory while writing JSON");
        return NULL;
    }
    return out;
}

json_t *kb_json_real(double v) {
    return isfinite(v) ? json_real(v) : json_null();
}
