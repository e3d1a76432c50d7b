/* Strings for every layer: copies (on the heap, failing with kb_fail, or into a fixed buffer)
 * and the edit distance of "did you mean" hints. */
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "util/strings.h"

char *kb_strdup(const char *s) {
    size_t n = strlen(s) + 1;
    char *copy = malloc(n);
    if (!copy) {
        kb_fail(KB_ENOMEM, "out of memory");
        return NULL;
    }
    return memcpy(copy, s, n);
}

void kb_copy_string(char *dst, size_t size, const char *src) {
    if (size == 0)
        return;
    size_t n = strlen(src);
    if (n >= size)
        n = size - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

int kb_edit_distance(const char *a, const char *b, int limit) {
    size_t na = strlen(a), nb = strlen(b);
    if (na > 64 || nb > 64) /* names are short; longer strings are simply far */
        return limit + 1;
    int row[65];
    for (size_t j = 0; j <= nb; j++)
        row[j] = (int)j;
    for (size_t i = 1; i <= na; i++) {
        int diagonal = row[0], best = row[0] = (int)i;
        for (size_t j = 1; j <= nb; j++) {
            int above = row[j];
            int cost = diagonal + (a[i - 1] != b[j - 1]);
            int del = above + 1, ins = row[j - 1] + 1;
            row[j] = cost < del ? (cost < ins ? cost : ins) : (del < ins ? del : ins);
            diagonal = above;
            best = row[j] < best ? row[j] : best;
        }
        if (best > limit)
            return limit + 1;
    }
    return row[nb] > limit ? limit + 1 : row[nb];
}

char *kb_markdown_cell(const char *text) {
    size_t n = strlen(text);
    char *out = malloc(2 * n + 1);
    if (!out) {
        kb_fail(KB_ENOMEM, "out of memory");
        return NULL;
    }
    size_t j = 0;
    for (size_t i = 0; i < n; i++) {
        if (text[i] == '|')
            out[j++] = '\\';
        out[j++] = text[i] == '\n' || text[i] == '\r' ? ' ' : text[i];
    }
    out[j] = '\0';
    return out;
}
