#ifndef KB_APP_FLOAT_TEXT_H
#define KB_APP_FLOAT_TEXT_H

#include <stdbool.h>
#include <stddef.h>

#include "kbench/dtype.h"

/* Floating-point values as NumPy prints them: the shortest digits that read back as the same
 * value of the array's dtype (so a float32 0.1 prints as 0.1, not 0.100000001), in NumPy's
 * positional or scientific layout. */

#define KB_FLOAT_TEXT_SIZE 64

/* A 0-d array or scalar, as str(np.float32(x)): "3.5", "1.0", "1e-05", "-inf", "nan". */
void kb_float_scalar_text(double value, kb_dtype dtype, char *buf);

/* The layout shared by all elements of one printed array (NumPy's FloatingFormat with its
 * default options: precision 8, "maxprec", no suppression of small numbers), chosen from the
 * elements that will be shown. */
typedef struct kb_float_layout {
    kb_dtype dtype;
    bool scientific;
    int precision; /* scientific: digits after the point, the same for every element */
    int pad_left;  /* characters before the point */
    int pad_right; /* characters after the point (positional) */
    int exp_size;  /* digits of the exponent (scientific) */
} kb_float_layout;

void kb_float_layout_init(kb_float_layout *layout, kb_dtype dtype, const double *values,
                          size_t count);

/* One element, padded to the layout's width. */
void kb_float_element_text(const kb_float_layout *layout, double value, char *buf);

#endif
