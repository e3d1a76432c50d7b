#ifndef KB_UTIL_FORMAT_H
#define KB_UTIL_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Numbers as kbench shows them to people, one style everywhere. */

/* "12.3 ns", "4.56 us", "7.89 ms", "1.23 s": three significant digits. Declared in
 * kbench/results.h too, where the public API offers it. */
void kb_format_duration(char *buf, size_t size, double ns);

/* A number with three significant digits and no exponent: "0.512", "1.50", "12.3", "123",
 * "1234" (larger numbers keep all their integer digits); "-" for 0 or less. */
void kb_format_3(char *buf, size_t size, double v);

/* Nanoseconds in one of the units durations are written in: "ns", "us", "ms" or "s" (Google
 * Benchmark's time_unit names them the same); 0 for any other name. */
double kb_time_unit_ns(const char *name);

/* A size in bytes with binary units: "512 B", "32 KiB", "1 MiB", "1.25 MiB", "2 GiB". */
void kb_format_bytes(char *buf, size_t size, int64_t bytes);

/* Seconds since the epoch as a UTC time, "2025-01-31T12:00:00Z"; false (and buf "unknown")
 * when the time cannot be represented. */
bool kb_format_utc(char *buf, size_t size, int64_t seconds);

/* And back: a UTC time written so, in seconds since the epoch; false when text is not one. */
bool kb_parse_utc(const char *text, int64_t *seconds);

#endif
