/* afmt-gen: the expression language of spec files.
 *
 * Expressions are C-like strings ("elbyte * prod(dims)", "(flags & ~2) == 0")
 * lexed by an re2c lexer (expr_lexer.re) and parsed by a small
 * precedence-climbing parser into this tree.  Names and types are
 * checked while emitting (emit_expr.c reports unknown names, functions and
 * members); code generation lives in emit_*.c.
 */
#ifndef AFMT_GEN_EXPR_TREE_H
#define AFMT_GEN_EXPR_TREE_H

#include <stddef.h>
#include <stdint.h>

typedef enum tok_kind {
    TK_END = 0, TK_ERROR, TK_INT, TK_STR, TK_NAME,
    TK_LPAREN, TK_RPAREN, TK_LBRACK, TK_RBRACK, TK_COMMA, TK_DOT,
    TK_QUESTION, TK_COLON,
    TK_PLUS, TK_MINUS, TK_STAR, TK_SLASH, TK_PERCENT,
    TK_AMP, TK_PIPE, TK_CARET, TK_TILDE, TK_BANG,
    TK_SHL, TK_SHR, TK_EQ, TK_NE, TK_LT, TK_LE, TK_GT, TK_GE,
    TK_ANDAND, TK_OROR
} tok_kind;

typedef struct token {
    tok_kind kind;
    const char *start; /* into the source text */
    size_t len;
    uint64_t ival;     /* TK_INT */
} token;

/* Lex one token starting at *cursor; advances *cursor.  (expr_lexer.re) */
token expr_lex(const char **cursor);

typedef enum expr_kind {
    E_INT, E_STR, E_NAME, E_INDEX, E_MEMBER, E_CALL, E_UNARY, E_BINARY, E_COND
} expr_kind;

/* Static types assigned by the checker. */
typedef enum vtype {
    VT_NONE = 0,
    VT_U,       /* unsigned 64-bit */
    VT_S,       /* signed 64-bit */
    VT_BOOL,
    VT_STR,     /* a text literal or a fixed-size text/bytes field */
    VT_ARRAY,   /* an integer array field (dims) */
    VT_LOOKUP,  /* the result of a type-table lookup */
    VT_PAYLOAD, /* a payload array item (writer-side functions) */
    VT_F        /* a float field's value (a double): compared, finite(), integral() */
} vtype;

struct sym;

typedef struct expr {
    expr_kind kind;
    tok_kind op;
    uint64_t ival;
    char *sval;          /* name, string, function or member name */
    struct expr *a, *b, *c;
    struct expr **args;
    int nargs;
    /* filled by the checker */
    vtype type;
    struct sym *sym;
} expr;

/* Parse text; NULL with a message in err on failure. */
expr *expr_parse(const char *text, char *err, size_t err_size);
void expr_free(expr *e);
const char *tok_text(tok_kind k);

#endif
