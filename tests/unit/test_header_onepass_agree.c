/* The one-pass reader of map headers (runtime/text/afmt_header_onepass.c) against the
 * exact steps alone: this binary links the safetensors validator twice,
 * once as shipped and once (exact_*) built from runtime/text/afmt_header_arrays.c with
 * AFMT_HEADER_ARRAYS_EXACT_ONLY, where every header goes through afmt_texthdr_parse and
 * the per-entry checks, and every view comes from check_entry (Makefile:
 * $(BUILD)/agree/).  On every input, in
 * strict and lenient mode, both must give the same verdict, error (code,
 * field, offset, message), arrays (name, offset, size, in order), metadata
 * and warnings.  Inputs: the golden safetensors cases and headers made
 * here (names in and out of order, repeated, escaped, non-ASCII; keys in
 * any order; white space; metadata; holes, overlaps, bad types, sizes,
 * numbers), each also mutated at random (xorshift, fixed seed). */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "afmt.h"
#include "safetensors.h"
#include "check.h"
#include "testutil.h"

int exact_safetensors_validate(const uint8_t *buf, uint64_t len, const afmt_options *opt, const afmt_visitor *vis,
                               afmt_error *err);

typedef struct trace {
    char *p;
    size_t len, cap;
} trace;

static void add(trace *t, const char *s)
{
    size_t n = strlen(s);
    if (t->len + n + 1 > t->cap) {
        t->cap = (t->len + n + 1) * 2;
        t->p = realloc(t->p, t->cap);
        if (!t->p) exit(2);
    }
    memcpy(t->p + t->len, s, n + 1);
    t->len += n;
}

/* Everything a view says: name, place, type, shape, layout. */
static int on_array(void *ctx, const afmt_array *a)
{
    char b[AFMT_NAME_MAX + 256];
    uint32_t r;
    snprintf(b, sizeof b, " A[%s|%zu]@%llu/%llu#%u t%d/%u/%s o%d e%d c%d s%llu n%llu r%u:", a->name, (size_t)a->name_len,
             (unsigned long long)a->offset, (unsigned long long)a->nbytes, (unsigned)a->index, (int)a->dtype,
             (unsigned)a->elsize, a->opaque_name, (int)a->order, (int)a->endian, (int)a->encoding,
             (unsigned long long)a->stride, (unsigned long long)a->count, (unsigned)a->rank);
    add(ctx, b);
    for (r = 0; r < a->rank && r < AFMT_RANK_CAP; r++) {
        snprintf(b, sizeof b, "%llu,", (unsigned long long)a->dims[r]);
        add(ctx, b);
    }
    return 0;
}

static void on_metadata(void *ctx, const uint8_t *json, uint64_t len, uint64_t offset)
{
    char b[64];
    (void)json;
    snprintf(b, sizeof b, " M%llu@%llu", (unsigned long long)len, (unsigned long long)offset);
    add(ctx, b);
}

static void on_warning(void *ctx, const afmt_error *w)
{
    char b[AFMT_FIELD_MAX + AFMT_MESSAGE_MAX + 64];
    snprintf(b, sizeof b, " W[%d|%s|%llu|%s]", (int)w->code, w->field, (unsigned long long)w->offset, w->message);
    add(ctx, b);
}

typedef int (*validate_fn)(const uint8_t *, uint64_t, const afmt_options *, const afmt_visitor *, afmt_error *);

static void run(validate_fn f, const uint8_t *buf, size_t len, int mode, trace *t)
{
    afmt_options o;
    afmt_visitor v;
    afmt_error e;
    char b[AFMT_FIELD_MAX + AFMT_MESSAGE_MAX + 64];
    int rc;
    afmt_options_default(&o);
    o.mode = mode & 1 ? AFMT_LENIENT : AFMT_STRICT;
    if (mode & 2) { /* tight limits: the reader must leave them to the exact steps */
        o.limits.max_items = 3;
        o.limits.max_depth = 3;
        o.limits.max_rank = 2;
    }
    memset(&v, 0, sizeof v);
    v.ctx = t;
    v.on_array = on_array;
    v.on_metadata = on_metadata;
    v.on_warning = on_warning;
    memset(&e, 0, sizeof e);
    t->len = 0;
    add(t, "");
    rc = f(buf, len, &o, &v, &e);
    snprintf(b, sizeof b, " rc=%d %d|%s|%llu|%s", rc, (int)e.code, e.field, (unsigned long long)e.offset, e.message);
    add(t, b);
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

typedef struct buf { uint8_t *p; size_t len, cap; } buf;

static void put(buf *b, const void *s, size_t n)
{
    if (b->len + n > b->cap) {
        b->cap = (b->len + n) * 2 + 64;
        b->p = realloc(b->p, b->cap);
        if (!b->p) exit(2);
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
}
static void puts_(buf *b, const char *s) { put(b, s, strlen(s)); }

/* A file: 8-byte length, the header text, padding, then data bytes. */
static void file_of(const buf *h, size_t data, int pad, buf *f)
{
    uint8_t len[8];
    size_t n = h->len + (pad ? (8 - h->len % 8) % 8 : 0), i;
    f->len = 0;
    for (i = 0; i < 8; i++) len[i] = (uint8_t)((uint64_t)n >> (8 * i));
    put(f, len, 8);
    put(f, h->p, h->len);
    for (i = h->len; i < n; i++) put(f, " ", 1);
    for (i = 0; i < data; i++) put(f, (next_rand() & 7) ? "\0" : "\1", 1);
}

static const char *const ws[] = {"", "", "", " ", "\n", "\t"};
#define WS ws[next_rand() % 6]

/* A header made from the rules, valid or nearly so. */
static size_t make_header(buf *h)
{
    static const char *const types[] = {"F32", "BF16", "BOOL", "U8", "I64", "F8_E4M3", "F4", "X9"};
    static const unsigned sizes[] = {4, 2, 1, 1, 8, 1, 1, 1};
    unsigned n = (unsigned)(next_rand() % 12), i, order[12];
    uint64_t off = 0;
    int shuffle = next_rand() % 4 == 0, names = (int)(next_rand() % 5);
    h->len = 0;
    puts_(h, "{");
    if (next_rand() % 4 == 0) {
        puts_(h, "\"__metadata__\":{\"format\":\"pt\"");
        if (next_rand() % 3 == 0) puts_(h, ",\"format\":\"x\"");
        puts_(h, "}");
        if (n) puts_(h, ",");
    }
    for (i = 0; i < n; i++) order[i] = i;
    for (i = 0; shuffle && n > 1 && i < n; i++) {
        unsigned j = (unsigned)(next_rand() % n), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (i = 0; i < n; i++) {
        char e[256], name[64];
        const char *w0, *w1, *w2, *w3, *w4;
        unsigned k = order[i], ty = (unsigned)(next_rand() % 100 < 95 ? next_rand() % 5 : next_rand() % 8);
        unsigned d0 = (unsigned)(next_rand() % 4), d1 = (unsigned)(next_rand() % 3);
        uint64_t nb = (uint64_t)d0 * d1 * sizes[ty], b = 16 * (uint64_t)k, en;
        switch (names) {
        case 0: snprintf(name, sizeof name, "layer.%u.w", k); break;
        case 1: snprintf(name, sizeof name, "t%u", (unsigned)(next_rand() % 6)); break; /* repeats */
        case 2: snprintf(name, sizeof name, "\\u00e9%u", k); break;                   /* an escape */
        case 3: snprintf(name, sizeof name, "\xc3\xa9%u", 9 - k); break;               /* UTF-8, down */
        default: snprintf(name, sizeof name, "%s.%u", k % 2 ? "b" : "a", k); break;     /* two runs */
        }
        b = off;
        en = b + nb;
        if (next_rand() % 30 == 0) en++;
        if (next_rand() % 30 == 0) { b += 4; en += 4; }
        off = en;
        /* white space drawn one by one: the order of a call's arguments
         * is the compiler's, and the inputs must not depend on it */
        w0 = WS;
        w1 = WS;
        w2 = WS;
        w3 = WS;
        w4 = WS;
        if (next_rand() % 2)
            snprintf(e, sizeof e, "%s\"%s\"%s:%s{\"dtype\":%s\"%s\",\"shape\":[%u,%s%u],\"data_offsets\":[%llu,%s%llu]}",
                     i ? "," : "", name, w0, w1, w2, types[ty], d0, w3, d1, (unsigned long long)b, w4,
                     (unsigned long long)en);
        else
            snprintf(e, sizeof e, "%s\"%s\":{\"data_offsets\":[%llu,%llu],\"shape\":[%u,%u],\"dtype\":\"%s\"%s}",
                     i ? "," : "", name, (unsigned long long)b, (unsigned long long)en, d0, d1, types[ty], w0);
        puts_(h, e);
    }
    puts_(h, WS);
    puts_(h, "}");
    return (size_t)off;
}

static const char *const tokens[] = {" ", "\t", ",", ":", "{", "}", "[", "]", "\"", "\\", "\\u0041", "0", "-", "1e3",
                                     "01", "\xc3\xa9", "\xff", "true", "null", "\"F32\"", "\"dtype\"", "\"shape\"",
                                     "\"data_offsets\"", "\"__metadata__\"", "18446744073709551616", "[]", "{}", "'"};

static void mutate(buf *h)
{
    unsigned k, m = 1 + (unsigned)(next_rand() % 3);
    for (k = 0; k < m; k++) {
        size_t p = h->len ? (size_t)(next_rand() % (h->len + 1)) : 0;
        unsigned r = (unsigned)(next_rand() % 3);
        if (r == 0 && h->len) {
            size_t at = (size_t)(next_rand() % h->len);
            h->p[at] = (uint8_t)next_rand();
        } else if (r == 1) {
            const char *t = tokens[next_rand() % (sizeof tokens / sizeof tokens[0])];
            size_t n = strlen(t);
            put(h, t, n); /* grow, then move the tail */
            memmove(h->p + p + n, h->p + p, h->len - n - p);
            memcpy(h->p + p, t, n);
        } else if (h->len) {
            size_t n = 1 + (size_t)(next_rand() % 8);
            if (p + n > h->len) n = h->len - p;
            memmove(h->p + p, h->p + p + n, h->len - p - n);
            h->len -= n;
        }
    }
}

static unsigned compared, differ, accepted;

static void compare(const buf *f, const char *what)
{
    static trace a, b;
    int mode;
    for (mode = 0; mode < 4; mode++) {
        run(afmt_safetensors_validate, f->p, f->len, mode, &a);
        run(exact_safetensors_validate, f->p, f->len, mode, &b);
        compared++;
        if (strstr(a.p, " rc=0 ")) accepted++;
        if (strcmp(a.p, b.p) != 0) {
            if (differ++ < 5)
                printf("  %s (mode %d) differs:\n    one pass:%s\n    exact:   %s\n", what, mode, a.p, b.p);
        }
    }
}

static int read_file(const char *path, buf *f)
{
    uint64_t len;
    uint8_t *data = fz_read_file(path, &len);
    if (!data) return -1;
    f->len = 0;
    put(f, data, (size_t)len);
    free(data);
    return 0;
}

int main(void)
{
    buf h = {0}, f = {0}, g = {0};
    unsigned i, seeds = 0;
    DIR *d = opendir("tests/safetensors");
    struct dirent *de;
    char name[128];
    while (d && (de = readdir(d)) != NULL) {
        char path[512];
        if (de->d_name[0] == '.') continue;
        snprintf(path, sizeof path, "tests/safetensors/%s/input", de->d_name);
        if (read_file(path, &f) != 0) continue;
        seeds++;
        compare(&f, path);
        for (i = 0; i < 200 && f.len > 8; i++) {
            uint64_t hl = 0;
            unsigned k;
            for (k = 0; k < 8; k++) hl |= (uint64_t)f.p[k] << (8 * k);
            if (hl > f.len - 8) hl = f.len - 8;
            h.len = 0;
            put(&h, f.p + 8, (size_t)hl);
            mutate(&h);
            file_of(&h, f.len - 8 - (size_t)hl, (int)(next_rand() % 2), &g);
            compare(&g, path);
        }
    }
    if (d) closedir(d);
    if (!seeds) printf("note: tests/safetensors not found from here: only made headers are compared\n");
    for (i = 0; i < 6000; i++) {
        size_t data = make_header(&h);
        if (i % 3 == 0) mutate(&h);
        if (next_rand() % 20 == 0 && data) data--;
        file_of(&h, data, next_rand() % 8 != 0, &f);
        compare(&f, "a made header");
    }
    snprintf(name, sizeof name, "one-pass reader and exact steps agree on %u validations (%u valid, %u golden seeds)",
             compared, accepted, seeds);
    CHECK(name, differ == 0 && accepted > compared / 20);
    free(h.p);
    free(f.p);
    free(g.p);
    CHECK_DONE();
}
