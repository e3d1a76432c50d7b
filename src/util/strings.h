#ifndef KB_UTIL_STRINGS_H
#define KB_UTIL_STRINGS_H

#include <stddef.h>

/* A copy of s on the heap, for the caller to free; NULL (failing with KB_ENOMEM) when out of
 * memory. */
char *kb_strdup(const char *s);

/* Copies src into dst of the given size, truncating; dst is always NUL-terminated. */
void kb_copy_string(char *dst, size_t size, const char *src);

/* The Levenshtein distance between a and b (insertions, deletions and substitutions of
 * one byte each), capped at limit: any distance above limit is reported as limit + 1. For
 * "did you mean" hints on short names. */
int kb_edit_distance(const char *a, const char *b, int limit);

/* text for a markdown table's cell: '|' escaped and line breaks made spaces, so that it stays
 * in its cell. The caller frees it; NULL (failing with KB_ENOMEM) when out of memory. */
char *kb_markdown_cell(const char *text);

/* The plural ending of a count's noun: "" for 1, "s" otherwise ("1 case", "2 cases"). */
static inline const char *kb_plural(long long count) {
    return count == 1 ? "" : "s";
}

#endif
