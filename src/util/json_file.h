#ifndef KB_UTIL_JSON_FILE_H
#define KB_UTIL_JSON_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "kbench/error.h"

/* How kbench writes JSON. Files that are read back hold reals to 17 significant digits, which
 * round-trip exactly; what people read (kbench info --json, kbench peaks --json) holds 7.
 * Both are ASCII only, so that no reader trips over an encoding. */
#define KB_JSON_EXACT (JSON_INDENT(2) | JSON_ENSURE_ASCII | JSON_REAL_PRECISION(17))
#define KB_JSON_DISPLAY (JSON_INDENT(2) | JSON_ENSURE_ASCII | JSON_REAL_PRECISION(7))

/* Reads the JSON document at path into *root (the caller's reference), refusing duplicate
 * keys. Fails with KB_EIO, "PATH: cannot read: REASON" (a missing file, a directory, a read
 * error), or KB_EFORMAT, "PATH: not valid JSON: REASON (line L, column C)". With missing_ok, a
 * file that does not exist is no failure: KB_OK with *root NULL. */
kb_status kb_json_load_file(const char *path, bool missing_ok, json_t **root);

/* The same for a document in memory, named label in messages. */
kb_status kb_json_parse(const char *text, size_t length, const char *label, json_t **root);

/* Writes value and a newline to out with the given json_dumpf flags; KB_EIO when writing
 * fails. */
kb_status kb_json_write(FILE *out, const json_t *value, size_t flags);

/* Writes value to path atomically (kb_atomic_write) with the given flags. */
kb_status kb_json_save_file(const char *path, const json_t *value, size_t flags);

#endif
