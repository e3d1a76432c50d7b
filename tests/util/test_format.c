/* util's text for people and its small helpers: durations and sizes in one style, UTC times,
 * the median and NumPy's quantile of sorted values, splitmix64, string copies and edit
 * distances. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kbench/results.h"
#include "util/internal.h"

static void durations_have_three_digits(void **state) {
    static const struct {
        double ns;
        const char *text;
    } cases[] = {{12.34, "12.3 ns"},   {999.4, "999 ns"},   {999.6, "1.00 us"}, {4560, "4.56 us"},
                 {7.891e6, "7.89 ms"}, {1.234e9, "1.23 s"}, {0, "- ns"}};
    char buf[32];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        kb_format_duration(buf, sizeof buf, cases[i].ns);
        assert_string_equal(buf, cases[i].text);
    }
    assert_true(kb_time_unit_ns("us") == 1e3);
    assert_true(kb_time_unit_ns("s") == 1e9);
    assert_true(kb_time_unit_ns("min") == 0);
    kb_format_3(buf, sizeof buf, 0.9997);
    assert_string_equal(buf, "1.00");
    kb_format_3(buf, sizeof buf, 12345);
    assert_string_equal(buf, "12345");
}

static void sizes_use_binary_units(void **state) {
    static const struct {
        int64_t bytes;
        const char *text;
    } cases[] = {{0, "0 B"},
                 {512, "512 B"},
                 {32 << 10, "32 KiB"},
                 {1 << 20, "1 MiB"},
                 {(1 << 20) + (1 << 18), "1.25 MiB"},
                 {(int64_t)3 << 30, "3 GiB"},
                 {(int64_t)1 << 42, "4 TiB"}};
    char buf[32];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        kb_format_bytes(buf, sizeof buf, cases[i].bytes);
        assert_string_equal(buf, cases[i].text);
    }
}

static void times_are_utc(void **state) {
    char buf[32];
    assert_true(kb_format_utc(buf, sizeof buf, 0));
    assert_string_equal(buf, "1970-01-01T00:00:00Z");
    assert_true(kb_format_utc(buf, sizeof buf, 1738324800));
    assert_string_equal(buf, "2025-01-31T12:00:00Z");
    assert_false(kb_format_utc(buf, sizeof buf, INT64_MAX));
    assert_string_equal(buf, "unknown");
}

static void medians_and_quantiles(void **state) {
    double v[] = {5, 1, 4, 2, 3, 6};
    kb_sort_doubles(v, 6);
    for (int i = 0; i < 6; i++)
        assert_true(v[i] == i + 1);
    assert_true(kb_median_sorted(v, 6) == 3.5);
    assert_true(kb_median_sorted(v, 5) == 3);
    /* np.quantile([1, 2, 3, 4, 5, 6], [0, 0.25, 0.9, 1]) */
    assert_true(kb_quantile_sorted(v, 6, 0) == 1);
    assert_true(kb_quantile_sorted(v, 6, 0.25) == 2.25);
    assert_float_equal(kb_quantile_sorted(v, 6, 0.9), 5.5, 1e-12);
    assert_true(kb_quantile_sorted(v, 6, 1) == 6);
}

static void splitmix64_matches_its_reference(void **state) {
    /* The first outputs of the reference splitmix64 seeded with 0 (Vigna's splitmix64.c): the
     * generator at counter i gives the reference's output i + 1. */
    assert_true(kb_splitmix64(0) == UINT64_C(0xe220a8397b1dcdaf));
    assert_true(kb_splitmix64(UINT64_C(0x9e3779b97f4a7c15)) == UINT64_C(0x6e789e6aa1b965f4));
}

static void strings_are_copied(void **state) {
    char small[4];
    kb_copy_string(small, sizeof small, "abcdef");
    assert_string_equal(small, "abc");
    char *copy = kb_strdup("kbench");
    assert_string_equal(copy, "kbench");
    free(copy);
}

/* Worked out by hand: kitten -> sitting is the textbook 3 (two substitutions, an insertion). */
static void edit_distances_are_levenshtein(void **state) {
    assert_int_equal(kb_edit_distance("run", "run", 2), 0);
    assert_int_equal(kb_edit_distance("runn", "run", 2), 1);
    assert_int_equal(kb_edit_distance("lst", "list", 2), 1);
    assert_int_equal(kb_edit_distance("lsit", "list", 2), 2);
    assert_int_equal(kb_edit_distance("kitten", "sitting", 5), 3);
    assert_int_equal(kb_edit_distance("kitten", "sitting", 2), 3); /* capped: limit + 1 */
    assert_int_equal(kb_edit_distance("", "eval", 9), 4);
    assert_int_equal(kb_edit_distance("xyzzy", "info", 2), 3);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(durations_have_three_digits),
        cmocka_unit_test(sizes_use_binary_units),
        cmocka_unit_test(times_are_utc),
        cmocka_unit_test(medians_and_quantiles),
        cmocka_unit_test(splitmix64_matches_its_reference),
        cmocka_unit_test(strings_are_copied),
        cmocka_unit_test(edit_distances_are_levenshtein),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
