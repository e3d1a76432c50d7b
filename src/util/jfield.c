/* Typed reads of JSON members that fail with the member's path. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "util/jfield.h"

void jfield_init(jfield *f, const char *label) {
    f->label = label;
    f->path[0] = '\0';
    f->status = KB_OK;
}

size_t jfield_push_key(jfield *f, const char *key) {
    size_t n = strlen(f->path);
    snprintf(f->path + n, sizeof f->path - n, "%s%s", n ? "." : "", key);
    return n;
}

size_t jfield_push_index(jfield *f, size_t index) {
    size_t n = strlen(f->path);
    snprintf(f->path + n, sizeof f->path - n, "[%zu]", index);
    return n;
}

void jfield_pop(jfield *f, size_t length) {
    f->path[length] = '\0';
}

kb_status jfield_fail(jfield *f, const char *key, const char *format, ...) {
    if (f->status != KB_OK)
        return f->status;
    char message[256];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    const char *dot = f->path[0] && key ? "." : "";
    f->status = kb_fail(KB_EFORMAT, "%s: %s%s%s%s%s", f->label, f->path, dot, key ? key : "",
                        f->path[0] || key ? ": " : "", message);
    return f->status;
}

const char *jfield_kind_name(const json_t *value) {
    switch (json_typeof(value)) {
        case JSON_OBJECT:
            return "an object";
        case JSON_ARRAY:
            return "an array";
        case JSON_STRING:
            return "a string";
        case JSON_INTEGER:
            return "an integer";
        case JSON_REAL:
            return "a number";
        case JSON_TRUE:
        case JSON_FALSE:
            return "a boolean";
        case JSON_NULL:
            return "null";
    }
    return "something else";
}

static bool is_kind(const json_t *v, unsigned kinds) {
    return ((kinds & J_STRING) && json_is_string(v)) || ((kinds & J_INT) && json_is_integer(v)) ||
           ((kinds & J_NUMBER) && json_is_number(v)) || ((kinds & J_BOOL) && json_is_boolean(v)) ||
           ((kinds & J_OBJECT) && json_is_object(v)) || ((kinds & J_ARRAY) && json_is_array(v)) ||
           ((kinds & J_NULL) && json_is_null(v));
}

static const char *expected(unsigned kinds) {
    static const struct {
        unsigned kinds;
        const char *text;
    } names[] = {
        {J_STRING, "a string"},
        {J_STRING | J_NULL, "a string or null"},
        {J_INT, "an integer"},
        {J_INT | J_NULL, "an integer or null"},
        {J_NUMBER, "a number"},
        {J_NUMBER | J_NULL, "a number or null"},
        {J_BOOL, "a boolean"},
        {J_OBJECT, "an object"},
        {J_OBJECT | J_NULL, "an object or null"},
        {J_ARRAY, "an array"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].kinds == kinds)
            return names[i].text;
    return "another type";
}

const json_t *jfield_get(jfield *f, const json_t *object, const char *key, unsigned kinds) {
    if (f->status != KB_OK)
        return NULL;
    const json_t *v = json_object_get(object, key);
    if (!v) {
        jfield_fail(f, key, "missing");
        return NULL;
    }
    if (!is_kind(v, kinds)) {
        jfield_fail(f, key, "expected %s, found %s", expected(kinds), jfield_kind_name(v));
        return NULL;
    }
    return v;
}

void jfield_string(jfield *f, const json_t *object, const char *key, char *dst, size_t size) {
    dst[0] = '\0';
    const json_t *v = jfield_get(f, object, key, J_STRING);
    if (!v)
        return;
    if (json_string_length(v) >= size) {
        jfield_fail(f, key, "longer than %zu bytes", size - 1);
        return;
    }
    memcpy(dst, json_string_value(v), json_string_length(v) + 1);
}

char *jfield_strdup(jfield *f, const json_t *object, const char *key, bool nullable) {
    const json_t *v = jfield_get(f, object, key, J_STRING | (nullable ? J_NULL : 0));
    if (!v || json_is_null(v))
        return NULL;
    char *s = strdup(json_string_value(v));
    if (!s)
        f->status = kb_fail(KB_ENOMEM, "out of memory");
    return s;
}

double jfield_number(jfield *f, const json_t *object, const char *key, bool nullable) {
    const json_t *v = jfield_get(f, object, key, J_NUMBER | (nullable ? J_NULL : 0));
    return v && json_is_number(v) ? json_number_value(v) : 0;
}

int64_t jfield_int(jfield *f, const json_t *object, const char *key, bool nullable) {
    const json_t *v = jfield_get(f, object, key, J_INT | (nullable ? J_NULL : 0));
    return v && json_is_integer(v) ? (int64_t)json_integer_value(v) : 0;
}

bool jfield_bool(jfield *f, const json_t *object, const char *key) {
    const json_t *v = jfield_get(f, object, key, J_BOOL);
    return v && json_is_true(v);
}
