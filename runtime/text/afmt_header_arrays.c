/* afmt runtime: arrays described by a text header.  See afmt_header_arrays.h.
 *
 * Everything format-specific comes from the descriptor afmt-gen compiled
 * from the spec; this file only walks it.  Checks run in an order that
 * keeps arithmetic safe: the length prefix against the format's cap and
 * the caller's limit before anything is added to it, the shape's product
 * and its byte size with overflow checks, end - begin only once end >=
 * begin is known.
 */
#include "afmt_header_arrays.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/afmt_bytes.h"
#include "../array/afmt_dir.h"
#include "../core/afmt_fields.h"
#include "afmt_header_onepass.h"

/* ------------------------------------------------------------ entries */

typedef struct entry_info {
    int type;            /* index into d->types */
    uint64_t count;      /* elements */
    uint64_t nbytes;
    uint64_t begin, end; /* RANGE: bytes in the data area */
    uint64_t range_at;   /* RANGE: where its value starts (text offset) */
    uint64_t obj_end;    /* where the entry's object ends (text offset) */
    afmt_order order;
    uint32_t rank;
} entry_info;

static const char *bind_word(afmt_header_arrays_bind b)
{
    switch (b) {
    case AFMT_BIND_DTYPE: return "a string";
    case AFMT_BIND_ORDER: return "a boolean";
    case AFMT_BIND_SHAPE: return "a list of dimensions";
    default: return "[begin, end]";
    }
}

/* The type entry named by a string value, or -1 (refusals included). */
static int find_type(const afmt_header_arrays_desc *d, const char *name)
{
    size_t i;
    for (i = 0; i < d->ntypes; i++) {
        const afmt_header_arrays_type *t = &d->types[i];
        size_t n;
        if (t->text[0] != name[0])
            continue; /* most entries differ at once */
        n = strlen(t->text);
        if (t->prefix ? strncmp(name, t->text, n) == 0 : strcmp(name, t->text) == 0)
            return (int)i;
    }
    return -1;
}

/* Tell opt->fields of the value v of key k (is_map: a name, shown as
 * ["k"]) below tp, or of tp's own value when k is NULL: its text as
 * written (a string with its quotes) at its absolute offset, named by its
 * key path as errors name it.  Only called when fields are wanted: the
 * render costs a few hundred bytes of copying. */
static void report_value(const afmt_texthdr *hdr, afmt_texthdr_path *tp, const afmt_texthdr_value *k, int is_map, const afmt_texthdr_value *v,
                         const afmt_options *opt, const afmt_path *outer)
{
    char field[AFMT_FIELD_MAX];
    const int quoted = v->kind == AFMT_TV_STRING;
    const uint64_t b = v->begin - (uint64_t)quoted, e = v->end + (uint64_t)quoted;
    if (k) afmt_texthdr_path_key(tp, k, is_map);
    afmt_texthdr_path_render(hdr, tp, field, sizeof field);
    if (k) afmt_texthdr_path_pop(tp);
    if (e - b > UINT32_MAX)
        return; /* (a value of 4 GiB: afmt_field_info's width cannot say it) */
    afmt_report_field(opt, outer, field, AFMT_FIELD_TEXT, hdr->base + b, 0, 1, (unsigned)(e - b), 0, hdr->text + b,
                      NULL, NULL);
}

/* Check one entry object against the descriptor's keys; fill info and,
 * when a is given, the view's type, shape and order.  With report, each
 * key's value is told to opt->fields first, in text order (an entry read
 * again for its view is not told twice). */
/* Keys of an entry that check_entry finds in its one pass (npy has 3,
 * safetensors 3). */
#define SEEN_KEYS 8

static int check_entry(const afmt_header_arrays_desc *d, const afmt_texthdr *hdr, const afmt_texthdr_value *obj, afmt_texthdr_path *tp,
                       const afmt_options *opt, const afmt_path *outer, afmt_error *err, entry_info *info,
                       afmt_array *a, int report)
{
    afmt_texthdr_iter it;
    afmt_texthdr_value k, v, shape_v, seen_k[SEEN_KEYS], seen_v[SEEN_KEYS];
    unsigned char seen[SEEN_KEYS];
    size_t i;
    int have_shape = 0;
    uint64_t max_rank = opt->limits.max_rank < AFMT_RANK_CAP ? opt->limits.max_rank : AFMT_RANK_CAP;

    memset(info, 0, sizeof *info);
    memset(&shape_v, 0, sizeof shape_v); /* set with have_shape: gcc cannot tell */
    info->type = -1;
    if (a)
        afmt_array_init(a, AFMT_DTYPE_INVALID);
    info->order = AFMT_ROW_MAJOR;
    if (obj->kind != AFMT_TV_OBJECT && report && opt->fields)
        report_value(hdr, tp, NULL, 0, obj, opt, outer);
    if (obj->kind != AFMT_TV_OBJECT)
        return afmt_texthdr_fail(hdr, tp, outer, err, AFMT_E_CONSTRAINT, obj->begin, "expected an object, found %s",
                            afmt_tv_kind_name(obj->kind));
    /* One pass over the entry finds every key and value: each afmt_texthdr_next
     * parses a value again, so a lookup per key (afmt_texthdr_get) would parse the
     * entry once per key.  The first SEEN_KEYS keys of the spec are kept;
     * a spec with more looks the rest up as it goes. */
    memset(seen, 0, sizeof seen);
    afmt_texthdr_iter_begin(hdr, obj, &it);
    while (afmt_texthdr_next(hdr, &it, &k, &v)) {
        int known = 0;
        if (report && opt->fields)
            report_value(hdr, tp, &k, 0, &v, opt, outer);
        for (i = 0; i < d->nkeys && !known; i++)
            if (afmt_texthdr_str_eq(hdr, &k, d->keys[i].key)) {
                known = 1;
                if (i < SEEN_KEYS && !seen[i]) {
                    seen[i] = 1;
                    seen_k[i] = k;
                    seen_v[i] = v;
                }
            }
        if (!known) {
            char list[160] = "";
            for (i = 0; i < d->nkeys; i++) {
                size_t l = strlen(list);
                snprintf(list + l, sizeof list - l, "%s%s", i ? ", " : "", d->keys[i].key);
            }
            afmt_texthdr_path_key(tp, &k, 0);
            return afmt_texthdr_fail(hdr, tp, outer, err, AFMT_E_CONSTRAINT, k.begin - 1,
                                "unknown key: an entry has exactly the keys %s", list);
        }
    }
    info->obj_end = it.pos;
    for (i = 0; i < d->nkeys; i++) {
        const afmt_header_arrays_key *key = &d->keys[i];
        afmt_texthdr_value kt;
        if (i < SEEN_KEYS) {
            if (!seen[i])
                return afmt_texthdr_fail(hdr, tp, outer, err, AFMT_E_CONSTRAINT, obj->begin, "missing key '%s'",
                                    key->key);
            kt = seen_k[i];
            v = seen_v[i];
        } else {
            if (!afmt_texthdr_get(hdr, obj, key->key, &v))
                return afmt_texthdr_fail(hdr, tp, outer, err, AFMT_E_CONSTRAINT, obj->begin, "missing key '%s'",
                                    key->key);
            memset(&kt, 0, sizeof kt);
            kt.kind = AFMT_TV_STRING;
            afmt_texthdr_iter_begin(hdr, obj, &it);
            while (afmt_texthdr_next(hdr, &it, &kt, &v))
                if (afmt_texthdr_str_eq(hdr, &kt, key->key)) break;
        }
        /* The path names the spec's key (which is what the text holds). */
        afmt_texthdr_path_key(tp, &kt, 0);
        switch (key->bind) {
        case AFMT_BIND_DTYPE: {
            char name[64];
            int t;
            if (v.kind == AFMT_TV_LIST && v.count > 0)
                return afmt_texthdr_fail(hdr, tp, outer, err, AFMT_E_UNSUPPORTED, v.begin,
                                    "a list of fields (a structured type) is not supported");
            if (v.kind != AFMT_TV_STRING)
                return afmt_texthdr_fail(hdr, tp, outer, err, AFMT_E_CONSTRAINT, v.begin, "expected %s, found %s",
                                    bind_word(key->bind), afmt_tv_kind_name(v.kind));
            afmt_texthdr_str_copy(hdr, &v, name, sizeof name);
            t = find_type(d, name);
            if (t < 0 || (uint64_t)(v.end - v.begin) >= sizeof name)
                return afmt_texthdr_fail(hdr, tp, outer, err, AFMT_E_UNKNOWN_TYPE, v.begin - 1,
                                    "unknown element type '%s'", name);
            if (d->types[t].refuse)
                return afmt_texthdr_fail(hdr, tp, outer, err, AFMT_E_UNSUPPORTED, v.begin - 1, "'%s': %s", name,
                                    d->types[t].refuse);
            info->type = t;
            break;
        }
        case AFMT_BIND_ORDER:
            if (v.kind != AFMT_TV_BOOL)
                return afmt_texthdr_fail(hdr, tp, outer, err, AFMT_E_CONSTRAINT, v.begin, "expected %s, found %s",
                                    bind_word(key->bind), afmt_tv_kind_name(v.kind));
            info->order = v.u ? AFMT_COL_MAJOR : AFMT_ROW_MAJOR;
            break;
        case AFMT_BIND_SHAPE:
            if (v.kind != key->kind)
                return afmt_texthdr_fail(hdr, tp, outer, err, AFMT_E_CONSTRAINT, v.begin, "expected %s, found %s",
                                    afmt_tv_kind_name(key->kind), afmt_tv_kind_name(v.kind));
            if (v.count > max_rank)
                return afmt_texthdr_fail(hdr, tp, outer, err, AFMT_E_LIMIT, v.begin, "rank %" PRIu64 " exceeds the limit of %" PRIu64 " (limits.max_rank)",
                                    v.count, max_rank);
            shape_v = v;
            have_shape = 1;
            break;
        case AFMT_BIND_RANGE:
            info->range_at = v.begin;
            break;
        }
        afmt_texthdr_path_pop(tp);
    }
    /* The shape, now that the element type is known. */
    info->count = 1;
    if (have_shape) {
        afmt_texthdr_iter sit;
        afmt_texthdr_value e;
        uint32_t r = 0;
        int overflow = 0;
        const char *skey = NULL;
        for (i = 0; i < d->nkeys; i++)
            if (d->keys[i].bind == AFMT_BIND_SHAPE) skey = d->keys[i].key;
        afmt_texthdr_iter_begin(hdr, &shape_v, &sit);
        while (afmt_texthdr_next(hdr, &sit, NULL, &e)) {
            afmt_texthdr_value kt;
            memset(&kt, 0, sizeof kt);
            if (e.kind != AFMT_TV_INT || e.negative) {
                afmt_texthdr_iter kit;
                afmt_texthdr_value kv;
                afmt_texthdr_iter_begin(hdr, obj, &kit);
                while (afmt_texthdr_next(hdr, &kit, &kt, &kv))
                    if (afmt_texthdr_str_eq(hdr, &kt, skey)) break;
                afmt_texthdr_path_key(tp, &kt, 0);
                afmt_texthdr_path_index(tp, r);
                if (e.kind != AFMT_TV_INT)
                    return afmt_texthdr_fail(hdr, tp, outer, err, AFMT_E_CONSTRAINT, e.begin, "expected an integer, found %s",
                                        afmt_tv_kind_name(e.kind));
                return afmt_texthdr_fail(hdr, tp, outer, err, AFMT_E_NEGATIVE, e.begin, "dimension is negative (-%" PRIu64 ")", e.u);
            }
            if (a) a->dims[r] = e.u;
            if (!overflow && afmt_checked_mul_u64(info->count, e.u, &info->count)) overflow = 1;
            if (e.u == 0) { info->count = 0; overflow = 0; }
            if (overflow) info->count = UINT64_MAX;
            r++;
        }
        /* A zero dimension makes the product exact whatever the others. */
        if (overflow) {
            afmt_texthdr_iter kit;
            afmt_texthdr_value kt, kv;
            afmt_texthdr_iter_begin(hdr, obj, &kit);
            while (afmt_texthdr_next(hdr, &kit, &kt, &kv))
                if (afmt_texthdr_str_eq(hdr, &kt, skey)) break;
            afmt_texthdr_path_key(tp, &kt, 0);
            return afmt_texthdr_fail(hdr, tp, outer, err, AFMT_E_OVERFLOW, shape_v.begin, "the element count overflows 64 bits");
        }
        info->rank = r;
    }
    if (info->type >= 0 && afmt_checked_mul_u64(info->count, d->types[info->type].size, &info->nbytes)) {
        /* Blamed on the shape, at its offset (the path names it too). */
        afmt_texthdr_iter kit;
        afmt_texthdr_value kt, kv;
        afmt_texthdr_iter_begin(hdr, obj, &kit);
        while (afmt_texthdr_next(hdr, &kit, &kt, &kv))
            if (kv.begin == shape_v.begin) break;
        afmt_texthdr_path_key(tp, &kt, 0);
        return afmt_texthdr_fail(hdr, tp, outer, err, AFMT_E_OVERFLOW, shape_v.begin,
                            "%" PRIu64 " elements of %" PRIu32 " bytes overflow 64 bits of bytes", info->count,
                            d->types[info->type].size);
    }
    /* The byte range, last: it must hold exactly the shape's bytes. */
    for (i = 0; i < d->nkeys; i++) {
        afmt_texthdr_value kt, rv, b, e;
        afmt_texthdr_iter rit;
        uint64_t have;
        if (d->keys[i].bind != AFMT_BIND_RANGE) continue;
        afmt_texthdr_iter_begin(hdr, obj, &rit);
        while (afmt_texthdr_next(hdr, &rit, &kt, &rv))
            if (afmt_texthdr_str_eq(hdr, &kt, d->keys[i].key)) break;
        afmt_texthdr_path_key(tp, &kt, 0);
        if (rv.kind != AFMT_TV_LIST || rv.count != 2)
            return afmt_texthdr_fail(hdr, tp, outer, err, AFMT_E_CONSTRAINT, rv.begin, "expected [begin, end], found %s%s",
                                afmt_tv_kind_name(rv.kind), rv.kind == AFMT_TV_LIST ? " of another length" : "");
        afmt_texthdr_iter_begin(hdr, &rv, &rit);
        afmt_texthdr_next(hdr, &rit, NULL, &b);
        afmt_texthdr_next(hdr, &rit, NULL, &e);
        if (b.kind != AFMT_TV_INT || b.negative) {
            afmt_texthdr_path_index(tp, 0);
            return afmt_texthdr_fail(hdr, tp, outer, err, b.kind == AFMT_TV_INT ? AFMT_E_NEGATIVE : AFMT_E_CONSTRAINT, b.begin,
                                "expected a non-negative integer, found %s%s", b.kind == AFMT_TV_INT ? "-" : "",
                                b.kind == AFMT_TV_INT ? "an integer" : afmt_tv_kind_name(b.kind));
        }
        if (e.kind != AFMT_TV_INT || e.negative) {
            afmt_texthdr_path_index(tp, 1);
            return afmt_texthdr_fail(hdr, tp, outer, err, e.kind == AFMT_TV_INT ? AFMT_E_NEGATIVE : AFMT_E_CONSTRAINT, e.begin,
                                "expected a non-negative integer, found %s%s", e.kind == AFMT_TV_INT ? "-" : "",
                                e.kind == AFMT_TV_INT ? "an integer" : afmt_tv_kind_name(e.kind));
        }
        if (e.u < b.u) {
            afmt_texthdr_path_index(tp, 1);
            return afmt_texthdr_fail(hdr, tp, outer, err, AFMT_E_CONSTRAINT, e.begin,
                                "end %" PRIu64 " is before begin %" PRIu64, e.u, b.u);
        }
        have = e.u - b.u;
        if (have != info->nbytes)
            return afmt_texthdr_fail(hdr, tp, outer, err, AFMT_E_SIZE, rv.begin,
                                "the range holds %" PRIu64 " bytes, the shape needs %" PRIu64 " (%" PRIu64
                                " elements of %" PRIu32 " bytes)",
                                have, info->nbytes, info->count, d->types[info->type].size);
        info->begin = b.u;
        info->end = e.u;
        afmt_texthdr_path_pop(tp);
    }
    if (a) {
        const afmt_header_arrays_type *t = &d->types[info->type];
        a->dtype = t->dtype;
        a->elsize = t->size;
        a->rank = info->rank;
        a->count = info->count;
        a->order = info->order;
        a->endian = t->endian;
        a->encoding = AFMT_ENC_PLAIN;
        a->nbytes = info->nbytes;
        a->stride = t->size;
        /* an opaque type keeps its name, for writers that have it */
        if (t->dtype == AFMT_OPAQUE)
            snprintf(a->opaque_name, sizeof a->opaque_name, "%s", t->text);
    }
    return 0;
}

/* ------------------------------------------------------------ maps */

/* The entry whose key's quote is at text[quote]: its key and value. */
static void entry_at(const afmt_texthdr *hdr, uint64_t quote, afmt_texthdr_value *k, afmt_texthdr_value *v)
{
    afmt_texthdr_iter it;
    it.pos = quote;
    it.index = 0;
    it.count = 1;
    it.object = 1;
    it.done = 0;
    afmt_texthdr_next(hdr, &it, k, v);
}

/* Text offset of the opening quote of a directory entry's name (its raw
 * key text in the header). */
static uint64_t name_quote(const afmt_texthdr *hdr, const afmt_dir_entry *e)
{
    return (uint64_t)((const uint8_t *)e->name - hdr->text) - 1;
}

typedef struct range_field_ctx {
    const afmt_header_arrays_desc *d;
    const afmt_texthdr *hdr;
} range_field_ctx;

/* afmt_dir's name of an entry in errors: the key path of its range,
 * header["b"].data_offsets. */
static void range_field(void *ctx, const afmt_dir_entry *e, char *out, size_t out_size)
{
    const range_field_ctx *fc = ctx;
    const char *rkey = NULL;
    afmt_texthdr_value sk, sv, kt, rv;
    afmt_texthdr_iter it;
    afmt_texthdr_path tp;
    size_t i;
    for (i = 0; i < fc->d->nkeys; i++)
        if (fc->d->keys[i].bind == AFMT_BIND_RANGE) rkey = fc->d->keys[i].key;
    entry_at(fc->hdr, name_quote(fc->hdr, e), &sk, &sv);
    tp.depth = 0;
    afmt_texthdr_path_key(&tp, &sk, 1);
    afmt_texthdr_iter_begin(fc->hdr, &sv, &it);
    while (rkey && afmt_texthdr_next(fc->hdr, &it, &kt, &rv))
        if (afmt_texthdr_str_eq(fc->hdr, &kt, rkey)) {
            afmt_texthdr_path_key(&tp, &kt, 0);
            break;
        }
    afmt_texthdr_path_render(fc->hdr, &tp, out, out_size);
}

/* ------------------------------------------------------------ validate */

static uint64_t load_len(const uint8_t *p, unsigned w, int big)
{
    switch (w) {
    case 2: return big ? afmt_load_u16be(p) : afmt_load_u16le(p);
    case 4: return big ? afmt_load_u32be(p) : afmt_load_u32le(p);
    default: return big ? afmt_load_u64be(p) : afmt_load_u64le(p);
    }
}

/* Take nbytes of payload at `at` (bools: each byte 0 or 1). */
static int take_bytes(afmt_src *src, uint64_t end, uint64_t at, uint64_t nbytes, int is_bool, const afmt_options *opt,
                      const afmt_visitor *vis, const afmt_path *path, const char *field, afmt_error *err)
{
    uint64_t bad = nbytes, count = nbytes;
    afmt_scan_fn scan = opt->check_values && is_bool ? afmt_src_scan_bool : NULL;
    if (!afmt_src_take(src, end, at, nbytes, scan, &count, &bad))
        return afmt_src_short(src, err, path, field, AFMT_NO_INDEX, at, end, nbytes, "the payload");
    if (bad < nbytes &&
        afmt_tolerate(opt, vis, err, AFMT_E_VALUE, path, field, bad, at + bad, "bool element is 0x%02x, not 0 or 1",
                      src->bad_byte))
        return -1;
    return 0;
}

/* The metadata entry: an object of strings, passed to the visitor. */
static int check_metadata(const afmt_texthdr *hdr, const afmt_texthdr_value *v, afmt_texthdr_path *tp, const afmt_options *opt,
                          const afmt_visitor *vis, const afmt_path *path, afmt_error *err)
{
    afmt_texthdr_iter mit;
    afmt_texthdr_value mk, mv;
    if (v->kind != AFMT_TV_OBJECT && opt->fields)
        report_value(hdr, tp, NULL, 0, v, opt, path);
    if (v->kind != AFMT_TV_OBJECT)
        return afmt_texthdr_fail(hdr, tp, path, err, AFMT_E_CONSTRAINT, v->begin, "expected an object of strings, found %s",
                            afmt_tv_kind_name(v->kind));
    afmt_texthdr_iter_begin(hdr, v, &mit);
    while (afmt_texthdr_next(hdr, &mit, &mk, &mv)) {
        if (opt->fields)
            report_value(hdr, tp, &mk, 1, &mv, opt, path);
        if (mv.kind != AFMT_TV_STRING) {
            afmt_texthdr_path_key(tp, &mk, 1);
            return afmt_texthdr_fail(hdr, tp, path, err, AFMT_E_CONSTRAINT, mv.begin, "metadata values are strings, found %s",
                                afmt_tv_kind_name(mv.kind));
        }
    }
    if (vis && vis->on_metadata)
        vis->on_metadata(vis->ctx, hdr->text + v->begin, v->end - v->begin, hdr->base + v->begin);
    return 0;
}

/* The entries of a map header, exactly: each entry object checked
 * (check_entry) in listing order, its range and name put in the list;
 * the metadata entry checked and passed on.  For a header the one-pass
 * reader (afmt_header_onepass.c) did not take, after afmt_texthdr_parse. */
static int collect_entries(const afmt_header_arrays_desc *d, const afmt_texthdr *hdr, const afmt_texthdr_value *root, afmt_texthdr_path *tp,
                           const afmt_options *opt, const afmt_visitor *vis, const afmt_path *path,
                           afmt_header_map_list *l, afmt_error *err)
{
    afmt_texthdr_iter it;
    afmt_texthdr_value k, v;
    l->n = 0; /* what the one-pass reader left before it gave up */
    memset(&l->metadata, 0, sizeof l->metadata);
    afmt_texthdr_iter_begin(hdr, root, &it);
    /* Each entry read once: its object walked by check_entry only. */
    while (afmt_texthdr_next_shallow(hdr, &it, &k, &v)) {
        entry_info info;
        afmt_dir_entry *e;
        afmt_texthdr_path_key(tp, &k, 1);
        if (d->metadata_key && afmt_texthdr_str_eq(hdr, &k, d->metadata_key)) {
            if (v.count == AFMT_TV_COUNT_UNKNOWN)
                afmt_texthdr_finish(hdr, &it, &v);
            if (check_metadata(hdr, &v, tp, opt, vis, path, err) != 0)
                return -1;
            afmt_texthdr_path_pop(tp);
            continue;
        }
        if (v.kind != AFMT_TV_OBJECT && v.count == AFMT_TV_COUNT_UNKNOWN)
            afmt_texthdr_finish(hdr, &it, &v); /* a list where an entry belongs: its end, for the field */
        if (check_entry(d, hdr, &v, tp, opt, path, err, &info, NULL, 1) != 0)
            return -1;
        if (v.count == AFMT_TV_COUNT_UNKNOWN)
            afmt_texthdr_iter_resume(hdr, &it, info.obj_end);
        afmt_texthdr_path_pop(tp);
        if (afmt_header_map_grow(l) != 0)
            return afmt_fail(err, AFMT_E_NOMEM, path, hdr->root, AFMT_NO_INDEX, hdr->base,
                             "out of memory for the list of %zu entries", l->n + 1);
        e = &l->e[l->n];
        e->begin = info.begin;
        e->size = info.end - info.begin;
        e->index = l->n;
        e->name = (const char *)hdr->text + k.begin;
        e->name_len = (size_t)(k.end - k.begin);
        e->record_offset = hdr->base + info.range_at;
        l->is_bool[l->n] = d->types[info.type].dtype == AFMT_BOOL;
        l->n++;
    }
    return 0;
}

/* The views in data order, while the header is still in memory (a stream
 * drops it as its payloads are taken): each entry's object read again. */
static int visit_entries(const afmt_header_arrays_desc *d, const afmt_texthdr *hdr, const afmt_dir_entry *v, size_t n,
                         afmt_texthdr_path *tp, afmt_src *src, uint64_t end, uint64_t data_start, uint32_t narrays,
                         const afmt_options *opt, const afmt_visitor *vis, const afmt_path *path, afmt_error *err)
{
    size_t i;
    afmt_array a;
    afmt_header_onepass_viewer fv;
    afmt_header_onepass_viewer_init(&fv, d, hdr, opt);
#ifdef AFMT_HEADER_ARRAYS_EXACT_ONLY /* the differential test's second build */
    fv.ok = 0;
#endif
    for (i = 0; i < n; i++) {
        if (!afmt_header_onepass_view(&fv, &v[i], &a)) {
            entry_info info;
            afmt_texthdr_value sk, sv;
            entry_at(hdr, name_quote(hdr, &v[i]), &sk, &sv);
            afmt_texthdr_path_key(tp, &sk, 1);
            if (check_entry(d, hdr, &sv, tp, opt, path, err, &info, &a, 0) != 0)
                return -1;
            afmt_texthdr_path_pop(tp);
            a.name_len = afmt_texthdr_str_copy(hdr, &sk, a.name, sizeof a.name);
        }
        a.offset = data_start + v[i].begin;
        a.index = narrays + (uint32_t)i;
        a.data = afmt_src_windowed(src) ? NULL : afmt_src_ptr(src, a.offset, a.nbytes);
        if (!afmt_src_windowed(src) && !afmt_src_have(src, end, a.offset, a.nbytes))
            break; /* reported by the payloads' check as missing data */
        if (vis->on_array(vis->ctx, &a) != 0)
            return afmt_fail(err, AFMT_E_CALLBACK, path, "data", AFMT_NO_INDEX, a.offset, "stopped by the caller");
    }
    return 0;
}

/* Bytes from entry i's begin to entry j - 1's end (sorted, tiling). */
static uint64_t covered_between(const afmt_header_map_list *l, size_t i, size_t j)
{
    return l->e[j - 1].begin + l->e[j - 1].size - l->e[i].begin;
}

/* A map header's entries (in l, listing order) must tile the data area
 * from data_start in some order: afmt_dir sorts them in place (no work
 * for a header listed in data order, as the reference writes them) and
 * names the first hole or overlap.  Then the views and the payloads, in
 * data order. */
static int take_map(const afmt_header_arrays_desc *d, const afmt_texthdr *hdr, afmt_header_map_list *l, afmt_texthdr_path *tp,
                    afmt_src *src, uint64_t end, uint64_t data_start, uint64_t *pos, uint32_t *narrays,
                    const afmt_options *opt, const afmt_visitor *vis, const afmt_path *path, afmt_error *err)
{
    afmt_dir_policy pol;
    range_field_ctx fc;
    uint64_t covered = 0;
    size_t i;
    memset(&pol, 0, sizeof pol);
    pol.order = AFMT_DIR_ANY;
    pol.layout = AFMT_DIR_TILE;
    pol.tail = AFMT_DIR_TAIL_NONE;
    pol.align = 1;
    pol.area_size = AFMT_DIR_AREA_OPEN; /* what follows: the trailer's rule */
    pol.path = path;
    pol.field = range_field;
    fc.d = d;
    fc.hdr = hdr;
    pol.field_ctx = &fc;
    if (afmt_dir_check(&pol, l->e, l->n, l->e, &covered, err) != 0)
        return -1;
    if (vis && vis->on_array &&
        visit_entries(d, hdr, l->e, l->n, tp, src, end, data_start, *narrays, opt, vis, path, err) != 0)
        return -1;
    for (i = 0; i < l->n;) {
        /* A run of entries whose bytes need no check is one take (they
         * tile: each begins where the one before ends); when it fails,
         * the entries one by one say which payload is short. */
        size_t j = i + 1, k;
        uint64_t bad;
        int is_bool = opt->check_values && l->is_bool[l->e[i].index];
        /* (a stream may have read past a short run: one by one there) */
        while (!is_bool && !afmt_src_windowed(src) && j < l->n && !(opt->check_values && l->is_bool[l->e[j].index]))
            j++;
        if (j - i > 1 && afmt_src_take(src, end, data_start + l->e[i].begin, covered_between(l, i, j), NULL, NULL, &bad)) {
            i = j;
            continue;
        }
        for (k = i; k < j; k++)
            if (l->e[k].size && take_bytes(src, end, data_start + l->e[k].begin, l->e[k].size, l->is_bool[l->e[k].index],
                                           opt, vis, path, "data", err) != 0)
                return -1;
        i = j;
    }
    if (l->n > UINT32_MAX - *narrays)
        return afmt_fail(err, AFMT_E_LIMIT, path, "data", AFMT_NO_INDEX, data_start, "more than 2^32 arrays");
    *narrays += (uint32_t)l->n;
    *pos = data_start + covered;
    return 0;
}

/* Whitespace of the header's syntax (JSON's four; Python skips the same
 * between tokens). */
static int is_space(const afmt_header_arrays_desc *d, uint8_t b)
{
    (void)d;
    return b == ' ' || b == '\t' || b == '\n' || b == '\r';
}

/* A rule the spec's "lenient": "warn" relaxes: 1 when it is tolerated (a
 * warning, lenient mode), else 0 with err set (the same error as without
 * the marker). */
static int relaxed(const afmt_header_arrays_desc *d, const afmt_texthdr *hdr, const afmt_texthdr_path *tp, const afmt_options *opt,
                   const afmt_visitor *vis, const afmt_path *path, afmt_error *err, afmt_code code, uint64_t at,
                   const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 10, 11)))
#endif
    ;

static int relaxed(const afmt_header_arrays_desc *d, const afmt_texthdr *hdr, const afmt_texthdr_path *tp, const afmt_options *opt,
                   const afmt_visitor *vis, const afmt_path *path, afmt_error *err, afmt_code code, uint64_t at,
                   const char *fmt, ...)
{
    char msg[AFMT_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (!d->lenient || !opt || opt->mode != AFMT_LENIENT) {
        afmt_texthdr_fail(hdr, tp, path, err, code, at, "%s", msg);
        return 0;
    }
    return afmt_tolerate(opt, vis, err, code, path, hdr->root, AFMT_NO_INDEX, hdr->base + at, "%s", msg) == 0;
}

/* afmt_texthdr_parse of the whole header, with a work area in which the
 * parser sorts the keys of large objects (duplicate names: O(k log k)):
 * 12 bytes per ':' of the text, for the parse only.  Without the memory
 * the parser checks them in passes instead (slower, no memory). */
static int parse_exactly(const afmt_header_arrays_desc *d, afmt_texthdr *hdr, afmt_texthdr_value *root, const afmt_path *path,
                         afmt_header_map_list *l, afmt_error *err)
{
    int rc;
    if (d->map) {
        uint64_t size = afmt_texthdr_work_size(hdr->text, hdr->len);
        if ((hdr->work = afmt_header_map_work(l, size)) != NULL)
            hdr->work_size = size;
    }
    rc = afmt_texthdr_parse(hdr, 0, root, path, err);
    hdr->work = NULL;
    hdr->work_size = 0;
    return rc;
}

/* afmt_header_arrays_validate, with the list of a map's entries kept in l (the
 * caller frees it whatever the outcome). */
static int validate_text(const afmt_header_arrays_desc *d, afmt_src *src, uint64_t end, uint64_t *pos, uint32_t *narrays,
                         const afmt_options *opt, const afmt_visitor *vis, const afmt_path *path,
                         afmt_header_map_list *l, afmt_error *err)
{
    const unsigned w = d->length_width;
    char lenfield[48], buf[16];
    uint64_t p = *pos, n, p0, data_start, q, last, i;
    afmt_texthdr hdr;
    afmt_texthdr_value root;
    afmt_texthdr_path tp;
    const uint8_t *text;
    afmt_array a;
    int fast = 0;

    {
        /* "<name>_length": no printf on every call (a header of ten
         * entries is read in well under a microsecond) */
        size_t nl = strlen(d->name);
        if (nl > sizeof lenfield - 8) nl = sizeof lenfield - 8;
        memcpy(lenfield, d->name, nl);
        memcpy(lenfield + nl, "_length", 8);
    }
    if (!afmt_src_have(src, end, p, w))
        return afmt_src_short(src, err, path, lenfield, AFMT_NO_INDEX, p, end, w, lenfield);
    n = load_len(AFMT_B(src, p), w, d->length_big);
    if (opt->fields)
        afmt_report_field(opt, path, lenfield, AFMT_FIELD_UINT, p, 0, 1, w, d->length_big, AFMT_B(src, p), NULL, NULL);
    if (d->max_length && n > d->max_length)
        return afmt_fail(err, AFMT_E_CONSTRAINT, path, lenfield, AFMT_NO_INDEX, p,
                         "a header of %" PRIu64 " bytes exceeds the format's cap of %" PRIu64, n, d->max_length);
    if (n > opt->limits.max_header_bytes)
        return afmt_fail(err, AFMT_E_LIMIT, path, lenfield, AFMT_NO_INDEX, p,
                         "a header of %" PRIu64 " bytes exceeds the limit of %" PRIu64 " (limits.max_header_bytes)", n,
                         opt->limits.max_header_bytes);
    p0 = p + w;
    if (!afmt_src_have(src, end, p0, n))
        return afmt_src_short(src, err, path, d->name, AFMT_NO_INDEX, p0, end, n, d->name);
    text = AFMT_B(src, p0);
    memset(&hdr, 0, sizeof hdr);
    hdr.text = text;
    hdr.len = n;
    hdr.base = p0;
    hdr.syntax = d->syntax;
    hdr.max_depth = opt->limits.max_depth < AFMT_TEXTHDR_DEPTH_CAP ? (unsigned)opt->limits.max_depth : AFMT_TEXTHDR_DEPTH_CAP;
    hdr.max_entries = opt->limits.max_items;
    hdr.root = d->name;
    hdr.map_depths = d->map ? 1u : 0u;
    tp.depth = 0;
    if (n == 0)
        return afmt_texthdr_fail(&hdr, &tp, path, err, AFMT_E_VALUE, 0, "a header starts with '{', found nothing");
    if (text[0] != '{') {
        /* Whitespace before the value: the reference readers skip it. */
        uint64_t b = 0;
        while (b < n && is_space(d, text[b])) b++;
        snprintf(buf, sizeof buf, text[0] >= 0x20 && text[0] < 0x7f ? "'%c'" : "byte 0x%02x", text[0]);
        if (b == 0 || b == n || text[b] != '{' ||
            !relaxed(d, &hdr, &tp, opt, vis, path, err, AFMT_E_VALUE, 0, "a header starts with '{', found %s", buf))
            return afmt_texthdr_fail(&hdr, &tp, path, err, AFMT_E_VALUE, 0, "a header starts with '{', found %s", buf);
    }
    /* The one-pass reader tells no field: a caller who asks for them
     * (afmt info) gets the exact steps, which do. */
#ifndef AFMT_HEADER_ARRAYS_EXACT_ONLY /* defined by a differential test only */
    if (d->map && !opt->fields && (fast = afmt_header_onepass_map(d, &hdr, opt, &root.end, l)) < 0)
#else
    if (0)
#endif
        return afmt_fail(err, AFMT_E_NOMEM, path, d->name, AFMT_NO_INDEX, p0, "out of memory for the list of entries");
    if (fast) {
        root.kind = AFMT_TV_OBJECT; /* the rest of root is not read for a map */
    } else if (parse_exactly(d, &hdr, &root, path, l, err) != 0) {
        return -1;
    }
    /* What follows the value: pad bytes, then the terminator. */
    q = root.end;
    last = n;
    if (d->terminator >= 0) {
        if (q == n || text[n - 1] != (uint8_t)d->terminator) {
            if (!relaxed(d, &hdr, &tp, opt, vis, path, err, AFMT_E_PADDING, n - 1,
                         "the header must end with byte 0x%02x, found 0x%02x", d->terminator, text[n - 1]))
                return -1;
        } else {
            last = n - 1;
        }
    }
    {
        int warned = 0;
        for (i = q; i < last; i++) {
            if (d->pad >= 0 && text[i] == (uint8_t)d->pad) continue;
            /* Other whitespace of the syntax: the reference readers'
             * JSON and Python parsers skip it (one warning). */
            if (!warned && is_space(d, text[i]) &&
                relaxed(d, &hdr, &tp, opt, vis, path, err, AFMT_E_PADDING, i,
                        "byte 0x%02x after the header's value: only 0x%02x may pad it", text[i],
                        d->pad < 0 ? 0 : d->pad)) {
                warned = 1;
                continue;
            }
            if (warned && is_space(d, text[i])) continue;
            return afmt_texthdr_fail(&hdr, &tp, path, err, AFMT_E_PADDING, i,
                                "byte 0x%02x after the header's value: only 0x%02x may pad it", text[i],
                                d->pad < 0 ? 0 : d->pad);
        }
    }
    data_start = p0 + n;
    if (d->align && data_start % d->align != 0) {
        if (!d->lenient)
            return afmt_fail(err, AFMT_E_CONSTRAINT, path, lenfield, AFMT_NO_INDEX, p,
                             "the header ends at offset %" PRIu64 ", not a multiple of %" PRIu64, data_start, d->align);
        /* Readers find the data after the header whatever its length. */
        if (afmt_tolerate(opt, vis, err, AFMT_E_CONSTRAINT, path, lenfield, AFMT_NO_INDEX, p,
                          "the header ends at offset %" PRIu64 ", not a multiple of %" PRIu64, data_start, d->align))
            return -1;
    }

    if (!d->map) {
        entry_info info;
        if (check_entry(d, &hdr, &root, &tp, opt, path, err, &info, &a, 1) != 0)
            return -1;
        a.offset = data_start;
        a.index = *narrays;
        afmt_src_keep_from(src, data_start);
        if (take_bytes(src, end, data_start, a.nbytes, a.dtype == AFMT_BOOL, opt, vis, path, "data", err) != 0)
            return -1;
        if (vis && vis->on_array) {
            a.data = afmt_src_ptr(src, data_start, a.nbytes);
            if (vis->on_array(vis->ctx, &a) != 0)
                return afmt_fail(err, AFMT_E_CALLBACK, path, "data", AFMT_NO_INDEX, data_start, "stopped by the caller");
        }
        (*narrays)++;
        *pos = data_start + a.nbytes;
        return 0;
    }

    if (n > UINT32_MAX)
        return afmt_fail(err, AFMT_E_LIMIT, path, lenfield, AFMT_NO_INDEX, p,
                         "a map header of %" PRIu64 " bytes exceeds afmt's limit of 4 GiB", n);
    if (!fast && collect_entries(d, &hdr, &root, &tp, opt, vis, path, l, err) != 0)
        return -1;
    if (fast && l->metadata.kind == AFMT_TV_OBJECT && vis && vis->on_metadata)
        vis->on_metadata(vis->ctx, hdr.text + l->metadata.begin, l->metadata.end - l->metadata.begin,
                         hdr.base + l->metadata.begin);
    return take_map(d, &hdr, l, &tp, src, end, data_start, pos, narrays, opt, vis, path, err);
}

int afmt_header_arrays_validate(const afmt_header_arrays_desc *d, afmt_src *src, uint64_t end, uint64_t *pos,
                        uint32_t *narrays, const afmt_options *opt, const afmt_visitor *vis,
                        const afmt_path *path, afmt_error *err)
{
    afmt_header_map_list l;
    int rc;
    afmt_header_map_init(&l);
    rc = validate_text(d, src, end, pos, narrays, opt, vis, path, &l, err);
    afmt_header_map_free(&l);
    return rc;
}

/* ------------------------------------------------------------ write */

typedef struct render {
    afmt_sink *sink;   /* NULL: only count */
    afmt_error *err;
    uint64_t len;
    int failed;
} render;

static void put(render *r, const char *s, size_t n)
{
    if (r->failed) return;
    r->len += n;
    if (r->sink && afmt_sink_put(r->sink, s, n, r->err) != 0) r->failed = 1;
}

static void puts_(render *r, const char *s) { put(r, s, strlen(s)); }

static void put_u64(render *r, uint64_t v)
{
    char b[24];
    snprintf(b, sizeof b, "%" PRIu64, v);
    puts_(r, b);
}

/* A string in the header's syntax: JSON escapes, or Python quotes. */
/* n bytes as a string in the header's syntax: JSON escaped as serde_json
 * (the safetensors reference) does it (\" \\ \b \f \n \r \t, other
 * control bytes \u00xx), Python quotes with \xNN. */
static void put_strn(render *r, afmt_texthdr_syntax syn, const char *s, size_t n)
{
    static const char short_esc[] = {'\b', 'b', '\f', 'f', '\n', 'n', '\r', 'r', '\t', 't'};
    char q = syn == AFMT_TEXTHDR_PYDICT ? '\'' : '"';
    size_t i, j;
    put(r, &q, 1);
    for (i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        char esc[8];
        if (c == (unsigned char)q || c == '\\') {
            esc[0] = '\\';
            esc[1] = (char)c;
            put(r, esc, 2);
        } else if (c < 0x20) {
            const char *sh = NULL;
            if (syn == AFMT_TEXTHDR_JSON)
                for (j = 0; j < sizeof short_esc; j += 2)
                    if ((unsigned char)short_esc[j] == c) sh = &short_esc[j + 1];
            if (sh) {
                esc[0] = '\\';
                esc[1] = *sh;
                put(r, esc, 2);
            } else {
                snprintf(esc, sizeof esc, syn == AFMT_TEXTHDR_PYDICT ? "\\x%02x" : "\\u%04x", c);
                puts_(r, esc);
            }
        } else {
            put(r, (const char *)&c, 1);
        }
    }
    put(r, &q, 1);
}

static void put_str(render *r, afmt_texthdr_syntax syn, const char *s) { put_strn(r, syn, s, strlen(s)); }

static void render_entry(const afmt_header_arrays_desc *d, const afmt_array *a, int type, uint64_t begin, render *r)
{
    int py = d->syntax == AFMT_TEXTHDR_PYDICT;
    size_t i;
    uint32_t k;
    puts_(r, "{");
    for (i = 0; i < d->nkeys; i++) {
        const afmt_header_arrays_key *key = &d->keys[i];
        if (!py && i) puts_(r, ",");
        put_str(r, d->syntax, key->key);
        puts_(r, py ? ": " : ":");
        switch (key->bind) {
        case AFMT_BIND_DTYPE: put_str(r, d->syntax, d->types[type].text); break;
        case AFMT_BIND_ORDER:
            puts_(r, a->rank > 1 && a->order == AFMT_COL_MAJOR ? (py ? "True" : "true") : (py ? "False" : "false"));
            break;
        case AFMT_BIND_SHAPE: {
            int tuple = key->kind == AFMT_TV_TUPLE;
            puts_(r, tuple ? "(" : "[");
            for (k = 0; k < a->rank; k++) {
                if (k) puts_(r, py ? ", " : ",");
                put_u64(r, a->dims[k]);
            }
            if (tuple && a->rank == 1) puts_(r, ",");
            puts_(r, tuple ? ")" : "]");
            break;
        }
        case AFMT_BIND_RANGE:
            puts_(r, "[");
            put_u64(r, begin);
            puts_(r, py ? ", " : ",");
            put_u64(r, begin + a->nbytes);
            puts_(r, "]");
            break;
        }
        if (py) puts_(r, ", ");
    }
    puts_(r, "}");
}

typedef struct wentry {
    const afmt_array *a;
    int type;
    char name[AFMT_NAME_MAX];
    uint64_t begin;
    size_t given;           /* position in the caller's list: ties keep it */
    const int *sort;        /* the descriptor's write_sort (qsort has no context) */
} wentry;

/* The descriptor's write_sort order; qsort is not stable, so the given
 * position breaks ties. */
static int wentry_cmp(const void *pa, const void *pb)
{
    const wentry *x = pa, *y = pb;
    size_t k;
    for (k = 0; k < 4 && x->sort[k]; k++) {
        int key = x->sort[k] < 0 ? -x->sort[k] : x->sort[k];
        int c = key == AFMT_HEADER_SORT_TYPE ? (x->type > y->type) - (x->type < y->type)
                                         : strcmp(x->name, y->name); /* bytes as unsigned char */
        if (c) return x->sort[k] < 0 ? -c : c;
    }
    return (x->given > y->given) - (x->given < y->given);
}

/* File metadata to write back: a JSON object of strings from the write
 * options, checked, and a buffer to decode its strings into. */
typedef struct wmeta {
    afmt_texthdr hdr;
    afmt_texthdr_value root;
    char *buf;   /* as long as the text: a string decodes to no more */
} wmeta;

/* 0 with m->buf NULL when there is nothing to write; -1 on a bad object. */
static int meta_prepare(const afmt_header_arrays_desc *d, const afmt_write_options *wopt, wmeta *m, afmt_error *err)
{
    afmt_texthdr_iter it;
    afmt_texthdr_value k, v;
    memset(m, 0, sizeof *m);
    if (!d->map || !d->metadata_key || !wopt || !wopt->metadata || !wopt->metadata_len)
        return 0;
    m->hdr.text = wopt->metadata;
    m->hdr.len = wopt->metadata_len;
    m->hdr.syntax = AFMT_TEXTHDR_JSON;
    m->hdr.root = "metadata";
    m->hdr.map_depths = 1u;
    if (afmt_texthdr_parse(&m->hdr, 0, &m->root, NULL, err) != 0)
        return -1;
    if (m->root.kind != AFMT_TV_OBJECT || m->root.end != wopt->metadata_len)
        return afmt_fail(err, AFMT_E_USAGE, NULL, "metadata", AFMT_NO_INDEX, AFMT_NO_OFFSET,
                         "write options: metadata must be one JSON object of strings");
    afmt_texthdr_iter_begin(&m->hdr, &m->root, &it);
    while (afmt_texthdr_next(&m->hdr, &it, &k, &v))
        if (v.kind != AFMT_TV_STRING)
            return afmt_fail(err, AFMT_E_USAGE, NULL, "metadata", AFMT_NO_INDEX, v.begin,
                             "write options: metadata values are strings, found %s", afmt_tv_kind_name(v.kind));
    if (wopt->metadata_len >= SIZE_MAX || !(m->buf = malloc((size_t)wopt->metadata_len + 1)))
        return afmt_fail(err, AFMT_E_NOMEM, NULL, "metadata", AFMT_NO_INDEX, AFMT_NO_OFFSET, "out of memory for the metadata");
    return 0;
}

static void put_meta_str(render *r, afmt_texthdr_syntax syn, const wmeta *m, const afmt_texthdr_value *s)
{
    uint64_t len = afmt_texthdr_str_copy(&m->hdr, s, m->buf, (size_t)m->hdr.len + 1);
    put_strn(r, syn, m->buf, (size_t)len);
}

static void render_all(const afmt_header_arrays_desc *d, const wentry *e, size_t n, const wmeta *m, render *r)
{
    size_t i;
    const char *sep = d->syntax == AFMT_TEXTHDR_PYDICT ? ", " : ",";
    const char *colon = d->syntax == AFMT_TEXTHDR_PYDICT ? ": " : ":";
    if (!d->map) {
        render_entry(d, e[0].a, e[0].type, 0, r);
        return;
    }
    puts_(r, "{");
    if (m->buf) {
        /* The reference writes the metadata first. */
        afmt_texthdr_iter it;
        afmt_texthdr_value k, v;
        int first = 1;
        put_str(r, d->syntax, d->metadata_key);
        puts_(r, colon);
        puts_(r, "{");
        afmt_texthdr_iter_begin(&m->hdr, &m->root, &it);
        while (afmt_texthdr_next(&m->hdr, &it, &k, &v)) {
            if (!first) puts_(r, sep);
            first = 0;
            put_meta_str(r, d->syntax, m, &k);
            puts_(r, colon);
            put_meta_str(r, d->syntax, m, &v);
        }
        puts_(r, "}");
        if (n) puts_(r, sep);
    }
    for (i = 0; i < n; i++) {
        if (i) puts_(r, sep);
        put_str(r, d->syntax, e[i].name);
        puts_(r, colon);
        render_entry(d, e[i].a, e[i].type, e[i].begin, r);
    }
    puts_(r, "}");
}

int afmt_header_arrays_write(const afmt_header_arrays_desc *d, const afmt_array *arrays, size_t n,
                     const afmt_write_options *wopt, afmt_sink *sink, afmt_error *err)
{
    wentry *e;
    size_t i, j;
    int has_order = 0;
    render cnt, out;
    uint64_t spare = 0, prefix, total, pad, hlen, offset = 0, max_len;
    int rc = -1;
    wmeta meta;

    for (i = 0; i < d->nkeys; i++)
        if (d->keys[i].bind == AFMT_BIND_ORDER) has_order = 1;
    /* A map of no entries is a valid file (the safetensors reference
     * writes "{}" and its padding, or only the metadata). */
    if (n == 0 && !d->map)
        return afmt_fail(err, AFMT_E_USAGE, NULL, "", AFMT_NO_INDEX, AFMT_NO_OFFSET, "%s needs an array to write", d->format);
    if (!d->map && n != 1)
        return afmt_fail(err, AFMT_E_USAGE, NULL, "data", AFMT_NO_INDEX, AFMT_NO_OFFSET, "%s holds one array, not %zu", d->format, n);
    if (meta_prepare(d, wopt, &meta, err) != 0)
        return -1;
    e = calloc(n ? n : 1, sizeof *e);
    if (!e) {
        free(meta.buf);
        return afmt_fail(err, AFMT_E_NOMEM, NULL, "", AFMT_NO_INDEX, AFMT_NO_OFFSET, "out of memory for %zu entries", n);
    }
    for (i = 0; i < n; i++) {
        const afmt_array *a = &arrays[i];
        e[i].a = a;
        e[i].type = -1;
        if (a->encoding != AFMT_ENC_PLAIN || a->strided || a->endian != AFMT_LITTLE || a->stride != a->elsize ||
            (a->rank > 1 && a->order != AFMT_ROW_MAJOR && !has_order)) {
            afmt_fail(err, AFMT_E_USAGE, NULL, "data", AFMT_NO_INDEX, AFMT_NO_OFFSET,
                      "array %zu must be plain, little-endian and row-major (see afmt_array_to_plain)", i);
            goto done;
        }
        for (j = 0; j < d->ntypes; j++)
            if (d->types[j].writable && !d->types[j].refuse && d->types[j].dtype == a->dtype &&
                d->types[j].endian == AFMT_LITTLE && d->types[j].size == a->elsize &&
                (a->dtype != AFMT_OPAQUE || strcmp(d->types[j].text, afmt_array_type_name(a)) == 0)) {
                /* opaque elements: only the type of the same name */
                e[i].type = (int)j;
                break;
            }
        if (e[i].type < 0) {
            afmt_fail(err, AFMT_E_TYPE, NULL, "dtype", AFMT_NO_INDEX, AFMT_NO_OFFSET, "%s cannot hold elements of type %s%s",
                      d->format, afmt_array_type_name(a),
                      a->dtype == AFMT_OPAQUE && !a->opaque_name[0] ? " (no type name: only their size is known)" : "");
            goto done;
        }
        if (d->map && afmt_name_whole(a, i, err) != 0)
            goto done; /* a map stores names; one array alone keeps none */
        if (a->name[0]) snprintf(e[i].name, sizeof e[i].name, "%s", a->name);
        else snprintf(e[i].name, sizeof e[i].name, "%s%zu", d->default_name ? d->default_name : "", i);
        if (d->map) {
            if (!afmt_texthdr_utf8_valid((const uint8_t *)e[i].name, strlen(e[i].name)) ||
                (d->metadata_key && strcmp(e[i].name, d->metadata_key) == 0)) {
                afmt_fail(err, AFMT_E_TYPE, NULL, "name", i, AFMT_NO_OFFSET, "name \"%s\" cannot be an entry of %s", e[i].name, d->format);
                goto done;
            }
            for (j = 0; j < i; j++)
                if (strcmp(e[i].name, e[j].name) == 0) {
                    /* as every writer of named arrays says it (afmt_write_dir_unique_names) */
                    afmt_fail(err, AFMT_E_CONSTRAINT, NULL, "name", i, AFMT_NO_OFFSET,
                              "two arrays are named \"%s\": array %zu has it too (names are distinct)", e[i].name, j);
                    goto done;
                }
        }
    }
    if (d->map && d->write_sort[0]) {
        for (i = 0; i < n; i++) {
            e[i].given = i;
            e[i].sort = d->write_sort;
        }
        qsort(e, n, sizeof *e, wentry_cmp);
    }
    for (i = 0; i < n; i++) {
        e[i].begin = offset;
        if (afmt_checked_add_u64(offset, e[i].a->nbytes, &offset)) {
            afmt_fail(err, AFMT_E_OVERFLOW, NULL, "data", AFMT_NO_INDEX, AFMT_NO_OFFSET, "the payloads overflow 64 bits of bytes");
            goto done;
        }
    }
    memset(&cnt, 0, sizeof cnt);
    render_all(d, e, n, &meta, &cnt);
    if (d->write_spare && !d->map && e[0].a->rank > 0) {
        const afmt_array *a = e[0].a;
        char digits[24];
        uint64_t growth = a->rank > 1 && a->order == AFMT_COL_MAJOR ? a->dims[a->rank - 1] : a->dims[0];
        uint64_t nd = (uint64_t)snprintf(digits, sizeof digits, "%" PRIu64, growth);
        spare = d->write_spare > nd ? d->write_spare - nd : 0;
    }
    prefix = sink->written + d->length_width;
    total = prefix + cnt.len + spare + (d->terminator >= 0 ? 1 : 0);
    pad = d->write_align ? (d->write_align - total % d->write_align) % d->write_align : 0;
    while (pad < d->write_min_pad) pad += d->write_align ? d->write_align : 1;
    hlen = cnt.len + spare + pad + (d->terminator >= 0 ? 1 : 0);
    max_len = d->length_width >= 8 ? UINT64_MAX : ((uint64_t)1 << (8 * d->length_width)) - 1;
    if (d->max_length && d->max_length < max_len) max_len = d->max_length;
    if (hlen > max_len) {
        afmt_fail(err, AFMT_E_TYPE, NULL, d->name, AFMT_NO_INDEX, AFMT_NO_OFFSET, "a header of %" PRIu64 " bytes does not fit (at most %" PRIu64 ")",
                  hlen, max_len);
        goto done;
    }
    if ((d->length_width == 2 && afmt_sink_u16(sink, hlen, d->length_big, err) != 0) ||
        (d->length_width == 4 && afmt_sink_u32(sink, hlen, d->length_big, err) != 0) ||
        (d->length_width == 8 && afmt_sink_u64(sink, hlen, d->length_big, err) != 0))
        goto done;
    memset(&out, 0, sizeof out);
    out.sink = sink;
    out.err = err;
    render_all(d, e, n, &meta, &out);
    for (i = 0; i < spare + pad && !out.failed; i++) put(&out, d->pad >= 0 ? (const char *)&(char){(char)d->pad} : " ", 1);
    if (d->terminator >= 0) put(&out, &(char){(char)d->terminator}, 1);
    if (out.failed) goto done;
    for (i = 0; i < n; i++)
        if (afmt_sink_payload(sink, e[i].a, AFMT_LITTLE, AFMT_ENC_PLAIN, err) != 0) goto done;
    rc = 0;
done:
    free(meta.buf);
    free(e);
    return rc;
}
