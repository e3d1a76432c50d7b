/* A Chrome trace read one event at a time (the top level scanned here, each value parsed by
 * jansson), so that memory holds one event's tree, not the whole trace's. */
#include <string.h>

#include "core/internal.h"
#include "results/trace_scan.h"

typedef struct scanner {
    const char *text;
    size_t length, pos;
    const char *label;
} scanner;

static void skip_space(scanner *s) {
    while (s->pos < s->length && strchr(" \t\r\n", s->text[s->pos]) && s->text[s->pos])
        s->pos++;
}

static kb_status invalid(const scanner *s, size_t at, const char *reason) {
    return kb_fail(KB_EFORMAT, "%s: not valid JSON at byte %zu: %s", s->label, at, reason);
}

/* The next character after spaces, which must be one of allowed; *c gets it. */
static kb_status expect(scanner *s, const char *allowed, const char *what, char *c) {
    skip_space(s);
    if (s->pos >= s->length)
        return invalid(s, s->pos, "the text ends early (a truncated file?)");
    *c = s->text[s->pos];
    if (!*c || !strchr(allowed, *c)) {
        char reason[96];
        snprintf(reason, sizeof reason, "expected %s", what);
        return invalid(s, s->pos, reason);
    }
    s->pos++;
    return KB_OK;
}

/* One JSON value at the position, which moves past it. */
static kb_status value(scanner *s, json_t **out) {
    skip_space(s);
    json_error_t error;
    size_t at = s->pos;
    *out =
        json_loadb(s->text + at, s->length - at, JSON_DECODE_ANY | JSON_DISABLE_EOF_CHECK, &error);
    if (!*out)
        return invalid(s, at + (size_t)(error.position > 0 ? error.position : 0), error.text);
    s->pos = at + (size_t)error.position;
    return KB_OK;
}

static kb_status events(scanner *s, const kb_trace_visitor *v) {
    kb_status st = v->events_begin ? v->events_begin(v->context) : KB_OK;
    char c;
    skip_space(s);
    if (st == KB_OK && s->pos < s->length && s->text[s->pos] == ']') {
        s->pos++;
        return v->events_end ? v->events_end(v->context) : KB_OK;
    }
    for (int64_t i = 0; st == KB_OK; i++) {
        json_t *event;
        if ((st = value(s, &event)) != KB_OK)
            break;
        st = v->event(event, i, v->context);
        json_decref(event);
        if (st == KB_OK && (st = expect(s, ",]", "',' or ']' after an event", &c)) == KB_OK &&
            c == ']')
            return v->events_end ? v->events_end(v->context) : KB_OK;
    }
    return st;
}

static kb_status members(scanner *s, const kb_trace_visitor *v) {
    bool seen = false;
    char c;
    skip_space(s);
    if (s->pos < s->length && s->text[s->pos] == '}')
        s->pos++;
    else
        for (;;) {
            json_t *key;
            kb_status st = expect(s, "\"", "a member's name", &c);
            if (st == KB_OK) {
                s->pos--;
                st = value(s, &key);
            }
            if (st != KB_OK)
                return st;
            char name[64];
            snprintf(name, sizeof name, "%s", json_string_value(key));
            json_decref(key);
            if ((st = expect(s, ":", "':' after a member's name", &c)) != KB_OK)
                return st;
            if (strcmp(name, "traceEvents") == 0 && !seen) {
                if ((st = expect(s, "[", "an array of events after \"traceEvents\"", &c)) !=
                        KB_OK ||
                    (st = events(s, v)) != KB_OK)
                    return st;
                seen = true;
            } else {
                json_t *member;
                if ((st = value(s, &member)) != KB_OK)
                    return st;
                st = v->member ? v->member(name, member, v->context) : KB_OK;
                json_decref(member);
                if (st != KB_OK)
                    return st;
            }
            if ((st = expect(s, ",}", "',' or '}' after a member", &c)) != KB_OK)
                return st;
            if (c == '}')
                break;
        }
    return seen ? KB_OK : kb_fail(KB_EFORMAT, "%s: no traceEvents array", s->label);
}

kb_status kb_trace_scan(const char *text, size_t length, const char *label,
                        const kb_trace_visitor *v) {
    scanner s = {text, length, 0, label};
    char c;
    kb_status st = expect(&s, "{[", "a Chrome trace: an object or an array of events", &c);
    if (st == KB_OK)
        st = c == '{' ? members(&s, v) : events(&s, v);
    skip_space(&s);
    if (st == KB_OK && s.pos < s.length)
        st = invalid(&s, s.pos, "text after the trace");
    return st;
}
