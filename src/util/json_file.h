#ifndef KB_UTIL_JSON_FILE_H
#define KB_UTIL_JSON_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "kbench/error.h"
#include "util/json_dump.h"

/* Turns a parsed document into out; label names the document in messages. The document is
 * freed after the call: take references to keep parts of it. */
typedef kb_status (*kb_json_reader)(json_t *root, const char *label, void *out);

/* The rest of the open stream f into a heap buffer (*text, the caller frees it; *length
 * bytes), so that a failed read reports its errno, which jansson's own reader does not keep.
 * path names the file in messages: KB_EIO, "PATH: cannot read: REASON" (a directory, a read
 * error), KB_ENOMEM, "PATH: out of memory". */
kb_status kb_file_read_all(const char *path, FILE *f, char **text, size_t *length);

/* Parses the JSON document at path, refusing duplicate keys, and hands it to read with path as
 * the label. Fails with KB_EIO, "PATH: cannot read: REASON" (a missing file, a directory, a
 * read error), KB_EFORMAT, "PATH: not valid JSON: REASON (line L, column C)", or what read
 * returns. With missing_ok, a file that does not exist is no failure: KB_OK, read not called. */
kb_status kb_json_read_file(const char *path, bool missing_ok, kb_json_reader read, void *out);

/* The same for a document of length bytes in memory. */
kb_status kb_json_read_text(const char *text, size_t length, const char *label, kb_json_reader read,
                            void *out);

/* Writes value and a newline to out as kb_json_dumps writes it with flags; KB_EIO when writing
 * fails. */
kb_status kb_json_write(FILE *out, const json_t *value, size_t flags);

/* Writes value to path atomically (kb_atomic_write) with the given flags. */
kb_status kb_json_save_file(const char *path, const json_t *value, size_t flags);

#endif
