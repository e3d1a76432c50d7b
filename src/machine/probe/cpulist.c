/* The kernel's CPU list format ("0-3,8"): parsing and counting. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>

#include "machine/probe/cpulist.h"

static bool read_number(const char **p, int *out) {
    if (!isdigit((unsigned char)**p))
        return false;
    errno = 0;
    char *end;
    long v = strtol(*p, &end, 10);
    if (errno || v > INT_MAX)
        return false;
    *out = (int)v;
    *p = end;
    return true;
}

bool kb_cpulist_next(const char **cursor, int *first, int *last) {
    const char *p = *cursor;
    while (*p == ',' || isspace((unsigned char)*p))
        p++;
    if (!read_number(&p, first))
        return false;
    *last = *first;
    if (*p == '-') {
        p++;
        if (!read_number(&p, last) || *last < *first)
            return false;
    }
    if (*p != '\0' && *p != ',' && !isspace((unsigned char)*p))
        return false;
    *cursor = p;
    return true;
}

bool kb_cpulist_summary(const char *list, int *count, int *lowest) {
    const char *p = list;
    int first, last, n = 0, low = INT_MAX;
    while (kb_cpulist_next(&p, &first, &last)) {
        if (last - first >= INT_MAX - n)
            return false;
        n += last - first + 1;
        if (first < low)
            low = first;
    }
    while (*p == ',' || isspace((unsigned char)*p))
        p++;
    if (n == 0 || *p != '\0')
        return false;
    if (count)
        *count = n;
    if (lowest)
        *lowest = low;
    return true;
}
