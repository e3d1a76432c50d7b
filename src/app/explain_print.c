/* Plans of expressions printed for `kbench eval --explain`, as text or JSON. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "app/explain_print.h"
#include "core/internal.h"
#include "util/internal.h"

static const char *mode_name(kb_expr_mode mode) {
    return mode == KB_EXPR_EAGER ? "eager" : "fused";
}

static kb_status finish(FILE *out) {
    return ferror(out) ? kb_fail(KB_EIO, "cannot write the plan: %s", strerror(errno)) : KB_OK;
}

static void print_traffic(FILE *out, const char *what, const kb_expr_traffic *t, int n) {
    for (int i = 0; i < n; i++)
        fprintf(out, "    %-6s %-10s %s, %lld elements, %lld bytes\n", i ? "" : what, t[i].name,
                kb_dtype_name(t[i].dtype), (long long)t[i].elements, (long long)t[i].bytes);
}

kb_status kb_explain_print_text(const kb_expr_plan *plan, FILE *out) {
    fprintf(out, "%s plan: %d kernel%s\n", mode_name(plan->mode), plan->nkernels,
            plan->nkernels == 1 ? "" : "s");
    if (plan->note[0])
        fprintf(out, "(%s)\n", plan->note);
    for (int k = 0; k < plan->nkernels; k++) {
        const kb_expr_kernel *kernel = &plan->kernels[k];
        fprintf(out, "kernel %d: %s\n", k, kernel->ops);
        fprintf(out, "    loops  %s\n", kernel->loops);
        print_traffic(out, "reads", kernel->reads, kernel->nreads);
        print_traffic(out, "writes", kernel->writes, kernel->nwrites);
        fprintf(out, "    numel  %lld (%lld read, %lld written), %lld bytes\n",
                (long long)(kernel->elements_read + kernel->elements_written),
                (long long)kernel->elements_read, (long long)kernel->elements_written,
                (long long)(kernel->bytes_read + kernel->bytes_written));
    }
    fprintf(out, "total: numel %lld, %lld bytes\n", (long long)plan->numel, (long long)plan->bytes);
    return finish(out);
}

static json_t *traffic_json(const kb_expr_traffic *t, int n) {
    json_t *list = json_array();
    for (int i = 0; list && i < n; i++)
        json_array_append_new(
            list, json_pack("{s:o, s:s, s:I, s:I}", "name", kb_json_text(t[i].name), "dtype",
                            kb_dtype_name(t[i].dtype), "elements", (json_int_t)t[i].elements,
                            "bytes", (json_int_t)t[i].bytes));
    return list;
}

kb_status kb_explain_print_json(const kb_expr_plan *plan, FILE *out) {
    json_t *kernels = json_array();
    for (int k = 0; kernels && k < plan->nkernels; k++) {
        const kb_expr_kernel *kernel = &plan->kernels[k];
        json_array_append_new(
            kernels, json_pack("{s:o, s:o, s:o, s:o, s:I, s:I, s:I, s:I}", "ops",
                               kb_json_text(kernel->ops), "loops", kb_json_text(kernel->loops),
                               "reads", traffic_json(kernel->reads, kernel->nreads), "writes",
                               traffic_json(kernel->writes, kernel->nwrites), "elements_read",
                               (json_int_t)kernel->elements_read, "elements_written",
                               (json_int_t)kernel->elements_written, "bytes_read",
                               (json_int_t)kernel->bytes_read, "bytes_written",
                               (json_int_t)kernel->bytes_written));
    }
    json_t *root = kernels ? json_pack("{s:s, s:I, s:I, s:i, s:o, s:o}", "mode",
                                       mode_name(plan->mode), "numel", (json_int_t)plan->numel,
                                       "bytes", (json_int_t)plan->bytes, "kernels", plan->nkernels,
                                       "note", kb_json_text(plan->note), "plan", kernels)
                           : NULL;
    char *text = root ? kb_json_dumps(root, KB_JSON_EXACT | JSON_INDENT(2)) : NULL;
    json_decref(root);
    if (!text)
        return kb_fail(KB_ENOMEM, "out of memory while writing JSON");
    fprintf(out, "%s\n", text);
    free(text);
    return finish(out);
}
