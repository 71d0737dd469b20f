/* The spec fuzzer's driver: compiled with one generated format (afmt-gen's
 * <format>.c and the registry afmt_formats.c holding only it), it checks
 * that format's writer against its own validator and prints the
 * validator's verdict on inputs, one line each, for comparison.
 *
 *   driver write DIR      write every array the format accepts from a fixed
 *                         set of candidates (each dtype, ranks 0..3, empty
 *                         dims, names, several arrays, CSR, compressed),
 *                         into DIR/w<k>.bin; each must have the size
 *                         encoded_size said, validate strictly and read
 *                         back as the arrays written
 *   driver validate FILE...   one verdict line per file and mode
 *   driver agree SPEC FILE... (built with -DSPECFUZZ_INTERP, linked with
 *                         interp/): the generated validator and the
 *                         reference interpreter of SPEC report the same
 *                         on each file (afmt_agree: verdict, error, field
 *                         reports, views, warnings), strict and lenient,
 *                         with and without a visitor
 *
 * Exit 0 when every check held, 1 when one did not (a "FAIL" line says
 * which), 2 on usage or I/O errors.  Under ASan/UBSan a crash is a
 * finding too.  fuzz/specs/specfuzz.py drives it (docs/FUZZING.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "afmt.h"
#ifdef SPECFUZZ_INTERP
#include "afmt_agree.h"
#endif

#define MAX_ARRAYS 3
#define MAX_VIEWS 64
#define BUF_CAP (1u << 20)

typedef struct seen {
    afmt_array a[MAX_VIEWS];
    int n;
    const afmt_kv *want_kv; /* the key-values written, in order (or NULL) */
    size_t n_kv, kv_differ; /* key-values read; 1 + the index of the first that differs */
} seen;

static int keep(void *ctx, const afmt_array *a)
{
    seen *s = ctx;
    if (s->n < MAX_VIEWS) s->a[s->n] = *a;
    s->n++;
    return 0;
}

static int same_value(const afmt_value *a, const afmt_value *b)
{
    uint64_t i;
    if (a->kind != b->kind) return 0;
    switch (a->kind) {
    case AFMT_VALUE_UINT: case AFMT_VALUE_BOOL: return a->width == b->width && a->u == b->u;
    case AFMT_VALUE_INT: return a->width == b->width && a->i == b->i;
    case AFMT_VALUE_FLOAT: return a->width == b->width && a->f == b->f;
    case AFMT_VALUE_STRING: return a->len == b->len && (a->len == 0 || memcmp(a->str, b->str, (size_t)a->len) == 0);
    case AFMT_VALUE_LIST:
        if (a->count != b->count || a->item_kind != b->item_kind) return 0;
        for (i = 0; i < a->count; i++)
            if (!same_value(&a->items[i], &b->items[i])) return 0;
        return 1;
    }
    return 0;
}

/* Each key-value read must be the one written at its index. */
static int keep_kv(void *ctx, const afmt_kv *kv, uint64_t offset)
{
    seen *s = ctx;
    const afmt_kv *w = s->want_kv && s->n_kv < SIZE_MAX ? &s->want_kv[s->n_kv] : NULL;
    (void)offset;
    if (w && !s->kv_differ &&
        (w->key_len != kv->key_len || memcmp(w->key, kv->key, (size_t)kv->key_len) != 0 || !same_value(&w->value, &kv->value)))
        s->kv_differ = s->n_kv + 1;
    s->n_kv++;
    return 0;
}

static const afmt_format *the_format(void)
{
    size_t i;
    for (i = 0; i < afmt_format_count; i++)
        if (afmt_formats[i]) return afmt_formats[i];
    return NULL;
}

/* One verdict: "ok" and the arrays (type name, block, rank, dims, order,
 * encoding, offset, name), or the error's code, field, offset and message. */
static void print_verdict(FILE *out, const char *what, int rc, const afmt_error *err, const seen *s)
{
    int i;
    uint32_t d;
    if (rc != 0) {
        fprintf(out, "%s err %s field=%s offset=%llu: %s\n", what, afmt_code_name(err->code), err->field,
                (unsigned long long)err->offset, err->message);
        return;
    }
    fprintf(out, "%s ok arrays=%d", what, s->n);
    for (i = 0; i < s->n && i < MAX_VIEWS; i++) {
        const afmt_array *a = &s->a[i];
        fprintf(out, " [%s", afmt_array_type_name(a));
        if (a->block) fprintf(out, " block=%llu", (unsigned long long)a->block);
        if (afmt_array_has_transform(a)) fprintf(out, " logical=%s", afmt_dtype_name(afmt_array_value_dtype(a)));
        if (a->csc) fprintf(out, " csc");
        for (d = 0; d < a->rank && d < AFMT_RANK_CAP; d++) fprintf(out, "%s%llu", d ? "x" : " ", (unsigned long long)a->dims[d]);
        fprintf(out, " order=%d enc=%d off=%llu nbytes=%llu name=%s]", (int)a->order, (int)a->encoding,
                (unsigned long long)a->offset, (unsigned long long)a->nbytes, a->name);
    }
    fputc('\n', out);
}

static int validate_mode(const afmt_format *f, const uint8_t *buf, uint64_t len, afmt_mode mode, seen *s,
                         afmt_error *err)
{
    afmt_options opt;
    afmt_visitor vis;
    afmt_options_default(&opt);
    opt.mode = mode;
    memset(&vis, 0, sizeof vis);
    {
        const afmt_kv *want = s->want_kv;
        memset(s, 0, sizeof *s);
        s->want_kv = want;
    }
    vis.ctx = s;
    vis.on_array = keep;
    vis.on_kv = keep_kv;
    memset(err, 0, sizeof *err);
    return f->validate(buf, len, &opt, &vis, err);
}

static uint8_t *read_file(const char *path, uint64_t *len)
{
    FILE *fp = fopen(path, "rb");
    uint8_t *buf;
    long n;
    if (!fp) return NULL;
    if (fseek(fp, 0, SEEK_END) != 0 || (n = ftell(fp)) < 0 || fseek(fp, 0, SEEK_SET) != 0) { fclose(fp); return NULL; }
    buf = malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, fp) != (size_t)n) { free(buf); buf = NULL; }
    fclose(fp);
    *len = (uint64_t)n;
    return buf;
}

static int cmd_validate(const afmt_format *f, int argc, char **argv)
{
    int i, rc = 0;
    static seen s;
    for (i = 0; i < argc; i++) {
        uint64_t len = 0;
        uint8_t *buf = read_file(argv[i], &len);
        afmt_error err;
        char what[64];
        if (!buf) { fprintf(stderr, "driver: cannot read %s\n", argv[i]); rc = 2; continue; }
        snprintf(what, sizeof what, "%d strict", i);
        print_verdict(stdout, what, validate_mode(f, buf, len, AFMT_STRICT, &s, &err), &err, &s);
        snprintf(what, sizeof what, "%d lenient", i);
        print_verdict(stdout, what, validate_mode(f, buf, len, AFMT_LENIENT, &s, &err), &err, &s);
        free(buf);
    }
    return rc;
}

/* ---- write: candidates */

static const afmt_dtype DTYPES[] = {AFMT_BOOL, AFMT_I8, AFMT_U8, AFMT_I16, AFMT_U16, AFMT_I32, AFMT_U32,
                                    AFMT_I64, AFMT_U64, AFMT_F16, AFMT_BF16, AFMT_F32, AFMT_F64,
                                    AFMT_C32, AFMT_C64, AFMT_C128};
#define NDTYPES (sizeof DTYPES / sizeof DTYPES[0])
static const uint64_t SHAPES[][4] = {{0, 0, 0, 0}, {1, 3, 0, 0}, {2, 2, 3, 0}, {1, 0, 0, 0}, {3, 2, 1, 2}, {2, 0, 4, 0}};
#define NSHAPES (sizeof SHAPES / sizeof SHAPES[0])

static uint8_t payload[MAX_ARRAYS][4096];

static void make_array(afmt_array *a, afmt_dtype dt, const uint64_t *shape, afmt_order order, int k,
                       const char *name)
{
    uint64_t i, count = 1;
    afmt_array_init(a, dt);
    a->rank = (uint32_t)shape[0];
    for (i = 0; i < a->rank; i++) { a->dims[i] = shape[1 + i]; count *= shape[1 + i]; }
    a->count = count;
    a->order = a->rank > 1 ? order : AFMT_ROW_MAJOR;
    for (i = 0; i < sizeof payload[k]; i++)
        payload[k][i] = dt == AFMT_BOOL ? (uint8_t)((i + (uint64_t)k) & 1) : (uint8_t)(i * 7 + 1 + (uint64_t)k);
    a->data = payload[k];
    a->nbytes = count * a->elsize;
    if (name) snprintf(a->name, sizeof a->name, "%s", name);
}

/* A 2x3 CSR view: rows {0: col 1}, {1: cols 0, 2}. */
static void make_csr(afmt_array *a, afmt_dtype dt, unsigned index_size)
{
    static const uint64_t offs64[3] = {0, 1, 3}, cols64[3] = {1, 0, 2};
    static const uint32_t offs32[3] = {0, 1, 3}, cols32[3] = {1, 0, 2};
    static const uint64_t shape[4] = {2, 2, 3, 0};
    make_array(a, dt, shape, AFMT_ROW_MAJOR, 0, NULL);
    a->encoding = AFMT_ENC_CSR;
    a->nnz = 3;
    a->nbytes = 3 * a->elsize;
    a->csr_index_size = index_size;
    a->csr_row_offsets = index_size == 8 ? (const uint8_t *)offs64 : (const uint8_t *)offs32;
    a->csr_col_indices = index_size == 8 ? (const uint8_t *)cols64 : (const uint8_t *)cols32;
}

static int same_values(const afmt_array *w, const afmt_array *r)
{
    static uint8_t a[8192], b[8192];
    afmt_error err;
    uint64_t n = w->count * w->elsize;
    uint32_t d;
    if (r->dtype != w->dtype || r->rank != w->rank || r->count != w->count) return 0;
    for (d = 0; d < w->rank; d++)
        if (r->dims[d] != w->dims[d]) return 0;
    if (n > sizeof a) return 1;
    if (afmt_array_to_plain(w, AFMT_ROW_MAJOR, a, sizeof a, &err) != 0) return 1; /* not comparable */
    if (afmt_array_to_plain(r, AFMT_ROW_MAJOR, b, sizeof b, &err) != 0) return 0;
    return memcmp(a, b, (size_t)n) == 0;
}

/* Write arrays[0..n) (with wopt); if the writer takes them, the file must
 * be as long as encoded_size said, validate strictly and read back as
 * written.  Returns 1 on a failed check, else 0; *written counts files. */
static int try_write(const afmt_format *f, const afmt_array *arrays, size_t n, const afmt_write_options *wopt,
                     const char *desc, const char *dir, int *written)
{
    static uint8_t buf[BUF_CAP];
    static seen s;
    afmt_sink sink;
    afmt_error err;
    uint64_t size = 0;
    size_t i;
    char path[4096];
    FILE *fp;
    if (n == 1 && f->can_write(&arrays[0], &err) != 0) return 0;
    if (f->encoded_size(arrays, n, wopt, &size, &err) != 0) return 0;
    afmt_sink_buffer(&sink, buf, sizeof buf);
    s.want_kv = wopt ? wopt->kv : NULL;
    if (f->write(arrays, n, wopt, &sink, &err) != 0) {
        if (size <= sizeof buf) {
            printf("FAIL %s: encoded_size said %llu, then write refused: %s\n", desc, (unsigned long long)size, err.message);
            return 1;
        }
        return 0;
    }
    if (sink.written != size) {
        printf("FAIL %s: wrote %llu bytes, encoded_size said %llu\n", desc, (unsigned long long)sink.written,
               (unsigned long long)size);
        return 1;
    }
    snprintf(path, sizeof path, "%s/w%d.bin", dir, *written);
    (*written)++;
    fp = fopen(path, "wb");
    if (!fp || fwrite(buf, 1, (size_t)size, fp) != (size_t)size || fclose(fp) != 0) {
        fprintf(stderr, "driver: cannot write %s\n", path);
        exit(2);
    }
    if (validate_mode(f, buf, size, AFMT_STRICT, &s, &err) != 0) {
        char msg[512];
        afmt_error_describe(&err, msg, sizeof msg);
        printf("FAIL %s: the writer's file (%s) fails its own validator: %s\n", desc, path, msg);
        return 1;
    }
    if (s.n < (int)n) {
        printf("FAIL %s: wrote %zu arrays, the validator saw %d (%s)\n", desc, n, s.n, path);
        return 1;
    }
    if (wopt && wopt->n_kv && (s.n_kv != wopt->n_kv || s.kv_differ)) {
        printf("FAIL %s: wrote %zu key-values, the validator read %zu%s (%s)\n", desc, wopt->n_kv, s.n_kv,
               s.kv_differ ? ", not all as written" : "", path);
        return 1;
    }
    /* each array written is one read (a writer may order them: write_sort) */
    {
        int taken[MAX_ARRAYS] = {0};
        for (i = 0; i < n && s.n == (int)n; i++) {
            size_t j;
            if (arrays[i].encoding == AFMT_ENC_CSR) continue;
            for (j = 0; j < n; j++)
                if (!taken[j] && same_values(&arrays[i], &s.a[j])) break;
            if (j == n) {
                printf("FAIL %s: array %zu reads back differently (%s)\n", desc, i, path);
                return 1;
            }
            taken[j] = 1;
        }
    }
    return 0;
}

/* A format with typed metadata (a repeat's "metadata"): each key-value
 * below alone, then all it took together, beside a named array; what it
 * writes must validate and read back (keys, kinds, widths, values).  The
 * kinds and widths a format has no type code for are refused (skipped);
 * "bundle.align" and "general.alignment" are the alignments of
 * tests/specs/mbundle and GGUF (a var the directory aligns to). */
static int write_kvs(const afmt_format *f, const char *dir, int *written)
{
    static const uint8_t one[] = {1, 2}, two[] = {3};
    static afmt_value ints1[2], ints2[1], lists[2];
    static afmt_kv kv[10], taken[10];
    afmt_write_options wopt;
    afmt_array a;
    static const uint64_t shape[4] = {2, 1, 3, 0};
    size_t i, n_taken = 0;
    int fails = 0;
    char desc[128];
    for (i = 0; i < 2; i++) { ints1[i].kind = AFMT_VALUE_UINT; ints1[i].width = 1; ints1[i].u = one[i]; }
    ints2[0].kind = AFMT_VALUE_UINT; ints2[0].width = 1; ints2[0].u = two[0];
    for (i = 0; i < 2; i++) {
        lists[i].kind = AFMT_VALUE_LIST;
        lists[i].items = i ? ints2 : ints1;
        lists[i].count = i ? 1 : 2;
        lists[i].item_kind = AFMT_VALUE_UINT;
        lists[i].item_width = 1;
    }
#define KV(k, K, W) (kv[i].key = (const uint8_t *)(k), kv[i].key_len = strlen(k), kv[i].value.kind = (K), kv[i].value.width = (W))
    i = 0; KV("k.u8", AFMT_VALUE_UINT, 1); kv[i].value.u = 7;
    i = 1; KV("k.i16", AFMT_VALUE_INT, 2); kv[i].value.i = -3;
    i = 2; KV("k.f32", AFMT_VALUE_FLOAT, 4); kv[i].value.f = 0.5;
    i = 3; KV("k.f64", AFMT_VALUE_FLOAT, 8); kv[i].value.f = 1e-5;
    i = 4; KV("k.bool", AFMT_VALUE_BOOL, 1); kv[i].value.u = 1;
    i = 5; KV("k.str", AFMT_VALUE_STRING, 0); kv[i].value.str = (const uint8_t *)"hello"; kv[i].value.len = 5;
    i = 6; KV("k.lists", AFMT_VALUE_LIST, 0); kv[i].value.items = lists; kv[i].value.count = 2;
    kv[i].value.item_kind = AFMT_VALUE_LIST;
    i = 7; KV("bundle.align", AFMT_VALUE_UINT, 4); kv[i].value.u = 64;
    i = 8; KV("general.alignment", AFMT_VALUE_UINT, 4); kv[i].value.u = 64;
    i = 9; KV("k.empty", AFMT_VALUE_LIST, 0); kv[i].value.item_kind = AFMT_VALUE_UINT; kv[i].value.item_width = 1;
#undef KV
    make_array(&a, AFMT_F32, shape, f->order, 0, "x");
    for (i = 0; i < 10; i++) {
        int before = *written;
        memset(&wopt, 0, sizeof wopt);
        wopt.kv = &kv[i];
        wopt.n_kv = 1;
        snprintf(desc, sizeof desc, "write f32[1,3] with key-value %s", (const char *)kv[i].key);
        fails += try_write(f, &a, 1, &wopt, desc, dir, written);
        if (*written > before) taken[n_taken++] = kv[i];
    }
    if (n_taken > 1) {
        memset(&wopt, 0, sizeof wopt);
        wopt.kv = taken;
        wopt.n_kv = n_taken;
        snprintf(desc, sizeof desc, "write f32[1,3] with %zu key-values", n_taken);
        fails += try_write(f, &a, 1, &wopt, desc, dir, written);
    }
    return fails;
}

static int cmd_write(const afmt_format *f, const char *dir)
{
    afmt_array arrays[MAX_ARRAYS];
    afmt_write_options wopt;
    size_t d, sh, n;
    int fails = 0, written = 0;
    char desc[256];
    static const char *names[] = {NULL, "x", "name_of_seven"};
    memset(&wopt, 0, sizeof wopt);
    for (d = 0; d < NDTYPES; d++)
        for (sh = 0; sh < NSHAPES; sh++)
            for (n = 1; n <= (f->multi ? (size_t)MAX_ARRAYS : 1u); n++) {
                size_t k;
                for (k = 0; k < n; k++) make_array(&arrays[k], DTYPES[d], SHAPES[sh], f->order, (int)k, names[k]);
                snprintf(desc, sizeof desc, "write %zu x %s rank %llu shape %zu", n, afmt_dtype_name(DTYPES[d]),
                         (unsigned long long)SHAPES[sh][0], sh);
                fails += try_write(f, arrays, n, NULL, desc, dir, &written);
                if (f->compresses) {
                    wopt.compress = 1;
                    fails += try_write(f, arrays, n, &wopt, desc, dir, &written);
                    wopt.compress = 0;
                }
                wopt.trailer = (const uint8_t *)"TRAILER";
                wopt.trailer_len = 7;
                fails += try_write(f, arrays, n, &wopt, desc, dir, &written);
                memset(&wopt, 0, sizeof wopt);
            }
    for (d = 0; d < NDTYPES; d++) {
        make_csr(&arrays[0], DTYPES[d], 8);
        fails += try_write(f, arrays, 1, NULL, "write csr64", dir, &written);
        make_csr(&arrays[0], DTYPES[d], 4);
        fails += try_write(f, arrays, 1, NULL, "write csr32", dir, &written);
    }
    if (f->kv_metadata) fails += write_kvs(f, dir, &written);
    printf("written %d\n", written);
    return fails ? 1 : 0;
}

#ifdef SPECFUZZ_INTERP
static int cmd_agree(const afmt_format *f, const char *spec, int argc, char **argv)
{
    afmt_interp *in = afmt_interp_load(spec);
    int i, rc = 0;
    if (!in) { fprintf(stderr, "driver: the interpreter refuses %s\n", spec); return 1; }
    for (i = 0; i < argc; i++) {
        uint64_t len = 0;
        uint8_t *buf = read_file(argv[i], &len);
        int mode, how_k;
        if (!buf) { fprintf(stderr, "driver: cannot read %s\n", argv[i]); rc = 2; continue; }
        for (mode = 0; mode < 2; mode++)
            for (how_k = 0; how_k < 3; how_k++) {
                afmt_options opt;
                afmt_agree_how how;
                char why[1024];
                afmt_options_default(&opt);
                opt.mode = mode ? AFMT_LENIENT : AFMT_STRICT;
                how.visit = how_k > 0;
                how.fields = how_k == 1;
                how.stop_at = -1;
                /* 2: a visitor that stops at the 1st, 2nd or 3rd key-value */
                how.stop_kv = how_k == 2 ? 1 + (int)(len % 3) : 0;
                if (afmt_agree(in, f, buf, len, &opt, &how, why, sizeof why) != 0) {
                    printf("DISAGREE %s (%s, %s): %s\n", argv[i], mode ? "lenient" : "strict",
                           how_k == 2 ? "visitor stopping at a key-value" : how_k ? "visitor and fields" : "verdict only",
                           why);
                    rc = 1;
                }
            }
        free(buf);
    }
    afmt_interp_free(in);
    return rc;
}
#endif

int main(int argc, char **argv)
{
    const afmt_format *f = the_format();
    if (!f) { fprintf(stderr, "driver: no format compiled in\n"); return 2; }
    if (argc == 3 && strcmp(argv[1], "write") == 0) return cmd_write(f, argv[2]);
    if (argc >= 2 && strcmp(argv[1], "validate") == 0) return cmd_validate(f, argc - 2, argv + 2);
#ifdef SPECFUZZ_INTERP
    if (argc >= 3 && strcmp(argv[1], "agree") == 0) return cmd_agree(f, argv[2], argc - 3, argv + 3);
#endif
    fprintf(stderr, "usage: driver write DIR | driver validate FILE...\n");
    return 2;
}
