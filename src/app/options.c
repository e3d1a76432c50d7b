/* The option parser of every kbench program: parsing and --help from one table (options.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "kbench/results.h"
#include "app/options.h"
#include "app/usage.h"
#include "kbench/results.h"

/* Help lines stay within 80 columns; option names wider than NAMES_WIDTH push their
 * description to the right instead of widening the column for every option. */
enum { LINE_LIMIT = 80, NAMES_WIDTH = 20 };

static const kb_option help_option = {KB_OPTION_FLAG, 'h', "help", .help = "show this help"};

kb_status kb_arg_list_push(kb_arg_list *list, const char *item) {
    const char **grown = realloc(list->items, (size_t)(list->count + 1) * sizeof *grown);
    if (!grown)
        return kb_fail(KB_ENOMEM, "out of memory");
    list->items = grown;
    grown[list->count++] = item;
    return KB_OK;
}

void kb_arg_list_free(kb_arg_list *list) {
    free(list->items);
    list->items = NULL;
    list->count = 0;
}

kb_status kb_option_bad(const char *name, const char *value, const char *expected) {
    return kb_fail(KB_EINVAL, "bad %s '%s' (expected %s)", name, value, expected);
}

kb_status kb_option_as_dtype(const char *name, const char *value, void *target) {
    if (kb_dtype_from_name(value, target) != KB_OK)
        return kb_option_bad(name, value,
                             "a dtype whose size the file's items have: bfloat16, ...");
    return KB_OK;
}

kb_status kb_option_fraction(const char *name, const char *value, void *target) {
    char *end;
    errno = 0;
    double v = strtod(value, &end);
    if (end != value && errno == 0 && *end == '%') {
        v /= 100;
        end++;
    }
    bool percent = end != value && *end == '\0' && end[-1] == '%';
    if (end == value || errno != 0 || *end != '\0' || !isfinite(v) || !(v > 0))
        return kb_option_bad(name, value, "a positive fraction or percentage: 0.05, 5%");
    /* A bare number is a fraction: 5 would be 500%, which nobody means by it. */
    if (!percent && v >= 1)
        return kb_option_bad(name, value,
                             "a fraction below 1 (0.05) or a percentage (5%); a bare 5 would "
                             "mean 500%");
    *(double *)target = v;
    return KB_OK;
}

kb_status kb_option_report_format(const char *name, const char *value, void *target) {
    kb_results_format format;
    if (kb_results_format_parse(value, &format) != KB_OK || format == KB_RESULTS_CSV)
        return kb_option_bad(name, value, "table, markdown or json");
    *(kb_results_format *)target = format;
    return KB_OK;
}

/* Whether the option's value may be the next argument. */
static bool takes_value(const kb_option *o) {
    return o->kind != KB_OPTION_FLAG && o->kind != KB_OPTION_OPTIONAL;
}

/* "-" is an argument (standard input, by custom); "--" is seen before this is asked. */
static bool is_option_text(const char *arg) {
    return arg[0] == '-' && arg[1] != '\0';
}

static bool is_help(const char *arg) {
    return strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0;
}

/* The table's entry for arg ("--name", "--name=value", "-n"), or NULL; *value is what
 * follows '=', or NULL. */
static const kb_option *find(const kb_option *table, const char *arg, const char **value) {
    *value = NULL;
    if (arg[1] == '-') {
        const char *name = arg + 2;
        size_t n = strcspn(name, "=");
        for (const kb_option *o = table; o->kind != KB_OPTION_END; o++) {
            if (o->kind == KB_OPTION_GROUP || !o->long_name || strlen(o->long_name) != n ||
                strncmp(o->long_name, name, n) != 0)
                continue;
            if (name[n] == '=')
                *value = name + n + 1;
            return o;
        }
        return NULL;
    }
    if (arg[2] != '\0')
        return NULL;
    for (const kb_option *o = table; o->kind != KB_OPTION_END; o++)
        if (o->kind != KB_OPTION_GROUP && o->short_name == arg[1])
            return o;
    return NULL;
}

/* Whether -h or --help is on the line as an option: not after "--", not as another option's
 * value ("--filter -h"), not after the first argument when options stop there. */
static bool wants_help(const kb_option *table, unsigned flags, int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *value;
        if (strcmp(arg, "--") == 0)
            return false;
        if (!is_option_text(arg)) {
            if (flags & KB_OPTIONS_STOP_AT_ARGUMENT)
                return false;
            continue;
        }
        if (is_help(arg))
            return true;
        const kb_option *o = find(table, arg, &value);
        if (o && takes_value(o) && !value)
            i++;
    }
    return false;
}

static kb_status store_number(const kb_option *o, const char *name, const char *value) {
    char *end;
    double v;
    errno = 0;
    if (o->kind == KB_OPTION_INT)
        v = (double)strtol(value, &end, 10);
    else
        v = strtod(value, &end);
    if (errno != 0 || end == value || *end != '\0' || !isfinite(v) || v < o->min || v > o->max)
        return kb_option_bad(name, value, o->expected);
    if (o->kind == KB_OPTION_INT)
        *(int *)o->target = (int)v;
    else
        *(double *)o->target = v;
    return KB_OK;
}

static kb_status store(const kb_option *o, const char *name, const char *value) {
    switch (o->kind) {
        case KB_OPTION_FLAG:
            *(bool *)o->target = true;
            return KB_OK;
        case KB_OPTION_INT:
        case KB_OPTION_DOUBLE:
            return store_number(o, name, value);
        case KB_OPTION_OPTIONAL:
            value = value ? value : o->implicit;
            if (o->validate)
                return o->validate(name, value, o->target);
            *(const char **)o->target = value;
            return KB_OK;
        case KB_OPTION_STRING:
            if (o->once && *(const char **)o->target)
                return kb_fail(KB_EINVAL, "%s given twice ('%s', then '%s'); give it once", name,
                               *(const char **)o->target, value);
            if (o->validate)
                return o->validate(name, value, o->target);
            *(const char **)o->target = value;
            return KB_OK;
        case KB_OPTION_REPEATED:
            if (o->validate)
                return o->validate(name, value, o->target);
            return kb_arg_list_push(o->target, value);
        case KB_OPTION_END:
        case KB_OPTION_GROUP:
            break;
    }
    return KB_OK;
}

kb_status kb_options_parse(const kb_option *table, unsigned flags, int argc, char **argv,
                           kb_arg_list *arguments, bool *help) {
    *help = wants_help(table, flags, argc, argv);
    if (*help)
        return KB_OK;
    bool options = true;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *value;
        kb_status st;
        if (options && strcmp(arg, "--") == 0) {
            options = false;
            continue;
        }
        if (!options || !is_option_text(arg)) {
            if (!arguments)
                return kb_fail(KB_EINVAL, "unexpected argument '%s'", arg);
            if ((st = kb_arg_list_push(arguments, arg)) != KB_OK)
                return st;
            if (flags & KB_OPTIONS_STOP_AT_ARGUMENT)
                options = false;
            continue;
        }
        const kb_option *o = find(table, arg, &value);
        if (!o)
            return kb_fail(KB_EINVAL, "unknown option '%s'", arg);
        char name[64];
        if (arg[1] == '-')
            snprintf(name, sizeof name, "--%s", o->long_name);
        else
            snprintf(name, sizeof name, "-%c", o->short_name);
        if (o->kind == KB_OPTION_FLAG && value)
            return kb_fail(KB_EINVAL, "option '%s' takes no value", name);
        if (takes_value(o) && !value) {
            if (i + 1 >= argc)
                return kb_fail(KB_EINVAL, "option '%s' needs a value", name);
            value = argv[++i];
        }
        if ((st = store(o, name, value)) != KB_OK)
            return st;
    }
    return KB_OK;
}

/* "-f, --filter REGEX", "    --shard K/N": the long names line up whether or not there is
 * a short one. */
static int names_text(const kb_option *o, char *buf, size_t size) {
    int n;
    if (o->short_name && o->long_name)
        n = snprintf(buf, size, "-%c, --%s", o->short_name, o->long_name);
    else if (o->short_name)
        n = snprintf(buf, size, "-%c", o->short_name);
    else
        n = snprintf(buf, size, "    --%s", o->long_name);
    if (takes_value(o) && o->value_name && n >= 0 && (size_t)n < size)
        n += snprintf(buf + n, size - (size_t)n, " %s", o->value_name);
    else if (o->kind == KB_OPTION_OPTIONAL && o->value_name && n >= 0 && (size_t)n < size)
        n += snprintf(buf + n, size - (size_t)n, "[=%s]", o->value_name);
    return n;
}

/* Prints text from column `at`, breaking lines between words so that none passes LINE_LIMIT
 * (a longer word has a line of its own), and indenting the lines after the first to indent. */
static void print_wrapped(FILE *out, const char *text, int at, int indent) {
    int column = at;
    bool line_empty = true;
    for (const char *p = text; *p;) {
        if (*p == ' ') {
            p++;
            continue;
        }
        int word = (int)strcspn(p, " ");
        if (!line_empty && column + 1 + word > LINE_LIMIT) {
            fprintf(out, "\n%*s", indent, "");
            column = indent;
            line_empty = true;
        }
        if (!line_empty) {
            fputc(' ', out);
            column++;
        }
        fwrite(p, 1, (size_t)word, out);
        column += word;
        p += word;
        line_empty = false;
    }
    fputc('\n', out);
}

static void print_option(FILE *out, const kb_option *o, int width) {
    char names[128];
    int n = names_text(o, names, sizeof names);
    fprintf(out, "  %s", names);
    if (n <= width)
        fprintf(out, "%*s", width - n + 2, "");
    else
        fputs("  ", out);
    print_wrapped(out, o->help ? o->help : "", 2 + (n <= width ? width : n) + 2, 2 + width + 2);
}

/* Whether a group has an option to show: the list program hides the run options' groups. */
static bool group_visible(const kb_option *group) {
    for (const kb_option *o = group + 1; o->kind != KB_OPTION_END; o++) {
        if (o->kind == KB_OPTION_GROUP)
            return false;
        if (!o->hidden)
            return true;
    }
    return false;
}

void kb_options_print_help(const kb_option *table, FILE *out) {
    char names[128];
    int width = names_text(&help_option, names, sizeof names);
    for (const kb_option *o = table; o->kind != KB_OPTION_END; o++) {
        int n = o->kind == KB_OPTION_GROUP || o->hidden ? 0 : names_text(o, names, sizeof names);
        if (n > width && n <= NAMES_WIDTH)
            width = n;
    }
    bool printed = false;
    if (table->kind != KB_OPTION_GROUP) {
        fputs("options:\n", out);
        printed = true;
    }
    for (const kb_option *o = table; o->kind != KB_OPTION_END; o++) {
        if (o->kind == KB_OPTION_GROUP && group_visible(o)) {
            fprintf(out, "%s%s:\n", printed ? "\n" : "", o->help);
            printed = true;
        } else if (o->kind != KB_OPTION_GROUP && !o->hidden) {
            print_option(out, o, width);
        }
    }
    print_option(out, &help_option, width);
}

void kb_program_print_help(const kb_program *p, FILE *out) {
    fputs(p->synopsis, out);
    kb_options_print_help(p->options, out);
    if (p->epilogue)
        fprintf(out, "\n%s", p->epilogue);
}

bool kb_program_parse(const kb_program *p, int argc, char **argv, kb_arg_list *arguments,
                      int *status) {
    bool help;
    kb_status st = kb_options_parse(p->options, p->flags, argc, argv, arguments, &help);
    if (st == KB_EINVAL) {
        *status = kb_usage_error(p->name, "%s", kb_last_error());
    } else if (st != KB_OK) {
        *status = kb_report_failure(p->name);
    } else if (help) {
        kb_program_print_help(p, stdout);
        *status = KB_EXIT_OK;
    } else {
        return true;
    }
    return false;
}

bool kb_program_parse_exactly(const kb_program *p, int argc, char **argv, const char *const *names,
                              int count, kb_arg_list *arguments, int *status) {
    if (!kb_program_parse(p, argc, argv, arguments, status))
        return false;
    if (arguments->count > count) {
        *status = kb_usage_error(p->name, "unexpected argument '%s'", arguments->items[count]);
    } else if (arguments->count < count) {
        char missing[160] = "";
        for (int i = arguments->count; i < count; i++) {
            size_t used = strlen(missing);
            snprintf(missing + used, sizeof missing - used, "%s%s",
                     i == arguments->count ? ""
                     : i + 1 < count       ? ", "
                                           : " and ",
                     names[i]);
        }
        *status = kb_usage_error(p->name, "missing %s", missing);
    } else {
        *status = kb_check_settings(p->name);
    }
    return *status == KB_EXIT_OK;
}

int kb_program_run_subcommand(const kb_program *p, int argc, char **argv,
                              const kb_subcommand *subcommands) {
    kb_arg_list rest = {0};
    int status;
    if (kb_program_parse(p, argc, argv, &rest, &status)) {
        /* The subcommand and what follows it are the end of argv, which the subcommand
         * parses as its own command line. */
        char **sub = argv + (argc - rest.count);
        int found = -1, n = 0;
        for (; subcommands[n].name; n++)
            if (rest.count > 0 && strcmp(sub[0], subcommands[n].name) == 0)
                found = n;
        if (rest.count == 0) {
            /* "(info or copy)", "(add, list, show, export or prune)" */
            char names[256] = "";
            size_t used = 0;
            for (int i = 0; i < n && used < sizeof names; i++)
                used += (size_t)snprintf(names + used, sizeof names - used, "%s%s",
                                         i == 0      ? ""
                                         : i + 1 < n ? ", "
                                                     : " or ",
                                         subcommands[i].name);
            status = kb_usage_error(p->name, "missing subcommand (%s)", names);
        } else if (found >= 0) {
            status = subcommands[found].run(rest.count, sub);
        } else {
            status = kb_usage_error(p->name, "unknown subcommand '%s'", sub[0]);
        }
    }
    kb_arg_list_free(&rest);
    return status;
}
