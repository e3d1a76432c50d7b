/* The expression language's lexer. */
#include <errno.h>
#include <locale.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "expr/fail_at.h"
#include "expr/lexer.h"
#include "util/internal.h"

void kb_lexer_init(kb_lexer *lexer, const char *source) {
    lexer->source = source;
    lexer->pos = 0;
    lexer->parens = 0;
}

/* ctype's answers depend on the locale; the language is ASCII whatever the locale is. */
static bool is_digit(char c) {
    return c >= '0' && c <= '9';
}

static bool is_name_start(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_name_char(char c) {
    return is_name_start(c) || is_digit(c);
}

static kb_status unexpected_character(char c, int column) {
    unsigned char u = (unsigned char)c;
    if (u >= 0x20 && u < 0x7f)
        return kb_expr_fail_at(KB_EFORMAT, column, "unexpected character '%c'", c);
    /* Control and non-ASCII bytes are shown escaped, so the message stays one printable
     * line whatever the input was. */
    return kb_expr_fail_at(KB_EFORMAT, column, "unexpected character '\\x%02x'", u);
}

/* strtod reads the decimal point of the process's locale, which a program embedding kbench
 * may have set to one that uses a comma; numbers in expressions always use a dot. */
static double parse_double(const char *s) {
    locale_t c = kb_c_locale();
    return c ? strtod_l(s, NULL, c) : strtod(s, NULL);
}

/* Python's float and int literals without underscores, prefixes or imaginary parts. The
 * scan is greedy, so "1e" and "2abc" are one malformed token rather than two tokens. */
static kb_status scan_number(const char *s, int column, kb_token *out) {
    size_t n = 0;
    bool is_float = false;
    while (is_digit(s[n]))
        n++;
    if (s[n] == '.') {
        is_float = true;
        n++;
        while (is_digit(s[n]))
            n++;
    }
    bool malformed = false;
    if (s[n] == 'e' || s[n] == 'E') {
        is_float = true;
        n++;
        if (s[n] == '+' || s[n] == '-')
            n++;
        if (!is_digit(s[n]))
            malformed = true;
        while (is_digit(s[n]))
            n++;
    }
    while (is_name_char(s[n]) || s[n] == '.') {
        malformed = true;
        n++;
    }
    out->column = column;
    out->text = s;
    out->length = (int)n;
    if (malformed)
        return kb_expr_fail_at(KB_EFORMAT, column, "malformed number '%.*s'", (int)n, s);

    /* strtod and strtoll stop where the token does: the next character is not part of a
     * number, as the scan above made sure. */
    if (is_float) {
        out->kind = KB_TOKEN_FLOAT;
        out->float_value = parse_double(s); /* overflow gives inf, as Python's 1e999 does */
        return KB_OK;
    }
    errno = 0;
    long long v = strtoll(s, NULL, 10);
    if (errno == ERANGE)
        return kb_expr_fail_at(KB_EFORMAT, column, "integer '%.*s' is too large", (int)n, s);
    out->kind = KB_TOKEN_INT;
    out->int_value = v;
    return KB_OK;
}

/* A one- or two-character operator: the second kind when s[1] is second. */
static kb_token_kind two(const char *s, char second, kb_token_kind one, kb_token_kind pair,
                         kb_token *out) {
    if (s[1] != second)
        return one;
    out->length = 2;
    return pair;
}

/* A quoted string without escapes, as dtype names need: 'float32' or "float32". */
static kb_status scan_string(const char *s, int column, kb_token *out) {
    size_t n = 1;
    while (s[n] && s[n] != s[0] && s[n] != '\n')
        n++;
    if (s[n] != s[0])
        return kb_expr_fail_at(KB_EFORMAT, column, "unterminated string");
    out->kind = KB_TOKEN_STRING;
    out->length = (int)n + 1;
    return KB_OK;
}

kb_status kb_lexer_next(kb_lexer *lexer, kb_token *out) {
    const char *src = lexer->source;
    /* Comments run to the end of the line, as in Python; carriage returns are blanks. */
    for (;;) {
        char c = src[lexer->pos];
        if (c == ' ' || c == '\t' || c == '\r' || (c == '\n' && lexer->parens > 0))
            lexer->pos++;
        else if (c == '#')
            while (src[lexer->pos] && src[lexer->pos] != '\n')
                lexer->pos++;
        else
            break;
    }
    const char *s = src + lexer->pos;
    int column = (int)lexer->pos + 1;
    memset(out, 0, sizeof *out);
    out->column = column;
    out->text = s;
    out->length = 1;

    kb_status st = KB_OK;
    if (is_digit(*s) || (*s == '.' && is_digit(s[1]))) {
        st = scan_number(s, column, out);
    } else if (is_name_start(*s)) {
        size_t n = 1;
        while (is_name_char(s[n]))
            n++;
        out->kind = KB_TOKEN_NAME;
        out->length = (int)n;
    } else {
        switch (*s) {
            case '\0':
                out->kind = KB_TOKEN_END;
                out->length = 0;
                break;
            case '(':
                out->kind = KB_TOKEN_LPAREN;
                break;
            case ')':
                out->kind = KB_TOKEN_RPAREN;
                break;
            case '[':
                out->kind = KB_TOKEN_LBRACKET;
                break;
            case ']':
                out->kind = KB_TOKEN_RBRACKET;
                break;
            case ',':
                out->kind = KB_TOKEN_COMMA;
                break;
            case '=':
                out->kind = two(s, '=', KB_TOKEN_EQUALS, KB_TOKEN_EQEQ, out);
                break;
            case '.':
                out->kind = KB_TOKEN_DOT;
                break;
            case '+':
                out->kind = KB_TOKEN_PLUS;
                break;
            case '-':
                out->kind = KB_TOKEN_MINUS;
                break;
            case '*':
                out->kind = two(s, '*', KB_TOKEN_STAR, KB_TOKEN_DSTAR, out);
                break;
            case '/':
                out->kind = two(s, '/', KB_TOKEN_SLASH, KB_TOKEN_DSLASH, out);
                break;
            case '%':
                out->kind = KB_TOKEN_PERCENT;
                break;
            case '<':
                out->kind = two(s, '=', KB_TOKEN_LT, KB_TOKEN_LE, out);
                break;
            case '>':
                out->kind = two(s, '=', KB_TOKEN_GT, KB_TOKEN_GE, out);
                break;
            case '!':
                if (s[1] != '=')
                    return unexpected_character(*s, column);
                out->kind = KB_TOKEN_NE;
                out->length = 2;
                break;
            case '&':
                out->kind = KB_TOKEN_AMP;
                break;
            case '|':
                out->kind = KB_TOKEN_PIPE;
                break;
            case '~':
                out->kind = KB_TOKEN_TILDE;
                break;
            case ';':
                out->kind = KB_TOKEN_SEMICOLON;
                break;
            case '\n':
                out->kind = KB_TOKEN_NEWLINE;
                break;
            case '\'':
            case '"':
                st = scan_string(s, column, out);
                break;
            default:
                return unexpected_character(*s, column);
        }
    }
    if (st == KB_OK)
        lexer->pos += (size_t)out->length;
    if (out->kind == KB_TOKEN_LPAREN || out->kind == KB_TOKEN_LBRACKET)
        lexer->parens++;
    else if ((out->kind == KB_TOKEN_RPAREN || out->kind == KB_TOKEN_RBRACKET) && lexer->parens > 0)
        lexer->parens--;
    return st;
}

const char *kb_token_kind_describe(kb_token_kind kind) {
    switch (kind) {
        case KB_TOKEN_END:
            return "the end of the expression";
        case KB_TOKEN_NAME:
            return "a name";
        case KB_TOKEN_INT:
            return "an integer";
        case KB_TOKEN_FLOAT:
            return "a number";
        case KB_TOKEN_LPAREN:
            return "'('";
        case KB_TOKEN_RPAREN:
            return "')'";
        case KB_TOKEN_LBRACKET:
            return "'['";
        case KB_TOKEN_RBRACKET:
            return "']'";
        case KB_TOKEN_COMMA:
            return "','";
        case KB_TOKEN_EQUALS:
            return "'='";
        case KB_TOKEN_DOT:
            return "'.'";
        case KB_TOKEN_PLUS:
            return "'+'";
        case KB_TOKEN_MINUS:
            return "'-'";
        case KB_TOKEN_STAR:
            return "'*'";
        case KB_TOKEN_SLASH:
            return "'/'";
        case KB_TOKEN_DSLASH:
            return "'//'";
        case KB_TOKEN_PERCENT:
            return "'%'";
        case KB_TOKEN_DSTAR:
            return "'**'";
        case KB_TOKEN_LT:
            return "'<'";
        case KB_TOKEN_LE:
            return "'<='";
        case KB_TOKEN_GT:
            return "'>'";
        case KB_TOKEN_GE:
            return "'>='";
        case KB_TOKEN_EQEQ:
            return "'=='";
        case KB_TOKEN_NE:
            return "'!='";
        case KB_TOKEN_AMP:
            return "'&'";
        case KB_TOKEN_PIPE:
            return "'|'";
        case KB_TOKEN_TILDE:
            return "'~'";
        case KB_TOKEN_SEMICOLON:
            return "';'";
        case KB_TOKEN_NEWLINE:
            return "a line break";
        case KB_TOKEN_STRING:
            return "a string";
    }
    return "?";
}
