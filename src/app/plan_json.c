/* The cases of a plan as JSON, for `list --format json`. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "app/plan_json.h"
#include "core/internal.h"
#include "util/internal.h"

/* Case i with the keys and values a results file gives it. NULL when out of memory. */
static json_t *case_json(const kb_bench_plan *plan, int i) {
    json_t *params = json_object(), *impl = json_object();
    const char *name, *value;
    bool implementation;
    for (int j = 0; kb_bench_plan_case_param(plan, i, j, &name, &value, &implementation); j++) {
        json_object_set_new(params, name, kb_json_text(value));
        if (implementation)
            json_object_set_new(impl, name, kb_json_text(value));
    }
    return json_pack("{s:o, s:o, s:o, s:o, s:f}", "name",
                     kb_json_text(kb_bench_plan_case_name(plan, i)), "group",
                     kb_json_text(kb_bench_plan_case_group(plan, i)), "params", params,
                     "implementation", impl, "cost", kb_bench_plan_case_cost(plan, i));
}

kb_status kb_plan_print_json(const kb_bench_plan *plan, FILE *out) {
    int n = kb_bench_plan_size(plan);
    fputc('[', out);
    for (int i = 0; i < n; i++) {
        json_t *c = case_json(plan, i);
        char *line = c ? kb_json_dumps(c, KB_JSON_EXACT | JSON_COMPACT) : NULL;
        json_decref(c);
        if (!line)
            return kb_fail(KB_ENOMEM, "out of memory while writing JSON");
        fprintf(out, "%s\n  %s", i ? "," : "", line);
        free(line);
    }
    fputs(n ? "\n]\n" : "]\n", out);
    return ferror(out) ? kb_fail(KB_EIO, "cannot write JSON: %s", strerror(errno)) : KB_OK;
}
