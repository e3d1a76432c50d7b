#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/commands.h"
#include "app/print_array.h"
#include "app/usage.h"
#include "kbench/expr.h"
#include "kbench/npy.h"
#include "kbench/simd.h"
#include "kbench/threads.h"

static const char *const command = "eval";

static void print_help(void) {
    printf("usage: kbench eval EXPRESSION [NAME=FILE ...] [-o FILE] [--simd LEVEL] [--threads N]\n"
           "\n"
           "Evaluates a reduction written as in NumPy on arrays read from .npy files, and\n"
           "writes the result to a .npy file or prints it as NumPy would.\n"
           "\n"
           "  EXPRESSION         sum, prod, mean, min, max, argmin, argmax, var or std of one\n"
           "                     array (np. prefix optional), with axis= (an integer, a tuple\n"
           "                     or None), keepdims= (True or False) and, for var and std,\n"
           "                     ddof=; reductions nest, and a bare NAME is its array\n"
           "  NAME=FILE          binds the variable NAME to the array in the .npy FILE\n"
           "\n"
           "options:\n"
           "  -o, --output FILE  write the result to FILE (.npy) instead of printing it\n"
           "      --simd LEVEL   auto, scalar, avx2, avx512, neon or sve (default: KB_SIMD, or\n"
           "                     auto)\n"
           "      --threads N    threads to use (default: KB_NUM_THREADS, or the usable cores)\n"
           "  -h, --help         show this help\n"
           "  --                 ends the options (for an expression that starts with '-')\n"
           "\n"
           "examples:\n"
           "  kbench eval 'mean(x, axis=0)' x=data.npy\n"
           "  kbench eval 'np.std(x, axis=(0, 2), ddof=1)' x=data.npy -o std.npy\n"
           "\n"
           "exit status: 0 success, 1 failure (unreadable file, error in the expression),\n"
           "2 bad usage.\n");
}

typedef struct options {
    const char *expression;
    const char *output;
    const char *simd;
    int threads; /* 0: not given */
    kb_expr_binding *bindings;
    char **paths;
    int nbindings;
} options;

static bool is_identifier(const char *s, size_t n) {
    if (n == 0 || !(s[0] == '_' || (s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z')))
        return false;
    for (size_t i = 1; i < n; i++)
        if (!(s[i] == '_' || (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
              (s[i] >= '0' && s[i] <= '9')))
            return false;
    return true;
}

/* NAME=FILE: the name is cut out of the argument in place, which argv allows. */
static int add_binding(options *o, char *arg) {
    char *eq = strchr(arg, '=');
    if (!eq || !is_identifier(arg, (size_t)(eq - arg)) || eq[1] == '\0')
        return kb_usage_error(command, "malformed binding '%s' (expected NAME=FILE)", arg);
    *eq = '\0';
    for (int i = 0; i < o->nbindings; i++)
        if (strcmp(o->bindings[i].name, arg) == 0)
            return kb_usage_error(command, "variable '%s' is bound twice", arg);
    o->bindings[o->nbindings].name = arg;
    o->paths[o->nbindings] = eq + 1;
    o->nbindings++;
    return KB_EXIT_OK;
}

/* The value of an option given as "--name VALUE", "--name=VALUE" or, for short ones, "-o
 * VALUE"; NULL (after a usage message) when it is missing. */
static const char *option_value(int argc, char **argv, int *i, const char *name) {
    const char *arg = argv[*i];
    size_t n = strlen(name);
    if (strncmp(arg, name, n) == 0 && arg[n] == '=')
        return arg + n + 1;
    if (*i + 1 >= argc) {
        kb_usage_error(command, "option '%s' needs a value", name);
        return NULL;
    }
    return argv[++*i];
}

static bool option_is(const char *arg, const char *name) {
    size_t n = strlen(name);
    return strncmp(arg, name, n) == 0 && (arg[n] == '\0' || (arg[n] == '=' && name[1] == '-'));
}

static int parse_threads(const char *text, int *out) {
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno || end == text || *end || v < 1 || v > INT_MAX)
        return kb_usage_error(command, "--threads expects a positive integer, not '%s'", text);
    *out = (int)v;
    return KB_EXIT_OK;
}

static int parse_options(int argc, char **argv, options *o) {
    bool only_positionals = false;
    for (int i = 1; i < argc; i++) {
        char *arg = argv[i];
        int status = KB_EXIT_OK;
        if (only_positionals || arg[0] != '-' || arg[1] == '\0') {
            if (!o->expression)
                o->expression = arg;
            else
                status = add_binding(o, arg);
        } else if (strcmp(arg, "--") == 0) {
            only_positionals = true;
        } else if (option_is(arg, "-o") || option_is(arg, "--output")) {
            const char *name = arg[1] == '-' ? "--output" : "-o";
            if (!(o->output = option_value(argc, argv, &i, name)))
                return KB_EXIT_USAGE;
        } else if (option_is(arg, "--simd")) {
            if (!(o->simd = option_value(argc, argv, &i, "--simd")))
                return KB_EXIT_USAGE;
        } else if (option_is(arg, "--threads")) {
            const char *value = option_value(argc, argv, &i, "--threads");
            if (!value)
                return KB_EXIT_USAGE;
            status = parse_threads(value, &o->threads);
        } else {
            status = kb_usage_error(command, "unknown option '%s'", arg);
        }
        if (status != KB_EXIT_OK)
            return status;
    }
    if (!o->expression)
        return kb_usage_error(command, "missing the expression");
    return KB_EXIT_OK;
}

/* Settings first, so a refused --simd or --threads fails before any file is read. */
static int apply_settings(const options *o) {
    if (o->simd) {
        int request;
        if (kb_simd_parse(o->simd, &request) != KB_OK)
            return kb_usage_error(command, "%s", kb_last_error());
        if (kb_simd_set(request) != KB_OK)
            return kb_report_failure(command);
    }
    if (o->threads > 0 && kb_threads_set(o->threads) != KB_OK)
        return kb_report_failure(command);
    /* An invalid KB_SIMD or KB_NUM_THREADS that no option overrides is reported as such,
     * before the reduction would fail on it. */
    kb_simd_level level;
    int threads;
    if (kb_simd_current(&level) != KB_OK || kb_threads_current(&threads) != KB_OK)
        return kb_report_failure(command);
    return KB_EXIT_OK;
}

static int evaluate(const options *o, kb_array *inputs) {
    kb_expr *expr;
    if (kb_expr_parse(o->expression, &expr) != KB_OK)
        return kb_report_failure(command);
    int status = KB_EXIT_OK;
    int loaded = 0;
    for (; loaded < o->nbindings; loaded++) {
        if (kb_npy_read(o->paths[loaded], &inputs[loaded], NULL) != KB_OK) {
            status = kb_report_failure(command);
            break;
        }
        o->bindings[loaded].array = &inputs[loaded];
    }
    kb_array result = {0};
    if (status == KB_EXIT_OK && kb_expr_eval(expr, o->bindings, o->nbindings, &result) != KB_OK)
        status = kb_report_failure(command);
    if (status == KB_EXIT_OK) {
        kb_status st = o->output ? kb_npy_write(o->output, &result, KB_ORDER_C, 0)
                                 : kb_print_array(stdout, &result);
        if (st != KB_OK)
            status = kb_report_failure(command);
    }
    kb_array_free(&result);
    for (int i = 0; i < loaded; i++)
        kb_array_free(&inputs[i]);
    kb_expr_free(expr);
    return status;
}

int kb_cmd_eval(int argc, char **argv) {
    if (kb_wants_help(argc, argv)) {
        print_help();
        return KB_EXIT_OK;
    }
    /* At most one binding per argument. */
    options o = {0};
    o.bindings = calloc((size_t)argc, sizeof *o.bindings);
    o.paths = calloc((size_t)argc, sizeof *o.paths);
    kb_array *inputs = calloc((size_t)argc, sizeof *inputs);
    int status = KB_EXIT_FAILURE;
    if (!o.bindings || !o.paths || !inputs)
        fprintf(stderr, "kbench %s: out of memory\n", command);
    else if ((status = parse_options(argc, argv, &o)) == KB_EXIT_OK &&
             (status = apply_settings(&o)) == KB_EXIT_OK)
        status = evaluate(&o, inputs);
    free(inputs);
    free(o.paths);
    free(o.bindings);
    return status;
}
