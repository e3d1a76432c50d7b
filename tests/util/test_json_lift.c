/* The samples lifted out of JSON text (util/json_lift.c): arrays of arrays of plain
 * non-negative integers under ARRAY[i].MEMBER are parsed, element by element, and left as an
 * empty array of the same bytes and lines; anything else is left as it was; the text that
 * remains parses with jansson to the same document without them, its messages at the same
 * line and column. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "core/internal.h"
#include "util/internal.h"

static char *copy(const char *text) {
    char *t = malloc(strlen(text) + 1);
    assert_non_null(t);
    strcpy(t, text);
    return t;
}

static void lifted_and_left(void **state) {
    char *text = copy("{\"x\": {\"cases\": [[1]]}, \"cases\": [\n"
                      " {\"name\": \"a\", \"samples_ns\": [[3, 1, 2],\n  [], [40]]},\n"
                      " {\"samples_ns\": [[-1]]},\n"
                      " {\"samples_ns\": [[1.5]]},\n"
                      " 7,\n"
                      " {\"samples_ns\": [[9223372036854775807]], \"other\": [[1]]},\n"
                      " {\"samples_ns\": [[9223372036854775808]]},\n"
                      " {\"samples_ns\": [[01]]},\n"
                      " {\"samples\\u005fns\": [[5]], \"s\": \"\\\"samples_ns\\\": [[6]]\"}\n"
                      "]}");
    size_t length = strlen(text);
    kb_json_lifted l;
    assert_int_equal(kb_json_lift_rows(text, length, "cases", "samples_ns", &l), KB_OK);
    assert_int_equal(strlen(text), length);

    const kb_int_rows *a = kb_json_lifted_item(&l, 0);
    assert_non_null(a);
    assert_int_equal(a->nrows, 3);
    assert_int_equal(a->nvalues, 4);
    int64_t values[] = {3, 1, 2, 40}, rows[] = {3, 0, 1};
    assert_memory_equal(a->values, values, sizeof values);
    assert_memory_equal(a->row_lengths, rows, sizeof rows);
    const kb_int_rows *big = kb_json_lifted_item(&l, 4);
    assert_non_null(big);
    assert_int_equal(big->values[0], INT64_MAX);
    /* Negative, real, too large, zero-padded, escaped keys and strings, a non-object: left. */
    for (size_t i = 1; i < 8; i++)
        if (i != 4)
            assert_null(kb_json_lifted_item(&l, i));
    assert_null(kb_json_lifted_item(&l, 100));

    /* What remains: the same document with empty arrays in their place, lines kept. */
    char blank[64];
    snprintf(blank, sizeof blank, "\"samples_ns\": [%10s\n%10s]}", "", "");
    assert_non_null(strstr(text, blank));
    assert_non_null(strstr(text, "[[-1]]") && strstr(text, "[[1.5]]") &&
                    strstr(text, "[[9223372036854775808]]") &&
                    strstr(text, "\"x\": {\"cases\": [[1]]}"));
    json_error_t error;
    json_t *root = json_loadb(text, length, 0, &error);
    assert_null(root); /* [[01]] is not JSON, as before */
    assert_int_equal(error.line, 8);
    kb_json_lifted_free(&l);
    free(text);
}

static void not_json(void **state) {
    const char *texts[] = {"",
                           "[",
                           "{\"cases\": [{\"samples_ns\": [[1, 2]",
                           "{\"cases\": 5}",
                           "{\"cases\": [{\"samples_ns\": [[1,]]}]}",
                           "\"cases\"",
                           "{\"cases\""};
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
        char *text = copy(texts[i]);
        kb_json_lifted l;
        assert_int_equal(kb_json_lift_rows(text, strlen(text), "cases", "samples_ns", &l), KB_OK);
        assert_null(kb_json_lifted_item(&l, 0));
        assert_string_equal(text, texts[i]);
        kb_json_lifted_free(&l);
        free(text);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lifted_and_left),
        cmocka_unit_test(not_json),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
