/* kb_baseline_serve: this build of kbench as a baseline runner, so that another build can time
 * it interleaved with its own implementations (kbench run --baseline kbench=PATH). It speaks
 * the protocol of baselines/runner.py (its docstring is the reference) for the one library
 * "kbench": the reduce cases, computed with kb_reduce_into, and the expr cases, evaluated
 * fused with kb_expr_eval_into into an output allocated by setup (as the expr suite's
 * output=into does), or, where the case names the elementwise call kbench's own case times
 * ("ew": the ew suite), with kb_ew_apply_into on operands evaluated at setup; at this build's
 * automatic SIMD level and the thread count asked for. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "bench/baseline_serve.h"
#include "bench/flush.h"
#include "core/internal.h"
#include "kbench/bench.h"
#include "kbench/expr.h"
#include "kbench/npy.h"
#include "kbench/reduce.h"
#include "kbench/threads.h"
#include "kbench/version.h"
#include "bench/suites.h"
#include "kernels/ew.h"
#include "util/internal.h"

#define SERVE_MAX_CASES 16
#define SERVE_MAX_LINE ((size_t)1 << 20)
#define SERVE_MAX_VARS 8
#define SERVE_MAX_OPERANDS 3

/* A case set up: a reduction of the input, or an expression (expr not NULL) whose variables
 * are views of the input's rows, timed as itself or, with ew, as the elementwise call it names.
 * Cases move within the array: nothing in one points into it. */
typedef struct serve_case {
    char id[64];
    kb_reduce_args args;
    kb_expr *expr;
    int nvars;
    char names[SERVE_MAX_VARS][64];
    kb_array vars[SERVE_MAX_VARS];
    bool ew; /* an elementwise call: ew_op on the operands */
    kb_ew_op ew_op;
    int noperands;
    kb_array operands[SERVE_MAX_OPERANDS];
    kb_array out;
    int threads;
} serve_case;

typedef struct serve_state {
    kb_array input;
    bool has_input;
    char input_path[4096];
    struct stat input_stat; /* the file as it was loaded: kbench writes each group's anew */
    int ncases;
    serve_case cases[SERVE_MAX_CASES];
    kb_flush flush;
} serve_state;

static void case_free(serve_case *c) {
    kb_array_free(&c->out);
    for (int i = 0; i < c->noperands; i++)
        kb_array_free(&c->operands[i]);
    c->noperands = 0;
    kb_expr_free(c->expr);
    c->expr = NULL;
}

static void drop_cases(serve_state *s) {
    for (int i = 0; i < s->ncases; i++)
        case_free(&s->cases[i]);
    s->ncases = 0;
}

/* A failure reply's message: this request's error, on one line. */
static json_t *failure(bool unsupported, const char *format, ...)
    __attribute__((format(printf, 2, 3)));
static json_t *failure(bool unsupported, const char *format, ...) {
    char message[512];
    va_list ap;
    va_start(ap, format);
    vsnprintf(message, sizeof message, format, ap);
    va_end(ap);
    for (char *c = message; *c; c++)
        if (*c == '\n' || *c == '\r')
            *c = ' ';
    json_t *reply = json_pack("{s:b, s:s}", "ok", 0, "error", message);
    if (reply && unsupported)
        json_object_set_new(reply, "unsupported", json_true());
    return reply;
}

static json_t *about(void) {
    const kb_build_info *b = kb_build_info_get();
    return json_pack("{s:b, s:s, s:s, s:s}", "ok", 1, "library", "kbench", "version", b->version,
                     "git_commit", b->git_commit);
}

static json_t *hello(void) {
    json_t *reply = about();
    json_object_del(reply, "library");
    json_object_set_new(reply, "libraries", json_object());
    return reply;
}

static json_t *require(const json_t *request) {
    const char *library = json_string_value(json_object_get(request, "library"));
    if (!library || strcmp(library, "kbench") != 0)
        return failure(true, "this runner is kbench: it has no library '%s'",
                       library ? library : "(none)");
    return about();
}

/* An expr case: its source parsed, its variables bound to the input's rows. */
static kb_status parse_expr(const json_t *spec, const kb_array *input, serve_case *c) {
    const char *source = json_string_value(json_object_get(spec, "source"));
    const json_t *vars = json_object_get(spec, "vars");
    size_t nvars = json_array_size(vars);
    if (!source || nvars == 0)
        return kb_fail(KB_EINVAL, "an expr case needs \"source\" and \"vars\", a list of names");
    if (nvars > SERVE_MAX_VARS || input->ndim < 2 || input->shape[0] != (int64_t)nvars)
        return kb_fail(KB_EINVAL,
                       "an expr case over %zu variables (at most %d) needs an input of that many "
                       "rows",
                       nvars, SERVE_MAX_VARS);
    for (size_t v = 0; v < nvars; v++) {
        const char *name = json_string_value(json_array_get(vars, v));
        if (!name || !name[0] || strlen(name) >= sizeof c->names[v])
            return kb_fail(KB_EINVAL, "an expr case's variables must be names");
        snprintf(c->names[v], sizeof c->names[v], "%s", name);
        kb_status st = kb_array_view(
            &c->vars[v], input->dtype, input->ndim - 1, input->shape + 1, input->strides + 1,
            (char *)input->data + (int64_t)v * input->strides[0], KB_ARRAY_READONLY);
        if (st != KB_OK)
            return st;
    }
    c->nvars = (int)nvars;
    return kb_expr_parse(source, &c->expr);
}

/* The case's variables bound to their views, in b (SERVE_MAX_VARS long). */
static kb_expr_inputs bind(const serve_case *c, kb_expr_binding *b) {
    for (int v = 0; v < c->nvars; v++)
        b[v] = (kb_expr_binding){c->names[v], &c->vars[v]};
    return (kb_expr_inputs){.bindings = b, .nbindings = c->nvars};
}

/* The elementwise call of an expr case's "ew": {"op": NAME, "operands": [SOURCE, ...]}, each
 * operand an expression of the case's variables evaluated here, once. */
static kb_status parse_ew(const json_t *ew, serve_case *c) {
    const char *op = json_string_value(json_object_get(ew, "op"));
    const json_t *operands = json_object_get(ew, "operands");
    size_t n = json_array_size(operands);
    if (!op || !kb_suite_ew_op(op, &c->ew_op))
        return kb_fail(KB_EINVAL, "an expr case's \"ew\" needs \"op\", an op of the ew suite");
    if (n == 0 || n > SERVE_MAX_OPERANDS)
        return kb_fail(KB_EINVAL, "an expr case's \"ew\" needs 1 to %d \"operands\"",
                       SERVE_MAX_OPERANDS);
    kb_expr_binding b[SERVE_MAX_VARS];
    kb_expr_inputs inputs = bind(c, b);
    for (size_t i = 0; i < n; i++) {
        const char *source = json_string_value(json_array_get(operands, i));
        kb_expr *e = NULL;
        kb_status st = source ? kb_expr_parse(source, &e)
                              : kb_fail(KB_EINVAL, "an \"ew\" operand must be an expression");
        if (st == KB_OK)
            st = kb_expr_eval_inputs(e, &inputs, &c->operands[c->noperands]);
        kb_expr_free(e);
        if (st != KB_OK)
            return st;
        c->noperands++;
    }
    c->ew = true;
    return KB_OK;
}

/* One call of the case, into its output. */
static kb_status compute(const serve_state *s, serve_case *c) {
    if (c->ew) {
        const kb_array *in[SERVE_MAX_OPERANDS];
        for (int i = 0; i < c->noperands; i++)
            in[i] = &c->operands[i];
        unsigned found = 0;
        return kb_ew_apply_into(c->ew_op, c->noperands, in, c->out.dtype, &c->out, &found);
    }
    if (c->expr) {
        kb_expr_binding b[SERVE_MAX_VARS];
        kb_expr_inputs inputs = bind(c, b);
        return kb_expr_eval_into(c->expr, &inputs, &c->out, 1);
    }
    return kb_reduce_into(&s->input, &c->args, &c->out);
}

static kb_status parse_case(const json_t *spec, kb_reduce_args *args) {
    const char *kind = json_string_value(json_object_get(spec, "kind"));
    const char *op = json_string_value(json_object_get(spec, "op"));
    const json_t *axis = json_object_get(spec, "axis");
    kb_reduce_op code;
    if (!kind || strcmp(kind, "reduce") != 0)
        return kb_fail(KB_EUNSUPPORTED, "no baseline for case kind %s", kind ? kind : "(none)");
    if (!op || kb_reduce_op_from_name(op, &code) != KB_OK)
        return kb_fail(KB_EINVAL, "setup needs \"op\", a reduction");
    if (json_is_null(axis))
        *args = kb_reduce_args_all(code);
    else if (json_is_integer(axis))
        *args = kb_reduce_args_axis(code, (int)json_integer_value(axis));
    else
        return kb_fail(KB_EINVAL, "setup needs \"axis\", an integer or null");
    return KB_OK;
}

/* The group's input, copied out of the file into an array allocated as the runner allocates
 * its own inputs (kb_array_new: aligned, huge pages for large ones): a large .npy is read as a
 * mapping of the page cache (4 KiB pages, the data 128 bytes into its first), and a build
 * timed on that against the runner timed on its own array was compared on other memory, not
 * other code. */
static bool load_input(const char *path, kb_array *input) {
    kb_array file;
    if (kb_npy_read(path, &file, NULL) != KB_OK)
        return false;
    kb_status st = kb_array_new(input, file.dtype, file.ndim, file.shape, KB_ORDER_C);
    if (st == KB_OK && (st = kb_array_copy(input, &file)) != KB_OK)
        kb_array_free(input);
    kb_array_free(&file);
    return st == KB_OK;
}

/* The same file, unchanged since it was loaded: kbench writes each group's input to the same
 * path, so the path alone does not tell. */
static bool same_file(const struct stat *a, const struct stat *b) {
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
           a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
           a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

static json_t *setup(const json_t *request, serve_state *s) {
    const char *library = json_string_value(json_object_get(request, "library"));
    const char *id = json_string_value(json_object_get(request, "id"));
    const char *input = json_string_value(json_object_get(request, "input"));
    const char *output = json_string_value(json_object_get(request, "output"));
    const json_t *threads = json_object_get(request, "threads");
    if (!library || strcmp(library, "kbench") != 0)
        return failure(true, "this runner is kbench: it has no library '%s'",
                       library ? library : "(none)");
    if (!id)
        id = library;
    if (!input || !output)
        return failure(false, "setup needs \"input\" and \"output\" paths");
    if (threads && !json_is_null(threads) &&
        (!json_is_integer(threads) || json_integer_value(threads) < 1))
        return failure(false, "threads must be a positive integer or null");
    for (int i = 0; i < s->ncases; i++)
        if (strcmp(s->cases[i].id, id) == 0)
            drop_cases(s); /* a setup under an id already set up starts a new group */
    if (s->ncases == SERVE_MAX_CASES)
        return failure(false, "more than %d cases in one group", SERVE_MAX_CASES);
    struct stat now;
    bool same = s->has_input && strcmp(s->input_path, input) == 0 && stat(input, &now) == 0 &&
                same_file(&now, &s->input_stat);
    if (!same) {
        drop_cases(s); /* a new input is a new group; an expr case's views are of the old one */
        if (s->has_input)
            kb_array_free(&s->input);
        s->has_input = false;
        if (stat(input, &s->input_stat) != 0 || !load_input(input, &s->input))
            return failure(false, "%s: %s", input, kb_last_error());
        snprintf(s->input_path, sizeof s->input_path, "%s", input);
        s->has_input = true;
    }
    serve_case *c = &s->cases[s->ncases];
    memset(c, 0, sizeof *c);
    snprintf(c->id, sizeof c->id, "%s", id);
    c->threads = json_is_integer(threads) ? (int)json_integer_value(threads) : 0;
    const json_t *spec = json_object_get(request, "case");
    const char *kind = json_string_value(json_object_get(spec, "kind"));
    bool expr = kind && strcmp(kind, "expr") == 0;
    kb_status st = expr ? parse_expr(spec, &s->input, c) : parse_case(spec, &c->args);
    const json_t *ew = expr ? json_object_get(spec, "ew") : NULL;
    if (st == KB_OK && (st = kb_threads_set(c->threads)) == KB_OK && ew)
        st = parse_ew(ew, c);
    if (st == KB_OK) {
        kb_expr_binding b[SERVE_MAX_VARS];
        kb_expr_inputs inputs = bind(c, b);
        /* The output the expression's runs write into, allocated by this first call; an
         * elementwise call then writes it, so that the result checked is the call's. */
        st = expr ? kb_expr_eval_inputs(c->expr, &inputs, &c->out)
                  : kb_reduce(&s->input, &c->args, &c->out);
        if (st == KB_OK && c->ew)
            st = compute(s, c);
    }
    if (st == KB_OK)
        st = kb_npy_write(output, &c->out, KB_ORDER_C, 0);
    if (st != KB_OK) {
        json_t *reply = failure(st == KB_EUNSUPPORTED, "%s", kb_last_error());
        case_free(c);
        return reply;
    }
    s->ncases++;
    json_t *shape = json_array();
    for (int d = 0; d < c->out.ndim; d++)
        json_array_append_new(shape, json_integer(c->out.shape[d]));
    const kb_build_info *b = kb_build_info_get();
    return json_pack("{s:b, s:s, s:s, s:s, s:s, s:o, s:o}", "ok", 1, "library", "kbench", "id", id,
                     "version", b->version, "result_dtype", kb_dtype_name(c->out.dtype),
                     "result_shape", shape, "threads",
                     c->threads ? json_integer(c->threads) : json_null());
}

static serve_case *find_case(const json_t *request, serve_state *s) {
    const char *id = json_string_value(json_object_get(request, "id"));
    if (!id)
        id = json_string_value(json_object_get(request, "library"));
    if (!id && s->ncases == 1)
        return &s->cases[0];
    for (int i = 0; id && i < s->ncases; i++)
        if (strcmp(s->cases[i].id, id) == 0)
            return &s->cases[i];
    return NULL;
}

/* The block of samples, each of `calls` calls, after `warmup` untimed calls; every sample
 * after a read of a flush buffer of flush_bytes when that is above 0. */
static json_t *run(const json_t *request, serve_state *s) {
    serve_case *c = find_case(request, s);
    json_int_t calls = json_integer_value(json_object_get(request, "calls"));
    json_int_t samples = json_integer_value(json_object_get(request, "samples"));
    json_int_t warmup = json_integer_value(json_object_get(request, "warmup"));
    json_int_t flush = json_integer_value(json_object_get(request, "flush_bytes"));
    if (!c)
        return failure(false, "run names no case that is set up");
    if (calls < 1 || samples < 1 || samples > 1000000 || warmup < 0 || flush < 0)
        return failure(false, "run needs calls >= 1, 1 <= samples <= 1000000, warmup >= 0, "
                              "flush_bytes >= 0");
    if (flush > 0 && s->flush.bytes != flush) {
        kb_flush_free(&s->flush);
        if (kb_flush_init(&s->flush, flush) != KB_OK)
            return failure(false, "%s", kb_last_error());
    }
    int threads = c->threads ? c->threads : kb_usable_cores();
    if (kb_threads_set(c->threads) != KB_OK)
        return failure(false, "%s", kb_last_error());
    for (json_int_t w = 0; w < warmup; w++)
        if (compute(s, c) != KB_OK)
            return failure(false, "%s", kb_last_error());
    json_t *times = json_array();
    for (json_int_t k = 0; k < samples; k++) {
        if (flush > 0)
            kb_flush_run(&s->flush, threads);
        int64_t t0 = kb_bench_now_ns();
        kb_status st = KB_OK;
        for (json_int_t i = 0; i < calls && st == KB_OK; i++)
            st = compute(s, c);
        int64_t t1 = kb_bench_now_ns();
        if (st != KB_OK) {
            json_decref(times);
            return failure(false, "%s", kb_last_error());
        }
        json_array_append_new(times, json_integer(t1 - t0));
    }
    return json_pack("{s:b, s:o}", "ok", 1, "sample_ns", times);
}

static json_t *teardown(const json_t *request, serve_state *s) {
    const char *id = json_string_value(json_object_get(request, "id"));
    if (!id)
        id = json_string_value(json_object_get(request, "library"));
    if (!id || strcmp(id, "kbench") == 0) {
        drop_cases(s);
        return json_pack("{s:b}", "ok", 1);
    }
    for (int i = 0; i < s->ncases; i++)
        if (strcmp(s->cases[i].id, id) == 0) {
            case_free(&s->cases[i]);
            s->cases[i] = s->cases[--s->ncases];
            break;
        }
    return json_pack("{s:b}", "ok", 1);
}

/* One request's reply; *quit set by quit. */
static json_t *serve(const char *line, serve_state *s, bool *quit) {
    json_error_t e;
    json_t *request = json_loads(line, 0, &e);
    if (!json_is_object(request)) {
        json_decref(request);
        return failure(false, "a request must be a JSON object: %s", e.text);
    }
    const char *cmd = json_string_value(json_object_get(request, "cmd"));
    json_t *reply;
    if (!cmd)
        reply = failure(false, "a request needs \"cmd\"");
    else if (strcmp(cmd, "hello") == 0)
        reply = hello();
    else if (strcmp(cmd, "require") == 0)
        reply = require(request);
    else if (strcmp(cmd, "setup") == 0)
        reply = setup(request, s);
    else if (strcmp(cmd, "run") == 0)
        reply = run(request, s);
    else if (strcmp(cmd, "teardown") == 0)
        reply = teardown(request, s);
    else if (strcmp(cmd, "quit") == 0) {
        *quit = true;
        reply = json_pack("{s:b}", "ok", 1);
    } else
        reply = failure(false, "unknown command '%s'", cmd);
    json_decref(request);
    return reply;
}

kb_status kb_baseline_serve(FILE *in, FILE *out) {
    serve_state *s = calloc(1, sizeof *s);
    char *line = malloc(SERVE_MAX_LINE);
    if (!s || !line) {
        free(s);
        free(line);
        return kb_fail(KB_ENOMEM, "out of memory");
    }
    kb_status st = KB_OK;
    bool quit = false;
    while (!quit && fgets(line, (int)SERVE_MAX_LINE, in)) {
        json_t *reply = serve(line, s, &quit);
        char *text = reply ? kb_json_dumps(reply, JSON_COMPACT) : NULL;
        json_decref(reply);
        if (!text || fprintf(out, "%s\n", text) < 0 || fflush(out) != 0) {
            free(text);
            st = kb_fail(KB_EIO, "cannot write a reply");
            break;
        }
        free(text);
    }
    drop_cases(s);
    if (s->has_input)
        kb_array_free(&s->input);
    kb_flush_free(&s->flush);
    free(s);
    free(line);
    return st;
}
