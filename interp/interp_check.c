/* afmt reference interpreter: constraints (spec/LANGUAGE.md, "Checks"),
 * as gen/emit_validate.c's emit_check_body words them: `F == E` on an
 * integer F says "expected E = text, found F"; any other check "`text`
 * does not hold", with the value of the integer it belongs to. */
#include <inttypes.h>
#include <string.h>
#include "common/afmt_float.h"
#include "interp.h"

/* The text of E in `F == E` as afmt-gen quotes it. */
static const char *rhs_text(const char *text)
{
    const char *t = strchr(text, '=') ? strstr(text, "==") + 2 : text;
    while (*t == ' ') t++;
    return t;
}

/* " = E" after the expected value, unless E is a decimal literal, whose
 * text is that value ("expected 3, found 2", not "expected 3 = 3, ..."):
 * the same rule as afmt-gen's (gen/emit_validate.c). */
static const char *rhs_shown(const char *text)
{
    const char *t = rhs_text(text);
    size_t n = strspn(t, "0123456789");
    return n > 0 && t[n + strspn(t + n, " ")] == '\0' ? NULL : t;
}

/* `F == E` with F an integer field or let. */
static int check_equals(irun *r, const iblame *b, const check *c, const isym *y)
{
    const char *msg = c->message ? c->message : "", *sep = c->message ? ": " : "";
    ival rhs;
    int differ;
    if (ieval(r, b, c->e->b, c->text, &rhs)) return -1;
    if (rhs.t == VT_S || y->t == VT_S) {
        const int64_t rv = (int64_t)rhs.v, yv = (int64_t)y->v;
        if (rhs.t != VT_S) differ = afmt_cmp_i64_u64(yv, rhs.v) != 0;
        else if (y->t == VT_S) differ = yv != rv;
        else differ = afmt_cmp_i64_u64(rv, y->v) != 0;
        if (differ)
            return ifail(r, b, icode(c->code, AFMT_E_CONSTRAINT), c->lenient, "%s%sexpected %" PRId64 "%s%s, found %" PRId64, msg, sep, rv,
                         rhs_shown(c->text) ? " = " : "", rhs_shown(c->text) ? rhs_shown(c->text) : "", yv);
        return 0;
    }
    if (y->v != rhs.v)
        return ifail(r, b, icode(c->code, AFMT_E_CONSTRAINT), c->lenient, "%s%sexpected %" PRIu64 "%s%s, found %" PRIu64, msg, sep, rhs.v,
                     rhs_shown(c->text) ? " = " : "", rhs_shown(c->text) ? rhs_shown(c->text) : "", y->v);
    return 0;
}

static int check_one(irun *r, const iblame *b, const check *c, const isym *attr)
{
    const char *msg = c->message ? c->message : "", *sep = c->message ? ": " : "";
    afmt_code code;
    int holds;
    if (!c->e) return 0;
    if (c->e->kind == E_BINARY && c->e->op == TK_EQ && c->e->a->kind == E_NAME) {
        const isym *y = isym_find(r, c->e->a->sval);
        if (y && y->kind == IS_INT) return check_equals(r, b, c, y);
    }
    if (ieval_bool(r, b, c->e, c->text, &holds)) return -1;
    if (holds) return 0;
    code = icode(c->code, AFMT_E_CONSTRAINT); /* by name: only for a failure */
    if (attr && attr->kind == IS_FLOAT)
        return ifail(r, b, code, c->lenient, "%s%s`%s` does not hold (%s = %s)", msg, sep, c->text, attr->name,
                     afmt_float_text(attr->f, (unsigned)attr->width).s);
    if (attr && attr->kind == IS_INT) {
        if (attr->t == VT_S)
            return ifail(r, b, code, c->lenient, "%s%s`%s` does not hold (%s = %" PRId64 ")", msg, sep, c->text,
                         attr->name, (int64_t)attr->v);
        return ifail(r, b, code, c->lenient, "%s%s`%s` does not hold (%s = %" PRIu64 ")", msg, sep, c->text,
                     attr->name, attr->v);
    }
    return ifail(r, b, code, c->lenient, "%s%s`%s` does not hold", msg, sep, c->text);
}

int irun_checks(irun *r, const iblame *b, const check *cs, int n, const isym *attr)
{
    int i;
    for (i = 0; i < n; i++)
        if (check_one(r, b, &cs[i], attr)) return -1;
    return 0;
}
