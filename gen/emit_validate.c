/* afmt-gen: emit the validator (and reader: it hands array views to a
 * visitor) of one spec.
 *
 * The emitted function is a single forward pass over a caller-owned buffer:
 * every read is preceded by a comparison with the bytes left in the current
 * region, every size by checked arithmetic, and nothing is allocated.  Each
 * failure names the field (with the repeat path), its byte offset and the
 * expected and found values.
 */
#include <stdarg.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "emit.h"
#include "layout.h"

static void emit_items(emitter *m, item_list *body);
static void emit_items_func(emitter *m, item_list *body, const char *name, const char *doc);

/* Fail when fewer than `need_c` bytes are left in the current region. */
/* Fail unless [at, at + n) lies in the current region and is in memory (a
 * stream reads it in); the runtime tells truncation from a stream limit. */
static void need_at(emitter *m, const blame *bl, const char *at_c, const char *need_c, const char *what)
{
    char *field = c_quote(bl->field, strlen(bl->field));
    line(m, "if (!afmt_src_have(c->src, %s, %s, %s)) {", m->end, at_c, need_c);
    m->indent++;
    if (m->writer)
        line(m, "return -1;");
    else
        line(m, "return afmt_src_short_ex(c->src, c->err, c->path, %s, %s, %s, %s, %s, 0, \"%s\", c->region);", field,
             bl->index, at_c, m->end, need_c, what);
    m->indent--;
    line(m, "}");
    free(field);
}

void need_bytes(emitter *m, const blame *bl, const char *need_c, const char *what)
{
    need_at(m, bl, "c->pos", need_c, what);
}


/* After a constraint `F >= 0` on a signed field that always fails (never
 * only a warning), F is known non-negative: it is not tested again. */
static void note_nonneg_check(emitter *m, const check *c)
{
    const expr *e = c->e;
    sym *y;
    if (c->lenient == LEN_NOTE || (c->lenient == LEN_WARN && !m->writer)) return; /* the validator goes on */
    if (e->kind != E_BINARY || e->op != TK_GE || e->a->kind != E_NAME || e->b->kind != E_INT || e->b->ival != 0)
        return;
    y = sym_peek(m, e->a->sval);
    if (y && y->kind == SY_INT && y->t == VT_S && is_field_value(y->c)) nonneg_note(m, y->c);
}

/* One constraint.  `F == E` on a field gets the "expected E = text, found
 * F" message of the examples; others name the constraint. */
void emit_check(emitter *m, const blame *bl, check *c, sym *attr)
{
    emit_checks(m, bl, c, 1, attr);
}

void emit_checks(emitter *m, const blame *bl, check *cs, int n, sym *attr)
{
    int i;
    if (emit_shared_checks(m, bl, cs, n, attr)) {
        for (i = 0; i < n; i++) note_nonneg_check(m, &cs[i]);
        return;
    }
    for (i = 0; i < n; i++) {
        m->jpath = cs[i].jpath;
        emit_check_body(m, bl, &cs[i], attr);
    }
}

void emit_check_body(emitter *m, const blame *bl, check *c, sym *attr)
{
    const char *code = c->code ? c->code : "constraint";
    if (!c->e) return;
    if (c->e->kind == E_BINARY && c->e->op == TK_EQ && c->e->a->kind == E_NAME) {
        sym *y = sym_find(m, c->e->a->sval);
        if (y && y->kind == SY_INT) {
            const char *rhs_text = strchr(c->text, '=') ? strstr(c->text, "==") + 2 : c->text;
            cexpr rhs;
            char *fmt, *args, *mt, *cond;
            while (*rhs_text == ' ') rhs_text++;
            rhs = emit_expr(m, bl, c->e->b, c->text);
            if (strcmp(rhs.c, y->c) == 0) { /* `x == x`: holds (and C compilers refuse the self-comparison) */
                free(rhs.c);
                return;
            }
            /* a decimal literal's text is its value: "expected 3, found 2",
             * not "expected 3 = 3, found 2" (interp/interp_check.c agrees) */
            {
                size_t digits = strspn(rhs_text, "0123456789");
                int literal = digits > 0 && rhs_text[digits + strspn(rhs_text + digits, " ")] == '\0';
                char *shown = c_format_body(rhs_text);
                mt = literal ? xstrdup("") : xprintf(" = %s", shown);
                free(shown);
            }
            if (rhs.t == VT_S || y->t == VT_S) {
                char *r = rhs.t == VT_S ? rhs.c : xprintf("(int64_t)%s", rhs.c);
                if (rhs.t != VT_S) {
                    /* unsigned right-hand side compared with a signed field */
                    cond = xprintf("afmt_cmp_i64_u64(%s, %s) != 0", y->c, rhs.c);
                } else if (y->t == VT_S) {
                    cond = xprintf("%s != %s", y->c, r);
                } else {
                    cond = xprintf("afmt_cmp_i64_u64(%s, %s) != 0", r, y->c);
                }
                fmt = xprintf("\"%s%sexpected %%\" PRId64 \"%s, found %%\" PRId64", c->message ? c_format_body(c->message) : "",
                              c->message ? ": " : "", mt);
                fmt = xprintf("%s \"\"", fmt);
                /* r is int64_t already; only an unsigned field needs the cast */
                args = xprintf(y->t == VT_S ? "%s, %s" : "%s, (int64_t)%s", r, y->c);
                if (r != rhs.c) free(r);
            } else {
                cond = xprintf("%s != %s", y->c, rhs.c);
                fmt = xprintf("\"%s%sexpected %%\" PRIu64 \"%s, found %%\" PRIu64 \"\"", c->message ? c_format_body(c->message) : "",
                              c->message ? ": " : "", mt);
                args = xprintf("%s, %s", rhs.c, y->c);
            }
            emit_fail_if(m, cond, bl, code, c->lenient, fmt, args);
            free(cond); free(fmt); free(args); free(mt); free(rhs.c);
            return;
        }
    }
    {
        char *cond = emit_bool(m, bl, c->e, c->text);
        char *mt = c_format_body(c->text);
        char *fmt, *args = NULL, *fail_cond = xprintf("!%s", cond);
        if (attr && attr->kind == SY_FLOAT) {
            fmt = xprintf("\"%s%s`%s` does not hold (%s = %%s)\"", c->message ? c_format_body(c->message) : "",
                          c->message ? ": " : "", mt, attr->name);
            args = xprintf("afmt_float_text(%s, %d).s", attr->c, attr->width);
            decl_use(m, attr->decl);
        } else if (attr && attr->kind == SY_INT) {
            fmt = xprintf("\"%s%s`%s` does not hold (%s = %%\" %s \")\"", c->message ? c_format_body(c->message) : "",
                          c->message ? ": " : "", mt, attr->name, attr->t == VT_S ? "PRId64" : "PRIu64");
            args = xstrdup(attr->c);
            decl_use(m, attr->decl);
        } else {
            fmt = xprintf("\"%s%s`%s` does not hold\"", c->message ? c_format_body(c->message) : "", c->message ? ": " : "", mt);
        }
        emit_fail_if(m, fail_cond, bl, code, c->lenient, fmt, args);
        note_nonneg_check(m, c);
        free(fail_cond); free(cond); free(mt); free(fmt); free(args);
    }
}

/* `o_<name>` is where field it starts (declared where used: returns the
 * declaration); afmt_take_field bounds-checks it (count_c elements of
 * width bytes, or one when count_c is NULL), moves pos past it and reports
 * it to a field visitor. */
static int take_field(emitter *m, const item *it, const char *kind, int width, const char *count_c,
                      int big_endian)
{
    const char *desc = field_desc(m, it, kind, width, count_c != NULL, big_endian);
    int off_decl = decl_defer(m, "const uint64_t o_%s = c->pos;", it->name);
    line(m, "if (afmt_take_field(c, &%s, %s)) return -1;", desc, count_c ? count_c : "1");
    return off_decl;
}

static void emit_int_field(emitter *m, item *it)
{
    blame bl;
    sym *y;
    char *ld;
    int off_decl = take_field(m, it, it->field.is_signed ? "AFMT_FIELD_INT" : "AFMT_FIELD_UINT", it->field.width,
                              NULL, it->field.big_endian);
    int val_decl;
    {
        char *p = xprintf("AFMT_B(c->src, o_%s)", it->name);
        ld = load_c(it->field.width, it->field.is_signed, it->field.big_endian, p);
        /* the value is declared if something reads it: a check, an
         * expression, a lookup (sym_find) */
        val_decl = decl_defer(m, "const %s v_%s = %s;", int_c_type(it->field.is_signed), it->name, ld);
        decl_needs(m, val_decl, off_decl);
        free(ld);
        free(p);
    }
    y = sym_push(m, SY_INT, it->name, it);
    y->decl = val_decl;
    y->off_decl = off_decl;
    y->t = it->field.is_signed ? VT_S : VT_U;
    str_printf(&y->c, "v_%s", it->name);
    str_printf(&y->off, "o_%s", it->name);
    y->width = it->field.width;
    y->is_signed = it->field.is_signed;
    y->big = it->field.big_endian;
    bl = blame_of(y);
    if (it->field.equals) {
        const char *code = it->field.equals_code ? it->field.equals_code : "constraint";
        decl_use(m, val_decl);
        if (it->field.is_signed) {
            line(m, "if (v_%s != INT64_C(%llu)) {", it->name, (unsigned long long)it->field.equals->ival);
            m->indent++;
            {
                char *fmt = xprintf("\"expected %llu, found %%\" PRId64 \"\"", (unsigned long long)it->field.equals->ival);
                char *args = xprintf("v_%s", it->name);
                emit_fail(m, &bl, code, it->field.equals_lenient, fmt, args);
                free(fmt); free(args);
            }
        } else {
            const uint64_t want = (uint64_t)it->field.equals->ival;
            char text[9];
            line(m, "if (v_%s != UINT64_C(%llu)) {", it->name, (unsigned long long)want);
            m->indent++;
            if (it->field.big_endian != ORDER_RUN && uint_magic_text(want, it->field.width, it->field.big_endian, text)) {
                /* a magic number: both as the bytes they are in the file,
                 * `expected "GGUF", found "GGUX"` (text has no '"', '\' or '%') */
                char *fmt = xprintf("\"expected \\\"%s\\\", found %%s\"", text);
                char *args = xprintf("afmt_bytes_text(AFMT_B(c->src, o_%s), %d).s", it->name, it->field.width);
                emit_fail(m, &bl, code, it->field.equals_lenient, fmt, args);
                free(fmt); free(args);
            } else {
                char *fmt = xprintf("\"expected %llu, found %%\" PRIu64 \"\"", (unsigned long long)want);
                char *args = xprintf("v_%s", it->name);
                emit_fail(m, &bl, code, it->field.equals_lenient, fmt, args);
                free(fmt); free(args);
            }
        }
        m->indent--;
        line(m, "}");
    }
    bl = blame_of(y);
    emit_checks(m, &bl, it->checks, it->nchecks, y);
}

/* A float field (f32, f64): its value a double, compared by "equals" as
 * a value (-0 equals 0, NaN equals nothing), shown in messages as its
 * shortest exact text (afmt_float_text). */
static void emit_float_field(emitter *m, item *it)
{
    blame bl;
    sym *y;
    int off_decl = take_field(m, it, "AFMT_FIELD_FLOAT", it->field.width, NULL, it->field.big_endian);
    int val_decl = decl_defer(m, "const double v_%s = afmt_float_get(AFMT_B(c->src, o_%s), %d, %s);", it->name,
                              it->name, it->field.width, big_c(m, it->field.big_endian));
    decl_needs(m, val_decl, off_decl);
    y = sym_push(m, SY_FLOAT, it->name, it);
    y->decl = val_decl;
    y->off_decl = off_decl;
    y->t = VT_F;
    str_printf(&y->c, "v_%s", it->name);
    str_printf(&y->off, "o_%s", it->name);
    y->width = it->field.width;
    y->big = it->field.big_endian;
    bl = blame_of(y);
    if (it->field.has_fequals) {
        const char *code = it->field.equals_code ? it->field.equals_code : "constraint";
        char *cond = xprintf("!(v_%s == %.17g)", it->name, it->field.fequals);
        char *fmt = xprintf("\"expected %s, found %%s\"", it->field.equals_text);
        char *args = xprintf("afmt_float_text(v_%s, %d).s", it->name, it->field.width);
        decl_use(m, val_decl);
        emit_fail_if(m, cond, &bl, code, it->field.equals_lenient, fmt, args);
        free(cond); free(fmt); free(args);
    }
    bl = blame_of(y);
    emit_checks(m, &bl, it->checks, it->nchecks, y);
}

/* A float array field (f32/f64 with "count"): count elements bounded in
 * one step, reported to a field visitor as one array, each element
 * compared by "equals" and checked by "each" as a float field is (the
 * element named as the field, its position `index`). */
static void emit_float_array_field(emitter *m, item *it)
{
    int off_decl;
    sym *y;
    m->jpath = it->jpath;
    {
        sym *count_sym = it->field.count->kind == E_NAME ? sym_peek(m, it->field.count->sval) : NULL;
        blame bl = blame_of(count_sym && count_sym->kind == SY_INT ? count_sym : NULL);
        char *cnt = emit_u64(m, &bl, it->field.count, it->field.count_text);
        line(m, "const uint64_t n_%s = %s;", it->name, cnt);
        free(cnt);
    }
    {
        char *cnt_c = xprintf("n_%s", it->name);
        off_decl = take_field(m, it, "AFMT_FIELD_FLOAT", it->field.width, cnt_c, it->field.big_endian);
        free(cnt_c);
    }
    y = sym_push(m, SY_FARR, it->name, it);
    y->off_decl = off_decl;
    y->width = it->field.width;
    y->big = it->field.big_endian;
    str_printf(&y->c, "AFMT_B(c->src, o_%s)", it->name);
    str_printf(&y->count, "n_%s", it->name);
    str_printf(&y->off, "o_%s", it->name);
    if (it->field.neach || it->field.has_fequals) {
        char *ic = xprintf("i_%s", it->name);
        char *oc = xprintf("o_%s + (uint64_t)%d * i_%s", it->name, it->field.width, it->name);
        blame bl = blame_at(it->name, ic, oc);
        int mark;
        sym *e, *ix;
        if (strcmp(it->name, "index") == 0)
            gen_unchecked(m, it->jpath, "an array field named 'index' with \"each\""); /* check_array_field */
        decl_use(m, off_decl);
        line(m, "for (uint64_t i_%s = 0; i_%s < n_%s; i_%s++) {", it->name, it->name, it->name, it->name);
        m->indent++;
        line(m, "const double e_%s = afmt_float_get(AFMT_B(c->src, %s), %d, %s);", it->name, oc, it->field.width,
             big_c(m, it->field.big_endian));
        mark = sym_mark(m);
        e = sym_push(m, SY_FLOAT, it->name, it);
        e->t = VT_F;
        e->width = it->field.width;
        e->big = it->field.big_endian;
        str_printf(&e->c, "e_%s", it->name);
        str_printf(&e->off, "%s", oc);
        ix = sym_push(m, SY_BUILTIN, "index", it);
        ix->t = VT_U;
        str_printf(&ix->c, "i_%s", it->name);
        if (it->field.has_fequals) {
            const char *code = it->field.equals_code ? it->field.equals_code : "constraint";
            char *cond = xprintf("!(e_%s == %.17g)", it->name, it->field.fequals);
            char *fmt = xprintf("\"expected %s, found %%s\"", it->field.equals_text);
            char *args = xprintf("afmt_float_text(e_%s, %d).s", it->name, it->field.width);
            emit_fail_if(m, cond, &bl, code, it->field.equals_lenient, fmt, args);
            free(cond); free(fmt); free(args);
        }
        emit_checks(m, &bl, it->field.each, it->field.neach, e);
        sym_pop_to(m, mark);
        m->indent--;
        line(m, "}");
        free(ic); free(oc);
    }
}

/* Is this array field used as an array's shape?  Its count is then a rank
 * and is held to limits.max_rank before anything else. */
static int used_as_shape(item_list *body, const char *name)
{
    int i, j;
    for (i = 0; i < body->n; i++) {
        item *it = body->v[i];
        /* (with "rank" its count is no rank: the rank expression is held) */
        if (it->kind == IT_ARRAY && it->array.shape_field && !it->array.rank && strcmp(it->array.shape_field, name) == 0)
            return 1;
        if (it->kind == IT_REGION || it->kind == IT_REPEAT)
            if (used_as_shape(&it->body, name)) return 1;
        if (it->kind == IT_SWITCH)
            for (j = 0; j < it->ncases; j++)
                if (used_as_shape(&it->cases[j].body, name)) return 1;
    }
    return 0;
}

/* An array field's count `n_<name>`; a count that is an array's rank is
 * held to limits.max_rank before anything else. */
static void array_field_count(emitter *m, item *it)
{
    sym *count_sym = it->field.count->kind == E_NAME ? sym_peek(m, it->field.count->sval) : NULL;
    blame bl = blame_of(count_sym && count_sym->kind == SY_INT ? count_sym : NULL);
    char *cnt = emit_u64(m, &bl, it->field.count, it->field.count_text);
    line(m, "const uint64_t n_%s = %s;", it->name, cnt);
    free(cnt);
    if (used_as_shape((item_list *)&m->s->body, it->name)) {
        char *args = xprintf("n_%s, c->opt->limits.max_rank < AFMT_RANK_CAP ? c->opt->limits.max_rank : (uint64_t)AFMT_RANK_CAP",
                             it->name);
        {
            char *cond = xprintf("n_%s > c->opt->limits.max_rank || n_%s > AFMT_RANK_CAP", it->name, it->name);
            emit_fail_if(m, cond, &bl, "limit", LEN_NONE, "\"rank %\" PRIu64 \" exceeds the limit of %\" PRIu64 \"\"", args);
            free(cond);
        }
        free(args);
    }
}

/* The symbol of an array field taken at o_<name> (off_decl). */
static sym *array_field_sym(emitter *m, item *it, int off_decl)
{
    sym *y = sym_push(m, SY_ARRF, it->name, it);
    char *p = xprintf("AFMT_B(c->src, o_%s + (uint64_t)%d * (%%s))", it->name, it->field.width);
    char *ld = load_c(it->field.width, it->field.is_signed, it->field.big_endian, p);
    y->off_decl = off_decl;
    y->t = it->field.is_signed ? VT_S : VT_U;
    str_printf(&y->c, "AFMT_B(c->src, o_%s)", it->name);
    str_printf(&y->count, "n_%s", it->name);
    str_printf(&y->off, "o_%s", it->name);
    str_printf(&y->elem, "%s", ld);
    y->width = it->field.width;
    y->is_signed = it->field.is_signed;
    y->big = it->field.big_endian;
    free(p);
    free(ld);
    return y;
}

/* "each": the checks of every element, in a loop over them. */
static void array_field_each(emitter *m, item *it, const sym *y)
{
    int mark;
    char *p = xprintf("AFMT_B(c->src, o_%s + (uint64_t)%d * i_%s)", it->name, it->field.width, it->name);
    char *ld = load_c(it->field.width, it->field.is_signed, it->field.big_endian, p);
    char *ic = xprintf("i_%s", it->name);
    char *oc = xprintf("o_%s + (uint64_t)%d * i_%s", it->name, it->field.width, it->name);
    sym *e, *ix;
    if (strcmp(it->name, "index") == 0)
        /* `index < n` would be the position, the element unnamed (and the
         * C that reported it did not compile: spec fuzzer seed 920102) */
        gen_unchecked(m, it->jpath, "an array field named 'index' with \"each\""); /* check_array_field */
    line(m, "for (uint64_t i_%s = 0; i_%s < n_%s; i_%s++) {", it->name, it->name, it->name, it->name);
    m->indent++;
    line(m, "const %s e_%s = %s;", int_c_type(it->field.is_signed), it->name, ld);
    mark = sym_mark(m);
    e = sym_push(m, SY_INT, it->name, it);
    ix = sym_push(m, SY_BUILTIN, "index", it);
    e->t = y->t;
    str_printf(&e->c, "e_%s", it->name);
    str_printf(&e->off, "%s", oc);
    ix->t = VT_U;
    str_printf(&ix->c, "i_%s", it->name);
    {
        blame bl = blame_at(it->name, ic, oc);
        emit_checks(m, &bl, it->field.each, it->field.neach, e);
    }
    sym_pop_to(m, mark);
    m->indent--;
    line(m, "}");
    free(p); free(ld); free(ic); free(oc);
}

/* "first" (last 0) or "last" (last 1): the value that element must have,
 * one runtime call (afmt_field_end_c: no element, or another value). */
static void array_field_end(emitter *m, item *it, const sym *y, int last)
{
    expr *want = last ? it->field.last : it->field.first;
    const char *wtext = last ? it->field.last_text : it->field.first_text;
    const char *desc = field_desc(m, it, it->field.is_signed ? "AFMT_FIELD_INT" : "AFMT_FIELD_UINT", it->field.width, 1,
                                  it->field.big_endian);
    blame bl = blame_at(it->name, "AFMT_NO_INDEX", y->off);
    char *w, *text;
    m->jpath = it->jpath;
    decl_use(m, y->off_decl);
    w = emit_u64(m, &bl, want, wtext);
    text = c_quote(wtext, strlen(wtext));
    line(m, "if (afmt_field_end_c(c, &%s, %s, n_%s, %d, %s, %s)) return -1;", desc, y->off, it->name, last, w, text);
    free(w);
    free(text);
}

/* An order the elements must be in: call_fmt (with %s for the local's
 * name) finds the first element out of order; fmt_c is the failure's
 * message. */
static void array_field_unordered(emitter *m, item *it, const char *call_c, const char *fmt_c)
{
    char *base = xprintf("%s_unordered_at", it->name);
    char *b = local_name(m, base);
    char *oc = xprintf("o_%s + (uint64_t)%d * %s", it->name, it->field.width, b);
    blame bl = blame_at(it->name, b, oc);
    line(m, "const uint64_t %s = %s;", b, call_c);
    {
        char *cond = xprintf("%s < n_%s", b, it->name);
        emit_fail_if(m, cond, &bl, "constraint", LEN_NONE, fmt_c, NULL);
        free(cond);
    }
    free(base); free(b); free(oc);
}

/* "order": increasing or non-decreasing elements. */
static void array_field_order(emitter *m, item *it)
{
    int strict = strcmp(it->field.order, "increasing") == 0;
    char *call = xprintf("afmt_field_unordered(AFMT_B(c->src, o_%s), n_%s, %d, %d, %s, %d)", it->name, it->name,
                         it->field.width, it->field.is_signed, big_c(m, it->field.big_endian), strict);
    char *fmt = xprintf("\"is %s than the element before it (must be %s)\"", strict ? "not greater" : "less",
                        strict ? "strictly increasing" : "non-decreasing");
    array_field_unordered(m, it, call, fmt);
    free(call); free(fmt);
}

/* "increasing_within": strictly increasing within each segment that
 * another array field's offsets mark. */
static void array_field_within(emitter *m, item *it)
{
    sym *seg = sym_find(m, it->field.increasing_within);
    char *call, *fmt;
    if (!seg || seg->kind != SY_ARRF) {
        gen_unchecked(m, it->jpath, "increasing_within not an array field"); /* check_array_field */
        return;
    }
    call = xprintf("afmt_field_unordered_within(AFMT_B(c->src, o_%s), n_%s, %d, %s, AFMT_B(c->src, %s), %s, %d, %s)", it->name,
                   it->name, it->field.width, big_c(m, it->field.big_endian), seg->off, seg->count, seg->width, big_c(m, seg->big));
    fmt = xprintf("\"is not greater than the element before it in the same segment of %s (must be strictly increasing "
                  "within each)\"", seg->name);
    array_field_unordered(m, it, call, fmt);
    free(call); free(fmt);
}

/* "increasing_segments": an earlier array field strictly increasing
 * within each segment this field's offsets (checked first) mark: CSC row
 * indices, read before their column starts. */
static void array_field_segments(emitter *m, item *it)
{
    sym *val = sym_find(m, it->field.increasing_segments);
    char *call, *fmt;
    if (!val || val->kind != SY_ARRF) {
        gen_unchecked(m, it->jpath, "increasing_segments not an array field"); /* check_array_field */
        return;
    }
    decl_use(m, val->off_decl);
    line(m, "{");
    m->indent++;
    line(m, "const uint64_t bad_%s = afmt_field_unordered_within(AFMT_B(c->src, %s), %s, %d, %s, AFMT_B(c->src, o_%s), n_%s, %d, %s);",
         it->name, val->off, val->count, val->width, big_c(m, val->big), it->name, it->name, it->field.width,
         big_c(m, it->field.big_endian));
    call = xprintf("bad_%s < %s", it->name, val->count);
    line(m, "if (%s) {", call);
    m->indent++;
    {
        char *ic = xprintf("bad_%s", it->name), *oc = xprintf("%s + (uint64_t)%d * bad_%s", val->off, val->width, it->name);
        blame bl = blame_at(val->name, ic, oc);
        fmt = xprintf("\"is not greater than the element before it in the same segment of %s (must be strictly increasing "
                      "within each)\"", it->name);
        emit_fail(m, &bl, "constraint", LEN_NONE, fmt, NULL);
        free(ic); free(oc); free(fmt);
    }
    m->indent--;
    line(m, "}");
    m->indent--;
    line(m, "}");
    free(call);
}

static void emit_array_field(emitter *m, item *it)
{
    int off_decl, i;
    sym *y;
    m->jpath = it->jpath;
    array_field_count(m, it);
    {
        /* the true count and width: a truncation says both and their product */
        char *cnt_c = xprintf("n_%s", it->name);
        off_decl = take_field(m, it, it->field.is_signed ? "AFMT_FIELD_INT" : "AFMT_FIELD_UINT", it->field.width, cnt_c,
                              it->field.big_endian);
        free(cnt_c);
    }
    y = array_field_sym(m, it, off_decl);
    /* the elements' own checks read them */
    if (it->field.neach || it->field.first || it->field.last || it->field.order || it->field.increasing_within ||
        it->field.increasing_segments || it->nchecks)
        decl_use(m, off_decl);
    {
        /* the checks of its elements, when of more than one kind, are a
         * function of their own (<format>_validate_<field>): a screenful
         * of their own, that reads the field and what they compare with */
        const int kinds = (it->field.neach > 0) + (it->field.first != NULL) + (it->field.last != NULL) +
                          (it->field.order != NULL) + (it->field.increasing_within != NULL) +
                          (it->field.increasing_segments != NULL);
        func_frame fr;
        if (kinds >= 2) func_begin(m, &fr, it->name);
        if (it->field.neach) array_field_each(m, it, y);
        if (it->field.first) array_field_end(m, it, y, 0);
        if (it->field.last) array_field_end(m, it, y, 1);
        if (it->field.order) array_field_order(m, it);
        if (it->field.increasing_within) array_field_within(m, it);
        if (it->field.increasing_segments) array_field_segments(m, it);
        if (kinds >= 2) func_end(m, &fr, NULL);
    }
    for (i = 0; i < it->nchecks; i++) {
        blame bl = blame_at(it->name, "AFMT_NO_INDEX", y->off);
        m->jpath = it->checks[i].jpath;
        emit_check(m, &bl, &it->checks[i], NULL);
    }
}

static void emit_text_field(emitter *m, item *it)
{
    blame bl;
    sym *y;
    int off_decl = take_field(m, it, "AFMT_FIELD_BYTES", it->field.size, NULL, 0);
    y = sym_push(m, SY_TEXT, it->name, it);
    y->off_decl = off_decl;
    if (it->field.equals || it->field.text_nul_padded || it->nchecks) decl_use(m, off_decl);
    str_printf(&y->c, "AFMT_B(c->src, o_%s)", it->name);
    str_printf(&y->off, "o_%s", it->name);
    y->size = it->field.size;
    bl = blame_of(y);
    if (it->field.equals) {
        char *padded = xcalloc((size_t)it->field.size + 1, 1);
        char *q;
        const char *code = it->field.equals_code ? it->field.equals_code : "magic";
        char *ce = code_enum(code);
        memcpy(padded, it->field.equals->sval, strlen(it->field.equals->sval));
        q = c_quote(padded, (size_t)it->field.size);
        line(m, "if (afmt_expect_bytes(c, \"%s\", %s, o_%s, %s, %d)) return -1;", it->name, ce,
             it->name, q, it->field.size);
        free(padded); free(q); free(ce);
    }
    if (it->field.text_nul_padded)
        line(m, "if (afmt_expect_text_slot(c, \"%s\", o_%s, %d)) return -1;", it->name, it->name, it->field.size);
    {
        int i;
        for (i = 0; i < it->nchecks; i++) {
            m->jpath = it->checks[i].jpath;
            bl = blame_of(y);
            emit_check(m, &bl, &it->checks[i], NULL);
        }
    }
}

/* One length-prefixed string: its length prefix and its bytes taken in
 * one step (afmt_take_string); its offset (of the prefix) and length are
 * what expressions read: len(s), s == "text". */
static void emit_one_string(emitter *m, item *it)
{
    const char *desc = field_desc(m, it, "AFMT_FIELD_BYTES", it->field.len_width, 0, it->field.big_endian);
    int off_decl = decl_defer(m, "const uint64_t o_%s = c->pos;", it->name);
    sym *y;
    line(m, "uint64_t len_%s;", it->name);
    line(m, "if (afmt_take_string(c, &%s, &len_%s)) return -1;", desc, it->name);
    y = sym_push(m, SY_STR, it->name, it);
    y->off_decl = off_decl;
    str_printf(&y->c, "len_%s", it->name);
    str_printf(&y->off, "o_%s", it->name);
    y->width = it->field.len_width;
    y->big = it->field.big_endian;
    if (it->nchecks) {
        blame bl = blame_of(y);
        emit_checks(m, &bl, it->checks, it->nchecks, NULL);
    }
}

/* A length-prefixed string (or `count` of them, back to back).  Only the
 * start offset and count are kept: users walk the records again. */
static void emit_string_field(emitter *m, item *it)
{
    blame bl;
    sym *y;
    char *ld = load_c(it->field.len_width, 0, it->field.big_endian, "AFMT_B(c->src, c->pos)");
    bl = blame_at(it->name, "AFMT_NO_INDEX", "c->pos");
    if (it->field.count) {
        char *cnt = emit_u64(m, &bl, it->field.count, it->field.count_text);
        line(m, "const uint64_t n_%s = %s;", it->name, cnt);
        free(cnt);
        /* each record has at least its length prefix: bound the loop by the
         * bytes that are really there before running it */
        line(m, "if ((%s - c->pos) / %d < n_%s) {", m->end, it->field.len_width, it->name);
        m->indent++;
        {
            char *args = xprintf("n_%s, %s - c->pos", it->name, m->end);
            char *fmt = xprintf("\"%%\" PRIu64 \" strings need at least %d bytes each, only %%\" PRIu64 \" left\"", it->field.len_width);
            emit_fail(m, &bl, "truncated", LEN_NONE, fmt, args);
            free(args); free(fmt);
        }
        m->indent--;
        line(m, "}");
    } else {
        emit_one_string(m, it);
        free(ld);
        return;
    }
    line(m, "const uint64_t o_%s = c->pos;", it->name);
    line(m, "for (uint64_t i_%s = 0; i_%s < n_%s; i_%s++) {", it->name, it->name, it->name, it->name);
    m->indent++;
    {
        char *ic = it->field.count ? xprintf("i_%s", it->name) : xstrdup("AFMT_NO_INDEX");
        char *w = xprintf("%d", it->field.len_width);
        bl = blame_at(it->name, ic, "c->pos");
        need_bytes(m, &bl, w, it->name);
        line(m, "const uint64_t len_%s = %s;", it->name, ld);
        line(m, "c->pos += %d;", it->field.len_width);
        {
            char *lc = xprintf("len_%s", it->name);
            need_bytes(m, &bl, lc, "a string");
            free(lc);
        }
        line(m, "c->pos += len_%s;", it->name);
        free(ic); free(w);
    }
    m->indent--;
    line(m, "}");
    /* labels and such are header: held to limits.max_header_bytes */
    line(m, "if (c->pos - o_%s > c->opt->limits.max_header_bytes) {", it->name);
    m->indent++;
    {
        char *field = xprintf("%s", it->name);
        char *args = xprintf("c->pos - o_%s, c->opt->limits.max_header_bytes", it->name);
        bl = blame_at(field, "AFMT_NO_INDEX", xprintf("o_%s", it->name));
        emit_fail(m, &bl, "limit", LEN_NONE, "\"strings of %\" PRIu64 \" bytes exceed the header limit of %\" PRIu64 \" bytes\"", args);
        free(field);
        free(args);
    }
    m->indent--;
    line(m, "}");
    free(ld);
    y = sym_push(m, SY_STRINGS, it->name, it);
    str_printf(&y->off, "o_%s", it->name);
    str_printf(&y->count, "n_%s", it->name);
    y->width = it->field.len_width;
    y->big = it->field.big_endian;
}


/* The failure of lookup it in table tb when cond holds: names the key
 * values found and the table's entries. */
static void lookup_fail(emitter *m, const blame *bl, item *it, const table *tb, char **keys, char *cond)
{
    int k;
    emit_if_open(m, "", cond);
    m->indent++;
    {
        sbuf fmt = {0}, args = {0};
        sb_puts(&fmt, "\"no entry of table ");
        sb_puts(&fmt, tb->name);
        sb_puts(&fmt, " matches (");
        for (k = 0; k < it->lookup.nkey; k++) {
            sym *ky = it->lookup.key[k]->kind == E_NAME ? sym_find(m, it->lookup.key[k]->sval) : NULL;
            sb_printf(&fmt, "%s%s = ", k ? ", " : "", it->lookup.key[k]->kind == E_NAME ? it->lookup.key[k]->sval : "key");
            if (ky && ky->kind == SY_TEXT) {
                /* the key's bytes as printable text */
                char *base = xprintf("%s_escaped", ky->name);
                char *esc = local_name(m, base);
                line(m, "char %s[%d];", esc, ky->size * 4 + 3);
                line(m, "afmt_escape_text(%s, %d, %s, sizeof %s);", keys[k], ky->size, esc, esc);
                sb_puts(&fmt, "%s");
                sb_printf(&args, ", %s", esc);
                free(base);
                free(esc);
            } else if (ky && ky->t == VT_S) {
                sb_puts(&fmt, "%\" PRId64 \"");
                sb_printf(&args, ", (int64_t)%s", keys[k]);
            } else {
                sb_puts(&fmt, "%\" PRIu64 \"");
                sb_printf(&args, ", (uint64_t)%s", keys[k]);
            }
        }
        sb_puts(&fmt, "): unknown type code%s\"");
        sb_printf(&args, ", %s", known_table(m, tb));
        emit_fail(m, bl, "unknown-type", LEN_NONE, fmt.s, args.s ? args.s + 2 : NULL);
        sb_free(&fmt);
        sb_free(&args);
    }
    m->indent--;
    line(m, "}");
    free(cond);
}

/* The C values of a lookup's keys: a text field's bytes, or an integer. */
static char **lookup_keys(emitter *m, const blame *bl, item *it)
{
    char **keys = xcalloc((size_t)it->lookup.nkey + 1, sizeof *keys);
    int k;
    for (k = 0; k < it->lookup.nkey; k++) {
        sym *ky = it->lookup.key[k]->kind == E_NAME ? sym_find(m, it->lookup.key[k]->sval) : NULL;
        if (ky && ky->kind == SY_TEXT) {
            keys[k] = xstrdup(ky->c);
        } else {
            cexpr c = emit_expr(m, bl, it->lookup.key[k], "lookup key");
            if (c.t != VT_U && c.t != VT_S) gen_error(m, it->jpath, "lookup key %d is not an integer or a text field", k);
            keys[k] = c.c;
        }
    }
    return keys;
}

/* A table of one literal key per entry: one runtime lookup in the shared
 * afmt_type_entry table.  0 when the table is not that simple. */
static int lookup_by_table(emitter *m, const blame *bl, item *it, const table *tb, char **keys)
{
    sym *ky = it->lookup.nkey == 1 && it->lookup.key[0]->kind == E_NAME ? sym_find(m, it->lookup.key[0]->sval) : NULL;
    const int text_key = ky && ky->kind == SY_TEXT;
    const char *tname = it->lookup.nkey == 1 ? type_table(m, tb, text_key ? ky->size : 0) : NULL;
    if (!tname) return 0;
    if (text_key && strcmp(ky->name, bl->field) == 0) {
        /* found, or refused naming the key's text and the table's entries:
         * one call */
        const char *known = known_table(m, tb);
        char *field = c_quote(bl->field, strlen(bl->field));
        decl_use(m, bl->off_decl);
        line(m, "const afmt_type_entry *%s_entry = afmt_lookup_text(c, %s, %d, %s, %d, \"%s\", %s, %s, %s, %s);", it->lookup.cname,
             tname, tb->nentries, keys[0], ky->size, tb->name, field, bl->index, bl->offset, known);
        line(m, "if (!%s_entry) return -1;", it->lookup.cname);
        free(field);
    } else {
        if (text_key)
            line(m, "const afmt_type_entry *%s_entry = afmt_type_by_text(%s, %d, %s, %d);", it->lookup.cname, tname,
                 tb->nentries, keys[0], ky->size);
        else
            line(m, "const afmt_type_entry *%s_entry = afmt_type_by_code(%s, %d, (uint64_t)%s);", it->lookup.cname, tname,
                 tb->nentries, keys[0]);
        lookup_fail(m, bl, it, tb, keys, xprintf("!%s_entry", it->lookup.cname));
    }
    line(m, "const afmt_elem %s_type = afmt_elem_of(%s_entry);", it->lookup.cname, it->lookup.cname);
    return 1;
}

/* A table of plain types and block types (type_block_tables: gguf's
 * ggml): the code looked up among the plain ones, then among the blocks,
 * as the writer's table of blocks.  0 when the table is not like that. */
static int lookup_by_block_tables(emitter *m, const blame *bl, item *it, const table *tb, char **keys)
{
    sym *ky = it->lookup.nkey == 1 && it->lookup.key[0]->kind == E_NAME ? sym_find(m, it->lookup.key[0]->sval) : NULL;
    const char *tname, *blocks = NULL;
    const char *lk = it->lookup.cname;
    int nplain = 0, nblocks = 0;
    if (it->lookup.nkey != 1 || (ky && ky->kind == SY_TEXT)) return 0;
    tname = type_block_tables(m, tb, &nplain, &blocks, &nblocks);
    if (!tname) return 0;
    line(m, "const afmt_type_entry *%s_entry = afmt_type_by_code(%s, %d, (uint64_t)%s);", lk, tname, nplain, keys[0]);
    line(m, "const afmt_block_entry *%s_block = %s_entry ? NULL : afmt_block_by_code(%s, %d, (uint64_t)%s);", lk, lk,
         blocks, nblocks, keys[0]);
    lookup_fail(m, bl, it, tb, keys, xprintf("!%s_entry && !%s_block", lk, lk));
    line(m, "const afmt_elem %s_type = %s_entry ? afmt_elem_of(%s_entry) : afmt_elem_of_block(%s_block);", lk, lk, lk, lk);
    return 1;
}

/* The condition under which entry te's keys match (into cond). */
static void entry_condition(emitter *m, item *it, const table_entry *te, char **keys, sbuf *cond)
{
    int k;
    for (k = 0; k < te->nkey && k < it->lookup.nkey; k++) {
        sym *ky = it->lookup.key[k]->kind == E_NAME ? sym_find(m, it->lookup.key[k]->sval) : NULL;
        if (k) sb_puts(cond, " && ");
        if (ky && ky->kind == SY_TEXT) {
            char *padded, *q;
            if (te->key[k]->kind != E_STR) { gen_error(m, te->jpath, "key %d must be text: the lookup key is a text field", k); continue; }
            if ((int)strlen(te->key[k]->sval) > ky->size) { gen_error(m, te->jpath, "\"%s\" is longer than field '%s'", te->key[k]->sval, ky->name); continue; }
            padded = xcalloc((size_t)ky->size + 1, 1);
            memcpy(padded, te->key[k]->sval, strlen(te->key[k]->sval));
            q = c_quote(padded, (size_t)ky->size);
            sb_printf(cond, "memcmp(%s, %s, %d) == 0", keys[k], q, ky->size);
            free(padded); free(q);
        } else {
            if (te->key[k]->kind != E_INT) { gen_error(m, te->jpath, "key %d must be an integer", k); continue; }
            if (ky && ky->t == VT_S)
                sb_printf(cond, "%s == INT64_C(%llu)", keys[k], (unsigned long long)te->key[k]->ival);
            else
                sb_printf(cond, "%s == UINT64_C(%llu)", keys[k], (unsigned long long)te->key[k]->ival);
        }
    }
}

/* What matching entry te sets: the dtype, the size (opaque: its "size"),
 * the encoding, and its warning. */
static void entry_values(emitter *m, const blame *bl, item *it, const table_entry *te, sym *attr)
{
    const char *dt = dtype_enum(te->dtype);
    line(m, "%s_type.dtype = %s;", it->lookup.cname, dt);
    if (te->block_elems) {
        line(m, "%s_type.size = UINT64_C(%llu);", it->lookup.cname, (unsigned long long)te->block_bytes);
        line(m, "%s_type.block = UINT64_C(%llu);", it->lookup.cname, (unsigned long long)te->block_elems);
    } else if (te->size) {
        char *sz = emit_u64(m, bl, te->size, "entry size");
        line(m, "%s_type.size = %s;", it->lookup.cname, sz);
        free(sz);
    } else {
        line(m, "%s_type.size = afmt_dtype_get(%s)->size;", it->lookup.cname, dt);
    }
    if (te->type_name) line(m, "%s_type.name = \"%s\";", it->lookup.cname, te->type_name);
    if (te->encoding && strcmp(te->encoding, "bits-lsb") == 0) {
        if (strcmp(te->dtype, "bool") != 0) gen_error(m, te->jpath, "bits-lsb encoding is for bool only");
        line(m, "%s_type.enc = AFMT_ENC_BITS_LSB;", it->lookup.cname);
    }
    if (te->warn) {
        char *q = c_format_literal(te->warn);
        if (attr) decl_use(m, attr->off_decl);
        line(m, "afmt_warn(c->vis, c->path, %s, AFMT_NO_INDEX, %s, %s);", attr ? xprintf("\"%s\"", attr->name) : "NULL",
             attr ? attr->off : "c->pos", q);
        free(q);
    }
}

/* Entry i of the chain of a table that is not simple: keys or a "when"
 * condition, a size (opaque), an encoding, a warning.  A "when" entry's
 * condition may need statements, so it opens a block, and its if heads the
 * rest of the chain inside that block (an entry after it is an `else if`
 * of its if, not of the block): 1 when it left that block open for the
 * caller to close after the chain, else 0. */
static int lookup_entry(emitter *m, const blame *bl, item *it, int i, const table_entry *te, sym *attr, char **keys)
{
    const char *dt = te->dtype ? dtype_enum(te->dtype) : NULL;
    if (!dt) {
        gen_error(m, te->jpath, "unknown dtype '%s' (known: bool i8 i16 i32 i64 u8 u16 u32 u64 f16 bf16 f32 f64 c64 c128 opaque)",
                  te->dtype ? te->dtype : "");
        return 0;
    }
    if ((strcmp(te->dtype, "opaque") == 0) != (te->size != NULL || te->block_elems != 0))
        gen_error(m, te->jpath, "\"size\" (or \"block\") is given exactly for opaque entries");
    if (te->key) {
        sbuf cond = {0};
        entry_condition(m, it, te, keys, &cond);
        emit_if_open(m, i ? "} else " : "", cond.s ? cond.s : "1");
        sb_free(&cond);
    } else {
        char *b;
        line(m, "%s{", i ? "} else " : "");
        m->indent++;
        b = emit_bool(m, bl, te->when, te->when_text);
        emit_if_open(m, "", b);
        free(b);
    }
    m->indent++;
    entry_values(m, bl, it, te, attr);
    m->indent--;
    return !te->key;
}

/* A table of two unsigned integer keys whose keyed entries come first,
 * plain (entry2_plain), and whose "when" entries (if any) follow: one
 * runtime lookup in an afmt_type_entry2 table, then the "when" entries in
 * order when it finds none.  0 when the table is not like that. */
static int lookup_by_table2(emitter *m, const blame *bl, item *it, const table *tb, sym *attr, char **keys)
{
    int i, nplain = 0, warns = 0, k;
    const char *tname;
    if (it->lookup.nkey != 2) return 0;
    for (k = 0; k < 2; k++) {
        sym *ky = it->lookup.key[k]->kind == E_NAME ? sym_peek(m, it->lookup.key[k]->sval) : NULL;
        if (!ky || ky->kind != SY_INT || ky->t != VT_U) return 0;
    }
    nplain = table2_plain_count(tb);
    for (i = 0; i < nplain; i++) warns |= tb->entries[i].warn != NULL;
    for (i = nplain; i < tb->nentries; i++) {
        /* a "when" entry, well formed (lookup_entry reports the others) */
        const table_entry *te = &tb->entries[i];
        if (te->key || !te->dtype || !dtype_enum(te->dtype) || (strcmp(te->dtype, "opaque") == 0) != (te->size != NULL))
            return 0;
    }
    if (nplain == 0 || !(tname = type_table2(m, tb, nplain))) return 0;
    line(m, "const afmt_type_entry2 *%s_entry = afmt_type_by_codes(%s, %d, %s, %s);", it->lookup.cname, tname, nplain, keys[0],
         keys[1]);
    line(m, "%safmt_elem %s_type = afmt_elem_of2(%s_entry);", nplain < tb->nentries ? "" : "const ", it->lookup.cname, it->lookup.cname);
    if (warns) {
        if (attr) decl_use(m, attr->off_decl);
        line(m, "if (%s_entry && %s_entry->warn)", it->lookup.cname, it->lookup.cname);
        line(m, "    afmt_warn(c->vis, c->path, %s, AFMT_NO_INDEX, %s, \"%%s\", %s_entry->warn);",
             attr ? xprintf("\"%s\"", attr->name) : "NULL", attr ? attr->off : "c->pos", it->lookup.cname);
    }
    /* the "when" entries, in order: the first that holds */
    for (i = nplain; i < tb->nentries; i++) {
        const table_entry *te = &tb->entries[i];
        char *b;
        line(m, "if (%s_type.dtype == AFMT_DTYPE_INVALID) {", it->lookup.cname);
        m->indent++;
        b = emit_bool(m, bl, te->when, te->when_text);
        emit_if_open(m, "", b);
        free(b);
        m->indent++;
        entry_values(m, bl, it, te, attr);
        m->indent--;
        line(m, "}");
        m->indent--;
        line(m, "}");
    }
    return 1;
}

static void emit_lookup(emitter *m, item *it)
{
    blame bl;
    const table *tb = find_table(m->s, it->lookup.table ? it->lookup.table : "");
    sym *y, *attr = NULL;
    char **keys;
    int i, k, by_table;
    m->jpath = it->jpath;
    if (!tb || (tb->nkeys >= 0 && tb->nkeys != it->lookup.nkey)) { /* check_lookup */
        gen_unchecked(m, it->jpath, "a lookup in an unknown table, or with keys of another arity");
        return;
    }
    if (it->attribute) {
        attr = sym_peek(m, it->attribute);
        if (!attr) gen_unchecked(m, it->jpath, "a lookup's unknown \"field\"");
    } else if (it->lookup.nkey > 0 && it->lookup.key[0]->kind == E_NAME) {
        attr = sym_peek(m, it->lookup.key[0]->sval);
    }
    bl = blame_of(attr);
    keys = lookup_keys(m, &bl, it);
    by_table = lookup_by_table(m, &bl, it, tb, keys) || lookup_by_block_tables(m, &bl, it, tb, keys);
    if (!by_table && lookup_by_table2(m, &bl, it, tb, attr, keys)) {
        lookup_fail(m, &bl, it, tb, keys, xprintf("%s_type.dtype == AFMT_DTYPE_INVALID", it->lookup.cname));
        by_table = 1;
    }
    if (!by_table) line(m, "afmt_elem %s_type = AFMT_ELEM_NONE;", it->lookup.cname);
    y = sym_push(m, SY_LOOKUP, it->name, it);
    str_printf(&y->c, "%s_type", it->lookup.cname);
    y->tb = tb;
    /* a lookup only for its check (a case without an array): marked when unread */
    y->decl = decl_new(m);
    decl_unless_used(m, y->decl, "(void)%s_type; /* not read */", it->lookup.cname);
    if (!by_table) {
        /* a chain over the entries, in the table's order */
        int open = 0;
        for (i = 0; i < tb->nentries; i++) open += lookup_entry(m, &bl, it, i, &tb->entries[i], attr, keys);
        line(m, "}");
        for (; open > 0; open--) {
            m->indent--;
            line(m, "}");
        }
        lookup_fail(m, &bl, it, tb, keys, xprintf("%s_type.dtype == AFMT_DTYPE_INVALID", it->lookup.cname));
    }
    for (k = 0; k < it->lookup.nkey; k++) free(keys[k]);
    free(keys);
}

/* The element count n_<name> of an array: the product of a shape field's
 * elements (*shp), or of the spec's dimension expressions (*dims, one
 * local each).  0 when the shape is not usable (reported). */
/* Is C expression s one identifier (a local or parameter)? */
static int is_c_name(const char *s)
{
    size_t i;
    if (!(isalpha((unsigned char)s[0]) || s[0] == '_')) return 0;
    for (i = 1; s[i]; i++)
        if (!(isalnum((unsigned char)s[i]) || s[i] == '_')) return 0;
    return 1;
}

/* "rank": the shape is the first rank_<a> entries of array field shp; the
 * rank is at most its count (else `constraint`) and held to the rank
 * limits; n_<a> their product. */
static void array_rank_prefix(emitter *m, item *it, sym *shp)
{
    sym *ry = it->array.rank->kind == E_NAME ? sym_peek(m, it->array.rank->sval) : NULL;
    blame rb = blame_of(ry && ry->kind == SY_INT ? ry : NULL);
    char *r = emit_u64(m, &rb, it->array.rank, it->array.rank_text), *cond, *fmt, *args, *field, *q, *call;
    line(m, "const uint64_t rank_%s = %s;", it->name, r);
    cond = xprintf("rank_%s > %s", it->name, shp->count);
    fmt = xprintf("\"rank %%\" PRIu64 \" exceeds the %%\" PRIu64 \" entries of %s\"", shp->name);
    args = xprintf("rank_%s, %s", it->name, shp->count);
    emit_fail_if(m, cond, &rb, "constraint", LEN_NONE, fmt, args);
    free(cond); free(fmt); free(args);
    cond = xprintf("rank_%s > c->opt->limits.max_rank || rank_%s > AFMT_RANK_CAP", it->name, it->name);
    args = xprintf("rank_%s, c->opt->limits.max_rank < AFMT_RANK_CAP ? c->opt->limits.max_rank : (uint64_t)AFMT_RANK_CAP",
                   it->name);
    emit_fail_if(m, cond, &rb, "limit", LEN_NONE, "\"rank %\" PRIu64 \" exceeds the limit of %\" PRIu64 \"\"", args);
    free(cond); free(args);
    /* the product of the entries taken, as prod() computes it */
    field = c_quote(shp->name, strlen(shp->name));
    q = xprintf("\"prod(%s[0..%s))\"", shp->name, it->array.rank_text);
    line(m, "uint64_t n_%s;", it->name);
    call = xprintf("afmt_field_prod_c(c, \"%s\", %s, rank_%s, %d, %d, %s, %s, AFMT_NO_INDEX, %s, %s, &n_%s)", shp->name,
                   shp->off, it->name, shp->width, shp->is_signed, big_c(m, shp->big), field, shp->off, q, it->name);
    decl_use(m, shp->off_decl);
    emit_if_stmt(m, call, "return -1;");
    free(r); free(field); free(q); free(call);
}

static int array_count(emitter *m, item *it, sym **shp, char ***dims)
{
    blame bl;
    int i;
    if (it->array.shape_field && it->array.rank) {
        *shp = sym_find(m, it->array.shape_field);
        if (!*shp || (*shp)->kind != SY_ARRF) {
            gen_unchecked(m, it->jpath, "\"shape\" not an array field"); /* check_array */
            return 0;
        }
        array_rank_prefix(m, it, *shp);
        return 1;
    }
    if (it->array.shape_field) {
        expr call, arg;
        expr *args[1];
        char *c, *text;
        *shp = sym_find(m, it->array.shape_field);
        if (!*shp || (*shp)->kind != SY_ARRF) {
            gen_unchecked(m, it->jpath, "\"shape\" not an array field"); /* check_array */
            return 0;
        }
        memset(&call, 0, sizeof call);
        memset(&arg, 0, sizeof arg);
        arg.kind = E_NAME;
        arg.sval = (char *)(*shp)->name;
        args[0] = &arg;
        call.kind = E_CALL;
        call.sval = (char *)"prod";
        call.args = args;
        call.nargs = 1;
        bl = blame_at((*shp)->name, "AFMT_NO_INDEX", (*shp)->off);
        text = xprintf("prod(%s)", (*shp)->name);
        c = emit_u64(m, &bl, &call, text);
        line(m, "const uint64_t n_%s = %s;", it->name, c);
        free(c);
        free(text);
        return 1;
    }
    if (it->array.nshape > AFMT_GEN_FIELD_MAX_) gen_error(m, it->jpath, "too many dimensions");
    *dims = xcalloc((size_t)it->array.nshape + 1, sizeof **dims);
    /* the product, 0 if a dimension is 0 whatever the others (afmt_count) */
    line(m, "afmt_count k_%s = AFMT_COUNT_INIT;", it->name);
    for (i = 0; i < it->array.nshape; i++) {
        sym *ds = it->array.shape[i]->kind == E_NAME ? sym_peek(m, it->array.shape[i]->sval) : NULL;
        char *d, *base = xprintf("%s_dim%d", it->name, i), *field;
        bl = blame_of(ds && ds->kind == SY_INT ? ds : NULL);
        d = emit_u64(m, &bl, it->array.shape[i], it->array.shape_text[i]);
        if (is_c_name(d)) {
            (*dims)[i] = xstrdup(d); /* a value already named: no copy */
        } else {
            (*dims)[i] = local_name(m, base);
            line(m, "const uint64_t %s = %s;", (*dims)[i], d);
        }
        /* the count times the dimension, an overflow blamed on the
         * dimension's field: one call */
        decl_use(m, bl.off_decl);
        field = c_quote(bl.field, strlen(bl.field));
        line(m, "afmt_count_dim(&k_%s, %s, %s, %s);", it->name, (*dims)[i], field, bl.offset);
        free(field);
        free(d);
        free(base);
    }
    line(m, "uint64_t n_%s;", it->name);
    line(m, "if (afmt_count_end(c, &k_%s, &n_%s)) return -1;", it->name, it->name);
    return 1;
}

/* The view of the array, described before the payload is taken (a stream
 * may drop the header bytes it comes from while reading the payload
 * through): type, count, dims, and what the layout, the encoding and a
 * tiling repeat add. */
static void array_view(emitter *m, item *it, const layout_module *lay, const encoding_module *enc, layout_emit *le,
                       sym *shp)
{
    sym *lk = le->lk;
    const repeat_module *rm = m->tiles ? repeat_module_of(m->tiles) : NULL;
    int i;
    /* the view is described only when a visitor wants arrays (view_<a>
     * NULL: none does) */
    line(m, "afmt_array a_%s;", it->name);
    line(m, "afmt_array *const view_%s = afmt_view_begin(c, &a_%s, %s, n_%s, %s, %s, nbytes_%s);",
         it->name, it->name, lk->c, it->name, it->array.col_major ? "AFMT_COL_MAJOR" : "AFMT_ROW_MAJOR",
         endian_c(m, it->array.payload_big), it->name);
    line(m, "if (view_%s) {", it->name);
    m->indent++;
    if (shp) {
        const char *desc = field_desc(m, shp->it, shp->is_signed ? "AFMT_FIELD_INT" : "AFMT_FIELD_UINT", shp->width, 1, shp->big);
        if (it->array.rank)
            line(m, "if (afmt_view_dims(c, &a_%s, &%s, %s, rank_%s)) return -1;", it->name, desc, shp->off, it->name);
        else
            line(m, "if (afmt_view_dims(c, &a_%s, &%s, %s, %s)) return -1;", it->name, desc, shp->off, shp->count);
    } else {
        line(m, "a_%s.rank = %d;", it->name, it->array.nshape);
        for (i = 0; i < it->array.nshape; i++) line(m, "a_%s.dims[%d] = %s;", it->name, i, le->dims[i]);
    }
    if (enc && enc->view) enc->view(m, it, lk);
    if (it->array.logical_from) {
        /* the values' type, where it is not the stored one */
        sym *ll = sym_find(m, it->array.logical_from);
        if (ll && ll->kind == SY_LOOKUP) line(m, "afmt_view_logical(&a_%s, %s);", it->name, ll->c);
    }
    if (lay && lay->view) lay->view(m, it, le);
    /* an array in a block of the innermost repeat that has a module */
    if (rm && rm->array_view) rm->array_view(m, it);
    if (lay && lay->view_after_tiles) lay->view_after_tiles(m, it, le);
    if (it->array.name_from) {
        sym *nm = sym_find(m, it->array.name_from);
        if (nm && nm->kind == SY_ARRF && nm->width == 1) { /* bytes of a run-time count */
            decl_use(m, nm->off_decl);
            line(m, "afmt_copy_text(a_%s.name, sizeof a_%s.name, AFMT_B(c->src, %s), %s);", it->name, it->name, nm->off, nm->count);
        } else if (!nm || nm->kind != SY_TEXT)
            gen_unchecked(m, it->jpath, "\"name\" not text or bytes"); /* check_array */
        else line(m, "afmt_copy_text(a_%s.name, sizeof a_%s.name, %s, %d);", it->name, it->name, nm->c, nm->size);
    }
    m->indent--;
    line(m, "}");
}

/* The failure of a bool payload's scan (check_values): a bad bool byte,
 * or nonzero padding bits of a bit-packed one. */
static void array_scan_fail(emitter *m, item *it, const sym *lk)
{
    char *oc = xprintf("c->pos + bad_%s", it->name);
    char *ic = xprintf("bad_%s", it->name);
    blame bl;
    line(m, "if (bad_%s < nbytes_%s) {", it->name, it->name);
    m->indent++;
    line(m, "if (%s.enc == AFMT_ENC_BITS_LSB) {", lk->c);
    m->indent++;
    bl = blame_at(it->name, "AFMT_NO_INDEX", oc);
    emit_fail(m, &bl, "padding", it->array.values_lenient, "\"unused bits of the last byte (0x%02x) are not zero\"", "c->src->bad_byte");
    m->indent--;
    line(m, "} else {");
    m->indent++;
    bl = blame_at(it->name, ic, oc);
    emit_fail(m, &bl, "value", it->array.values_lenient, "\"bool element is 0x%02x, not 0 or 1\"", "c->src->bad_byte");
    m->indent--;
    line(m, "}");
    m->indent--;
    line(m, "}");
    free(oc);
    free(ic);
}

/* Take the payload: bounds, value checks on the way, and (for a stream)
 * reading it through. */
static void array_take(emitter *m, item *it, const encoding_module *enc, const sym *lk)
{
    char *scan = xstrdup("NULL"), *ctx = xstrdup("NULL"), *bad = xstrdup("NULL");
    if (it->array.check_values) {
        line(m, "afmt_scan_fn scan_%s = NULL;", it->name);
        line(m, "if (c->opt->check_values && %s.dtype == AFMT_BOOL%s)", lk->c, enc && enc->scan_guard ? enc->scan_guard(it) : "");
        m->indent++;
        line(m, "scan_%s = %s.enc == AFMT_ENC_BITS_LSB ? afmt_src_scan_pad_bits : afmt_src_scan_bool;", it->name, lk->c);
        m->indent--;
        line(m, "uint64_t bad_%s;", it->name);
        free(scan); free(ctx); free(bad);
        scan = xprintf("scan_%s", it->name);
        ctx = xprintf("&stored_%s", it->name);
        bad = xprintf("&bad_%s", it->name);
    }
    line(m, "if (afmt_take_payload(c, \"%s\", nbytes_%s, %s, (void *)%s, %s)) return -1;", it->name, it->name, scan, ctx,
         bad);
    if (it->array.check_values) array_scan_fail(m, it, lk);
    free(scan); free(ctx); free(bad);
}

static void emit_array(emitter *m, item *it)
{
    const layout_module *lay = layout_by_id(it->array.layout); /* NULL: dense */
    const encoding_module *enc = encoding_of(it); /* NULL: as the dtype says */
    layout_emit le;
    sym *lk, *shp = NULL, *y;
    char **dims = NULL;
    int i;
    memset(&le, 0, sizeof le);
    if (lay && lay->validate) {
        lay->validate(m, it);
        return;
    }
    if (lay && lay->resolve && lay->resolve(m, it, &le)) return;
    lk = sym_find(m, it->array.dtype_from ? it->array.dtype_from : "");
    m->jpath = it->jpath;
    if (!lk || lk->kind != SY_LOOKUP) {
        gen_unchecked(m, it->jpath, "\"dtype\" not a lookup"); /* check_array */
        return;
    }
    if (!array_count(m, it, &shp, &dims)) return;
    le.lk = lk;
    le.dims = dims;
    if (lay && lay->stored) lay->stored(m, it, &le);
    else line(m, "const uint64_t stored_%s = n_%s;", it->name, it->name);
    if (!(lay && lay->computes_nbytes)) line(m, "uint64_t nbytes_%s;", it->name);
    if (enc && enc->validate_size_open) enc->validate_size_open(m, it, lk);
    if (!(lay && lay->computes_nbytes))
        line(m, "if (afmt_payload_bytes(c, \"%s\", stored_%s, %s, &nbytes_%s)) return -1;", it->name, it->name, lk->c,
             it->name);
    if (enc && enc->validate_size_close) enc->validate_size_close(m, it, lk);
    if (lay && lay->records) lay->records(m, it, &le);
    /* the view is handed over after the payload has passed its checks */
    array_view(m, it, lay, enc, &le, shp);
    if (!it->array.check_values) {
        /* take, hand over, count, move on: one call */
        line(m, "if (afmt_take_view(c, \"%s\", view_%s, nbytes_%s)) return -1;", it->name, it->name, it->name);
    } else {
        array_take(m, it, enc, lk);
        line(m, "if (view_%s && afmt_view_hand(c, \"%s\", view_%s, nbytes_%s)) return -1;", it->name, it->name,
             it->name, it->name);
        line(m, "c->narrays++;");
        line(m, "c->pos += nbytes_%s;", it->name);
    }
    y = sym_push(m, SY_PAYLOAD, it->name, it);
    str_printf(&y->c, "%s", it->name);
    if (dims) {
        for (i = 0; i < it->array.nshape; i++) free(dims[i]);
        free(dims);
    }
}

/* The integer field a count names when it is one field alone
 * ("count": "tensor_count"), else NULL. */
static sym *count_field(emitter *m, const item *it)
{
    sym *y;
    if (!it->arg || it->arg->kind != E_NAME) return NULL;
    y = sym_peek(m, it->arg->sval);
    return y && y->kind == SY_INT && y->it && y->it->kind == IT_FIELD && y->off[0] ? y : NULL;
}

/* A counted repetition's count_<name>, held to the bytes left: every
 * repetition consumes at least one byte (checked after each), so a count
 * larger than the bytes left is a truncation, found now.  A count that is
 * one field is what is wrong, so it is blamed, at its own offset
 * (`tensor_count at offset 8: 1000000 repetitions of tensor cannot fit in
 * the 68 bytes left at offset 132`); a computed one, the repeat. */
static void repeat_count(emitter *m, item *it)
{
    sym *y = count_field(m, it);
    blame bl = y ? blame_of(y) : blame_at(it->name, "AFMT_NO_INDEX", "c->pos");
    char *cnt = emit_u64(m, &bl, it->arg, it->arg_text);
    line(m, "const uint64_t count_%s = %s;", it->name, cnt);
    {
        char *cond = xprintf("afmt_count_exceeds(c, count_%s)", it->name);
        if (y) {
            char *fmt = xprintf("\"%%\" PRIu64 \" repetition%%s of %s cannot fit in the %%\" PRIu64 \" byte%%s left "
                                "at offset %%\" PRIu64 \"\"", it->name);
            char *args = xprintf("count_%s, count_%s == 1 ? \"\" : \"s\", %s - c->pos, %s - c->pos == 1 ? \"\" : \"s\", "
                                 "c->pos", it->name, it->name, m->end, m->end);
            sym_find(m, y->name); /* its offset is read */
            emit_fail_if(m, cond, &bl, "truncated", LEN_NONE, fmt, args);
            free(fmt);
            free(args);
        } else {
            char *args = xprintf("count_%s, %s - c->pos", it->name, m->end);
            emit_fail_if(m, cond, &bl, "truncated", LEN_NONE,
                         "\"%\" PRIu64 \" repetitions cannot fit in the %\" PRIu64 \" bytes left\"", args);
            free(args);
        }
        free(cond);
    }
    free(cnt);
}

/* What starts each repetition: blanks skipped, the end of the input or
 * the module ending the loop, the limit on repetitions, the path's index. */
static void repeat_head(emitter *m, item *it, const repeat_module *rmod, const char *r)
{
    /* a top-level repetition needs nothing of the ones before it: a
     * stream drops the blanks as it skips them (release), or the bytes
     * before the repetition (keep_from), so that a run longer than its
     * window still reaches the next item or the end */
    const int top = m->region == NULL;
    blame bl = blame_at(it->name, "AFMT_NO_INDEX", "c->pos");
    if (it->repeat.skip_ws == 2) {
        /* whitespace and "--" line comments (futhark's text syntax),
         * counted for skipped_comments() */
        line(m, "uint64_t comments_%s = 0;", it->name);
        line(m, "afmt_src_skip_blank(c->src, %s, &c->pos, 1, %d, &comments_%s);", m->end, top, it->name);
    } else if (it->repeat.skip_ws) {
        line(m, "afmt_src_skip_blank(c->src, %s, &c->pos, 0, %d, NULL);", m->end, top);
    }
    if (rmod && rmod->until && rmod->until(m, it, r)) {
        /* the module ends the repetitions */
    } else if (it->repeat.until_end) {
        /* the end of the input ends the repetitions; a stream that cannot
         * tell (its window full) says so rather than stopping early */
        line(m, "const int at_end_%s = afmt_src_at_end(c->src, %s, c->pos);", it->name, m->end);
        line(m, "if (at_end_%s > 0) break;", it->name);
        line(m, "if (at_end_%s < 0) return afmt_src_short(c->src, c->err, c->path, \"%s\", AFMT_NO_INDEX, c->pos, %s, 1, \"the next %s\");",
             it->name, it->name, m->end, it->name);
    }
    if (it->repeat.until_end && !it->repeat.skip_ws && top) line(m, "afmt_src_keep_from(c->src, c->pos);");
    {
        char *cond = xprintf("%s >= c->opt->limits.max_items", r);
        emit_fail_if(m, cond, &bl, "limit", LEN_NONE, "\"more than %\" PRIu64 \" repetitions\"", "c->opt->limits.max_items");
        free(cond);
    }
    line(m, "afmt_path_set_index(c->path, %s);", r);
}

/* One repetition: the body as a function (with the module's state and the
 * comment count it reads), and the check that it consumed bytes. */
static void repeat_body(emitter *m, item *it, const repeat_module *rmod)
{
    blame bl = blame_at(it->name, "AFMT_NO_INDEX", "c->pos");
    int mark = sym_mark(m);
    repeat_state saved;
    const char *saved_comments = m->comments_var;
    char *comments = it->repeat.skip_ws == 2 ? xprintf("comments_%s", it->name) : NULL;
    line(m, "const uint64_t start_%s = c->pos;", it->name);
    if (rmod && rmod->body_begin) rmod->body_begin(m, it, &saved);
    if (comments) m->comments_var = comments;
    {
        item *saved_uniq = m->uniq;
        const int saved_found = m->uniq_found;
        const item *dir = directory_of(m->s, it);
        m->uniq = it->repeat.unique ? it : NULL;
        m->uniq_found = 0;
        if (dir || it->repeat.meta_value) {
            /* the repetition's function ends by keeping its record, or
             * handing its key-value to the visitor */
            func_frame fr;
            const int saved_sole = m->sole_item;
            func_begin(m, &fr, it->name);
            m->sole_item = 0;
            emit_items(m, &it->body);
            if (dir) emit_dir_add(m, it, dir);
            if (it->repeat.meta_value) emit_kv_visit(m, it);
            m->sole_item = saved_sole;
            func_end(m, &fr, NULL);
        } else {
            emit_items_func(m, &it->body, it->name, NULL);
        }
        if (it->repeat.unique && !m->uniq_found && unique_key_kind(it) >= 0) /* else setup said why */
            gen_error(m, it->jpath, "\"unique\": '%s' is not a field (without \"count\") of the repeat's body",
                      it->repeat.unique);
        m->uniq = saved_uniq;
        m->uniq_found = saved_found;
    }
    m->comments_var = saved_comments;
    free(comments);
    if (rmod && rmod->body_end) rmod->body_end(m, it, &saved);
    sym_pop_to(m, mark);
    {
        char *cond = xprintf("c->pos == start_%s", it->name);
        emit_fail_if(m, cond, &bl, "constraint", LEN_NONE, "\"a repetition consumed no bytes\"", NULL);
        free(cond);
    }
}

static void emit_repeat(emitter *m, item *it)
{
    const repeat_module *rmod = repeat_module_of(it); /* NULL: a plain repetition */
    char *r = xprintf("r_%s", it->name);
    m->jpath = it->jpath;
    if (it->arg) repeat_count(m, it);
    if (rmod && rmod->before) rmod->before(m, it);
    if (it->repeat.unique) emit_unique_setup(m, it);
    if (directory_of(m->s, it)) emit_dir_setup(m, it);
    line(m, "afmt_path_push(c->path, \"%s\", 0);", it->name);
    line(m, "uint64_t %s = 0;", r);
    if (it->arg)
        line(m, "for (; %s < count_%s; %s++) {", r, it->name, r);
    else
        line(m, "for (;; %s++) {", r);
    m->indent++;
    repeat_head(m, it, rmod, r);
    repeat_body(m, it, rmod);
    m->indent--;
    line(m, "}");
    line(m, "afmt_path_pop(c->path);");
    if (it->repeat.min_count > 0) {
        blame bl = blame_at(it->name, "AFMT_NO_INDEX", "c->pos");
        char *fmt = xprintf("\"needs at least %llu, found %%\" PRIu64 \"\"", (unsigned long long)it->repeat.min_count);
        {
            char *cond = xprintf("%s < %llu", r, (unsigned long long)it->repeat.min_count);
            emit_fail_if(m, cond, &bl, "truncated", LEN_NONE, fmt, r);
            free(cond);
        }
        free(fmt);
    }
    if (rmod && rmod->after) rmod->after(m, it);
    free(r);
}

/* The values of region it's function that the items after it read (the
 * region's escapes, gen/scope.c) are handed out in a struct. */
static void region_hand_out(emitter *m, item *it, func_frame *fr, const item *outer)
{
    sym **out = xcalloc((size_t)m->nsyms + 1, sizeof *out);
    int i, n = 0;
    for (i = 0; i < m->nsyms; i++) {
        sym *y = m->syms[i];
        if (y->region != it) continue;
        if (region_escapes(it, y->name)) {
            decl_use(m, y->decl);
            decl_use(m, y->off_decl);
            out[n++] = y;
        }
        y->region = outer;
    }
    if (n) func_hand_out(m, fr, out, n, it->name);
    free(out);
}

/* A region: its items as a function that opens it (the bytes it takes,
 * which they may not cross) and closes it (what is left unread skipped,
 * or refused when it is exact). */
static void emit_region(emitter *m, item *it)
{
    func_frame fr;
    const int saved_sole = m->sole_item;
    const item *outer = m->region;
    blame bl = blame_at(it->name, "AFMT_NO_INDEX", "c->pos");
    sym *size_sym = it->arg->kind == E_NAME ? sym_peek(m, it->arg->sval) : NULL;
    const char *rest = !it->region.exact ? "AFMT_REGION_SKIP"
                       : it->region.exact_lenient == LEN_WARN ? "AFMT_REGION_EXACT_WARN" : "AFMT_REGION_EXACT";
    char *sz, *size_name;
    m->jpath = it->jpath;
    if (!(size_sym && size_sym->kind == SY_INT)) size_sym = NULL;
    /* for messages: a field crossing this region's end names the region
     * and its size field */
    size_name = size_sym ? xprintf("\"%s\"", size_sym->name) : xstrdup("NULL");
    func_begin(m, &fr, it->name);
    sz = emit_u64(m, &bl, it->arg, it->arg_text);
    if (it->region.inflate) {
        emit_inflated_open(m, it, sz); /* gen/inflated.c */
    } else {
        line(m, "afmt_region_ctx rc_%s;", it->name);
        line(m, "if (afmt_region_open(c, &rc_%s, \"%s\", %s, %s)) return -1;", it->name, it->name, size_name, sz);
    }
    m->region = it;
    m->sole_item = it->body.n == 1;
    emit_items(m, &it->body);
    m->sole_item = saved_sole;
    m->region = outer;
    if (it->region.inflate) {
        emit_inflated_close(m, it);
    } else {
        if (size_sym && it->region.exact) decl_use(m, size_sym->off_decl);
        line(m, "if (afmt_region_close(c, %s, %s)) return -1;", rest, size_sym && it->region.exact ? size_sym->off : "0");
    }
    region_hand_out(m, it, &fr, outer);
    func_end(m, &fr, NULL);
    free(sz); free(size_name);
}

static void emit_switch(emitter *m, item *it)
{
    blame bl;
    cexpr sel;
    int i, j;
    sym *attr = it->arg && it->arg->kind == E_NAME ? sym_peek(m, it->arg->sval) : NULL;
    m->jpath = it->jpath;
    bl = blame_of(attr && attr->kind == SY_INT ? attr : NULL);
    sel = emit_expr(m, &bl, it->arg, it->arg_text);
    if (sel.t != VT_U && sel.t != VT_S) gen_error(m, it->jpath, "a switch selects on an integer");
    line(m, "const %s sel_%s = %s;", sel.t == VT_S ? "int64_t" : "uint64_t", it->name, sel.c);
    for (i = 0; i < it->ncases; i++) {
        switch_case *sc = &it->cases[i];
        sbuf cond = {0};
        int mark;
        for (j = 0; j < sc->nwhen; j++) {
            if (sc->when[j]->kind != E_INT) { gen_unchecked(m, sc->jpath, "a case value not an integer"); continue; }
            sb_printf(&cond, "%ssel_%s == %s%llu)", j ? " || " : "", it->name, sel.t == VT_S ? "INT64_C(" : "UINT64_C(",
                      (unsigned long long)sc->when[j]->ival);
        }
        emit_if_open(m, i ? "} else " : "", cond.s ? cond.s : "0");
        sb_free(&cond);
        m->indent++;
        mark = sym_mark(m);
        if (sc->body.n == 1 && sc->body.v[0]->kind == IT_TEXTHDR) {
            /* one call, its descriptor the only difference between cases
             * (npy's versions): said here, not in a function per case */
            emit_items(m, &sc->body);
        } else {
            emit_items_func(m, &sc->body, switch_case_name(m->s, it, i), NULL);
        }
        sym_pop_to(m, mark);
        m->indent--;
    }
    line(m, "} else {");
    m->indent++;
    bl = blame_of(attr && attr->kind == SY_INT ? attr : NULL);
    {
        sbuf fmt = {0};
        char *args = xprintf("(%s)sel_%s", sel.t == VT_S ? "int64_t" : "uint64_t", it->name);
        if (it->sw.else_message) {
            char *q = c_format_body(it->sw.else_message);
            sb_printf(&fmt, "\"%s (found %%\" %s \")\"", q, sel.t == VT_S ? "PRId64" : "PRIu64");
            free(q);
        } else {
            sb_printf(&fmt, "\"%s: unknown value %%\" %s \" (expected one of", it->name, sel.t == VT_S ? "PRId64" : "PRIu64");
            for (i = 0; i < it->ncases; i++)
                for (j = 0; j < it->cases[i].nwhen; j++)
                    sb_printf(&fmt, "%s %llu", i + j ? "," : "", (unsigned long long)it->cases[i].when[j]->ival);
            sb_puts(&fmt, ")\"");
        }
        emit_fail(m, &bl, "constraint", LEN_NONE, fmt.s, args);
        sb_free(&fmt);
        free(args);
    }
    m->indent--;
    line(m, "}");
    free(sel.c);
}

/* Is pad expression e `roundup(x, k) - x` (x a name, k a literal > 0)? */
static int pad_to_multiple(const expr *e)
{
    const expr *r = e && e->kind == E_BINARY && e->op == TK_MINUS ? e->a : NULL;
    return r && r->kind == E_CALL && strcmp(r->sval, "roundup") == 0 && r->nargs == 2 && r->args[0]->kind == E_NAME &&
           r->args[1]->kind == E_INT && r->args[1]->ival > 0 && e->b->kind == E_NAME &&
           strcmp(e->b->sval, r->args[0]->sval) == 0;
}

static void emit_pad(emitter *m, item *it)
{
    blame bl;
    char *sz;
    m->jpath = it->jpath;
    bl = blame_at(it->name, "AFMT_NO_INDEX", "c->pos");
    if (pad_to_multiple(it->arg)) {
        /* the zeros to the next multiple of k: one call */
        const expr *r = it->arg->a;
        char *q = c_quote(it->arg_text, strlen(it->arg_text));
        sz = emit_u64(m, &bl, r->args[0], it->arg_text);
        line(m, "if (afmt_take_pad_to(c, \"%s\", %d, %s, UINT64_C(%llu), %s)) return -1;", it->name,
             it->pad.fill_lenient == LEN_WARN, sz, (unsigned long long)r->args[1]->ival, q);
        free(sz);
        free(q);
        return;
    }
    sz = emit_u64(m, &bl, it->arg, it->arg_text);
    line(m, "if (afmt_take_padding(c, \"%s\", %d, %s)) return -1;", it->name, it->pad.fill_lenient == LEN_WARN, sz);
    free(sz);
}

/* A value in a text grammar the runtime parses (futhark's text values):
 * scanned without allocation, reported as a view the grammar decodes. */
static void emit_textval(emitter *m, item *it)
{
    blame bl;
    sym *y;
    line(m, "afmt_array a_%s;", it->name);
    line(m, "uint64_t end_%s = 0;", it->name);
    line(m, "if (afmt_src_text(c->src, %s, c->pos, afmt_%s_text_scan, c->opt->limits.max_rank, &end_%s, &a_%s, c->path,",
         m->end, it->textval.grammar, it->name, it->name);
    line(m, "        c->err) != 0)");
    line(m, "    return -1;");
    line(m, "a_%s.index = c->narrays;", it->name);
    line(m, "a_%s.text_decode = afmt_%s_text_decode;", it->name, it->textval.grammar);
    line(m, "if (c->vis && c->vis->on_array && c->vis->on_array(c->vis->ctx, &a_%s) != 0) {", it->name);
    m->indent++;
    bl = blame_at(it->name, "AFMT_NO_INDEX", "c->pos");
    emit_fail(m, &bl, "callback", LEN_NONE, "\"stopped by the caller\"", NULL);
    m->indent--;
    line(m, "}");
    line(m, "c->narrays++;");
    line(m, "c->pos = end_%s;", it->name);
    y = sym_push(m, SY_PAYLOAD, it->name, it);
    str_printf(&y->c, "%s", it->name);
}

/* The rest of a comment: text in lines of at most ~100 columns, each
 * " * ", then the closing line. */
static void comment_wrapped(emitter *m, const char *text)
{
    size_t width = 100 - ((size_t)m->indent * 4 + 3), at = 0, len = strlen(text);
    if (width < 40) width = 40;
    while (at < len) {
        size_t n = len - at, cut;
        while (text[at] == ' ') at++;
        n = len - at;
        if (n > width) {
            cut = width;
            while (cut > 0 && text[at + cut] != ' ') cut--;
            if (cut == 0) cut = width;
            n = cut;
        }
        line(m, " * %.*s", (int)n, text + at);
        at += n;
    }
    line(m, " */");
}

/* The comment over an item's code: what it is, its doc (the spec's words)
 * and where the spec says it, as a JSON path into the spec file, so a
 * reviewer can go from any line of generated code to its source. */
static void item_comment(emitter *m, const item *it, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static void item_comment(emitter *m, const item *it, const char *fmt, ...)
{
    char desc[512], where[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(desc, sizeof desc, fmt, ap);
    va_end(ap);
    snprintf(where, sizeof where, "%s %s", m->s->path, it->jpath && *it->jpath ? it->jpath : "/");
    c_comment_fix(desc);
    c_comment_fix(where);
    if (!it->doc && (size_t)m->indent * 4 + strlen(desc) + strlen(where) + 9 <= 100) {
        line(m, "/* %s (%s) */", desc, where);
    } else {
        char *all = it->doc ? xprintf("%s (%s): %s", desc, where, it->doc) : xprintf("%s (%s)", desc, where);
        c_comment_fix(all);
        line(m, "/*");
        comment_wrapped(m, all);
        free(all);
    }
}

/* A field of any type, under its comment. */
static void emit_field_item(emitter *m, item *it)
{
    const char *endian = it->field.width <= 1 ? "" : it->field.big_endian == ORDER_RUN ? " in the byte order chosen at run time"
                         : it->field.big_endian ? " big-endian" : " little-endian";
    const char *sign = it->field.is_signed ? "i" : "u";
    if (it->field.ftype == FT_INT && !it->field.count) {
        item_comment(m, it, "%s: %s%d%s", it->name, sign, it->field.width * 8, endian);
        emit_int_field(m, it);
    } else if (it->field.ftype == FT_INT) {
        item_comment(m, it, "%s: %s of %s%d%s", it->name, it->field.count_text, sign, it->field.width * 8, endian);
        emit_array_field(m, it);
    } else if (it->field.ftype == FT_FLOAT && it->field.count) {
        item_comment(m, it, "%s: %s of f%d%s", it->name, it->field.count_text, it->field.width * 8, endian);
        emit_float_array_field(m, it);
    } else if (it->field.ftype == FT_FLOAT) {
        item_comment(m, it, "%s: f%d%s", it->name, it->field.width * 8, endian);
        emit_float_field(m, it);
    } else if (it->field.ftype == FT_STRING) {
        item_comment(m, it, "%s: %s string%s with a u%d length", it->name, it->field.count ? it->field.count_text : "a",
                     it->field.count ? "s" : "", it->field.len_width * 8);
        emit_string_field(m, it);
    } else {
        item_comment(m, it, "%s: %d bytes of %s", it->name, it->field.size, it->field.ftype == FT_TEXT ? "text" : "raw bytes");
        emit_text_field(m, it);
    }
    emit_unique_key(m, it);
}

static void emit_let(emitter *m, item *it)
{
    blame bl = blame_at(it->name, "AFMT_NO_INDEX", "c->pos");
    cexpr v;
    sym *y;
    item_comment(m, it, "let %s = %s", it->name, it->let.value_text);
    v = emit_expr(m, &bl, it->let.value, it->let.value_text);
    if (v.t != VT_U && v.t != VT_S && v.t != VT_BOOL) {
        gen_error(m, it->jpath, "a let is an integer or truth value");
        return;
    }
    line(m, "const %s v_%s = %s;", v.t == VT_S ? "int64_t" : "uint64_t", it->name, v.c);
    y = sym_push(m, SY_INT, it->name, it);
    /* computed always (its failures are the format's), marked when unread */
    y->decl = decl_new(m);
    decl_unless_used(m, y->decl, "(void)v_%s; /* not read */", it->name);
    y->t = v.t == VT_S ? VT_S : VT_U;
    str_printf(&y->c, "v_%s", it->name);
    str_printf(&y->off, "c->pos");
    free(v.c);
}

/* A "check" item: one constraint, blamed on its "field" if it names one. */
static void emit_check_item(emitter *m, item *it)
{
    sym *attr = it->attribute ? sym_peek(m, it->attribute) : NULL;
    blame bl;
    if (it->attribute && !attr) gen_unchecked(m, it->jpath, "a check's unknown \"field\""); /* check_item */
    item_comment(m, it, "check %s", it->checks[0].text ? it->checks[0].text : "");
    m->jpath = it->checks[0].jpath;
    bl = blame_of(attr);
    emit_check(m, &bl, &it->checks[0], attr);
}

/* An array item: a function of its own, unless it is all its structure's
 * function holds. */
static void emit_array_item(emitter *m, item *it, int sole)
{
    func_frame fr;
    item_comment(m, it, "array %s: %s elements, %s", it->name, it->array.dtype_from ? it->array.dtype_from : "?",
                 it->array.col_major ? "column-major" : "row-major");
    if (sole) {
        emit_array(m, it);
        return;
    }
    func_begin(m, &fr, it->name);
    emit_array(m, it);
    func_end(m, &fr, NULL);
}

/* "byte_order": the order of every field and payload after it that names
 * none (ORDER_RUN), in c->big for the runtime's steps too. */
static void emit_byte_order(emitter *m, item *it)
{
    blame bl = blame_at("", "AFMT_NO_INDEX", "c->pos");
    char *big = emit_bool(m, &bl, it->arg, it->arg_text);
    line(m, "c->big = %s;", big);
    free(big);
}

static void emit_item(emitter *m, item *it)
{
    const int sole = m->sole_item;
    m->sole_item = 0; /* for the items inside this one */
    m->jpath = it->jpath;
    /* a blank line between items, none after a function's brace */
    if (!(m->out->len >= 2 && strcmp(m->out->s + m->out->len - 2, "{\n") == 0)) sb_puts(m->out, "\n");
    switch (it->kind) {
    case IT_FIELD:
        emit_field_item(m, it);
        break;
    case IT_LET:
        emit_let(m, it);
        break;
    case IT_LOOKUP:
        item_comment(m, it, "lookup %s in table %s", it->name, it->lookup.table ? it->lookup.table : "?");
        emit_lookup(m, it);
        break;
    case IT_CHECK:
        emit_check_item(m, it);
        break;
    case IT_ARRAY:
        emit_array_item(m, it, sole);
        break;
    case IT_REPEAT:
        item_comment(m, it, "repeat %s %s", it->name, it->repeat.until_end ? "until the end" : it->arg_text);
        emit_repeat(m, it);
        break;
    case IT_REGION:
        item_comment(m, it, "region %s of %s bytes", it->name, it->arg_text);
        emit_region(m, it);
        break;
    case IT_SWITCH:
        item_comment(m, it, "switch %s on %s", it->name, it->arg_text);
        emit_switch(m, it);
        break;
    case IT_PAD:
        item_comment(m, it, "pad %s: %s zero bytes", it->name, it->arg_text);
        emit_pad(m, it);
        break;
    case IT_TEXTVAL:
        item_comment(m, it, "%s: a value in %s's text format", it->name, it->textval.grammar);
        emit_textval(m, it);
        break;
    case IT_TEXTHDR:
        item_comment(m, it, "%s: a text header and the arrays it describes", it->name);
        texthdr_emit_validate(m, it);
        break;
    case IT_ARCHIVE:
        item_comment(m, it, "%s: an archive of named members", it->name);
        archive_emit_validate(m, it);
        break;
    case IT_CARDS:
        item_comment(m, it, "%s: card headers and their data units", it->name);
        cards_emit_validate(m, it);
        break;
    case IT_STRUCT:
        item_comment(m, it, "%s: structure %s", it->name, it->st.use ? it->st.use : "?");
        emit_struct_use(m, it);
        break;
    case IT_VAR:
        item_comment(m, it, "var %s = %s", it->name, it->let.value_text ? it->let.value_text : "?");
        emit_var(m, it, "c->pos");
        break;
    case IT_DIRECTORY:
        item_comment(m, it, "directory %s: the arrays of %s's records, aligned to %s", it->name,
                     it->dir.records ? it->dir.records : "?", it->arg_text ? it->arg_text : "?");
        emit_directory(m, it);
        break;
    case IT_SET:
        item_comment(m, it, "set %s = %s", it->attribute ? it->attribute : "?", it->let.value_text ? it->let.value_text : "?");
        emit_set(m, it, "c->pos");
        break;
    case IT_BYTE_ORDER:
        item_comment(m, it, "byte order from here on: big-endian if %s", it->arg_text ? it->arg_text : "?");
        emit_byte_order(m, it);
        break;
    }
    m->sole_item = sole;
}

void emit_body_items(emitter *m, item_list *body)
{
    emit_items(m, body);
}

static void emit_items(emitter *m, item_list *body)
{
    int i;
    for (i = 0; i < body->n; i++) {
        emit_item(m, body->v[i]);
        const repeat_module *rm = m->tiles ? repeat_module_of(m->tiles) : NULL;
        if (rm && rm->after_item) rm->after_item(m);
    }
}

/* The items of a structure (a repeat's body, a switch case) as one
 * function named after it; an array alone in it is that function. */
static void emit_items_func(emitter *m, item_list *body, const char *name, const char *doc)
{
    func_frame fr;
    const int saved_sole = m->sole_item;
    if (body->n == 0) return;
    func_begin(m, &fr, name);
    m->sole_item = body->n == 1;
    emit_items(m, body);
    m->sole_item = saved_sole;
    func_end(m, &fr, doc);
}

/* The validator: the body's function and, before it, the functions of
 * its structures.  One pass: what a region hands out was worked out on
 * the model (gen/scope.c). */
void emit_validator(emitter *m)
{
    const spec *s = m->s;
    const char *f = s->format;
    m->writer = 0;
    /* the input's length: known for a buffer, learnt at its end for a stream */
    m->end = "afmt_end(c)";
    sbuf *out = m->out, main_fn = {0}, funcs = {0};
    m->out = &main_fn;
    m->funcs = &funcs;
    func_root_frame(m, &main_fn, "body");
    /* afmt_run_validator fills c and holds the input to its limit */
    line(m, "static int %s_validate_body(afmt_validation *c)", f);
    line(m, "{");
    m->indent++;
    if (s->byte_order) /* what a structure reads before the choice: the spec's order */
        line(m, "c->big = %d; /* the spec's endian, until \"byte_order\" chooses */", s->big_endian ? 1 : 0);
    emit_items(m, (item_list *)&s->body);
    sb_puts(m->out, "\n");
    if (s->trailer_keep) {
        line(m, "/* trailer: bytes after the data are metadata, kept as they are */");
        line(m, "afmt_keep_trailer(c);");
    } else {
        line(m, "/* trailer: nothing may follow */");
        line(m, "if (afmt_expect_end(c, %d)) return -1;", s->trailer_lenient == LEN_WARN);
    }
    line(m, "return 0;");
    m->indent--;
    line(m, "}");
    /* the functions of the structures, each before its first caller */
    if (funcs.s) sb_puts(out, funcs.s);
    if (main_fn.s) sb_puts(out, main_fn.s);
    m->out = out;
    m->nframes = 0;
    m->funcs = NULL;
    sb_free(&funcs);
    sb_free(&main_fn);
    m->region = NULL;
}
