/* The expression tokenizer and parser: token columns, the graph of parsed expressions, every
 * syntax error with its column, the nesting and length limits, and that failing parses free
 * what they built (this runs under AddressSanitizer's leak checker in the sanitizer build).
 * Only the syntax is tested here, so that these tests link without the reduction kernels;
 * names, keywords and values are checked by the evaluator, in test_eval.c. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "expr/graph.h"
#include "expr/lexer.h"
#include "kbench/expr.h"

/* ---- tokenizer ------------------------------------------------------------------------ */

static void tokens_carry_kinds_and_columns(void **state) {
    const char *src = "np.mean( x,\taxis=-1.5e3)[0]+*/ _a9";
    struct {
        kb_token_kind kind;
        int column;
        const char *text;
    } want[] = {
        {KB_TOKEN_NAME, 1, "np"},      {KB_TOKEN_DOT, 3, "."},       {KB_TOKEN_NAME, 4, "mean"},
        {KB_TOKEN_LPAREN, 8, "("},     {KB_TOKEN_NAME, 10, "x"},     {KB_TOKEN_COMMA, 11, ","},
        {KB_TOKEN_NAME, 13, "axis"},   {KB_TOKEN_EQUALS, 17, "="},   {KB_TOKEN_MINUS, 18, "-"},
        {KB_TOKEN_FLOAT, 19, "1.5e3"}, {KB_TOKEN_RPAREN, 24, ")"},   {KB_TOKEN_LBRACKET, 25, "["},
        {KB_TOKEN_INT, 26, "0"},       {KB_TOKEN_RBRACKET, 27, "]"}, {KB_TOKEN_PLUS, 28, "+"},
        {KB_TOKEN_STAR, 29, "*"},      {KB_TOKEN_SLASH, 30, "/"},    {KB_TOKEN_NAME, 32, "_a9"},
        {KB_TOKEN_END, 35, ""},
    };
    kb_lexer lx;
    kb_lexer_init(&lx, src);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        kb_token t;
        assert_int_equal(kb_lexer_next(&lx, &t), KB_OK);
        assert_int_equal(t.kind, want[i].kind);
        assert_int_equal(t.column, want[i].column);
        assert_int_equal(t.length, (int)strlen(want[i].text));
        assert_memory_equal(t.text, want[i].text, strlen(want[i].text));
    }
    kb_token t;
    assert_int_equal(kb_lexer_next(&lx, &t), KB_OK); /* the end stays the end */
    assert_int_equal(t.kind, KB_TOKEN_END);
}

static void numbers_follow_python(void **state) {
    struct {
        const char *src;
        kb_token_kind kind;
        double value;
    } cases[] = {
        {"0", KB_TOKEN_INT, 0},
        {"42", KB_TOKEN_INT, 42},
        {"007", KB_TOKEN_INT, 7},
        {"9223372036854775807", KB_TOKEN_INT, 9223372036854775807.0},
        {"1.5", KB_TOKEN_FLOAT, 1.5},
        {".5", KB_TOKEN_FLOAT, 0.5},
        {"1.", KB_TOKEN_FLOAT, 1.0},
        {"1e3", KB_TOKEN_FLOAT, 1000},
        {"2.5E+2", KB_TOKEN_FLOAT, 250},
        {"5e-1", KB_TOKEN_FLOAT, 0.5},
        {"1e999", KB_TOKEN_FLOAT, HUGE_VAL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        kb_lexer lx;
        kb_token t;
        kb_lexer_init(&lx, cases[i].src);
        assert_int_equal(kb_lexer_next(&lx, &t), KB_OK);
        assert_int_equal(t.kind, cases[i].kind);
        assert_int_equal(t.length, (int)strlen(cases[i].src));
        if (t.kind == KB_TOKEN_INT)
            assert_true((double)t.int_value == cases[i].value);
        else
            assert_true(t.float_value == cases[i].value);
        assert_int_equal(kb_lexer_next(&lx, &t), KB_OK);
        assert_int_equal(t.kind, KB_TOKEN_END);
    }
}

static void expect_lex_error(const char *src, const char *message) {
    kb_lexer lx;
    kb_token t;
    kb_lexer_init(&lx, src);
    kb_status st;
    while ((st = kb_lexer_next(&lx, &t)) == KB_OK && t.kind != KB_TOKEN_END)
        ;
    assert_int_equal(st, KB_EFORMAT);
    assert_string_equal(kb_last_error(), message);
}

static void bad_tokens_are_refused_with_their_column(void **state) {
    expect_lex_error("x $", "unexpected character '$' at column 3");
    expect_lex_error("'s", "unterminated string at column 1");
    expect_lex_error("x ! y", "unexpected character '!' at column 3");
    expect_lex_error("a\x01", "unexpected character '\\x01' at column 2");
    expect_lex_error("x\v", "unexpected character '\\x0b' at column 2");
    expect_lex_error("\xc3\xa9", "unexpected character '\\xc3' at column 1");
    expect_lex_error("f(1e)", "malformed number '1e' at column 3");
    expect_lex_error("1e+", "malformed number '1e+' at column 1");
    expect_lex_error(" 2abc", "malformed number '2abc' at column 2");
    expect_lex_error("1.2.3", "malformed number '1.2.3' at column 1");
    expect_lex_error("0x1F", "malformed number '0x1F' at column 1");
    expect_lex_error("9223372036854775808",
                     "integer '9223372036854775808' is too large at column 1");
}

/* ---- graph ---------------------------------------------------------------------------- */

static void expect_graph(const char *src, const char *dump) {
    kb_expr *e = NULL;
    kb_status st = kb_expr_parse(src, &e);
    if (st != KB_OK)
        fail_msg("'%s': %s", src, kb_last_error());
    char buf[1024];
    size_t n = kb_expr_dump(e, buf, sizeof buf);
    assert_true(n < sizeof buf);
    assert_string_equal(buf, dump);
    kb_expr_free(e);
}

static void calls_parse_into_graphs(void **state) {
    expect_graph("x", "(name x)");
    expect_graph("mean(x, axis=0)", "(call mean (name x) (keyword axis (int 0)))");
    expect_graph("np.var(x, axis=(0, -1), ddof=1, keepdims=True)",
                 "(call np.var (name x) (keyword axis (tuple (int 0) (int -1))) "
                 "(keyword ddof (int 1)) (keyword keepdims (bool True)))");
    expect_graph("sum(x, axis=None, keepdims=False)",
                 "(call sum (name x) (keyword axis (none)) (keyword keepdims (bool False)))");
    expect_graph("sum(x, axis=())", "(call sum (name x) (keyword axis (tuple)))");
    expect_graph("sum(x, axis=(1,))", "(call sum (name x) (keyword axis (tuple (int 1))))");
    expect_graph("sum(x, axis=(1, 2,))",
                 "(call sum (name x) (keyword axis (tuple (int 1) (int 2))))");
    expect_graph("sum(x,)", "(call sum (name x))");
    expect_graph("f()", "(call f)");
    expect_graph("sum(max(x, axis=1))", "(call sum (call max (name x) (keyword axis (int 1))))");
    expect_graph("  \tstd ( x , ddof = 2 )  ", "(call std (name x) (keyword ddof (int 2)))");
    expect_graph("a.b.c", "(name a.b.c)");
    expect_graph("np . sum(x)", "(call np.sum (name x))");
    expect_graph("((x))", "(name x)");
}

static void arithmetic_parses_with_precedence(void **state) {
    expect_graph("1 + 2 * 3", "(+ (int 1) (* (int 2) (int 3)))");
    expect_graph("(1 + 2) * 3", "(* (+ (int 1) (int 2)) (int 3))");
    expect_graph("a - b - c", "(- (- (name a) (name b)) (name c))");
    expect_graph("a / b * c", "(* (/ (name a) (name b)) (name c))");
    expect_graph("a / -b", "(/ (name a) (- (name b)))");
    expect_graph("-x", "(- (name x))");
    expect_graph("+x", "(+ (name x))");
    /* Signs on numbers fold into the literal, as Python's compiler does. */
    expect_graph("-1", "(int -1)");
    expect_graph("--1", "(int 1)");
    expect_graph("-(2)", "(int -2)");
    expect_graph("+3", "(int 3)");
    expect_graph("-1.5", "(float -1.5)");
    expect_graph("-9223372036854775807", "(int -9223372036854775807)");
    expect_graph("2 - 1", "(- (int 2) (int 1))");
    expect_graph("2*-1", "(* (int 2) (int -1))");
    expect_graph("-True", "(- (bool True))");
    /* Python's levels: ** over unary over * / // % over + - over & over | over comparisons. */
    expect_graph("-2**2", "(- (** (int 2) (int 2)))");
    expect_graph("2**-1", "(** (int 2) (int -1))");
    expect_graph("a**b**c", "(** (name a) (** (name b) (name c)))");
    expect_graph("a // b % c * d", "(* (% (// (name a) (name b)) (name c)) (name d))");
    expect_graph("a + b & c | d", "(| (& (+ (name a) (name b)) (name c)) (name d))");
    expect_graph("a | b < c & d", "(< (| (name a) (name b)) (& (name c) (name d)))");
    expect_graph("~a == b", "(== (~ (name a)) (name b))");
    expect_graph("a != b", "(!= (name a) (name b))");
    expect_graph("(a <= b) & (c >= d)", "(& (<= (name a) (name b)) (>= (name c) (name d)))");
    expect_graph("astype(x, 'float32')", "(call astype (name x) (string float32))");
    /* Statements: ';' or line breaks (blank inside parentheses), the last one the value. */
    expect_graph("a = x; a", "(program (= a (name x)) (name a))");
    expect_graph("a = x\nb = (a +\n 1)\n\nb # comment\n",
                 "(program (= a (name x)) (= b (+ (name a) (int 1))) (name b))");
    expect_graph("x;", "(name x)");
}

static void nodes_carry_columns(void **state) {
    kb_expr *e;
    assert_int_equal(kb_expr_parse("mean(x, axis=-1, keepdims=(1, 2)) ", &e), KB_OK);
    const kb_expr_node *call = kb_expr_node_at(e, e->root);
    assert_int_equal(call->kind, KB_EXPR_CALL);
    assert_string_equal(call->name, "mean");
    assert_int_equal(call->column, 1);
    assert_int_equal(call->nchildren, 3);
    const kb_expr_node *x = kb_expr_node_at(e, call->first_child);
    assert_int_equal(x->kind, KB_EXPR_NAME);
    assert_int_equal(x->column, 6);
    const kb_expr_node *axis = kb_expr_node_at(e, x->next_sibling);
    assert_int_equal(axis->kind, KB_EXPR_KEYWORD);
    assert_string_equal(axis->name, "axis");
    assert_int_equal(axis->column, 9);
    assert_int_equal(axis->nchildren, 1);
    const kb_expr_node *minus_one = kb_expr_node_at(e, axis->first_child);
    assert_int_equal(minus_one->kind, KB_EXPR_INT);
    assert_int_equal(minus_one->value.i, -1);
    assert_int_equal(minus_one->column, 14); /* the sign's column */
    const kb_expr_node *keepdims = kb_expr_node_at(e, axis->next_sibling);
    assert_int_equal(keepdims->column, 18);
    assert_int_equal(keepdims->next_sibling, -1);
    const kb_expr_node *tuple = kb_expr_node_at(e, keepdims->first_child);
    assert_int_equal(tuple->kind, KB_EXPR_TUPLE);
    assert_int_equal(tuple->column, 27);
    assert_int_equal(tuple->nchildren, 2);
    assert_int_equal(kb_expr_node_at(e, tuple->first_child)->column, 28);
    kb_expr_free(e);

    assert_int_equal(kb_expr_parse("a +  b", &e), KB_OK);
    assert_int_equal(kb_expr_node_at(e, e->root)->column, 3); /* the operator */
    assert_int_equal(kb_expr_node_at(e, e->root)->op, KB_OP_ADD);
    kb_expr_free(e);
}

/* ---- syntax errors -------------------------------------------------------------------- */

static void expect_error(const char *src, kb_status status, const char *message) {
    kb_expr *e = (kb_expr *)&e; /* must come back NULL */
    kb_status st = kb_expr_parse(src, &e);
    if (st == KB_OK)
        fail_msg("'%s' parsed, expected \"%s\"", src, message);
    assert_int_equal(st, status);
    assert_null(e);
    assert_string_equal(kb_last_error(), message);
}

static void syntax_errors_point_at_their_column(void **state) {
    expect_error("", KB_EFORMAT, "empty expression at column 1");
    expect_error("   ", KB_EFORMAT, "empty expression at column 4");
    expect_error("mean(x, axis=0", KB_EFORMAT, "expected ')' at column 15");
    expect_error("mean(x axis=0)", KB_EFORMAT, "expected ')' at column 8");
    expect_error("mean(x))", KB_EFORMAT, "unmatched ')' at column 8");
    expect_error(")", KB_EFORMAT, "unexpected ')' at column 1");
    expect_error("mean(x, axis=0, x)", KB_EFORMAT,
                 "positional argument follows keyword argument at column 17");
    expect_error("(1, 2", KB_EFORMAT, "expected ')' at column 6");
    expect_error("(1 2)", KB_EFORMAT, "expected ')' at column 4");
    expect_error("np.(x)", KB_EFORMAT, "expected a name after '.' at column 4");
    expect_error("np.", KB_EFORMAT, "expected a name after '.' at column 4");
    expect_error("x y", KB_EFORMAT, "unexpected 'y' at column 3");
    expect_error("x 1.5", KB_EFORMAT, "unexpected '1.5' at column 3");
    expect_error("mean(,)", KB_EFORMAT, "unexpected ',' at column 6");
    expect_error("f(x,,)", KB_EFORMAT, "unexpected ',' at column 5");
    expect_error("x[0]", KB_EFORMAT, "unexpected '[' at column 2");
    expect_error("[x]", KB_EFORMAT, "unexpected '[' at column 1");
    expect_error("sum(x, axis=)", KB_EFORMAT, "unexpected ')' at column 13");
    expect_error("sum(x, =1)", KB_EFORMAT, "unexpected '=' at column 8");
    expect_error("sum(x, axis=)", KB_EFORMAT, "unexpected ')' at column 13");
    expect_error("a < b < c", KB_EFORMAT,
                 "chained comparison: use parentheses, as in (a < b) & (b < c) at column 7");
    expect_error("a = 1", KB_EFORMAT,
                 "the last statement is an assignment: it gives no value at column 1");
    expect_error("a = 1; True = 2; a", KB_EFORMAT, "cannot assign to True at column 8");
    expect_error(";;", KB_EFORMAT, "empty expression at column 3");
    expect_error("1 +", KB_EFORMAT, "unexpected end of the expression at column 4");
    expect_error("sum(", KB_EFORMAT, "unexpected end of the expression at column 5");
    expect_error("sum(x,", KB_EFORMAT, "unexpected end of the expression at column 7");
    expect_error("x, y", KB_EFORMAT, "unexpected ',' at column 2");
    expect_error("sum(x)(1)", KB_EFORMAT, "unexpected '(' at column 7");
    expect_error("True(x)", KB_EFORMAT, "unexpected '(' at column 5");
    expect_error("(x)(1)", KB_EFORMAT, "unexpected '(' at column 4");
    expect_error("1 * * 2", KB_EFORMAT, "unexpected '*' at column 5");
    /* Lexical errors surface through the parser with their column too. */
    expect_error("sum(x) $", KB_EFORMAT, "unexpected character '$' at column 8");
    expect_error("sum(x, axis=1e)", KB_EFORMAT, "malformed number '1e' at column 13");
    expect_error("sum(x, axis=99999999999999999999)", KB_EFORMAT,
                 "integer '99999999999999999999' is too large at column 13");
    /* The error at the current token wins over one further on. */
    expect_error("sum(x,, $", KB_EFORMAT, "unexpected ',' at column 7");
}

static void long_names_keep_the_column_in_messages(void **state) {
    size_t n = 5000;
    char *src = malloc(n + 3);
    assert_non_null(src);
    memcpy(src, "x ", 2);
    memset(src + 2, 'b', n);
    src[n + 2] = '\0';
    kb_expr *e;
    assert_int_equal(kb_expr_parse(src, &e), KB_EFORMAT);
    const char *msg = kb_last_error();
    assert_true(strlen(msg) < 512);
    assert_true(strncmp(msg, "unexpected 'bbb", 15) == 0);
    const char *tail = "... at column 3";
    assert_string_equal(msg + strlen(msg) - strlen(tail), tail);
    free(src);
}

static void null_and_free_are_safe(void **state) {
    kb_expr *e = (kb_expr *)&e;
    assert_int_equal(kb_expr_parse(NULL, &e), KB_EINVAL);
    assert_null(e);
    kb_expr_free(NULL);
}

/* ---- limits --------------------------------------------------------------------------- */

/* open repeated, then middle, then close repeated: nest("(", 3, "x", ")", 3) is "(((x)))". */
static char *nest(const char *open, size_t opens, const char *middle, const char *close,
                  size_t closes) {
    size_t no = strlen(open), nm = strlen(middle), nc = strlen(close);
    char *s = malloc(no * opens + nm + nc * closes + 1);
    assert_non_null(s);
    char *w = s;
    for (size_t i = 0; i < opens; i++, w += no)
        memcpy(w, open, no);
    memcpy(w, middle, nm);
    w += nm;
    for (size_t i = 0; i < closes; i++, w += nc)
        memcpy(w, close, nc);
    *w = '\0';
    return s;
}

static void expect_too_deep(char *src) {
    kb_expr *e;
    assert_int_equal(kb_expr_parse(src, &e), KB_EUNSUPPORTED);
    assert_null(e);
    assert_true(
        strncmp(kb_last_error(), "expression nested more than 64 levels deep at column ", 53) == 0);
    free(src);
}

static void nesting_is_capped_without_exhausting_the_stack(void **state) {
    /* The top level is one level, each parenthesis one more. */
    kb_expr *e;
    char *ok = nest("(", KB_EXPR_MAX_DEPTH - 1, "x", ")", KB_EXPR_MAX_DEPTH - 1);
    assert_int_equal(kb_expr_parse(ok, &e), KB_OK);
    kb_expr_free(e);
    free(ok);
    char *deep = nest("(", KB_EXPR_MAX_DEPTH, "x", ")", KB_EXPR_MAX_DEPTH);
    assert_int_equal(kb_expr_parse(deep, &e), KB_EUNSUPPORTED);
    assert_string_equal(kb_last_error(), "expression nested more than 64 levels deep at column 65");
    free(deep);

    /* Far deeper than any stack would survive if the parser recursed on. */
    expect_too_deep(nest("(", 300000, "x", ")", 300000));
    expect_too_deep(nest("(", 1000000, "", "", 0));
    expect_too_deep(nest("-", 1000000, "1", "", 0));
    expect_too_deep(nest("sum(", 100000, "x", ")", 100000));
    expect_too_deep(nest("f(a=", 100000, "x", ")", 100000));
    expect_too_deep(nest("(1,", 100000, "x", ")", 100000));
    /* Operator chains are loops in the parser but trees in the graph, as deep as they are
     * long; the graph's height caps them. */
    expect_too_deep(nest("a+", 100000, "a", "", 0));
    expect_too_deep(nest("a*", KB_EXPR_MAX_DEPTH, "a", "", 0));
    ok = nest("a*", KB_EXPR_MAX_DEPTH - 2, "a", "", 0);
    assert_int_equal(kb_expr_parse(ok, &e), KB_OK);
    kb_expr_free(e);
    free(ok);
}

static void length_is_capped(void **state) {
    char *src = malloc(KB_EXPR_MAX_LENGTH + 2);
    assert_non_null(src);
    memset(src, ' ', KB_EXPR_MAX_LENGTH + 1);
    src[KB_EXPR_MAX_LENGTH - 1] = 'x';
    src[KB_EXPR_MAX_LENGTH] = '\0';
    kb_expr *e;
    assert_int_equal(kb_expr_parse(src, &e), KB_OK); /* exactly the limit */
    kb_expr_free(e);
    src[KB_EXPR_MAX_LENGTH] = ' ';
    src[KB_EXPR_MAX_LENGTH + 1] = '\0';
    assert_int_equal(kb_expr_parse(src, &e), KB_EUNSUPPORTED);
    assert_null(e);
    assert_string_equal(kb_last_error(), "expression longer than 1048576 bytes at column 1048577");
    free(src);
}

/* Wide, not deep: many arguments, a long tuple and a long dotted name parse in linear time
 * and are freed in one pass. */
static void wide_expressions_parse(void **state) {
    char *args = nest("x, ", 200000, "x)", "", 0);
    char *call = malloc(strlen(args) + 3);
    assert_non_null(call);
    sprintf(call, "f(%s", args);
    kb_expr *e;
    assert_int_equal(kb_expr_parse(call, &e), KB_OK);
    assert_int_equal(kb_expr_node_at(e, e->root)->nchildren, 200001);
    kb_expr_free(e);
    free(call);
    free(args);

    char *dotted = nest("a.", 300000, "a", "", 0);
    assert_int_equal(kb_expr_parse(dotted, &e), KB_OK);
    assert_int_equal(strlen(kb_expr_node_at(e, e->root)->name), 600001);
    kb_expr_free(e);
    free(dotted);
}

/* Every prefix of valid expressions, and every one with a byte replaced, must parse or fail
 * cleanly: no crash, no leak, a message ending in a column. */
static void parse_or_fail_cleanly(const char *src) {
    kb_expr *e;
    if (kb_expr_parse(src, &e) == KB_OK) {
        char dump[1024];
        kb_expr_dump(e, dump, sizeof dump);
        kb_expr_free(e);
    } else {
        assert_null(e);
        assert_non_null(strstr(kb_last_error(), " at column "));
    }
}

static void damaged_inputs_fail_cleanly(void **state) {
    const char *seeds[] = {
        "np.var(x, axis=(0, -1), ddof=1, keepdims=True)",
        "sum(max(x, axis=1) , keepdims=False) + -2.5e-3 * (a - b) / c",
        "mean(((x)), axis=(), ddof=None)",
    };
    const char replacements[] = "()[],=.+-*/ 0e_xX$\x01";
    for (size_t s = 0; s < sizeof seeds / sizeof seeds[0]; s++) {
        size_t n = strlen(seeds[s]);
        char buf[128];
        for (size_t cut = 0; cut <= n; cut++) {
            memcpy(buf, seeds[s], cut);
            buf[cut] = '\0';
            parse_or_fail_cleanly(buf);
        }
        for (size_t pos = 0; pos < n; pos++) {
            for (size_t r = 0; r < sizeof replacements - 1; r++) {
                memcpy(buf, seeds[s], n + 1);
                buf[pos] = replacements[r];
                parse_or_fail_cleanly(buf);
            }
        }
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(tokens_carry_kinds_and_columns),
        cmocka_unit_test(numbers_follow_python),
        cmocka_unit_test(bad_tokens_are_refused_with_their_column),
        cmocka_unit_test(calls_parse_into_graphs),
        cmocka_unit_test(arithmetic_parses_with_precedence),
        cmocka_unit_test(nodes_carry_columns),
        cmocka_unit_test(syntax_errors_point_at_their_column),
        cmocka_unit_test(long_names_keep_the_column_in_messages),
        cmocka_unit_test(null_and_free_are_safe),
        cmocka_unit_test(nesting_is_capped_without_exhausting_the_stack),
        cmocka_unit_test(length_is_capped),
        cmocka_unit_test(wide_expressions_parse),
        cmocka_unit_test(damaged_inputs_fail_cleanly),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
