#ifndef KB_BENCH_NAME_FILTER_H
#define KB_BENCH_NAME_FILTER_H

#include <regex.h>
#include <stdbool.h>

#include "kbench/error.h"

/* The --filter rule, the one place it is written: `kbench run` applies it to a plan's cases
 * (kb_bench_plan_filter) and `kbench compare` to the cases of two results files. POSIX
 * extended regular expressions found anywhere in the name; one starting with '-' excludes what
 * the rest matches; a name is kept when it matches an including pattern (or there is none) and
 * no excluding one. */
typedef struct kb_name_filter {
    int count;
    regex_t *re;
    bool *exclude;
    bool any_include;
} kb_name_filter;

/* KB_EINVAL naming the pattern when one does not compile; KB_ENOMEM. */
kb_status kb_name_filter_init(kb_name_filter *f, const char *const *patterns, int count);
bool kb_name_filter_keeps(const kb_name_filter *f, const char *name);
void kb_name_filter_free(kb_name_filter *f);

#endif
