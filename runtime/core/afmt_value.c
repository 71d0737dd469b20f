/* afmt runtime (internal): typed metadata values read and written by a
 * spec's grammar (afmt_value.h), and afmt_kv_copy (afmt.h). */
#include "afmt_value.h"
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "../common/afmt_bytes.h"
#include "afmt_driver.h"
#include "afmt_fields.h"
#include "../io/afmt_sink.h"
#include "../io/afmt_src.h"

/* ------------------------------------------------------------ the grammar */

/* A case of kind k1 and width w1 holds values of kind k2 and width w2 (a
 * string's or a list's width is not compared: it has none). */
static int same_type(afmt_value_kind k1, unsigned w1, afmt_value_kind k2, unsigned w2)
{
    return k1 == k2 && (w1 == w2 || k1 == AFMT_VALUE_STRING || k1 == AFMT_VALUE_LIST);
}

/* The case of g that the writer and the reader both look up: by kind and
 * width (the writer's, kind not 0), or by type code (the reader's, kind
 * 0); NULL when g has none. */
static const afmt_value_case *case_of(const afmt_value_grammar *g, afmt_value_kind kind, unsigned width,
                                      uint64_t code)
{
    size_t i;
    for (i = 0; i < g->ncases; i++) {
        const afmt_value_case *cs = &g->cases[i];
        if (kind ? same_type(cs->kind, cs->width, kind, width) : cs->code == code) return cs;
    }
    return NULL;
}

int afmt_value_code(const afmt_value_grammar *g, const afmt_value *v, uint64_t *code)
{
    const afmt_value_case *cs = case_of(g, v->kind, v->width, 0);
    if (!cs) return -1;
    *code = cs->code;
    return 0;
}

/* Values nest at most AFMT_VALUE_MAX_DEPTH deep (a key's value at depth
 * 0, a list's items one deeper), for the writer, the reader and copies
 * alike: the depth the generated validator reaches with limits.max_depth
 * at its most (32), one structure use a value. */
static int too_deep(unsigned depth)
{
    return depth >= AFMT_VALUE_MAX_DEPTH;
}

/* The stored bits (width bytes) of a number, bool or float v, and v's
 * value from them: the writer and the reader's one conversion. */
static uint64_t bits_of(const afmt_value *v)
{
    const unsigned bits = 8 * v->width;
    if (v->kind == AFMT_VALUE_FLOAT && v->width == 4) {
        const float f = (float)v->f; /* exact: put_number checked it */
        uint32_t b;
        memcpy(&b, &f, 4);
        return b;
    }
    if (v->kind == AFMT_VALUE_FLOAT) {
        uint64_t b;
        memcpy(&b, &v->f, 8);
        return b;
    }
    if (v->kind == AFMT_VALUE_INT) return bits < 64 ? (uint64_t)v->i & ((UINT64_C(1) << bits) - 1) : (uint64_t)v->i;
    return v->u;
}

static void set_from_bits(afmt_value *v, uint64_t b)
{
    if (v->kind == AFMT_VALUE_FLOAT && v->width == 4) {
        const uint32_t b32 = (uint32_t)b;
        float f;
        memcpy(&f, &b32, 4);
        v->f = f;
    } else if (v->kind == AFMT_VALUE_FLOAT) {
        memcpy(&v->f, &b, 8);
    } else if (v->kind == AFMT_VALUE_INT) {
        v->i = afmt_as_i64(b, 8 * v->width);
    } else {
        v->u = b;
    }
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

#define WRITE_FAIL(code, ...) afmt_fail(err, code, NULL, field, index, AFMT_NO_OFFSET, __VA_ARGS__)
#define TYPE_FAIL(...) WRITE_FAIL(AFMT_E_TYPE, __VA_ARGS__)

/* The value fits its kind and width exactly, else AFMT_E_TYPE: a float of
 * 4 bytes is an f32 (no rounding: what is read back is what was given). */
static int check_number(const afmt_value *v, const char *field, uint64_t index, afmt_error *err)
{
    const unsigned bits = 8 * v->width;
    if (v->kind == AFMT_VALUE_FLOAT) {
        /* out of the f32 range first: converting it is undefined */
        if (v->width == 4 && isfinite(v->f) && (v->f > FLT_MAX || v->f < -FLT_MAX || (double)(float)v->f != v->f))
            return TYPE_FAIL("value %.17g is not exactly an f32 (give it as a float of 8 bytes)", v->f);
        return 0;
    }
    if (v->kind == AFMT_VALUE_BOOL && v->u > 1) return TYPE_FAIL("a bool is 0 or 1, not %" PRIu64, v->u);
    if (v->kind == AFMT_VALUE_INT && bits < 64 &&
        (v->i < -(INT64_C(1) << (bits - 1)) || v->i >= (INT64_C(1) << (bits - 1))))
        return TYPE_FAIL("value %" PRId64 " does not fit i%u", v->i, bits);
    if (v->kind != AFMT_VALUE_INT && bits < 64 && v->u >> bits != 0)
        return TYPE_FAIL("value %" PRIu64 " does not fit u%u", v->u, bits);
    return 0;
}

static int write_value(afmt_sink *s, const afmt_value_grammar *g, const afmt_value *v, const char *field,
                       unsigned depth, uint64_t index, afmt_error *err);

/* A list: its items' type code, its count, its items. */
static int write_list(afmt_sink *s, const afmt_value_grammar *g, const afmt_value *v, const char *field,
                      unsigned depth, uint64_t index, afmt_error *err)
{
    const afmt_value_case *items = case_of(g, v->item_kind, v->item_width, 0);
    uint64_t k;
    if (!items)
        return TYPE_FAIL("%s has no list of %s values of %u bytes", g->name, kind_name(v->item_kind), v->item_width);
    if ((g->elem_width < 8 && items->code >> (8 * g->elem_width) != 0) ||
        (g->count_width < 8 && v->count >> (8 * g->count_width) != 0))
        return TYPE_FAIL("a list of %" PRIu64 " items does not fit its count field", v->count);
    if (v->count && !v->items) return WRITE_FAIL(AFMT_E_USAGE, "a list of %" PRIu64 " items has none given", v->count);
    if (put_uint(s, items->code, g->elem_width, wbig(g), err) != 0 ||
        put_uint(s, v->count, g->count_width, wbig(g), err) != 0)
        return -1;
    for (k = 0; k < v->count; k++) {
        const afmt_value *it = &v->items[k];
        if (!same_type(v->item_kind, v->item_width, it->kind, it->width))
            return TYPE_FAIL("list item %" PRIu64 " is %s of %u bytes, its list holds %s of %u", k, kind_name(it->kind),
                             it->width, kind_name(v->item_kind), v->item_width);
        if (write_value(s, g, it, field, depth + 1, index, err) != 0) return -1;
    }
    return 0;
}

static int write_value(afmt_sink *s, const afmt_value_grammar *g, const afmt_value *v, const char *field,
                       unsigned depth, uint64_t index, afmt_error *err)
{
    if (too_deep(depth))
        return WRITE_FAIL(AFMT_E_LIMIT, "values nested more than %d deep (lists of lists)", AFMT_VALUE_MAX_DEPTH);
    if (!case_of(g, v->kind, v->width, 0))
        return TYPE_FAIL("%s has no %s value of %u bytes", g->name, kind_name(v->kind), v->width);
    if (v->kind == AFMT_VALUE_LIST) return write_list(s, g, v, field, depth, index, err);
    if (v->kind == AFMT_VALUE_STRING) {
        if (g->len_width < 8 && v->len >> (8 * g->len_width) != 0)
            return TYPE_FAIL("a string of %" PRIu64 " bytes is too long for its length field", v->len);
        if (v->len && !v->str) return WRITE_FAIL(AFMT_E_USAGE, "a string of %" PRIu64 " bytes has none given", v->len);
        if (put_uint(s, v->len, g->len_width, wbig(g), err) != 0) return -1;
        return v->len ? afmt_sink_put(s, v->str, v->len, err) : 0;
    }
    if (check_number(v, field, index, err) != 0) return -1;
    return put_uint(s, bits_of(v), v->width, wbig(g), err);
}

/* A sink that only counts. */
static int count_only(afmt_sink *s, const void *p, uint64_t n)
{
    (void)s;
    (void)p;
    (void)n;
    return 0;
}

typedef struct value_read {
    const afmt_value_grammar *g;
    uint64_t code;
} value_read;

/* g->validate on the value's bytes, as the writer wrote them (its order). */
static int read_value_back(afmt_validation *c, const void *arg)
{
    const value_read *r = arg;
    c->big = r->g->write_big;
    return r->g->validate(c, r->code);
}

/* The bytes v is written as, read back by the validator of its structure:
 * a check a case of the spec adds (a u16 value that is not 0) refuses v
 * here, not the file when it is read. */
static int check_as_read(const afmt_value_grammar *g, const afmt_value *v, const char *field, uint64_t index,
                         afmt_error *err)
{
    afmt_sink counter, buffer;
    afmt_src src;
    afmt_error why;
    value_read r;
    uint8_t *bytes;
    int rc;
    memset(&counter, 0, sizeof counter);
    counter.write = count_only;
    counter.counting = 1;
    if (write_value(&counter, g, v, field, 0, index, err) != 0) return -1;
    (void)afmt_value_code(g, v, &r.code); /* g has it: write_value looked */
    if (counter.written > SIZE_MAX || !(bytes = malloc(counter.written ? (size_t)counter.written : 1)))
        return WRITE_FAIL(AFMT_E_NOMEM, "no memory to check a value of %" PRIu64 " bytes", counter.written);
    afmt_sink_buffer(&buffer, bytes, counter.written);
    rc = write_value(&buffer, g, v, field, 0, index, err);
    r.g = g;
    afmt_src_buffer(&src, bytes, buffer.written);
    if (rc == 0 && afmt_run_validator_arg(read_value_back, &r, "", &src, NULL, NULL, &why) != 0)
        rc = WRITE_FAIL(why.code, "%s", why.message);
    free(bytes);
    return rc;
}

int afmt_value_write(afmt_sink *sink, const afmt_value_grammar *g, const afmt_value *v, const char *field,
                     uint64_t index, afmt_error *err)
{
    if (g->validate && check_as_read(g, v, field, index, err) != 0) return -1;
    return write_value(sink, g, v, field, 0, index, err);
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
    afmt_validation *c;
    const afmt_value_grammar *g;
    uint64_t end;    /* the bytes validated end here */
    uint64_t budget; /* bytes of decoded lists still allowed for this key-value */
} reader;

/* The width-byte number at *at, *at moved past it; -1 when it does not
 * end by r->end (the bytes were validated: a runtime bug, reported as
 * AFMT_E_TRUNCATED at *at). */
static int take(const reader *r, uint64_t *at, unsigned width, uint64_t *out)
{
    if (width > r->end - *at)
        return afmt_fail_c(r->c, AFMT_E_TRUNCATED, r->g->name, AFMT_NO_INDEX, *at, "a value runs past the bytes validated");
    *out = afmt_field_get(AFMT_B(r->c->src, *at), 0, width, afmt_order_of(r->c, r->g->big));
    *at += width;
    return 0;
}

static int decode(reader *r, uint64_t code, uint64_t at_code, uint64_t *at, afmt_value *v, unsigned depth);

/* A list's items' type code and count at *at, then its items (in the
 * run's scratch), *at moved past them. */
static int decode_list(reader *r, uint64_t *at, afmt_value *v, unsigned depth)
{
    const uint64_t at_code = *at;
    const afmt_value_case *cs;
    afmt_value *items;
    uint64_t code, k;
    if (take(r, at, r->g->elem_width, &code) != 0 || take(r, at, r->g->count_width, &v->count) != 0) return -1;
    if (!(cs = case_of(r->g, 0, 0, code)))
        return afmt_fail_c(r->c, AFMT_E_UNKNOWN_TYPE, r->g->name, AFMT_NO_INDEX, at_code, "no value of type %" PRIu64, code);
    v->item_kind = cs->kind;
    v->item_width = cs->width;
    if (v->count == 0) return 0;
    /* every item takes a byte at least (a number, a string's length, a
     * list's type code): the items allocated are bounded by the input */
    if (v->count > r->end - *at)
        return afmt_fail_c(r->c, AFMT_E_TRUNCATED, r->g->name, AFMT_NO_INDEX, *at, "a value runs past the bytes validated");
    if (v->count > UINT64_MAX / sizeof *items)
        return afmt_fail_c(r->c, AFMT_E_OVERFLOW, r->g->name, AFMT_NO_INDEX, at_code, "a list of %" PRIu64
                           " items overflows 64 bits of memory", v->count);
    /* A list's items take sizeof *items each, several times what they
     * take in the input: the key-value's decoded lists are held to
     * limits.max_header_bytes, so memory stays a bounded amount whatever
     * the file holds (a caller that needs more raises the limit). */
    if (v->count * sizeof *items > r->budget)
        return afmt_fail_c(r->c, AFMT_E_LIMIT, r->g->name, AFMT_NO_INDEX, at_code, "a list of %" PRIu64
                           " items takes %" PRIu64 " bytes decoded, beyond the %" PRIu64
                           " left of limits.max_header_bytes for this key-value", v->count,
                           v->count * (uint64_t)sizeof *items, r->budget);
    r->budget -= v->count * sizeof *items;
    if (!(items = afmt_scratch_grow(r->c, NULL, v->count * sizeof *items, r->g->name))) return -1;
    for (k = 0; k < v->count; k++)
        if (decode(r, code, *at, at, &items[k], depth + 1) != 0) return -1;
    v->items = items;
    return 0;
}

/* Decode the value of code (read at at_code) at *at into v, its kind and
 * width from the grammar, moving *at past it. */
static int decode(reader *r, uint64_t code, uint64_t at_code, uint64_t *at, afmt_value *v, unsigned depth)
{
    const afmt_value_case *cs = case_of(r->g, 0, 0, code);
    uint64_t b;
    memset(v, 0, sizeof *v);
    if (too_deep(depth))
        return afmt_fail_c(r->c, AFMT_E_LIMIT, r->g->name, AFMT_NO_INDEX, *at, "values nested more than %d deep",
                           AFMT_VALUE_MAX_DEPTH);
    if (!cs)
        return afmt_fail_c(r->c, AFMT_E_UNKNOWN_TYPE, r->g->name, AFMT_NO_INDEX, at_code, "no value of type %" PRIu64, code);
    v->kind = cs->kind;
    v->width = cs->width;
    if (cs->kind == AFMT_VALUE_LIST) return decode_list(r, at, v, depth);
    if (cs->kind == AFMT_VALUE_STRING) {
        if (take(r, at, r->g->len_width, &v->len) != 0) return -1;
        if (v->len > r->end - *at)
            return afmt_fail_c(r->c, AFMT_E_TRUNCATED, r->g->name, AFMT_NO_INDEX, *at, "a value runs past the bytes validated");
        v->str = AFMT_B(r->c->src, *at);
        *at += v->len;
        return 0;
    }
    if (take(r, at, cs->width, &b) != 0) return -1;
    set_from_bits(v, b);
    return 0;
}

int afmt_kv_visit(afmt_validation *c, const afmt_value_grammar *g, uint64_t key_at, uint64_t key_len, uint64_t code,
                  uint64_t value_at, uint64_t offset)
{
    const struct afmt_scratch *const mark = c->scratch; /* the lists live for the call */
    reader r;
    afmt_kv kv;
    uint64_t at = value_at;
    int rc = 0;
    if (!c->vis || !c->vis->on_kv) return 0;
    if (c->pos < value_at || key_at + key_len > c->pos || !afmt_src_have(c->src, afmt_end(c), key_at, c->pos - key_at))
        return afmt_fail_c(c, AFMT_E_LIMIT, g->name, AFMT_NO_INDEX, key_at,
                           "a metadata value beyond the stream's window (read it from a buffer)");
    r.c = c;
    r.g = g;
    r.end = c->pos;
    r.budget = c->opt ? c->opt->limits.max_header_bytes : AFMT_DEFAULT_MAX_HEADER_BYTES;
    memset(&kv, 0, sizeof kv);
    kv.key = AFMT_B(c->src, key_at);
    kv.key_len = key_len;
    if (decode(&r, code, value_at, &at, &kv.value, 0) != 0)
        rc = -1;
    else if (c->vis->on_kv(c->vis->ctx, &kv, offset) != 0)
        rc = afmt_fail_c(c, AFMT_E_CALLBACK, g->name, AFMT_NO_INDEX, offset, "stopped by the caller");
    afmt_scratch_free_since(c, mark);
    return rc;
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

/* Add to *total the bytes a deep copy of v needs beyond the value itself
 * (lists' items and their own, strings' bytes): 0, or the code of why it
 * cannot be copied (AFMT_E_OVERFLOW, AFMT_E_LIMIT: nested too deep). */
static afmt_code extra_of(const afmt_value *v, unsigned depth, uint64_t *total)
{
    uint64_t k, items;
    if (too_deep(depth)) return AFMT_E_LIMIT;
    if (v->kind == AFMT_VALUE_STRING) return afmt_checked_add_u64(*total, v->len, total) == 0 ? AFMT_OK : AFMT_E_OVERFLOW;
    if (v->kind != AFMT_VALUE_LIST) return AFMT_OK;
    /* its items, and up to 7 bytes to align them */
    if (afmt_checked_mul_u64(v->count, sizeof(afmt_value), &items) || afmt_checked_add_u64(items, 8, &items) ||
        afmt_checked_add_u64(*total, items, total))
        return AFMT_E_OVERFLOW;
    for (k = 0; k < v->count; k++) {
        const afmt_code code = extra_of(&v->items[k], depth + 1, total);
        if (code != AFMT_OK) return code;
    }
    return AFMT_OK;
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
    afmt_code code = AFMT_OK;
    uint8_t *block, *p;
    *out = NULL;
    if (afmt_checked_mul_u64(n, sizeof(afmt_kv), &total)) code = AFMT_E_OVERFLOW;
    for (i = 0; i < n && code == AFMT_OK; i++) {
        if (afmt_checked_add_u64(total, kv[i].key_len, &total)) code = AFMT_E_OVERFLOW;
        else code = extra_of(&kv[i].value, 0, &total);
    }
    if (code == AFMT_E_LIMIT)
        return afmt_fail(err, code, NULL, NULL, i - 1, AFMT_NO_OFFSET, "key-value %zu: values nested more than %d deep",
                         i - 1, AFMT_VALUE_MAX_DEPTH);
    if (code != AFMT_OK || total > SIZE_MAX)
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
