/* Storing a reduction's final value into the output element, in the output's dtype. */
#include <math.h>
#include <string.h>

#include "core/internal.h"
#include "kbench/half.h"
#include "kernels/reduce_finish.h"

double kb_reduce_dof(const kb_reduce_plan *plan) {
    double dof = (double)plan->count - plan->ddof;
    return dof > 0 ? dof : 0.0;
}

kb_status kb_reduce_store(const kb_reduce_plan *plan, const kb_partial *partial, char *out) {
    double value = partial->a;
    switch (plan->op) {
        case KB_REDUCE_ARGMIN:
        case KB_REDUCE_ARGMAX:
            memcpy(out, &partial->index, sizeof partial->index);
            return KB_OK;
        case KB_REDUCE_MEAN:
            value = partial->a / (double)plan->count;
            break;
        case KB_REDUCE_VAR:
        case KB_REDUCE_STD: {
            value = partial->c / kb_reduce_dof(plan);
            if (plan->op == KB_REDUCE_STD)
                value = sqrt(value);
            break;
        }
        default:
            break;
    }
    switch (plan->out_dtype) {
        case KB_F64:
            memcpy(out, &value, sizeof value);
            return KB_OK;
        case KB_F32: {
            float f = (float)value;
            memcpy(out, &f, sizeof f);
            return KB_OK;
        }
        case KB_F16:
        case KB_BF16: {
            uint16_t h = plan->out_dtype == KB_F16 ? kb_f64_to_f16(value) : kb_f64_to_bf16(value);
            memcpy(out, &h, sizeof h);
            return KB_OK;
        }
        default:
            return kb_element_store(plan->out_dtype, out, kb_element_from_double(value));
    }
}
