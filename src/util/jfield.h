#ifndef KB_UTIL_JFIELD_H
#define KB_UTIL_JFIELD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "kbench/error.h"

/* Typed reads of JSON members that fail with the member's path, for checking files against
 * a schema: "r.json: context.timer.resolution_ns: expected a number, found a string". After
 * the first failure every read is a no-op returning a zero value, so a reader can read on
 * and check the status once. */
typedef struct jfield {
    const char *label;
    char path[256];
    kb_status status;
} jfield;

enum jkind {
    J_STRING = 1 << 0,
    J_INT = 1 << 1,
    J_NUMBER = 1 << 2, /* integer or real */
    J_BOOL = 1 << 3,
    J_OBJECT = 1 << 4,
    J_ARRAY = 1 << 5,
    J_NULL = 1 << 6,
};

void jfield_init(jfield *f, const char *label);

/* Appends ".key" or "[i]" to the path; returns the length to restore with jfield_pop. */
size_t jfield_push_key(jfield *f, const char *key);
size_t jfield_push_index(jfield *f, size_t index);
void jfield_pop(jfield *f, size_t length);

/* Fails with "label: path.key: message". */
kb_status jfield_fail(jfield *f, const char *key, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

/* The member of the given kinds, or NULL (failing) when missing or of another kind; a JSON
 * null is returned as such when J_NULL is allowed. */
const json_t *jfield_get(jfield *f, const json_t *object, const char *key, unsigned kinds);

void jfield_string(jfield *f, const json_t *object, const char *key, char *dst, size_t size);
char *jfield_strdup(jfield *f, const json_t *object, const char *key, bool nullable);
double jfield_number(jfield *f, const json_t *object, const char *key, bool nullable);
int64_t jfield_int(jfield *f, const json_t *object, const char *key, bool nullable);
bool jfield_bool(jfield *f, const json_t *object, const char *key);

/* A JSON value as text for messages: "a string", "an array", ... */
const char *jfield_kind_name(const json_t *value);

#endif
