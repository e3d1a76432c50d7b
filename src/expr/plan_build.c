/* Plans of expressions (kb_expr_plan): kernels and their traffic, built and freed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "expr/plan_build.h"

kb_status kb_plan_add_kernel(kb_expr_plan *plan, kb_expr_kernel **out) {
    kb_expr_kernel *kernels =
        realloc(plan->kernels, (size_t)(plan->nkernels + 1) * sizeof *kernels);
    if (!kernels)
        return kb_fail(KB_ENOMEM, "out of memory for a plan");
    plan->kernels = kernels;
    *out = &kernels[plan->nkernels++];
    memset(*out, 0, sizeof **out);
    return KB_OK;
}

void kb_plan_kernel_op(kb_expr_kernel *k, const char *op) {
    size_t used = strlen(k->ops);
    snprintf(k->ops + used, sizeof k->ops - used, "%s%s", used ? ", " : "", op);
}

static kb_status count(kb_expr_traffic **list, int *n, const char *name, kb_dtype dtype,
                       int64_t elements) {
    for (int i = 0; i < *n; i++)
        if (strcmp((*list)[i].name, name) == 0)
            return KB_OK;
    kb_expr_traffic *grown = realloc(*list, (size_t)(*n + 1) * sizeof *grown);
    if (!grown)
        return kb_fail(KB_ENOMEM, "out of memory for a plan");
    *list = grown;
    kb_expr_traffic *t = &grown[(*n)++];
    memset(t, 0, sizeof *t);
    snprintf(t->name, sizeof t->name, "%s", name);
    t->dtype = dtype;
    t->elements = elements;
    t->bytes = elements * (int64_t)kb_dtype_size(dtype);
    return KB_OK;
}

kb_status kb_plan_kernel_read(kb_expr_kernel *k, const char *name, kb_dtype dtype,
                              int64_t elements) {
    return count(&k->reads, &k->nreads, name, dtype, elements);
}

kb_status kb_plan_kernel_write(kb_expr_kernel *k, const char *name, kb_dtype dtype,
                               int64_t elements) {
    return count(&k->writes, &k->nwrites, name, dtype, elements);
}

void kb_plan_total(kb_expr_plan *plan) {
    plan->numel = plan->bytes = 0;
    for (int i = 0; i < plan->nkernels; i++) {
        kb_expr_kernel *k = &plan->kernels[i];
        k->elements_read = k->elements_written = k->bytes_read = k->bytes_written = 0;
        for (int r = 0; r < k->nreads; r++) {
            k->elements_read += k->reads[r].elements;
            k->bytes_read += k->reads[r].bytes;
        }
        for (int w = 0; w < k->nwrites; w++) {
            k->elements_written += k->writes[w].elements;
            k->bytes_written += k->writes[w].bytes;
        }
        plan->numel += k->elements_read + k->elements_written;
        plan->bytes += k->bytes_read + k->bytes_written;
    }
}

void kb_plan_shape_text(char *buf, size_t size, int ndim, const int64_t *shape) {
    size_t used = (size_t)snprintf(buf, size, "(");
    for (int d = 0; d < ndim && used < size; d++)
        used +=
            (size_t)snprintf(buf + used, size - used, "%s%lld", d ? "," : "", (long long)shape[d]);
    if (used < size)
        snprintf(buf + used, size - used, "%s)", ndim == 1 ? "," : "");
}

void kb_expr_plan_free(kb_expr_plan *plan) {
    if (!plan)
        return;
    for (int i = 0; i < plan->nkernels; i++) {
        free(plan->kernels[i].reads);
        free(plan->kernels[i].writes);
    }
    free(plan->kernels);
    memset(plan, 0, sizeof *plan);
}
