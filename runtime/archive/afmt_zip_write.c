/* afmt runtime: a zip writer of stored members (see afmt_zip_write.h).
 * Record layouts: PKWARE APPNOTE 6.3, 4.3.7 (local header), 4.3.9 (data
 * descriptor), 4.3.12 (central entry), 4.3.14-16 (end records), 4.5.3
 * (zip64 extra field). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "afmt_ar_run.h"
#include "../common/afmt_bytes.h"
#include "../compress/afmt_crc32.h"
#include "../io/afmt_sink.h"
#include "afmt_zip_write.h"

#define ALL16 0xffffu
#define ALL32 0xffffffffu
#define PIECE ((size_t)64 << 10)
#define DOS_DATE_1980 0x0021u /* 1980-01-01 */
#define REGULAR_0644 ((uint32_t)0100644 << 16)

void afmt_zip_write_options_torch(afmt_zip_write_options *o)
{
    memset(o, 0, sizeof *o);
    o->align = 64;
    o->descriptor = 1;
    o->flags = 0x0800;
    o->zip64_end = 1;
}

void afmt_zip_write_options_npz(afmt_zip_write_options *o)
{
    memset(o, 0, sizeof *o);
    o->zip64_local = 1;
}

int afmt_zip_write_begin(afmt_zip_writer *w, afmt_sink *sink, const afmt_zip_write_options *opt, afmt_error *err)
{
    memset(w, 0, sizeof *w);
    if (opt)
        w->opt = *opt;
    else
        afmt_zip_write_options_npz(&w->opt);
    w->sink = sink;
    w->base = sink->written;
    if (w->opt.align > 32768 || (w->opt.flags & ~0x0800u)) {
        w->failed = 1;
        return afmt_fail(err, AFMT_E_USAGE, NULL, "align", AFMT_NO_INDEX, AFMT_NO_OFFSET,
                         "a zip writer aligns to at most 32768 and sets only flag 0x0800 itself (align %" PRIu64
                         ", flags 0x%04x)", w->opt.align, w->opt.flags);
    }
    return 0;
}

static uint64_t here(const afmt_zip_writer *w)
{
    return w->sink->written - w->base;
}

static int put(afmt_zip_writer *w, const void *p, size_t n, afmt_error *err)
{
    if (afmt_sink_put(w->sink, p, n, err) != 0) {
        w->failed = 1;
        return -1;
    }
    return 0;
}

/* A new entry for name (checked, copied). */
static afmt_zip_entry *new_entry(afmt_zip_writer *w, const char *name, size_t len, uint64_t size, afmt_error *err)
{
    const char *why;
    size_t at;
    afmt_zip_entry *e;

    if (w->failed) {
        afmt_fail(err, AFMT_E_USAGE, NULL, "member", AFMT_NO_INDEX, AFMT_NO_OFFSET, "the zip writer failed before");
        return NULL;
    }
    if (len > AFMT_AR_NAME_MAX ||
        (why = afmt_ar_name_problem((const uint8_t *)name, len, (w->opt.flags & 0x0800) != 0, &at)) != NULL) {
        afmt_fail(err, AFMT_E_USAGE, NULL, "member", w->n, AFMT_NO_OFFSET, "member name of %zu bytes: %s (byte %zu)",
                  len, len > AFMT_AR_NAME_MAX ? "longer than 65535 bytes" : why, len > AFMT_AR_NAME_MAX ? len : at);
        return NULL;
    }
    if (w->n == w->cap) {
        size_t cap = w->cap ? 2 * w->cap : 16;
        afmt_zip_entry *grown = realloc(w->e, cap * sizeof *grown);
        if (!grown) {
            afmt_fail(err, AFMT_E_NOMEM, NULL, "member", w->n, AFMT_NO_OFFSET, "no memory for the member list");
            return NULL;
        }
        w->e = grown;
        w->cap = cap;
    }
    e = &w->e[w->n];
    if (!(e->name = malloc(len ? len : 1))) {
        afmt_fail(err, AFMT_E_NOMEM, NULL, "member", w->n, AFMT_NO_OFFSET, "no memory for a member name");
        return NULL;
    }
    memcpy(e->name, name, len);
    e->name_len = (uint16_t)len;
    e->size = size;
    e->crc = 0;
    e->local = here(w);
    e->zip64_local = w->opt.zip64_local || size >= ALL32;
    w->n++;
    return e;
}

/* The local header, its zip64 and "FB" padding fields. */
static int local_header(afmt_zip_writer *w, const afmt_zip_entry *e, afmt_error *err)
{
    uint8_t h[30 + 20 + 4], pad[256];
    size_t z64 = e->zip64_local ? 20 : 0, padding = 0;
    uint64_t sizes = w->opt.descriptor ? 0 : e->size;

    if (w->opt.align) {
        uint64_t start = e->local + 30 + e->name_len + z64 + 4;
        padding = (size_t)((w->opt.align - start % w->opt.align) % w->opt.align);
    }
    afmt_store_u32le(h, 0x04034b50u);
    afmt_store_u16le(h + 4, e->zip64_local ? 45 : 10);
    afmt_store_u16le(h + 6, (uint16_t)(w->opt.flags | (w->opt.descriptor ? 8 : 0)));
    afmt_store_u16le(h + 8, 0);
    afmt_store_u16le(h + 10, 0);
    afmt_store_u16le(h + 12, DOS_DATE_1980);
    afmt_store_u32le(h + 14, w->opt.descriptor ? 0 : e->crc);
    afmt_store_u32le(h + 18, e->zip64_local ? ALL32 : (uint32_t)sizes);
    afmt_store_u32le(h + 22, e->zip64_local ? ALL32 : (uint32_t)sizes);
    afmt_store_u16le(h + 26, e->name_len);
    afmt_store_u16le(h + 28, (uint16_t)(z64 + (w->opt.align ? 4 + padding : 0)));
    if (put(w, h, 30, err) != 0 || put(w, e->name, e->name_len, err) != 0)
        return -1;
    if (z64) {
        afmt_store_u16le(h, 1);
        afmt_store_u16le(h + 2, 16);
        afmt_store_u64le(h + 4, sizes);
        afmt_store_u64le(h + 12, sizes);
        if (put(w, h, 20, err) != 0)
            return -1;
    }
    if (w->opt.align) {
        afmt_store_u16le(h, 0x4246); /* "FB" */
        afmt_store_u16le(h + 2, (uint16_t)padding);
        memset(pad, 'Z', sizeof pad);
        if (put(w, h, 4, err) != 0)
            return -1;
        while (padding > 0) {
            size_t n = padding < sizeof pad ? padding : sizeof pad;
            if (put(w, pad, n, err) != 0)
                return -1;
            padding -= n;
        }
    }
    return 0;
}

static int descriptor(afmt_zip_writer *w, const afmt_zip_entry *e, afmt_error *err)
{
    uint8_t d[24];

    if (!w->opt.descriptor)
        return 0;
    afmt_store_u32le(d, 0x08074b50u);
    afmt_store_u32le(d + 4, e->crc);
    if (e->zip64_local) {
        afmt_store_u64le(d + 8, e->size);
        afmt_store_u64le(d + 16, e->size);
        return put(w, d, 24, err);
    }
    afmt_store_u32le(d + 8, (uint32_t)e->size);
    afmt_store_u32le(d + 12, (uint32_t)e->size);
    return put(w, d, 16, err);
}

int afmt_zip_write_member(afmt_zip_writer *w, const char *name, size_t name_len, const uint8_t *data, uint64_t size,
                          afmt_error *err)
{
    afmt_zip_entry *e = new_entry(w, name, name_len, size, err);

    if (!e)
        return -1;
    /* a size-only pass (encoded_size) counts bytes: data need not be real */
    e->crc = w->sink->counting ? 0 : afmt_crc32(0, data, (size_t)size);
    if (local_header(w, e, err) != 0 || afmt_sink_put(w->sink, data, size, err) != 0 || descriptor(w, e, err) != 0) {
        w->failed = 1;
        return -1;
    }
    return 0;
}

/* The payload through fill, piece by piece; with write, also to the sink. */
static int pieces(afmt_zip_writer *w, afmt_zip_entry *e, afmt_sink_fill_fn fill, void *ctx, int write, afmt_error *err)
{
    uint64_t done = 0;
    uint32_t crc = 0;

    while (done < e->size) {
        uint64_t n = e->size - done < PIECE ? e->size - done : PIECE;
        if (fill(ctx, done, w->buf, n, err) != 0 || (write && put(w, w->buf, (size_t)n, err) != 0)) {
            w->failed = 1;
            return -1;
        }
        crc = afmt_crc32(crc, w->buf, (size_t)n);
        done += n;
    }
    e->crc = crc;
    return 0;
}

int afmt_zip_write_member_fill(afmt_zip_writer *w, const char *name, size_t name_len, uint64_t size,
                               afmt_sink_fill_fn fill, void *ctx, afmt_error *err)
{
    afmt_zip_entry *e;

    if (!w->buf && !w->failed && !(w->buf = malloc(PIECE)))
        return afmt_fail(err, AFMT_E_NOMEM, NULL, "member", w->n, AFMT_NO_OFFSET, "no memory for a piece buffer");
    if (!(e = new_entry(w, name, name_len, size, err)))
        return -1;
    if (w->sink->counting) /* a size-only pass: nothing is made */
        return local_header(w, e, err) != 0 || afmt_sink_zeros(w->sink, size, err) != 0 || descriptor(w, e, err) != 0
                   ? -1 : 0;
    /* without a descriptor the CRC-32 comes first: one pass to make it */
    if (!w->opt.descriptor && pieces(w, e, fill, ctx, 0, err) != 0)
        return -1;
    if (local_header(w, e, err) != 0 || pieces(w, e, fill, ctx, 1, err) != 0 || descriptor(w, e, err) != 0)
        return -1;
    return 0;
}

static int central_entry(afmt_zip_writer *w, const afmt_zip_entry *e, afmt_error *err)
{
    uint8_t h[46 + 28];
    int big_size = e->size >= ALL32, big_off = e->local >= ALL32;
    size_t x = big_size || big_off ? 4 + (big_size ? 16 : 0) + (big_off ? 8 : 0) : 0, k = 4;
    uint16_t version = x || e->zip64_local ? 45 : 10;

    afmt_store_u32le(h, 0x02014b50u);
    afmt_store_u16le(h + 4, (uint16_t)(3u << 8 | version)); /* made on Unix */
    afmt_store_u16le(h + 6, version);
    afmt_store_u16le(h + 8, (uint16_t)(w->opt.flags | (w->opt.descriptor ? 8 : 0)));
    afmt_store_u16le(h + 10, 0);
    afmt_store_u16le(h + 12, 0);
    afmt_store_u16le(h + 14, DOS_DATE_1980);
    afmt_store_u32le(h + 16, e->crc);
    afmt_store_u32le(h + 20, big_size ? ALL32 : (uint32_t)e->size);
    afmt_store_u32le(h + 24, big_size ? ALL32 : (uint32_t)e->size);
    afmt_store_u16le(h + 28, e->name_len);
    afmt_store_u16le(h + 30, (uint16_t)x);
    memset(h + 32, 0, 6); /* comment length, disk, internal attributes */
    afmt_store_u32le(h + 38, REGULAR_0644);
    afmt_store_u32le(h + 42, big_off ? ALL32 : (uint32_t)e->local);
    if (put(w, h, 46, err) != 0 || put(w, e->name, e->name_len, err) != 0)
        return -1;
    if (!x)
        return 0;
    afmt_store_u16le(h, 1);
    afmt_store_u16le(h + 2, (uint16_t)(x - 4));
    if (big_size) {
        afmt_store_u64le(h + k, e->size);
        afmt_store_u64le(h + k + 8, e->size);
        k += 16;
    }
    if (big_off)
        afmt_store_u64le(h + k, e->local);
    return put(w, h, x, err);
}

static int end_records(afmt_zip_writer *w, uint64_t cd_off, uint64_t cd_size, afmt_error *err)
{
    uint8_t h[56];
    uint64_t n = w->n, z64 = here(w);

    if (w->opt.zip64_end || n >= ALL16 || cd_size >= ALL32 || cd_off >= ALL32) {
        afmt_store_u32le(h, 0x06064b50u);
        afmt_store_u64le(h + 4, 44);
        afmt_store_u16le(h + 12, 3u << 8 | 45);
        afmt_store_u16le(h + 14, 45);
        afmt_store_u32le(h + 16, 0);
        afmt_store_u32le(h + 20, 0);
        afmt_store_u64le(h + 24, n);
        afmt_store_u64le(h + 32, n);
        afmt_store_u64le(h + 40, cd_size);
        afmt_store_u64le(h + 48, cd_off);
        if (put(w, h, 56, err) != 0)
            return -1;
        afmt_store_u32le(h, 0x07064b50u);
        afmt_store_u32le(h + 4, 0);
        afmt_store_u64le(h + 8, z64);
        afmt_store_u32le(h + 16, 1);
        if (put(w, h, 20, err) != 0)
            return -1;
    }
    afmt_store_u32le(h, 0x06054b50u);
    afmt_store_u32le(h + 4, 0);
    afmt_store_u16le(h + 8, (uint16_t)(n < ALL16 ? n : ALL16));
    afmt_store_u16le(h + 10, (uint16_t)(n < ALL16 ? n : ALL16));
    afmt_store_u32le(h + 12, (uint32_t)(cd_size < ALL32 ? cd_size : ALL32));
    afmt_store_u32le(h + 16, (uint32_t)(cd_off < ALL32 ? cd_off : ALL32));
    afmt_store_u16le(h + 20, 0);
    return put(w, h, 22, err);
}

static int by_name(const void *pa, const void *pb)
{
    const afmt_zip_entry *a = *(const afmt_zip_entry *const *)pa, *b = *(const afmt_zip_entry *const *)pb;
    size_t n = a->name_len < b->name_len ? a->name_len : b->name_len;
    int c = n ? memcmp(a->name, b->name, n) : 0;
    return c ? c : (a->name_len > b->name_len) - (a->name_len < b->name_len);
}

int afmt_zip_write_twice(const afmt_zip_writer *w, size_t *first, size_t *second, afmt_error *err)
{
    const afmt_zip_entry **v = w->n ? malloc(w->n * sizeof *v) : NULL;
    size_t i;
    int rc = 0;

    if (w->n && !v)
        return afmt_fail(err, AFMT_E_NOMEM, NULL, "member", AFMT_NO_INDEX, AFMT_NO_OFFSET, "no memory to sort names");
    for (i = 0; i < w->n; i++)
        v[i] = &w->e[i];
    if (w->n > 1) /* (v is NULL for no member: qsort's array must not be) */
        qsort(v, w->n, sizeof *v, by_name);
    for (i = 1; i < w->n && rc == 0; i++)
        if (by_name(&v[i - 1], &v[i]) == 0) {
            size_t a = (size_t)(v[i - 1] - w->e), b = (size_t)(v[i] - w->e);
            *first = a < b ? a : b;
            *second = a < b ? b : a;
            rc = 1;
        }
    free(v);
    return rc;
}

/* Refuse a name given twice. */
static int distinct(afmt_zip_writer *w, afmt_error *err)
{
    size_t first, second;
    int rc = afmt_zip_write_twice(w, &first, &second, err);

    if (rc <= 0)
        return rc;
    return afmt_fail(err, AFMT_E_USAGE, NULL, "member", second, AFMT_NO_OFFSET, "a second member named \"%.*s\"",
                     (int)(w->e[second].name_len < 80 ? w->e[second].name_len : 80), w->e[second].name);
}

int afmt_zip_write_finish(afmt_zip_writer *w, afmt_error *err)
{
    uint64_t cd_off;
    size_t i;

    if (w->failed)
        return afmt_fail(err, AFMT_E_USAGE, NULL, "member", AFMT_NO_INDEX, AFMT_NO_OFFSET,
                         "the zip writer failed before");
    if (distinct(w, err) != 0) {
        w->failed = 1;
        return -1;
    }
    cd_off = here(w);
    for (i = 0; i < w->n; i++)
        if (central_entry(w, &w->e[i], err) != 0)
            return -1;
    return end_records(w, cd_off, here(w) - cd_off, err);
}

void afmt_zip_write_free(afmt_zip_writer *w)
{
    size_t i;
    for (i = 0; i < w->n; i++)
        free(w->e[i].name);
    free(w->e);
    free(w->buf);
    w->e = NULL;
    w->buf = NULL;
    w->n = w->cap = 0;
}
