#ifndef KB_EXPR_GRAPH_H
#define KB_EXPR_GRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kbench/error.h"
#include "kbench/expr.h"

/* The expression graph: what the parser builds and the evaluator (later the fusion planner)
 * walks. Nodes live in one array owned by the kb_expr and refer to each other by index, so
 * that freeing an expression is one pass and never recursion, whatever its shape. */

typedef enum kb_expr_kind {
    KB_EXPR_NAME,    /* a variable reference: name */
    KB_EXPR_INT,     /* literal: value.i */
    KB_EXPR_FLOAT,   /* literal: value.f */
    KB_EXPR_BOOL,    /* True or False: value.b */
    KB_EXPR_NONE,    /* None */
    KB_EXPR_TUPLE,   /* (a, b): children in order; () has none */
    KB_EXPR_CALL,    /* name(...): positional arguments, then KB_EXPR_KEYWORD children */
    KB_EXPR_KEYWORD, /* name=value inside a call: one child, the value */
    KB_EXPR_UNARY,   /* op child: '-', '+' or '~' ('-' and '+' on literals are folded) */
    KB_EXPR_BINARY,  /* child op child: arithmetic, comparison, '&' or '|' */
    KB_EXPR_STRING,  /* 'text': name is the text without its quotes */
    KB_EXPR_ASSIGN,  /* name = child */
    KB_EXPR_PROGRAM, /* statements separated by ';' or line breaks: children in order */
} kb_expr_kind;

/* The operators of UNARY and BINARY nodes. */
typedef enum kb_expr_op {
    KB_OP_ADD,
    KB_OP_SUB,
    KB_OP_MUL,
    KB_OP_DIV,
    KB_OP_FLOORDIV,
    KB_OP_MOD,
    KB_OP_POW,
    KB_OP_LT,
    KB_OP_LE,
    KB_OP_GT,
    KB_OP_GE,
    KB_OP_EQ,
    KB_OP_NE,
    KB_OP_AND,
    KB_OP_OR,
    KB_OP_NEG,    /* unary - */
    KB_OP_POS,    /* unary + */
    KB_OP_INVERT, /* unary ~ */
} kb_expr_op;

/* The operator as written: "+", "//", "<=", ... */
const char *kb_expr_op_text(kb_expr_op op);

typedef struct kb_expr_node {
    kb_expr_kind kind;
    /* 1-based source column of the node's token: the first character of a name, literal,
     * call or keyword, the '(' of a tuple, the operator of UNARY and BINARY (and of a
     * literal folded from one, such as -1). */
    int column;
    int height; /* nodes on the longest path down from here; 1 for a leaf */
    /* Children as a list: index of the first, then each child's next_sibling; -1 ends. */
    int first_child;
    int last_child;
    int next_sibling;
    int nchildren;
    /* NAME, CALL (as written, dots included: "np.sum"), KEYWORD, STRING, ASSIGN */
    const char *name;
    kb_expr_op op; /* UNARY, BINARY */
    union {
        int64_t i;
        double f;
        bool b;
    } value;
} kb_expr_node;

struct kb_expr {
    kb_expr_node *nodes;
    int count, capacity;
    int root;
    /* Names, NUL-terminated, in one buffer sized from the source and never moved, so that
     * node names stay valid. */
    char *names;
    size_t names_used, names_size;
};

/* An empty graph for a source of source_length bytes. */
kb_status kb_expr_graph_new(size_t source_length, kb_expr **out);

/* Appends a node with no children; its index goes to *index. */
kb_status kb_expr_add_node(kb_expr *expr, kb_expr_kind kind, int column, int *index);

/* Appends child to parent's children. Fails when the parent would nest deeper than
 * KB_EXPR_MAX_DEPTH. */
kb_status kb_expr_add_child(kb_expr *expr, int parent, int child);

/* Names are built piece by piece (a dotted name is several tokens): start, append the
 * pieces, finish; the result stays valid as long as the expression. The pieces of all
 * names together are at most the source's length. */
const char *kb_expr_name_start(kb_expr *expr);
void kb_expr_name_append(kb_expr *expr, const char *text, size_t length);
void kb_expr_name_finish(kb_expr *expr);

static inline const kb_expr_node *kb_expr_node_at(const kb_expr *expr, int index) {
    return &expr->nodes[index];
}

/* The graph in prefix notation, for tests and debugging:
 * "(call mean (name x) (keyword axis (tuple (int 0) (int -1))))". Writes at most size bytes,
 * NUL included, and returns the length the whole text needs. */
size_t kb_expr_dump(const kb_expr *expr, char *buf, size_t size);

#endif
