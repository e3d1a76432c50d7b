#ifndef KB_RESULTS_TRACE_SCAN_H
#define KB_RESULTS_TRACE_SCAN_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "kbench/error.h"

/* A Chrome trace read one event at a time, so that a trace of millions of events never
 * becomes one JSON tree in memory: the top level is an object (the JSON Object Format, which
 * torch.profiler writes) whose "traceEvents" array is read element by element and whose other
 * members are read whole, or an array of events (the JSON Array Format). Each value is handed
 * to the visitor and freed when it returns; take a reference to keep one. */
typedef struct kb_trace_visitor {
    /* A top-level member other than traceEvents (deviceProperties, schemaVersion, ...). */
    kb_status (*member)(const char *key, json_t *value, void *context);
    /* Before the first event and after the last (for a writer; may be NULL). */
    kb_status (*events_begin)(void *context);
    kb_status (*events_end)(void *context);
    /* One element of traceEvents, any JSON value; index counts from 0. */
    kb_status (*event)(json_t *event, int64_t index, void *context);
    void *context;
} kb_trace_visitor;

/* Reads the trace text (length bytes); label names it in messages. KB_EFORMAT "LABEL: not
 * valid JSON at byte N: REASON" (a truncated file, a syntax error), "LABEL: no traceEvents
 * array", or what a visitor returns. */
kb_status kb_trace_scan(const char *text, size_t length, const char *label,
                        const kb_trace_visitor *visitor);

/* A trace file's bytes, mapped read-only (a regular file) or read whole (anything else). */
typedef struct kb_trace_text {
    const char *text;
    size_t length;
    void *mapping; /* munmap it, or NULL */
    char *buffer;  /* free it, or NULL */
} kb_trace_text;

/* KB_EIO "PATH: cannot read: REASON"; KB_ENOMEM. */
kb_status kb_trace_text_open(const char *path, kb_trace_text *out);
void kb_trace_text_close(kb_trace_text *t);

#endif
