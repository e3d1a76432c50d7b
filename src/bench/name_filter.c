/* The --filter rule: POSIX extended regular expressions that keep or exclude case names. */
#include <stdlib.h>
#include <string.h>

#include "bench/name_filter.h"
#include "core/internal.h"

kb_status kb_name_filter_init(kb_name_filter *f, const char *const *patterns, int count) {
    memset(f, 0, sizeof *f);
    if (count <= 0)
        return KB_OK;
    f->re = calloc((size_t)count, sizeof *f->re);
    f->exclude = calloc((size_t)count, sizeof *f->exclude);
    if (!f->re || !f->exclude) {
        kb_name_filter_free(f);
        return kb_fail(KB_ENOMEM, "out of memory");
    }
    for (; f->count < count; f->count++) {
        const char *p = patterns[f->count];
        bool exclude = p[0] == '-';
        int rc = regcomp(&f->re[f->count], exclude ? p + 1 : p, REG_EXTENDED | REG_NOSUB);
        if (rc != 0) {
            char message[128];
            regerror(rc, &f->re[f->count], message, sizeof message);
            kb_name_filter_free(f);
            return kb_fail(KB_EINVAL, "bad filter '%s': %s", p, message);
        }
        f->exclude[f->count] = exclude;
        f->any_include |= !exclude;
    }
    return KB_OK;
}

bool kb_name_filter_keeps(const kb_name_filter *f, const char *name) {
    bool included = !f->any_include;
    for (int k = 0; k < f->count; k++) {
        bool match = regexec(&f->re[k], name, 0, NULL, 0) == 0;
        if (match && f->exclude[k])
            return false;
        included |= match;
    }
    return included;
}

void kb_name_filter_free(kb_name_filter *f) {
    for (int k = 0; k < f->count; k++)
        regfree(&f->re[k]);
    free(f->re);
    free(f->exclude);
    memset(f, 0, sizeof *f);
}
