/* afmt runtime (internal): typed metadata values read and written by a
 * spec's grammar (afmt_value.h), and afmt_kv_copy (afmt.h). */
#include "afmt_value.h"
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "afmt_bytes.h"
#include "afmt_fields.h"
#include "afmt_sink.h"
#include "afmt_src.h"

static const afmt_value_case *case_of_code(const afmt_value_grammar *g, uint64_t code)
{
    size_t i;
    for (i = 0; i < g->ncases; i++)
        if (g->cases[i].code == code) return &g->cases[i];
    return NULL;
}

static int find_code(const afmt_value_grammar *g, afmt_value_kind kind, unsigned width, uint64_t *code)
{
    size_t i;
    for (i = 0; i < g->ncases; i++)
        if (g->cases[i].kind == kind && (g->cases[i].width == width || kind == AFMT_VALUE_STRING || kind == AFMT_VALUE_LIST)) {
            *code = g->cases[i].code;
            return 0;
        }
    return -1;
}

int afmt_value_code(const afmt_value_grammar *g, const afmt_value *v, uint64_t *code)
{
    return find_code(g, v->kind, v->width, code);
}

/* ------------------------------------------------------------ writing */

static int put_uint(afmt_sink *s, uint64_t v, unsigned width, int big, afmt_error *err)
{
    /* (big: the grammar's order, AFMT_ORDER_RUN never reaches here) */
    switch (width) {
    case 1: return afmt_sink_u8(s, v, err);
    case 2: return afmt_sink_u16(s, v, big, err);
    case 4: return afmt_sink_u32(s, v, big, err);
    default: return afmt_sink_u64(s, v, big, err);
    }
}

/* The order the writer writes in. */
static int wbig(const afmt_value_grammar *g)
{
    return g->big == AFMT_ORDER_RUN ? g->write_big : g->big;
}

static const char *kind_name(afmt_value_kind k)
{
    switch (k) {
    case AFMT_VALUE_UINT: return "unsigned";
    case AFMT_VALUE_INT: return "signed";
    case AFMT_VALUE_FLOAT: return "float";
    case AFMT_VALUE_BOOL: return "bool";
    case AFMT_VALUE_STRING: return "string";
    case AFMT_VALUE_LIST: return "list";
    }
    return "unknown";
}

#define TYPE_FAIL(...) afmt_fail(err, AFMT_E_TYPE, NULL, field, index, AFMT_NO_OFFSET, __VA_ARGS__)

static int put_number(afmt_sink *s, const afmt_value_grammar *g, const afmt_value *v, const char *field, uint64_t index,
                      afmt_error *err)
{
    const unsigned bits = 8 * v->width;
    if (v->kind == AFMT_VALUE_FLOAT) {
        if (v->width == 4) {
            const float f = (float)v->f;
            uint32_t b;
            memcpy(&b, &f, 4);
            return afmt_sink_u32(s, b, wbig(g), err);
        } else {
            uint64_t b;
            memcpy(&b, &v->f, 8);
            return afmt_sink_u64(s, b, wbig(g), err);
        }
    }
    if (v->kind == AFMT_VALUE_BOOL && v->u > 1) return TYPE_FAIL("a bool is 0 or 1, not %" PRIu64, v->u);
    if (v->kind == AFMT_VALUE_INT) {
        if (bits < 64 && (v->i < -(INT64_C(1) << (bits - 1)) || v->i >= (INT64_C(1) << (bits - 1))))
            return TYPE_FAIL("value %" PRId64 " does not fit i%u", v->i, bits);
        return put_uint(s, bits < 64 ? (uint64_t)v->i & ((UINT64_C(1) << bits) - 1) : (uint64_t)v->i, v->width, wbig(g), err);
    }
    if (bits < 64 && v->u >> bits != 0) return TYPE_FAIL("value %" PRIu64 " does not fit u%u", v->u, bits);
    return put_uint(s, v->u, v->width, wbig(g), err);
}

static int write_value(afmt_sink *s, const afmt_value_grammar *g, const afmt_value *v, const char *field, uint64_t index,
                       unsigned depth, afmt_error *err)
{
    uint64_t code, k;
    if (afmt_value_code(g, v, &code) != 0)
        return TYPE_FAIL("%s has no %s value of %u bytes", g->name, kind_name(v->kind), v->width);
    if (v->kind == AFMT_VALUE_STRING) {
        if (g->len_width < 8 && v->len >> (8 * g->len_width) != 0)
            return TYPE_FAIL("a string of %" PRIu64 " bytes is too long for its length field", v->len);
        if (put_uint(s, v->len, g->len_width, wbig(g), err) != 0) return -1;
        return v->len ? afmt_sink_put(s, v->str, v->len, err) : 0;
    }
    if (v->kind != AFMT_VALUE_LIST) return put_number(s, g, v, field, index, err);
    if (depth >= AFMT_VALUE_MAX_DEPTH) return TYPE_FAIL("lists nested more than %d deep", AFMT_VALUE_MAX_DEPTH);
    if (find_code(g, v->item_kind, v->item_width, &code) != 0)
        return TYPE_FAIL("%s has no list of %s values of %u bytes", g->name, kind_name(v->item_kind), v->item_width);
    if ((g->elem_width < 8 && code >> (8 * g->elem_width) != 0) || (g->count_width < 8 && v->count >> (8 * g->count_width) != 0))
        return TYPE_FAIL("a list of %" PRIu64 " items does not fit its count field", v->count);
    if (put_uint(s, code, g->elem_width, wbig(g), err) != 0 || put_uint(s, v->count, g->count_width, wbig(g), err) != 0)
        return -1;
    for (k = 0; k < v->count; k++) {
        const afmt_value *it = &v->items[k];
        if (it->kind != v->item_kind || (it->width != v->item_width && it->kind != AFMT_VALUE_STRING && it->kind != AFMT_VALUE_LIST))
            return TYPE_FAIL("list item %" PRIu64 " is %s of %u bytes, its list holds %s of %u", k, kind_name(it->kind),
                             it->width, kind_name(v->item_kind), v->item_width);
        if (write_value(s, g, it, field, index, depth + 1, err) != 0) return -1;
    }
    return 0;
}

int afmt_value_write(afmt_sink *sink, const afmt_value_grammar *g, const afmt_value *v, const char *field,
                     uint64_t index, afmt_error *err)
{
    return write_value(sink, g, v, field, index, 0, err);
}

int afmt_value_u64(const afmt_value *v, const char *field, uint64_t index, uint64_t *out, afmt_error *err)
{
    if (v->kind == AFMT_VALUE_UINT || v->kind == AFMT_VALUE_BOOL) {
        *out = v->u;
        return 0;
    }
    if (v->kind == AFMT_VALUE_INT && v->i >= 0) {
        *out = (uint64_t)v->i;
        return 0;
    }
    *out = 0;
    return TYPE_FAIL("a %s value where a non-negative number is written", kind_name(v->kind));
}

/* ------------------------------------------------------------ reading */

typedef struct reader {
    afmt_vctx *c;
    const afmt_value_grammar *g;
    uint64_t end; /* the bytes validated end here */
} reader;

static uint64_t get(const reader *r, uint64_t at, unsigned width)
{
    return afmt_field_get(AFMT_B(r->c->src, at), 0, width, afmt_order_of(r->c, r->g->big));
}

/* Decode the value of code at *at into v (its kind and width from the
 * grammar), moving *at past it.  The bytes were validated: a value that
 * does not fit them is a runtime bug, reported as AFMT_E_TRUNCATED. */
static int decode(reader *r, uint64_t code, uint64_t *at, afmt_value *v, unsigned depth)
{
    const afmt_value_case *cs = case_of_code(r->g, code);
    uint64_t k, n;
    memset(v, 0, sizeof *v);
    if (!cs || depth > AFMT_VALUE_MAX_DEPTH)
        return afmt_fail_c(r->c, AFMT_E_UNKNOWN_TYPE, r->g->name, AFMT_NO_INDEX, *at, "no value of type %" PRIu64, code);
    v->kind = cs->kind;
    v->width = cs->width;
    if (cs->kind == AFMT_VALUE_STRING) {
        if (*at + r->g->len_width > r->end) goto short_;
        v->len = get(r, *at, r->g->len_width);
        *at += r->g->len_width;
        if (v->len > r->end - *at) goto short_;
        v->str = AFMT_B(r->c->src, *at);
        *at += v->len;
        return 0;
    }
    if (cs->kind != AFMT_VALUE_LIST) {
        uint64_t b;
        if (cs->width > r->end - *at) goto short_;
        b = get(r, *at, cs->width);
        *at += cs->width;
        if (cs->kind == AFMT_VALUE_FLOAT && cs->width == 4) {
            float f;
            uint32_t b32 = (uint32_t)b;
            memcpy(&f, &b32, 4);
            v->f = f;
        } else if (cs->kind == AFMT_VALUE_FLOAT) {
            memcpy(&v->f, &b, 8);
        } else if (cs->kind == AFMT_VALUE_INT) {
            v->i = afmt_as_i64(b, 8 * cs->width);
        } else {
            v->u = b;
        }
        return 0;
    }
    if (r->g->elem_width + r->g->count_width > r->end - *at) goto short_;
    code = get(r, *at, r->g->elem_width);
    n = get(r, *at + r->g->elem_width, r->g->count_width);
    *at += r->g->elem_width + r->g->count_width;
    cs = case_of_code(r->g, code);
    if (!cs) return afmt_fail_c(r->c, AFMT_E_UNKNOWN_TYPE, r->g->name, AFMT_NO_INDEX, *at, "no value of type %" PRIu64, code);
    v->item_kind = cs->kind;
    v->item_width = cs->width;
    v->count = n;
    if (n == 0) return 0;
    if (n > r->end - *at) goto short_; /* every item takes a byte at least, but empty strings and lists... */
    {
        afmt_value *items = afmt_scratch_grow(r->c, NULL, n * sizeof *items, r->g->name);
        if (!items) return -1;
        for (k = 0; k < n; k++)
            if (decode(r, code, at, &items[k], depth + 1) != 0) return -1;
        v->items = items;
    }
    return 0;
short_:
    return afmt_fail_c(r->c, AFMT_E_TRUNCATED, r->g->name, AFMT_NO_INDEX, *at, "a value runs past the bytes validated");
}

int afmt_kv_visit(afmt_vctx *c, const afmt_value_grammar *g, uint64_t key_at, uint64_t key_len, uint64_t code,
                  uint64_t value_at, uint64_t offset)
{
    reader r;
    afmt_kv kv;
    uint64_t at = value_at;
    if (!c->vis || !c->vis->on_kv) return 0;
    if (c->pos < value_at || key_at + key_len > c->pos || !afmt_src_have(c->src, afmt_end(c), key_at, c->pos - key_at))
        return afmt_fail_c(c, AFMT_E_LIMIT, g->name, AFMT_NO_INDEX, key_at,
                           "a metadata value beyond the stream's window (read it from a buffer)");
    r.c = c;
    r.g = g;
    r.end = c->pos;
    memset(&kv, 0, sizeof kv);
    kv.key = AFMT_B(c->src, key_at);
    kv.key_len = key_len;
    if (decode(&r, code, &at, &kv.value, 0) != 0) return -1;
    if (c->vis->on_kv(c->vis->ctx, &kv, offset) != 0)
        return afmt_fail_c(c, AFMT_E_CALLBACK, g->name, AFMT_NO_INDEX, offset, "stopped by the caller");
    return 0;
}

/* ------------------------------------------------------------ keys */

typedef struct keyed {
    const uint8_t *key;
    uint64_t len;
    size_t index;
} keyed;

static int by_key(const void *x, const void *y)
{
    const keyed *a = x, *b = y;
    const uint64_t n = a->len < b->len ? a->len : b->len;
    const int c = n ? memcmp(a->key, b->key, (size_t)n) : 0;
    if (c) return c;
    if (a->len != b->len) return a->len < b->len ? -1 : 1;
    return (a->index > b->index) - (a->index < b->index);
}

int afmt_kv_unique(const afmt_kv *kv, size_t n, int c_string, const char *field, afmt_error *err)
{
    keyed *v;
    size_t i, dup = n, first = 0;
    if (n < 2) return 0;
    if (n > SIZE_MAX / sizeof *v || !(v = malloc(n * sizeof *v)))
        return afmt_fail(err, AFMT_E_NOMEM, NULL, field, AFMT_NO_INDEX, AFMT_NO_OFFSET, "no memory to compare %zu keys", n);
    for (i = 0; i < n; i++) {
        const uint8_t *nul = c_string && kv[i].key_len ? memchr(kv[i].key, 0, (size_t)kv[i].key_len) : NULL;
        v[i].key = kv[i].key;
        v[i].len = nul ? (uint64_t)(nul - kv[i].key) : kv[i].key_len;
        v[i].index = i;
    }
    qsort(v, n, sizeof *v, by_key);
    for (i = 1; i < n; i++)
        if (by_key(&(keyed){v[i].key, v[i].len, 0}, &(keyed){v[i - 1].key, v[i - 1].len, 0}) == 0 && v[i].index < dup) {
            dup = v[i].index;
            first = v[i - 1].index;
        }
    free(v);
    if (dup == n) return 0;
    return afmt_fail(err, AFMT_E_CONSTRAINT, NULL, field, dup, AFMT_NO_OFFSET,
                     "duplicate key \"%.*s\": key %zu has it too (keys are distinct)",
                     (int)(kv[dup].key_len < 63 ? kv[dup].key_len : 63), (const char *)kv[dup].key, first);
}

/* ------------------------------------------------------------ copies */

/* Bytes a deep copy of v needs beyond the value itself (lists' items and
 * their own, strings' bytes); 0 on overflow with *ok cleared. */
static uint64_t extra_of(const afmt_value *v, int *ok, unsigned depth)
{
    uint64_t total = 0, k;
    if (v->kind == AFMT_VALUE_STRING) return v->len;
    if (v->kind != AFMT_VALUE_LIST) return 0;
    /* its items, and up to 7 bytes to align them */
    if (depth > AFMT_VALUE_MAX_DEPTH || !afmt_mul_u64(v->count, sizeof(afmt_value), &total) ||
        !afmt_add_u64(total, 8, &total)) {
        *ok = 0;
        return 0;
    }
    for (k = 0; k < v->count && *ok; k++)
        if (!afmt_add_u64(total, extra_of(&v->items[k], ok, depth + 1), &total)) *ok = 0;
    return total;
}

/* Copy v's lists and strings into *p (advanced), v itself into *dst. */
static void copy_into(afmt_value *dst, const afmt_value *v, uint8_t **p)
{
    uint64_t k;
    *dst = *v;
    if (v->kind == AFMT_VALUE_STRING) {
        if (v->len) memcpy(*p, v->str, (size_t)v->len);
        dst->str = *p;
        *p += v->len;
    } else if (v->kind == AFMT_VALUE_LIST) {
        afmt_value *items;
        *p += (8 - (uintptr_t)*p % 8) % 8; /* aligned (malloc's block is) */
        items = (afmt_value *)(void *)*p;
        *p += v->count * sizeof(afmt_value);
        for (k = 0; k < v->count; k++) copy_into(&items[k], &v->items[k], p);
        dst->items = v->count ? items : NULL;
    }
}

int afmt_kv_copy(const afmt_kv *kv, size_t n, afmt_kv **out, afmt_error *err)
{
    uint64_t total = 0;
    size_t i;
    int ok = 1;
    uint8_t *block, *p;
    *out = NULL;
    if (!afmt_mul_u64(n, sizeof(afmt_kv), &total)) ok = 0;
    for (i = 0; i < n && ok; i++) {
        uint64_t e = extra_of(&kv[i].value, &ok, 0);
        if (!afmt_add_u64(total, kv[i].key_len, &total) || !afmt_add_u64(total, e, &total)) ok = 0;
    }
    if (!ok || total > SIZE_MAX)
        return afmt_fail(err, AFMT_E_OVERFLOW, NULL, NULL, AFMT_NO_INDEX, AFMT_NO_OFFSET, "the key-values' size overflows");
    if (!(block = malloc(total ? (size_t)total : 1)))
        return afmt_fail(err, AFMT_E_NOMEM, NULL, NULL, AFMT_NO_INDEX, AFMT_NO_OFFSET, "no memory to copy %zu key-values", n);
    p = block + n * sizeof(afmt_kv);
    for (i = 0; i < n; i++) {
        afmt_kv *d = &((afmt_kv *)(void *)block)[i];
        d->key_len = kv[i].key_len;
        copy_into(&d->value, &kv[i].value, &p);
        if (kv[i].key_len) memcpy(p, kv[i].key, (size_t)kv[i].key_len);
        d->key = p;
        p += kv[i].key_len;
    }
    *out = (afmt_kv *)(void *)block;
    return 0;
}
