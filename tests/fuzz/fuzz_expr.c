/* libFuzzer target for the expression parser and evaluators: any bytes must parse into a graph
 * or fail with a one-line message ending in " at column N"; a parsed graph must dump, evaluate
 * on a few small arrays (one result by kb_expr_eval, every result of a tuple by
 * kb_expr_eval_results, fused and eager) and explain its plans, or fail the same way, and free;
 * never a crash, a leak, undefined behaviour or a stack overflow (the whole library is built
 * with ASan and UBSan for fuzzing). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "expr/graph.h"
#include "kbench/expr.h"
#include "kbench/threads.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static double x_data[6] = {0, 1, 2, 3, 4, 5};
static int32_t n_data[24];
static unsigned char b_data[1] = {1};
static kb_array x, n, b, empty;
static kb_expr_binding bindings[4];

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    int64_t xs[2] = {2, 3}, ns[3] = {2, 3, 4}, es[2] = {0, 3};
    for (int i = 0; i < 24; i++)
        n_data[i] = i - 12;
    if (kb_array_view(&x, KB_F64, 2, xs, NULL, x_data, KB_ARRAY_READONLY) != KB_OK ||
        kb_array_view(&n, KB_INT32, 3, ns, NULL, n_data, KB_ARRAY_READONLY) != KB_OK ||
        kb_array_view(&b, KB_BOOL, 0, NULL, NULL, b_data, KB_ARRAY_READONLY) != KB_OK ||
        kb_array_view(&empty, KB_F32, 2, es, NULL, x_data, KB_ARRAY_READONLY) != KB_OK)
        __builtin_trap();
    bindings[0] = (kb_expr_binding){"x", &x};
    bindings[1] = (kb_expr_binding){"n", &n};
    bindings[2] = (kb_expr_binding){"b", &b};
    bindings[3] = (kb_expr_binding){"e", &empty};
    /* Reductions this small never split, but one thread keeps runs reproducible anyway. */
    kb_threads_set(1);
    return 0;
}

/* One line, and (except when memory ran out) the position at the end. */
static void check_message(kb_status st) {
    const char *m = kb_last_error();
    if (m[0] == '\0' || strchr(m, '\n'))
        __builtin_trap();
    if (st == KB_ENOMEM)
        return;
    /* The last " at column ": a message may quote a string of the source that holds one. */
    const char *tail = NULL;
    for (const char *p = strstr(m, " at column "); p; p = strstr(p + 1, " at column "))
        tail = p;
    if (!tail)
        __builtin_trap();
    const char *digits = tail + strlen(" at column ");
    if (*digits < '1' || *digits > '9' || strspn(digits, "0123456789") != strlen(digits))
        __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *src = malloc(size + 1);
    if (!src)
        return 0;
    memcpy(src, data, size);
    src[size] = '\0';

    kb_expr *e = (kb_expr *)(void *)src; /* a non-NULL poison: failure must reset it */
    kb_status st = kb_expr_parse(src, &e);
    if (st != KB_OK) {
        if (e)
            __builtin_trap();
        check_message(st);
        free(src);
        return 0;
    }
    char dump[256];
    if (kb_expr_dump(e, dump, sizeof dump) == 0)
        __builtin_trap();

    kb_array out;
    st = kb_expr_eval(e, bindings, 4, &out);
    if (st == KB_OK)
        kb_array_free(&out);
    else
        check_message(st);
    int count = kb_expr_result_count(e);
    kb_array *outs = malloc((size_t)(count > 0 ? count : 1) * sizeof *outs);
    for (int mode = 0; outs && mode < 2; mode++) {
        kb_expr_inputs in = {.bindings = bindings, .nbindings = 4, .mode = (kb_expr_mode)mode};
        st = kb_expr_eval_results(e, &in, outs, count);
        for (int i = 0; st == KB_OK && i < count; i++)
            kb_array_free(&outs[i]);
        if (st != KB_OK)
            check_message(st);
        kb_expr_plan plan;
        if ((st = kb_expr_explain(e, &in, &plan)) == KB_OK)
            kb_expr_plan_free(&plan);
        else
            check_message(st);
    }
    free(outs);
    kb_expr_free(e);
    free(src);
    return 0;
}
