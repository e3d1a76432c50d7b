#ifndef KB_EXPR_LEXER_H
#define KB_EXPR_LEXER_H

#include <stddef.h>
#include <stdint.h>

#include "kbench/error.h"

/* Tokens of the expression language, Python's where they overlap. */
typedef enum kb_token_kind {
    KB_TOKEN_END,    /* the end of the source */
    KB_TOKEN_NAME,   /* identifier: a letter or '_', then letters, digits and '_' */
    KB_TOKEN_INT,    /* decimal digits; the sign is the parser's unary minus */
    KB_TOKEN_FLOAT,  /* 1.5, .5, 1., 1e-3, 2.5E+10 */
    KB_TOKEN_LPAREN, /* ( */
    KB_TOKEN_RPAREN, /* ) */
    KB_TOKEN_LBRACKET,
    KB_TOKEN_RBRACKET,
    KB_TOKEN_COMMA,
    KB_TOKEN_EQUALS,
    KB_TOKEN_DOT, /* np.sum */
    KB_TOKEN_PLUS,
    KB_TOKEN_MINUS,
    KB_TOKEN_STAR,
    KB_TOKEN_SLASH,
    KB_TOKEN_DSLASH,    /* // */
    KB_TOKEN_PERCENT,   /* % */
    KB_TOKEN_DSTAR,     /* ** */
    KB_TOKEN_LT,        /* < */
    KB_TOKEN_LE,        /* <= */
    KB_TOKEN_GT,        /* > */
    KB_TOKEN_GE,        /* >= */
    KB_TOKEN_EQEQ,      /* == */
    KB_TOKEN_NE,        /* != */
    KB_TOKEN_AMP,       /* & */
    KB_TOKEN_PIPE,      /* | */
    KB_TOKEN_TILDE,     /* ~ */
    KB_TOKEN_SEMICOLON, /* ; */
    KB_TOKEN_NEWLINE,   /* a line break: ends a statement, as ';' does */
    KB_TOKEN_STRING,    /* 'float32' or "float32": text and length include the quotes */
} kb_token_kind;

typedef struct kb_token {
    kb_token_kind kind;
    int column;       /* 1-based byte column of the first character */
    const char *text; /* into the source; not NUL-terminated */
    int length;
    int64_t int_value;  /* KB_TOKEN_INT */
    double float_value; /* KB_TOKEN_FLOAT */
} kb_token;

typedef struct kb_lexer {
    const char *source;
    size_t pos;
    int parens; /* '(' and '[' not yet closed: inside them a line break is a blank, as in Python */
} kb_lexer;

/* The source must be NUL-terminated and shorter than KB_EXPR_MAX_LENGTH, so that every
 * column fits an int. */
void kb_lexer_init(kb_lexer *lexer, const char *source);

/* The next token; at the end, KB_TOKEN_END (again on every further call). Fails on a
 * character outside the language, a malformed number such as "1e+" or "2abc", and an
 * integer beyond int64. */
kb_status kb_lexer_next(kb_lexer *lexer, kb_token *out);

/* How a token kind is quoted in messages: "')'", "a name", "the end of the expression". */
const char *kb_token_kind_describe(kb_token_kind kind);

#endif
