/* Typed metadata (afmt_write_options.kv, afmt_visitor.on_kv) through the
 * GGUF writer and validator generated from spec/gguf.json: a table of
 * key-values (each value kind and width, nested lists, an empty list,
 * general.alignment), each written, validated strict and read back with
 * the same kind, width and value; and a table of refusals (a type GGUF
 * lacks, a non-power-of-two or non-u32 alignment, duplicate keys, an empty
 * key, a list of mixed items, lists nested deeper than the validator
 * reads, an f32 that is not one, a list or string without its bytes),
 * each with its code and words. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include "afmt.h"
#include "gguf.h"
#include "check.h"

#define S(s) (const uint8_t *)(s), sizeof(s) - 1

static afmt_value num(afmt_value_kind k, unsigned w, uint64_t u, int64_t i, double f)
{
    afmt_value v;
    memset(&v, 0, sizeof v);
    v.kind = k;
    v.width = w;
    v.u = u;
    v.i = i;
    v.f = f;
    return v;
}

static afmt_value str(const char *s)
{
    afmt_value v = num(AFMT_VALUE_STRING, 0, 0, 0, 0);
    v.str = (const uint8_t *)s;
    v.len = strlen(s);
    return v;
}

static afmt_value list(afmt_value_kind k, unsigned w, const afmt_value *items, uint64_t n)
{
    afmt_value v = num(AFMT_VALUE_LIST, 0, 0, 0, 0);
    v.item_kind = k;
    v.item_width = w;
    v.items = items;
    v.count = n;
    return v;
}

/* Equal kind, width and value (lists deeply). */
static int same(const afmt_value *a, const afmt_value *b)
{
    uint64_t k;
    if (a->kind != b->kind || a->width != b->width) return 0;
    switch (a->kind) {
    case AFMT_VALUE_UINT: case AFMT_VALUE_BOOL: return a->u == b->u;
    case AFMT_VALUE_INT: return a->i == b->i;
    case AFMT_VALUE_FLOAT: return memcmp(&a->f, &b->f, sizeof a->f) == 0;
    case AFMT_VALUE_STRING: return a->len == b->len && (a->len == 0 || memcmp(a->str, b->str, a->len) == 0);
    case AFMT_VALUE_LIST:
        if (a->count != b->count || a->item_kind != b->item_kind || a->item_width != b->item_width) return 0;
        for (k = 0; k < a->count; k++)
            if (!same(&a->items[k], &b->items[k])) return 0;
        return 1;
    }
    return 0;
}

typedef struct got {
    afmt_kv kv[64];     /* the key-values read, each in its own copy */
    afmt_kv *blocks[64]; /* the copies (afmt_kv_copy's blocks) */
    size_t n;
    uint64_t offset[64];
    afmt_array a[4];
    int narrays;
} got;

static int keep_kv(void *ctx, const afmt_kv *kv, uint64_t offset)
{
    got *g = ctx;
    afmt_kv *copy;
    if (g->n >= 64 || afmt_kv_copy(kv, 1, &copy, NULL) != 0) return 1;
    g->blocks[g->n] = copy;
    g->kv[g->n] = *copy;
    g->offset[g->n++] = offset;
    return 0;
}

static int keep_array(void *ctx, const afmt_array *a)
{
    got *g = ctx;
    if (g->narrays < 4) g->a[g->narrays] = *a;
    g->narrays++;
    return 0;
}

static void got_free(got *g)
{
    size_t i;
    for (i = 0; i < g->n; i++) free(g->blocks[i]);
    memset(g, 0, sizeof *g);
}

/* Write kv[0..n) (with one f32 tensor) into a new buffer; NULL on failure. */
static uint8_t *write_kvs(const afmt_kv *kv, size_t n, uint64_t *len, afmt_error *err)
{
    static const float data[4] = {1, 2, 3, 4};
    afmt_array a;
    afmt_write_options w;
    afmt_sink sink;
    uint8_t *buf;
    afmt_array_init(&a, AFMT_F32);
    a.rank = 1;
    a.dims[0] = 4;
    a.count = 4;
    a.nbytes = 16;
    a.data = (const uint8_t *)data;
    snprintf(a.name, sizeof a.name, "t");
    memset(&w, 0, sizeof w);
    w.kv = kv;
    w.n_kv = n;
    if (afmt_gguf_encoded_size(&a, 1, &w, len, err) != 0) return NULL;
    if (!(buf = malloc(*len))) return NULL;
    afmt_sink_buffer(&sink, buf, *len);
    if (afmt_gguf_write(&a, 1, &w, &sink, err) != 0 || sink.written != *len) {
        free(buf);
        return NULL;
    }
    return buf;
}

static int read_back(const uint8_t *buf, uint64_t len, got *g, afmt_error *err)
{
    afmt_options opt;
    afmt_visitor vis;
    afmt_options_default(&opt);
    opt.mode = AFMT_STRICT;
    memset(&vis, 0, sizeof vis);
    memset(g, 0, sizeof *g);
    vis.ctx = g;
    vis.on_kv = keep_kv;
    vis.on_array = keep_array;
    return afmt_gguf_validate(buf, len, &opt, &vis, err);
}

/* ASan keeps freed memory in quarantine: a peak-memory check means nothing under it. */
#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

#ifndef UNDER_ASAN
/* The peak resident memory of this process so far, in bytes. */
static uint64_t peak_rss(void)
{
    struct rusage u;
    if (getrusage(RUSAGE_SELF, &u) != 0) return 0;
    return (uint64_t)u.ru_maxrss * 1024;
}
#endif

static int count_kv(void *ctx, const afmt_kv *kv, uint64_t offset)
{
    (void)kv;
    (void)offset;
    ++*(size_t *)ctx;
    return 0;
}

/* on_kv's lists live for its call only: 16 key-values of 65,536 u8 each
 * (1 MiB of input, 4.5 MiB of afmt_value a list) are read in the memory
 * of one list, not of all 16 (72 MiB, when every list was kept to the
 * run's end).  ASan keeps freed memory in quarantine: skipped under it. */
static void test_kv_memory(void)
{
#ifdef UNDER_ASAN
    puts("SKIP typed metadata: on_kv's memory (ASan keeps what is freed)");
#else
    enum { NKV = 16, NITEMS = 65536 };
    afmt_value *items = calloc(NITEMS, sizeof *items);
    afmt_kv kvs[NKV];
    char keys[NKV][8];
    afmt_options opt;
    afmt_visitor vis;
    afmt_error err;
    uint64_t len, base;
    uint8_t *buf = NULL;
    size_t i, seen = 0;
    if (!items) return;
    for (i = 0; i < NITEMS; i++) items[i] = num(AFMT_VALUE_UINT, 1, i & 255, 0, 0);
    for (i = 0; i < NKV; i++) {
        snprintf(keys[i], sizeof keys[i], "k%02zu", i);
        kvs[i].key = (const uint8_t *)keys[i];
        kvs[i].key_len = strlen(keys[i]);
        kvs[i].value = list(AFMT_VALUE_UINT, 1, items, NITEMS);
    }
    buf = write_kvs(kvs, NKV, &len, &err);
    free(items);
    CHECK("typed metadata: 16 lists of 65,536 u8 written", buf != NULL);
    if (!buf) return;
    afmt_options_default(&opt);
    memset(&vis, 0, sizeof vis);
    vis.ctx = &seen;
    vis.on_kv = count_kv;
    base = peak_rss();
    CHECK("typed metadata: 16 lists of 65,536 u8 read through on_kv",
          afmt_gguf_validate(buf, len, &opt, &vis, &err) == 0 && seen == NKV);
    printf("  peak resident memory grew %" PRIu64 " KiB reading them\n", (peak_rss() - base) / 1024);
    CHECK("typed metadata: on_kv's lists are freed after each call (peak memory grows by less than 32 MiB, not 72)",
          peak_rss() - base < (uint64_t)32 << 20);
    free(buf);
#endif
}

/* A key-value's decoded lists are held to limits.max_header_bytes: a list
 * of 20,000 u8 (20 KB of input, 1.4 MB of afmt_value) is refused by name
 * under a 1 MB limit when on_kv asks for it, valid without on_kv (nothing
 * is built) and valid through on_kv under a 2 MB limit. */
static void test_kv_budget(void)
{
    enum { NITEMS = 20000 };
    afmt_value *items = calloc(NITEMS, sizeof *items);
    afmt_kv kv;
    afmt_options opt;
    afmt_visitor vis;
    afmt_error err;
    uint64_t len;
    uint8_t *buf;
    size_t i, seen = 0;
    if (!items) return;
    for (i = 0; i < NITEMS; i++) items[i] = num(AFMT_VALUE_UINT, 1, i & 255, 0, 0);
    kv.key = (const uint8_t *)"big";
    kv.key_len = 3;
    kv.value = list(AFMT_VALUE_UINT, 1, items, NITEMS);
    buf = write_kvs(&kv, 1, &len, &err);
    free(items);
    CHECK("typed metadata: a list of 20,000 u8 written", buf != NULL);
    if (!buf) return;
    afmt_options_default(&opt);
    opt.limits.max_header_bytes = 1000000;
    memset(&vis, 0, sizeof vis);
    vis.ctx = &seen;
    vis.on_kv = count_kv;
    CHECK("typed metadata: 1.4 MB of decoded list under max_header_bytes 1 MB is AFMT_E_LIMIT, naming the limit",
          afmt_gguf_validate(buf, len, &opt, &vis, &err) != 0 && err.code == AFMT_E_LIMIT &&
              strstr(err.message, "limits.max_header_bytes") != NULL && seen == 0);
    CHECK("typed metadata: the same file without on_kv is valid (nothing decoded)",
          afmt_gguf_validate(buf, len, &opt, NULL, &err) == 0);
    opt.limits.max_header_bytes = 2000000;
    CHECK("typed metadata: the same list under max_header_bytes 2 MB reaches on_kv",
          afmt_gguf_validate(buf, len, &opt, &vis, &err) == 0 && seen == 1);
    free(buf);
}

int main(void)
{
    static const afmt_value u8s[3] = {{AFMT_VALUE_UINT, 1, 0, 0, 0, NULL, 0, NULL, 0, 0, 0},
                                      {AFMT_VALUE_UINT, 1, 7, 0, 0, NULL, 0, NULL, 0, 0, 0},
                                      {AFMT_VALUE_UINT, 1, 255, 0, 0, NULL, 0, NULL, 0, 0, 0}};
    afmt_value strs[2], inner[2], outer[2], i64s[2];
    afmt_kv kvs[20];
    size_t n = 0, i;
    uint64_t len;
    uint8_t *buf;
    afmt_error err;
    got g;

    strs[0] = str("hello");
    strs[1] = str("");
    i64s[0] = num(AFMT_VALUE_INT, 8, 0, INT64_MIN, 0);
    i64s[1] = num(AFMT_VALUE_INT, 8, 0, INT64_MAX, 0);
    inner[0] = list(AFMT_VALUE_STRING, 0, strs, 2);
    inner[1] = list(AFMT_VALUE_STRING, 0, NULL, 0);
    outer[0] = list(AFMT_VALUE_LIST, 0, inner, 2);
    outer[1] = list(AFMT_VALUE_LIST, 0, NULL, 0);
#define KV(k, v) (kvs[n].key = (const uint8_t *)(k), kvs[n].key_len = strlen(k), kvs[n].value = (v), n++)
    KV("u8", num(AFMT_VALUE_UINT, 1, 200, 0, 0));
    KV("i8", num(AFMT_VALUE_INT, 1, 0, -128, 0));
    KV("u16", num(AFMT_VALUE_UINT, 2, 65535, 0, 0));
    KV("i16", num(AFMT_VALUE_INT, 2, 0, -300, 0));
    KV("u32", num(AFMT_VALUE_UINT, 4, 4000000000u, 0, 0));
    KV("i32", num(AFMT_VALUE_INT, 4, 0, -2000000000, 0));
    KV("u64", num(AFMT_VALUE_UINT, 8, UINT64_MAX, 0, 0));
    KV("i64", num(AFMT_VALUE_INT, 8, 0, INT64_MIN, 0));
    KV("f32", num(AFMT_VALUE_FLOAT, 4, 0, 0, 0.5));
    KV("f64", num(AFMT_VALUE_FLOAT, 8, 0, 0, -1e300));
    KV("bool", num(AFMT_VALUE_BOOL, 1, 1, 0, 0));
    KV("string", str("a string\n with \0 bytes"));
    KV("empty string", str(""));
    KV("list of u8", list(AFMT_VALUE_UINT, 1, u8s, 3));
    KV("list of i64", list(AFMT_VALUE_INT, 8, i64s, 2));
    KV("empty list", list(AFMT_VALUE_FLOAT, 4, NULL, 0));
    KV("lists of lists of strings", list(AFMT_VALUE_LIST, 0, outer, 2));
    KV("general.alignment", num(AFMT_VALUE_UINT, 4, 64, 0, 0));

    buf = write_kvs(kvs, n, &len, &err);
    CHECK("typed metadata: every kind written", buf != NULL);
    if (!buf) { printf("  %s\n", err.message); CHECK_DONE(); }
    CHECK("typed metadata: the file validates strict", read_back(buf, len, &g, &err) == 0 && g.n == n);
    for (i = 0; i < n && i < g.n; i++) {
        char name[128];
        snprintf(name, sizeof name, "typed metadata: %.*s read back: same key, kind, width and value", (int)kvs[i].key_len,
                 (const char *)kvs[i].key);
        CHECK(name, g.kv[i].key_len == kvs[i].key_len && memcmp(g.kv[i].key, kvs[i].key, kvs[i].key_len) == 0 &&
                        same(&g.kv[i].value, &kvs[i].value));
    }
    CHECK("typed metadata: the first key's offset is after the 24-byte header", g.n > 0 && g.offset[0] == 24);
    CHECK("typed metadata: general.alignment 64 places the tensor at a multiple of 64",
          g.narrays == 1 && g.a[0].offset % 64 == 0 && g.a[0].offset >= 64);
    {
        /* the file rewritten with what was read: the same bytes */
        uint64_t len2;
        uint8_t *buf2 = write_kvs(g.kv, g.n, &len2, &err);
        CHECK("typed metadata: a fixed point (what is read, written again: the same bytes)",
              buf2 && len2 == len && memcmp(buf, buf2, len) == 0);
        free(buf2);
    }
    got_free(&g);
    free(buf);

    {
        static const struct {
            const char *what, *key;
            afmt_value_kind kind;
            unsigned width;
            uint64_t u;
            afmt_code code;
            const char *words;
        } bad[] = {
            {"a float of 2 bytes", "k", AFMT_VALUE_FLOAT, 2, 0, AFMT_E_TYPE, "gguf has no metadata value"},
            {"a u8 value of 300", "k", AFMT_VALUE_UINT, 1, 300, AFMT_E_TYPE, "does not fit u8"},
            {"a bool of 2", "k", AFMT_VALUE_BOOL, 1, 2, AFMT_E_TYPE, "a bool is 0 or 1"},
            {"general.alignment 48", "general.alignment", AFMT_VALUE_UINT, 4, 48, AFMT_E_CONSTRAINT, "power of two"},
            {"general.alignment 0", "general.alignment", AFMT_VALUE_UINT, 4, 0, AFMT_E_CONSTRAINT, "power of two"},
            {"general.alignment as u64", "general.alignment", AFMT_VALUE_UINT, 8, 32, AFMT_E_CONSTRAINT, "type u32 (4)"},
            {"an empty key", "", AFMT_VALUE_UINT, 4, 1, AFMT_E_CONSTRAINT, "a key is not empty"},
        };
        for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            afmt_kv one;
            char name[160];
            one.key = (const uint8_t *)bad[i].key;
            one.key_len = strlen(bad[i].key);
            one.value = num(bad[i].kind, bad[i].width, bad[i].u, 0, 0);
            buf = write_kvs(&one, 1, &len, &err);
            snprintf(name, sizeof name, "typed metadata: %s is refused: %s", bad[i].what, bad[i].words);
            CHECK(name, buf == NULL && err.code == bad[i].code && strstr(err.message, bad[i].words) != NULL);
            if (buf || err.code != bad[i].code) printf("  got: %s\n", buf ? "written" : err.message);
            free(buf);
        }
    }
    {
        afmt_kv two[2];
        afmt_value mixed[2];
        two[0].key = two[1].key = (const uint8_t *)"same";
        two[0].key_len = two[1].key_len = 4;
        two[0].value = two[1].value = num(AFMT_VALUE_UINT, 4, 1, 0, 0);
        buf = write_kvs(two, 2, &len, &err);
        CHECK("typed metadata: duplicate keys are refused",
              buf == NULL && err.code == AFMT_E_CONSTRAINT && strstr(err.message, "duplicate key \"same\""));
        free(buf);
        mixed[0] = num(AFMT_VALUE_UINT, 4, 1, 0, 0);
        mixed[1] = num(AFMT_VALUE_UINT, 8, 1, 0, 0);
        two[0].value = list(AFMT_VALUE_UINT, 4, mixed, 2);
        buf = write_kvs(two, 1, &len, &err);
        CHECK("typed metadata: a list of items of another width than it says is refused",
              buf == NULL && err.code == AFMT_E_TYPE && strstr(err.message, "list item 1"));
        free(buf);
    }
    {
        /* lists of lists as deep as the validator goes (a u8 at depth 31,
         * its structure use the 32nd, limits.max_depth at its most) are
         * written and read back; one list deeper is refused by the writer,
         * not written for the validator to refuse */
        afmt_value chain[32], f;
        afmt_kv one;
        afmt_kv *copy = NULL;
        int d, k;
        one.key = (const uint8_t *)"deep";
        one.key_len = 4;
        for (d = 31; d <= 32; d++) {
            for (k = 0; k < d - 1; k++) chain[k] = list(AFMT_VALUE_LIST, 0, &chain[k + 1], 1);
            chain[d - 1] = list(AFMT_VALUE_UINT, 1, u8s, 1);
            one.value = chain[0];
            buf = write_kvs(&one, 1, &len, &err);
            if (d == 31) {
                CHECK("typed metadata: 31 nested lists (a u8 at depth 31) are written, validated and read back",
                      buf && read_back(buf, len, &g, &err) == 0 && g.n == 1 && same(&g.kv[0].value, &chain[0]));
                got_free(&g);
            } else {
                CHECK("typed metadata: 32 nested lists (a u8 at depth 32, which the validator refuses) are refused: limit",
                      buf == NULL && err.code == AFMT_E_LIMIT && strstr(err.message, "nested more than 32 deep"));
                CHECK("typed metadata: afmt_kv_copy refuses them too, saying why (not an overflow)",
                      afmt_kv_copy(&one, 1, &copy, &err) != 0 && copy == NULL && err.code == AFMT_E_LIMIT &&
                          strstr(err.message, "nested more than 32 deep"));
            }
            free(buf);
        }
        /* a width-4 float is an f32 exactly: one that is not is refused, not rounded */
        f = num(AFMT_VALUE_FLOAT, 4, 0, 0, 0.1);
        one.value = f;
        buf = write_kvs(&one, 1, &len, &err);
        CHECK("typed metadata: an f32 of 0.1 (not exactly an f32) is refused",
              buf == NULL && err.code == AFMT_E_TYPE && strstr(err.message, "not exactly an f32"));
        free(buf);
        one.value = num(AFMT_VALUE_FLOAT, 4, 0, 0, 1e300);
        buf = write_kvs(&one, 1, &len, &err);
        CHECK("typed metadata: an f32 of 1e300 (past the f32 range) is refused",
              buf == NULL && err.code == AFMT_E_TYPE && strstr(err.message, "not exactly an f32"));
        free(buf);
        one.value = num(AFMT_VALUE_FLOAT, 4, 0, 0, -HUGE_VAL);
        buf = write_kvs(&one, 1, &len, &err);
        CHECK("typed metadata: an f32 of -inf is written", buf != NULL);
        free(buf);
        /* a caller's list or string that says it has bytes but points at none */
        one.value = list(AFMT_VALUE_UINT, 1, NULL, 2);
        buf = write_kvs(&one, 1, &len, &err);
        CHECK("typed metadata: a list of 2 items with no items given is refused: usage",
              buf == NULL && err.code == AFMT_E_USAGE && strstr(err.message, "has none given"));
        free(buf);
        one.value = str("");
        one.value.len = 3;
        one.value.str = NULL;
        buf = write_kvs(&one, 1, &len, &err);
        CHECK("typed metadata: a string of 3 bytes with no bytes given is refused: usage",
              buf == NULL && err.code == AFMT_E_USAGE && strstr(err.message, "has none given"));
        free(buf);
    }
    test_kv_memory();
    test_kv_budget();
    CHECK_DONE();
}
