/* afmt runtime: arrays described by a text header.  See afmt_thdir.h.
 *
 * Everything format-specific comes from the descriptor afmt-gen compiled
 * from the spec; this file only walks it.  Checks run in an order that
 * keeps arithmetic safe: the length prefix against the format's cap and
 * the caller's limit before anything is added to it, the shape's product
 * and its byte size with overflow checks, end - begin only once end >=
 * begin is known.
 */
#include "afmt_thdir.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "afmt_bytes.h"
#include "afmt_fields.h"

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

static const char *bind_word(afmt_thdir_bind b)
{
    switch (b) {
    case AFMT_BIND_DTYPE: return "a string";
    case AFMT_BIND_ORDER: return "a boolean";
    case AFMT_BIND_SHAPE: return "a list of dimensions";
    default: return "[begin, end]";
    }
}

/* The type entry named by a string value, or -1 (refusals included). */
static int find_type(const afmt_thdir_desc *d, const char *name)
{
    size_t i;
    for (i = 0; i < d->ntypes; i++) {
        const afmt_thdir_type *t = &d->types[i];
        size_t n;
        if (t->text[0] != name[0])
            continue; /* most entries differ at once */
        n = strlen(t->text);
        if (t->prefix ? strncmp(name, t->text, n) == 0 : strcmp(name, t->text) == 0)
            return (int)i;
    }
    return -1;
}

/* Check one entry object against the descriptor's keys; fill info and,
 * when a is given, the view's type, shape and order. */
/* Keys of an entry that check_entry finds in its one pass (npy has 3,
 * safetensors 3). */
#define SEEN_KEYS 8

static int check_entry(const afmt_thdir_desc *d, const afmt_th *th, const afmt_tv *obj, afmt_th_path *tp,
                       const afmt_options *opt, const afmt_path *outer, afmt_error *err, entry_info *info,
                       afmt_array *a)
{
    afmt_th_iter it;
    afmt_tv k, v, shape_v, seen_k[SEEN_KEYS], seen_v[SEEN_KEYS];
    unsigned char seen[SEEN_KEYS];
    size_t i;
    int have_shape = 0;
    uint64_t max_rank = opt->limits.max_rank < AFMT_RANK_CAP ? opt->limits.max_rank : AFMT_RANK_CAP;

    memset(info, 0, sizeof *info);
    info->type = -1;
    if (a)
        afmt_array_init(a, AFMT_DTYPE_INVALID);
    info->order = AFMT_ROW_MAJOR;
    if (obj->kind != AFMT_TV_OBJECT)
        return afmt_th_fail(th, tp, outer, err, AFMT_E_CONSTRAINT, obj->begin, "expected an object, found %s",
                            afmt_tv_kind_name(obj->kind));
    /* One pass over the entry finds every key and value: each afmt_th_next
     * parses a value again, so a lookup per key (afmt_th_get) would parse the
     * entry once per key.  The first SEEN_KEYS keys of the spec are kept;
     * a spec with more looks the rest up as it goes. */
    memset(seen, 0, sizeof seen);
    afmt_th_iter_begin(th, obj, &it);
    while (afmt_th_next(th, &it, &k, &v)) {
        int known = 0;
        for (i = 0; i < d->nkeys && !known; i++)
            if (afmt_th_str_eq(th, &k, d->keys[i].key)) {
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
            afmt_th_path_key(tp, &k, 0);
            return afmt_th_fail(th, tp, outer, err, AFMT_E_CONSTRAINT, k.begin - 1,
                                "unknown key: an entry has exactly the keys %s", list);
        }
    }
    info->obj_end = it.pos;
    for (i = 0; i < d->nkeys; i++) {
        const afmt_thdir_key *key = &d->keys[i];
        afmt_tv kt;
        if (i < SEEN_KEYS) {
            if (!seen[i])
                return afmt_th_fail(th, tp, outer, err, AFMT_E_CONSTRAINT, obj->begin, "missing key '%s'",
                                    key->key);
            kt = seen_k[i];
            v = seen_v[i];
        } else {
            if (!afmt_th_get(th, obj, key->key, &v))
                return afmt_th_fail(th, tp, outer, err, AFMT_E_CONSTRAINT, obj->begin, "missing key '%s'",
                                    key->key);
            memset(&kt, 0, sizeof kt);
            kt.kind = AFMT_TV_STRING;
            afmt_th_iter_begin(th, obj, &it);
            while (afmt_th_next(th, &it, &kt, &v))
                if (afmt_th_str_eq(th, &kt, key->key)) break;
        }
        /* The path names the spec's key (which is what the text holds). */
        afmt_th_path_key(tp, &kt, 0);
        switch (key->bind) {
        case AFMT_BIND_DTYPE: {
            char name[64];
            int t;
            if (v.kind == AFMT_TV_LIST && v.count > 0)
                return afmt_th_fail(th, tp, outer, err, AFMT_E_UNSUPPORTED, v.begin,
                                    "a list of fields (a structured type) is not supported");
            if (v.kind != AFMT_TV_STRING)
                return afmt_th_fail(th, tp, outer, err, AFMT_E_CONSTRAINT, v.begin, "expected %s, found %s",
                                    bind_word(key->bind), afmt_tv_kind_name(v.kind));
            afmt_th_str_copy(th, &v, name, sizeof name);
            t = find_type(d, name);
            if (t < 0 || (uint64_t)(v.end - v.begin) >= sizeof name)
                return afmt_th_fail(th, tp, outer, err, AFMT_E_UNKNOWN_TYPE, v.begin - 1,
                                    "unknown element type '%s'", name);
            if (d->types[t].refuse)
                return afmt_th_fail(th, tp, outer, err, AFMT_E_UNSUPPORTED, v.begin - 1, "'%s': %s", name,
                                    d->types[t].refuse);
            info->type = t;
            break;
        }
        case AFMT_BIND_ORDER:
            if (v.kind != AFMT_TV_BOOL)
                return afmt_th_fail(th, tp, outer, err, AFMT_E_CONSTRAINT, v.begin, "expected %s, found %s",
                                    bind_word(key->bind), afmt_tv_kind_name(v.kind));
            info->order = v.u ? AFMT_COL_MAJOR : AFMT_ROW_MAJOR;
            break;
        case AFMT_BIND_SHAPE:
            if (v.kind != key->kind)
                return afmt_th_fail(th, tp, outer, err, AFMT_E_CONSTRAINT, v.begin, "expected %s, found %s",
                                    afmt_tv_kind_name(key->kind), afmt_tv_kind_name(v.kind));
            if (v.count > max_rank)
                return afmt_th_fail(th, tp, outer, err, AFMT_E_LIMIT, v.begin, "rank %" PRIu64 " exceeds the limit of %" PRIu64,
                                    v.count, max_rank);
            shape_v = v;
            have_shape = 1;
            break;
        case AFMT_BIND_RANGE:
            info->range_at = v.begin;
            break;
        }
        afmt_th_path_pop(tp);
    }
    /* The shape, now that the element type is known. */
    info->count = 1;
    if (have_shape) {
        afmt_th_iter sit;
        afmt_tv e;
        uint32_t r = 0;
        int overflow = 0;
        const char *skey = NULL;
        for (i = 0; i < d->nkeys; i++)
            if (d->keys[i].bind == AFMT_BIND_SHAPE) skey = d->keys[i].key;
        afmt_th_iter_begin(th, &shape_v, &sit);
        while (afmt_th_next(th, &sit, NULL, &e)) {
            afmt_tv kt;
            memset(&kt, 0, sizeof kt);
            if (e.kind != AFMT_TV_INT || e.negative) {
                afmt_th_iter kit;
                afmt_tv kv;
                afmt_th_iter_begin(th, obj, &kit);
                while (afmt_th_next(th, &kit, &kt, &kv))
                    if (afmt_th_str_eq(th, &kt, skey)) break;
                afmt_th_path_key(tp, &kt, 0);
                afmt_th_path_index(tp, r);
                if (e.kind != AFMT_TV_INT)
                    return afmt_th_fail(th, tp, outer, err, AFMT_E_CONSTRAINT, e.begin, "expected an integer, found %s",
                                        afmt_tv_kind_name(e.kind));
                return afmt_th_fail(th, tp, outer, err, AFMT_E_NEGATIVE, e.begin, "dimension is negative (-%" PRIu64 ")", e.u);
            }
            if (a) a->dims[r] = e.u;
            if (!overflow && !afmt_mul_u64(info->count, e.u, &info->count)) overflow = 1;
            if (e.u == 0) { info->count = 0; overflow = 0; }
            if (overflow) info->count = UINT64_MAX;
            r++;
        }
        /* A zero dimension makes the product exact whatever the others. */
        if (overflow) {
            afmt_th_iter kit;
            afmt_tv kt, kv;
            afmt_th_iter_begin(th, obj, &kit);
            while (afmt_th_next(th, &kit, &kt, &kv))
                if (afmt_th_str_eq(th, &kt, skey)) break;
            afmt_th_path_key(tp, &kt, 0);
            return afmt_th_fail(th, tp, outer, err, AFMT_E_OVERFLOW, shape_v.begin, "the element count overflows 64 bits");
        }
        info->rank = r;
    }
    if (info->type >= 0 && !afmt_mul_u64(info->count, d->types[info->type].size, &info->nbytes)) {
        /* Blamed on the shape, at its offset (the path names it too). */
        afmt_th_iter kit;
        afmt_tv kt, kv;
        afmt_th_iter_begin(th, obj, &kit);
        while (afmt_th_next(th, &kit, &kt, &kv))
            if (kv.begin == shape_v.begin) break;
        afmt_th_path_key(tp, &kt, 0);
        return afmt_th_fail(th, tp, outer, err, AFMT_E_OVERFLOW, shape_v.begin,
                            "%" PRIu64 " elements of %" PRIu32 " bytes overflow 64 bits of bytes", info->count,
                            d->types[info->type].size);
    }
    /* The byte range, last: it must hold exactly the shape's bytes. */
    for (i = 0; i < d->nkeys; i++) {
        afmt_tv kt, rv, b, e;
        afmt_th_iter rit;
        uint64_t have;
        if (d->keys[i].bind != AFMT_BIND_RANGE) continue;
        afmt_th_iter_begin(th, obj, &rit);
        while (afmt_th_next(th, &rit, &kt, &rv))
            if (afmt_th_str_eq(th, &kt, d->keys[i].key)) break;
        afmt_th_path_key(tp, &kt, 0);
        if (rv.kind != AFMT_TV_LIST || rv.count != 2)
            return afmt_th_fail(th, tp, outer, err, AFMT_E_CONSTRAINT, rv.begin, "expected [begin, end], found %s%s",
                                afmt_tv_kind_name(rv.kind), rv.kind == AFMT_TV_LIST ? " of another length" : "");
        afmt_th_iter_begin(th, &rv, &rit);
        afmt_th_next(th, &rit, NULL, &b);
        afmt_th_next(th, &rit, NULL, &e);
        if (b.kind != AFMT_TV_INT || b.negative) {
            afmt_th_path_index(tp, 0);
            return afmt_th_fail(th, tp, outer, err, b.kind == AFMT_TV_INT ? AFMT_E_NEGATIVE : AFMT_E_CONSTRAINT, b.begin,
                                "expected a non-negative integer, found %s%s", b.kind == AFMT_TV_INT ? "-" : "",
                                b.kind == AFMT_TV_INT ? "an integer" : afmt_tv_kind_name(b.kind));
        }
        if (e.kind != AFMT_TV_INT || e.negative) {
            afmt_th_path_index(tp, 1);
            return afmt_th_fail(th, tp, outer, err, e.kind == AFMT_TV_INT ? AFMT_E_NEGATIVE : AFMT_E_CONSTRAINT, e.begin,
                                "expected a non-negative integer, found %s%s", e.kind == AFMT_TV_INT ? "-" : "",
                                e.kind == AFMT_TV_INT ? "an integer" : afmt_tv_kind_name(e.kind));
        }
        if (e.u < b.u) {
            afmt_th_path_index(tp, 1);
            return afmt_th_fail(th, tp, outer, err, AFMT_E_CONSTRAINT, e.begin,
                                "end %" PRIu64 " is before begin %" PRIu64, e.u, b.u);
        }
        have = e.u - b.u;
        if (have != info->nbytes)
            return afmt_th_fail(th, tp, outer, err, AFMT_E_SIZE, rv.begin,
                                "the range holds %" PRIu64 " bytes, the shape needs %" PRIu64 " (%" PRIu64
                                " elements of %" PRIu32 " bytes)",
                                have, info->nbytes, info->count, d->types[info->type].size);
        info->begin = b.u;
        info->end = e.u;
        afmt_th_path_pop(tp);
    }
    if (a) {
        const afmt_thdir_type *t = &d->types[info->type];
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

/* What the map check keeps of an entry once check_entry passed: its byte
 * range, where its key starts (the entry is found again from there), and
 * whether its payload holds bools.  A map header is at most 4 GiB. */
typedef struct slot {
    uint64_t begin, end;
    uint32_t key_quote;  /* text offset of the key's opening quote */
    uint32_t is_bool;    /* payload bytes are checked as bools */
} slot;

static int slot_less(const slot *x, const slot *y)
{
    if (x->begin != y->begin) return x->begin < y->begin;
    if (x->end != y->end) return x->end < y->end;
    return x->key_quote < y->key_quote;
}

static void sift(slot *v, size_t root, size_t n)
{
    for (;;) {
        size_t c = 2 * root + 1;
        slot t;
        if (c >= n) return;
        if (c + 1 < n && slot_less(&v[c], &v[c + 1])) c++;
        if (!slot_less(&v[root], &v[c])) return;
        t = v[root]; v[root] = v[c]; v[c] = t;
        root = c;
    }
}

/* Heapsort: in place, O(n log n) for any order (qsort may allocate). */
static void sort_slots(slot *v, size_t n)
{
    size_t i;
    for (i = n / 2; i-- > 0;)
        sift(v, i, n);
    for (i = n; i-- > 1;) {
        slot t = v[0]; v[0] = v[i]; v[i] = t;
        sift(v, 0, i);
    }
}

/* The entry whose key's quote is at text[quote]: its key and value. */
static void entry_at(const afmt_th *th, uint32_t quote, afmt_tv *k, afmt_tv *v)
{
    afmt_th_iter it;
    it.pos = quote;
    it.index = 0;
    it.count = 1;
    it.object = 1;
    it.done = 0;
    afmt_th_next(th, &it, k, v);
}

static void make_slot(const afmt_thdir_desc *d, const afmt_tv *k, const entry_info *info, slot *s)
{
    s->begin = info->begin;
    s->end = info->end;
    s->key_quote = (uint32_t)(k->begin - 1);
    s->is_bool = d->types[info->type].dtype == AFMT_BOOL;
}

/* The slot of an entry check_entry has passed before (so it passes). */
static void entry_slot(const afmt_thdir_desc *d, const afmt_th *th, const afmt_tv *k, const afmt_tv *v,
                       const afmt_options *opt, slot *s)
{
    entry_info info;
    afmt_th_path tp;
    afmt_error scratch;
    tp.depth = 0;
    check_entry(d, th, v, &tp, opt, NULL, &scratch, &info, NULL);
    make_slot(d, k, &info, s);
}

/* Into tab (a max-heap of at most cap slots), the cap first entries in
 * (begin, end, key) order that come after *after (NULL: from the start);
 * then sorted.  Returns how many.  Reads the whole header: for entries
 * that are not in data order and more than the table holds. */
static size_t collect_window(const afmt_thdir_desc *d, const afmt_th *th, const afmt_tv *root, slot *tab,
                             size_t cap, const slot *after, const afmt_options *opt)
{
    afmt_th_iter it;
    afmt_tv k, v;
    size_t m = 0;
    afmt_th_iter_begin(th, root, &it);
    while (afmt_th_next(th, &it, &k, &v)) {
        slot s;
        if (d->metadata_key && afmt_th_str_eq(th, &k, d->metadata_key)) continue;
        entry_slot(d, th, &k, &v, opt, &s);
        if (after && !slot_less(after, &s)) continue;
        if (m < cap) {
            size_t c = m++;
            tab[c] = s;
            while (c > 0 && slot_less(&tab[(c - 1) / 2], &tab[c])) {
                slot t = tab[c]; tab[c] = tab[(c - 1) / 2]; tab[(c - 1) / 2] = t;
                c = (c - 1) / 2;
            }
        } else if (slot_less(&s, &tab[0])) {
            tab[0] = s;
            sift(tab, 0, m);
        }
    }
    {
        size_t i;
        for (i = m; i-- > 1;) {
            slot t = tab[0]; tab[0] = tab[i]; tab[i] = t;
            sift(tab, 0, i);
        }
    }
    return m;
}

/* Entries in JSON order that are in data order too: the next cap of them
 * from *it. */
static size_t next_in_order(const afmt_thdir_desc *d, const afmt_th *th, afmt_th_iter *it, slot *tab, size_t cap,
                            const afmt_options *opt)
{
    afmt_tv k, v;
    size_t m = 0;
    while (m < cap && afmt_th_next(th, it, &k, &v)) {
        if (d->metadata_key && afmt_th_str_eq(th, &k, d->metadata_key)) continue;
        entry_slot(d, th, &k, &v, opt, &tab[m++]);
    }
    return m;
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
static int check_metadata(const afmt_th *th, const afmt_tv *v, afmt_th_path *tp, const afmt_visitor *vis,
                          const afmt_path *path, afmt_error *err)
{
    afmt_th_iter mit;
    afmt_tv mk, mv;
    if (v->kind != AFMT_TV_OBJECT)
        return afmt_th_fail(th, tp, path, err, AFMT_E_CONSTRAINT, v->begin, "expected an object of strings, found %s",
                            afmt_tv_kind_name(v->kind));
    afmt_th_iter_begin(th, v, &mit);
    while (afmt_th_next(th, &mit, &mk, &mv))
        if (mv.kind != AFMT_TV_STRING) {
            afmt_th_path_key(tp, &mk, 1);
            return afmt_th_fail(th, tp, path, err, AFMT_E_CONSTRAINT, mv.begin, "metadata values are strings, found %s",
                                afmt_tv_kind_name(mv.kind));
        }
    if (vis && vis->on_metadata)
        vis->on_metadata(vis->ctx, th->text + v->begin, v->end - v->begin, th->base + v->begin);
    return 0;
}

/* Where a map's check of ranges stands between windows. */
typedef struct cover {
    uint64_t expect;   /* the next range begins here */
    slot last;         /* the last range taken (valid once done > 0) */
    uint64_t done;     /* entries taken */
} cover;

/* The ranges of tab[0, m) (sorted) must continue from cv->expect: the
 * first that does not is a hole or an overlap, named with its range's
 * key.  Then the views in data order, while the header is still in
 * memory (a stream drops it as its payloads are taken), and the
 * payloads. */
static int take_window(const afmt_thdir_desc *d, const afmt_th *th, const slot *tab, size_t m, cover *cv,
                       afmt_th_path *tp, afmt_src *src, uint64_t end, uint64_t data_start, uint32_t narrays,
                       const afmt_options *opt, const afmt_visitor *vis, const afmt_path *path, afmt_error *err)
{
    const char *rkey = NULL;
    size_t si;
    afmt_array a;
    for (si = 0; si < d->nkeys; si++)
        if (d->keys[si].bind == AFMT_BIND_RANGE) rkey = d->keys[si].key;
    for (si = 0; si < m; si++) {
        const slot *s = &tab[si], *prev = si ? &tab[si - 1] : &cv->last;
        afmt_tv sk, sv, rv, kt;
        afmt_th_iter rit;
        if (s->begin == cv->expect) {
            cv->expect = s->end;
            continue;
        }
        entry_at(th, s->key_quote, &sk, &sv);
        afmt_th_iter_begin(th, &sv, &rit);
        while (afmt_th_next(th, &rit, &kt, &rv))
            if (afmt_th_str_eq(th, &kt, rkey)) break;
        afmt_th_path_key(tp, &sk, 1);
        afmt_th_path_key(tp, &kt, 0);
        if (s->begin > cv->expect)
            return afmt_th_fail(th, tp, path, err, AFMT_E_CONSTRAINT, rv.begin,
                                "a hole: bytes [%" PRIu64 ", %" PRIu64 ") of the data belong to no entry", cv->expect,
                                s->begin);
        {
            /* begin < expect: some range was taken before, prev */
            char prev_name[64];
            afmt_tv pk, pv;
            entry_at(th, prev->key_quote, &pk, &pv);
            afmt_th_str_copy(th, &pk, prev_name, sizeof prev_name);
            return afmt_th_fail(th, tp, path, err, AFMT_E_CONSTRAINT, rv.begin,
                                "overlaps \"%s\" (bytes [%" PRIu64 ", %" PRIu64 "))", prev_name, prev->begin, prev->end);
        }
    }
    for (si = 0; vis && vis->on_array && si < m; si++) {
        entry_info info;
        afmt_tv sk, sv;
        entry_at(th, tab[si].key_quote, &sk, &sv);
        afmt_th_path_key(tp, &sk, 1);
        if (check_entry(d, th, &sv, tp, opt, path, err, &info, &a) != 0)
            return -1;
        afmt_th_path_pop(tp);
        a.name_len = afmt_th_str_copy(th, &sk, a.name, sizeof a.name);
        a.offset = data_start + info.begin;
        a.index = narrays + (uint32_t)(cv->done + si);
        a.data = src->read ? NULL : afmt_src_ptr(src, a.offset, a.nbytes);
        if (!src->read && !afmt_src_have(src, end, a.offset, a.nbytes))
            break; /* reported below as missing data */
        if (vis->on_array(vis->ctx, &a) != 0)
            return afmt_fail(err, AFMT_E_CALLBACK, path, "data", AFMT_NO_INDEX, a.offset, "stopped by the caller");
    }
    for (si = 0; si < m; si++)
        if (tab[si].end > tab[si].begin &&
            take_bytes(src, end, data_start + tab[si].begin, tab[si].end - tab[si].begin, (int)tab[si].is_bool, opt,
                       vis, path, "data", err) != 0)
            return -1;
    if (m) {
        cv->last = tab[m - 1];
        cv->done += m;
    }
    return 0;
}

/* The entries of a map header: each checked once, in one pass that also
 * keeps their byte ranges in the table (tab, cap slots: the caller's work
 * area) and notes whether the JSON order is the data order.  The ranges,
 * in (begin, end) order, must cover the data area from data_start
 * exactly; views and payloads go in that order.  When the table holds
 * every entry, that is one sort (none for a file in data order, as the
 * reference writes them); when it does not, entries in data order are
 * taken in table-sized windows as the header lists them, and others in
 * windows of the next smallest ranges, the header read again for each
 * (time quadratic in windows, memory constant).  A stream drops the
 * header as its payloads are taken, so it must fit one table. */
static int validate_map(const afmt_thdir_desc *d, const afmt_th *th, const afmt_tv *root, afmt_th_path *tp,
                        afmt_src *src, uint64_t end, uint64_t data_start, uint64_t *pos,
                        uint32_t *narrays, const afmt_options *opt, const afmt_visitor *vis,
                        const afmt_path *path, afmt_error *err, slot *tab, size_t cap)
{
    afmt_th_iter it;
    afmt_tv k, v;
    uint64_t ns = 0;
    slot prev;
    int sorted = 1;
    cover cv;

    memset(&cv, 0, sizeof cv);
    memset(&prev, 0, sizeof prev);
    afmt_th_iter_begin(th, root, &it);
    /* Each entry read once: its object walked by check_entry only. */
    while (afmt_th_next_shallow(th, &it, &k, &v)) {
        entry_info info;
        slot s;
        afmt_th_path_key(tp, &k, 1);
        if (d->metadata_key && afmt_th_str_eq(th, &k, d->metadata_key)) {
            if (v.count == AFMT_TV_COUNT_UNKNOWN)
                afmt_th_finish(th, &it, &v);
            if (check_metadata(th, &v, tp, vis, path, err) != 0)
                return -1;
            afmt_th_path_pop(tp);
            continue;
        }
        if (check_entry(d, th, &v, tp, opt, path, err, &info, NULL) != 0)
            return -1;
        if (v.count == AFMT_TV_COUNT_UNKNOWN)
            afmt_th_iter_resume(th, &it, info.obj_end);
        make_slot(d, &k, &info, &s);
        if (ns && !slot_less(&prev, &s))
            sorted = 0;
        if (ns >= cap && src->read)
            return afmt_th_fail(th, tp, path, err, AFMT_E_LIMIT, k.begin - 1,
                                "more than %zu entries in a header read from a stream (read it from a file)", cap);
        afmt_th_path_pop(tp);
        if (ns < cap)
            tab[ns] = s;
        prev = s;
        ns++;
    }
    if (ns <= cap) {
        if (!sorted)
            sort_slots(tab, (size_t)ns);
        if (take_window(d, th, tab, (size_t)ns, &cv, tp, src, end, data_start, *narrays, opt, vis, path, err) != 0)
            return -1;
    } else {
        afmt_th_iter_begin(th, root, &it);
        while (cv.done < ns) {
            size_t m = sorted ? next_in_order(d, th, &it, tab, cap, opt)
                              : collect_window(d, th, root, tab, cap, cv.done ? &cv.last : NULL, opt);
            if (m == 0)
                break; /* not reached: ns entries are there */
            if (take_window(d, th, tab, m, &cv, tp, src, end, data_start, *narrays, opt, vis, path, err) != 0)
                return -1;
        }
    }
    *narrays += (uint32_t)ns;
    *pos = data_start + cv.expect;
    return 0;
}

/* Whitespace of the header's syntax (JSON's four; Python skips the same
 * between tokens). */
static int is_space(const afmt_thdir_desc *d, uint8_t b)
{
    (void)d;
    return b == ' ' || b == '\t' || b == '\n' || b == '\r';
}

/* A rule the spec's "lenient": "warn" relaxes: 1 when it is tolerated (a
 * warning, lenient mode), else 0 with err set (the same error as without
 * the marker). */
static int relaxed(const afmt_thdir_desc *d, const afmt_th *th, const afmt_th_path *tp, const afmt_options *opt,
                   const afmt_visitor *vis, const afmt_path *path, afmt_error *err, afmt_code code, uint64_t at,
                   const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 10, 11)))
#endif
    ;

static int relaxed(const afmt_thdir_desc *d, const afmt_th *th, const afmt_th_path *tp, const afmt_options *opt,
                   const afmt_visitor *vis, const afmt_path *path, afmt_error *err, afmt_code code, uint64_t at,
                   const char *fmt, ...)
{
    char msg[AFMT_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (!d->lenient || !opt || opt->mode != AFMT_LENIENT) {
        afmt_th_fail(th, tp, path, err, code, at, "%s", msg);
        return 0;
    }
    return afmt_tolerate(opt, vis, err, code, path, th->root, AFMT_NO_INDEX, th->base + at, "%s", msg) == 0;
}

int afmt_thdir_validate(const afmt_thdir_desc *d, afmt_src *src, uint64_t end, uint64_t *pos,
                        uint32_t *narrays, const afmt_options *opt, const afmt_visitor *vis,
                        const afmt_path *path, afmt_error *err)
{
    const unsigned w = d->length_width;
    char lenfield[48], buf[16];
    uint64_t p = *pos, n, p0, data_start, q, last, i;
    afmt_th th;
    afmt_tv root;
    afmt_th_path tp;
    const uint8_t *text;
    afmt_array a;
    slot tab[AFMT_THDIR_CAP]; /* the work area of a map header */

    snprintf(lenfield, sizeof lenfield, "%s_length", d->name);
    if (!afmt_src_have(src, end, p, w))
        return afmt_src_short(src, err, path, lenfield, AFMT_NO_INDEX, p, end, w, lenfield);
    n = load_len(AFMT_B(src, p), w, d->length_big);
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
    memset(&th, 0, sizeof th);
    th.text = text;
    th.len = n;
    th.base = p0;
    th.syntax = d->syntax;
    th.max_depth = opt->limits.max_depth < AFMT_TH_DEPTH_CAP ? (unsigned)opt->limits.max_depth : AFMT_TH_DEPTH_CAP;
    th.max_entries = opt->limits.max_items;
    th.root = d->name;
    th.map_depths = d->map ? 1u : 0u;
    tp.depth = 0;
    if (n == 0)
        return afmt_th_fail(&th, &tp, path, err, AFMT_E_VALUE, 0, "a header starts with '{', found nothing");
    if (text[0] != '{') {
        /* Whitespace before the value: the reference readers skip it. */
        uint64_t b = 0;
        while (b < n && is_space(d, text[b])) b++;
        snprintf(buf, sizeof buf, text[0] >= 0x20 && text[0] < 0x7f ? "'%c'" : "byte 0x%02x", text[0]);
        if (b == 0 || b == n || text[b] != '{' ||
            !relaxed(d, &th, &tp, opt, vis, path, err, AFMT_E_VALUE, 0, "a header starts with '{', found %s", buf))
            return afmt_th_fail(&th, &tp, path, err, AFMT_E_VALUE, 0, "a header starts with '{', found %s", buf);
    }
    if (d->map) {
        /* The parser sorts the keys of a large object in the work area
         * (duplicate names), which then holds the map's table. */
        th.work = tab;
        th.work_size = sizeof tab;
    }
    if (afmt_th_parse(&th, 0, &root, path, err) != 0)
        return -1;
    /* What follows the value: pad bytes, then the terminator. */
    q = root.end;
    last = n;
    if (d->terminator >= 0) {
        if (q == n || text[n - 1] != (uint8_t)d->terminator) {
            if (!relaxed(d, &th, &tp, opt, vis, path, err, AFMT_E_PADDING, n - 1,
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
                relaxed(d, &th, &tp, opt, vis, path, err, AFMT_E_PADDING, i,
                        "byte 0x%02x after the header's value: only 0x%02x may pad it", text[i],
                        d->pad < 0 ? 0 : d->pad)) {
                warned = 1;
                continue;
            }
            if (warned && is_space(d, text[i])) continue;
            return afmt_th_fail(&th, &tp, path, err, AFMT_E_PADDING, i,
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
        if (check_entry(d, &th, &root, &tp, opt, path, err, &info, &a) != 0)
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
    return validate_map(d, &th, &root, &tp, src, end, data_start, pos, narrays, opt, vis, path, err, tab,
                        AFMT_THDIR_CAP);
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
static void put_strn(render *r, afmt_th_syntax syn, const char *s, size_t n)
{
    static const char short_esc[] = {'\b', 'b', '\f', 'f', '\n', 'n', '\r', 'r', '\t', 't'};
    char q = syn == AFMT_TH_PYDICT ? '\'' : '"';
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
            if (syn == AFMT_TH_JSON)
                for (j = 0; j < sizeof short_esc; j += 2)
                    if ((unsigned char)short_esc[j] == c) sh = &short_esc[j + 1];
            if (sh) {
                esc[0] = '\\';
                esc[1] = *sh;
                put(r, esc, 2);
            } else {
                snprintf(esc, sizeof esc, syn == AFMT_TH_PYDICT ? "\\x%02x" : "\\u%04x", c);
                puts_(r, esc);
            }
        } else {
            put(r, (const char *)&c, 1);
        }
    }
    put(r, &q, 1);
}

static void put_str(render *r, afmt_th_syntax syn, const char *s) { put_strn(r, syn, s, strlen(s)); }

static void render_entry(const afmt_thdir_desc *d, const afmt_array *a, int type, uint64_t begin, render *r)
{
    int py = d->syntax == AFMT_TH_PYDICT;
    size_t i;
    uint32_t k;
    puts_(r, "{");
    for (i = 0; i < d->nkeys; i++) {
        const afmt_thdir_key *key = &d->keys[i];
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
        int c = key == AFMT_THSORT_TYPE ? (x->type > y->type) - (x->type < y->type)
                                         : strcmp(x->name, y->name); /* bytes as unsigned char */
        if (c) return x->sort[k] < 0 ? -c : c;
    }
    return (x->given > y->given) - (x->given < y->given);
}

/* File metadata to write back: a JSON object of strings from the write
 * options, checked, and a buffer to decode its strings into. */
typedef struct wmeta {
    afmt_th th;
    afmt_tv root;
    char *buf;   /* as long as the text: a string decodes to no more */
} wmeta;

/* 0 with m->buf NULL when there is nothing to write; -1 on a bad object. */
static int meta_prepare(const afmt_thdir_desc *d, const afmt_write_options *wopt, wmeta *m, afmt_error *err)
{
    afmt_th_iter it;
    afmt_tv k, v;
    memset(m, 0, sizeof *m);
    if (!d->map || !d->metadata_key || !wopt || !wopt->metadata || !wopt->metadata_len)
        return 0;
    m->th.text = wopt->metadata;
    m->th.len = wopt->metadata_len;
    m->th.syntax = AFMT_TH_JSON;
    m->th.root = "metadata";
    m->th.map_depths = 1u;
    if (afmt_th_parse(&m->th, 0, &m->root, NULL, err) != 0)
        return -1;
    if (m->root.kind != AFMT_TV_OBJECT || m->root.end != wopt->metadata_len)
        return afmt_fail(err, AFMT_E_USAGE, NULL, "metadata", AFMT_NO_INDEX, AFMT_NO_OFFSET,
                         "write options: metadata must be one JSON object of strings");
    afmt_th_iter_begin(&m->th, &m->root, &it);
    while (afmt_th_next(&m->th, &it, &k, &v))
        if (v.kind != AFMT_TV_STRING)
            return afmt_fail(err, AFMT_E_USAGE, NULL, "metadata", AFMT_NO_INDEX, v.begin,
                             "write options: metadata values are strings, found %s", afmt_tv_kind_name(v.kind));
    if (wopt->metadata_len >= SIZE_MAX || !(m->buf = malloc((size_t)wopt->metadata_len + 1)))
        return afmt_fail(err, AFMT_E_NOMEM, NULL, "metadata", AFMT_NO_INDEX, AFMT_NO_OFFSET, "out of memory for the metadata");
    return 0;
}

static void put_meta_str(render *r, afmt_th_syntax syn, const wmeta *m, const afmt_tv *s)
{
    uint64_t len = afmt_th_str_copy(&m->th, s, m->buf, (size_t)m->th.len + 1);
    put_strn(r, syn, m->buf, (size_t)len);
}

static void render_all(const afmt_thdir_desc *d, const wentry *e, size_t n, const wmeta *m, render *r)
{
    size_t i;
    const char *sep = d->syntax == AFMT_TH_PYDICT ? ", " : ",";
    const char *colon = d->syntax == AFMT_TH_PYDICT ? ": " : ":";
    if (!d->map) {
        render_entry(d, e[0].a, e[0].type, 0, r);
        return;
    }
    puts_(r, "{");
    if (m->buf) {
        /* The reference writes the metadata first. */
        afmt_th_iter it;
        afmt_tv k, v;
        int first = 1;
        put_str(r, d->syntax, d->metadata_key);
        puts_(r, colon);
        puts_(r, "{");
        afmt_th_iter_begin(&m->th, &m->root, &it);
        while (afmt_th_next(&m->th, &it, &k, &v)) {
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

int afmt_thdir_write(const afmt_thdir_desc *d, const afmt_array *arrays, size_t n,
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
        if (a->encoding != AFMT_ENC_PLAIN || a->endian != AFMT_LITTLE || a->stride != a->elsize ||
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
            if (!afmt_th_utf8_valid((const uint8_t *)e[i].name, strlen(e[i].name)) ||
                (d->metadata_key && strcmp(e[i].name, d->metadata_key) == 0)) {
                afmt_fail(err, AFMT_E_TYPE, NULL, "name", i, 0, "name \"%s\" cannot be an entry of %s", e[i].name, d->format);
                goto done;
            }
            for (j = 0; j < i; j++)
                if (strcmp(e[i].name, e[j].name) == 0) {
                    afmt_fail(err, AFMT_E_USAGE, NULL, "name", i, 0, "two arrays are named \"%s\"", e[i].name);
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
        if (!afmt_add_u64(offset, e[i].a->nbytes, &offset)) {
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
