/* Element types through every generated writer: the type code a writer
 * picks is the one its validator reads back as the same type (the
 * writer reads the validator's type table backwards), and a type a format
 * cannot hold is refused naming it, never written under another type's
 * code.  RawArray's two-key table is checked code by code: its bool row
 * (eltype 5, elbyte 1, "write": false) must never be chosen. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "afmt.h"
#include "core/afmt_format.h"
#include "gguf.h"
#include "check.h"

extern const afmt_format *const afmt_formats[];

#define NELEM 6

typedef struct seen {
    int n;
    afmt_order order;       /* the order to decode in: the one written */
    afmt_array a;           /* the first array read back */
    uint8_t plain[NELEM * 16];
    uint64_t plain_size;    /* its bytes decoded; 0: not decodable */
} seen;

static int on_array(void *ctx, const afmt_array *a)
{
    seen *s = ctx;
    afmt_error err;
    uint64_t size;
    if (s->n++ > 0) return 0;
    s->a = *a;
    if (afmt_array_plain_size(a, &size, &err) == 0 && size <= sizeof s->plain &&
        afmt_array_to_plain(a, s->order, s->plain, size, &err) == 0)
        s->plain_size = size;
    return 0;
}

/* A [2, 3] array of dtype (opaque: elsize bytes, named name) in the
 * format's order, over data (NELEM * 16 bytes at most). */
static afmt_array make_array(const afmt_format *f, afmt_dtype dtype, uint64_t elsize, const char *name,
                             uint8_t *data)
{
    afmt_array a;
    uint64_t i;
    afmt_array_init(&a, dtype);
    if (dtype == AFMT_OPAQUE) {
        a.elsize = elsize;
        a.stride = elsize;
        snprintf(a.opaque_name, sizeof a.opaque_name, "%s", name);
    }
    a.rank = 2;
    a.dims[0] = 2;
    a.dims[1] = 3;
    a.count = NELEM;
    a.order = f->order;
    a.nbytes = NELEM * a.elsize;
    for (i = 0; i < a.nbytes; i++) data[i] = dtype == AFMT_BOOL ? (uint8_t)(i & 1) : (uint8_t)(i * 37 + 11);
    a.data = data;
    return a;
}

/* Write a through format f into buf; its length, or 0 with err. */
static uint64_t write_one(const afmt_format *f, const afmt_array *a, uint8_t *buf, uint64_t cap, afmt_error *err)
{
    afmt_sink s;
    afmt_sink_buffer(&s, buf, cap);
    afmt_error_clear(err);
    if (f->write(a, 1, NULL, &s, err) != 0) return 0;
    return s.written;
}

/* Every format, every element type: written and read back as the same
 * type with the same values (decoded: bool may be stored as bits), or
 * refused with AFMT_E_TYPE naming the type. */
static void test_every_type(void)
{
    static uint8_t data[NELEM * 16], out[1 << 16];
    const afmt_format *const *fp;
    int written = 0;
    for (fp = afmt_formats; *fp; fp++) {
        const afmt_format *f = *fp;
        char fname[128];
        int d, nwritten = 0, refused_read_only = 0;
        if (!f->write) continue;
        for (d = AFMT_BOOL; d < AFMT_DTYPE_COUNT_; d++) {
            char name[128];
            afmt_error err;
            afmt_visitor vis;
            seen s;
            afmt_array a = make_array(f, (afmt_dtype)d, 3, "", data);
            uint64_t len = write_one(f, &a, out, sizeof out, &err);
            snprintf(name, sizeof name, "%s writes %s [2,3]", f->name, afmt_array_type_name(&a));
            if (len == 0 && err.code == AFMT_E_UNSUPPORTED && strstr(err.message, " is read-only: ")) {
                /* a read-only format ("read_only" in its spec) refuses every array, saying why */
                refused_read_only++;
                continue;
            }
            if (len == 0) {
                char why[160];
                snprintf(why, sizeof why, "%s cannot hold elements of type %s", f->name, afmt_array_type_name(&a));
                CHECK(name, err.code == AFMT_E_TYPE && strstr(err.message, why) != NULL);
                if (!(err.code == AFMT_E_TYPE && strstr(err.message, why))) printf("  got: %s\n", err.message);
                continue;
            }
            memset(&vis, 0, sizeof vis);
            memset(&s, 0, sizeof s);
            s.order = f->order;
            vis.ctx = &s;
            vis.on_array = on_array;
            afmt_error_clear(&err);
            /* the values' type: FITS stores u16 as i16 + BZERO 32768 */
            CHECK(name, f->validate(out, len, NULL, &vis, &err) == 0 && s.n == 1 && afmt_array_value_dtype(&s.a) == a.dtype &&
                            s.a.elsize == a.elsize && s.a.count == NELEM && s.plain_size == a.nbytes &&
                            memcmp(s.plain, data, a.nbytes) == 0);
            nwritten++;
        }
        if (refused_read_only) {
            snprintf(fname, sizeof fname, "%s is read-only: its writer refuses every element type, saying so", f->name);
            CHECK(fname, refused_read_only == AFMT_DTYPE_COUNT_ - AFMT_BOOL && nwritten == 0);
            continue;
        }
        /* a writer that holds nothing would pass the loop above */
        snprintf(fname, sizeof fname, "%s writes some element types", f->name);
        CHECK(fname, nwritten >= 3);
        written += nwritten;
    }
    CHECK("some formats write", written > 10);
}

/* RawArray's (eltype, elbyte) for each type, from its spec's table. */
static void test_rawarray_codes(void)
{
    static const struct {
        afmt_dtype dtype;
        uint64_t elsize;
        const char *opaque_name;
        uint64_t eltype, elbyte; /* elbyte 0: refused */
    } cases[] = {
        {AFMT_I8, 1, "", 1, 1},    {AFMT_I16, 2, "", 1, 2},   {AFMT_I32, 4, "", 1, 4},
        {AFMT_I64, 8, "", 1, 8},   {AFMT_U8, 1, "", 2, 1},    {AFMT_U16, 2, "", 2, 2},
        {AFMT_U32, 4, "", 2, 4},   {AFMT_U64, 8, "", 2, 8},   {AFMT_F16, 2, "", 3, 2},
        {AFMT_F32, 4, "", 3, 4},   {AFMT_F64, 8, "", 3, 8},   {AFMT_C32, 4, "", 4, 4},
        {AFMT_C64, 8, "", 4, 8},   {AFMT_C128, 16, "", 4, 16}, {AFMT_BF16, 2, "", 5, 2},
        {AFMT_BOOL, 1, "", 0, 0},  /* eltype 5 elbyte 1 reads as bool, is never written */
        {AFMT_OPAQUE, 3, "", 0, 3}, {AFMT_OPAQUE, 1, "F8_E4M3", 0, 0},
    };
    static uint8_t data[NELEM * 16], out[4096];
    const afmt_format *ra = NULL;
    const afmt_format *const *fp;
    size_t i;
    for (fp = afmt_formats; *fp; fp++)
        if (strcmp((*fp)->name, "rawarray") == 0) ra = *fp;
    CHECK("rawarray is registered", ra != NULL);
    if (!ra) return;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char name[128];
        afmt_error err;
        afmt_array a = make_array(ra, cases[i].dtype, cases[i].elsize, cases[i].opaque_name, data);
        uint64_t len = write_one(ra, &a, out, sizeof out, &err);
        snprintf(name, sizeof name, "rawarray codes of %s (elsize %" PRIu64 ")", afmt_array_type_name(&a),
                 cases[i].elsize);
        if (cases[i].elbyte == 0) {
            CHECK(name, len == 0 && err.code == AFMT_E_TYPE && strstr(err.message, "rawarray cannot hold"));
            continue;
        }
        /* magic, flags, eltype, elbyte: u64 little-endian each */
        CHECK(name, len >= 32 && out[16] == cases[i].eltype && out[24] == cases[i].elbyte &&
                        memcmp(out + 17, "\0\0\0\0\0\0\0", 7) == 0 && memcmp(out + 25, "\0\0\0\0\0\0\0", 7) == 0);
    }
}

/* GGUF copies a block array (Q8_0: 32 elements in 34 bytes) byte for
 * byte: a view holding fewer bytes than its blocks is refused (the writer
 * read past its end), one holding them all is written and read back. */
static void test_gguf_block_view(void)
{
    static uint8_t out[4096];
    uint8_t *data = calloc(1, 68);
    afmt_array a;
    afmt_sink sink;
    afmt_error err;
    seen s;
    afmt_visitor vis;
    int rc;
    if (!data) return;
    afmt_array_init(&a, AFMT_OPAQUE);
    a.elsize = 34;
    a.stride = 34;
    a.block = 32;
    snprintf(a.opaque_name, sizeof a.opaque_name, "Q8_0");
    snprintf(a.name, sizeof a.name, "q");
    a.rank = 1;
    a.dims[0] = 64;
    a.count = 64;
    a.nbytes = 34; /* two blocks need 68 */
    a.data = data;
    afmt_sink_buffer(&sink, out, sizeof out);
    rc = afmt_gguf_write(&a, 1, NULL, &sink, &err);
    CHECK("gguf: a Q8_0 array whose view holds 34 of its 68 bytes is refused: usage",
          rc != 0 && err.code == AFMT_E_USAGE && strstr(err.message, "holds 34 bytes") != NULL);
    a.nbytes = 68;
    afmt_sink_buffer(&sink, out, sizeof out);
    memset(&s, 0, sizeof s);
    memset(&vis, 0, sizeof vis);
    vis.ctx = &s;
    vis.on_array = on_array;
    CHECK("gguf: a Q8_0 array of 68 bytes is written and read back as one, its blocks",
          afmt_gguf_write(&a, 1, NULL, &sink, &err) == 0 &&
              afmt_gguf_validate(out, sink.written, NULL, &vis, &err) == 0 && s.n == 1 && s.a.block == 32 &&
              s.a.nbytes == 68);
    free(data);
}

/* A writer's failure inside one repetition names it: the second of three
 * arrays refused (a GGUF tensor name of 100 bytes; an element type tenbin
 * cannot hold) is blamed on repetition [1] of the spec's repeat, not on a
 * bare field that says nothing of which array. */
static void test_repetition_blame(void)
{
    static const struct {
        const char *format;
        afmt_dtype bad_dtype; /* AFMT_DTYPE_INVALID: the bad name instead */
        const char *field;
    } cases[] = {
        {"gguf", AFMT_DTYPE_INVALID, "tensor[1].name"},
        {"tenbin", AFMT_C128, "array[1]."},
    };
    static uint8_t data[3][NELEM * 16], out[1 << 16];
    size_t i, k;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const afmt_format *f = afmt_format_by_name(cases[i].format);
        afmt_array a[3];
        afmt_sink sink;
        afmt_error err;
        char name[96];
        int rc;
        if (!f) continue;
        for (k = 0; k < 3; k++) {
            a[k] = make_array(f, k == 1 && cases[i].bad_dtype != AFMT_DTYPE_INVALID ? cases[i].bad_dtype : AFMT_F32,
                              0, "", data[k]);
            snprintf(a[k].name, sizeof a[k].name, "t%zu", k);
        }
        if (cases[i].bad_dtype == AFMT_DTYPE_INVALID) {
            memset(a[1].name, 'n', 100);
            a[1].name[100] = '\0';
        }
        afmt_sink_buffer(&sink, out, sizeof out);
        afmt_error_clear(&err);
        rc = f->write(a, 3, NULL, &sink, &err);
        snprintf(name, sizeof name, "%s: the second array's refusal is blamed on %s... (got \"%.40s\")", cases[i].format,
                 cases[i].field, err.field);
        CHECK(name, rc != 0 && strncmp(err.field, cases[i].field, strlen(cases[i].field)) == 0);
    }
}

/* The same for a key-value of the write options: the second one, a string
 * of 5 bytes given without its bytes, is blamed on kv[1].value. */
static void test_kv_blame(void)
{
    static uint8_t data[NELEM * 16], out[1 << 16];
    const afmt_format *f = afmt_format_by_name("gguf");
    afmt_kv kv[2];
    afmt_write_options wopt;
    afmt_array a;
    afmt_sink sink;
    afmt_error err;
    char name[128];
    int rc;
    if (!f) return;
    memset(kv, 0, sizeof kv);
    memset(&wopt, 0, sizeof wopt);
    kv[0].key = (const uint8_t *)"general.name";
    kv[0].key_len = 12;
    kv[0].value.kind = AFMT_VALUE_STRING;
    kv[0].value.str = (const uint8_t *)"m";
    kv[0].value.len = 1;
    kv[1] = kv[0];
    kv[1].key = (const uint8_t *)"general.x";
    kv[1].key_len = 9;
    kv[1].value.str = NULL;
    kv[1].value.len = 5;
    wopt.kv = kv;
    wopt.n_kv = 2;
    a = make_array(f, AFMT_F32, 0, "", data);
    afmt_sink_buffer(&sink, out, sizeof out);
    afmt_error_clear(&err);
    rc = f->write(&a, 1, &wopt, &sink, &err);
    snprintf(name, sizeof name, "gguf: the second key-value's refusal is blamed on kv[1].value (got \"%.40s\")", err.field);
    CHECK(name, rc != 0 && err.code == AFMT_E_USAGE && strcmp(err.field, "kv[1].value") == 0);
}

int main(void)
{
    test_repetition_blame();
    test_kv_blame();
    test_every_type();
    test_rawarray_codes();
    test_gguf_block_view();
    CHECK_DONE();
}
