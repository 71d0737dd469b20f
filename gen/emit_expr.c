/* afmt-gen: compile spec expressions to checked C.
 *
 * Values are unsigned (U, uint64_t) or signed (S, int64_t) 64-bit
 * integers, truth values, text, or names of arrays/lookups/payloads that only
 * functions accept.  Arithmetic never wraps: + - * << emit a checked helper
 * and a failure naming the expression; a signed value used where an
 * unsigned one is needed must be non-negative or the input is rejected.
 * && || ?: short-circuit, so "ndims > 0 && dims[0] == 1" never reads a dim
 * that is not there.
 */
#include <stdio.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include "emit.h"

static cexpr mk(char *c, vtype t)
{
    cexpr r;
    r.c = c;
    r.t = t;
    r.lit = 0;
    r.bounded = 0;
    r.max = 0;
    return r;
}
static cexpr bad(void) { return mk(xstrdup("0"), VT_NONE); }


/* The words an expression is described by in a local's name. */
static const char *op_word(tok_kind op)
{
    switch (op) {
    case TK_PLUS: return "plus";
    case TK_MINUS: return "minus";
    case TK_STAR: return "times";
    case TK_SLASH: return "div";
    case TK_PERCENT: return "mod";
    case TK_AMP: return "and";
    case TK_PIPE: return "or";
    case TK_CARET: return "xor";
    case TK_SHL: return "shl";
    case TK_SHR: return "shr";
    case TK_EQ: return "eq";
    case TK_NE: return "ne";
    case TK_LT: return "lt";
    case TK_LE: return "le";
    case TK_GT: return "gt";
    case TK_GE: return "ge";
    case TK_ANDAND: return "and";
    case TK_OROR: return "or";
    default: return "op";
    }
}

/* `roundup(x, k) - x`: the padding that takes x to a multiple of k. */
static int is_padding(const expr *e)
{
    const expr *r = e->a;
    return e->op == TK_MINUS && r->kind == E_CALL && strcmp(r->sval, "roundup") == 0 && r->nargs == 2 &&
           r->args[0]->kind == E_NAME && e->b->kind == E_NAME && strcmp(r->args[0]->sval, e->b->sval) == 0;
}

/* What e holds, in words a C name can carry: "dims_product",
 * "header_len_rounded", "ndim_times_8_plus_24". */
static void describe(sbuf *b, const expr *e)
{
    if (!e) { sb_puts(b, "value"); return; }
    switch (e->kind) {
    case E_INT: sb_printf(b, "%llu", (unsigned long long)e->ival); return;
    case E_STR: sb_puts(b, "text"); return;
    case E_NAME: sb_puts(b, e->sval); return;
    case E_MEMBER: describe(b, e->a); sb_printf(b, "_%s", e->sval); return;
    case E_INDEX: describe(b, e->a); sb_puts(b, "_at_"); describe(b, e->b); return;
    case E_CALL:
        if (e->nargs == 0) { sb_puts(b, e->sval); return; }
        if (e->args[0]->kind == E_INT) { sb_printf(b, "%s_", e->sval); describe(b, e->args[0]); return; }
        describe(b, e->args[0]);
        if (strcmp(e->sval, "prod") == 0) sb_puts(b, "_product");
        else if (strcmp(e->sval, "roundup") == 0) sb_puts(b, "_rounded");
        else if (strcmp(e->sval, "sizeof") == 0) sb_puts(b, "_size");
        else if (strcmp(e->sval, "ceil_div") == 0) { sb_puts(b, "_div_"); describe(b, e->args[1]); sb_puts(b, "_up"); }
        else sb_printf(b, "_%s", e->sval);
        return;
    case E_UNARY:
        sb_puts(b, e->op == TK_BANG ? "not_" : e->op == TK_TILDE ? "inverted_" : "minus_");
        describe(b, e->a);
        return;
    case E_BINARY: {
        if (is_padding(e)) { describe(b, e->b); sb_puts(b, "_padding"); return; }
        /* a literal goes last where the order does not matter */
        int swap = (e->op == TK_PLUS || e->op == TK_STAR) && e->a->kind == E_INT && e->b->kind != E_INT;
        describe(b, swap ? e->b : e->a);
        sb_printf(b, "_%s_", op_word(e->op));
        describe(b, swap ? e->a : e->b);
        return;
    }
    case E_COND: describe(b, e->a); sb_puts(b, "_choice"); return;
    }
}

/* Prefixes of the names the emitters give a spec name's own locals
 * (v_<field>, o_<field>, n_<array>, ...): a described name never starts
 * with one, so it cannot meet them. */
static int emitter_prefix(const char *s)
{
    const char *u = strchr(s, '_');
    return u && u - s <= 2;
}

char *local_name(emitter *m, const char *base)
{
    local_set *ls = &m->locals;
    char *name;
    int n;
    if (!base[0] || (base[0] >= '0' && base[0] <= '9') || emitter_prefix(base)) name = xprintf("x%s", base);
    else name = xstrdup(base);
    n = strindex_get(&ls->next, name);
    if (n < 1) n = 1;
    for (;;) {
        char *try = n == 1 ? xstrdup(name) : xprintf("%s_%d", name, n);
        if (strindex_get(&ls->index, try) < 0) {
            ls->names = realloc(ls->names, (size_t)(ls->n + 1) * sizeof *ls->names);
            if (!ls->names) abort();
            ls->names[ls->n] = try;
            strindex_put(&ls->index, try, ls->n++);
            if (strindex_get(&ls->next, name) < 0) {
                ls->bases = realloc(ls->bases, (size_t)(ls->nbases + 1) * sizeof *ls->bases);
                if (!ls->bases) abort();
                ls->bases[ls->nbases++] = name;
                strindex_put(&ls->next, name, n + 1);
            } else {
                strindex_put(&ls->next, name, n + 1);
                free(name);
            }
            return xstrdup(try);
        }
        free(try);
        m->tries++;
        n++;
    }
}

void local_set_free(local_set *ls)
{
    while (ls->n > 0) free(ls->names[--ls->n]);
    free(ls->names);
    while (ls->nbases > 0) free(ls->bases[--ls->nbases]);
    free(ls->bases);
    strindex_free(&ls->index);
    strindex_free(&ls->next);
    memset(ls, 0, sizeof *ls);
}

char *expr_words(const expr *e, size_t max)
{
    sbuf b = {0};
    char *p;
    describe(&b, e);
    for (p = b.s; p && *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9'))) *p = '_';
    if (b.s && strlen(b.s) <= max) return b.s;
    sb_free(&b);
    return NULL;
}

/* A local holding the value of e: named after e when that is short,
 * else after what it is (noun). */
char *expr_local(emitter *m, const expr *e, const char *noun)
{
    char *words = expr_words(e, 32), *name = local_name(m, words ? words : noun);
    free(words);
    return name;
}

/* A local for the value of the C expression c converted ("unsigned"):
 * "<field>_unsigned" for a field's value or a named local. */
static char *converted_local(emitter *m, const char *c, const char *how)
{
    const char *base = is_field_value(c) ? c + 2 : c;
    char *name, *r;
    size_t i;
    for (i = 0; base[i]; i++)
        if (!(base[i] == '_' || (base[i] >= 'a' && base[i] <= 'z') || (base[i] >= 'A' && base[i] <= 'Z') || (base[i] >= '0' && base[i] <= '9'))) break;
    name = base[i] || !i ? xprintf("%s_value", how) : xprintf("%s_%s", base, how);
    r = local_name(m, name);
    free(name);
    return r;
}

/* A field's value: `v_<name>`, a const local of the code being emitted
 * (so a proof about it lasts to the end of its block). */
int is_field_value(const char *c)
{
    if (strncmp(c, "v_", 2) != 0 || !c[2]) return 0;
    for (c += 2; *c; c++)
        if (!(*c == '_' || (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9')))
            return 0;
    return 1;
}

static char *to_u(emitter *m, const blame *bl, cexpr x, const char *text)
{
    if (x.t == VT_U) return x.c;
    if (x.t == VT_BOOL) { /* 0 or 1, as a number (C compilers warn of ~, << or > on a truth value) */
        char *c = xprintf("afmt_u64_of_truth(%s)", x.c);
        free(x.c);
        return c;
    }
    if (x.t == VT_S && nonneg_known(m, x.c)) {
        char *c = xprintf("(uint64_t)%s", x.c);
        free(x.c);
        return c;
    }
    if (x.t == VT_S) {
        char *t = converted_local(m, x.c, "unsigned");
        char *mt = c_format_body(text ? text : "?");
        char *fmt = xprintf("\"`%s` is negative (%%\" PRId64 \")\"", mt);
        char *cond = xprintf("%s < 0", x.c);
        emit_fail_if(m, cond, bl, "negative", LEN_NONE, fmt, x.c);
        free(cond);
        line(m, "const uint64_t %s = (uint64_t)(%s);", t, x.c);
        if (is_field_value(x.c)) nonneg_note(m, x.c);
        free(mt);
        free(fmt);
        free(x.c);
        return t;
    }
    if (x.t == VT_F)
        gen_error(m, NULL, "`%s`: a float cannot be used as an integer (compare it, or test it with finite() "
                           "or integral())", text ? text : "?");
    else if (x.t != VT_NONE) /* VT_NONE: the cause was reported already */
        gen_error(m, NULL, "`%s`: %s cannot be used as a number", text ? text : "?",
                  x.t == VT_STR ? "text" : x.t == VT_ARRAY ? "an array" : "this value");
    return x.c;
}

static char *to_s(emitter *m, const blame *bl, cexpr x, const char *text)
{
    if (x.t == VT_S) return x.c;
    if (x.t == VT_U && x.lit && strncmp(x.c, "UINT64_C(", 9) == 0) {
        /* a literal <= INT64_MAX (checked by the caller): write it signed */
        char *c = xprintf("INT64_C(%s", x.c + 9);
        free(x.c);
        return c;
    }
    if (x.t == VT_U && x.lit) return xprintf("(int64_t)%s", x.c);
    if (x.t == VT_U && x.bounded && x.max <= (uint64_t)INT64_MAX) { /* fits: no check (a rank) */
        char *c = xprintf("(int64_t)%s", x.c);
        free(x.c);
        return c;
    }
    if (x.t == VT_BOOL) { /* 0 or 1: fits */
        char *c = xprintf("(int64_t)afmt_u64_of_truth(%s)", x.c);
        free(x.c);
        return c;
    }
    if (x.t == VT_U) {
        char *t = converted_local(m, x.c, "signed");
        char *mt = c_format_body(text ? text : "?");
        char *fmt = xprintf("\"`%s` is too large for a signed value (%%\" PRIu64 \")\"", mt);
        char *cond = xprintf("%s > (uint64_t)INT64_MAX", x.c);
        emit_fail_if(m, cond, bl, "overflow", LEN_NONE, fmt, x.c);
        free(cond);
        line(m, "const int64_t %s = (int64_t)(%s);", t, x.c);
        free(mt);
        free(fmt);
        free(x.c);
        return t;
    }
    if (x.t == VT_F)
        gen_error(m, NULL, "`%s`: a float cannot be used as an integer (compare it, or test it with finite() "
                           "or integral())", text ? text : "?");
    else if (x.t != VT_NONE)
        gen_error(m, NULL, "`%s`: %s cannot be used as a number", text ? text : "?", x.t == VT_STR ? "text" : "this value");
    return x.c;
}

static char *to_bool(emitter *m, cexpr x, const char *text)
{
    if (x.t == VT_BOOL) return x.c;
    if (x.t == VT_U || x.t == VT_S) {
        char *c = xprintf("(%s != 0)", x.c);
        free(x.c);
        return c;
    }
    if (x.t != VT_NONE)
        gen_error(m, NULL, "`%s`: %s is not a truth value or integer", text ? text : "?",
                  x.t == VT_STR ? "text" : x.t == VT_F ? "a float" : "this value");
    return x.c;
}

char *emit_u64(emitter *m, const blame *bl, expr *e, const char *text) { return to_u(m, bl, emit_expr(m, bl, e, text), text); }
char *emit_bool(emitter *m, const blame *bl, expr *e, const char *text) { return to_bool(m, emit_expr(m, bl, e, text), text); }

static int lit_fits_signed(cexpr x) { return x.lit && x.t == VT_U; }

/* Choose signed arithmetic when both sides are signed, or one is signed and
 * the other a literal. */
static int want_signed(cexpr a, cexpr b)
{
    return (a.t == VT_S && (b.t == VT_S || lit_fits_signed(b))) || (b.t == VT_S && lit_fits_signed(a));
}

static cexpr checked_arith(emitter *m, const blame *bl, const expr *e, cexpr a, cexpr b, const char *text)
{
    const tok_kind op = e->op;
    const char *fn = op == TK_PLUS ? "add" : op == TK_MINUS ? "sub" : "mul";
    char *mt = c_format_body(text ? text : "?");
    char *t = expr_local(m, e, op == TK_PLUS ? "sum" : op == TK_MINUS ? "difference" : "product");
    if (want_signed(a, b)) {
        char *ac = to_s(m, bl, a, text), *bc = to_s(m, bl, b, text);
        char *cond = xprintf("afmt_checked_%s_i64(%s, %s, &%s)", fn, ac, bc, t);
        line(m, "int64_t %s;", t);
        emit_overflow_if(m, cond, bl, text);
        free(ac); free(bc); free(cond); free(mt);
        return mk(t, VT_S);
    } else {
        char *ac = to_u(m, bl, a, text), *bc = to_u(m, bl, b, text);
        char *cond = xprintf("afmt_checked_%s_u64(%s, %s, &%s)", fn, ac, bc, t);
        line(m, "uint64_t %s;", t);
        if (op == TK_MINUS) {
            char *fmt = xprintf("\"`%s` is below zero\"", mt);
            emit_fail_if(m, cond, bl, "negative", LEN_NONE, fmt, NULL);
            free(fmt);
        } else {
            emit_overflow_if(m, cond, bl, text);
        }
        free(ac); free(bc); free(cond); free(mt);
        return mk(t, VT_U);
    }
}

/* The value of an integer literal operand, or -1 when it is not one. */
static int lit_value(expr *e, uint64_t *v)
{
    if (e && e->kind == E_INT) { *v = e->ival; return 1; }
    return 0;
}

/* Is C text c a constant expression other than one literal (only
 * literals, UINT64_MAX and the like, and operators)?  C compilers fold
 * such an expression and then warn of what it compares or shifts by. */
static int const_expr_c(const char *c)
{
    static const char *const ok[] = {"UINT64_C", "INT64_C", "UINT64_MAX", "INT64_MAX", "INT64_MIN", "AFMT_RANK_CAP",
                                     "uint64_t", "int64_t"};
    const char *p = c;
    int ops = 0;
    while (*p) {
        if (isalpha((unsigned char)*p) || *p == '_') {
            const char *w = p;
            size_t k, n;
            int known = 0;
            while (isalnum((unsigned char)*p) || *p == '_') p++;
            n = (size_t)(p - w);
            for (k = 0; k < sizeof ok / sizeof ok[0]; k++)
                if (strlen(ok[k]) == n && memcmp(w, ok[k], n) == 0) known = 1;
            if (!known) return 0;
        } else {
            if (strchr("+-*/%<>=!&|^~?:", *p)) ops++;
            p++;
        }
    }
    return ops > 0 || strstr(c, "UINT64_MAX") != NULL || strstr(c, "AFMT_RANK_CAP") != NULL;
}

/* Is C text c an integer literal (UINT64_C(5), INT64_C(-5), ...)? */
static int literal_c(const char *c)
{
    static const char *const prefix[] = {"UINT64_C(", "INT64_C(", "(uint64_t)INT64_C(", "(int64_t)UINT64_C("};
    size_t k, n;
    for (k = 0; k < sizeof prefix / sizeof prefix[0]; k++) {
        n = strlen(prefix[k]);
        if (strncmp(c, prefix[k], n) != 0) continue;
        c += n;
        if (*c == '-') c++;
        n = strspn(c, "0123456789");
        return n > 0 && strcmp(c + n, ")") == 0;
    }
    return 0;
}

/* Is C text c the C of `true` or `false`? */
static int truth_literal_c(const char *c)
{
    return strcmp(c, "1") == 0 || strcmp(c, "0") == 0;
}

/* Is C text c a zero constant? */
static int zero_c(const char *c)
{
    return strcmp(c, "UINT64_C(0)") == 0 || strcmp(c, "INT64_C(0)") == 0 || strcmp(c, "(int64_t)UINT64_C(0)") == 0 ||
           strcmp(c, "0") == 0;
}

static cexpr divmod(emitter *m, const blame *bl, tok_kind op, cexpr a, cexpr b, const char *text, expr *eb)
{
    uint64_t lv = 0;
    int const_divisor = lit_value(eb, &lv) && lv != 0; /* no run-time zero (or -1) check needed */
    char *mt = c_format_body(text ? text : "?");
    char *fmt = xprintf("\"division by zero in `%s`\"", mt);
    cexpr r;
    /* a divisor that is not a literal is tested first, then divided by
     * through afmt_div_* (afmt_gen_expr.h): C compilers do not fold the
     * spec's constants into a division by zero they refuse under -Werror */
    if (want_signed(a, b)) {
        char *ac = to_s(m, bl, a, text), *bc = to_s(m, bl, b, text);
        char *ofmt = xprintf("\"`%s` overflows 64 bits\"", mt);
        if (!const_divisor) {
            line(m, "if (%s == 0) {", bc);
            m->indent++; emit_fail(m, bl, "divzero", LEN_NONE, fmt, NULL); m->indent--;
            line(m, "}");
            line(m, "if (%s == INT64_MIN && %s == -1) {", ac, bc);
            m->indent++; emit_fail(m, bl, "overflow", LEN_NONE, ofmt, NULL); m->indent--;
            line(m, "}");
        }
        if (const_divisor) r = mk(xprintf("(%s %s %s)", ac, op == TK_SLASH ? "/" : "%", bc), VT_S);
        else r = mk(xprintf("afmt_%s_i64(%s, %s)", op == TK_SLASH ? "div" : "mod", ac, bc), VT_S);
        free(ac); free(bc); free(ofmt);
    } else {
        char *ac = to_u(m, bl, a, text), *bc = to_u(m, bl, b, text);
        if (!const_divisor) {
            line(m, "if (%s == 0) {", bc);
            m->indent++; emit_fail(m, bl, "divzero", LEN_NONE, fmt, NULL); m->indent--;
            line(m, "}");
        }
        if (const_divisor) r = mk(xprintf("(%s %s %s)", ac, op == TK_SLASH ? "/" : "%", bc), VT_U);
        else r = mk(xprintf("afmt_%s_u64(%s, %s)", op == TK_SLASH ? "div" : "mod", ac, bc), VT_U);
        free(ac); free(bc);
    }
    free(mt); free(fmt);
    return r;
}

/* Raw 64-bit pattern of an integer, for bitwise operators. */
static char *bits_of(emitter *m, const blame *bl, cexpr x, const char *text)
{
    if (x.t == VT_S) { char *c = xprintf("(uint64_t)%s", x.c); free(x.c); return c; }
    return to_u(m, bl, x, text);
}

/* Is C text c one identifier (a local, a field's value)? */
static int c_ident(const char *c)
{
    const char *p = c;
    if (!(isalpha((unsigned char)*p) || *p == '_')) return 0;
    while (isalnum((unsigned char)*p) || *p == '_') p++;
    return *p == 0;
}

/* a o b of C texts: a comparison of a value with itself (`x == x` in a
 * spec) is its known result, since compilers warn of self-comparisons. */
static cexpr cmp_c(tok_kind op, const char *o, const char *a, const char *b)
{
    if (strcmp(a, b) == 0 && strncmp(a, "UINT64_C(", 9) != 0 && strncmp(a, "INT64_C(", 8) != 0)
        return mk(xprintf("((void)(%s), %d)", a, op == TK_EQ || op == TK_LE || op == TK_GE), VT_BOOL);
    return mk(xprintf("(%s %s %s)", a, o, b), VT_BOOL);
}

/* c (a constant expression, freed) through afmt_u64_const / afmt_i64_const
 * (afmt_gen_expr.h), which compilers do not fold into the comparison. */
static char *hide_const(char *c, int is_signed)
{
    char *r = xprintf("afmt_%s_const(%s)", is_signed ? "i64" : "u64", c);
    free(c);
    return r;
}

/* An integer literal a float can be compared with: n or -n, n at most
 * 2^53 (every such integer is a double exactly); its C text as a double. */
static char *float_literal(const expr *e)
{
    const int neg = e->kind == E_UNARY && e->op == TK_MINUS;
    const expr *n = neg ? e->a : e;
    if (n->kind != E_INT || n->ival > (UINT64_C(1) << 53)) return NULL;
    return xprintf("%s%llu.0", neg ? "-" : "", (unsigned long long)n->ival);
}

/* A comparison with a float: both floats, or a float and an integer
 * literal (float_literal), compared as IEEE-754 doubles (NaN is unequal
 * to everything, itself included; -0 equals 0).  Any other integer could
 * round on its way to a double, so the spec is refused. */
static cexpr compare_float(emitter *m, tok_kind op, cexpr a, cexpr b, expr *ea, expr *eb, const char *text)
{
    char *ac = a.t == VT_F ? xstrdup(a.c) : float_literal(ea);
    char *bc = b.t == VT_F ? xstrdup(b.c) : float_literal(eb);
    cexpr r;
    if (!ac || !bc) {
        gen_error(m, NULL, "`%s`: a float is compared with a float or an integer literal of at most 2^53 in "
                           "magnitude (another integer could round on its way to a float)", text);
        r = bad();
    } else {
        r = mk(xprintf("(%s %s %s)", ac, tok_text(op), bc), VT_BOOL);
    }
    free(ac); free(bc); free(a.c); free(b.c);
    return r;
}

static cexpr compare(emitter *m, const blame *bl, tok_kind op, cexpr a, cexpr b, expr *ea, expr *eb, const char *text)
{
    const char *o = tok_text(op);
    if (a.t == VT_F || b.t == VT_F) return compare_float(m, op, a, b, ea, eb, text);
    /* text field == "literal" */
    if (a.t == VT_STR || b.t == VT_STR) {
        cexpr f = a.t == VT_STR && ea->kind != E_STR ? a : b;
        expr *le = ea->kind == E_STR ? ea : eb->kind == E_STR ? eb : NULL;
        expr *fe = le == ea ? eb : ea;
        sym *y = fe->kind == E_NAME ? sym_find(m, fe->sval) : NULL;
        char *padded, *q, *c;
        size_t n;
        if ((op == TK_EQ || op == TK_NE) && le && y && y->kind == SY_STR && !m->writer) {
            /* a string's content, compared by its bytes */
            n = strlen(le->sval);
            q = c_quote(le->sval, n);
            c = xprintf("(%safmt_str_eq(c, %s + %d, %s, %s, %zu))", op == TK_NE ? "!" : "", y->off, y->width, y->c, q, n);
            free(q);
            return mk(c, VT_BOOL);
        }
        if ((op == TK_EQ || op == TK_NE) && le && y && y->kind == SY_STR && m->writer) {
            /* the writer's string: its length and bytes (y->elem) */
            n = strlen(le->sval);
            q = c_quote(le->sval, n);
            c = xprintf("(%s(%s == %zu && memcmp(%s, %s, %zu) == 0))", op == TK_NE ? "!" : "", y->c, n, y->elem, q, n);
            free(q);
            return mk(c, VT_BOOL);
        }
        if ((op != TK_EQ && op != TK_NE) || !le || !y || y->kind != SY_TEXT) {
            gen_error(m, NULL, "text can only be compared with == or != between a text field and a literal in `%s`", text);
            return bad();
        }
        n = strlen(le->sval);
        if ((int)n > y->size) {
            gen_error(m, NULL, "\"%s\" is longer than field '%s' (%d bytes)", le->sval, y->name, y->size);
            return bad();
        }
        padded = xcalloc((size_t)y->size + 1, 1);
        memcpy(padded, le->sval, n);
        q = c_quote(padded, (size_t)y->size);
        c = xprintf("(memcmp(%s, %s, %d) %s 0)", f.c, q, y->size, o);
        free(padded); free(q);
        return mk(c, VT_BOOL);
    }
    if (a.t != VT_BOOL && const_expr_c(a.c)) a.c = hide_const(a.c, a.t == VT_S);
    if (b.t != VT_BOOL && const_expr_c(b.c)) b.c = hide_const(b.c, b.t == VT_S);
    /* K == (x & C) with literals K and C: gcc calls it always false (!=
     * always true) when K has bits outside C, and refuses it under -Werror
     * (spec fuzzer seed 1202969); a spec may say it, so K (not 0, which
     * has no bits outside any C) is hidden */
    if ((op == TK_EQ || op == TK_NE) && a.t != VT_BOOL && b.t != VT_BOOL) {
        if (literal_c(a.c) && !zero_c(a.c) && strstr(b.c, " & ")) a.c = hide_const(a.c, a.t == VT_S);
        else if (literal_c(b.c) && !zero_c(b.c) && strstr(a.c, " & ")) b.c = hide_const(b.c, b.t == VT_S);
    }
    if (a.t == VT_BOOL && b.t == VT_BOOL) {
        cexpr r;
        /* a constant truth compared with another ((3 <= 5) < (x != 6)):
         * gcc's "comparison of constant '1' with boolean expression is
         * always false" (-Werror=bool-compare, seed 910689); as numbers
         * through afmt_u64_of_truth, which compilers do not fold */
        /* the same for a literal truth ((x > y) > true is `> 1`: seed 1503095) */
        if (const_expr_c(a.c) || const_expr_c(b.c) || truth_literal_c(a.c) || truth_literal_c(b.c)) {
            char *ac = xprintf("afmt_u64_of_truth(%s)", a.c), *bc = xprintf("afmt_u64_of_truth(%s)", b.c);
            r = cmp_c(op, o, ac, bc);
            free(ac); free(bc);
        } else {
            r = cmp_c(op, o, a.c, b.c);
        }
        free(a.c); free(b.c);
        return r;
    }
    if (want_signed(a, b)) {
        char *ac = to_s(m, bl, a, text), *bc = to_s(m, bl, b, text);
        cexpr r = cmp_c(op, o, ac, bc);
        free(ac); free(bc);
        return r;
    }
    if (a.t == VT_S && b.t == VT_U) {
        cexpr r = mk(xprintf("(afmt_cmp_i64_u64(%s, %s) %s 0)", a.c, b.c, o), VT_BOOL);
        free(a.c); free(b.c);
        return r;
    }
    if (a.t == VT_U && b.t == VT_S) {
        cexpr r = mk(xprintf("(0 %s afmt_cmp_i64_u64(%s, %s))", o, b.c, a.c), VT_BOOL);
        free(a.c); free(b.c);
        return r;
    }
    {
        char *ac = to_u(m, bl, a, text), *bc = to_u(m, bl, b, text);
        cexpr r;
        /* an unsigned value is never below zero: say so without a
         * comparison compilers warn about */
        if (((eb->kind == E_INT && eb->ival == 0) || zero_c(bc)) && (op == TK_GE || op == TK_LT))
            r = mk(xprintf("((void)(%s), %d)", ac, op == TK_GE), VT_BOOL);
        else if (((ea->kind == E_INT && ea->ival == 0) || zero_c(ac)) && (op == TK_LE || op == TK_GT))
            r = mk(xprintf("((void)(%s), %d)", bc, op == TK_LE), VT_BOOL); /* 0 <= x */
        else
            r = cmp_c(op, o, ac, bc);
        free(ac); free(bc);
        return r;
    }
}

static sym *array_arg(emitter *m, expr *e, const char *fn, const char *text)
{
    sym *y = e && e->kind == E_NAME ? sym_find(m, e->sval) : NULL;
    if (e && e->kind == E_NAME && !y) {
        gen_error(m, NULL, "unknown name '%s' in `%s` (names must be defined before use)", e->sval, text);
        return NULL;
    }
    if (!y || y->kind != SY_ARRF) {
        gen_error(m, NULL, "%s() takes the name of an array field in `%s`", fn, text);
        return NULL;
    }
    return y;
}

static sym *payload_arg(emitter *m, expr *e, const char *fn, const char *text)
{
    sym *y = e && e->kind == E_NAME ? sym_find(m, e->sval) : NULL;
    if (!y || y->kind != SY_PAYLOAD) {
        gen_error(m, NULL, "%s() takes the name of an array item in `%s`", fn, text);
        return NULL;
    }
    if (!m->writer) {
        gen_error(m, NULL, "%s() is only available in \"write\" expressions (`%s`)", fn, text);
        return NULL;
    }
    return y;
}

/* The built-in functions of expressions (spec/LANGUAGE.md), one emitter
 * each; the dispatcher (call) has checked the number of arguments. */
typedef cexpr (*builtin_emit)(emitter *m, const blame *bl, expr *e, const char *text);

/* prod(array) and sum(array) of an array field: computed (and its
 * failures reported) once per block. */
static cexpr fn_reduce(emitter *m, const blame *bl, expr *e, const char *text)
{
    const char *fn = e->sval;
    sym *y = array_arg(m, e->args[0], fn, text);
    char *key, *t, *base, *mt, *fmt;
    const char *have;
    if (!y) return bad();
    key = xprintf("%s(%s@%s)", fn, y->c, m->writer ? y->count : y->off);
    have = known_find(m, key);
    if (have) {
        free(key);
        return mk(xstrdup(have), VT_U);
    }
    base = xprintf("%s_%s", y->name, strcmp(fn, "prod") == 0 ? "product" : "sum");
    t = local_name(m, base);
    free(base);
    mt = c_format_body(text ? text : "?");
    fmt = xprintf("\"`%s` overflows 64 bits\"", mt);
    line(m, "uint64_t %s;", t);
    if (m->writer) {
        char *cond = xprintf("!afmt_u64s_%s(%s, %s, &%s)", fn, y->c, y->count, t);
        emit_overflow_if(m, cond, bl, text);
        free(cond);
    } else {
        /* one call checks and reports: a negative element blamed on
         * itself, an overflow on the expression (bl) */
        char *field = c_quote(bl->field, strlen(bl->field));
        char *q = c_quote(text ? text : "?", strlen(text ? text : "?"));
        char *call = xprintf("afmt_field_%s_c(c, \"%s\", %s, %s, %d, %d, %s, %s, %s, %s, %s, &%s)", fn, y->name,
                             y->off, y->count, y->width, y->is_signed, big_c(m, y->big), field, bl->index, bl->offset, q, t);
        decl_use(m, bl->off_decl);
        emit_if_stmt(m, call, "return -1;");
        free(field); free(q); free(call);
    }
    known_note(m, key, t);
    free(key); free(mt); free(fmt);
    return mk(t, VT_U);
}

static cexpr fn_len(emitter *m, const blame *bl, expr *e, const char *text)
{
    sym *y = e->args[0]->kind == E_NAME ? sym_peek(m, e->args[0]->sval) : NULL;
    if (y && y->kind == SY_STR) {
        /* a string's length in bytes */
        (void)bl;
        y = sym_find(m, e->args[0]->sval);
        return mk(xstrdup(y->c), VT_U);
    }
    y = array_arg(m, e->args[0], e->sval, text);
    (void)bl;
    return y ? mk(xstrdup(y->count), VT_U) : bad();
}

static cexpr fn_sizeof(emitter *m, const blame *bl, expr *e, const char *text)
{
    sym *y = e->args[0]->kind == E_NAME ? sym_find(m, e->args[0]->sval) : NULL;
    (void)bl;
    if (!y || y->kind != SY_LOOKUP) { gen_error(m, NULL, "sizeof() takes the name of a lookup in `%s`", text); return bad(); }
    return mk(xprintf("%s.size", y->c), VT_U);
}

/* roundup(a, k) and ceil_div(a, k) */
static cexpr fn_round(emitter *m, const blame *bl, expr *e, const char *text)
{
    const char *fn = e->sval;
    char *t = expr_local(m, e, fn), *mt = c_format_body(text ? text : "?");
    char *fmt = xprintf("\"`%s` overflows 64 bits or divides by zero\"", mt);
    char *a = emit_u64(m, bl, e->args[0], text), *k = emit_u64(m, bl, e->args[1], text);
    line(m, "uint64_t %s;", t);
    {
        char *cond = strcmp(fn, "roundup") == 0 ? xprintf("afmt_checked_roundup_u64(%s, %s, &%s)", a, k, t)
                                                : xprintf("%s == 0", k);
        emit_fail_if(m, cond, bl, "overflow", LEN_NONE, fmt, NULL);
        free(cond);
    }
    if (strcmp(fn, "ceil_div") == 0) line(m, "%s = afmt_ceil_div_u64(%s, %s);", t, a, k);
    free(a); free(k); free(fmt); free(mt);
    return mk(t, VT_U);
}

static cexpr fn_minmax(emitter *m, const blame *bl, expr *e, const char *text)
{
    char *a = emit_u64(m, bl, e->args[0], text), *b = emit_u64(m, bl, e->args[1], text);
    int is_min = strcmp(e->sval, "min") == 0;
    cexpr r;
    /* no comparison C compilers call always true or false: min(x, x),
     * min(0, x), max(0, x) are known */
    if (strcmp(a, b) == 0) r = mk(xstrdup(a), VT_U);
    else if (zero_c(a) || zero_c(b)) r = is_min ? mk(xprintf("((void)(%s), UINT64_C(0))", zero_c(a) ? b : a), VT_U)
                                                : mk(xstrdup(zero_c(a) ? b : a), VT_U);
    else {
        /* a constant expression compilers fold (min(x, 0 / 4) is x < 0)
         * is compared through afmt_u64_const, as compare() does */
        char *ca = const_expr_c(a) ? hide_const(xstrdup(a), 0) : xstrdup(a);
        char *cb = const_expr_c(b) ? hide_const(xstrdup(b), 0) : xstrdup(b);
        r = mk(xprintf("(%s %s %s ? %s : %s)", ca, is_min ? "<" : ">", cb, a, b), VT_U);
        free(ca); free(cb);
    }
    free(a); free(b);
    return r;
}

static cexpr fn_peek(emitter *m, const blame *bl, expr *e, const char *text)
{
    char *k;
    cexpr r;
    if (m->writer) {
        gen_error(m, NULL, "peek() reads input and cannot be used when writing (`%s`): a switch on it needs a \"write\" "
                           "(the case written)", text);
        return bad();
    }
    k = emit_u64(m, bl, e->args[0], text);
    r = mk(xprintf("(uint64_t)afmt_src_peek(c->src, %s, c->pos + %s)", m->end, k), VT_U);
    free(k);
    return r;
}

static cexpr fn_skipped_comments(emitter *m, const blame *bl, expr *e, const char *text)
{
    (void)bl; (void)e;
    /* a writer writes no comments */
    if (m->writer) return mk(xstrdup("(uint64_t)0"), VT_U);
    if (!m->comments_var) {
        gen_error(m, NULL, "skipped_comments() is only defined inside a repeat with \"skip\": "
                           "\"whitespace and -- comments\" (`%s`)", text);
        return bad();
    }
    return mk(xprintf("%s", m->comments_var), VT_U);
}

/* offset() and remaining() (a stream: unknown until its end) */
static cexpr fn_position(emitter *m, const blame *bl, expr *e, const char *text)
{
    (void)bl;
    if (m->writer && strcmp(e->sval, "offset") == 0) return mk(xstrdup("sink->written"), VT_U); /* bytes written so far */
    if (m->writer) {
        gen_error(m, NULL, "%s() describes input and cannot be used when writing (`%s`)", e->sval, text);
        return bad();
    }
    return strcmp(e->sval, "offset") == 0 ? mk(xstrdup("c->pos"), VT_U) : mk(xprintf("(%s - c->pos)", m->end), VT_U);
}

/* rank(), count(), nbytes(), elsize() and sparse() of an array item */
static cexpr fn_payload(emitter *m, const blame *bl, expr *e, const char *text)
{
    const char *fn = e->sval;
    sym *y = payload_arg(m, e->args[0], fn, text);
    (void)bl;
    if (!y) return bad();
    if (strcmp(fn, "rank") == 0) { /* at most AFMT_RANK_CAP: no range check (gcc: always false) */
        cexpr r = mk(xprintf("(uint64_t)%s->rank", y->c), VT_U);
        r.bounded = 1;
        r.max = 255;
        return r;
    }
    if (strcmp(fn, "count") == 0) return mk(xprintf("%s->count", y->c), VT_U);
    if (strcmp(fn, "elsize") == 0) return mk(xprintf("%s->elsize", y->c), VT_U);
    if (strcmp(fn, "sparse") == 0) return mk(xprintf("(%s->encoding == AFMT_ENC_CSR)", y->c), VT_BOOL);
    if (!y->nbytes_decl) { /* C that would read a size no code computed */
        gen_error(m, NULL, "nbytes(%s) in `%s`: the writer computes the size of %s only where it writes it (not "
                           "outside its switch case or repetition, and not for a columns table)", y->name, text, y->name);
        return bad();
    }
    decl_use(m, y->nbytes_decl);
    return mk(xprintf("nbytes_%s", y->name), VT_U);
}

/* compress() and narrays(): what the writer was asked for */
static cexpr fn_write_option(emitter *m, const blame *bl, expr *e, const char *text)
{
    int compress = strcmp(e->sval, "compress") == 0;
    (void)bl;
    if (!m->writer) {
        gen_error(m, NULL, "%s() is only available in \"write\" expressions (`%s`)", e->sval, text);
        return bad();
    }
    return compress ? mk(xstrdup("(wopt != NULL && wopt->compress != 0)"), VT_BOOL) : mk(xstrdup("(uint64_t)n"), VT_U);
}

static cexpr fn_dim(emitter *m, const blame *bl, expr *e, const char *text)
{
    sym *y = payload_arg(m, e->args[0], e->sval, text);
    char *k, *holds, *q, *field;
    cexpr r;
    if (!y) return bad();
    k = emit_u64(m, bl, e->args[1], text);
    /* in the user's words: what the format holds (the spec's "holds"),
     * and what this array is (afmt_write_fail_rank) */
    holds = m->s->holds && *m->s->holds ? xprintf("%s holds %s", m->s->format, m->s->holds)
                                        : xprintf("%s needs more dimensions here (`%s`)", m->s->format, text ? text : "?");
    q = c_quote(holds, strlen(holds));
    field = c_quote(bl->field, strlen(bl->field));
    line(m, "if (%s >= %s->rank)", k, y->c);
    m->indent++;
    line(m, "return afmt_write_fail_rank(%s, %s, %s, err);", y->c, field, q);
    m->indent--;
    r = mk(xprintf("%s->dims[%s]", y->c, k), VT_U);
    free(holds); free(q); free(field); free(k);
    return r;
}

/* finite(x) and integral(x) of a float (afmt_float.h) */
static cexpr fn_float_test(emitter *m, const blame *bl, expr *e, const char *text)
{
    cexpr x = emit_expr(m, bl, e->args[0], text);
    cexpr r;
    if (x.t != VT_F) {
        if (x.t != VT_NONE) gen_error(m, NULL, "%s() takes a float in `%s`", e->sval, text);
        free(x.c);
        return bad();
    }
    r = mk(xprintf("afmt_float_%s(%s)", e->sval, x.c), VT_BOOL);
    free(x.c);
    return r;
}

/* int(x) and trunc(x): a float as a signed integer (afmt_float_to_i64),
 * failing where the float has no such value: infinite or NaN (`value`),
 * a fractional part for int() (`value`), beyond 64 bits (`overflow`).
 * The value is shown as the field's text (a plain float field's width,
 * else as a double, which is exact for either). */
static cexpr fn_float_to_int(emitter *m, const blame *bl, expr *e, const char *text)
{
    const int exact = strcmp(e->sval, "int") == 0;
    const sym *arg = e->args[0]->kind == E_NAME ? sym_find(m, e->args[0]->sval) : NULL;
    const int width = arg && arg->kind == SY_FLOAT ? arg->width : 8;
    cexpr x = emit_expr(m, bl, e->args[0], text);
    char *t, *rc, *mt, *cond, *fmt, *args;
    if (x.t != VT_F) {
        if (x.t != VT_NONE) gen_error(m, NULL, "%s() takes a float in `%s`", e->sval, text);
        free(x.c);
        return bad();
    }
    t = expr_local(m, e, exact ? "whole" : "truncated");
    rc = xprintf("%s_rc", t);
    mt = c_format_body(text ? text : "?");
    args = xprintf("afmt_float_text(%s, %d).s", x.c, width);
    line(m, "int64_t %s = 0;", t);
    line(m, "const int %s = afmt_float_to_i64(%s, %d, &%s);", rc, x.c, exact, t);
    cond = xprintf("%s == AFMT_F2I_NOT_FINITE", rc);
    fmt = xprintf("\"`%s`: %%s is not a finite number\"", mt);
    emit_fail_if(m, cond, bl, "value", LEN_NONE, fmt, args);
    free(cond); free(fmt);
    if (exact) {
        cond = xprintf("%s == AFMT_F2I_FRACTION", rc);
        fmt = xprintf("\"`%s`: %%s is not a whole number\"", mt);
        emit_fail_if(m, cond, bl, "value", LEN_NONE, fmt, args);
        free(cond); free(fmt);
    }
    cond = xprintf("%s == AFMT_F2I_RANGE", rc);
    fmt = xprintf("\"`%s`: %%s is beyond 64-bit integers\"", mt);
    emit_fail_if(m, cond, bl, "overflow", LEN_NONE, fmt, args);
    free(cond); free(fmt); free(args); free(mt); free(rc); free(x.c);
    return mk(t, VT_S);
}

static const struct builtin {
    const char *name;
    int nargs;
    builtin_emit emit;
} BUILTINS[] = {
    {"prod", 1, fn_reduce},      {"sum", 1, fn_reduce},         {"len", 1, fn_len},
    {"sizeof", 1, fn_sizeof},    {"roundup", 2, fn_round},      {"ceil_div", 2, fn_round},
    {"min", 2, fn_minmax},       {"max", 2, fn_minmax},         {"peek", 1, fn_peek},
    {"skipped_comments", 0, fn_skipped_comments},               {"remaining", 0, fn_position},
    {"offset", 0, fn_position},  {"rank", 1, fn_payload},       {"count", 1, fn_payload},
    {"nbytes", 1, fn_payload},   {"elsize", 1, fn_payload},     {"sparse", 1, fn_payload},
    {"compress", 0, fn_write_option},                           {"narrays", 0, fn_write_option},
    {"dim", 2, fn_dim},          {"finite", 1, fn_float_test},  {"integral", 1, fn_float_test},
    {"int", 1, fn_float_to_int}, {"trunc", 1, fn_float_to_int},
};

static cexpr call(emitter *m, const blame *bl, expr *e, const char *text)
{
    size_t i;
    for (i = 0; i < sizeof BUILTINS / sizeof BUILTINS[0]; i++) {
        const struct builtin *b = &BUILTINS[i];
        if (strcmp(b->name, e->sval) != 0) continue;
        if (e->nargs != b->nargs) {
            gen_error(m, NULL, "%s() takes %d argument%s in `%s`", b->name, b->nargs, b->nargs == 1 ? "" : "s", text);
            return bad();
        }
        return b->emit(m, bl, e, text);
    }
    gen_error(m, NULL, "unknown function '%s' in `%s`", e->sval, text);
    return bad();
}

static cexpr emit_name(emitter *m, expr *e, const char *text)
{
    sym *y;
    const char *n = e->sval;
    if (strcmp(n, "true") == 0) return mk(xstrdup("1"), VT_BOOL);
    if (strcmp(n, "false") == 0) return mk(xstrdup("0"), VT_BOOL);
    y = sym_find(m, n);
    if (!y) {
        gen_error(m, NULL, "unknown name '%s' in `%s` (names must be defined before use)", n, text);
        return bad();
    }
    switch (y->kind) {
    case SY_INT: case SY_BUILTIN: {
        cexpr r = mk(xstrdup(y->c), y->t);
        r.bounded = y->bounded && y->t == VT_U;
        r.max = y->max;
        return r;
    }
    case SY_TEXT: return mk(xstrdup(y->c), VT_STR);
    case SY_ARRF: gen_error(m, NULL, "'%s' is an array: use %s[i], prod(%s), len(%s) in `%s`", n, n, n, n, text); break;
    case SY_LOOKUP: gen_error(m, NULL, "'%s' is a lookup: use sizeof(%s) in `%s`", n, n, text); break;
    case SY_PAYLOAD: gen_error(m, NULL, "'%s' is an array item: use rank(), dim(), count(), nbytes() in `%s`", n, text); break;
    case SY_STRINGS: gen_error(m, NULL, "'%s' is a string field and has no numeric value in `%s`", n, text); break;
    case SY_STR: return mk(xstrdup(y->c), VT_STR);
    case SY_FLOAT: return mk(xstrdup(y->c), VT_F);
    case SY_FARR:
        gen_error(m, NULL, "'%s' is an array of floats: its elements are checked in its \"each\", not in `%s`", n, text);
        break;
    }
    return bad();
}

/* limits.<name> in the writer: the limit as afmt_options_default sets it,
 * so the writer refuses what a validator with the default options refuses
 * for that check and writes nothing it would reject (spec/LANGUAGE.md,
 * Expressions).  Read from a local the runtime fills, never a C constant:
 * compilers do not fold it into comparisons and shifts they warn of. */
static cexpr writer_limit(emitter *m, const char *name)
{
    char *t = local_name(m, "default_options");
    cexpr r;
    line(m, "afmt_options %s;", t);
    line(m, "afmt_options_default(&%s);", t);
    r = mk(xprintf("%s.limits.%s", t, name), VT_U);
    free(t);
    return r;
}

/* limits.<name> and <lookup>.size */
static cexpr emit_member(emitter *m, expr *e, const char *text)
{
    if (e->a->kind == E_NAME && strcmp(e->a->sval, "limits") == 0) {
        static const char *const LIMITS[] = {"max_rank", "max_header_bytes", "max_total_bytes", "max_items", "max_decoded_bytes", NULL};
        int i;
        for (i = 0; LIMITS[i]; i++)
            if (strcmp(LIMITS[i], e->sval) == 0)
                return m->writer ? writer_limit(m, e->sval) : mk(xprintf("c->opt->limits.%s", e->sval), VT_U);
        gen_error(m, NULL, "unknown limit 'limits.%s' in `%s`", e->sval, text);
        return bad();
    }
    if (e->a->kind == E_NAME) {
        sym *y = sym_find(m, e->a->sval);
        if (y && y->kind == SY_LOOKUP && strcmp(e->sval, "size") == 0) return mk(xprintf("%s.size", y->c), VT_U);
    }
    gen_error(m, NULL, "unknown member '.%s' in `%s`", e->sval, text);
    return bad();
}

/* array[i]: an element of an array field, the index checked */
static cexpr emit_index(emitter *m, const blame *bl, expr *e, const char *text)
{
    sym *y = e->a->kind == E_NAME ? sym_find(m, e->a->sval) : NULL;
    char *i, *t, *fmt, *args, *base;
    cexpr r;
    if (!y || y->kind != SY_ARRF) { gen_error(m, NULL, "only array fields can be indexed in `%s`", text); return bad(); }
    i = emit_u64(m, bl, e->b, text);
    base = xprintf("%s_index", y->name);
    t = local_name(m, base);
    line(m, "const uint64_t %s = %s;", t, i);
    fmt = xprintf("\"index %%\" PRIu64 \" is out of range: %s has %%\" PRIu64 \" elements\"", y->name);
    args = xprintf("%s, %s", t, y->count);
    {
        char *cond = xprintf("%s >= %s", t, y->count);
        emit_fail_if(m, cond, bl, "constraint", LEN_NONE, fmt, args);
        free(cond);
    }
    /* the element in a local of 64 bits, as a field's value is: compared
     * as it was loaded, `(uint64_t)afmt_load_u8(...) != 1000` is gcc's
     * "always true due to limited range of data type" (-Werror=type-limits,
     * spec fuzzer seed 920667) */
    free(base);
    base = xprintf("%s_element", y->name);
    {
        char *v = local_name(m, base), *el = xprintf(y->elem, t);
        line(m, "const %s %s = %s;", y->t == VT_S ? "int64_t" : "uint64_t", v, el);
        r = mk(v, y->t);
        free(el);
    }
    free(i); free(t); free(fmt); free(args); free(base);
    return r;
}

static int literal_bits_c(const char *c);

static cexpr emit_unary(emitter *m, const blame *bl, expr *e, const char *text)
{
    cexpr a = emit_expr(m, bl, e->a, text), r;
    char *c;
    if (e->op == TK_BANG) {
        c = to_bool(m, a, text);
        r = mk(xprintf("(!%s)", c), VT_BOOL);
    } else if (e->op == TK_TILDE) {
        c = bits_of(m, bl, a, text);
        /* ~ of a value (not of a literal) through a function: gcc calls
         * `~(uint64_t)u32 != 0` always true, which it is, and refuses it
         * under -Werror (spec fuzzer seed 900733) */
        r = mk(xprintf(literal_bits_c(c) ? "(~%s)" : "afmt_not_u64(%s)", c), VT_U);
    } else {
        const int was_signed = a.t == VT_S;
        c = to_s(m, bl, a, text);
        /* an unsigned operand is at most INT64_MAX after to_s; a signed one
         * may be INT64_MIN, whose negation overflows (spec/LANGUAGE.md:
         * unary - needs a value up to 2^63-1) */
        if (was_signed && !nonneg_known(m, c)) {
            char *cond = xprintf("%s == INT64_MIN", c);
            emit_overflow_if(m, cond, bl, text);
            free(cond);
        }
        r = mk(xprintf("(-%s)", c), VT_S);
    }
    free(c);
    return r;
}

/* && and ||: the right side is computed only when it decides */
/* a && b, a || b: b is computed only when a does not decide.  When b
 * needs no statements the result is the C expression; otherwise a local
 * holds it, b's statements under an if. */
static cexpr emit_logic(emitter *m, const blame *bl, expr *e, const char *text)
{
    const int and = e->op == TK_ANDAND;
    char *ac = emit_bool(m, bl, e->a, text), *bc, *t;
    sbuf b_stmts = {0}, *saved = m->out;
    m->out = &b_stmts;
    m->indent++;
    bc = emit_bool(m, bl, e->b, text);
    m->indent--;
    m->out = saved;
    if (!b_stmts.s) {
        cexpr r = mk(xprintf("(%s %s %s)", ac, and ? "&&" : "||", bc), VT_BOOL);
        free(ac); free(bc);
        return r;
    }
    t = expr_local(m, e, and ? "all_hold" : "any_holds");
    line(m, "int %s = %s;", t, ac);
    line(m, and ? "if (%s) {" : "if (!%s) {", t);
    sb_puts(m->out, b_stmts.s);
    m->indent++;
    line(m, "%s = %s;", t, bc);
    m->indent--;
    line(m, "}");
    sb_free(&b_stmts);
    free(ac); free(bc);
    return mk(t, VT_BOOL);
}

static cexpr emit_shift(emitter *m, const blame *bl, expr *e, cexpr a, cexpr b, const char *text)
{
    /* a literal count of 64 or more always fails; the shift after the
     * failure is then by count & 63, so that the C stays defined (and
     * compilers quiet about a constant shift out of range) */
    int big = b.t == VT_U && ((strncmp(b.c, "UINT64_C(", 9) == 0 && strtoull(b.c + 9, NULL, 0) >= 64) || const_expr_c(b.c));
    char *ac = bits_of(m, bl, a, text), *bc = to_u(m, bl, b, text);
    /* a count that is neither a name nor a literal may still be one
     * compilers fold (a ?: of literals whose condition is constant,
     * seed 920652): through afmt_u64_const, or gcc calls the shift in the
     * code after the check out of range */
    if (!big && !c_ident(bc) && strncmp(bc, "UINT64_C(", 9) != 0) bc = hide_const(bc, 0);
    char *mt = c_format_body(text ? text : "?");
    char *fmt = xprintf("\"`%s` shifts out of 64 bits\"", mt);
    char *t = expr_local(m, e, "shifted");
    if (big) {
        char *masked = xprintf("(%s & 63)", bc);
        /* a left shift is checked for the bits it pushes out too (a
         * constant count below 64, min(6, 3), took this path without that
         * check: limits.max_total_bytes << 3 wrapped where the
         * interpreter refused, spec fuzzer seed 940290) */
        if (e->op == TK_SHL)
            line(m, "if (%s >= 64 || (%s >> (63 - %s)) > 1) {", bc, ac, masked);
        else
            line(m, "if (%s >= 64) {", bc);
        m->indent++; emit_fail(m, bl, "overflow", LEN_NONE, fmt, NULL); m->indent--;
        line(m, "}");
        line(m, "const uint64_t %s = %s %s %s;", t, ac, tok_text(e->op), masked);
        free(masked); free(ac); free(bc); free(mt); free(fmt);
        return mk(t, VT_U);
    }
    /* a literal count below 64 (big is 0): a right shift cannot fail, a
     * left one only by the bits it pushes out */
    const int literal = strncmp(bc, "UINT64_C(", 9) == 0;
    if (e->op == TK_SHL && literal)
        line(m, "if ((%s >> (63 - %s)) > 1) {", ac, bc);
    else if (e->op == TK_SHL)
        line(m, "if (%s >= 64 || (%s >> (63 - %s)) > 1) {", bc, ac, bc);
    else if (!literal)
        line(m, "if (%s >= 64) {", bc);
    if (e->op == TK_SHL || !literal) {
        m->indent++; emit_fail(m, bl, "overflow", LEN_NONE, fmt, NULL); m->indent--;
        line(m, "}");
    }
    line(m, "const uint64_t %s = %s %s %s;", t, ac, tok_text(e->op), bc);
    free(ac); free(bc); free(mt); free(fmt);
    return mk(t, VT_U);
}

/* Is C text c a literal's 64 bits: UINT64_C(n), or a signed literal as
 * bits_of writes it ((uint64_t)INT64_C(n): a writer's signed field written
 * as a constant, spec fuzzer seed 1795762689)? */
static int literal_bits_c(const char *c)
{
    return strncmp(c, "UINT64_C(", 9) == 0 || strncmp(c, "(uint64_t)INT64_C(", 18) == 0;
}

static cexpr emit_binary(emitter *m, const blame *bl, expr *e, const char *text)
{
    cexpr a, b;
    if (e->op == TK_ANDAND || e->op == TK_OROR) return emit_logic(m, bl, e, text);
    a = emit_expr(m, bl, e->a, text);
    b = emit_expr(m, bl, e->b, text);
    switch (e->op) {
    case TK_PLUS: case TK_MINUS: case TK_STAR: return checked_arith(m, bl, e, a, b, text);
    case TK_SLASH: case TK_PERCENT: return divmod(m, bl, e->op, a, b, text, e->b);
    case TK_AMP: case TK_PIPE: case TK_CARET: {
        char *ac = bits_of(m, bl, a, text), *bc = bits_of(m, bl, b, text);
        cexpr r;
        /* x | C and x ^ C with a constant C (a literal, or an expression
         * of literals compilers fold: a writer's constant field in
         * `f ? f : f`, seed 910601): through a function, since gcc calls
         * `(x | 9) != 0` always true and refuses it under -Werror */
        /* x & C with C an expression of literals (min(1_000, 4); not a
         * literal's complement, ~3): its value hidden from the compiler,
         * or gcc calls `K == (C & x)` with bits of K outside C always
         * false (seed 951080) */
        if (e->op == TK_AMP && const_expr_c(ac) && strncmp(ac, "(~UINT64_C(", 11) != 0) ac = hide_const(ac, 0);
        if (e->op == TK_AMP && const_expr_c(bc) && strncmp(bc, "(~UINT64_C(", 11) != 0) bc = hide_const(bc, 0);
        if (e->op != TK_AMP && (literal_bits_c(ac) || literal_bits_c(bc) || const_expr_c(ac) || const_expr_c(bc)))
            r = mk(xprintf("afmt_%s_u64(%s, %s)", e->op == TK_PIPE ? "or" : "xor", ac, bc), VT_U);
        else
            r = mk(xprintf("(%s %s %s)", ac, tok_text(e->op), bc), VT_U);
        free(ac); free(bc);
        return r;
    }
    case TK_SHL: case TK_SHR: return emit_shift(m, bl, e, a, b, text);
    case TK_EQ: case TK_NE: case TK_LT: case TK_LE: case TK_GT: case TK_GE:
        return compare(m, bl, e->op, a, b, e->a, e->b, text);
    default:
        gen_error(m, NULL, "unsupported operator in `%s`", text);
        return bad();
    }
}

/* c ? b : d.  Both arms are computed in their own block; their type
 * decides the result type (mixed signedness is unified to unsigned).
 * What one arm proves or computes is not known in the other, nor after
 * both: it is forgotten (the arms are not emitted in order). */
static cexpr emit_cond(emitter *m, const blame *bl, expr *e, const char *text)
{
    char *cond = emit_bool(m, bl, e->a, text);
    char *t = expr_local(m, e, "choice");
    char *bc, *cc;
    cexpr b, c;
    sbuf *saved = m->out;
    sbuf armb = {0}, armc = {0};
    int ind = m->indent, known = m->nnonneg;
    m->out = &armb; m->indent = ind + 1;
    b = emit_expr(m, bl, e->b, text);
    m->nnonneg = known;
    m->out = &armc; m->indent = ind + 1;
    c = emit_expr(m, bl, e->c, text);
    m->nnonneg = known;
    m->out = saved; m->indent = ind;
    if ((b.t == VT_S && c.t == VT_S) || (b.t == VT_BOOL && c.t == VT_BOOL)) {
        bc = b.c; cc = c.c;
    } else {
        /* unsigned result: conversions run inside each arm */
        m->out = &armb; m->indent = ind + 1; bc = to_u(m, bl, b, text);
        m->nnonneg = known;
        m->out = &armc; m->indent = ind + 1; cc = to_u(m, bl, c, text);
        m->nnonneg = known;
        m->out = saved; m->indent = ind;
        b.t = VT_U;
    }
    if (!armb.s && !armc.s) {
        /* two plain values: one expression, no temporary */
        cexpr r = mk(xprintf("(%s ? %s : %s)", cond, bc, cc), b.t);
        r.bounded = b.t == VT_U && b.bounded && c.bounded;
        r.max = b.max > c.max ? b.max : c.max;
        free(t); free(cond); free(bc); free(cc);
        return r;
    }
    line(m, "%s %s;", b.t == VT_S ? "int64_t" : b.t == VT_BOOL ? "int" : "uint64_t", t);
    emit_if_open(m, "", cond);
    if (armb.s) sb_puts(m->out, armb.s);
    m->indent++; line(m, "%s = %s;", t, bc); m->indent--;
    line(m, "} else {");
    if (armc.s) sb_puts(m->out, armc.s);
    m->indent++; line(m, "%s = %s;", t, cc); m->indent--;
    line(m, "}");
    sb_free(&armb); sb_free(&armc);
    free(cond); free(bc); free(cc);
    return mk(t, b.t);
}

cexpr emit_expr(emitter *m, const blame *bl, expr *e, const char *text)
{
    if (!e) return bad();
    switch (e->kind) {
    case E_INT: {
        /* always a 64-bit constant: a plain C int would make 1 << 40 or ~3
         * mean something else than the spec says */
        cexpr r = mk(xprintf("UINT64_C(%llu)", (unsigned long long)e->ival), VT_U);
        r.lit = e->ival <= (uint64_t)INT64_MAX;
        r.bounded = 1;
        r.max = e->ival;
        return r;
    }
    case E_STR: return mk(c_quote(e->sval, strlen(e->sval)), VT_STR);
    case E_NAME: return emit_name(m, e, text);
    case E_MEMBER: return emit_member(m, e, text);
    case E_INDEX: return emit_index(m, bl, e, text);
    case E_CALL: return call(m, bl, e, text);
    case E_UNARY: return emit_unary(m, bl, e, text);
    case E_BINARY: return emit_binary(m, bl, e, text);
    case E_COND: return emit_cond(m, bl, e, text);
    }
    return bad();
}
