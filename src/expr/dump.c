/* The expression graph as text, for tests and debugging. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

#include "expr/graph.h"

/* Appends to a fixed buffer, counting what would not fit so the caller can learn the
 * length the whole text needs, as snprintf does. */
typedef struct sink {
    char *buf;
    size_t size, length;
} sink;

__attribute__((format(printf, 2, 3))) static void put(sink *s, const char *format, ...) {
    va_list args;
    va_start(args, format);
    size_t room = s->length < s->size ? s->size - s->length : 0;
    int n = vsnprintf(room ? s->buf + s->length : NULL, room, format, args);
    va_end(args);
    if (n > 0)
        s->length += (size_t)n;
}

/* Recursion is bounded by the graph's height, at most KB_EXPR_MAX_DEPTH. */
static void dump_node(const kb_expr *expr, int index, sink *s) {
    const kb_expr_node *n = kb_expr_node_at(expr, index);
    switch (n->kind) {
        case KB_EXPR_NAME:
            put(s, "(name %s)", n->name);
            return;
        case KB_EXPR_INT:
            put(s, "(int %" PRId64 ")", n->value.i);
            return;
        case KB_EXPR_FLOAT:
            put(s, "(float %.17g)", n->value.f);
            return;
        case KB_EXPR_BOOL:
            put(s, "(bool %s)", n->value.b ? "True" : "False");
            return;
        case KB_EXPR_NONE:
            put(s, "(none)");
            return;
        case KB_EXPR_TUPLE:
            put(s, "(tuple");
            break;
        case KB_EXPR_CALL:
            put(s, "(call %s", n->name);
            break;
        case KB_EXPR_KEYWORD:
            put(s, "(keyword %s", n->name);
            break;
        case KB_EXPR_UNARY:
            put(s, "(%s", n->op == KB_OP_NEG ? "-" : kb_expr_op_text(n->op));
            break;
        case KB_EXPR_BINARY:
            put(s, "(%s", kb_expr_op_text(n->op));
            break;
        case KB_EXPR_STRING:
            put(s, "(string %s)", n->name);
            return;
        case KB_EXPR_ASSIGN:
            put(s, "(= %s", n->name);
            break;
        case KB_EXPR_PROGRAM:
            put(s, "(program");
            break;
    }
    for (int c = n->first_child; c >= 0; c = kb_expr_node_at(expr, c)->next_sibling) {
        put(s, " ");
        dump_node(expr, c, s);
    }
    put(s, ")");
}

size_t kb_expr_dump(const kb_expr *expr, char *buf, size_t size) {
    sink s = {buf, size, 0};
    if (size)
        buf[0] = '\0';
    if (expr && expr->root >= 0)
        dump_node(expr, expr->root, &s);
    return s.length;
}
