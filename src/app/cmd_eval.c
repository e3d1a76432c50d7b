/* `kbench eval`: evaluates an expression over .npy inputs and prints or saves the result. */
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/commands.h"
#include "app/explain_print.h"
#include "app/options.h"
#include "app/print_array.h"
#include "app/usage.h"
#include "core/internal.h"
#include "util/internal.h"
#include "kbench/expr.h"
#include "kbench/npy.h"
#include "kbench/simd.h"
#include "kbench/threads.h"

static const char *const command = "kbench eval";

typedef struct options {
    const char *expression;
    kb_arg_list outputs; /* -o FILE, one per result */
    const char *explain; /* NULL, "text" or "json" */
    const char *simd;
    int threads; /* 0: not given */
    kb_dtype as; /* void items of the inputs read as; KB_DTYPE_COUNT: none */
    bool eager;
    kb_arg_list arguments;
    /* NAME=FILE, copied with the '=' cut, so that a binding's name is a string of its own. */
    char **texts;
    kb_expr_binding *bindings;
    int nbindings;
    /* NAME=NUMBER: Python scalars, weak in promotion as NumPy's are. */
    char **scalar_texts;
    kb_expr_scalar *scalars;
    int nscalars;
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

static const char *binding_path(const options *o, int i) {
    return o->texts[i] + strlen(o->texts[i]) + 1;
}

/* A Python number or bool, as written on a command line: alpha=0.5, n=3, flag=True, and
 * inf and nan (float('inf')'s spellings). Anything else is a file name. */
static bool parse_scalar(const char *text, kb_expr_scalar *out) {
    if (strcmp(text, "True") == 0 || strcmp(text, "False") == 0) {
        out->dtype = KB_BOOL;
        out->value.b = text[0] == 'T';
        return true;
    }
    const char *digits = text + (text[0] == '-' || text[0] == '+');
    if (strcmp(digits, "inf") == 0 || strcmp(digits, "nan") == 0) {
        out->dtype = KB_F64;
        out->value.f = digits[0] == 'i' ? (text[0] == '-' ? -INFINITY : INFINITY) : NAN;
        return true;
    }
    /* Decimal numbers only: a file may well be called 0x1 or 1e5.npy. */
    bool is_float = false, any_digit = false;
    for (const char *c = digits; *c; c++) {
        if (*c >= '0' && *c <= '9')
            any_digit = true;
        else if (*c == '.' || *c == 'e' || *c == 'E' || *c == '+' || *c == '-')
            is_float = true;
        else
            return false;
    }
    if (!any_digit)
        return false;
    char *end;
    errno = 0;
    if (is_float) {
        locale_t c = kb_c_locale();
        out->dtype = KB_F64;
        out->value.f = c ? strtod_l(text, &end, c) : strtod(text, &end);
    } else {
        out->dtype = KB_INT64;
        out->value.i = strtoll(text, &end, 10);
        if (errno == ERANGE)
            return false; /* beyond int64: a file name, or "no such file" */
    }
    return *end == '\0';
}

static bool is_bound(const options *o, const char *name, size_t n) {
    for (int i = 0; i < o->nbindings; i++)
        if (strlen(o->bindings[i].name) == n && strncmp(o->bindings[i].name, name, n) == 0)
            return true;
    for (int i = 0; i < o->nscalars; i++)
        if (strlen(o->scalars[i].name) == n && strncmp(o->scalars[i].name, name, n) == 0)
            return true;
    return false;
}

static int add_binding(options *o, const char *arg) {
    const char *eq = strchr(arg, '=');
    if (!eq || !is_identifier(arg, (size_t)(eq - arg)) || eq[1] == '\0')
        return kb_usage_error(command, "malformed binding '%s' (expected NAME=FILE or NAME=NUMBER)",
                              arg);
    size_t n = (size_t)(eq - arg);
    if (is_bound(o, arg, n))
        return kb_usage_error(command, "variable '%.*s' is bound twice", (int)n, arg);
    char *text = strdup(arg);
    if (!text) {
        fprintf(stderr, "%s: out of memory\n", command);
        return KB_EXIT_FAILURE;
    }
    text[n] = '\0';
    kb_expr_scalar scalar = {.name = text};
    if (parse_scalar(text + n + 1, &scalar)) {
        o->scalar_texts[o->nscalars] = text;
        o->scalars[o->nscalars++] = scalar;
        return KB_EXIT_OK;
    }
    o->texts[o->nbindings] = text;
    o->bindings[o->nbindings].name = text;
    o->nbindings++;
    return KB_EXIT_OK;
}

/* Its own wording rather than kb_option_bad's, which tests/cli/test_eval.py holds it to. */
static kb_status parse_threads(const char *name, const char *value, void *target) {
    char *end;
    errno = 0;
    long v = strtol(value, &end, 10);
    if (errno || end == value || *end || v < 1)
        return kb_fail(KB_EINVAL, "%s expects a positive integer, not '%s'", name, value);
    /* KB_NUM_THREADS's bound, a usage error here rather than kb_threads_set's failure. */
    if (v > 4096)
        return kb_fail(KB_EINVAL, "%s expects at most 4096 threads, not '%s'", name, value);
    *(int *)target = (int)v;
    return KB_OK;
}

static kb_status validate_explain(const char *name, const char *value, void *target) {
    if (strcmp(value, "text") != 0 && strcmp(value, "json") != 0)
        return kb_option_bad(name, value, "text or json");
    *(const char **)target = value;
    return KB_OK;
}

/* True when the evaluation goes on; otherwise *status is the exit status (after the help, or
 * a message). */
static bool parse_options(int argc, char **argv, options *o, int *status) {
    const kb_option table[] = {
        {KB_OPTION_FLAG, 0, "eager", NULL, &o->eager,
         .help = "evaluate eagerly, each operation into a temporary as NumPy does, rather than "
                 "by the fused plan (the default: as few passes over memory as the planner's rules "
                 "allow)"},
        {KB_OPTION_OPTIONAL, 0, "explain", "FORMAT", &o->explain, validate_explain,
         .implicit = "text",
         .help = "print the plan instead of the result: its kernels, their ops, loops and the "
                 "elements and bytes each reads and writes, and the total numel; FORMAT is text "
                 "(the default) or json"},
        {KB_OPTION_REPEATED, 'o', "output", "FILE", &o->outputs,
         .help = "write the result to FILE (.npy) instead of printing it; a tuple of results "
                 "takes one -o per result, in order"},
        {KB_OPTION_STRING, 0, "simd", "LEVEL", &o->simd,
         .help = "auto, scalar, avx2, avx512, neon or sve (default: KB_SIMD, or auto)"},
        {KB_OPTION_STRING, 0, "threads", "N", &o->threads, parse_threads,
         .help = "threads to use (default: KB_NUM_THREADS, or the usable cores)"},
        {KB_OPTION_STRING, 0, "as", "D", &o->as, kb_option_as_dtype,
         .help = "read inputs of a void dtype (untyped items, descr such as '<V2') as D, whose "
                 "size their items have: bfloat16 saved by NumPy without ml_dtypes is '<V2'"},
        {.kind = KB_OPTION_END},
    };
    const kb_program program = {
        .name = command,
        .synopsis =
            "usage: kbench eval EXPRESSION [NAME=FILE|NAME=NUMBER ...] [-o FILE ...]\n"
            "                   [--eager] [--explain[=FORMAT]] [--simd LEVEL] [--threads N]\n"
            "                   [--as D]\n"
            "\n"
            "Evaluates an expression written as in NumPy on arrays read from .npy files, with\n"
            "NumPy 2's broadcasting, types and results, and writes the result to a .npy file\n"
            "or prints it as NumPy would.\n"
            "\n"
            "  EXPRESSION         Python's arithmetic (+ - * / // % **), comparisons, & | ~,\n"
            "                     NumPy's elementwise functions (exp, sqrt, where, clip,\n"
            "                     astype, ...; np. prefix optional), sigmoid and erf, and\n"
            "                     the reductions sum, prod, mean, min, max, argmin, argmax,\n"
            "                     var and std with NumPy's arguments (axis, keepdims, ddof),\n"
            "                     transpose(x[, axes]) and permute_dims(x, axes);\n"
            "                     statements separated by ';' or line breaks, NAME = value\n"
            "                     assigns, the last one is the result (a tuple of results,\n"
            "                     such as (sum(a, axis=1), max(a, axis=1)), gives several).\n"
            "                     NumPy's RuntimeWarnings go to stderr\n"
            "  NAME=FILE          binds the variable NAME to the array in the .npy FILE\n"
            "  NAME=NUMBER        binds NAME to a Python scalar (3, 0.5, True, inf, nan),\n"
            "                     weak in promotion as NumPy 2 takes Python scalars\n"
            "  --                 ends the options (for an expression that starts with '-')\n"
            "\n",
        .options = table,
        .epilogue =
            "examples:\n"
            "  kbench eval 'mean(x, axis=0)' x=data.npy\n"
            "  kbench eval 'np.std(x, axis=(0, 2), ddof=1)' x=data.npy -o std.npy\n"
            "  kbench eval 'a * x + y' a=0.5 x=x.npy y=y.npy -o axpy.npy\n"
            "  kbench eval 'm = max(x, axis=1, keepdims=True); e = exp(x - m);\n"
            "               e / sum(e, axis=1, keepdims=True)' x=logits.npy\n"
            "  kbench eval --explain=json 'x + transpose(x)' x=square.npy\n"
            "  kbench eval '(sum(a, axis=1), max(a, axis=1))' a=a.npy -o sum.npy -o max.npy\n"
            "\n"
            "environment: KB_COMPILE=auto|0|1 runs a fused elementwise kernel compiled,\n"
            "a vector through all its ops (auto: from 65536 elements; 0: never; 1: always,\n"
            "and a compiler that fails is an error); KB_CC names the C compiler; the\n"
            "kernels are kept in $KB_CACHE_DIR/kernels (default ~/.cache/kbench/kernels).\n"
            "\n"
            "exit status: 0 success, 1 failure (unreadable file, error in the expression),\n"
            "2 bad usage.\n",
    };
    if (!kb_program_parse(&program, argc, argv, &o->arguments, status))
        return false;
    if (o->arguments.count == 0) {
        *status = kb_usage_error(command, "missing the expression");
        return false;
    }
    o->expression = o->arguments.items[0];
    if (o->explain && o->outputs.count > 0) {
        *status =
            kb_usage_error(command, "--explain prints the plan, not a result to write with -o");
        return false;
    }
    /* At most one binding per argument. */
    o->texts = calloc((size_t)o->arguments.count, sizeof *o->texts);
    o->bindings = calloc((size_t)o->arguments.count, sizeof *o->bindings);
    o->scalar_texts = calloc((size_t)o->arguments.count, sizeof *o->scalar_texts);
    o->scalars = calloc((size_t)o->arguments.count, sizeof *o->scalars);
    if (!o->texts || !o->bindings || !o->scalar_texts || !o->scalars) {
        fprintf(stderr, "%s: out of memory\n", command);
        *status = KB_EXIT_FAILURE;
        return false;
    }
    for (int i = 1; i < o->arguments.count; i++)
        if ((*status = add_binding(o, o->arguments.items[i])) != KB_EXIT_OK)
            return false;
    return true;
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
    int status = kb_check_settings(command);
    if (status == KB_EXIT_OK)
        kb_warn_oversubscribed(command);
    return status;
}

/* NumPy's RuntimeWarnings, on stderr in its words; they do not change the exit status. */
static void print_warning(const char *message, void *context) {
    (void)context;
    fprintf(stderr, "%s: RuntimeWarning: %s\n", command, message);
}

static int explain(const options *o, const kb_expr *expr, const kb_expr_inputs *in) {
    /* an eager plan is traced from an evaluation, whose warnings are not the plan's */
    kb_expr_inputs quiet = *in;
    quiet.warn = NULL;
    kb_expr_plan plan;
    if (kb_expr_explain(expr, &quiet, &plan) != KB_OK)
        return kb_report_failure(command);
    kb_status st = strcmp(o->explain, "json") == 0 ? kb_explain_print_json(&plan, stdout)
                                                   : kb_explain_print_text(&plan, stdout);
    kb_expr_plan_free(&plan);
    return st == KB_OK ? KB_EXIT_OK : kb_report_failure(command);
}

/* The results, written to the -o files in order or printed one after the other. */
static int evaluate_results(const options *o, const kb_expr *expr, const kb_expr_inputs *in) {
    int count = kb_expr_result_count(expr);
    if (o->outputs.count > 0 && o->outputs.count != count)
        return kb_usage_error(
            command, "the expression gives %d result%s: give -o %d time%s, not %d", count,
            count == 1 ? "" : "s", count, count == 1 ? "" : "s", o->outputs.count);
    kb_array *results = calloc((size_t)(count > 0 ? count : 1), sizeof *results);
    if (!results) {
        fprintf(stderr, "%s: out of memory\n", command);
        return KB_EXIT_FAILURE;
    }
    int status = KB_EXIT_OK;
    if (kb_expr_eval_results(expr, in, results, count) != KB_OK) {
        status = kb_report_failure(command);
        count = 0;
    }
    for (int i = 0; i < count && status == KB_EXIT_OK; i++) {
        kb_status st = o->outputs.count > 0
                           ? kb_npy_write(o->outputs.items[i], &results[i], KB_ORDER_C, 0)
                           : kb_print_array(stdout, &results[i]);
        if (st != KB_OK)
            status = kb_report_failure(command);
    }
    for (int i = 0; i < count; i++)
        kb_array_free(&results[i]);
    free(results);
    return status;
}

static int evaluate(const options *o, kb_array *inputs) {
    kb_expr *expr;
    if (kb_expr_parse(o->expression, &expr) != KB_OK)
        return kb_report_failure(command);
    int status = KB_EXIT_OK;
    int loaded = 0;
    for (; loaded < o->nbindings; loaded++) {
        if (kb_npy_read_as(binding_path(o, loaded), o->as, &inputs[loaded], NULL) != KB_OK) {
            status = kb_report_failure(command);
            break;
        }
        o->bindings[loaded].array = &inputs[loaded];
    }
    kb_expr_inputs in = {.bindings = o->bindings,
                         .nbindings = o->nbindings,
                         .scalars = o->scalars,
                         .nscalars = o->nscalars,
                         .warn = print_warning,
                         .mode = o->eager ? KB_EXPR_EAGER : KB_EXPR_FUSED};
    if (status == KB_EXIT_OK && o->explain)
        status = explain(o, expr, &in);
    else if (status == KB_EXIT_OK)
        status = evaluate_results(o, expr, &in);
    for (int i = 0; i < loaded; i++)
        kb_array_free(&inputs[i]);
    kb_expr_free(expr);
    return status;
}

int kb_cmd_eval(int argc, char **argv) {
    options o = {.as = KB_DTYPE_COUNT};
    int status;
    kb_array *inputs = NULL;
    if (parse_options(argc, argv, &o, &status) && (status = apply_settings(&o)) == KB_EXIT_OK) {
        /* One more than needed: calloc of nothing may return NULL. */
        if ((inputs = calloc((size_t)o.nbindings + 1, sizeof *inputs))) {
            status = evaluate(&o, inputs);
        } else {
            fprintf(stderr, "%s: out of memory\n", command);
            status = KB_EXIT_FAILURE;
        }
    }
    free(inputs);
    for (int i = 0; i < o.nbindings; i++)
        free(o.texts[i]);
    free(o.texts);
    free(o.bindings);
    for (int i = 0; i < o.nscalars; i++)
        free(o.scalar_texts[i]);
    free(o.scalar_texts);
    free(o.scalars);
    kb_arg_list_free(&o.arguments);
    kb_arg_list_free(&o.outputs);
    return status;
}
