/* JSON values for text of unknown encoding and for numbers a machine may not know. */
#include <stdlib.h>
#include <string.h>

#include "util/json_text.h"

json_t *kb_json_text(const char *s) {
    json_t *j = json_string(s);
    if (j)
        return j;
    size_t n = strlen(s);
    char *safe = malloc(n + 1);
    if (!safe)
        return NULL;
    for (size_t i = 0; i < n; i++)
        safe[i] = (unsigned char)s[i] < 0x80 ? s[i] : '?';
    safe[n] = '\0';
    j = json_string(safe);
    free(safe);
    return j;
}

json_t *kb_json_positive(double v) {
    return v > 0 ? json_real(v) : json_null();
}

json_t *kb_json_count(int64_t v) {
    return v > 0 ? json_integer(v) : json_null();
}
