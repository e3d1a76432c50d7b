/* Floating-point numbers as text and back, for values typed on the command line. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/float_text.h"
#include "kbench/half.h"

/* Decimal digits d[0] d[1] ... d[n-1] meaning 0.d... x 10^(exp10 + 1), that is d[0] is the
 * digit of 10^exp10; zero is the single digit 0. */
typedef struct digits {
    char d[32];
    int n;
    int exp10;
    bool negative;
} digits;

static bool reads_back(const char *text, double value, kb_dtype dtype) {
    switch (dtype) {
        case KB_F16:
            return kb_f32_to_f16(strtof(text, NULL)) == kb_f32_to_f16((float)value);
        case KB_BF16:
            return kb_f32_to_bf16(strtof(text, NULL)) == kb_f32_to_bf16((float)value);
        case KB_F32:
            return strtof(text, NULL) == (float)value;
        default:
            return strtod(text, NULL) == value;
    }
}

/* Parses "-d.ddde+XX" as printf's %e writes it, dropping trailing zeros of the digits. */
static void parse_e(const char *text, digits *out) {
    const char *p = text;
    out->negative = *p == '-';
    if (*p == '-')
        p++;
    out->n = 0;
    for (; *p && *p != 'e'; p++)
        if (*p != '.' && out->n < (int)sizeof out->d)
            out->d[out->n++] = *p;
    out->exp10 = *p == 'e' ? atoi(p + 1) : 0;
    while (out->n > 1 && out->d[out->n - 1] == '0')
        out->n--;
}

/* The fewest significant digits that read back as value in dtype, as Python's repr and
 * NumPy's dragon4 (unique mode) choose them. value is finite. */
static void shortest(double value, kb_dtype dtype, digits *out) {
    char text[48];
    for (int p = 1; p <= 17; p++) {
        snprintf(text, sizeof text, "%.*e", p - 1, value);
        if (reads_back(text, value, dtype))
            break;
    }
    parse_e(text, out);
}

/* At most max_frac digits after the point in positional notation, rounding the exact value
 * when the shortest digits need more (NumPy's precision=8). */
static void positional_digits(double value, kb_dtype dtype, int max_frac, digits *out) {
    shortest(value, dtype, out);
    if (out->n - 1 - out->exp10 <= max_frac)
        return;
    char text[400];
    snprintf(text, sizeof text, "%.*f", max_frac, value);
    /* Back to digits and an exponent: strip the point and leading zeros. */
    bool negative = text[0] == '-';
    const char *p = text + negative;
    const char *point = strchr(p, '.');
    int int_len = point ? (int)(point - p) : (int)strlen(p);
    digits d = {.negative = negative, .n = 0};
    bool nonzero = false;
    for (int i = 0; p[i]; i++) {
        if (p[i] == '.' || (!nonzero && p[i] == '0'))
            continue;
        if (!nonzero) { /* the leading digit: its power of ten */
            nonzero = true;
            d.exp10 = i < int_len ? int_len - 1 - i : int_len - i;
        }
        if (d.n < (int)sizeof d.d)
            d.d[d.n++] = p[i];
    }
    if (!nonzero) { /* rounded to zero */
        d.d[0] = '0';
        d.n = 1;
        d.exp10 = 0;
    }
    while (d.n > 1 && d.d[d.n - 1] == '0')
        d.n--;
    *out = d;
}

/* At most max_frac digits after the point of the mantissa in scientific notation. */
static void scientific_digits(double value, kb_dtype dtype, int max_frac, digits *out) {
    shortest(value, dtype, out);
    if (out->n - 1 <= max_frac)
        return;
    char text[48];
    snprintf(text, sizeof text, "%.*e", max_frac, value);
    parse_e(text, out);
}

/* Splits digits into the integer part (with its sign) and the fraction, positionally. */
static void split_positional(const digits *d, char *int_part, char *frac) {
    char *w = int_part;
    if (d->negative)
        *w++ = '-';
    if (d->exp10 < 0) {
        *w++ = '0';
        char *f = frac;
        for (int i = 0; i < -d->exp10 - 1; i++)
            *f++ = '0';
        memcpy(f, d->d, (size_t)d->n);
        f[d->n] = '\0';
    } else {
        for (int i = 0; i <= d->exp10; i++)
            *w++ = i < d->n ? d->d[i] : '0';
        int nfrac = d->n - 1 - d->exp10;
        nfrac = nfrac > 0 ? nfrac : 0;
        memcpy(frac, d->d + d->exp10 + 1, (size_t)nfrac);
        frac[nfrac] = '\0';
    }
    *w = '\0';
}

static int exponent_text(int exp10, int min_digits, char *buf) {
    return sprintf(buf, "e%c%0*d", exp10 < 0 ? '-' : '+', min_digits, abs(exp10));
}

static const char *non_finite(double value) {
    return isnan(value) ? "nan" : value < 0 ? "-inf" : "inf";
}

/* 10^precision, NumPy's finfo(dtype).precision being the decimal digits the type holds:
 * from this magnitude on NumPy 2 prints the type in scientific notation (float64 arrays from
 * 1e8, its scalars from 1e16 as Python's floats). bfloat16 is not in NumPy; ml_dtypes gives it
 * precision 2. */
static double positional_limit(kb_dtype dtype, bool scalar) {
    switch (dtype) {
        case KB_F16:
            return 1e3;
        case KB_BF16:
            return 1e2;
        case KB_F32:
            return 1e6;
        default:
            return scalar ? 1e16 : 1e8;
    }
}

void kb_float_scalar_text(double value, kb_dtype dtype, char *buf) {
    if (!isfinite(value)) {
        strcpy(buf, non_finite(value));
        return;
    }
    digits d;
    shortest(value, dtype, &d);
    double magnitude = fabs(value);
    if (value == 0 || (magnitude >= 1e-4 && magnitude < positional_limit(dtype, true))) {
        char int_part[KB_FLOAT_TEXT_SIZE], frac[KB_FLOAT_TEXT_SIZE];
        split_positional(&d, int_part, frac);
        sprintf(buf, "%s.%s", int_part, frac[0] ? frac : "0");
        return;
    }
    char *w = buf;
    if (d.negative)
        *w++ = '-';
    *w++ = d.d[0];
    if (d.n > 1) {
        *w++ = '.';
        memcpy(w, d.d + 1, (size_t)d.n - 1);
        w += d.n - 1;
    }
    exponent_text(d.exp10, 2, w);
}

void kb_float_layout_init(kb_float_layout *layout, kb_dtype dtype, const double *values,
                          size_t count) {
    memset(layout, 0, sizeof *layout);
    layout->dtype = dtype;
    double max_abs = 0, min_abs = INFINITY;
    bool any_finite = false, any_non_finite = false, any_neg_inf = false;
    for (size_t i = 0; i < count; i++) {
        double v = values[i];
        if (!isfinite(v)) {
            any_non_finite = true;
            any_neg_inf |= v < 0;
            continue;
        }
        any_finite = true;
        double a = fabs(v);
        if (a == 0)
            continue;
        max_abs = a > max_abs ? a : max_abs;
        min_abs = a < min_abs ? a : min_abs;
    }
    if (max_abs > 0)
        layout->scientific =
            max_abs >= positional_limit(dtype, false) || min_abs < 1e-4 || max_abs / min_abs > 1e3;

    if (any_finite) {
        /* NumPy's first pass: print every shown value and take the widest parts. */
        for (size_t i = 0; i < count; i++) {
            double v = values[i];
            if (!isfinite(v))
                continue;
            digits d;
            int int_len, frac_len;
            if (layout->scientific) {
                scientific_digits(v, dtype, 8, &d);
                int_len = 1 + d.negative;
                frac_len = d.n - 1;
                char e[16];
                int exp_len = exponent_text(d.exp10, 2, e) - 2;
                layout->exp_size = exp_len > layout->exp_size ? exp_len : layout->exp_size;
            } else {
                positional_digits(v, dtype, 8, &d);
                char int_part[KB_FLOAT_TEXT_SIZE], frac[KB_FLOAT_TEXT_SIZE];
                split_positional(&d, int_part, frac);
                int_len = (int)strlen(int_part);
                frac_len = (int)strlen(frac);
            }
            layout->pad_left = int_len > layout->pad_left ? int_len : layout->pad_left;
            if (layout->scientific)
                layout->precision = frac_len > layout->precision ? frac_len : layout->precision;
            else
                layout->pad_right = frac_len > layout->pad_right ? frac_len : layout->pad_right;
        }
        if (layout->scientific)
            layout->pad_right = layout->exp_size + 2 + layout->precision;
    }
    if (any_non_finite) {
        /* Room for "nan" and "inf" ("-inf"), right-aligned under the numbers. */
        int offset = layout->pad_right + 1;
        int need = 3 + any_neg_inf - offset;
        layout->pad_left = need > layout->pad_left ? need : layout->pad_left;
    }
}

void kb_float_element_text(const kb_float_layout *layout, double value, char *buf) {
    if (!isfinite(value)) {
        sprintf(buf, "%*s", layout->pad_left + layout->pad_right + 1, non_finite(value));
        return;
    }
    digits d;
    char int_part[KB_FLOAT_TEXT_SIZE], frac[KB_FLOAT_TEXT_SIZE];
    if (layout->scientific) {
        /* Every mantissa gets the same number of digits. Past the shortest ones NumPy prints
         * more of the exact binary value, correctly rounded, as printf does: a float16
         * 8.464e-06 is 8.46e-06 at its shortest. */
        char text[48];
        snprintf(text, sizeof text, "%.*e", layout->precision, value);
        parse_e(text, &d);
        sprintf(int_part, "%s%c", d.negative ? "-" : "", d.d[0]);
        int n = d.n - 1; /* trailing zeros were dropped: put them back */
        memcpy(frac, d.d + 1, (size_t)n);
        memset(frac + n, '0', (size_t)(layout->precision - n));
        frac[layout->precision] = '\0';
        char e[16];
        exponent_text(d.exp10, layout->exp_size, e);
        sprintf(buf, "%*s.%s%s", layout->pad_left, int_part, frac, e);
        return;
    }
    positional_digits(value, layout->dtype, 8, &d);
    split_positional(&d, int_part, frac);
    sprintf(buf, "%*s.%-*s", layout->pad_left, int_part, layout->pad_right, frac);
}
