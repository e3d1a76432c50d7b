/* Elementwise operators and functions in expressions: NumPy's result types, then the kernels. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/internal.h"
#include "expr/fail_at.h"
#include "expr/graph.h"
#include "expr/promote.h"
#include "expr/elementwise.h"
#include "expr/int_power.h"
#include "kernels/ew.h"

/* How an op's loop type and result type follow from its operands' (NumPy's ufunc loops). */
typedef enum rule {
    ARITH,     /* the promoted type; bool stays bool (+ * maximum minimum are or/and) */
    ARITH_INT, /* the promoted type, bool computed as int8 (// % ** square reciprocal) */
    SUBTRACT,  /* the promoted type; bool refused */
    DIVIDE,    /* the promoted type, integers and bool as float64 */
    FLOAT,     /* the smallest float type holding the operand (sqrt, exp, rint, ...) */
    SCIPY,     /* float32 stays float32, everything else float64 (SciPy's expit, erf) */
    SAME,      /* the operand's type (abs, floor, ceil, unary +) */
    SIGNED,    /* the operand's type, bool refused (unary -, sign) */
    BITWISE,   /* bool and integers only (& | ~) */
    COMPARE,   /* computed in the promoted type, bool result */
    PREDICATE, /* bool result of any type (isnan, isfinite) */
    WHERE,     /* the promoted type of the last two; the first read as bool */
    CLIP,      /* the promoted type of all three */
    ASTYPE,    /* the named type */
} rule;

typedef struct function {
    const char *name;
    kb_ew_op op;
    rule rule;
    int nargs;
} function;

static const function functions[] = {
    {"abs", KB_EW_ABS, SAME, 1},
    {"absolute", KB_EW_ABS, SAME, 1},
    {"sqrt", KB_EW_SQRT, FLOAT, 1},
    {"square", KB_EW_SQUARE, ARITH_INT, 1},
    {"reciprocal", KB_EW_RECIPROCAL, ARITH_INT, 1},
    {"exp", KB_EW_EXP, FLOAT, 1},
    {"expm1", KB_EW_EXPM1, FLOAT, 1},
    {"exp2", KB_EW_EXP2, FLOAT, 1},
    {"log", KB_EW_LOG, FLOAT, 1},
    {"log1p", KB_EW_LOG1P, FLOAT, 1},
    {"log2", KB_EW_LOG2, FLOAT, 1},
    {"log10", KB_EW_LOG10, FLOAT, 1},
    {"sin", KB_EW_SIN, FLOAT, 1},
    {"cos", KB_EW_COS, FLOAT, 1},
    {"tan", KB_EW_TAN, FLOAT, 1},
    {"arcsin", KB_EW_ARCSIN, FLOAT, 1},
    {"arccos", KB_EW_ARCCOS, FLOAT, 1},
    {"arctan", KB_EW_ARCTAN, FLOAT, 1},
    {"tanh", KB_EW_TANH, FLOAT, 1},
    {"sinh", KB_EW_SINH, FLOAT, 1},
    {"cosh", KB_EW_COSH, FLOAT, 1},
    {"floor", KB_EW_FLOOR, SAME, 1},
    {"ceil", KB_EW_CEIL, SAME, 1},
    {"rint", KB_EW_RINT, FLOAT, 1},
    {"sign", KB_EW_SIGN, SIGNED, 1},
    {"maximum", KB_EW_MAXIMUM, ARITH, 2},
    {"minimum", KB_EW_MINIMUM, ARITH, 2},
    {"clip", KB_EW_MAXIMUM, CLIP, 3},
    {"where", KB_EW_WHERE, WHERE, 3},
    {"isnan", KB_EW_ISNAN, PREDICATE, 1},
    {"isfinite", KB_EW_ISFINITE, PREDICATE, 1},
    {"astype", KB_EW_COPY, ASTYPE, 2},
    {"sigmoid", KB_EW_SIGMOID, SCIPY, 1},
    {"expit", KB_EW_SIGMOID, SCIPY, 1},
    {"erf", KB_EW_ERF, SCIPY, 1},
};

static const function *find(const char *name) {
    if (strncmp(name, "np.", 3) == 0)
        name += 3;
    for (size_t i = 0; i < sizeof functions / sizeof *functions; i++)
        if (strcmp(functions[i].name, name) == 0)
            return &functions[i];
    return NULL;
}

bool kb_expr_is_elementwise(const char *name) {
    return find(name) != NULL;
}

int kb_expr_elementwise_arrays(const char *name) {
    const function *f = find(name);
    return !f ? 0 : f->rule == ASTYPE ? 1 : f->nargs;
}

/* The operators as NumPy's ufuncs, with their names for messages. */
typedef struct operator_info {
    kb_ew_op op;
    rule rule;
    const char *ufunc;
} operator_info;

static operator_info operator_of(const kb_expr_node *n) {
    if (n->kind == KB_EXPR_UNARY) {
        switch (n->op) {
            case KB_OP_NEG:
                return (operator_info){KB_EW_NEG, SIGNED, "negative"};
            case KB_OP_INVERT:
                return (operator_info){KB_EW_INVERT, BITWISE, "invert"};
            default:
                return (operator_info){KB_EW_COPY, SAME, "positive"};
        }
    }
    switch (n->op) {
        case KB_OP_ADD:
            return (operator_info){KB_EW_ADD, ARITH, "add"};
        case KB_OP_SUB:
            return (operator_info){KB_EW_SUB, SUBTRACT, "subtract"};
        case KB_OP_MUL:
            return (operator_info){KB_EW_MUL, ARITH, "multiply"};
        case KB_OP_DIV:
            return (operator_info){KB_EW_DIV, DIVIDE, "divide"};
        case KB_OP_FLOORDIV:
            return (operator_info){KB_EW_FLOORDIV, ARITH_INT, "floor_divide"};
        case KB_OP_MOD:
            return (operator_info){KB_EW_MOD, ARITH_INT, "remainder"};
        case KB_OP_POW:
            return (operator_info){KB_EW_POW, ARITH_INT, "power"};
        case KB_OP_LT:
            return (operator_info){KB_EW_LT, COMPARE, "less"};
        case KB_OP_LE:
            return (operator_info){KB_EW_LE, COMPARE, "less_equal"};
        case KB_OP_GT:
            return (operator_info){KB_EW_GT, COMPARE, "greater"};
        case KB_OP_GE:
            return (operator_info){KB_EW_GE, COMPARE, "greater_equal"};
        case KB_OP_EQ:
            return (operator_info){KB_EW_EQ, COMPARE, "equal"};
        case KB_OP_NE:
            return (operator_info){KB_EW_NE, COMPARE, "not_equal"};
        case KB_OP_AND:
            return (operator_info){KB_EW_AND, BITWISE, "bitwise_and"};
        default:
            return (operator_info){KB_EW_OR, BITWISE, "bitwise_or"};
    }
}

static kb_weak_kind weak_kind(kb_dtype dtype) {
    return dtype == KB_BOOL ? KB_WEAK_BOOL : dtype == KB_INT64 ? KB_WEAK_INT : KB_WEAK_FLOAT;
}

/* The promoted type of n operands under NEP 50: the strong ones promote together, then each
 * weak one joins by its kind; all weak, the highest kind's default type. */
static kb_dtype promote_values(const kb_expr_value *v, int n, bool *all_weak) {
    kb_dtype strong = KB_DTYPE_COUNT;
    int highest = -1;
    for (int i = 0; i < n; i++) {
        if (v[i].weak) {
            int k = (int)weak_kind(v[i].array.dtype);
            highest = k > highest ? k : highest;
        } else {
            strong =
                strong == KB_DTYPE_COUNT ? v[i].array.dtype : kb_promote(strong, v[i].array.dtype);
        }
    }
    *all_weak = strong == KB_DTYPE_COUNT;
    if (*all_weak)
        return highest == KB_WEAK_BOOL ? KB_BOOL : highest == KB_WEAK_INT ? KB_INT64 : KB_F64;
    for (int k = 0; k <= highest; k++)
        for (int i = 0; i < n; i++)
            if (v[i].weak && (int)weak_kind(v[i].array.dtype) == k)
                strong = kb_promote_weak(strong, (kb_weak_kind)k);
    return strong;
}

static int64_t weak_int(const kb_expr_value *v) {
    int64_t i;
    memcpy(&i, v->array.data, sizeof i);
    return i;
}

/* Whether a Python int fits an integer type. */
static bool int_fits(int64_t value, kb_dtype dtype) {
    switch (dtype) {
        case KB_INT8:
            return value >= INT8_MIN && value <= INT8_MAX;
        case KB_INT16:
            return value >= INT16_MIN && value <= INT16_MAX;
        case KB_INT32:
            return value >= INT32_MIN && value <= INT32_MAX;
        case KB_UINT8:
            return value >= 0 && value <= UINT8_MAX;
        case KB_UINT16:
            return value >= 0 && value <= UINT16_MAX;
        case KB_UINT32:
            return value >= 0 && value <= UINT32_MAX;
        case KB_UINT64:
            return value >= 0;
        default:
            return true;
    }
}

typedef struct resolved {
    kb_dtype loop, out;
    bool weak; /* the result is a Python scalar */
} resolved;

static kb_status unsupported(int column, const char *ufunc, const kb_expr_value *v, int n) {
    char types[128] = "";
    size_t used = 0;
    for (int i = 0; i < n && used < sizeof types; i++)
        used += (size_t)snprintf(types + used, sizeof types - used, "%s%s", i ? ", " : "",
                                 kb_dtype_name(v[i].array.dtype));
    return kb_expr_fail_at(KB_EINVAL, column, "%s is not supported for %s", ufunc, types);
}

/* NumPy's loop and result types of an op on its operands, or its refusal. */
static kb_status resolve(rule r, const char *ufunc, int column, kb_expr_value *v, int n,
                         resolved *out) {
    for (int i = 0; i < n; i++)
        if (!kb_promote_supported(v[i].array.dtype))
            return kb_expr_fail_at(KB_EUNSUPPORTED, column,
                                   "%s is not supported in elementwise operations (%s)",
                                   kb_dtype_name(v[i].array.dtype), ufunc);
    bool all_weak = false;
    int first = r == WHERE ? 1 : 0;
    kb_dtype t = promote_values(v + first, n - first, &all_weak);
    /* Functions of Python scalars give NumPy scalars, which are strong; operators on Python
     * scalars are Python's arithmetic, whose results stay weak. */
    out->weak = false;
    switch (r) {
        case ARITH:
        case ARITH_INT:
        case SUBTRACT:
        case DIVIDE:
        case COMPARE:
        case BITWISE:
        case SIGNED:
        case SAME:
            out->weak = all_weak;
            break;
        default:
            break;
    }
    if (n == 1 && v[0].weak && !out->weak)
        t = v[0].array.dtype;
    out->loop = out->out = t;
    switch (r) {
        case ARITH:
        case CLIP:
        case WHERE:
            break;
        case ARITH_INT:
            if (t == KB_BOOL)
                out->loop = out->out = KB_INT8;
            break;
        case SUBTRACT:
        case SIGNED:
            if (t == KB_BOOL)
                return kb_expr_fail_at(KB_EINVAL, column,
                                       "numpy boolean %s is not supported, use ~ or logical "
                                       "operations instead",
                                       ufunc);
            break;
        case DIVIDE:
            if (!kb_dtype_is_float(t))
                out->loop = out->out = KB_F64;
            break;
        case FLOAT:
            out->loop = out->out = kb_promote_float(t);
            break;
        case SCIPY:
            out->loop = out->out = t == KB_F32 ? KB_F32 : KB_F64;
            break;
        case SAME:
            break;
        case BITWISE:
            if (kb_dtype_is_float(t))
                return unsupported(column, ufunc, v, n);
            break;
        case COMPARE:
            out->out = KB_BOOL;
            break;
        case PREDICATE:
            out->out = KB_BOOL;
            break;
        case ASTYPE:
            break;
    }
    /* NEP 50: a Python int must fit the integer type it takes; comparisons instead compare
     * its value, in int64 (or float64 beside uint64, where its sign decides). */
    for (int i = first; i < n; i++) {
        if (!v[i].weak || v[i].array.dtype != KB_INT64 || !kb_dtype_is_integer(out->loop))
            continue;
        int64_t value = weak_int(&v[i]);
        if (int_fits(value, out->loop))
            continue;
        if (r == COMPARE) {
            out->loop = out->loop == KB_UINT64 ? KB_F64 : KB_INT64;
            continue;
        }
        if (r == CLIP) /* NumPy's clip takes such a bound as the type's least or greatest */
            continue;
        if (r == WHERE) /* and where casts it, wrapping as C's casts do */
            continue;
        return kb_expr_fail_at(KB_EINVAL, column, "Python integer %" PRId64 " out of bounds for %s",
                               value, kb_dtype_name(out->loop));
    }
    return KB_OK;
}

static void free_all(kb_expr_value *v, int n) {
    for (int i = 0; i < n; i++)
        kb_expr_value_free(&v[i]);
}

/* Applies op in the loop type; NumPy's warnings and refusals of what the loops found. */
static kb_status apply(kb_ew_op op, const char *ufunc, int column, kb_expr_value *v, int n,
                       const resolved *r, kb_expr_value *out, const kb_expr_hooks *hooks) {
    const kb_array *in[3];
    for (int i = 0; i < n; i++)
        in[i] = &v[i].array;
    unsigned found = 0;
    memset(out, 0, sizeof *out);
    kb_status st = kb_ew_apply(op, n, in, r->loop, r->out, &out->array, &found);
    if (st != KB_OK)
        return kb_expr_fail_here(st, column);
    out->weak = r->weak;
    if (found & KB_EW_NEGATIVE_POWER) {
        kb_array_free(&out->array);
        return kb_expr_fail_at(KB_EINVAL, column,
                               "Integers to negative integer powers are not allowed");
    }
    if (hooks->trace) {
        const kb_array *arrays[3];
        bool weak[3];
        for (int i = 0; i < n; i++) {
            arrays[i] = &v[i].array;
            weak[i] = v[i].weak;
        }
        kb_expr_trace_kernel(hooks->trace, ufunc, arrays, weak, n, &out->array);
    }
    if (found & KB_EW_DIVIDE_BY_ZERO) {
        char message[96];
        snprintf(message, sizeof message, "divide by zero encountered in %s", ufunc);
        kb_expr_hooks_warn(hooks, message);
    }
    return KB_OK;
}

/* The least or greatest value of an integer type, for a Python int beyond it. */
static int64_t clamp_int(int64_t value, kb_dtype dtype) {
    if (value < 0) {
        switch (dtype) {
            case KB_INT8:
                return INT8_MIN;
            case KB_INT16:
                return INT16_MIN;
            case KB_INT32:
                return INT32_MIN;
            case KB_INT64:
                return value;
            default:
                return 0;
        }
    }
    switch (dtype) {
        case KB_INT8:
            return INT8_MAX;
        case KB_INT16:
            return INT16_MAX;
        case KB_INT32:
            return INT32_MAX;
        case KB_UINT8:
            return UINT8_MAX;
        case KB_UINT16:
            return UINT16_MAX;
        case KB_UINT32:
            return UINT32_MAX;
        default:
            return value;
    }
}

/* clip's Python int bounds beyond the integer type: as NumPy, one that clips nothing (a lower
 * bound below the type, an upper one above it) is the type's extreme, and the others are
 * out of bounds. */
static kb_status clamp_bounds(kb_expr_value *v, kb_dtype loop, int column) {
    for (int i = 1; i < 3; i++) {
        if (!v[i].weak || v[i].array.dtype != KB_INT64 || !kb_dtype_is_integer(loop) ||
            int_fits(weak_int(&v[i]), loop))
            continue;
        int64_t value = weak_int(&v[i]);
        if ((i == 1) == (value > 0))
            return kb_expr_fail_at(KB_EINVAL, column,
                                   "Python integer %" PRId64 " out of bounds for %s", value,
                                   kb_dtype_name(loop));
        int64_t bound = clamp_int(value, loop);
        kb_expr_value_free(&v[i]);
        memset(&v[i], 0, sizeof v[i]);
        KB_TRY(kb_array_new(&v[i].array, KB_INT64, 0, NULL, KB_ORDER_C));
        memcpy(v[i].array.data, &bound, sizeof bound);
        v[i].weak = true;
    }
    return KB_OK;
}

/* A 0-d value of one dtype, owned. */
static kb_status scalar_value(kb_dtype dtype, const void *bytes, kb_expr_value *out) {
    memset(out, 0, sizeof *out);
    KB_TRY(kb_array_new(&out->array, dtype, 0, NULL, KB_ORDER_C));
    memcpy(out->array.data, bytes, kb_dtype_size(dtype));
    return KB_OK;
}

/* A comparison of uint64 with a signed integer type, exact as NumPy 2's (their promoted type,
 * float64, would round both): where the signed operand is negative the answer follows from the
 * signs, elsewhere both compare as uint64. */
static kb_status compare_mixed(kb_ew_op op, const char *ufunc, int column, kb_expr_value *v,
                               kb_expr_value *out, const kb_expr_hooks *hooks) {
    int s = v[0].array.dtype == KB_UINT64 ? 1 : 0; /* the signed operand */
    /* The answer where v[s] < 0 <= v[1 - s], with the signed operand on the left when s == 0. */
    bool signed_left = s == 0;
    bool when_negative = op == KB_EW_NE || (signed_left ? (op == KB_EW_LT || op == KB_EW_LE)
                                                        : (op == KB_EW_GT || op == KB_EW_GE));
    int64_t zero = 0;
    kb_expr_value zero_v, negative, unsigned_cmp, constant;
    memset(&negative, 0, sizeof negative);
    memset(&unsigned_cmp, 0, sizeof unsigned_cmp);
    KB_TRY(scalar_value(KB_INT64, &zero, &zero_v));
    resolved r_neg = {KB_INT64, KB_BOOL, false}, r_u = {KB_UINT64, KB_BOOL, false};
    kb_expr_value pair[2] = {v[s], zero_v};
    kb_status st = apply(KB_EW_LT, ufunc, column, pair, 2, &r_neg, &negative, hooks);
    if (st == KB_OK)
        st = apply(op, ufunc, column, v, 2, &r_u, &unsigned_cmp, hooks);
    if (st == KB_OK)
        st = scalar_value(KB_BOOL, &when_negative, &constant);
    if (st == KB_OK) {
        kb_expr_value three[3] = {negative, constant, unsigned_cmp};
        resolved r_where = {KB_BOOL, KB_BOOL, false};
        st = apply(KB_EW_WHERE, ufunc, column, three, 3, &r_where, out, hooks);
        kb_expr_value_free(&constant);
    }
    kb_expr_value_free(&zero_v);
    kb_expr_value_free(&negative);
    kb_expr_value_free(&unsigned_cmp);
    return st;
}

/* Applies steps in turn (each on the operands v or the previous step's result, as the fused
 * planner chains them) into out; the intermediate results are freed. */
static kb_status apply_steps(const kb_expr_ew_step *steps, int nsteps, int column,
                             const kb_expr_value *v, const resolved *r, kb_expr_value *out,
                             const kb_expr_hooks *hooks) {
    kb_expr_value previous;
    memset(&previous, 0, sizeof previous);
    kb_status st = KB_OK;
    for (int s = 0; s < nsteps && st == KB_OK; s++) {
        kb_expr_value in[3], next;
        for (int i = 0; i < steps[s].nin; i++)
            in[i] = steps[s].operand[i] < 0 ? previous : v[steps[s].operand[i]];
        resolved step = {steps[s].loop, steps[s].out, r->weak};
        st = apply(steps[s].op, steps[s].ufunc, column, in, steps[s].nin, &step, &next, hooks);
        if (s > 0)
            kb_expr_value_free(&previous);
        previous = next;
    }
    if (st == KB_OK)
        *out = previous;
    return st;
}

static kb_status run(kb_ew_op op, rule r, const char *ufunc, int column, kb_expr_value *v, int n,
                     kb_expr_value *out, const kb_expr_hooks *hooks) {
    if (r == COMPARE && !v[0].weak && !v[1].weak &&
        ((v[0].array.dtype == KB_UINT64 && kb_dtype_is_integer(v[1].array.dtype) &&
          kb_dtype_is_signed(v[1].array.dtype)) ||
         (v[1].array.dtype == KB_UINT64 && kb_dtype_is_integer(v[0].array.dtype) &&
          kb_dtype_is_signed(v[0].array.dtype)))) {
        kb_status st = compare_mixed(op, ufunc, column, v, out, hooks);
        free_all(v, n);
        return st;
    }
    /* NumPy computes an array ** 2 (a Python int) as square(array), with square's types: a
     * bool array gives int8, not the int64 of bool ** 3. */
    if (op == KB_EW_POW && !v[0].weak && v[1].weak && v[1].array.dtype == KB_INT64 &&
        weak_int(&v[1]) == 2) {
        kb_expr_value_free(&v[1]);
        return run(KB_EW_SQUARE, ARITH_INT, "square", column, v, 1, out, hooks);
    }
    resolved res = {KB_BOOL, KB_BOOL, false};
    int k = 0; /* the small integer power computed by multiplication, if any */
    kb_status st = resolve(r, ufunc, column, v, n, &res);
    if (st == KB_OK && r == CLIP)
        st = clamp_bounds(v, res.loop, column);
    if (st == KB_OK && r == CLIP) {
        /* minimum(maximum(x, lo), hi) in the type of all three, NaN from any of them. */
        kb_expr_value lower;
        resolved step = {res.loop, res.out, false};
        st = apply(KB_EW_MAXIMUM, "clip", column, v, 2, &step, &lower, hooks);
        if (st == KB_OK) {
            kb_expr_value pair[2] = {lower, v[2]};
            st = apply(KB_EW_MINIMUM, "clip", column, pair, 2, &step, out, hooks);
            kb_expr_value_free(&lower);
        }
    } else if (st == KB_OK &&
               (k = op == KB_EW_POW ? kb_expr_int_power(&v[0], &v[1], res.loop) : 0) != 0) {
        kb_expr_ew_step steps[KB_EXPR_EW_MAX_STEPS];
        int nsteps = kb_expr_int_power_steps(k, res.loop, res.out, steps);
        st = apply_steps(steps, nsteps, column, v, &res, out, hooks);
    } else if (st == KB_OK) {
        st = apply(op, ufunc, column, v, n, &res, out, hooks);
    }
    free_all(v, n);
    return st;
}

kb_status kb_expr_operator(const kb_expr *expr, int index, kb_expr_value *args, kb_expr_value *out,
                           const kb_expr_hooks *hooks) {
    const kb_expr_node *n = kb_expr_node_at(expr, index);
    operator_info info = operator_of(n);
    int nargs = n->kind == KB_EXPR_UNARY ? 1 : 2;
    return run(info.op, info.rule, info.ufunc, n->column, args, nargs, out, hooks);
}

/* astype's type: a string ('float32') or a dtype name (np.float32, float32). */
static kb_status astype_dtype(const kb_expr *expr, const kb_expr_node *call, kb_dtype *out) {
    int second = kb_expr_node_at(expr, call->first_child)->next_sibling;
    const kb_expr_node *t = kb_expr_node_at(expr, second);
    const char *name = t->name;
    if (t->kind != KB_EXPR_STRING && t->kind != KB_EXPR_NAME)
        return kb_expr_fail_at(KB_EINVAL, t->column, "astype expects a dtype such as 'float32'");
    if (strncmp(name, "np.", 3) == 0)
        name += 3;
    if (kb_dtype_from_name(name, out) != KB_OK)
        return kb_expr_fail_at(KB_EINVAL, t->column, "unknown dtype '%s'", t->name);
    return KB_OK;
}

kb_status kb_expr_call_elementwise(const kb_expr *expr, int index, kb_expr_value *args, int nargs,
                                   kb_expr_value *out, const kb_expr_hooks *hooks) {
    const kb_expr_node *n = kb_expr_node_at(expr, index);
    const function *f = find(n->name);
    const char *name = f->name;
    kb_status st = KB_OK;
    int positional = 0;
    for (int c = n->first_child; c >= 0 && st == KB_OK;
         c = kb_expr_node_at(expr, c)->next_sibling) {
        const kb_expr_node *arg = kb_expr_node_at(expr, c);
        if (arg->kind == KB_EXPR_KEYWORD)
            st = kb_expr_fail_at(KB_EINVAL, arg->column, "%s takes no keyword '%s'", name,
                                 arg->name);
        else
            positional++;
    }
    if (st == KB_OK && positional != f->nargs)
        st = kb_expr_fail_at(KB_EINVAL, n->column, "%s takes %d argument%s, not %d", name, f->nargs,
                             f->nargs == 1 ? "" : "s", positional);
    if (st != KB_OK) {
        free_all(args, nargs);
        return st;
    }
    if (f->rule == ASTYPE) {
        kb_dtype dtype;
        st = astype_dtype(expr, n, &dtype);
        if (st == KB_OK) {
            const kb_array *in = &args[0].array;
            memset(out, 0, sizeof *out);
            st = kb_array_new(&out->array, dtype, in->ndim, in->shape, KB_ORDER_C);
            if (st == KB_OK && (st = kb_array_copy(&out->array, in)) != KB_OK)
                kb_array_free(&out->array);
            if (st != KB_OK)
                st = kb_expr_fail_here(st, n->column);
            else if (hooks->trace)
                kb_expr_trace_kernel(hooks->trace, "astype", &in, &args[0].weak, 1, &out->array);
        }
        free_all(args, nargs);
        return st;
    }
    return run(f->op, f->rule, name, n->column, args, nargs, out, hooks);
}

/* The fused planner's view of run(): the same choices, made on the operands' types (and weak
 * values) alone, as steps for the tile executor. */
kb_status kb_expr_ew_steps(const kb_expr *expr, int index, kb_expr_value *args, int nargs,
                           kb_expr_ew_step *steps, int *nsteps, bool *weak) {
    const kb_expr_node *n = kb_expr_node_at(expr, index);
    kb_ew_op op;
    rule r;
    const char *ufunc;
    int want;
    if (n->kind == KB_EXPR_CALL) {
        const function *f = find(n->name);
        if (!f || f->rule == ASTYPE)
            return kb_fail(KB_EUNSUPPORTED, "%s is not fused", n->name);
        op = f->op;
        r = f->rule;
        ufunc = f->name;
        want = f->nargs;
    } else {
        operator_info info = operator_of(n);
        op = info.op;
        r = info.rule;
        ufunc = info.ufunc;
        want = n->kind == KB_EXPR_UNARY ? 1 : 2;
    }
    if (nargs != want)
        return kb_fail(KB_EINVAL, "%s takes %d arguments", ufunc, want);
    if (r == COMPARE && !args[0].weak && !args[1].weak &&
        (args[0].array.dtype == KB_UINT64 || args[1].array.dtype == KB_UINT64))
        return kb_fail(KB_EUNSUPPORTED, "uint64 comparisons are not fused");
    int used = nargs;
    if (op == KB_EW_POW && !args[0].weak && args[1].weak && args[1].array.dtype == KB_INT64 &&
        weak_int(&args[1]) == 2) {
        op = KB_EW_SQUARE;
        r = ARITH_INT;
        ufunc = "square";
        used = 1;
    }
    resolved res = {KB_BOOL, KB_BOOL, false};
    KB_TRY(resolve(r, ufunc, n->column, args, used, &res));
    *weak = res.weak;
    if (r == CLIP) {
        if (kb_dtype_is_integer(res.loop))
            return kb_fail(KB_EUNSUPPORTED, "integer clip is not fused");
        steps[0] = (kb_expr_ew_step){"clip", KB_EW_MAXIMUM, 2, {0, 1, 0}, res.loop, res.out};
        steps[1] = (kb_expr_ew_step){"clip", KB_EW_MINIMUM, 2, {-1, 2, 0}, res.loop, res.out};
        *nsteps = 2;
        return KB_OK;
    }
    int k = op == KB_EW_POW ? kb_expr_int_power(&args[0], &args[1], res.loop) : 0;
    if (k) {
        *nsteps = kb_expr_int_power_steps(k, res.loop, res.out, steps);
        return KB_OK;
    }
    steps[0] = (kb_expr_ew_step){ufunc, op, used, {0, 1, 2}, res.loop, res.out};
    *nsteps = 1;
    return KB_OK;
}
