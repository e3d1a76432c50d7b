/* JSON files through util's one loader and writer: each failure has one wording naming the file
 * (missing, a directory, not valid JSON with its line and column), a missing file may be
 * allowed, a document saved reads back equal, and a failed save leaves nothing behind. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/internal.h"
#include "util/internal.h"

static char dir[256];

static int make_dir(void **state) {
    snprintf(dir, sizeof dir, "/tmp/kb_test_json_file.XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int remove_dir(void **state) {
    char command[300];
    snprintf(command, sizeof command, "rm -rf '%s'", dir);
    return system(command) == 0 ? 0 : -1;
}

static const char *path_of(const char *name) {
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return path;
}

static void write_text(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

static int count_entries(void) {
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

/* Keeps a reference to the document, so the test can look at it after the read. */
static kb_status keep(json_t *root, const char *label, void *out) {
    *(json_t **)out = json_incref(root);
    return KB_OK;
}

static kb_status refuse(json_t *root, const char *label, void *out) {
    return kb_fail(KB_EFORMAT, "%s: refused", label);
}

static void assert_message(const char *expected) {
    if (strcmp(kb_last_error(), expected) != 0)
        fail_msg("message '%s', expected '%s'", kb_last_error(), expected);
}

static void reads_a_document(void **state) {
    char path[512];
    snprintf(path, sizeof path, "%s", path_of("ok.json"));
    write_text(path, "{\"a\": [1, 2.5, \"x\"]}\n");
    json_t *root = NULL;
    assert_int_equal(kb_json_read_file(path, false, keep, &root), KB_OK);
    assert_int_equal(json_array_size(json_object_get(root, "a")), 3);
    json_decref(root);
    assert_int_equal(kb_json_read_file(path, false, refuse, &root), KB_EFORMAT);
    char expected[600];
    snprintf(expected, sizeof expected, "%s: refused", path);
    assert_message(expected);
}

static void failures_have_one_wording(void **state) {
    char path[512], expected[700];
    json_t *root = NULL;
    snprintf(path, sizeof path, "%s", path_of("absent.json"));
    assert_int_equal(kb_json_read_file(path, false, keep, &root), KB_EIO);
    snprintf(expected, sizeof expected, "%s: cannot read: No such file or directory", path);
    assert_message(expected);
    assert_int_equal(kb_json_read_file(path, true, keep, &root), KB_OK);
    assert_null(root);

    assert_int_equal(kb_json_read_file(dir, false, keep, &root), KB_EIO);
    snprintf(expected, sizeof expected, "%s: cannot read: is a directory", dir);
    assert_message(expected);

    snprintf(path, sizeof path, "%s", path_of("bad.json"));
    write_text(path, "{\"a\": 1,\n \"a\": 2}");
    assert_int_equal(kb_json_read_file(path, false, keep, &root), KB_EFORMAT);
    /* The column is jansson's to count; the line and the wording are kbench's. */
    snprintf(expected, sizeof expected, "%s: not valid JSON: duplicate object key", path);
    assert_int_equal(strncmp(kb_last_error(), expected, strlen(expected)), 0);
    assert_non_null(strstr(kb_last_error(), "(line 2, column "));

    assert_int_equal(kb_json_read_text("[1,", 3, "text", keep, &root), KB_EFORMAT);
    assert_non_null(strstr(kb_last_error(), "text: not valid JSON: "));
    assert_non_null(strstr(kb_last_error(), "(line 1, column 3)"));
    assert_null(root);

    /* Valid JSON that is no document: called what it is, not invalid (issue 12, bug 11). */
    static const struct {
        const char *text, *what;
    } scalars[] = {
        {"null", "null"}, {" 3.5 ", "a number"}, {"\"x\"", "a string"}, {"true", "true"}};
    for (size_t i = 0; i < sizeof scalars / sizeof scalars[0]; i++) {
        assert_int_equal(
            kb_json_read_text(scalars[i].text, strlen(scalars[i].text), "text", keep, &root),
            KB_EFORMAT);
        snprintf(expected, sizeof expected, "text: holds %s, not a JSON object", scalars[i].what);
        assert_message(expected);
        assert_null(root);
    }
}

static void saved_documents_read_back(void **state) {
    char path[512];
    snprintf(path, sizeof path, "%s", path_of("saved.json"));
    json_t *doc = json_pack("{s:f, s:s}", "third", 1.0 / 3, "text", "caf\xc3\xa9");
    int before = count_entries();
    assert_int_equal(kb_json_save_file(path, doc, KB_JSON_EXACT | JSON_INDENT(2)), KB_OK);
    assert_int_equal(count_entries(), before + 1);
    json_t *back = NULL;
    assert_int_equal(kb_json_read_file(path, false, keep, &back), KB_OK);
    assert_true(json_equal(doc, back));
    json_decref(back);

    /* Into a directory that does not exist: a failure naming the file, and no temporary. */
    char missing[600];
    snprintf(missing, sizeof missing, "%s/no/such/dir.json", dir);
    assert_int_equal(kb_json_save_file(missing, doc, KB_JSON_EXACT), KB_EIO);
    assert_int_equal(strncmp(kb_last_error(), missing, strlen(missing)), 0);
    assert_non_null(strstr(kb_last_error(), "cannot create a temporary file"));
    assert_int_equal(count_entries(), before + 1);
    json_decref(doc);
}

static void text_of_any_encoding_is_kept(void **state) {
    json_t *valid = kb_json_text("caf\xc3\xa9");
    assert_string_equal(json_string_value(valid), "caf\xc3\xa9");
    json_t *latin1 = kb_json_text("caf\xe9!");
    assert_string_equal(json_string_value(latin1), "caf?!");
    json_decref(valid);
    json_decref(latin1);
    json_t *zero = kb_json_count(0), *some = kb_json_count(3), *none = kb_json_positive(-1);
    assert_true(json_is_null(zero) && json_is_null(none));
    assert_int_equal(json_integer_value(some), 3);
    json_decref(some);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reads_a_document),
        cmocka_unit_test(failures_have_one_wording),
        cmocka_unit_test(saved_documents_read_back),
        cmocka_unit_test(text_of_any_encoding_is_kept),
    };
    return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
