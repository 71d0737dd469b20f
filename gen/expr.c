/* afmt-gen: parser of spec expressions (precedence climbing over the re2c
 * lexer).  Grammar, loosest first:
 *   cond   := or ('?' expr ':' cond)?
 *   binary := unary (OP unary)*     with C precedence for || && | ^ & == != < <= > >= << >> + - * / %
 *   unary  := ('-' | '!' | '~') unary | postfix
 *   postfix:= primary ('[' expr ']' | '.' NAME | '(' args ')')*
 *   primary:= INT | STR | NAME | '(' expr ')'
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "expr.h"

typedef struct parser {
    const char *cur;
    token tok;
    char *err;
    size_t err_size;
    int failed;
} parser;

static void advance(parser *p) { p->tok = expr_lex(&p->cur); }

static void perr(parser *p, const char *what)
{
    if (p->failed) return;
    p->failed = 1;
    if (p->tok.kind == TK_END)
        snprintf(p->err, p->err_size, "%s at end of expression", what);
    else
        snprintf(p->err, p->err_size, "%s at '%.*s'", what, (int)p->tok.len, p->tok.start);
}

static expr *node(expr_kind k)
{
    expr *e = calloc(1, sizeof *e);
    if (!e) { fputs("afmt-gen: out of memory\n", stderr); exit(2); }
    e->kind = k;
    return e;
}

static char *dupn(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (!d) { fputs("afmt-gen: out of memory\n", stderr); exit(2); }
    memcpy(d, s, n);
    d[n] = 0;
    return d;
}

static expr *parse_cond(parser *p);

static expr *parse_primary(parser *p)
{
    expr *e;
    switch (p->tok.kind) {
    case TK_INT:
        e = node(E_INT);
        e->ival = p->tok.ival;
        advance(p);
        return e;
    case TK_STR:
        e = node(E_STR);
        e->sval = dupn(p->tok.start + 1, p->tok.len - 2);
        advance(p);
        return e;
    case TK_NAME:
        e = node(E_NAME);
        e->sval = dupn(p->tok.start, p->tok.len);
        advance(p);
        return e;
    case TK_LPAREN:
        advance(p);
        e = parse_cond(p);
        if (p->tok.kind != TK_RPAREN) { perr(p, "expected ')'"); return e; }
        advance(p);
        return e;
    default:
        perr(p, p->tok.kind == TK_ERROR ? "bad token" : "expected a value");
        return NULL;
    }
}

static expr *parse_postfix(parser *p)
{
    expr *e = parse_primary(p);
    while (!p->failed) {
        if (p->tok.kind == TK_LBRACK) {
            expr *i = node(E_INDEX);
            advance(p);
            i->a = e;
            i->b = parse_cond(p);
            if (p->tok.kind != TK_RBRACK) { perr(p, "expected ']'"); e = i; break; }
            advance(p);
            e = i;
        } else if (p->tok.kind == TK_DOT) {
            expr *m = node(E_MEMBER);
            advance(p);
            if (p->tok.kind != TK_NAME) { perr(p, "expected a name after '.'"); m->a = e; e = m; break; }
            m->a = e;
            m->sval = dupn(p->tok.start, p->tok.len);
            advance(p);
            e = m;
        } else if (p->tok.kind == TK_LPAREN && e && e->kind == E_NAME) {
            expr *c = node(E_CALL);
            c->sval = e->sval;
            free(e);
            advance(p);
            if (p->tok.kind != TK_RPAREN) {
                for (;;) {
                    expr *arg = parse_cond(p);
                    expr **grown = realloc(c->args, sizeof *grown * (size_t)(c->nargs + 1));
                    if (!grown) { fputs("afmt-gen: out of memory\n", stderr); exit(2); }
                    c->args = grown;
                    c->args[c->nargs++] = arg;
                    if (p->failed) break;
                    if (p->tok.kind == TK_COMMA) { advance(p); continue; }
                    break;
                }
            }
            if (!p->failed && p->tok.kind != TK_RPAREN) perr(p, "expected ')' after arguments");
            if (!p->failed) advance(p);
            e = c;
        } else {
            break;
        }
    }
    return e;
}

static expr *parse_unary(parser *p)
{
    tok_kind k = p->tok.kind;
    if (k == TK_MINUS || k == TK_BANG || k == TK_TILDE) {
        expr *u = node(E_UNARY);
        u->op = k;
        advance(p);
        u->a = parse_unary(p);
        return u;
    }
    return parse_postfix(p);
}

static int precedence(tok_kind k)
{
    switch (k) {
    case TK_OROR: return 1;
    case TK_ANDAND: return 2;
    case TK_PIPE: return 3;
    case TK_CARET: return 4;
    case TK_AMP: return 5;
    case TK_EQ: case TK_NE: return 6;
    case TK_LT: case TK_LE: case TK_GT: case TK_GE: return 7;
    case TK_SHL: case TK_SHR: return 8;
    case TK_PLUS: case TK_MINUS: return 9;
    case TK_STAR: case TK_SLASH: case TK_PERCENT: return 10;
    default: return 0;
    }
}

static expr *parse_binary(parser *p, int min_prec)
{
    expr *lhs = parse_unary(p);
    while (!p->failed) {
        tok_kind op = p->tok.kind;
        int prec = precedence(op);
        expr *b;
        if (prec == 0 || prec < min_prec) break;
        advance(p);
        b = node(E_BINARY);
        b->op = op;
        b->a = lhs;
        b->b = parse_binary(p, prec + 1);
        lhs = b;
    }
    return lhs;
}

static expr *parse_cond(parser *p)
{
    expr *c = parse_binary(p, 1);
    if (!p->failed && p->tok.kind == TK_QUESTION) {
        expr *q = node(E_COND);
        advance(p);
        q->a = c;
        q->b = parse_cond(p);
        if (p->tok.kind != TK_COLON) { perr(p, "expected ':'"); return q; }
        advance(p);
        q->c = parse_cond(p);
        return q;
    }
    return c;
}

expr *expr_parse(const char *text, char *err, size_t err_size)
{
    parser p;
    expr *e;
    memset(&p, 0, sizeof p);
    p.cur = text;
    p.err = err;
    p.err_size = err_size;
    advance(&p);
    e = parse_cond(&p);
    if (!p.failed && p.tok.kind != TK_END) perr(&p, "unexpected text");
    if (p.failed) { expr_free(e); return NULL; }
    return e;
}

void expr_free(expr *e)
{
    int i;
    if (!e) return;
    expr_free(e->a);
    expr_free(e->b);
    expr_free(e->c);
    for (i = 0; i < e->nargs; i++) expr_free(e->args[i]);
    free(e->args);
    free(e->sval);
    free(e);
}

const char *tok_text(tok_kind k)
{
    switch (k) {
    case TK_PLUS: return "+"; case TK_MINUS: return "-"; case TK_STAR: return "*";
    case TK_SLASH: return "/"; case TK_PERCENT: return "%"; case TK_AMP: return "&";
    case TK_PIPE: return "|"; case TK_CARET: return "^"; case TK_TILDE: return "~";
    case TK_BANG: return "!"; case TK_SHL: return "<<"; case TK_SHR: return ">>";
    case TK_EQ: return "=="; case TK_NE: return "!="; case TK_LT: return "<";
    case TK_LE: return "<="; case TK_GT: return ">"; case TK_GE: return ">=";
    case TK_ANDAND: return "&&"; case TK_OROR: return "||";
    default: return "?";
    }
}
