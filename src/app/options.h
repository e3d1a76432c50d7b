#ifndef KB_APP_OPTIONS_H
#define KB_APP_OPTIONS_H

#include <stdbool.h>
#include <stdio.h>

#include "kbench/error.h"

/* The one option parser of the kbench programs, after git's parse-options: a program declares
 * each option once, in a table, and both the parsing and the options part of its --help come
 * from that table.
 *
 * Syntax: "--name VALUE" or "--name=VALUE", "-n VALUE"; a flag is "--name" or "-n". A value is
 * the next argument whatever it looks like ("--filter -scalar", "--min-time -1"). Options and
 * arguments may come in any order; "--" ends the options, and "-" is an argument. Every
 * table has -h and --help without declaring them, and they win over anything else on the line
 * before "--".
 *
 * Errors have one wording each: "unknown option '--x'", "option '--x' needs a value",
 * "option '--x' takes no value", "unexpected argument 'x'", and for a value that is not what
 * the option takes (a malformed or out-of-range number, an unknown name), "bad --x 'value'
 * (expected ...)" from kb_option_bad. */

/* A number's macro as text, for a default in a help line: KB_STRING(KB_BENCH_MIN_SAMPLES). */
#define KB_STRING(x) KB_STRING_(x)
#define KB_STRING_(x) #x

/* Arguments (or the values of a repeated option) in the order given; the strings point into
 * argv. */
typedef struct kb_arg_list {
    const char **items;
    int count;
} kb_arg_list;

/* KB_ENOMEM when the list cannot grow. */
kb_status kb_arg_list_push(kb_arg_list *list, const char *item);
void kb_arg_list_free(kb_arg_list *list);

typedef enum kb_option_kind {
    KB_OPTION_END = 0,  /* ends a table */
    KB_OPTION_GROUP,    /* not an option: a heading in the help ("measurement") */
    KB_OPTION_FLAG,     /* bool *target is set */
    KB_OPTION_STRING,   /* const char **target is the value; given twice, the last wins */
    KB_OPTION_INT,      /* int *target, from min to max */
    KB_OPTION_DOUBLE,   /* double *target, finite, from min to max */
    KB_OPTION_REPEATED, /* kb_arg_list *target gets every value, in order */
    KB_OPTION_OPTIONAL, /* const char **target is the value of --name=VALUE, or implicit when
                           given as --name alone (the next argument is never its value) */
} kb_option_kind;

/* Checks a STRING or REPEATED option's value and stores what it means in target, in place of
 * the kind's own storing (a name becomes an enum, a file name is kept with its format).
 * name is the option as given ("-o", "--output"), for the message; KB_EINVAL (a usage error)
 * for a bad value. */
typedef kb_status (*kb_option_validator)(const char *name, const char *value, void *target);

typedef struct kb_option {
    kb_option_kind kind;
    char short_name;        /* 'o' for -o; 0 for none */
    const char *long_name;  /* "output" for --output; NULL for none */
    const char *value_name; /* in the help: "FILE"; every kind but FLAG takes a value */
    void *target;
    kb_option_validator validate; /* STRING and REPEATED; NULL: none */
    /* INT and DOUBLE: the values accepted, bounds included; DBL_TRUE_MIN stands for "above 0"
     * and 1 - DBL_EPSILON / 2 for "below 1". */
    double min, max;
    const char *expected; /* INT and DOUBLE (required): the values accepted, in words */
    const char *help;     /* a GROUP's heading, an option's description */
    bool hidden;          /* parsed, but left out of the help */
    /* STRING whose target starts NULL: given twice is a usage error rather than the last
     * winning (an output file, where the first would be dropped without a word). */
    bool once;
    const char *implicit; /* OPTIONAL: the value of the option given alone */
} kb_option;

/* A KB_EINVAL failure with the one wording of a bad value, "bad NAME 'VALUE' (expected
 * EXPECTED)"; for validators. */
kb_status kb_option_bad(const char *name, const char *value, const char *expected);

/* The validator of --as DTYPE (npy info, npy copy, eval): target is a kb_dtype, the type whose
 * values a .npy file's void items hold (kb_npy_read_as). */
kb_status kb_option_as_dtype(const char *name, const char *value, void *target);

/* The validator of a positive fraction below 1 given as "0.05" or "5%" (target: a double);
 * a bare 5 is refused rather than read as 500%. */
kb_status kb_option_fraction(const char *name, const char *value, void *target);

/* The validator of --format F for reports: table, markdown or json (target: a
 * kb_results_format). */
kb_status kb_option_report_format(const char *name, const char *value, void *target);

enum {
    /* The arguments start at the first one that is not an option: it and all that follow,
     * options or not, are arguments (for a program whose first argument is a subcommand). */
    KB_OPTIONS_STOP_AT_ARGUMENT = 1,
};

/* Parses argv[1 .. argc) against table. *help is set, and nothing else done, when -h or
 * --help is given. Arguments go to arguments; with arguments NULL, any is an error. KB_EINVAL
 * for bad usage, with the message; KB_ENOMEM. The targets keep what was parsed up to an
 * error: the caller frees lists either way. */
kb_status kb_options_parse(const kb_option *table, unsigned flags, int argc, char **argv,
                           kb_arg_list *arguments, bool *help);

/* The options part of the help: a line per visible option, under "options:" or the table's
 * groups, wrapped to 80 columns, and -h, --help last. */
void kb_options_print_help(const kb_option *table, FILE *out);

/* A program's command line: how it is named in messages ("kbench eval", "./mybench list"),
 * its options, and the help around them. */
typedef struct kb_program {
    const char *name;
    const char *synopsis; /* the usage lines and what the program does, then a blank line */
    const kb_option *options;
    const char *epilogue; /* after the options (examples, environment, exit status); or NULL */
    unsigned flags;       /* KB_OPTIONS_* */
} kb_program;

void kb_program_print_help(const kb_program *p, FILE *out);

/* Parses a program's command line. True when the program goes on; otherwise *status is its
 * exit status: 0 after printing the help on stdout, 2 after a usage error on stderr, 1 when
 * out of memory. Either way the caller frees arguments and any repeated option's list. */
bool kb_program_parse(const kb_program *p, int argc, char **argv, kb_arg_list *arguments,
                      int *status);

/* Parses the command line of a program that takes exactly count arguments, named names[0 ..
 * count) in its usage: too few is "missing IN and OUT" (the names not given), one too many
 * the parser's "unexpected argument 'X'". Then checks the settings in force
 * (kb_check_settings). True when the program goes on with arguments->items[0 .. count);
 * otherwise *status is its exit status, as kb_program_parse's. Either way the caller frees
 * arguments. */
bool kb_program_parse_exactly(const kb_program *p, int argc, char **argv, const char *const *names,
                              int count, kb_arg_list *arguments, int *status);

/* A subcommand of a command such as `kbench npy`: its name and the function that parses the
 * rest of the command line as its own (argv[0] is the subcommand). */
typedef struct kb_subcommand {
    const char *name;
    int (*run)(int argc, char **argv);
} kb_subcommand;

/* Parses the command line of a command of subcommands (p's flags hold
 * KB_OPTIONS_STOP_AT_ARGUMENT; the array ends with a NULL name) and runs the one it names;
 * "missing subcommand (A, B or C)" and "unknown subcommand 'X'" are usage errors. Returns the
 * exit status. */
int kb_program_run_subcommand(const kb_program *p, int argc, char **argv,
                              const kb_subcommand *subcommands);

#endif
