/* The expression language's parser: text to graph. */
#include <stdbool.h>
#include <string.h>

#include "core/internal.h"
#include "expr/fail_at.h"
#include "expr/graph.h"
#include "expr/lexer.h"

/* A recursive-descent parser for Python's expression grammar, reduced to what kbench
 * evaluates:
 *
 *     program    := statement ((';' | NEWLINE) statement)*
 *     statement  := NAME '=' expression | expression
 *     expression := or [('<' | '<=' | '>' | '>=' | '==' | '!=') or]
 *     or         := and ('|' and)*
 *     and        := sum ('&' sum)*
 *     sum        := product (('+' | '-') product)*
 *     product    := unary (('*' | '/' | '//' | '%') unary)*
 *     unary      := ('-' | '+' | '~') unary | power
 *     power      := primary ['**' unary]
 *     primary    := NAME ('.' NAME)* ['(' arguments ')'] | INT | FLOAT | STRING | '(' ')'
 *                 | '(' expression ')' | '(' expression ',' [elements] ')'
 *     elements   := expression (',' expression)* [',']
 *     arguments  := [argument (',' argument)* [',']]
 *     argument   := NAME '=' expression | expression
 *
 * True, False and None are literals, as in Python 3. Only names can be called: the callee
 * of every call is a function of the language, never a computed value. */

typedef struct parser {
    kb_lexer lexer;
    kb_token tok;   /* the current token */
    kb_token ahead; /* the one after it, once peeked */
    bool has_ahead;
    int depth; /* recursion depth, bounded by KB_EXPR_MAX_DEPTH */
    kb_expr *expr;
} parser;

static kb_status advance(parser *p) {
    if (p->has_ahead) {
        p->tok = p->ahead;
        p->has_ahead = false;
        return KB_OK;
    }
    return kb_lexer_next(&p->lexer, &p->tok);
}

/* Lexed only when asked for, so that a lexical error further on never hides a syntax error
 * at the current token. */
static kb_status peek(parser *p, kb_token_kind *kind) {
    if (!p->has_ahead) {
        KB_TRY(kb_lexer_next(&p->lexer, &p->ahead));
        p->has_ahead = true;
    }
    *kind = p->ahead.kind;
    return KB_OK;
}

static kb_status unexpected(const parser *p) {
    const kb_token *t = &p->tok;
    switch (t->kind) {
        case KB_TOKEN_END:
            return kb_expr_fail_at(KB_EFORMAT, t->column, "unexpected end of the expression");
        case KB_TOKEN_NAME:
        case KB_TOKEN_INT:
        case KB_TOKEN_FLOAT:
            return kb_expr_fail_at(KB_EFORMAT, t->column, "unexpected '%.*s'", t->length, t->text);
        default:
            return kb_expr_fail_at(KB_EFORMAT, t->column, "unexpected %s",
                                   kb_token_kind_describe(t->kind));
    }
}

static kb_status expect(parser *p, kb_token_kind kind) {
    if (p->tok.kind != kind)
        return kb_expr_fail_at(KB_EFORMAT, p->tok.column, "expected %s",
                               kb_token_kind_describe(kind));
    return advance(p);
}

static kb_status enter(parser *p) {
    if (++p->depth > KB_EXPR_MAX_DEPTH)
        return kb_expr_fail_at(KB_EUNSUPPORTED, p->tok.column,
                               "expression nested more than %d levels deep", KB_EXPR_MAX_DEPTH);
    return KB_OK;
}

static kb_status parse_expression(parser *p, int *out);

static kb_status add_node(parser *p, kb_expr_kind kind, int column, int *index) {
    return kb_expr_add_node(p->expr, kind, column, index);
}

static kb_expr_node *node(parser *p, int index) {
    return &p->expr->nodes[index];
}

static bool token_is(const kb_token *t, const char *word) {
    size_t n = strlen(word);
    return t->kind == KB_TOKEN_NAME && (size_t)t->length == n && memcmp(t->text, word, n) == 0;
}

static kb_status parse_literal_name(parser *p, int *out) {
    int column = p->tok.column;
    if (token_is(&p->tok, "None")) {
        KB_TRY(add_node(p, KB_EXPR_NONE, column, out));
    } else {
        KB_TRY(add_node(p, KB_EXPR_BOOL, column, out));
        node(p, *out)->value.b = token_is(&p->tok, "True");
    }
    return advance(p);
}

static kb_status parse_call(parser *p, const char *name, int column, int *out) {
    int call;
    KB_TRY(add_node(p, KB_EXPR_CALL, column, &call));
    node(p, call)->name = name;
    KB_TRY(advance(p)); /* ( */
    bool seen_keyword = false;
    while (p->tok.kind != KB_TOKEN_RPAREN) {
        kb_token_kind next = KB_TOKEN_END;
        if (p->tok.kind == KB_TOKEN_NAME)
            KB_TRY(peek(p, &next));
        int arg;
        if (next == KB_TOKEN_EQUALS) {
            KB_TRY(add_node(p, KB_EXPR_KEYWORD, p->tok.column, &arg));
            const char *keyword = kb_expr_name_start(p->expr);
            kb_expr_name_append(p->expr, p->tok.text, (size_t)p->tok.length);
            kb_expr_name_finish(p->expr);
            node(p, arg)->name = keyword;
            KB_TRY(advance(p)); /* the name */
            KB_TRY(advance(p)); /* = */
            int value;
            KB_TRY(parse_expression(p, &value));
            KB_TRY(kb_expr_add_child(p->expr, arg, value));
            seen_keyword = true;
        } else {
            if (seen_keyword) /* Python's rule, and its words */
                return kb_expr_fail_at(KB_EFORMAT, p->tok.column,
                                       "positional argument follows keyword argument");
            KB_TRY(parse_expression(p, &arg));
        }
        KB_TRY(kb_expr_add_child(p->expr, call, arg));
        if (p->tok.kind == KB_TOKEN_COMMA)
            KB_TRY(advance(p));
        else if (p->tok.kind != KB_TOKEN_RPAREN)
            return kb_expr_fail_at(KB_EFORMAT, p->tok.column, "expected ')'");
    }
    *out = call;
    return advance(p); /* ) */
}

/* A variable or a call: NAME ('.' NAME)* ['(' arguments ')']. */
static kb_status parse_name(parser *p, int *out) {
    int column = p->tok.column;
    const char *name = kb_expr_name_start(p->expr);
    kb_expr_name_append(p->expr, p->tok.text, (size_t)p->tok.length);
    KB_TRY(advance(p));
    while (p->tok.kind == KB_TOKEN_DOT) {
        KB_TRY(advance(p));
        if (p->tok.kind != KB_TOKEN_NAME) {
            kb_expr_name_finish(p->expr);
            return kb_expr_fail_at(KB_EFORMAT, p->tok.column, "expected a name after '.'");
        }
        kb_expr_name_append(p->expr, ".", 1);
        kb_expr_name_append(p->expr, p->tok.text, (size_t)p->tok.length);
        KB_TRY(advance(p));
    }
    kb_expr_name_finish(p->expr);
    if (p->tok.kind == KB_TOKEN_LPAREN)
        return parse_call(p, name, column, out);
    KB_TRY(add_node(p, KB_EXPR_NAME, column, out));
    node(p, *out)->name = name;
    return KB_OK;
}

/* After '(': the empty tuple, a parenthesized expression or a tuple. */
static kb_status parse_parenthesized(parser *p, int *out) {
    int column = p->tok.column;
    KB_TRY(advance(p)); /* ( */
    if (p->tok.kind == KB_TOKEN_RPAREN) {
        KB_TRY(add_node(p, KB_EXPR_TUPLE, column, out));
        return advance(p);
    }
    int first;
    KB_TRY(parse_expression(p, &first));
    if (p->tok.kind != KB_TOKEN_COMMA) {
        *out = first;
        return expect(p, KB_TOKEN_RPAREN);
    }
    int tuple;
    KB_TRY(add_node(p, KB_EXPR_TUPLE, column, &tuple));
    KB_TRY(kb_expr_add_child(p->expr, tuple, first));
    while (p->tok.kind == KB_TOKEN_COMMA) {
        KB_TRY(advance(p));
        if (p->tok.kind == KB_TOKEN_RPAREN)
            break; /* (a,) and (a, b,) */
        int element;
        KB_TRY(parse_expression(p, &element));
        KB_TRY(kb_expr_add_child(p->expr, tuple, element));
    }
    *out = tuple;
    return expect(p, KB_TOKEN_RPAREN);
}

static kb_status parse_primary(parser *p, int *out) {
    const kb_token *t = &p->tok;
    switch (t->kind) {
        case KB_TOKEN_NAME:
            if (token_is(t, "True") || token_is(t, "False") || token_is(t, "None"))
                return parse_literal_name(p, out);
            return parse_name(p, out);
        case KB_TOKEN_INT:
            KB_TRY(add_node(p, KB_EXPR_INT, t->column, out));
            node(p, *out)->value.i = t->int_value;
            return advance(p);
        case KB_TOKEN_FLOAT:
            KB_TRY(add_node(p, KB_EXPR_FLOAT, t->column, out));
            node(p, *out)->value.f = t->float_value;
            return advance(p);
        case KB_TOKEN_STRING: {
            KB_TRY(add_node(p, KB_EXPR_STRING, t->column, out));
            const char *text = kb_expr_name_start(p->expr);
            kb_expr_name_append(p->expr, t->text + 1, (size_t)t->length - 2);
            kb_expr_name_finish(p->expr);
            node(p, *out)->name = text;
            return advance(p);
        }
        case KB_TOKEN_LPAREN:
            return parse_parenthesized(p, out);
        default:
            return unexpected(p);
    }
}

static kb_status parse_unary(parser *p, int *out);

static kb_status make_binary(parser *p, kb_expr_op op, int column, int left, int right, int *out) {
    KB_TRY(add_node(p, KB_EXPR_BINARY, column, out));
    node(p, *out)->op = op;
    KB_TRY(kb_expr_add_child(p->expr, *out, left));
    return kb_expr_add_child(p->expr, *out, right);
}

/* power := primary ['**' unary]: binds tighter than a unary operator on its left (-2**2 is
 * -4) and looser than one on its right (2**-1), and groups from the right (2**3**2). */
static kb_status parse_power(parser *p, int *out) {
    KB_TRY(parse_primary(p, out));
    if (p->tok.kind != KB_TOKEN_DSTAR)
        return KB_OK;
    int column = p->tok.column;
    KB_TRY(advance(p));
    KB_TRY(enter(p));
    int right;
    KB_TRY(parse_unary(p, &right));
    p->depth--;
    return make_binary(p, KB_OP_POW, column, *out, right, out);
}

static kb_status parse_unary(parser *p, int *out) {
    kb_token_kind kind = p->tok.kind;
    if (kind != KB_TOKEN_MINUS && kind != KB_TOKEN_PLUS && kind != KB_TOKEN_TILDE)
        return parse_power(p, out);
    kb_expr_op op = kind == KB_TOKEN_MINUS  ? KB_OP_NEG
                    : kind == KB_TOKEN_PLUS ? KB_OP_POS
                                            : KB_OP_INVERT;
    int column = p->tok.column;
    KB_TRY(advance(p));
    KB_TRY(enter(p));
    int operand;
    KB_TRY(parse_unary(p, &operand));
    p->depth--;
    kb_expr_node *n = node(p, operand);
    /* A signed number is a literal, as Python's compiler folds it: axis=-1 is an integer, not
     * an operation on one. Negation cannot overflow: literals start in [0, INT64_MAX]. */
    if (op != KB_OP_INVERT && (n->kind == KB_EXPR_INT || n->kind == KB_EXPR_FLOAT)) {
        if (op == KB_OP_NEG) {
            if (n->kind == KB_EXPR_INT)
                n->value.i = -n->value.i;
            else
                n->value.f = -n->value.f;
        }
        n->column = column;
        *out = operand;
        return KB_OK;
    }
    KB_TRY(add_node(p, KB_EXPR_UNARY, column, out));
    node(p, *out)->op = op;
    return kb_expr_add_child(p->expr, *out, operand);
}

/* The binary operator of a token at one precedence level, or -1. */
typedef int (*level_op)(kb_token_kind kind);

static int product_op(kb_token_kind kind) {
    switch (kind) {
        case KB_TOKEN_STAR:
            return KB_OP_MUL;
        case KB_TOKEN_SLASH:
            return KB_OP_DIV;
        case KB_TOKEN_DSLASH:
            return KB_OP_FLOORDIV;
        case KB_TOKEN_PERCENT:
            return KB_OP_MOD;
        default:
            return -1;
    }
}

static int sum_op(kb_token_kind kind) {
    return kind == KB_TOKEN_PLUS ? KB_OP_ADD : kind == KB_TOKEN_MINUS ? KB_OP_SUB : -1;
}

static int and_op(kb_token_kind kind) {
    return kind == KB_TOKEN_AMP ? KB_OP_AND : -1;
}

static int or_op(kb_token_kind kind) {
    return kind == KB_TOKEN_PIPE ? KB_OP_OR : -1;
}

static int compare_op(kb_token_kind kind) {
    switch (kind) {
        case KB_TOKEN_LT:
            return KB_OP_LT;
        case KB_TOKEN_LE:
            return KB_OP_LE;
        case KB_TOKEN_GT:
            return KB_OP_GT;
        case KB_TOKEN_GE:
            return KB_OP_GE;
        case KB_TOKEN_EQEQ:
            return KB_OP_EQ;
        case KB_TOKEN_NE:
            return KB_OP_NE;
        default:
            return -1;
    }
}

/* Python's levels, loosest first: comparisons, '|', '&', '+ -', '* / // %', unary, '**'.
 * Each binary level groups from the left, in a loop, so that a+b+c+... costs no recursion. */
static const level_op levels[] = {compare_op, or_op, and_op, sum_op, product_op};
enum { LEVELS = sizeof levels / sizeof *levels };

static kb_status parse_level(parser *p, int level, int *out) {
    if (level == LEVELS)
        return parse_unary(p, out);
    int left;
    KB_TRY(parse_level(p, level + 1, &left));
    int op;
    int compared = 0;
    while ((op = levels[level](p->tok.kind)) >= 0) {
        /* Python chains a < b < c into (a < b) and (b < c), whose 'and' arrays refuse; so
         * does kbench, and says how to write what was probably meant. */
        if (level == 0 && compared++)
            return kb_expr_fail_at(KB_EFORMAT, p->tok.column,
                                   "chained comparison: use parentheses, as in (a < b) & (b < c)");
        int column = p->tok.column;
        KB_TRY(advance(p));
        int right;
        KB_TRY(parse_level(p, level + 1, &right));
        KB_TRY(make_binary(p, (kb_expr_op)op, column, left, right, &left));
    }
    *out = left;
    return KB_OK;
}

static kb_status parse_expression(parser *p, int *out) {
    KB_TRY(enter(p));
    KB_TRY(parse_level(p, 0, out));
    p->depth--;
    return KB_OK;
}

static bool ends_statement(kb_token_kind kind) {
    return kind == KB_TOKEN_SEMICOLON || kind == KB_TOKEN_NEWLINE;
}

/* statement := NAME '=' expression | expression */
static kb_status parse_statement(parser *p, int *out) {
    kb_token_kind next = KB_TOKEN_END;
    if (p->tok.kind == KB_TOKEN_NAME)
        KB_TRY(peek(p, &next));
    if (next != KB_TOKEN_EQUALS)
        return parse_expression(p, out);
    if (token_is(&p->tok, "True") || token_is(&p->tok, "False") || token_is(&p->tok, "None"))
        return kb_expr_fail_at(KB_EFORMAT, p->tok.column, "cannot assign to %.*s", p->tok.length,
                               p->tok.text);
    KB_TRY(add_node(p, KB_EXPR_ASSIGN, p->tok.column, out));
    const char *name = kb_expr_name_start(p->expr);
    kb_expr_name_append(p->expr, p->tok.text, (size_t)p->tok.length);
    kb_expr_name_finish(p->expr);
    node(p, *out)->name = name;
    KB_TRY(advance(p)); /* the name */
    KB_TRY(advance(p)); /* = */
    int value;
    KB_TRY(parse_expression(p, &value));
    return kb_expr_add_child(p->expr, *out, value);
}

/* program := statement ((';' | NEWLINE)+ statement)*, blank statements allowed around them.
 * One statement is the root itself; several hang from a PROGRAM node, the last giving the
 * value. */
static kb_status parse_source(parser *p) {
    KB_TRY(advance(p));
    int program = -1, first = -1, count = 0;
    for (;;) {
        while (ends_statement(p->tok.kind))
            KB_TRY(advance(p));
        if (p->tok.kind == KB_TOKEN_END)
            break;
        int statement;
        KB_TRY(parse_statement(p, &statement));
        if (++count == 1) {
            first = statement;
        } else {
            if (count == 2) {
                KB_TRY(add_node(p, KB_EXPR_PROGRAM, 1, &program));
                KB_TRY(kb_expr_add_child(p->expr, program, first));
            }
            KB_TRY(kb_expr_add_child(p->expr, program, statement));
        }
        if (p->tok.kind == KB_TOKEN_RPAREN)
            return kb_expr_fail_at(KB_EFORMAT, p->tok.column, "unmatched ')'");
        if (p->tok.kind != KB_TOKEN_END && !ends_statement(p->tok.kind))
            return unexpected(p);
    }
    if (count == 0)
        return kb_expr_fail_at(KB_EFORMAT, p->tok.column, "empty expression");
    int last = count == 1 ? first : p->expr->nodes[program].last_child;
    if (node(p, last)->kind == KB_EXPR_ASSIGN)
        return kb_expr_fail_at(KB_EFORMAT, node(p, last)->column,
                               "the last statement is an assignment: it gives no value");
    p->expr->root = count == 1 ? first : program;
    return KB_OK;
}

kb_status kb_expr_parse(const char *source, kb_expr **out) {
    *out = NULL;
    if (!source)
        return kb_fail(KB_EINVAL, "no expression (NULL source)");
    size_t length = strnlen(source, (size_t)KB_EXPR_MAX_LENGTH + 1);
    if (length > KB_EXPR_MAX_LENGTH)
        return kb_expr_fail_at(KB_EUNSUPPORTED, KB_EXPR_MAX_LENGTH + 1,
                               "expression longer than %d bytes", KB_EXPR_MAX_LENGTH);
    parser p = {.expr = NULL};
    KB_TRY(kb_expr_graph_new(length, &p.expr));
    kb_lexer_init(&p.lexer, source);
    kb_status st = parse_source(&p);
    if (st != KB_OK) {
        kb_expr_free(p.expr);
        return st;
    }
    *out = p.expr;
    return KB_OK;
}
