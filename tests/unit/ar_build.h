/* Shared helpers of the archive tests (header-only: each test is one
 * file): a zip builder independent of runtime/archive/afmt_zip_write.c, with knobs
 * for the layouts the validator must refuse and a list of byte patches;
 * tar blocks; the descs the tests validate with (torch-like, npz-like,
 * WebDataset-like); a fake values grammar; a visitor that keeps what it
 * is given. */
#ifndef AFMT_TEST_AR_BUILD_H
#define AFMT_TEST_AR_BUILD_H

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "archive/afmt_archive.h"
#include "common/afmt_bytes.h"
#include "compress/afmt_crc32.h"
#include "afmt_internal.h"
#include "npy.h"
#include "tenbin.h"

/* ------------------------------------------------------------ zip */

#define ZB_MAX 8

typedef struct zb_file {
    const char *name;
    const uint8_t *data;
    size_t len;
} zb_file;

/* How to lay a zip out; 0 everywhere is np.savez's form.  Member numbers
 * are 1-based (0: none). */
typedef struct zb_layout {
    int torch;          /* flags 0x0808, descriptors, "FB" padding to 64, zip64 end records */
    int no_zip64;       /* torch without the zip64 end records */
    int unaligned;      /* torch: pad to 64 + 1 */
    size_t prefix, gap, suffix, comment; /* junk before the first member, between 1 and 2, after, a comment */
    int deflate;        /* this member deflated (as stored blocks of DEFLATE) */
    int foreign_extra;  /* this member's local header has an extra field 0x5455 */
    int huge;           /* this member claims 2^32 + 5 bytes through zip64 fields */
    int central_zip64;  /* this member's central sizes and offset are in a zip64 field, all ones outside */
} zb_layout;

typedef struct zb {
    uint8_t buf[16384];
    size_t len;
    size_t local[ZB_MAX], data[ZB_MAX], desc[ZB_MAX], central[ZB_MAX], cd, z64, loc, end;
} zb;

static inline void zb_put(zb *z, const void *p, size_t n)
{
    if (z->len + n <= sizeof z->buf)
        memcpy(z->buf + z->len, p, n);
    z->len += n;
}
static inline void zb_u16(zb *z, uint64_t v) { uint8_t b[2]; afmt_store_u16le(b, (uint16_t)v); zb_put(z, b, 2); }
static inline void zb_u32(zb *z, uint64_t v) { uint8_t b[4]; afmt_store_u32le(b, (uint32_t)v); zb_put(z, b, 4); }
static inline void zb_u64(zb *z, uint64_t v) { uint8_t b[8]; afmt_store_u64le(b, v); zb_put(z, b, 8); }
static inline void zb_fill(zb *z, uint8_t c, size_t n) { while (n--) zb_put(z, &c, 1); }

#define ZB_HUGE ((UINT64_C(1) << 32) + 5)

/* Build the files into z by the layout. */
static inline void zb_build(zb *z, const zb_file *f, size_t n, const zb_layout *l)
{
    uint32_t crc[ZB_MAX];
    uint64_t size[ZB_MAX], csize[ZB_MAX];
    size_t i, cd_size;
    int z64[ZB_MAX];

    z->len = 0;
    zb_fill(z, 'J', l->prefix);
    for (i = 0; i < n; i++) {
        int deflated = l->deflate == (int)i + 1;
        size_t name_len = strlen(f[i].name), xlen = 0, pad = 0;
        if (i == 1)
            zb_fill(z, 'G', l->gap);
        z->local[i] = z->len;
        crc[i] = afmt_crc32(0, f[i].data, f[i].len);
        size[i] = l->huge == (int)i + 1 ? ZB_HUGE : f[i].len;
        csize[i] = deflated ? f[i].len + 5 : size[i];
        z64[i] = !l->torch || l->huge == (int)i + 1;
        xlen = (z64[i] ? 20 : 0) + (l->foreign_extra == (int)i + 1 ? 9 : 0);
        if (l->torch) {
            size_t start = z->len + 30 + name_len + xlen + 4;
            pad = (64 - start % 64) % 64 + (l->unaligned ? 1 : 0);
            xlen += 4 + pad;
        }
        zb_u32(z, 0x04034b50u);
        zb_u16(z, z64[i] ? 45 : 20);
        zb_u16(z, l->torch ? 0x0808 : 0);
        zb_u16(z, deflated ? 8 : 0);
        zb_u16(z, 0);
        zb_u16(z, 0x21);
        zb_u32(z, l->torch ? 0 : crc[i]);
        zb_u32(z, l->torch ? 0 : z64[i] ? 0xffffffffu : csize[i]);
        zb_u32(z, l->torch ? 0 : z64[i] ? 0xffffffffu : size[i]);
        zb_u16(z, name_len);
        zb_u16(z, xlen);
        zb_put(z, f[i].name, name_len);
        if (z64[i]) {
            zb_u16(z, 1);
            zb_u16(z, 16);
            zb_u64(z, l->torch ? 0 : size[i]);
            zb_u64(z, l->torch ? 0 : csize[i]);
        }
        if (l->foreign_extra == (int)i + 1) {
            zb_u16(z, 0x5455);
            zb_u16(z, 5);
            zb_put(z, "\x03" "abcd", 5);
        }
        if (l->torch) {
            zb_u16(z, 0x4246);
            zb_u16(z, pad);
            zb_fill(z, 'Z', pad);
        }
        z->data[i] = z->len;
        if (deflated) { /* one final stored block */
            uint8_t h[5] = {1, (uint8_t)f[i].len, (uint8_t)(f[i].len >> 8), (uint8_t)~f[i].len,
                            (uint8_t)(~f[i].len >> 8)};
            zb_put(z, h, 5);
        }
        zb_put(z, f[i].data, f[i].len);
        z->desc[i] = z->len;
        if (l->torch) {
            zb_u32(z, 0x08074b50u);
            zb_u32(z, crc[i]);
            if (z64[i]) { zb_u64(z, csize[i]); zb_u64(z, size[i]); }
            else { zb_u32(z, csize[i]); zb_u32(z, size[i]); }
        }
    }
    z->cd = z->len;
    for (i = 0; i < n; i++) {
        int big = size[i] >= 0xffffffffu || l->central_zip64 == (int)i + 1;
        int far = l->central_zip64 == (int)i + 1;
        size_t name_len = strlen(f[i].name);
        z->central[i] = z->len;
        zb_u32(z, 0x02014b50u);
        zb_u16(z, 0x031e);
        zb_u16(z, big ? 45 : 20);
        zb_u16(z, l->torch ? 0x0808 : 0);
        zb_u16(z, l->deflate == (int)i + 1 ? 8 : 0);
        zb_u16(z, 0);
        zb_u16(z, 0x21);
        zb_u32(z, crc[i]);
        zb_u32(z, big ? 0xffffffffu : csize[i]);
        zb_u32(z, big ? 0xffffffffu : size[i]);
        zb_u16(z, name_len);
        zb_u16(z, big ? 20 + (far ? 8 : 0) : 0);
        zb_u16(z, 0);
        zb_u16(z, 0);
        zb_u16(z, 0);
        zb_u32(z, 0);
        zb_u32(z, far ? 0xffffffffu : z->local[i]);
        zb_put(z, f[i].name, name_len);
        if (big) {
            zb_u16(z, 1);
            zb_u16(z, 16 + (far ? 8 : 0));
            zb_u64(z, size[i]);
            zb_u64(z, csize[i]);
            if (far)
                zb_u64(z, z->local[i]);
        }
    }
    cd_size = z->len - z->cd;
    z->z64 = z->loc = 0;
    if (l->torch && !l->no_zip64) {
        z->z64 = z->len;
        zb_u32(z, 0x06064b50u);
        zb_u64(z, 44);
        zb_u16(z, 0x031e);
        zb_u16(z, 45);
        zb_u32(z, 0);
        zb_u32(z, 0);
        zb_u64(z, n);
        zb_u64(z, n);
        zb_u64(z, cd_size);
        zb_u64(z, z->cd);
        z->loc = z->len;
        zb_u32(z, 0x07064b50u);
        zb_u32(z, 0);
        zb_u64(z, z->z64);
        zb_u32(z, 1);
    }
    z->end = z->len;
    zb_u32(z, 0x06054b50u);
    zb_u32(z, 0);
    zb_u16(z, n);
    zb_u16(z, n);
    zb_u32(z, cd_size);
    zb_u32(z, z->cd);
    zb_u16(z, l->comment);
    zb_fill(z, 'C', l->comment);
    zb_fill(z, 'S', l->suffix);
}

/* A place in a built zip: a record's start plus delta. */
typedef enum zb_where { W_NONE = 0, W_ABS, W_LOCAL, W_DATA, W_DESC, W_CENTRAL, W_CD, W_Z64, W_LOC, W_END, W_LEN } zb_where;

typedef struct zb_pos {
    zb_where where;
    int member;   /* 0-based */
    int64_t delta;
} zb_pos;

static inline uint64_t zb_at(const zb *z, zb_pos p)
{
    uint64_t base = 0;
    switch (p.where) {
    case W_NONE: case W_ABS: base = 0; break;
    case W_LOCAL: base = z->local[p.member]; break;
    case W_DATA: base = z->data[p.member]; break;
    case W_DESC: base = z->desc[p.member]; break;
    case W_CENTRAL: base = z->central[p.member]; break;
    case W_CD: base = z->cd; break;
    case W_Z64: base = z->z64; break;
    case W_LOC: base = z->loc; break;
    case W_END: base = z->end; break;
    case W_LEN: base = z->len; break;
    }
    return (uint64_t)((int64_t)base + p.delta);
}

/* Overwrite width bytes (little-endian value) at a place. */
typedef struct zb_patch {
    zb_pos at;
    unsigned width;
    uint64_t value;
} zb_patch;

static inline void zb_apply(zb *z, const zb_patch *p)
{
    uint64_t off = zb_at(z, p->at), v = p->value;
    unsigned k;
    for (k = 0; k < p->width && off + k < z->len; k++, v >>= 8)
        z->buf[off + k] = (uint8_t)v;
}

/* ------------------------------------------------------------ tar */

typedef struct tb {
    uint8_t buf[1 << 18];
    size_t len;
} tb;

/* A header block: POSIX ustar (or GNU when gnu) with the checksum. */
static inline void tb_header(tb *t, const char *name, uint64_t size, char type, int gnu)
{
    uint8_t *h = t->buf + t->len;
    unsigned sum = 0, i;

    memset(h, 0, 512);
    memcpy(h, name, strlen(name) < 100 ? strlen(name) : 100);
    memcpy(h + 100, "0000644", 7);
    memcpy(h + 108, "0001750", 7);
    memcpy(h + 116, "0001750", 7);
    snprintf((char *)h + 124, 12, "%011" PRIo64, size);
    memcpy(h + 136, "14707031060", 11);
    h[156] = (uint8_t)type;
    memcpy(h + 257, gnu ? "ustar  \0" : "ustar\0" "00", 8);
    memset(h + 148, ' ', 8);
    for (i = 0; i < 512; i++)
        sum += h[i];
    snprintf((char *)h + 148, 8, "%06o", sum);
    t->len += 512;
}

static inline void tb_data(tb *t, const void *p, size_t n)
{
    memcpy(t->buf + t->len, p, n);
    memset(t->buf + t->len + n, 0, (512 - n % 512) % 512);
    t->len += n + (512 - n % 512) % 512;
}

static inline void tb_file(tb *t, const char *name, const void *p, size_t n)
{
    tb_header(t, name, n, '0', 0);
    tb_data(t, p, n);
}

static inline void tb_end(tb *t)
{
    memset(t->buf + t->len, 0, 1024);
    t->len += 1024;
}

/* ------------------------------------------------------------ views */

typedef struct seen_view {
    char name[AFMT_NAME_MAX];
    uint32_t index, rank;
    uint64_t dims[2], nbytes, offset;
    afmt_endian endian;
    int has_data;
    float first;
} seen_view;

typedef struct seen {
    seen_view v[16];
    size_t n, warnings;
    char warning[AFMT_FIELD_MAX + AFMT_MESSAGE_MAX + 32];
} seen;

static inline int keep_view(void *ctx, const afmt_array *a)
{
    seen *s = ctx;
    seen_view *v;
    if (s->n == 16)
        return 0;
    v = &s->v[s->n++];
    snprintf(v->name, sizeof v->name, "%s", a->name);
    v->index = a->index;
    v->rank = a->rank;
    v->dims[0] = a->rank > 0 ? a->dims[0] : 0;
    v->dims[1] = a->rank > 1 ? a->dims[1] : 0;
    v->nbytes = a->nbytes;
    v->offset = a->offset;
    v->endian = a->endian;
    v->has_data = a->data != NULL;
    v->first = 0;
    if (a->data && a->nbytes >= 4 && a->dtype == AFMT_F32) {
        uint32_t bits = a->endian == AFMT_BIG ? afmt_load_u32be(a->data) : afmt_load_u32le(a->data);
        memcpy(&v->first, &bits, 4);
    }
    return 0;
}

static inline void keep_warning(void *ctx, const afmt_error *w)
{
    seen *s = ctx;
    if (s->warnings++ == 0)
        afmt_error_describe(w, s->warning, sizeof s->warning);
}

static inline void seen_visitor(seen *s, afmt_visitor *vis)
{
    memset(s, 0, sizeof *s);
    memset(vis, 0, sizeof *vis);
    vis->ctx = s;
    vis->on_array = keep_view;
    vis->on_warning = keep_warning;
}

/* ------------------------------------------------------------ descs */

/* A values grammar for the tests: the member's bytes (or desc, when not
 * NULL) are storage keys separated by ','; each is resolved and given as
 * an f32 view "t.<key>" of its whole record. */
static inline int fake_values(const void *desc, const uint8_t *bytes, uint64_t len, uint64_t base, afmt_ar_resolve_fn resolve,
                       void *resolve_ctx, const afmt_options *opt, const afmt_visitor *vis, const afmt_path *path,
                       afmt_error *err)
{
    const char *keys = desc ? (const char *)desc : (const char *)bytes;
    size_t n = desc ? strlen(keys) : (size_t)len, i = 0;

    (void)base;
    (void)opt;
    (void)path;
    while (i < n) {
        size_t k = i;
        afmt_ar_storage st;
        afmt_array a;
        while (k < n && keys[k] != ',')
            k++;
        if (resolve(resolve_ctx, keys + i, k - i, &st, err) != 0)
            return -1;
        afmt_array_init(&a, AFMT_F32);
        a.rank = 1;
        a.dims[0] = st.nbytes / 4;
        a.count = a.dims[0];
        a.data = st.data;
        a.nbytes = st.nbytes;
        a.offset = st.offset;
        a.endian = st.endian;
        snprintf(a.name, sizeof a.name, "t.%.*s", (int)(k - i), keys + i);
        if (vis && vis->on_array && vis->on_array(vis->ctx, &a) != 0)
            return afmt_fail(err, AFMT_E_CALLBACK, path, "values", AFMT_NO_INDEX, base, "stopped by the caller");
        i = k + 1;
    }
    return 0;
}

static const char *const torch_version[] = {"3\n", "4\n", "3"};
static const char *const torch_byteorder[] = {"little", "big"};
static const char *const torch_one[] = {"1"};
static const char *const torch_64[] = {"64"};
static const uint16_t torch_extras[] = {0x0001, 0x4246};
static const uint16_t npz_extras[] = {0x0001};

#define TEXT_RULE(pat, pres, texts, ntexts, nstrict, var) \
    {pat, AFMT_AR_TEXT, pres, NULL, NULL, texts, ntexts, nstrict, var, -1, 0, NULL, NULL, -1, NULL, 0}

/* torch.save's archive; values_desc of rule 0 set per test (NULL: keys
 * from the member's bytes). */
#define TORCH_RULES(values_desc)                                                                                   \
    {                                                                                                              \
        {"{prefix}/data.pkl", AFMT_AR_VALUES, AFMT_AR_EXACTLY_ONE, NULL, NULL, NULL, 0, 0, -1, -1, 0, fake_values, \
         values_desc, 1, NULL, 0},                                                                                 \
        {"{prefix}/data/{key}", AFMT_AR_RECORD, AFMT_AR_OPTIONAL, NULL, NULL, NULL, 0, 0, -1, 0, 1, NULL, NULL, -1, \
         NULL, 0},                                                                                                 \
        TEXT_RULE("{prefix}/version", AFMT_AR_REQUIRED, torch_version, 3, 1, -1),                                  \
        TEXT_RULE("{prefix}/byteorder", AFMT_AR_AT_MOST_ONE, torch_byteorder, 2, 2, 0),                            \
        TEXT_RULE("{prefix}/.format_version", AFMT_AR_AT_MOST_ONE, torch_one, 1, 1, -1),                           \
        TEXT_RULE("{prefix}/.storage_alignment", AFMT_AR_AT_MOST_ONE, torch_64, 1, 1, -1),                         \
        {"{prefix}/.data/serialization_id", AFMT_AR_IGNORE, AFMT_AR_AT_MOST_ONE, NULL, NULL, NULL, 0, 0, -1, -1, 0, \
         NULL, NULL, -1, NULL, 0},                                                                                 \
        {"{prefix}/constants.pkl", AFMT_AR_REFUSE, AFMT_AR_OPTIONAL, NULL, NULL, NULL, 0, 0, -1, -1, 0, NULL, NULL, \
         -1, "a TorchScript archive holds code: constants.pkl", 0},                                                \
        {"{prefix}/code/{*file}", AFMT_AR_REFUSE, AFMT_AR_OPTIONAL, NULL, NULL, NULL, 0, 0, -1, -1, 0, NULL, NULL, \
         -1, "a TorchScript archive holds code: code/", 0},                                                        \
    }

static const afmt_ar_rule torch_rules[] = TORCH_RULES(NULL);
static const afmt_ar_rule torch_rules_sd[] = TORCH_RULES("0,1");

#define TORCH_DESC(rules, zip64)                                                                                  \
    {"torch", "archive", AFMT_AR_ZIP, 0x1u, 0x100u, 0x0808, 64, 1, 1, 1, torch_extras, 2, 1, zip64, 1, 1, rules, \
     sizeof rules / sizeof rules[0], AFMT_AR_REST_LENIENT, 1}

static const afmt_archive_desc torch_desc = TORCH_DESC(torch_rules, 0);
static const afmt_archive_desc torch_desc_sd = TORCH_DESC(torch_rules_sd, 0);
static const afmt_archive_desc torch_desc_zip64 = TORCH_DESC(torch_rules, 1);

static const afmt_ar_rule npz_rules[] = {
    {"{name}.npy", AFMT_AR_FORMAT, AFMT_AR_OPTIONAL, &afmt_npy_format, "{name}", NULL, 0, 0, -1, -1, 0, NULL, NULL,
     -1, NULL, 0},
};
static const afmt_archive_desc npz_desc = {"npz", "archive", AFMT_AR_ZIP, 0x101u, 0, 0x0808, 0, 0, 1, 0, npz_extras,
                                           1, 0, 0, 1, 1, npz_rules, 1, AFMT_AR_REST_REFUSE, 0};

static const afmt_ar_rule wds_rules[] = {
    {"{key}.ten", AFMT_AR_FORMAT, AFMT_AR_OPTIONAL, &afmt_tenbin_format, "{key}", NULL, 0, 0, -1, -1, 0, NULL, NULL,
     -1, NULL, 0},
};
static const afmt_archive_desc wds_desc = {"webdataset", "archive", AFMT_AR_TAR, 0, 0, 0, 0, 0, 0, 0, NULL, 0, 0, 0,
                                           0, 0, wds_rules, 1, AFMT_AR_REST_IGNORE, 0};

/* Validate buf[0..len) with d in mode; the views and warnings into *s. */
static inline int ar_validate(const afmt_archive_desc *d, const uint8_t *buf, uint64_t len, afmt_mode mode, seen *s,
                       afmt_error *err)
{
    afmt_options opt;
    afmt_visitor vis;
    afmt_src src;
    uint64_t pos = 0;
    uint32_t narrays = 0;

    afmt_options_default(&opt);
    opt.mode = mode;
    seen_visitor(s, &vis);
    afmt_src_buffer(&src, buf, len);
    afmt_error_clear(err);
    return afmt_archive_validate(d, &src, len, &pos, &narrays, &opt, &vis, NULL, err);
}

/* npy files of f32 [2,3] (0..5) and [3] (ones): written by afmt's npy
 * writer into w and b; their lengths. */
static inline void make_npys(uint8_t *w, size_t *wlen, uint8_t *b, size_t *blen)
{
    float a[6] = {0, 1, 2, 3, 4, 5}, o[3] = {1, 1, 1};
    afmt_array v;
    afmt_sink sink;
    afmt_error err;

    afmt_array_init(&v, AFMT_F32);
    v.rank = 2;
    v.dims[0] = 2;
    v.dims[1] = 3;
    v.count = 6;
    v.data = (const uint8_t *)a;
    v.nbytes = sizeof a;
    afmt_sink_buffer(&sink, w, 512);
    if (afmt_npy_write(&v, 1, NULL, &sink, &err) != 0)
        printf("# npy writer: %s\n", err.message);
    *wlen = (size_t)sink.written;
    v.rank = 1;
    v.dims[0] = 3;
    v.count = 3;
    v.data = (const uint8_t *)o;
    v.nbytes = sizeof o;
    afmt_sink_buffer(&sink, b, 512);
    if (afmt_npy_write(&v, 1, NULL, &sink, &err) != 0)
        printf("# npy writer: %s\n", err.message);
    *blen = (size_t)sink.written;
}

#endif /* AFMT_TEST_AR_BUILD_H */
