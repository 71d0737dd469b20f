/* afmt reference interpreter: fields (spec/LANGUAGE.md, "field"): an
 * integer, an integer array field, a bytes or text slot, length-prefixed
 * strings -- one function each, as gen/emit_validate.c emits them. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "core/afmt_gen_expr.h"
#include "common/afmt_float.h"
#include "interp.h"

static afmt_field_desc ifield_desc(const item *it, afmt_field_kind kind, int width, int is_array, int big)
{
    afmt_field_desc d;
    d.name = it->name;
    d.kind = kind;
    d.width = (unsigned)width;
    d.is_array = is_array;
    d.big_endian = big;
    d.doc = it->doc;
    d.names = NULL;
    d.n_names = 0;
    return d;
}

static afmt_field_kind int_kind(const item *it) { return it->field.is_signed ? AFMT_FIELD_INT : AFMT_FIELD_UINT; }

static int int_field(irun *r, const item *it)
{
    const field_item *f = &it->field;
    afmt_field_desc d = ifield_desc(it, int_kind(it), f->width, 0, f->big_endian);
    /* the spec's names of its values, for a field visitor only (as the
     * generated descriptor has them) */
    afmt_value_name names[256];
    if (f->nnames && r->c->opt->fields) {
        int k;
        for (k = 0; k < f->nnames && k < 256; k++) {
            names[k].value = f->name_values[k];
            names[k].name = f->name_texts[k];
        }
        d.names = names;
        d.n_names = (unsigned)k;
    }
    const uint64_t at = r->c->pos;
    isym *y;
    iblame b;
    if (afmt_take_field(r->c, &d, 1)) return -1;
    y = isym_push(r, IS_INT, it);
    y->t = f->is_signed ? VT_S : VT_U;
    y->off = at;
    y->width = f->width;
    y->is_signed = f->is_signed;
    y->big = afmt_order_of(r->c, f->big_endian);
    y->count = 1;
    y->v = iarrf_get(r, y, 0);
    b = iblame_of(y);
    if (f->equals && y->v != f->equals->ival) {
        const afmt_code code = icode(f->equals_code, AFMT_E_CONSTRAINT);
        char text[9];
        int rc;
        if (f->is_signed)
            rc = ifail(r, &b, code, f->equals_lenient, "expected %llu, found %" PRId64,
                       (unsigned long long)f->equals->ival, (int64_t)y->v);
        else if (f->big_endian != ORDER_RUN && uint_magic_text(f->equals->ival, f->width, f->big_endian, text))
            /* a magic number, as the generated validator shows it */
            rc = ifail(r, &b, code, f->equals_lenient, "expected \"%s\", found %s", text,
                       afmt_bytes_text(AFMT_B(r->c->src, at), (unsigned)f->width).s);
        else
            rc = ifail(r, &b, code, f->equals_lenient, "expected %llu, found %" PRIu64,
                       (unsigned long long)f->equals->ival, y->v);
        if (rc) return -1;
    }
    return irun_checks(r, &b, it->checks, it->nchecks, y);
}

/* A float field: its value a double, "equals" compared as a value (-0
 * equals 0, NaN nothing), as emit_float_field. */
static int float_field(irun *r, const item *it)
{
    const field_item *f = &it->field;
    const afmt_field_desc d = ifield_desc(it, AFMT_FIELD_FLOAT, f->width, 0, f->big_endian);
    const uint64_t at = r->c->pos;
    isym *y;
    iblame b;
    if (afmt_take_field(r->c, &d, 1)) return -1;
    y = isym_push(r, IS_FLOAT, it);
    y->t = VT_F;
    y->off = at;
    y->width = f->width;
    y->big = afmt_order_of(r->c, f->big_endian);
    y->count = 1;
    y->f = afmt_float_get(AFMT_B(r->c->src, at), (unsigned)f->width, afmt_order_of(r->c, f->big_endian));
    b = iblame_of(y);
    if (f->has_fequals && !(y->f == f->fequals) &&
        ifail(r, &b, icode(f->equals_code, AFMT_E_CONSTRAINT), f->equals_lenient, "expected %s, found %s",
              f->equals_text, afmt_float_text(y->f, (unsigned)f->width).s))
        return -1;
    return irun_checks(r, &b, it->checks, it->nchecks, y);
}

/* A float array field: bounded in one step, then each element compared
 * by "equals" and checked by "each", as emit_float_array_field. */
static int float_array_field(irun *r, const item *it)
{
    const field_item *f = &it->field;
    const afmt_field_desc d = ifield_desc(it, AFMT_FIELD_FLOAT, f->width, 1, f->big_endian);
    const isym *cs = f->count->kind == E_NAME ? isym_find(r, f->count->sval) : NULL;
    iblame cb = iblame_of(cs && cs->kind == IS_INT ? cs : NULL);
    const int big = afmt_order_of(r->c, f->big_endian);
    uint64_t n, at, i;
    isym *y;
    if (ieval_u64(r, &cb, f->count, f->count_text, &n)) return -1;
    at = r->c->pos;
    if (afmt_take_field(r->c, &d, n)) return -1;
    y = isym_push(r, IS_FARR, it);
    y->off = at;
    y->count = n;
    y->width = f->width;
    y->big = big;
    for (i = 0; (f->neach || f->has_fequals) && i < n; i++) {
        const int mark = isym_mark(r);
        const uint64_t off = at + (uint64_t)f->width * i;
        isym *e = isym_push(r, IS_FLOAT, it), *ix = isym_push(r, IS_INDEX, it);
        iblame b = iblame_at(it->name, i, off);
        int rc = 0;
        e->t = VT_F;
        e->off = off;
        e->width = f->width;
        e->big = big;
        e->count = 1;
        e->f = afmt_float_get(AFMT_B(r->c->src, off), (unsigned)f->width, big);
        ix->name = r->in->index_name;
        ix->t = VT_U;
        ix->v = i;
        if (f->has_fequals && !(e->f == f->fequals))
            rc = ifail(r, &b, icode(f->equals_code, AFMT_E_CONSTRAINT), f->equals_lenient, "expected %s, found %s",
                       f->equals_text, afmt_float_text(e->f, (unsigned)f->width).s);
        if (!rc) rc = irun_checks(r, &b, f->each, f->neach, e);
        isym_pop_to(r, mark);
        if (rc) return -1;
    }
    return 0;
}

/* An array field's count; a count that is an array's rank is held to
 * limits.max_rank and AFMT_RANK_CAP before anything else. */
static int array_field_count(irun *r, const item *it, uint64_t *n)
{
    const isym *cs = it->field.count->kind == E_NAME ? isym_find(r, it->field.count->sval) : NULL;
    const iblame b = iblame_of(cs && cs->kind == IS_INT ? cs : NULL);
    const afmt_limits *l = &r->c->opt->limits;
    if (ieval_u64(r, &b, it->field.count, it->field.count_text, n)) return -1;
    if (iused_as_shape(&r->in->s->body, it->name) && (*n > l->max_rank || *n > AFMT_RANK_CAP))
        return ifail(r, &b, AFMT_E_LIMIT, LEN_NONE, "rank %" PRIu64 " exceeds the limit of %" PRIu64, *n,
                     l->max_rank < AFMT_RANK_CAP ? l->max_rank : (uint64_t)AFMT_RANK_CAP);
    return 0;
}

/* "each": every element's checks, the element named as the field and
 * its position as `index` */
static int array_field_each(irun *r, const item *it, const isym *y)
{
    uint64_t i;
    for (i = 0; i < y->count; i++) {
        const int mark = isym_mark(r);
        const uint64_t off = y->off + (uint64_t)y->width * i;
        isym *e = isym_push(r, IS_INT, it), *ix = isym_push(r, IS_INDEX, it);
        iblame b = iblame_at(it->name, i, off);
        int rc;
        e->t = y->t;
        e->v = iarrf_get(r, y, i);
        e->off = off;
        ix->name = r->in->index_name;
        ix->t = VT_U;
        ix->v = i;
        rc = irun_checks(r, &b, it->field.each, it->field.neach, e);
        isym_pop_to(r, mark);
        if (rc) return -1;
    }
    return 0;
}

/* "first" (last 0) or "last" (last 1) */
static int array_field_end(irun *r, const item *it, const isym *y, int last)
{
    const afmt_field_desc d = ifield_desc(it, int_kind(it), it->field.width, 1, it->field.big_endian);
    const iblame b = iblame_at(it->name, AFMT_NO_INDEX, y->off);
    const char *text = last ? it->field.last_text : it->field.first_text;
    uint64_t want;
    if (ieval_u64(r, &b, last ? it->field.last : it->field.first, text, &want)) return -1;
    return afmt_field_end_c(r->c, &d, y->off, y->count, last, want, text);
}

/* "order" and "increasing_within": the first element out of order */
static int array_field_unordered(irun *r, const item *it, const isym *y, uint64_t bad, const char *fmt, const char *seg)
{
    iblame b;
    if (bad >= y->count) return 0;
    b = iblame_at(it->name, bad, y->off + (uint64_t)y->width * bad);
    return ifail(r, &b, AFMT_E_CONSTRAINT, LEN_NONE, fmt, seg);
}

static int array_field_order(irun *r, const item *it, const isym *y)
{
    const int strict = strcmp(it->field.order, "increasing") == 0;
    const uint64_t bad = afmt_field_unordered(AFMT_B(r->c->src, y->off), y->count, (unsigned)y->width, y->is_signed,
                                              y->big, strict);
    return array_field_unordered(r, it, y, bad,
                                 strict ? "is not greater than the element before it (must be strictly increasing)%s"
                                        : "is less than the element before it (must be non-decreasing)%s",
                                 "");
}

static int array_field_within(irun *r, const item *it, const isym *y)
{
    const isym *seg = isym_find(r, it->field.increasing_within);
    const uint64_t bad = afmt_field_unordered_within(AFMT_B(r->c->src, y->off), y->count, (unsigned)y->width, y->big,
                                                     AFMT_B(r->c->src, seg->off), seg->count, (unsigned)seg->width,
                                                     seg->big);
    return array_field_unordered(r, it, y, bad,
                                 "is not greater than the element before it in the same segment of %s (must be "
                                 "strictly increasing within each)",
                                 seg->name);
}

/* "increasing_segments": the earlier array field it names, strictly
 * increasing within each segment of this one's (checked) offsets */
static int array_field_segments(irun *r, const item *it, const isym *y)
{
    const isym *val = isym_find(r, it->field.increasing_segments);
    const uint64_t bad = afmt_field_unordered_within(AFMT_B(r->c->src, val->off), val->count, (unsigned)val->width,
                                                     val->big, AFMT_B(r->c->src, y->off), y->count, (unsigned)y->width,
                                                     y->big);
    iblame b;
    if (bad >= val->count) return 0;
    b = iblame_at(val->it->name, bad, val->off + (uint64_t)val->width * bad);
    return ifail(r, &b, AFMT_E_CONSTRAINT, LEN_NONE,
                 "is not greater than the element before it in the same segment of %s (must be strictly increasing "
                 "within each)",
                 it->name);
}

static int array_field(irun *r, const item *it)
{
    const field_item *f = &it->field;
    const afmt_field_desc d = ifield_desc(it, int_kind(it), f->width, 1, f->big_endian);
    uint64_t n, at;
    isym *y;
    iblame b;
    if (array_field_count(r, it, &n)) return -1;
    at = r->c->pos;
    if (afmt_take_field(r->c, &d, n)) return -1;
    y = isym_push(r, IS_ARRF, it);
    y->t = f->is_signed ? VT_S : VT_U;
    y->off = at;
    y->count = n;
    y->width = f->width;
    y->is_signed = f->is_signed;
    y->big = afmt_order_of(r->c, f->big_endian);
    if (f->neach && array_field_each(r, it, y)) return -1;
    if (f->first && array_field_end(r, it, y, 0)) return -1;
    if (f->last && array_field_end(r, it, y, 1)) return -1;
    if (f->order && array_field_order(r, it, y)) return -1;
    if (f->increasing_within && array_field_within(r, it, y)) return -1;
    if (f->increasing_segments && array_field_segments(r, it, y)) return -1;
    b = iblame_at(it->name, AFMT_NO_INDEX, at);
    return irun_checks(r, &b, it->checks, it->nchecks, NULL);
}

/* A bytes or text slot: compared with "equals", checked as text. */
static int text_field(irun *r, const item *it)
{
    const field_item *f = &it->field;
    const afmt_field_desc d = ifield_desc(it, AFMT_FIELD_BYTES, f->size, 0, 0);
    const uint64_t at = r->c->pos;
    isym *y;
    iblame b;
    if (afmt_take_field(r->c, &d, 1)) return -1;
    y = isym_push(r, IS_TEXT, it);
    y->off = at;
    y->size = f->size;
    if (f->equals) {
        char *padded = calloc((size_t)f->size + 1, 1);
        int rc;
        if (!padded) return afmt_fail(r->c->err, AFMT_E_NOMEM, NULL, NULL, AFMT_NO_INDEX, 0, "out of memory");
        memcpy(padded, f->equals->sval, strlen(f->equals->sval));
        rc = afmt_expect_bytes(r->c, it->name, icode(f->equals_code, AFMT_E_MAGIC), at, padded, (unsigned)f->size);
        free(padded);
        if (rc) return -1;
    }
    if (f->text_nul_padded && afmt_expect_text_slot(r->c, it->name, at, (unsigned)f->size)) return -1;
    b = iblame_of(y);
    return irun_checks(r, &b, it->checks, it->nchecks, NULL);
}

/* Fail unless need bytes are left at the cursor (as need_bytes). */
static int need(irun *r, const char *field, uint64_t index, uint64_t n, const char *what)
{
    afmt_validation *c = r->c;
    if (afmt_src_have(c->src, afmt_end(c), c->pos, n)) return 0;
    return afmt_src_short_ex(c->src, c->err, c->path, field, index, c->pos, afmt_end(c), n, 0, what, c->region);
}

/* Length-prefixed strings: each prefix, then its bytes; all of them held
 * to limits.max_header_bytes. */
static int string_field(irun *r, const item *it)
{
    const field_item *f = &it->field;
    afmt_validation *c = r->c;
    const iblame b = iblame_pos(it->name);
    uint64_t n = 1, i, at;
    isym *y;
    if (f->count) {
        if (ieval_u64(r, &b, f->count, f->count_text, &n)) return -1;
        if ((afmt_end(c) - c->pos) / (uint64_t)f->len_width < n)
            return ifail(r, &b, AFMT_E_TRUNCATED, LEN_NONE,
                         "%" PRIu64 " strings need at least %d bytes each, only %" PRIu64 " left", n, f->len_width,
                         afmt_end(c) - c->pos);
    }
    at = c->pos;
    for (i = 0; i < n; i++) {
        const uint64_t index = f->count ? i : AFMT_NO_INDEX;
        isym len = {0};
        uint64_t l;
        if (need(r, it->name, index, (uint64_t)f->len_width, it->name)) return -1;
        len.off = c->pos;
        len.width = f->len_width;
        len.big = afmt_order_of(r->c, f->big_endian);
        l = iarrf_get(r, &len, 0);
        c->pos += (uint64_t)f->len_width;
        if (need(r, it->name, index, l, "a string")) return -1;
        c->pos += l;
    }
    if (c->pos - at > c->opt->limits.max_header_bytes) {
        const iblame hb = iblame_at(it->name, AFMT_NO_INDEX, at);
        return ifail(r, &hb, AFMT_E_LIMIT, LEN_NONE, "strings of %" PRIu64 " bytes exceed the header limit of %" PRIu64 " bytes",
                     c->pos - at, c->opt->limits.max_header_bytes);
    }
    y = isym_push(r, IS_STRINGS, it);
    y->off = at;
    y->count = n;
    y->width = f->len_width;
    y->big = afmt_order_of(r->c, f->big_endian);
    return 0;
}

/* One length-prefixed string: its length is its value for len(), its
 * bytes what == and != compare; its checks show no value. */
static int one_string(irun *r, const item *it)
{
    const field_item *f = &it->field;
    const afmt_field_desc d = ifield_desc(it, AFMT_FIELD_BYTES, f->len_width, 0, f->big_endian);
    const uint64_t at = r->c->pos;
    uint64_t len;
    isym *y;
    iblame b;
    if (afmt_take_string(r->c, &d, &len)) return -1;
    y = isym_push(r, IS_STR, it);
    y->off = at;
    y->width = f->len_width;
    y->big = afmt_order_of(r->c, f->big_endian);
    y->count = len;
    b = iblame_of(y);
    return irun_checks(r, &b, it->checks, it->nchecks, NULL);
}

/* ---- a plain field: one number or one string with nothing to check
 * (no "equals", no checks), whose reading is only its take (a repeat of
 * it: interp_item.c).  The take tells a field visitor of it with the
 * descriptor int_field, float_field and one_string give it -- but for the
 * names of an integer's values, which int_field adds for a visitor. */

int ifield_plain(const irun *r, const item *it, afmt_field_desc *d)
{
    const field_item *f = &it->field;
    if (it->kind != IT_FIELD || f->count || it->nchecks) return 0;
    switch (f->ftype) {
    case FT_INT:
        *d = ifield_desc(it, int_kind(it), f->width, 0, f->big_endian);
        return !f->equals && !(f->nnames && r->c->opt->fields);
    case FT_FLOAT: *d = ifield_desc(it, AFMT_FIELD_FLOAT, f->width, 0, f->big_endian); return !f->has_fequals;
    case FT_STRING: *d = ifield_desc(it, AFMT_FIELD_BYTES, f->len_width, 0, f->big_endian); return 1;
    default: return 0;
    }
}

int ifield_take_plain(irun *r, const item *it, const afmt_field_desc *d)
{
    uint64_t len;
    /* the steps of int_field, float_field and one_string that can fail */
    return it->field.ftype == FT_STRING ? afmt_take_string(r->c, d, &len) : afmt_take_field(r->c, d, 1);
}

int irun_field(irun *r, const item *it)
{
    int rc;
    switch (it->field.ftype) {
    case FT_INT: rc = it->field.count ? array_field(r, it) : int_field(r, it); break;
    case FT_STRING: rc = it->field.count ? string_field(r, it) : one_string(r, it); break;
    case FT_FLOAT: rc = it->field.count ? float_array_field(r, it) : float_field(r, it); break;
    default: rc = text_field(r, it); break;
    }
    if (rc) return -1;
    /* the key of the repeat it is in: after its checks, as emit_field_item */
    return r->unique_repeat ? irun_unique_key(r, it, isym_find(r, it->name)) : 0;
}

int iused_as_shape(const item_list *body, const char *name)
{
    int i, j;
    for (i = 0; i < body->n; i++) {
        const item *it = body->v[i];
        if (it->kind == IT_ARRAY && it->array.shape_field && !it->array.rank && strcmp(it->array.shape_field, name) == 0)
            return 1;
        if ((it->kind == IT_REGION || it->kind == IT_REPEAT) && iused_as_shape(&it->body, name)) return 1;
        if (it->kind == IT_SWITCH)
            for (j = 0; j < it->ncases; j++)
                if (iused_as_shape(&it->cases[j].body, name)) return 1;
    }
    return 0;
}
