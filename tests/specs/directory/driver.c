/* A format described by JSON alone that uses the newer constructs together
 * (dirfmt.json): a byte order chosen at run time (a mark, II or MM, after
 * the magic), a recursive named structure (lists of lists, u16 and f32
 * values in the file's order), a var set inside a repeat, unique keys (by
 * bytes and as C strings), a block element type and a directory of arrays.
 * Hand-made files, valid and not, in both byte orders, get the verdicts,
 * error fields and offsets, lenient warnings and views the spec says.
 * With a folder argument it also writes its files there (the samples the
 * interpreter agreement test reads: tests/specs/directory/samples).  Its
 * writer (generated from the same spec) writes a directory its validator
 * accepts strict, in the spec's order, and refuses what the spec's rules
 * reject. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "afmt.h"
#include "dirfmt.h"
#include "check.h"

#define MAX_VIEWS 4

typedef struct got {
    afmt_array a[MAX_VIEWS];
    int n, warnings;
    afmt_error warning;
    afmt_kv *kv[8]; /* copies of the key-values (afmt_kv_copy), when asked */
    int nkv, want_kv;
} got;

static int keep_kv(void *ctx, const afmt_kv *kv, uint64_t offset)
{
    got *g = ctx;
    (void)offset;
    if (g->nkv >= 8 || afmt_kv_copy(kv, 1, &g->kv[g->nkv], NULL) != 0) return 1;
    g->nkv++;
    return 0;
}

static int keep(void *ctx, const afmt_array *a)
{
    got *g = ctx;
    if (g->n < MAX_VIEWS) g->a[g->n] = *a;
    g->n++;
    return 0;
}

static void warned(void *ctx, const afmt_error *w)
{
    got *g = ctx;
    if (!g->warnings) g->warning = *w;
    g->warnings++;
}

/* The byte order of the file being built: 0 II (little), 1 MM (big). */
static int big;

/* A check named after the order of the files built now ("dirfmt MM: ..."). */
#define CHECKO(what, cond)                                                  \
    do {                                                                    \
        char checko_name[160];                                              \
        snprintf(checko_name, sizeof checko_name, "dirfmt %s: %s", big ? "MM" : "II", (what)); \
        CHECK(checko_name, cond);                                           \
    } while (0)

/* A file under construction. */
typedef struct file {
    uint8_t b[512];
    size_t n;
} file;

static size_t u8(file *f, unsigned v)
{
    f->b[f->n] = (uint8_t)v;
    return f->n++;
}

/* A width-byte integer in the file's byte order. */
static size_t uint_n(file *f, uint32_t v, unsigned width)
{
    size_t at = f->n;
    unsigned i;
    for (i = 0; i < width; i++) u8(f, (v >> (8 * (big ? width - 1 - i : i))) & 0xff);
    return at;
}

static size_t u32(file *f, uint32_t v) { return uint_n(f, v, 4); }

static size_t str(file *f, const char *s, size_t len)
{
    size_t at = u8(f, (unsigned)len);
    memcpy(f->b + f->n, s, len);
    f->n += len;
    return at;
}

static void zeros_to(file *f, size_t end)
{
    while (f->n < end) u8(f, 0);
}

/* What to build: the valid file, or one thing changed. */
typedef struct plan {
    unsigned align;       /* the "align" metadata (16) */
    const char *key2;     /* the third key ("x") */
    const char *name1;    /* the second array's name ("qb", 2 bytes) */
    size_t name1_len;
    unsigned depth;       /* nesting of the "deep" list (2) */
    unsigned offset1;     /* the second array's offset (32) */
    unsigned kind1;       /* the "list" value's kind (1) */
    unsigned pad_byte;    /* a byte in the padding between the arrays (0) */
    int short_tail;       /* the last array's padding cut off */
    unsigned bom;         /* the byte order mark, 0: II or MM as `big` says */
    unsigned u16v;        /* the "ver" value, a u16 (0x0102) */
    uint32_t f32bits;     /* the "scale" value, an f32's bits (0.5) */
} plan;

/* Where things landed in the file built. */
typedef struct where {
    size_t align, key2, name1, offset1, kind1, deep, data, pad, u16v, f32v;
} where;

static plan valid_plan(void)
{
    plan p = {16, "x", "qb", 2, 2, 32, 1, 0, 0, 0, 0x0102, 0x3f000000u};
    return p;
}

/* A list nested depth times: [[...[7]...]] */
static void nested(file *f, unsigned depth)
{
    if (depth == 0) { u8(f, 7); return; }
    u8(f, depth == 1 ? 0 : 1); /* item_kind */
    u8(f, 1);                  /* n */
    nested(f, depth - 1);
}

static size_t build(file *f, const plan *p, where *w)
{
    unsigned i;
    f->n = 0;
    memcpy(f->b, "DIRF", 4);
    f->n = 4;
    u8(f, p->bom ? p->bom & 0xff : big ? 'M' : 'I'); /* the mark, read as u16le */
    u8(f, p->bom ? p->bom >> 8 : big ? 'M' : 'I');
    u8(f, 6); /* n_meta */
    u8(f, 2); /* n_arrays */
    str(f, "align", 5); u8(f, 0); w->align = u8(f, p->align);
    str(f, "list", 4); w->kind1 = u8(f, p->kind1);
    u8(f, 1); u8(f, 2);                /* a list of 2 lists */
    u8(f, 0); u8(f, 1); u8(f, 7);      /*   [7] */
    u8(f, 0); u8(f, 0);                /*   [] */
    w->key2 = str(f, p->key2, strlen(p->key2)); u8(f, 0); u8(f, 9);
    str(f, "deep", 4); u8(f, 1); w->deep = f->n; nested(f, p->depth);
    str(f, "ver", 3); u8(f, 2); w->u16v = uint_n(f, p->u16v, 2);
    str(f, "scale", 5); u8(f, 3); w->f32v = u32(f, p->f32bits);
    /* arr[0]: "w", f32, dims {3, 2} fastest first: a 2 x 3 matrix at 0 */
    str(f, "w", 1); u8(f, 2); u32(f, 3); u32(f, 2); u8(f, 0); u32(f, 0);
    /* arr[1]: "qb", B4 (4 elements in 3 bytes), 8 elements: 6 bytes at 32 */
    w->name1 = str(f, p->name1, p->name1_len); u8(f, 1); u32(f, 8); u8(f, 2);
    w->offset1 = u32(f, p->offset1);
    zeros_to(f, (f->n + 15) / 16 * 16);
    w->data = f->n;
    for (i = 0; i < 6; i++) u32(f, 0x3f800000u + i); /* 1.0f, ... */
    w->pad = f->n;
    zeros_to(f, w->data + 32);
    for (i = 0; i < 6; i++) u8(f, 0xa0 + i);
    zeros_to(f, w->data + 48);
    if (p->pad_byte) f->b[w->pad + 3] = (uint8_t)p->pad_byte;
    if (p->short_tail) f->n -= 4;
    return f->n;
}

static int run_kv(const file *f, afmt_mode mode, uint64_t max_depth, got *g, afmt_error *err, int want_kv)
{
    afmt_options opt;
    afmt_visitor vis;
    afmt_options_default(&opt);
    opt.mode = mode;
    if (max_depth) opt.limits.max_depth = max_depth;
    memset(g, 0, sizeof *g);
    memset(&vis, 0, sizeof vis);
    vis.ctx = g;
    vis.on_array = keep;
    vis.on_warning = warned;
    if (want_kv) vis.on_kv = keep_kv;
    g->want_kv = want_kv;
    return afmt_dirfmt_validate(f->b, f->n, &opt, &vis, err);
}

static int run(const file *f, afmt_mode mode, uint64_t max_depth, got *g, afmt_error *err)
{
    return run_kv(f, mode, max_depth, g, err, 0);
}

static void show(const char *what, const afmt_error *e)
{
    printf("# %s: %s field=%s offset=%llu: %s\n", what, afmt_code_name(e->code), e->field,
           (unsigned long long)e->offset, e->message);
}

static void check_valid(void)
{
    plan p = valid_plan();
    file f;
    where w;
    got g;
    afmt_error err;
    build(&f, &p, &w);
    CHECKO("registered", afmt_format_by_name("dirfmt") == &afmt_dirfmt_format);
    CHECKO("valid file", run(&f, AFMT_STRICT, 0, &g, &err) == 0 && g.n == 2 && g.warnings == 0);
    if (g.n != 2) { show("valid", &err); return; }
    CHECKO("view 0 listed first, named", strcmp(g.a[0].name, "w") == 0 && g.a[0].index == 0);
    CHECKO("view 0 shape reversed (fastest-first)",
          g.a[0].dtype == AFMT_F32 && g.a[0].rank == 2 && g.a[0].dims[0] == 2 && g.a[0].dims[1] == 3 &&
              g.a[0].count == 6 && g.a[0].order == AFMT_ROW_MAJOR);
    CHECKO("view 0 in the file's byte order, its first element 1.0",
          g.a[0].endian == (big ? AFMT_BIG : AFMT_LITTLE) && f.b[w.data + (big ? 0 : 3)] == 0x3f &&
              f.b[w.data + (big ? 1 : 2)] == 0x80);
    CHECKO("view 0 at the data area (var set inside a repeat: aligned to 16)",
          g.a[0].offset == w.data && w.data % 16 == 0 && g.a[0].nbytes == 24 && g.a[0].data == f.b + w.data);
    CHECKO("view 1 named, a block type", strcmp(g.a[1].name, "qb") == 0 && g.a[1].index == 1 &&
                                                    g.a[1].dtype == AFMT_OPAQUE && g.a[1].block == 4 &&
                                                    g.a[1].elsize == 3 && strcmp(g.a[1].opaque_name, "B4") == 0);
    CHECKO("view 1 keeps its logical shape, its blocks' bytes",
          g.a[1].rank == 1 && g.a[1].dims[0] == 8 && g.a[1].count == 8 && g.a[1].nbytes == 6 &&
              g.a[1].offset == w.data + 32);
}


/* One file refused: its code, field and offset (and the message's words). */
typedef struct refusal {
    const char *name;
    plan p;
    uint64_t max_depth;
    afmt_code code;
    const char *field;
    int at;            /* 1: where.key2, 2: where.name1, 3: where.offset1, 4: where.align,
                        * 5: pad + 3, 6: end, 7: the fifth list deep, 8: the mark, 9: where.u16v,
                        * 10: where.f32v; -1: not checked */
    const char *words; /* in the message */
} refusal;

static uint64_t at_of(const where *w, const file *f, int at)
{
    switch (at) {
    case 1: return w->key2;
    case 2: return w->name1;
    case 3: return w->offset1;
    case 4: return w->align;
    case 7: return w->deep + 8;
    case 5: return w->pad + 3;
    case 8: return 4;
    case 9: return w->u16v;
    case 10: return w->f32v;
    case 11: return w->data + 38; /* where qb's padding starts: a padding cut short is blamed there */
    default: return f->n;
    }
}

static void check_refusals(void)
{
    plan v = valid_plan();
    refusal r[12];
    size_t i, n = 0;
    for (i = 0; i < sizeof r / sizeof r[0]; i++) r[i].p = v, r[i].max_depth = 0;
    r[n].name = "duplicate key", r[n].p.key2 = "list", r[n].code = AFMT_E_CONSTRAINT, r[n].field = "meta[2].key",
    r[n].at = 1, r[n].words = "duplicate key \"list\": meta[1].key", n++;
    r[n].name = "duplicate name as a C string", r[n].p.name1 = "w\0z", r[n].p.name1_len = 3,
    r[n].code = AFMT_E_CONSTRAINT, r[n].field = "arr[1].name", r[n].at = 2, r[n].words = "duplicate key", n++;
    r[n].name = "align not a power of two", r[n].p.align = 12, r[n].code = AFMT_E_CONSTRAINT,
    r[n].field = "meta[0].value", r[n].at = 4, r[n].words = "power of two", n++;
    /* the switch is on the structure's parameter: blamed where the structure starts */
    r[n].name = "bad value kind", r[n].p.kind1 = 5, r[n].code = AFMT_E_CONSTRAINT, r[n].field = "meta[1].kind", r[n].at = -1,
    r[n].words = "0 (byte), 1 (list), 2 (u16) or 3 (f32)", n++;
    r[n].name = "nesting beyond max_depth", r[n].p.depth = 6, r[n].max_depth = 4, r[n].code = AFMT_E_LIMIT,
    r[n].field = "meta[3].items[0].items[0].items[0].items[0].item", r[n].at = 7, r[n].words = "more than 4 deep", n++;
    r[n].name = "array not where the previous ended", r[n].p.offset1 = 48, r[n].code = AFMT_E_CONSTRAINT,
    r[n].field = "arr[1].offset", r[n].at = 3, r[n].words = "bytes [32, 48) of the data belong to no entry", n++;
    r[n].name = "non-zero padding", r[n].p.pad_byte = 0x55, r[n].code = AFMT_E_PADDING, r[n].field = "w.padding",
    r[n].at = 5, r[n].words = "0x55", n++;
    r[n].name = "last array's padding cut", r[n].p.short_tail = 1, r[n].code = AFMT_E_TRUNCATED, r[n].field = "qb.padding",
    r[n].at = 11, r[n].words = "needs 10 bytes of padding, only 6 left", n++;
    r[n].name = "no byte order mark", r[n].p.bom = 0x4d49, r[n].code = AFMT_E_CONSTRAINT, r[n].field = "bom",
    r[n].at = 8, r[n].words = "not one of 18761, 19789", n++;
    /* a structure's u16 and f32, read in the file's order, checked */
    r[n].name = "u16 value 0 in a structure", r[n].p.u16v = 0, r[n].code = AFMT_E_CONSTRAINT, r[n].field = "meta[4].value",
    r[n].at = 9, r[n].words = "a u16 value is not 0", n++;
    r[n].name = "f32 value inf in a structure", r[n].p.f32bits = 0x7f800000u, r[n].code = AFMT_E_CONSTRAINT,
    r[n].field = "meta[5].value", r[n].at = 10, r[n].words = "(value = inf)", n++;
    for (i = 0; i < n; i++) {
        file f;
        where w;
        got g;
        afmt_error err;
        char name[128];
        int rc, failed = check_failures;
        build(&f, &r[i].p, &w);
        rc = run(&f, AFMT_STRICT, r[i].max_depth, &g, &err);
        snprintf(name, sizeof name, "%s refused", r[i].name);
        CHECKO(name, rc != 0 && err.code == r[i].code && strstr(err.message, r[i].words) != NULL);
        if (*r[i].field) {
            snprintf(name, sizeof name, "%s: field %s", r[i].name, r[i].field);
            CHECKO(name, strcmp(err.field, r[i].field) == 0);
        }
        if (r[i].at >= 0) {
            snprintf(name, sizeof name, "%s: offset", r[i].name);
            CHECKO(name, err.offset == at_of(&w, &f, r[i].at));
        }
        if (check_failures != failed) show(r[i].name, &err);
    }
}

/* What strict mode refuses and the spec marks "lenient": "warn" passes in
 * lenient mode with one warning, the views unchanged; nesting within the
 * limit passes. */
static void check_lenient(void)
{
    plan p = valid_plan();
    file f;
    where w;
    got g;
    afmt_error err;
    p.pad_byte = 0x55;
    build(&f, &p, &w);
    CHECKO("lenient: non-zero padding warns",
          run(&f, AFMT_LENIENT, 0, &g, &err) == 0 && g.n == 2 && g.warnings == 1 && g.warning.code == AFMT_E_PADDING &&
              strcmp(g.warning.field, "w.padding") == 0 && g.warning.offset == w.pad + 3);
    CHECKO("lenient: views unchanged", g.n == 2 && g.a[1].offset == w.data + 32 && g.a[1].block == 4);
    p = valid_plan();
    p.short_tail = 1;
    build(&f, &p, &w);
    CHECKO("lenient: missing last padding warns",
          run(&f, AFMT_LENIENT, 0, &g, &err) == 0 && g.n == 2 && g.warnings == 1 &&
              strcmp(g.warning.field, "qb.padding") == 0);
    p = valid_plan();
    p.depth = 6;
    build(&f, &p, &w);
    CHECKO("lists 6 deep pass the default max_depth", run(&f, AFMT_STRICT, 0, &g, &err) == 0 && g.n == 2);
    CHECKO("lists 6 deep (7 structures) pass max_depth 7", run(&f, AFMT_STRICT, 7, &g, &err) == 0 && g.n == 2);
    CHECKO("and not max_depth 6", run(&f, AFMT_STRICT, 6, &g, &err) != 0 && err.code == AFMT_E_LIMIT);
}

/* Write arrays[0..n) into out (of cap bytes): 0 or -1 with err. */
static int write_to(const afmt_array *arrays, size_t n, uint8_t *out, size_t cap, uint64_t *len, afmt_error *err)
{
    afmt_sink sink;
    if (afmt_dirfmt_encoded_size(arrays, n, NULL, len, err) != 0) return -1;
    if (*len > cap) return -1;
    afmt_sink_buffer(&sink, out, cap);
    if (afmt_dirfmt_write(arrays, n, NULL, &sink, err) != 0) return -1;
    return sink.written == *len ? 0 : -1;
}

/* The writer: the views of the valid file written again (a plain array
 * and a block type) make a file that validates strict with the same
 * views; writing that file's views gives the same bytes; names, types,
 * ranks and blocks the spec rejects are refused. */
static void check_write(void)
{
    plan p = valid_plan();
    file f, w1, w2;
    where wh;
    got g, g1;
    afmt_error err;
    afmt_array two[2];
    uint64_t n1 = 0, n2 = 0;
    static const struct {
        const char *what, *name0, *name1;
        afmt_dtype dt1;
        uint32_t rank1;
        uint64_t dim1;
        afmt_code code;
        const char *words;
    } bad[] = {
        {"duplicate names", "w", "w", AFMT_F32, 1, 4, AFMT_E_CONSTRAINT, "duplicate name \"w\": array 0 has it too"},
        {"two unnamed arrays (no default_name)", "", "", AFMT_F32, 1, 4, AFMT_E_CONSTRAINT, "duplicate name"},
        {"a type the table lacks", "w", "x", AFMT_I8, 1, 4, AFMT_E_TYPE, "dirfmt cannot hold elements of type i8"},
        {"rank 4 (range [1, 3])", "w", "x", AFMT_F32, 4, 1, AFMT_E_CONSTRAINT, "rank"},
    };
    size_t i;
    static uint8_t zeros[64];
    build(&f, &p, &wh);
    if (run(&f, AFMT_STRICT, 0, &g, &err) != 0 || g.n != 2) return;
    CHECK("dirfmt: writer: the views of a valid file are written",
          write_to(g.a, 2, w1.b, sizeof w1.b, &n1, &err) == 0);
    w1.n = (size_t)n1;
    CHECK("dirfmt: writer: its file validates strict, no warning", run(&w1, AFMT_STRICT, 0, &g1, &err) == 0 && g1.n == 2 &&
                                                                    g1.warnings == 0);
    if (g1.n != 2) { show("written", &err); return; }
    for (i = 0; i < 2; i++) {
        char name[96];
        snprintf(name, sizeof name, "dirfmt: writer: view %zu keeps its name, type, shape, block and bytes", i);
        CHECK(name, strcmp(g1.a[i].name, g.a[i].name) == 0 && g1.a[i].dtype == g.a[i].dtype && g1.a[i].rank == g.a[i].rank &&
                        memcmp(g1.a[i].dims, g.a[i].dims, sizeof g.a[i].dims[0] * g.a[i].rank) == 0 &&
                        g1.a[i].block == g.a[i].block && strcmp(g1.a[i].opaque_name, g.a[i].opaque_name) == 0 &&
                        g1.a[i].nbytes == g.a[i].nbytes && memcmp(g1.a[i].data, g.a[i].data, g.a[i].nbytes) == 0);
    }
    CHECK("dirfmt: writer: tensors at multiples of the default alignment 8, in order, padded",
          g1.a[0].offset % 8 == 0 && g1.a[1].offset == g1.a[0].offset + 24 && n1 == g1.a[1].offset + 8);
    CHECK("dirfmt: writer: a fixed point (its views written again: the same bytes)",
          write_to(g1.a, 2, w2.b, sizeof w2.b, &n2, &err) == 0 && n2 == n1 && memcmp(w1.b, w2.b, (size_t)n1) == 0);
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char name[160];
        int rc;
        afmt_array_init(&two[0], AFMT_F32);
        two[0].rank = 1;
        two[0].dims[0] = 2;
        two[0].count = 2;
        two[0].nbytes = 8;
        two[0].data = zeros;
        snprintf(two[0].name, sizeof two[0].name, "%s", bad[i].name0);
        afmt_array_init(&two[1], bad[i].dt1);
        two[1].rank = bad[i].rank1;
        for (uint32_t k = 0; k < bad[i].rank1; k++) two[1].dims[k] = k == 0 ? bad[i].dim1 : 1;
        two[1].count = bad[i].dim1;
        two[1].nbytes = bad[i].dim1 * afmt_dtype_get(bad[i].dt1)->size;
        two[1].data = zeros;
        snprintf(two[1].name, sizeof two[1].name, "%s", bad[i].name1);
        rc = write_to(two, 2, w1.b, sizeof w1.b, &n1, &err);
        snprintf(name, sizeof name, "dirfmt: writer refuses %s: %s", bad[i].what, bad[i].words);
        CHECK(name, rc != 0 && err.code == bad[i].code && strstr(err.message, bad[i].words) != NULL);
        if (rc == 0 || err.code != bad[i].code) show(bad[i].what, &err);
    }
    {
        /* the key-values too (typed metadata, nested lists): the valid file again, byte for byte */
        got gk;
        afmt_kv kvs[8];
        afmt_write_options wo;
        afmt_sink sink;
        int k;
        memset(&wo, 0, sizeof wo);
        CHECK("dirfmt: on_kv: the valid file's 6 key-values", run_kv(&f, AFMT_STRICT, 0, &gk, &err, 1) == 0 && gk.nkv == 6);
        if (gk.nkv != 6) show("on_kv", &err);
        for (k = 0; k < gk.nkv; k++) kvs[k] = *gk.kv[k];
        CHECK("dirfmt: on_kv: align a u8 of 16, list and deep lists, ver a u16, scale an f32",
              gk.nkv == 6 && kvs[0].key_len == 5 && kvs[0].value.kind == AFMT_VALUE_UINT && kvs[0].value.width == 1 &&
                  kvs[0].value.u == 16 && kvs[3].value.kind == AFMT_VALUE_LIST && kvs[1].value.count == 2 &&
                  kvs[1].value.items[1].count == 0 && kvs[4].value.kind == AFMT_VALUE_UINT && kvs[4].value.width == 2 &&
                  kvs[4].value.u == p.u16v && kvs[5].value.kind == AFMT_VALUE_FLOAT && kvs[5].value.width == 4);
        {
            /* the same key-values from a big-endian (MM) file: the order chosen at run time */
            file fm;
            where wm;
            got gm;
            int j, same = 1;
            big = 1;
            build(&fm, &p, &wm);
            big = 0;
            CHECK("dirfmt: on_kv: an MM file's key-values are the II file's",
                  run_kv(&fm, AFMT_STRICT, 0, &gm, &err, 1) == 0 && gm.nkv == gk.nkv);
            for (j = 0; j < gm.nkv && j < gk.nkv; j++) {
                same &= gm.kv[j]->value.kind == kvs[j].value.kind && gm.kv[j]->value.u == kvs[j].value.u &&
                        gm.kv[j]->value.count == kvs[j].value.count &&
                        memcmp(&gm.kv[j]->value.f, &kvs[j].value.f, sizeof kvs[j].value.f) == 0;
                free(gm.kv[j]);
            }
            CHECK("dirfmt: on_kv: MM values (u8, u16, f32, list counts) equal II's", same && gm.nkv == 6);
        }
        wo.kv = kvs;
        wo.n_kv = (size_t)gk.nkv;
        afmt_sink_buffer(&sink, w2.b, sizeof w2.b);
        CHECK("dirfmt: writer: the valid file's arrays and key-values written again are its bytes",
              afmt_dirfmt_write(gk.a, 2, &wo, &sink, &err) == 0 && sink.written == f.n && memcmp(w2.b, f.b, f.n) == 0);
        {
            /* a value its case's check refuses (the spec's `value != 0`,
             * `finite(value)`) is refused by the writer too, not written
             * for the validator to refuse */
            afmt_kv one = kvs[4];
            wo.kv = &one;
            wo.n_kv = 1;
            one.value.u = 0;
            afmt_sink_buffer(&sink, w2.b, sizeof w2.b);
            CHECK("dirfmt: writer refuses a u16 metadata value of 0: a u16 value is not 0",
                  afmt_dirfmt_write(gk.a, 2, &wo, &sink, &err) != 0 && err.code == AFMT_E_CONSTRAINT &&
                      strstr(err.message, "a u16 value is not 0") != NULL);
            one = kvs[5];
            one.value.f = HUGE_VAL;
            afmt_sink_buffer(&sink, w2.b, sizeof w2.b);
            CHECK("dirfmt: writer refuses an f32 metadata value of inf: an f32 value is finite",
                  afmt_dirfmt_write(gk.a, 2, &wo, &sink, &err) != 0 && err.code == AFMT_E_CONSTRAINT &&
                      strstr(err.message, "an f32 value is finite") != NULL);
        }
        for (k = 0; k < gk.nkv; k++) free(gk.kv[k]);
    }
    /* a block type whose fastest dim is not a multiple of its block */
    two[0] = g.a[1];
    two[0].dims[0] = 6;
    two[0].count = 6;
    CHECK("dirfmt: writer refuses a block array whose last dim is not a multiple of the block",
          write_to(two, 1, w1.b, sizeof w1.b, &n1, &err) != 0 && err.code == AFMT_E_CONSTRAINT &&
              strstr(err.message, "not a multiple of 4, the block of B4") != NULL);
}

/* A file in the other order (MM) read and written again: its views made
 * plain (little-endian, as a writer takes them), the writer writes its
 * spec's order (II), the same bytes as from the II file. */
static void check_write_mm(void)
{
    plan p = valid_plan();
    file f, w1, w2;
    where wh;
    got g;
    afmt_error err;
    uint64_t n1 = 0, n2 = 0, size;
    static uint8_t plain[2][64];
    int k, ok;
    big = 1;
    build(&f, &p, &wh);
    ok = run(&f, AFMT_STRICT, 0, &g, &err) == 0 && g.n == 2 && g.a[0].endian == AFMT_BIG;
    for (k = 0; ok && k < 2; k++) {
        /* (a block type's bytes are copied as they are: they have no order) */
        if (!g.a[k].block)
            ok = afmt_array_plain_size(&g.a[k], &size, &err) == 0 && size <= sizeof plain[k] &&
                 afmt_array_to_plain(&g.a[k], AFMT_ROW_MAJOR, plain[k], size, &err) == 0;
        if (!g.a[k].block) g.a[k].data = plain[k];
        g.a[k].endian = AFMT_LITTLE;
    }
    CHECKO("writer: the MM file's views, made plain, are written",
           ok && write_to(g.a, 2, w1.b, sizeof w1.b, &n1, &err) == 0);
    if (!ok) show("MM views", &err);
    big = 0;
    build(&f, &p, &wh);
    CHECKO("writer: as II, the same bytes as the II file's views written",
           run(&f, AFMT_STRICT, 0, &g, &err) == 0 && g.n == 2 && write_to(g.a, 2, w2.b, sizeof w2.b, &n2, &err) == 0 &&
               n1 == n2 && memcmp(w1.b, w2.b, (size_t)n1) == 0 && w1.b[4] == 'I' && w1.b[5] == 'I');
}

/* The valid file and a few refused ones, in both orders, into folder dir
 * (file names say which): inputs for the interpreter agreement test. */
static int write_samples(const char *dir)
{
    static const struct { const char *name; int change; } S[] = {
        {"valid", 0}, {"bad_mark", 1}, {"u16_zero", 2}, {"f32_nan", 3}, {"offset_gap", 4}, {"padding", 5}};
    size_t i;
    for (big = 0; big < 2; big++)
        for (i = 0; i < sizeof S / sizeof S[0]; i++) {
            plan p = valid_plan();
            file f;
            where w;
            char path[512];
            FILE *out;
            if (S[i].change == 1) p.bom = 0x4d49;
            if (S[i].change == 2) p.u16v = 0;
            if (S[i].change == 3) p.f32bits = 0x7fc00001u;
            if (S[i].change == 4) p.offset1 = 48;
            if (S[i].change == 5) p.pad_byte = 0x55;
            build(&f, &p, &w);
            snprintf(path, sizeof path, "%s/%s_%s.dirf", dir, big ? "mm" : "ii", S[i].name);
            out = fopen(path, "wb");
            if (!out || fwrite(f.b, 1, f.n, out) != f.n || fclose(out) != 0) {
                perror(path);
                return 1;
            }
        }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1) return write_samples(argv[1]);
    for (big = 0; big < 2; big++) {
        check_valid();
        if (!big) check_write(); /* its views compared byte for byte: II's */
        check_refusals();
        check_lenient();
    }
    check_write_mm();
    CHECK_DONE();
}
