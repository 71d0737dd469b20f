/* afmt runtime: the one-pass reader of a map header.  See afmt_header_onepass.h.
 *
 * Each function reads one piece of JSON at *p and returns 1 (p moved past
 * it) or 0 (give up).  Strings are scanned 16 bytes at a time where SSE2
 * is there (x86-64 always has it), else byte by byte; every byte that is
 * not plain printable ASCII goes through the same UTF-8 rule as
 * afmt_texthdr.c.  Limits are those afmt_texthdr_parse applies (depth, entries
 * per container) and check_entry's (rank): anything at or past them is
 * left to the exact steps.
 */
#include "afmt_header_onepass.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SSE2__) && (defined(__GNUC__) || defined(__clang__)) /* __builtin_ctz */
#include <emmintrin.h>
#endif

#include "../common/afmt_bytes.h"

/* ------------------------------------------------------------ list */

void afmt_header_map_init(afmt_header_map_list *l)
{
    l->e = l->stack_e;
    l->is_bool = l->stack_bool;
    l->n = 0;
    l->cap = AFMT_THMAP_STACK;
    l->heap = 0;
    memset(&l->metadata, 0, sizeof l->metadata);
    l->work = NULL;
}

void *afmt_header_map_work(afmt_header_map_list *l, uint64_t size)
{
    if (size <= sizeof l->stack_work)
        return l->stack_work;
    free(l->work);
    l->work = size <= SIZE_MAX ? malloc((size_t)size) : NULL;
    return l->work;
}

/* Entries of the first heap list: one block of 200 KB, past the sizes an
 * allocator keeps in per-thread caches once freed. */
#define HEAP_FIRST 4096

int afmt_header_map_grow(afmt_header_map_list *l)
{
    size_t cap;
    afmt_dir_entry *e;
    if (l->n < l->cap)
        return 0;
    cap = l->cap < HEAP_FIRST ? HEAP_FIRST : l->cap;
    if (cap > SIZE_MAX / 2 / (sizeof *e + 1))
        return -1;
    cap *= l->cap < HEAP_FIRST ? 1 : 2;
    /* one block: the entries, then a byte per entry */
    e = malloc(cap * (sizeof *e + 1));
    if (!e)
        return -1;
    memcpy(e, l->e, l->n * sizeof *e);
    memcpy((uint8_t *)(e + cap), l->is_bool, l->n);
    if (l->heap)
        free(l->e);
    l->e = e;
    l->is_bool = (uint8_t *)(e + cap);
    l->heap = 1;
    l->cap = cap;
    return 0;
}

void afmt_header_map_free(afmt_header_map_list *l)
{
    free(l->work);
    if (l->heap)
        free(l->e);
    afmt_header_map_init(l);
}

/* ------------------------------------------------------------ scanner */

/* The scanner's state: the text, its limits and the descriptor's keys
 * as the reference writes an entry (afmt_header_onepass.h). */
typedef afmt_header_onepass_scan scan;
#define LIT_MAX AFMT_HEADER_ONEPASS_LIT_MAX

/* a[0, n) == b[0, n) for the short strings of a header (keys, type
 * names): word loads instead of a call to memcmp. */
static inline int same(const uint8_t *a, const char *b, size_t n)
{
    uint64_t x, y, x2, y2;
    if (n >= 8 && n <= 16) {
        memcpy(&x, a, 8);
        memcpy(&y, b, 8);
        memcpy(&x2, a + n - 8, 8);
        memcpy(&y2, b + n - 8, 8);
        return x == y && x2 == y2;
    }
    if (n < 8) {
        size_t i;
        for (i = 0; i < n; i++)
            if (a[i] != (uint8_t)b[i]) return 0;
        return 1;
    }
    return memcmp(a, b, n) == 0;
}

static inline void ws(const scan *s, uint64_t *p)
{
    while (*p < s->len && (s->t[*p] == ' ' || s->t[*p] == '\n' || s->t[*p] == '\r' || s->t[*p] == '\t'))
        (*p)++;
}

static inline int byte(const scan *s, uint64_t *p, uint8_t b)
{
    ws(s, p);
    if (*p >= s->len || s->t[*p] != b)
        return 0;
    (*p)++;
    return 1;
}

/* Well-formed UTF-8 at t[p] (as afmt_texthdr.c's utf8_len): its length or 0. */
static unsigned utf8_len(const uint8_t *t, uint64_t n)
{
    uint8_t b = t[0];
    if (b >= 0xc2 && b <= 0xdf)
        return n >= 2 && (t[1] & 0xc0) == 0x80 ? 2 : 0;
    if (b >= 0xe0 && b <= 0xef) {
        uint8_t lo = b == 0xe0 ? 0xa0 : 0x80, hi = b == 0xed ? 0x9f : 0xbf;
        return n >= 3 && t[1] >= lo && t[1] <= hi && (t[2] & 0xc0) == 0x80 ? 3 : 0;
    }
    if (b >= 0xf0 && b <= 0xf4) {
        uint8_t lo = b == 0xf0 ? 0x90 : 0x80, hi = b == 0xf4 ? 0x8f : 0xbf;
        return n >= 4 && t[1] >= lo && t[1] <= hi && (t[2] & 0xc0) == 0x80 && (t[3] & 0xc0) == 0x80 ? 4 : 0;
    }
    return 0;
}

/* A string without escapes at *p (its opening quote, after white space):
 * [*b, *e) its bytes, *p past the closing quote. */
static inline int string(const scan *s, uint64_t *p, uint64_t *b, uint64_t *e)
{
    const uint8_t *t = s->t;
    uint64_t q;
    ws(s, p);
    if (*p >= s->len || t[*p] != '"')
        return 0;
    q = *p + 1;
    *b = q;
    for (;;) {
#if defined(__SSE2__) && (defined(__GNUC__) || defined(__clang__)) /* __builtin_ctz */
        const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\'), low = _mm_set1_epi8(0x20);
        while (s->len - q >= 16) {
            __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(t + q));
            /* signed: bytes >= 0x80 are negative, so "< 0x20" also
             * catches every byte that is not ASCII */
            __m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, bslash)),
                                     _mm_cmplt_epi8(v, low));
            unsigned bits = (unsigned)_mm_movemask_epi8(m);
            if (bits) {
                q += (uint64_t)__builtin_ctz(bits);
                break;
            }
            q += 16;
        }
#endif
        while (q < s->len && t[q] >= 0x20 && t[q] < 0x80 && t[q] != '"' && t[q] != '\\')
            q++;
        if (q >= s->len)
            return 0;
        if (t[q] == '"')
            break;
        if (t[q] < 0x80)
            return 0; /* an escape or a control byte: the exact steps */
        {
            unsigned k = utf8_len(t + q, s->len - q);
            if (!k)
                return 0;
            q += k;
        }
    }
    *e = q;
    *p = q + 1;
    return 1;
}

/* A plain unsigned integer as afmt_texthdr.c's parse_int accepts it: no
 * sign, no leading 0, fits 64 bits, not followed by . e E or a letter. */
static inline int uint_(const scan *s, uint64_t *p, uint64_t *out)
{
    const uint8_t *t = s->t;
    uint64_t q, u = 0, start, stop;
    ws(s, p);
    q = start = *p;
    /* 19 digits cannot overflow: no check per digit before that */
    stop = s->len - q > 19 ? q + 19 : s->len;
    while (q < stop && (unsigned)(t[q] - '0') < 10)
        u = u * 10 + (uint64_t)(t[q++] - '0');
    while (q < s->len && (unsigned)(t[q] - '0') < 10) {
        unsigned d = (unsigned)(t[q] - '0');
        if (u > (UINT64_MAX - d) / 10)
            return 0;
        u = u * 10 + d;
        q++;
    }
    if (q == start || (t[start] == '0' && q - start > 1))
        return 0;
    if (q < s->len && (t[q] == '.' || t[q] == 'e' || t[q] == 'E' || (t[q] >= 'a' && t[q] <= 'z') ||
                       (t[q] >= 'A' && t[q] <= 'Z') || t[q] == '_'))
        return 0;
    *out = u;
    *p = q;
    return 1;
}

/* After a value in a container: 1 with *more set (a ',' and another value
 * follows) or clear (the closing bracket, consumed). */
static inline int next(const scan *s, uint64_t *p, uint8_t close, int *more)
{
    ws(s, p);
    if (*p < s->len && s->t[*p] == ',') {
        (*p)++;
        ws(s, p);
        if (*p < s->len && s->t[*p] == close)
            return 0; /* a trailing comma: JSON has none */
        *more = 1;
        return 1;
    }
    if (*p < s->len && s->t[*p] == close) {
        (*p)++;
        *more = 0;
        return 1;
    }
    return 0;
}

static inline int room(const scan *s, uint64_t n) { return !s->max_entries || n < s->max_entries; }

/* [a, b, ...] of unsigned integers: their product (0 when one is 0) and
 * count, at most max_rank of them. */
static int dims(const scan *s, uint64_t *p, uint64_t max_rank, uint64_t *count, uint32_t *rank, uint64_t *out)
{
    uint64_t n = 0, prod = 1, d;
    int more = 1, zero = 0, overflow = 0;
    if (!byte(s, p, '['))
        return 0;
    ws(s, p);
    if (*p < s->len && s->t[*p] == ']') {
        (*p)++;
        more = 0;
    }
    while (more) {
        if (!room(s, n) || n >= max_rank || !uint_(s, p, &d))
            return 0;
        if (out) out[n] = d; /* n < max_rank <= AFMT_RANK_CAP */
        if (d == 0) zero = 1;
        else if (!overflow && afmt_checked_mul_u64(prod, d, &prod)) overflow = 1;
        n++;
        if (!next(s, p, ']', &more))
            return 0;
    }
    if (zero) prod = 0;
    else if (overflow) return 0;
    *count = prod;
    *rank = (uint32_t)n;
    return 1;
}

/* The type named by t[b, e) (find_type's rule: the first entry of the
 * table that equals it, or is a prefix of it), the last one found kept in
 * *cache: most entries of a header share a type. */
typedef afmt_header_onepass_type_cache type_cache;

static inline int type_of(const afmt_header_arrays_desc *d, const scan *s, uint64_t b, uint64_t e, type_cache *c)
{
    size_t i, n = (size_t)(e - b);
    if (c->type >= 0 && c->e - c->b == n && same(s->t + b, (const char *)s->t + c->b, n))
        return c->type;
    if (n >= 64) /* check_entry's buffer: a longer name is unknown */
        return -1;
    for (i = 0; i < d->ntypes; i++) {
        const afmt_header_arrays_type *ty = &d->types[i];
        size_t tl = strlen(ty->text);
        if (ty->prefix ? n >= tl && memcmp(s->t + b, ty->text, tl) == 0
                       : n == tl && memcmp(s->t + b, ty->text, tl) == 0) {
            c->b = b;
            c->e = e;
            c->type = (int)i;
            return (int)i;
        }
    }
    return -1;
}

/* Which of the descriptor's keys t[b, e) is, or -1. */
static inline int key_of(const afmt_header_arrays_desc *d, const scan *s, uint64_t b, uint64_t e)
{
    size_t i, n = (size_t)(e - b);
    for (i = 0; i < s->nkeys; i++)
        if (s->klen[i] == n && same(s->t + b, d->keys[i].key, n))
            return (int)i;
    return -1;
}

typedef struct fast_entry {
    int type;
    uint64_t count, begin, end, range_at;
    int have_range;
    uint32_t rank;
    uint64_t *dims;   /* where the dimensions go (NULL: nowhere) */
} fast_entry;

static inline int value(const afmt_header_arrays_desc *d, const scan *s, uint64_t *p, const afmt_header_arrays_key *key, uint64_t max_rank,
                 fast_entry *fe, type_cache *tc)
{
    uint64_t b, e;
    uint32_t rank;
    switch (key->bind) {
    case AFMT_BIND_DTYPE:
        if (!string(s, p, &b, &e) || (fe->type = type_of(d, s, b, e, tc)) < 0 || d->types[fe->type].refuse)
            return 0;
        return 1;
    case AFMT_BIND_SHAPE:
        if (key->kind != AFMT_TV_LIST || !dims(s, p, max_rank, &fe->count, &rank, fe->dims))
            return 0;
        fe->rank = rank;
        return 1;
    case AFMT_BIND_RANGE:
        ws(s, p);
        fe->range_at = *p;
        fe->have_range = 1;
        return room(s, 1) && byte(s, p, '[') && uint_(s, p, &fe->begin) && byte(s, p, ',') &&
               uint_(s, p, &fe->end) && byte(s, p, ']');
    default:
        return 0; /* an order key: not in a JSON map header */
    }
}

/* An entry written as the reference writes it: the keys in the
 * descriptor's order, no white space; 0 when it is not (nothing kept). */
static int entry_compact(const afmt_header_arrays_desc *d, const scan *s, uint64_t *p, uint64_t max_rank, fast_entry *fe,
                         type_cache *tc)
{
    uint64_t q = *p;
    size_t i;
    if (s->max_entries && s->max_entries < s->nkeys)
        return 0;
    for (i = 0; i < s->nkeys; i++) {
        size_t l = s->lit_len[i];
        if (!l || s->len - q < l || !same(s->t + q, s->lit[i], l))
            return 0;
        q += l;
        if (!value(d, s, &q, &d->keys[i], max_rank, fe, tc))
            return 0;
    }
    if (q >= s->len || s->t[q] != '}')
        return 0;
    *p = q + 1;
    return 1;
}

/* One entry's object: the descriptor's keys, each once, any order. */
static int entry(const afmt_header_arrays_desc *d, const scan *s, uint64_t *p, uint64_t max_rank, fast_entry *fe,
                 type_cache *tc)
{
    unsigned seen = 0, all = (1u << d->nkeys) - 1;
    uint64_t n = 0;
    int more = 1;
    fe->type = -1;
    fe->count = 1;
    fe->have_range = 0;
    fe->rank = 0;
    ws(s, p);
    if (entry_compact(d, s, p, max_rank, fe, tc))
        return 1;
    fe->type = -1;
    fe->count = 1;
    fe->have_range = 0;
    fe->rank = 0;
    if (!byte(s, p, '{'))
        return 0;
    while (more) {
        uint64_t b, e;
        int k;
        if (!room(s, n) || !string(s, p, &b, &e) || (k = key_of(d, s, b, e)) < 0 || (seen >> k & 1u) ||
            !byte(s, p, ':'))
            return 0;
        seen |= 1u << k;
        ws(s, p);
        if (!value(d, s, p, &d->keys[k], max_rank, fe, tc) || !next(s, p, '}', &more))
            return 0;
        n++;
    }
    return seen == all;
}

/* The metadata object: strings to strings, keys distinct (compared
 * pairwise: a file's metadata is small; a large one is left to the exact
 * steps). */
#define META_KEYS 64

static int metadata(const scan *s, uint64_t *p, afmt_texthdr_value *out)
{
    uint64_t kb[META_KEYS], ke[META_KEYS], n = 0, b, e, i;
    int more = 1;
    ws(s, p);
    out->kind = AFMT_TV_OBJECT;
    out->begin = *p;
    if (!byte(s, p, '{'))
        return 0;
    ws(s, p);
    if (*p < s->len && s->t[*p] == '}') {
        (*p)++;
        more = 0;
    }
    while (more) {
        if (n >= META_KEYS || !room(s, n) || !string(s, p, &kb[n], &ke[n]))
            return 0;
        for (i = 0; i < n; i++)
            if (ke[i] - kb[i] == ke[n] - kb[n] && memcmp(s->t + kb[i], s->t + kb[n], (size_t)(ke[n] - kb[n])) == 0)
                return 0;
        if (!byte(s, p, ':') || !string(s, p, &b, &e) || !next(s, p, '}', &more))
            return 0;
        n++;
    }
    out->end = *p;
    out->count = n;
    return 1;
}

/* Key t[b, e) after the previous name t[pb, pe) in strictly increasing
 * byte order (then no name is repeated). */
static int after(const scan *s, uint64_t pb, uint64_t pe, uint64_t b, uint64_t e)
{
    size_t pl = (size_t)(pe - pb), l = (size_t)(e - b);
    int c = memcmp(s->t + pb, s->t + b, pl < l ? pl : l);
    return c < 0 || (c == 0 && pl < l);
}

static int add(const afmt_header_arrays_desc *d, const scan *s, uint64_t base, uint64_t kb, uint64_t ke,
               const fast_entry *fe, afmt_header_map_list *l)
{
    const afmt_header_arrays_type *t = &d->types[fe->type];
    uint64_t nbytes;
    afmt_dir_entry *de;
    if (!fe->have_range || afmt_checked_mul_u64(fe->count, t->size, &nbytes) || fe->end < fe->begin ||
        fe->end - fe->begin != nbytes)
        return 0;
    if (afmt_header_map_grow(l) != 0)
        return -1;
    de = &l->e[l->n];
    de->begin = fe->begin;
    de->size = nbytes;
    de->index = l->n;
    de->name = (const char *)(s->t + kb);
    de->name_len = (size_t)(ke - kb);
    de->record_offset = base + fe->range_at;
    l->is_bool[l->n] = t->dtype == AFMT_BOOL;
    l->n++;
    return 1;
}

/* The scanner over hdr's text, with the descriptor's key literals. */
static void scan_init(scan *s, const afmt_header_arrays_desc *d, const afmt_texthdr *hdr)
{
    size_t n;
    s->t = hdr->text;
    s->len = hdr->len;
    s->max_entries = hdr->max_entries;
    s->nkeys = d->nkeys;
    for (n = 0; n < d->nkeys; n++) {
        s->klen[n] = strlen(d->keys[n].key);
        s->lit_len[n] = 0;
        if (s->klen[n] + 4 <= LIT_MAX) {
            s->lit[n][0] = n ? ',' : '{';
            s->lit[n][1] = '"';
            memcpy(s->lit[n] + 2, d->keys[n].key, s->klen[n]);
            s->lit[n][s->klen[n] + 2] = '"';
            s->lit[n][s->klen[n] + 3] = ':';
            s->lit_len[n] = s->klen[n] + 4;
        }
    }
}

/* A hash of a name, 8 bytes at a time (a sort key; equal names have
 * equal hashes, and names of equal hashes are compared byte by byte). */
static uint64_t name_hash(const uint8_t *p, size_t n)
{
    uint64_t h = 0x9e3779b97f4a7c15ull ^ n, w;
    while (n >= 8) {
        memcpy(&w, p, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
        h ^= h >> 29;
        p += 8;
        n -= 8;
    }
    w = 0;
    memcpy(&w, p, n);
    h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
    return h ^ (h >> 32);
}

/* Names not listed in increasing order are distinct: their hashes sorted
 * (afmt_dir_sort on a work copy: hash as begin), equal hashes compared by
 * bytes.  0 when two names are equal or too many share a hash (an input
 * made to collide): the exact steps then decide. */
#define SAME_HASH_MAX 8

static int names_distinct(afmt_header_map_list *l)
{
    afmt_dir_entry *w;
    size_t i, j, k;
    if (l->n > SIZE_MAX / sizeof *w || !(w = afmt_header_map_work(l, (uint64_t)l->n * sizeof *w)))
        return 0;
    for (i = 0; i < l->n; i++) {
        w[i] = l->e[i];
        w[i].begin = name_hash((const uint8_t *)l->e[i].name, l->e[i].name_len);
        w[i].size = 0;
    }
    afmt_dir_sort(w, l->n);
    for (i = 0; i < l->n; i = j) {
        for (j = i + 1; j < l->n && w[j].begin == w[i].begin; j++)
            if (j - i >= SAME_HASH_MAX)
                return 0;
        for (k = i; k < j; k++) {
            size_t m;
            for (m = k + 1; m < j; m++)
                if (w[k].name_len == w[m].name_len && memcmp(w[k].name, w[m].name, w[k].name_len) == 0)
                    return 0;
        }
    }
    return 1;
}

/* Names listed as a few increasing runs (the reference groups tensors by
 * type, each group by name): a merge of the runs meets equal names one
 * after the other, O(n k) comparisons for k runs. */
#define RUNS_MAX 8

static int name_cmp(const afmt_dir_entry *a, const afmt_dir_entry *b)
{
    size_t n = a->name_len < b->name_len ? a->name_len : b->name_len;
    int c = memcmp(a->name, b->name, n);
    return c ? c : (a->name_len > b->name_len) - (a->name_len < b->name_len);
}

static int runs_distinct(const afmt_header_map_list *l, const size_t *start, size_t k)
{
    size_t cur[RUNS_MAX], end[RUNS_MAX], r;
    for (r = 0; r < k; r++) {
        cur[r] = start[r];
        end[r] = r + 1 < k ? start[r + 1] : l->n;
    }
    /* Each step takes the smallest head.  Two equal names of two runs
     * are both heads when they are the smallest (all names before them
     * are smaller and taken first), and the scan then compares the later
     * one with the earlier: a comparison that says equal is a repeat. */
    for (;;) {
        size_t best = k;
        for (r = 0; r < k; r++) {
            int c;
            if (cur[r] >= end[r]) continue;
            if (best == k) { best = r; continue; }
            c = name_cmp(&l->e[cur[r]], &l->e[cur[best]]);
            if (c == 0) return 0;
            if (c < 0) best = r;
        }
        if (best == k)
            return 1;
        cur[best]++;
    }
}

int afmt_header_onepass_map(const afmt_header_arrays_desc *d, const afmt_texthdr *hdr, const afmt_options *opt, uint64_t *root_end,
                    afmt_header_map_list *l)
{
    scan s;
    uint64_t p = 0, pb = 0, pe = 0, max_rank, n = 0;
    int more = 1, have_prev = 0;
    size_t run_start[RUNS_MAX], nruns = 1;
    type_cache tc = {0, 0, -1};
    size_t meta_len = d->metadata_key ? strlen(d->metadata_key) : 0;

    if (hdr->syntax != AFMT_TEXTHDR_JSON || !d->map || d->nkeys == 0 || d->nkeys > 8 || hdr->len > UINT32_MAX / 2 ||
        (hdr->max_depth && hdr->max_depth < 3))
        return 0;
    scan_init(&s, d, hdr);
    n = 0;
    max_rank = opt->limits.max_rank < AFMT_RANK_CAP ? opt->limits.max_rank : AFMT_RANK_CAP;
    l->n = 0;
    if (!byte(&s, &p, '{'))
        return 0;
    ws(&s, &p);
    if (p < s.len && s.t[p] == '}') {
        p++;
        more = 0;
    }
    while (more) {
        uint64_t kb, ke;
        fast_entry fe;
        int r;
        if (!room(&s, n) || !string(&s, &p, &kb, &ke) || !byte(&s, &p, ':'))
            return 0;
        if (meta_len && ke - kb == meta_len && memcmp(s.t + kb, d->metadata_key, meta_len) == 0) {
            if (l->metadata.kind != AFMT_TV_NONE || !metadata(&s, &p, &l->metadata))
                return 0;
        } else {
            if (have_prev && !after(&s, pb, pe, kb, ke)) {
                /* a new run of increasing names: checked at the end */
                if (nruns < RUNS_MAX)
                    run_start[nruns] = l->n;
                nruns++;
            }
            fe.dims = NULL;
            if (!entry(d, &s, &p, max_rank, &fe, &tc))
                return 0;
            if ((r = add(d, &s, hdr->base, kb, ke, &fe, l)) != 1)
                return r;
            pb = kb;
            pe = ke;
            have_prev = 1;
        }
        n++;
        if (!next(&s, &p, '}', &more))
            return 0;
    }
    run_start[0] = 0;
    if (nruns > 1 && !(nruns <= RUNS_MAX ? runs_distinct(l, run_start, nruns) : names_distinct(l)))
        return 0;
    *root_end = p;
    return 1;
}

void afmt_header_onepass_viewer_init(afmt_header_onepass_viewer *v, const afmt_header_arrays_desc *d, const afmt_texthdr *hdr,
                             const afmt_options *opt)
{
    v->d = d;
    v->hdr = hdr;
    v->ok = hdr->syntax == AFMT_TEXTHDR_JSON && d->map && d->nkeys > 0 && d->nkeys <= 8;
    v->max_rank = opt->limits.max_rank < AFMT_RANK_CAP ? opt->limits.max_rank : AFMT_RANK_CAP;
    v->tc.b = v->tc.e = 0;
    v->tc.type = -1;
    if (v->ok)
        scan_init(&v->s, d, hdr);
}

int afmt_header_onepass_view(afmt_header_onepass_viewer *v, const afmt_dir_entry *e, afmt_array *a)
{
    fast_entry fe;
    uint64_t p;
    const afmt_header_arrays_type *t;
    size_t nl = e->name_len < AFMT_NAME_MAX - 1 ? e->name_len : AFMT_NAME_MAX - 1;
    if (!v->ok || memchr(e->name, '\\', e->name_len))
        return 0;
    afmt_array_init(a, AFMT_DTYPE_INVALID);
    p = (uint64_t)((const uint8_t *)e->name - v->hdr->text) + e->name_len + 1; /* past the closing quote */
    fe.dims = a->dims;
    if (!byte(&v->s, &p, ':') || !entry(v->d, &v->s, &p, v->max_rank, &fe, &v->tc))
        return 0;
    t = &v->d->types[fe.type];
    a->dtype = t->dtype;
    a->elsize = t->size;
    a->rank = fe.rank;
    a->count = fe.count;
    a->order = AFMT_ROW_MAJOR;
    a->endian = t->endian;
    a->encoding = AFMT_ENC_PLAIN;
    a->nbytes = e->size;
    a->stride = t->size;
    if (t->dtype == AFMT_OPAQUE)
        snprintf(a->opaque_name, sizeof a->opaque_name, "%s", t->text);
    memcpy(a->name, e->name, nl);
    a->name[nl] = '\0';
    a->name_len = e->name_len;
    return 1;
}
