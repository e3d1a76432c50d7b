/* kb_expr_explain: the plan an evaluation runs, fused or eager, with its traffic. */
#include <stdio.h>
#include <string.h>

#include "core/internal.h"
#include "expr/eager.h"
#include "expr/plan.h"
#include "expr/plan_trace.h"

kb_status kb_expr_explain(const kb_expr *expr, const kb_expr_inputs *inputs, kb_expr_plan *out) {
    if (!out)
        return kb_fail(KB_EINVAL, "kb_expr_explain: no plan to fill");
    memset(out, 0, sizeof *out);
    KB_TRY(kb_expr_check_inputs(expr, inputs, kb_expr_result_count(expr)));
    out->mode = inputs->mode;
    kb_status st;
    if (inputs->mode == KB_EXPR_FUSED) {
        kb_pgraph g;
        st = kb_pgraph_build(expr, inputs, &g);
        if (st == KB_OK) {
            st = kb_pgraph_fuse(&g);
            if (st == KB_OK)
                st = kb_pgraph_explain(&g, out);
            kb_pgraph_free(&g);
            if (st != KB_OK)
                kb_expr_plan_free(out);
            return st;
        }
        if (st == KB_ENOMEM)
            return st;
        /* evaluated eagerly: say why, then trace the eager plan (or fail with its error) */
        snprintf(out->note, sizeof out->note, "evaluated eagerly: %s", kb_last_error());
    }
    char note[sizeof out->note];
    memcpy(note, out->note, sizeof note);
    st = kb_expr_trace_eager(expr, inputs, out);
    if (st != KB_OK) {
        kb_expr_plan_free(out);
        return st;
    }
    memcpy(out->note, note, sizeof note);
    out->mode = inputs->mode;
    return KB_OK;
}
