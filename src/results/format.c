/* Results files: formats by name or path, printing and saving. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "results/json.h"
#include "results/report.h"
#include "util/internal.h"

const char *kb_results_format_name(kb_results_format format) {
    switch (format) {
        case KB_RESULTS_TABLE:
            return "table";
        case KB_RESULTS_CSV:
            return "csv";
        case KB_RESULTS_MARKDOWN:
            return "markdown";
        case KB_RESULTS_JSON:
            return "json";
    }
    return "?";
}

kb_status kb_results_format_parse(const char *name, kb_results_format *out) {
    static const struct {
        const char *name;
        kb_results_format format;
    } names[] = {{"table", KB_RESULTS_TABLE},
                 {"csv", KB_RESULTS_CSV},
                 {"markdown", KB_RESULTS_MARKDOWN},
                 {"md", KB_RESULTS_MARKDOWN},
                 {"json", KB_RESULTS_JSON}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(name, names[i].name) == 0) {
            *out = names[i].format;
            return KB_OK;
        }
    return kb_fail(KB_EINVAL, "unknown format '%s' (expected table, csv, markdown or json)", name);
}

kb_status kb_results_format_of_path(const char *path, kb_results_format *out) {
    const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
    if (dot && (!slash || dot > slash)) {
        if (strcmp(dot, ".json") == 0)
            return *out = KB_RESULTS_JSON, KB_OK;
        if (strcmp(dot, ".csv") == 0)
            return *out = KB_RESULTS_CSV, KB_OK;
        if (strcmp(dot, ".md") == 0 || strcmp(dot, ".markdown") == 0)
            return *out = KB_RESULTS_MARKDOWN, KB_OK;
    }
    return kb_fail(KB_EINVAL,
                   "cannot tell the format of '%s' from its extension (.json, .csv or .md)", path);
}

/* The context indented for people, then one compact line per case: a file of thousands of
 * samples stays short enough to read and to diff. */
static kb_status print_json(const kb_results *results, FILE *out) {
    json_t *root = kb_results_to_json(results);
    if (!root)
        return kb_fail(KB_ENOMEM, "out of memory while building JSON");
    json_t *cases = json_incref(json_object_get(root, "cases"));
    json_object_del(root, "cases");
    size_t flags = KB_JSON_EXACT;
    char *head = kb_json_dumps(root, flags | JSON_INDENT(2));
    kb_status st = head ? KB_OK : KB_ENOMEM;
    if (st == KB_OK) {
        char *close = strrchr(head, '}'); /* the root object's own closing brace */
        *close = '\0';
        while (close > head && (close[-1] == '\n' || close[-1] == ' '))
            *--close = '\0';
        fprintf(out, "%s,\n  \"cases\": [", head);
        size_t i;
        json_t *c;
        json_array_foreach(cases, i, c) {
            char *line = kb_json_dumps(c, flags | JSON_COMPACT);
            if (!line) {
                st = KB_ENOMEM;
                break;
            }
            fprintf(out, "%s\n    %s", i ? "," : "", line);
            free(line);
        }
        fprintf(out, "%s]\n}\n", json_array_size(cases) ? "\n  " : "");
    }
    free(head);
    json_decref(cases);
    json_decref(root);
    return st;
}

kb_status kb_results_print(const kb_results *results, kb_results_format format, FILE *out) {
    kb_status st;
    switch (format) {
        case KB_RESULTS_TABLE:
            st = kb_report_table(results, out);
            break;
        case KB_RESULTS_CSV:
            st = kb_report_csv(results, out);
            break;
        case KB_RESULTS_MARKDOWN:
            st = kb_report_markdown(results, out);
            break;
        case KB_RESULTS_JSON:
            st = print_json(results, out);
            break;
        default:
            return kb_fail(KB_EINVAL, "invalid format %d", (int)format);
    }
    if (st == KB_OK && ferror(out))
        st = kb_fail(KB_EIO, "write error: %s", strerror(errno));
    return st;
}

typedef struct results_file {
    const kb_results *results;
    kb_results_format format;
} results_file;

static kb_status write_results(FILE *f, void *context) {
    const results_file *file = context;
    return kb_results_print(file->results, file->format, f);
}

kb_status kb_results_save(const kb_results *results, kb_results_format format, const char *path) {
    results_file file = {results, format};
    return kb_atomic_write(path, write_results, &file);
}

typedef struct text_reading {
    kb_results_text_reader read;
    kb_json_lifted *samples;
    void *out;
} text_reading;

static kb_status read_lifted(json_t *root, const char *label, void *context) {
    text_reading *r = context;
    return r->read(root, r->samples, label, r->out);
}

kb_status kb_results_read_text(char *text, size_t length, const char *label,
                               kb_results_text_reader read, void *out) {
    kb_json_lifted samples;
    kb_status st = kb_json_lift_rows(text, length, "cases", "samples_ns", &samples);
    text_reading r = {read, &samples, out};
    if (st == KB_OK)
        st = kb_json_read_text(text, length, label, read_lifted, &r);
    kb_json_lifted_free(&samples);
    return st;
}

static kb_status read_results(json_t *root, kb_json_lifted *samples, const char *label, void *out) {
    return kb_results_from_json_lifted(root, samples, label, out);
}

kb_status kb_results_parse(const char *text, size_t length, const char *label, kb_results *out) {
    memset(out, 0, sizeof *out);
    char *copy = malloc(length + 1);
    if (!copy)
        return kb_fail(KB_ENOMEM, "%s: out of memory", label);
    memcpy(copy, text, length);
    kb_status st = kb_results_read_text(copy, length, label, read_results, out);
    free(copy);
    return st;
}

kb_status kb_results_load(const char *path, kb_results *out) {
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "rb");
    if (!f)
        return kb_fail(KB_EIO, "%s: cannot read: %s", path, strerror(errno));
    char *text = NULL;
    size_t length = 0;
    kb_status st = kb_file_read_all(path, f, &text, &length);
    fclose(f);
    if (st == KB_OK)
        st = kb_results_read_text(text, length, path, read_results, out);
    free(text);
    return st;
}
