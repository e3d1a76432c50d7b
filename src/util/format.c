/* Durations, sizes and times as text for people, in one style for every report. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/format.h"

void kb_format_3(char *buf, size_t size, double v) {
    if (!(v > 0)) {
        snprintf(buf, size, "-");
        return;
    }
    /* Decimals by the value rounded to three digits, so 0.9997 prints as 1.00. */
    char rounded[32];
    snprintf(rounded, sizeof rounded, "%.2e", v);
    double r = strtod(rounded, NULL);
    int decimals = r < 1 ? 3 : r < 10 ? 2 : r < 100 ? 1 : 0;
    snprintf(buf, size, "%.*f", decimals, r < 1000 ? r : v);
}

static const struct {
    const char *name;
    double ns;
} time_units[] = {{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}};

#define KB_TIME_UNITS (int)(sizeof time_units / sizeof time_units[0])

void kb_format_duration(char *buf, size_t size, double ns) {
    int u = 0;
    while (u < KB_TIME_UNITS - 1 && ns >= 999.5 * time_units[u].ns)
        u++;
    char number[32];
    kb_format_3(number, sizeof number, ns / time_units[u].ns);
    snprintf(buf, size, "%s %s", number, time_units[u].name);
}

double kb_time_unit_ns(const char *name) {
    for (int u = 0; u < KB_TIME_UNITS; u++)
        if (strcmp(name, time_units[u].name) == 0)
            return time_units[u].ns;
    return 0;
}

void kb_format_bytes(char *buf, size_t size, int64_t bytes) {
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = (double)bytes;
    int u = 0;
    while (v >= 1024 && u < 4) {
        v /= 1024;
        u++;
    }
    if (v == (double)(int64_t)v)
        snprintf(buf, size, "%lld %s", (long long)v, units[u]);
    else
        snprintf(buf, size, "%.2f %s", v, units[u]);
}

bool kb_format_utc(char *buf, size_t size, int64_t seconds) {
    time_t t = (time_t)seconds;
    struct tm tm;
    if (gmtime_r(&t, &tm) && strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm) > 0)
        return true;
    snprintf(buf, size, "unknown");
    return false;
}

bool kb_parse_utc(const char *text, int64_t *seconds) {
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    const char *end = strptime(text, "%Y-%m-%dT%H:%M:%SZ", &tm);
    if (!end || *end)
        return false;
    *seconds = (int64_t)timegm(&tm);
    return true;
}
