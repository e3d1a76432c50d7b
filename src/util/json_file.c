/* JSON documents read from and written to files, with one wording of every failure. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/internal.h"
#include "util/json_file.h"

kb_status kb_file_read_all(const char *path, FILE *f, char **text, size_t *length) {
    struct stat sb;
    if (fstat(fileno(f), &sb) != 0)
        return kb_fail(KB_EIO, "%s: cannot read: %s", path, strerror(errno));
    if (S_ISDIR(sb.st_mode))
        return kb_fail(KB_EIO, "%s: cannot read: is a directory", path);
    size_t cap = S_ISREG(sb.st_mode) && sb.st_size > 0 ? (size_t)sb.st_size + 1 : 4096, used = 0;
    char *buf = malloc(cap);
    for (;;) {
        if (!buf)
            return kb_fail(KB_ENOMEM, "%s: out of memory", path);
        used += fread(buf + used, 1, cap - used, f);
        if (ferror(f)) {
            kb_status st = kb_fail(KB_EIO, "%s: cannot read: %s", path, strerror(errno));
            free(buf);
            return st;
        }
        if (used < cap)
            break;
        char *grown = realloc(buf, cap * 2);
        if (!grown)
            free(buf);
        buf = grown;
        cap *= 2;
    }
    *text = buf;
    *length = used;
    return KB_OK;
}

kb_status kb_json_read_text(const char *text, size_t length, const char *label, kb_json_reader read,
                            void *out) {
    json_error_t error;
    /* Any value decodes, so that valid JSON that is not a document kbench reads ("null") is
     * called what it is rather than invalid. */
    json_t *root = json_loadb(text, length, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &error);
    if (!root)
        return kb_fail(KB_EFORMAT, "%s: not valid JSON: %s (line %d, column %d)", label, error.text,
                       error.line, error.column);
    if (!json_is_object(root) && !json_is_array(root)) {
        static const char *const kinds[] = {
            [JSON_STRING] = "a string", [JSON_INTEGER] = "a number", [JSON_REAL] = "a number",
            [JSON_TRUE] = "true",       [JSON_FALSE] = "false",      [JSON_NULL] = "null"};
        kb_status st =
            kb_fail(KB_EFORMAT, "%s: holds %s, not a JSON object", label, kinds[json_typeof(root)]);
        json_decref(root);
        return st;
    }
    kb_status st = read(root, label, out);
    json_decref(root);
    return st;
}

kb_status kb_json_read_file(const char *path, bool missing_ok, kb_json_reader read, void *out) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        if (missing_ok && errno == ENOENT)
            return KB_OK;
        return kb_fail(KB_EIO, "%s: cannot read: %s", path, strerror(errno));
    }
    char *text = NULL;
    size_t length = 0;
    kb_status st = kb_file_read_all(path, f, &text, &length);
    fclose(f);
    if (st != KB_OK)
        return st;
    st = kb_json_read_text(text, length, path, read, out);
    free(text);
    return st;
}

kb_status kb_json_write(FILE *out, const json_t *value, size_t flags) {
    char *text = kb_json_dumps(value, flags);
    if (!text)
        return KB_ENOMEM;
    bool written = fputs(text, out) != EOF && fputc('\n', out) != EOF;
    free(text);
    return written ? KB_OK : kb_fail(KB_EIO, "cannot write JSON: %s", strerror(errno));
}

typedef struct json_document {
    const json_t *value;
    size_t flags;
} json_document;

static kb_status write_document(FILE *f, void *context) {
    const json_document *d = context;
    return kb_json_write(f, d->value, d->flags);
}

kb_status kb_json_save_file(const char *path, const json_t *value, size_t flags) {
    json_document d = {value, flags};
    return kb_atomic_write(path, write_document, &d);
}
