/* The op a result belongs to, for grouping and colouring by op. */
#include <string.h>

#include "results/report.h"
#include "util/internal.h"

void kb_report_op(const kb_bench_result *r, char *buf, size_t size) {
    for (int i = 0; i < r->nparams; i++)
        if (strcmp(r->params[i].name, "op") == 0) {
            kb_copy_string(buf, size, r->params[i].value);
            return;
        }
    size_t n = strcspn(r->name, "/");
    kb_copy_string(buf, n + 1 < size ? n + 1 : size, r->name);
}
