/* afmt reference interpreter: expressions (spec/LANGUAGE.md,
 * "Expressions"), evaluated as the C of gen/emit_expr.c computes them:
 * the same types, the same checks in the same order (both operands are
 * computed before either is converted), the same failures.  One function
 * per expression kind and per built-in function. */
#include <inttypes.h>
#include <string.h>
#include "common/afmt_bytes.h"
#include "core/afmt_fields.h"
#include "core/afmt_gen_expr.h"
#include "common/afmt_float.h"
#include "interp.h"

static ival mk(vtype t, uint64_t v)
{
    ival x;
    memset(&x, 0, sizeof x);
    x.t = t;
    x.v = v;
    return x;
}

static int64_t sv(uint64_t v) { return (int64_t)v; }

/* `true` or `false` (the first byte first: every name read asks) */
static int is_true(const char *n) { return n[0] == 't' && strcmp(n, "true") == 0; }
static int is_false(const char *n) { return n[0] == 'f' && strcmp(n, "false") == 0; }

/* ---- static types (what emit_expr decides before any value exists) */

static int want_signed_t(vtype a, int alit, vtype b, int blit)
{
    const int al = alit && a == VT_U, bl = blit && b == VT_U;
    return (a == VT_S && (b == VT_S || bl)) || (b == VT_S && al);
}

vtype itype(const irun *r, const expr *e, int *lit)
{
    int al = 0, bl = 0;
    vtype a, b;
    const isym *y;
    if (lit) *lit = 0;
    switch (e->kind) {
    case E_INT:
        if (lit) *lit = e->ival <= (uint64_t)INT64_MAX;
        return VT_U;
    case E_STR: return VT_STR;
    case E_NAME:
        if (is_true(e->sval) || is_false(e->sval)) return VT_BOOL;
        y = isym_find(r, e->sval);
        if (!y) return VT_NONE;
        if (y->kind == IS_INT || y->kind == IS_INDEX) return y->t;
        if (y->kind == IS_FLOAT) return VT_F;
        return y->kind == IS_TEXT || y->kind == IS_STR ? VT_STR : VT_NONE;
    case E_MEMBER: return VT_U;
    case E_INDEX:
        y = e->a->kind == E_NAME ? isym_find(r, e->a->sval) : NULL;
        return y && y->kind == IS_ARRF ? y->t : VT_NONE;
    case E_CALL:
        return strcmp(e->sval, "sparse") == 0 || strcmp(e->sval, "compress") == 0 || strcmp(e->sval, "finite") == 0 ||
                       strcmp(e->sval, "integral") == 0
                   ? VT_BOOL
               : strcmp(e->sval, "int") == 0 || strcmp(e->sval, "trunc") == 0 ? VT_S
                                                                              : VT_U;
    case E_UNARY: return e->op == TK_BANG ? VT_BOOL : e->op == TK_TILDE ? VT_U : VT_S;
    case E_BINARY:
        switch (e->op) {
        case TK_PLUS: case TK_MINUS: case TK_STAR: case TK_SLASH: case TK_PERCENT:
            a = itype(r, e->a, &al);
            b = itype(r, e->b, &bl);
            return want_signed_t(a, al, b, bl) ? VT_S : VT_U;
        case TK_AMP: case TK_PIPE: case TK_CARET: case TK_SHL: case TK_SHR: return VT_U;
        default: return VT_BOOL;
        }
    case E_COND:
        a = itype(r, e->b, NULL);
        b = itype(r, e->c, NULL);
        if (a == VT_S && b == VT_S) return VT_S;
        if (a == VT_BOOL && b == VT_BOOL) return VT_BOOL;
        return VT_U;
    }
    return VT_NONE;
}

/* ---- conversions (emit_expr.c's to_u, to_s, to_bool, bits_of) */

int ito_u(irun *r, const iblame *b, ival x, const char *text, uint64_t *out)
{
    *out = x.v;
    if (x.t == VT_S && sv(x.v) < 0)
        return ifail(r, b, AFMT_E_NEGATIVE, LEN_NONE, "`%s` is negative (%" PRId64 ")", text, sv(x.v));
    *out = x.v;
    return 0;
}

static int to_s(irun *r, const iblame *b, ival x, const char *text, int64_t *out)
{
    *out = sv(x.v);
    if ((x.t == VT_U || x.t == VT_BOOL) && !x.lit && x.v > (uint64_t)INT64_MAX)
        return ifail(r, b, AFMT_E_OVERFLOW, LEN_NONE, "`%s` is too large for a signed value (%" PRIu64 ")", text,
                     x.v);
    *out = sv(x.v);
    return 0;
}

static int to_bool(ival x) { return x.v != 0; }

/* the 64-bit pattern of an integer, for & | ^ ~ << >> */
static int bits_of(irun *r, const iblame *b, ival x, const char *text, uint64_t *out)
{
    if (x.t == VT_S) {
        *out = x.v;
        return 0;
    }
    return ito_u(r, b, x, text, out);
}

static int want_signed(ival a, ival b) { return want_signed_t(a.t, a.lit, b.t, b.lit); }

/* ---- names, members, elements */

static int eval_name(irun *r, const expr *e, ival *out)
{
    const isym *y;
    if (is_true(e->sval) || is_false(e->sval)) {
        *out = mk(VT_BOOL, e->sval[0] == 't');
        return 0;
    }
    y = isym_find(r, e->sval);
    if (y && (y->kind == IS_INT || y->kind == IS_INDEX)) {
        *out = mk(y->t, y->v);
        return 0;
    }
    if (y && y->kind == IS_FLOAT) {
        *out = mk(VT_F, 0);
        out->f = y->f;
        return 0;
    }
    if (y && y->kind == IS_TEXT) {
        *out = mk(VT_STR, 0);
        out->str = AFMT_B(r->c->src, y->off);
        out->len = y->size;
        return 0;
    }
    if (y && y->kind == IS_STR) { /* a string's content (afmt_str_eq) */
        *out = mk(VT_STR, 0);
        out->str = AFMT_B(r->c->src, y->off + (uint64_t)y->width);
        out->whole = 1;
        out->slen = y->count;
        return 0;
    }
    *out = mk(VT_NONE, 0); /* afmt-gen's checks refuse the spec first */
    return 0;
}

static int eval_member(irun *r, const expr *e, ival *out)
{
    const afmt_limits *l = &r->c->opt->limits;
    const char *n = e->sval;
    if (e->a->kind == E_NAME && strcmp(e->a->sval, "limits") == 0) {
        *out = mk(VT_U, strcmp(n, "max_rank") == 0           ? l->max_rank
                        : strcmp(n, "max_header_bytes") == 0 ? l->max_header_bytes
                        : strcmp(n, "max_total_bytes") == 0  ? l->max_total_bytes
                        : strcmp(n, "max_items") == 0        ? l->max_items
                                                             : l->max_decoded_bytes);
        return 0;
    }
    {
        const isym *y = e->a->kind == E_NAME ? isym_find(r, e->a->sval) : NULL;
        *out = mk(VT_U, y && y->kind == IS_LOOKUP ? y->el.size : 0);
    }
    return 0;
}

uint64_t iarrf_get(const irun *r, const isym *y, uint64_t i)
{
    const uint8_t *p = AFMT_B(r->c->src, y->off + (uint64_t)y->width * i);
    uint64_t raw = y->width == 1   ? afmt_load_u8(p)
                   : y->width == 2 ? (y->big ? afmt_load_u16be(p) : afmt_load_u16le(p))
                   : y->width == 4 ? (y->big ? afmt_load_u32be(p) : afmt_load_u32le(p))
                                   : (y->big ? afmt_load_u64be(p) : afmt_load_u64le(p));
    return y->is_signed ? (uint64_t)afmt_as_i64(raw, (unsigned)y->width * 8) : raw;
}

static int eval_index(irun *r, const iblame *b, const expr *e, const char *text, ival *out)
{
    const isym *y = isym_find(r, e->a->sval);
    uint64_t i = 0;
    if (ieval_u64(r, b, e->b, text, &i)) return -1;
    if (i >= y->count)
        return ifail(r, b, AFMT_E_CONSTRAINT, LEN_NONE, "index %" PRIu64 " is out of range: %s has %" PRIu64 " elements",
                     i, y->name, y->count);
    *out = mk(y->t, iarrf_get(r, y, i));
    return 0;
}

/* ---- built-in functions (one each, as emit_expr.c's BUILTINS) */

static int fn_reduce(irun *r, const iblame *b, const expr *e, const char *text, ival *out)
{
    const isym *y = isym_find(r, e->args[0]->sval);
    uint64_t v = 0;
    int rc = strcmp(e->sval, "prod") == 0
                 ? afmt_field_prod_c(r->c, y->name, y->off, y->count, (unsigned)y->width, y->is_signed, y->big,
                                     b->field, b->index, iblame_off(r, b), text, &v)
                 : afmt_field_sum_c(r->c, y->name, y->off, y->count, (unsigned)y->width, y->is_signed, y->big, b->field,
                                    b->index, iblame_off(r, b), text, &v);
    if (rc) return -1;
    *out = mk(VT_U, v);
    return 0;
}

static int fn_len(irun *r, const iblame *b, const expr *e, const char *text, ival *out)
{
    (void)b; (void)text;
    *out = mk(VT_U, isym_find(r, e->args[0]->sval)->count);
    return 0;
}

static int fn_sizeof(irun *r, const iblame *b, const expr *e, const char *text, ival *out)
{
    (void)b; (void)text;
    *out = mk(VT_U, isym_find(r, e->args[0]->sval)->el.size);
    return 0;
}

static int fn_round(irun *r, const iblame *b, const expr *e, const char *text, ival *out)
{
    uint64_t a = 0, k = 0, v = 0;
    if (ieval_u64(r, b, e->args[0], text, &a) || ieval_u64(r, b, e->args[1], text, &k)) return -1;
    if (strcmp(e->sval, "roundup") == 0 ? afmt_checked_roundup_u64(a, k, &v) : k == 0)
        return ifail(r, b, AFMT_E_OVERFLOW, LEN_NONE, "`%s` overflows 64 bits or divides by zero", text);
    if (strcmp(e->sval, "ceil_div") == 0) v = afmt_ceil_div_u64(a, k);
    *out = mk(VT_U, v);
    return 0;
}

static int fn_minmax(irun *r, const iblame *b, const expr *e, const char *text, ival *out)
{
    uint64_t a = 0, k = 0;
    if (ieval_u64(r, b, e->args[0], text, &a) || ieval_u64(r, b, e->args[1], text, &k)) return -1;
    *out = mk(VT_U, strcmp(e->sval, "min") == 0 ? (a < k ? a : k) : (a > k ? a : k));
    return 0;
}

static int fn_peek(irun *r, const iblame *b, const expr *e, const char *text, ival *out)
{
    uint64_t k = 0;
    if (ieval_u64(r, b, e->args[0], text, &k)) return -1;
    *out = mk(VT_U, afmt_src_peek(r->c->src, afmt_end(r->c), r->c->pos + k));
    return 0;
}

static int fn_skipped_comments(irun *r, const iblame *b, const expr *e, const char *text, ival *out)
{
    (void)b; (void)e; (void)text;
    *out = mk(VT_U, r->comments ? *r->comments : 0);
    return 0;
}

static int fn_position(irun *r, const iblame *b, const expr *e, const char *text, ival *out)
{
    (void)b; (void)text;
    *out = mk(VT_U, strcmp(e->sval, "offset") == 0 ? r->c->pos : afmt_end(r->c) - r->c->pos);
    return 0;
}

/* finite(x), integral(x) of a float (afmt_float.h) */
static int fn_float_test(irun *r, const iblame *b, const expr *e, const char *text, ival *out)
{
    ival x;
    if (ieval(r, b, e->args[0], text, &x)) return -1;
    *out = mk(VT_BOOL, strcmp(e->sval, "finite") == 0 ? afmt_float_finite(x.f) : afmt_float_integral(x.f));
    return 0;
}

/* int(x), trunc(x): a float as a signed integer (afmt_float_to_i64), with
 * the generator's failures and messages (emit_expr.c fn_float_to_int). */
static int fn_float_to_int(irun *r, const iblame *b, const expr *e, const char *text, ival *out)
{
    const int exact = strcmp(e->sval, "int") == 0;
    const isym *arg = e->args[0]->kind == E_NAME ? isym_find(r, e->args[0]->sval) : NULL;
    const unsigned width = arg && arg->kind == IS_FLOAT ? (unsigned)arg->width : 8;
    ival x;
    int64_t v = 0;
    int rc;
    if (ieval(r, b, e->args[0], text, &x)) return -1;
    rc = afmt_float_to_i64(x.f, exact, &v);
    if (rc == AFMT_F2I_NOT_FINITE)
        return ifail(r, b, AFMT_E_VALUE, LEN_NONE, "`%s`: %s is not a finite number", text, afmt_float_text(x.f, width).s);
    if (rc == AFMT_F2I_FRACTION)
        return ifail(r, b, AFMT_E_VALUE, LEN_NONE, "`%s`: %s is not a whole number", text, afmt_float_text(x.f, width).s);
    if (rc == AFMT_F2I_RANGE)
        return ifail(r, b, AFMT_E_OVERFLOW, LEN_NONE, "`%s`: %s is beyond 64-bit integers", text,
                     afmt_float_text(x.f, width).s);
    *out = mk(VT_S, (uint64_t)v);
    return 0;
}

typedef int (*builtin_eval)(irun *r, const iblame *b, const expr *e, const char *text, ival *out);

static const struct builtin {
    const char *name;
    builtin_eval eval;
} BUILTINS[] = {
    {"prod", fn_reduce},   {"sum", fn_reduce},   {"len", fn_len},   {"sizeof", fn_sizeof},
    {"roundup", fn_round}, {"ceil_div", fn_round}, {"min", fn_minmax}, {"max", fn_minmax},
    {"peek", fn_peek},     {"skipped_comments", fn_skipped_comments},
    {"remaining", fn_position}, {"offset", fn_position},
    {"finite", fn_float_test}, {"integral", fn_float_test},
    {"int", fn_float_to_int}, {"trunc", fn_float_to_int},
};

static int eval_call(irun *r, const iblame *b, const expr *e, const char *text, ival *out)
{
    size_t i;
    for (i = 0; i < sizeof BUILTINS / sizeof BUILTINS[0]; i++)
        if (strcmp(BUILTINS[i].name, e->sval) == 0) return BUILTINS[i].eval(r, b, e, text, out);
    *out = mk(VT_NONE, 0); /* writer-only functions: afmt-gen refuses them here */
    return 0;
}

/* ---- operators */

static int eval_unary(irun *r, const iblame *b, const expr *e, const char *text, ival *out)
{
    ival a;
    if (ieval(r, b, e->a, text, &a)) return -1;
    if (e->op == TK_BANG) {
        *out = mk(VT_BOOL, !to_bool(a));
    } else if (e->op == TK_TILDE) {
        uint64_t v = 0;
        if (bits_of(r, b, a, text, &v)) return -1;
        *out = mk(VT_U, ~v);
    } else {
        int64_t v = 0;
        if (to_s(r, b, a, text, &v)) return -1;
        /* a signed INT64_MIN has no negation (an unsigned operand is at
         * most INT64_MAX after to_s) */
        if (v == INT64_MIN) return ioverflow(r, b, text);
        *out = mk(VT_S, 0 - (uint64_t)v);
    }
    return 0;
}

/* && and ||: the right operand only when the left does not decide */
static int eval_logic(irun *r, const iblame *b, const expr *e, const char *text, ival *out)
{
    const int and = e->op == TK_ANDAND;
    int x, y;
    if (ieval_bool(r, b, e->a, text, &x)) return -1;
    if (and ? !x : x) {
        *out = mk(VT_BOOL, x);
        return 0;
    }
    if (ieval_bool(r, b, e->b, text, &y)) return -1;
    *out = mk(VT_BOOL, y);
    return 0;
}

static int arith(irun *r, const iblame *b, tok_kind op, ival a, ival c, const char *text, ival *out)
{
    if (want_signed(a, c)) {
        int64_t x = 0, y = 0, v = 0;
        int ok;
        if (to_s(r, b, a, text, &x) || to_s(r, b, c, text, &y)) return -1;
        ok = (op == TK_PLUS ? afmt_checked_add_i64(x, y, &v) : op == TK_MINUS ? afmt_checked_sub_i64(x, y, &v)
                                                         : afmt_checked_mul_i64(x, y, &v)) == 0;
        if (!ok) return ioverflow(r, b, text);
        *out = mk(VT_S, (uint64_t)v);
    } else {
        uint64_t x = 0, y = 0, v = 0;
        int ok;
        if (ito_u(r, b, a, text, &x) || ito_u(r, b, c, text, &y)) return -1;
        ok = (op == TK_PLUS ? afmt_checked_add_u64(x, y, &v) : op == TK_MINUS ? afmt_checked_sub_u64(x, y, &v)
                                                         : afmt_checked_mul_u64(x, y, &v)) == 0;
        if (!ok && op == TK_MINUS) return ifail(r, b, AFMT_E_NEGATIVE, LEN_NONE, "`%s` is below zero", text);
        if (!ok) return ioverflow(r, b, text);
        *out = mk(VT_U, v);
    }
    return 0;
}

static int divmod(irun *r, const iblame *b, tok_kind op, ival a, ival c, const char *text, ival *out)
{
    if (want_signed(a, c)) {
        int64_t x = 0, y = 0;
        if (to_s(r, b, a, text, &x) || to_s(r, b, c, text, &y)) return -1;
        if (y == 0) return ifail(r, b, AFMT_E_DIVZERO, LEN_NONE, "division by zero in `%s`", text);
        if (x == INT64_MIN && y == -1) return ifail(r, b, AFMT_E_OVERFLOW, LEN_NONE, "`%s` overflows 64 bits", text);
        *out = mk(VT_S, (uint64_t)(op == TK_SLASH ? x / y : x % y));
    } else {
        uint64_t x = 0, y = 0;
        if (ito_u(r, b, a, text, &x) || ito_u(r, b, c, text, &y)) return -1;
        if (y == 0) return ifail(r, b, AFMT_E_DIVZERO, LEN_NONE, "division by zero in `%s`", text);
        *out = mk(VT_U, op == TK_SLASH ? x / y : x % y);
    }
    return 0;
}

static int shift(irun *r, const iblame *b, tok_kind op, ival a, ival c, const char *text, ival *out)
{
    uint64_t x = 0, k = 0;
    if (bits_of(r, b, a, text, &x) || ito_u(r, b, c, text, &k)) return -1;
    if (k >= 64 || (op == TK_SHL && (x >> (63 - k)) > 1))
        return ifail(r, b, AFMT_E_OVERFLOW, LEN_NONE, "`%s` shifts out of 64 bits", text);
    *out = mk(VT_U, op == TK_SHL ? x << k : x >> k);
    return 0;
}

static int order_holds(tok_kind op, int cmp)
{
    switch (op) {
    case TK_EQ: return cmp == 0;
    case TK_NE: return cmp != 0;
    case TK_LT: return cmp < 0;
    case TK_LE: return cmp <= 0;
    case TK_GT: return cmp > 0;
    default: return cmp >= 0;
    }
}

static int cmp_u(uint64_t x, uint64_t y) { return x < y ? -1 : x > y; }

/* text == "literal": the literal NUL-padded to the field's size (afmt-gen
 * allows no other comparison of text: the longer side is the field) */
static int compare_text(ival a, ival c, tok_kind op)
{
    if (a.whole || c.whole) { /* a string field and a literal: the same bytes */
        const ival *field = a.whole ? &a : &c, *lit = field == &a ? &c : &a;
        const int eq = field->slen == (uint64_t)lit->len &&
                       (lit->len == 0 || memcmp(field->str, lit->str, (size_t)lit->len) == 0);
        return op == TK_EQ ? eq : !eq;
    }
    const ival *field = a.len >= c.len ? &a : &c, *lit = field == &a ? &c : &a;
    int i, eq = 1;
    for (i = 0; i < field->len; i++) {
        const uint8_t want = i < lit->len ? lit->str[i] : 0;
        if (field->str[i] != want) eq = 0;
    }
    return op == TK_EQ ? eq : !eq;
}

/* A float compared with a float or an integer literal (afmt-gen allows
 * nothing else, and literals of at most 2^53: exact as doubles), as C
 * compares doubles: NaN is unequal to everything. */
static double as_double(ival x)
{
    return x.t == VT_F ? x.f : x.t == VT_S ? (double)sv(x.v) : (double)x.v;
}

static int compare_float(tok_kind op, double x, double y)
{
    switch (op) {
    case TK_EQ: return x == y;
    case TK_NE: return x != y;
    case TK_LT: return x < y;
    case TK_LE: return x <= y;
    case TK_GT: return x > y;
    default: return x >= y;
    }
}

static int compare(irun *r, const iblame *b, tok_kind op, ival a, ival c, const char *text, ival *out)
{
    int cmp;
    if (a.t == VT_F || c.t == VT_F) {
        *out = mk(VT_BOOL, compare_float(op, as_double(a), as_double(c)));
        return 0;
    }
    if (a.t == VT_STR || c.t == VT_STR) {
        *out = mk(VT_BOOL, compare_text(a, c, op));
        return 0;
    }
    if (a.t == VT_BOOL && c.t == VT_BOOL) {
        cmp = cmp_u(a.v, c.v);
    } else if (want_signed(a, c)) {
        int64_t x = 0, y = 0;
        if (to_s(r, b, a, text, &x) || to_s(r, b, c, text, &y)) return -1;
        cmp = x < y ? -1 : x > y;
    } else if (a.t == VT_S && c.t == VT_U) {
        cmp = afmt_cmp_i64_u64(sv(a.v), c.v);
    } else if (a.t == VT_U && c.t == VT_S) {
        cmp = -afmt_cmp_i64_u64(sv(c.v), a.v);
    } else {
        uint64_t x = 0, y = 0;
        if (ito_u(r, b, a, text, &x) || ito_u(r, b, c, text, &y)) return -1;
        cmp = cmp_u(x, y);
    }
    *out = mk(VT_BOOL, order_holds(op, cmp));
    return 0;
}

static int eval_binary(irun *r, const iblame *b, const expr *e, const char *text, ival *out)
{
    ival a, c;
    if (e->op == TK_ANDAND || e->op == TK_OROR) return eval_logic(r, b, e, text, out);
    if (ieval(r, b, e->a, text, &a) || ieval(r, b, e->b, text, &c)) return -1;
    switch (e->op) {
    case TK_PLUS: case TK_MINUS: case TK_STAR: return arith(r, b, e->op, a, c, text, out);
    case TK_SLASH: case TK_PERCENT: return divmod(r, b, e->op, a, c, text, out);
    case TK_AMP: case TK_PIPE: case TK_CARET: {
        uint64_t x = 0, y = 0;
        if (bits_of(r, b, a, text, &x) || bits_of(r, b, c, text, &y)) return -1;
        *out = mk(VT_U, e->op == TK_AMP ? (x & y) : e->op == TK_PIPE ? (x | y) : (x ^ y));
        return 0;
    }
    case TK_SHL: case TK_SHR: return shift(r, b, e->op, a, c, text, out);
    default: return compare(r, b, e->op, a, c, text, out);
    }
}

/* c ? x : y: only the arm taken is computed; the result's type is decided
 * by both arms' types (an unsigned result converts the arm taken) */
static int eval_cond(irun *r, const iblame *b, const expr *e, const char *text, ival *out)
{
    int c;
    const vtype t = itype(r, e, NULL);
    ival x;
    if (ieval_bool(r, b, e->a, text, &c)) return -1;
    if (ieval(r, b, c ? e->b : e->c, text, &x)) return -1;
    if (t == VT_U) {
        uint64_t v = 0;
        if (ito_u(r, b, x, text, &v)) return -1;
        x = mk(VT_U, v);
    }
    x.lit = 0;
    *out = x;
    return 0;
}

int ieval(irun *r, const iblame *b, const expr *e, const char *text, ival *out)
{
    switch (e->kind) {
    case E_INT:
        *out = mk(VT_U, e->ival);
        out->lit = e->ival <= (uint64_t)INT64_MAX;
        return 0;
    case E_STR:
        *out = mk(VT_STR, 0);
        out->str = (const uint8_t *)e->sval;
        out->len = (int)strlen(e->sval);
        return 0;
    case E_NAME: return eval_name(r, e, out);
    case E_MEMBER: return eval_member(r, e, out);
    case E_INDEX: return eval_index(r, b, e, text, out);
    case E_CALL: return eval_call(r, b, e, text, out);
    case E_UNARY: return eval_unary(r, b, e, text, out);
    case E_BINARY: return eval_binary(r, b, e, text, out);
    case E_COND: return eval_cond(r, b, e, text, out);
    }
    *out = mk(VT_NONE, 0);
    return 0;
}

const isym *iname_int(const irun *r, const expr *e)
{
    const isym *y;
    if (e->kind != E_NAME || is_true(e->sval) || is_false(e->sval)) return NULL;
    y = isym_find(r, e->sval);
    return y && y->kind == IS_INT ? y : NULL;
}

ival ival_of(const isym *y) { return mk(y->t, y->v); }

int ieval_u64_of(irun *r, const iblame *b, const expr *e, const char *text, const isym *y, uint64_t *out)
{
    if (y && !(y->t == VT_S && sv(y->v) < 0)) { /* ito_u's case, else ieval_u64 fails as it does */
        *out = y->v;
        return 0;
    }
    return ieval_u64(r, b, e, text, out);
}

int ieval_u64(irun *r, const iblame *b, const expr *e, const char *text, uint64_t *out)
{
    ival x;
    if (ieval(r, b, e, text, &x)) return -1;
    return ito_u(r, b, x, text, out);
}

int ieval_bool(irun *r, const iblame *b, const expr *e, const char *text, int *out)
{
    ival x;
    if (ieval(r, b, e, text, &x)) return -1;
    *out = to_bool(x);
    return 0;
}
