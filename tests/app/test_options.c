/* The option parser of the kbench programs: what it parses, its errors and the help it makes.
 *
 * Every kind of option in both spellings, "--" and "-", stopping at a subcommand, -h and
 * --help wherever they count, one wording per error, a validator's own check, and the help
 * generated from the table (within 80 columns, hidden options and empty groups left out, -h
 * last). */
#include <float.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "app/options.h"
#include "core/internal.h"

typedef struct values {
    bool flag, secret;
    const char *text;
    int count;
    double fraction;
    kb_arg_list list;
    int colour; /* 1 red, 2 blue: set by the validator */
} values;

static kb_status parse_colour(const char *name, const char *value, void *target) {
    if (strcmp(value, "red") == 0)
        *(int *)target = 1;
    else if (strcmp(value, "blue") == 0)
        *(int *)target = 2;
    else
        return kb_option_bad(name, value, "red or blue");
    return KB_OK;
}

/* The table the tests parse against, with v's fields as targets. */
static void make_table(values *v, kb_option *table) {
    const kb_option options[] = {
        {KB_OPTION_GROUP, .help = "first"},
        {KB_OPTION_FLAG, 'q', "quiet", .target = &v->flag, .help = "say less"},
        {KB_OPTION_STRING, 't', "text", "WORD", &v->text, .help = "a word"},
        {KB_OPTION_INT, 0, "count", "N", &v->count, .min = 1, .max = 10, .expected = "1 to 10",
         .help = "how many"},
        {KB_OPTION_GROUP, .help = "second"},
        {KB_OPTION_DOUBLE, 0, "fraction", "F", &v->fraction, .min = DBL_TRUE_MIN, .max = 1,
         .expected = "above 0, at most 1",
         .help = "a fraction, described at such length that the description cannot fit on "
                 "one line of the help and has to be wrapped onto several of them"},
        {KB_OPTION_REPEATED, 'f', "filter", "REGEX", &v->list, .help = "repeatable"},
        {KB_OPTION_STRING, 0, "colour", "C", &v->colour, parse_colour, .help = "red or blue"},
        {KB_OPTION_FLAG, 0, "a-flag-with-a-name-too-long-for-the-column", .target = &v->flag,
         .help = "still described"},
        {KB_OPTION_GROUP, .help = "hidden"},
        {KB_OPTION_FLAG, 0, "secret", .target = &v->secret, .hidden = true, .help = "unseen"},
        {.kind = KB_OPTION_END},
    };
    memcpy(table, options, sizeof options);
}

enum { TABLE_SIZE = 12 };

/* Parses the NULL-terminated words after a program name. */
static kb_status parse(values *v, unsigned flags, kb_arg_list *args, bool *help, ...) {
    char *argv[32] = {"prog"};
    int argc = 1;
    va_list ap;
    va_start(ap, help);
    for (char *word; (word = va_arg(ap, char *));)
        argv[argc++] = word;
    va_end(ap);
    kb_option table[TABLE_SIZE];
    memset(v, 0, sizeof *v);
    make_table(v, table);
    return kb_options_parse(table, flags, argc, argv, args, help);
}

static void every_kind_in_both_spellings(void **state) {
    values v;
    kb_arg_list args = {0};
    bool help;
    assert_int_equal(parse(&v, 0, &args, &help, "-q", "--text", "a", "--count=3", "in",
                           "--fraction", "0.5", "-f", "x", "--filter=-y", "--colour", "blue", "-t",
                           "b", NULL),
                     KB_OK);
    assert_false(help);
    assert_true(v.flag);
    assert_string_equal(v.text, "b"); /* the last one given */
    assert_int_equal(v.count, 3);
    assert_true(v.fraction == 0.5);
    assert_int_equal(v.colour, 2);
    assert_int_equal(v.list.count, 2);
    assert_string_equal(v.list.items[0], "x");
    assert_string_equal(v.list.items[1], "-y");
    assert_int_equal(args.count, 1);
    assert_string_equal(args.items[0], "in");
    kb_arg_list_free(&v.list);
    kb_arg_list_free(&args);
}

static void values_are_taken_whatever_they_look_like(void **state) {
    values v;
    bool help;
    assert_int_equal(parse(&v, 0, NULL, &help, "--text", "--count", "-f", "-h", NULL), KB_OK);
    assert_false(help);
    assert_string_equal(v.text, "--count");
    assert_string_equal(v.list.items[0], "-h");
    kb_arg_list_free(&v.list);
}

static void double_dash_ends_the_options(void **state) {
    values v;
    kb_arg_list args = {0};
    bool help;
    assert_int_equal(parse(&v, 0, &args, &help, "a", "-", "--", "-q", "--help", "--", NULL), KB_OK);
    assert_false(help);
    assert_false(v.flag);
    assert_int_equal(args.count, 5);
    assert_string_equal(args.items[1], "-");
    assert_string_equal(args.items[2], "-q");
    assert_string_equal(args.items[4], "--");
    kb_arg_list_free(&args);
}

static void stops_at_a_subcommand(void **state) {
    values v;
    kb_arg_list args = {0};
    bool help;
    assert_int_equal(
        parse(&v, KB_OPTIONS_STOP_AT_ARGUMENT, &args, &help, "-q", "sub", "--bogus", "-h", NULL),
        KB_OK);
    assert_false(help);
    assert_true(v.flag);
    assert_int_equal(args.count, 3);
    assert_string_equal(args.items[0], "sub");
    assert_string_equal(args.items[1], "--bogus");
    kb_arg_list_free(&args);
}

static void help_wins_over_errors(void **state) {
    values v;
    bool help;
    assert_int_equal(parse(&v, 0, NULL, &help, "--bogus", "--count", "99", "-h", NULL), KB_OK);
    assert_true(help);
    assert_int_equal(v.count, 0); /* nothing parsed */
    assert_int_equal(parse(&v, 0, NULL, &help, "--help", NULL), KB_OK);
    assert_true(help);
}

static void expect_error(const char *message, ...) {
    char *argv[32] = {"prog"};
    int argc = 1;
    va_list ap;
    va_start(ap, message);
    for (char *word; (word = va_arg(ap, char *));)
        argv[argc++] = word;
    va_end(ap);
    values v = {0};
    kb_option table[TABLE_SIZE];
    make_table(&v, table);
    bool help;
    assert_int_equal(kb_options_parse(table, 0, argc, argv, NULL, &help), KB_EINVAL);
    assert_string_equal(kb_last_error(), message);
    kb_arg_list_free(&v.list);
}

static void one_wording_per_error(void **state) {
    expect_error("unknown option '--bogus'", "--bogus", NULL);
    expect_error("unknown option '--bogus=1'", "--bogus=1", NULL);
    expect_error("unknown option '-z'", "-z", NULL);
    expect_error("unknown option '-qt'", "-qt", NULL);
    expect_error("option '--text' needs a value", "--text", NULL);
    expect_error("option '-t' needs a value", "-t", NULL);
    expect_error("option '--quiet' takes no value", "--quiet=yes", NULL);
    expect_error("unexpected argument 'extra'", "extra", NULL);
    expect_error("bad --count 'three' (expected 1 to 10)", "--count", "three", NULL);
    expect_error("bad --count '3x' (expected 1 to 10)", "--count=3x", NULL);
    expect_error("bad --count '' (expected 1 to 10)", "--count=", NULL);
    expect_error("bad --count '11' (expected 1 to 10)", "--count", "11", NULL);
    expect_error("bad --count '99999999999999999999' (expected 1 to 10)", "--count",
                 "99999999999999999999", NULL);
    expect_error("bad --fraction '0' (expected above 0, at most 1)", "--fraction", "0", NULL);
    expect_error("bad --fraction 'nan' (expected above 0, at most 1)", "--fraction", "nan", NULL);
    expect_error("bad --colour 'green' (expected red or blue)", "--colour", "green", NULL);
}

static char *help_text(void) {
    values v = {0};
    kb_option table[TABLE_SIZE];
    make_table(&v, table);
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    assert_non_null(out);
    kb_options_print_help(table, out);
    assert_int_equal(fclose(out), 0);
    return text;
}

static void help_comes_from_the_table(void **state) {
    char *text = help_text();
    assert_string_equal(
        text, "first:\n"
              "  -q, --quiet         say less\n"
              "  -t, --text WORD     a word\n"
              "      --count N       how many\n"
              "\n"
              "second:\n"
              "      --fraction F    a fraction, described at such length that the description\n"
              "                      cannot fit on one line of the help and has to be wrapped\n"
              "                      onto several of them\n"
              "  -f, --filter REGEX  repeatable\n"
              "      --colour C      red or blue\n"
              "      --a-flag-with-a-name-too-long-for-the-column  still described\n"
              "  -h, --help          show this help\n");
    free(text);
}

static void a_table_without_groups_has_options(void **state) {
    bool json = false;
    const kb_option table[] = {
        {KB_OPTION_FLAG, 0, "json", .target = &json, .help = "JSON"},
        {.kind = KB_OPTION_END},
    };
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    assert_non_null(out);
    kb_options_print_help(table, out);
    assert_int_equal(fclose(out), 0);
    assert_string_equal(text, "options:\n"
                              "      --json  JSON\n"
                              "  -h, --help  show this help\n");
    free(text);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_kind_in_both_spellings),
        cmocka_unit_test(values_are_taken_whatever_they_look_like),
        cmocka_unit_test(double_dash_ends_the_options),
        cmocka_unit_test(stops_at_a_subcommand),
        cmocka_unit_test(help_wins_over_errors),
        cmocka_unit_test(one_wording_per_error),
        cmocka_unit_test(help_comes_from_the_table),
        cmocka_unit_test(a_table_without_groups_has_options),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
