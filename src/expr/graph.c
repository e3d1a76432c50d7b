/* The expression graph: nodes, their allocation and release. */
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "expr/fail_at.h"
#include "expr/graph.h"

kb_status kb_expr_graph_new(size_t source_length, kb_expr **out) {
    *out = NULL;
    kb_expr *expr = calloc(1, sizeof *expr);
    if (!expr)
        return kb_fail(KB_ENOMEM, "out of memory for an expression");
    /* Each name takes at most its span of the source plus a NUL, and spans do not overlap,
     * so two bytes per source byte always suffice. */
    expr->names_size = 2 * source_length + 2;
    expr->names = malloc(expr->names_size);
    if (!expr->names) {
        free(expr);
        return kb_fail(KB_ENOMEM, "out of memory for an expression");
    }
    expr->root = -1;
    *out = expr;
    return KB_OK;
}

void kb_expr_free(kb_expr *expr) {
    if (!expr)
        return;
    free(expr->nodes);
    free(expr->names);
    free(expr);
}

kb_status kb_expr_add_node(kb_expr *expr, kb_expr_kind kind, int column, int *index) {
    if (expr->count == expr->capacity) {
        int capacity = expr->capacity ? 2 * expr->capacity : 16;
        kb_expr_node *nodes = realloc(expr->nodes, (size_t)capacity * sizeof *nodes);
        if (!nodes)
            return kb_fail(KB_ENOMEM, "out of memory for an expression");
        expr->nodes = nodes;
        expr->capacity = capacity;
    }
    kb_expr_node *node = &expr->nodes[expr->count];
    memset(node, 0, sizeof *node);
    node->kind = kind;
    node->column = column;
    node->height = 1;
    node->first_child = node->last_child = node->next_sibling = -1;
    *index = expr->count++;
    return KB_OK;
}

kb_status kb_expr_add_child(kb_expr *expr, int parent, int child) {
    kb_expr_node *p = &expr->nodes[parent];
    kb_expr_node *c = &expr->nodes[child];
    if (c->height + 1 > p->height) {
        /* Left-deep chains such as a+b+c+... are built by a loop, not by recursion, so the
         * parser's depth count does not see them; the height does. */
        if (c->height + 1 > KB_EXPR_MAX_DEPTH)
            return kb_expr_fail_at(KB_EUNSUPPORTED, p->column,
                                   "expression nested more than %d levels deep", KB_EXPR_MAX_DEPTH);
        p->height = c->height + 1;
    }
    if (p->last_child < 0)
        p->first_child = child;
    else
        expr->nodes[p->last_child].next_sibling = child;
    p->last_child = child;
    p->nchildren++;
    return KB_OK;
}

const char *kb_expr_name_start(kb_expr *expr) {
    return expr->names + expr->names_used;
}

/* The bound in kb_expr_graph_new makes the clamps below unreachable; they guard the buffer
 * should a future caller break it. One byte is always kept for the NUL. */
void kb_expr_name_append(kb_expr *expr, const char *text, size_t length) {
    size_t room = expr->names_size - 1 - expr->names_used;
    if (length > room)
        length = room;
    memcpy(expr->names + expr->names_used, text, length);
    expr->names_used += length;
}

void kb_expr_name_finish(kb_expr *expr) {
    expr->names[expr->names_used] = '\0';
    if (expr->names_used + 1 < expr->names_size)
        expr->names_used++;
}

const char *kb_expr_op_text(kb_expr_op op) {
    static const char *const texts[] = {
        [KB_OP_ADD] = "+",       [KB_OP_SUB] = "-",    [KB_OP_MUL] = "*",  [KB_OP_DIV] = "/",
        [KB_OP_FLOORDIV] = "//", [KB_OP_MOD] = "%",    [KB_OP_POW] = "**", [KB_OP_LT] = "<",
        [KB_OP_LE] = "<=",       [KB_OP_GT] = ">",     [KB_OP_GE] = ">=",  [KB_OP_EQ] = "==",
        [KB_OP_NE] = "!=",       [KB_OP_AND] = "&",    [KB_OP_OR] = "|",   [KB_OP_NEG] = "-",
        [KB_OP_POS] = "+",       [KB_OP_INVERT] = "~",
    };
    return (unsigned)op < sizeof texts / sizeof *texts ? texts[op] : "?";
}
