/* /proc/cpuinfo: reading it and finding its fields. */
#include <string.h>

#include "machine/probe/proc_cpuinfo.h"
#include "machine/probe/sysfile.h"

void kb_cpuinfo_read(const char *root, char *buf) {
    kb_sysfile_read(root, "/proc/cpuinfo", buf, KB_CPUINFO_SIZE);
}

/* Finds the line with the given key; sets *value to the start of its value and returns the
 * value's length, or -1. */
static long find_field(const char *text, const char *key, const char **value) {
    size_t key_len = strlen(key);
    for (const char *line = text; *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        const char *colon = memchr(line, ':', len);
        if (colon) {
            size_t k = (size_t)(colon - line);
            while (k > 0 && (line[k - 1] == ' ' || line[k - 1] == '\t'))
                k--;
            if (k == key_len && memcmp(line, key, k) == 0) {
                const char *v = colon + 1;
                const char *stop = line + len;
                while (v < stop && (*v == ' ' || *v == '\t'))
                    v++;
                while (stop > v && (stop[-1] == ' ' || stop[-1] == '\t' || stop[-1] == '\r'))
                    stop--;
                *value = v;
                return (long)(stop - v);
            }
        }
        if (!end)
            break;
        line = end + 1;
    }
    return -1;
}

bool kb_cpuinfo_field(const char *text, const char *key, char *out, size_t size) {
    const char *value;
    long len = find_field(text, key, &value);
    if (size > 0)
        out[0] = '\0';
    if (len < 0 || size == 0)
        return false;
    size_t n = (size_t)len < size - 1 ? (size_t)len : size - 1;
    memcpy(out, value, n);
    out[n] = '\0';
    return true;
}

static bool has_word(const char *value, long len, const char *word) {
    size_t w = strlen(word);
    const char *p = value, *end = value + len;
    while (p < end) {
        while (p < end && (*p == ' ' || *p == '\t'))
            p++;
        const char *start = p;
        while (p < end && *p != ' ' && *p != '\t')
            p++;
        if ((size_t)(p - start) == w && memcmp(start, word, w) == 0)
            return true;
    }
    return false;
}

bool kb_cpuinfo_has_flag(const char *text, const char *flag) {
    const char *value;
    long len = find_field(text, "flags", &value);
    if (len >= 0 && has_word(value, len, flag))
        return true;
    len = find_field(text, "Features", &value);
    return len >= 0 && has_word(value, len, flag);
}
