/* util's JSON writer: every real in the fewest digits that read back as the same double, laid
 * out as Python's repr lays it out and still a JSON real, strings and integers untouched, and
 * random doubles reading back bit for bit. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "util/internal.h"

/* The number v as kbench writes it, without the array around it. */
static void dump_real(double v, size_t flags, char *buf, size_t size) {
    json_t *array = json_pack("[f]", v);
    assert_non_null(array);
    char *text = kb_json_dumps(array, flags | JSON_COMPACT);
    json_decref(array);
    assert_non_null(text);
    size_t n = strlen(text);
    assert_true(n > 2 && n - 2 < size && text[0] == '[' && text[n - 1] == ']');
    memcpy(buf, text + 1, n - 2);
    buf[n - 2] = '\0';
    free(text);
}

/* Each written as Python's repr(float) writes it. */
static void reals_are_shortest(void **state) {
    static const struct {
        double value;
        const char *text;
    } cases[] = {{0.05, "0.05"},
                 {0.1 + 0.2, "0.30000000000000004"},
                 {1e-7, "1e-07"},
                 {1e300, "1e+300"},
                 {5e-324, "5e-324"},
                 {1.7976931348623157e308, "1.7976931348623157e+308"},
                 {2.0, "2.0"},
                 {0.0, "0.0"},
                 {-0.0, "-0.0"},
                 {-2.5, "-2.5"},
                 {-0.05, "-0.05"},
                 {-1e-5, "-1e-05"},
                 {0.0001, "0.0001"},
                 {123.456, "123.456"},
                 {100000.0, "100000.0"},
                 {1234567890123456.0, "1234567890123456.0"},
                 {1e16, "1e+16"},
                 {-1.5e16, "-1.5e+16"},
                 {2861.7411922131505, "2861.7411922131505"}};
    char buf[64];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        dump_real(cases[i].value, KB_JSON_EXACT, buf, sizeof buf);
        assert_string_equal(buf, cases[i].text);
    }
    /* What people read is rounded to 7 digits first, then written as shortly. */
    dump_real(1.0 / 3, KB_JSON_DISPLAY, buf, sizeof buf);
    assert_string_equal(buf, "0.3333333");
    dump_real(0.05, KB_JSON_DISPLAY, buf, sizeof buf);
    assert_string_equal(buf, "0.05");
    dump_real(51234567890.0, KB_JSON_DISPLAY, buf, sizeof buf);
    assert_string_equal(buf, "51234570000.0");
}

/* Only numbers outside strings change, and only reals among them; what does not read as a
 * finite double stays as it was. */
static void strings_and_integers_stay(void **state) {
    const char *text = "{\"0.050000000000000003\": \"0.050000000000000003\", "
                       "\"a\\\"1.50\": [0.050000000000000003, -1E+2, 2.5e-3, 7, -0, true, null], "
                       "\"\\\\\": 1.0e999, \"b\": \"x\\\\\", \"c\": 12}";
    const char *want = "{\"0.050000000000000003\": \"0.050000000000000003\", "
                       "\"a\\\"1.50\": [0.05, -100.0, 0.0025, 7, -0, true, null], "
                       "\"\\\\\": 1.0e999, \"b\": \"x\\\\\", \"c\": 12}";
    char *out = kb_json_shortest_reals(text);
    assert_non_null(out);
    assert_string_equal(out, want);
    free(out);

    json_t *doc = json_pack("{s:s, s:I, s:f}", "s", "0.050000000000000003", "i",
                            (json_int_t)-123456789012345, "r", 0.05);
    char *dumped = kb_json_dumps(doc, KB_JSON_EXACT | JSON_COMPACT | JSON_SORT_KEYS);
    assert_string_equal(dumped,
                        "{\"i\":-123456789012345,\"r\":0.05,\"s\":\"0.050000000000000003\"}");
    free(dumped);
    json_decref(doc);
}

/* The significant digits of a number as written ("-0.00125" has 3, "100000.0" has 1). */
static int significant_digits(const char *text) {
    char digits[64];
    int n = 0;
    for (const char *p = text; *p && *p != 'e'; p++)
        if (*p >= '0' && *p <= '9' && (n > 0 || *p != '0'))
            digits[n++] = *p;
    while (n > 0 && digits[n - 1] == '0')
        n--;
    return n;
}

/* Random bit patterns (every exponent, subnormals included) read back bit for bit, are reals
 * in JSON's grammar, and one digit fewer would not read back. */
static void random_doubles_read_back(void **state) {
    kb_rng rng;
    kb_rng_seed(&rng, 12);
    char buf[64], shorter[64];
    int tested = 0;
    while (tested < 100000) {
        uint64_t bits = kb_rng_next(&rng);
        double v;
        memcpy(&v, &bits, sizeof v);
        if (!isfinite(v))
            continue;
        tested++;
        dump_real(v, KB_JSON_EXACT, buf, sizeof buf);
        char *end;
        double back = strtod(buf, &end);
        if (*end != '\0' || memcmp(&back, &v, sizeof v) != 0)
            fail_msg("%.17g written as %s", v, buf);
        if (!strpbrk(buf, ".e") || strspn(buf, "-0123456789.e+") != strlen(buf))
            fail_msg("%.17g written as %s, not a JSON real", v, buf);
        int n = significant_digits(buf);
        if (n < 1 || n > 17)
            fail_msg("%.17g written as %s: %d digits", v, buf, n);
        if (n > 1) {
            snprintf(shorter, sizeof shorter, "%.*e", n - 2, v);
            if (strtod(shorter, NULL) == v)
                fail_msg("%.17g written as %s, but %s reads back too", v, buf, shorter);
        }
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reals_are_shortest),
        cmocka_unit_test(strings_and_integers_stay),
        cmocka_unit_test(random_doubles_read_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
