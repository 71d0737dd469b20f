/* afmt runtime: inflated regions (see afmt_inflated.h). */
#include "afmt_inflated.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/afmt_bytes.h"
#include "afmt_inflate.h"

/* ---- the visitor seen inside: every callback forwarded to the outer
 * visitor's, warnings reblamed on the way */
static const afmt_inflated *vz(void *ctx) { return (const afmt_inflated *)ctx; }

static int fw_array(void *ctx, const afmt_array *a)
{
    const afmt_inflated *z = vz(ctx);
    afmt_array b = *a;
    b.data_transient = b.data != NULL;
    b.offset = z->start;
    return z->outer_vis->on_array(z->outer_vis->ctx, &b);
}
static void fw_warning(void *ctx, const afmt_error *w)
{
    const afmt_inflated *z = vz(ctx);
    afmt_error e = *w;
    afmt_inflated_reblame(z, &e);
    z->outer_vis->on_warning(z->outer_vis->ctx, &e);
}
static void fw_trailer(void *ctx, const uint8_t *data, uint64_t len, uint64_t offset)
{
    const afmt_inflated *z = vz(ctx);
    (void)offset;
    z->outer_vis->on_trailer(z->outer_vis->ctx, data, len, z->start);
}
static void fw_metadata(void *ctx, const uint8_t *json, uint64_t len, uint64_t offset)
{
    const afmt_inflated *z = vz(ctx);
    (void)offset;
    z->outer_vis->on_metadata(z->outer_vis->ctx, json, len, z->start);
}
static int fw_kv(void *ctx, const struct afmt_kv *kv, uint64_t offset)
{
    const afmt_inflated *z = vz(ctx);
    (void)offset;
    return z->outer_vis->on_kv(z->outer_vis->ctx, kv, z->start);
}
static int fw_member(void *ctx, const struct afmt_member *m)
{
    const afmt_inflated *z = vz(ctx);
    return z->outer_vis->on_member(z->outer_vis->ctx, m);
}

static void wrap_visitor(afmt_inflated *z, const afmt_visitor *v)
{
    memset(&z->vis, 0, sizeof z->vis);
    z->outer_vis = v;
    z->vis.ctx = z;
    z->vis.on_array = v->on_array ? fw_array : NULL;
    z->vis.on_warning = v->on_warning ? fw_warning : NULL;
    z->vis.on_trailer = v->on_trailer ? fw_trailer : NULL;
    z->vis.on_metadata = v->on_metadata ? fw_metadata : NULL;
    z->vis.on_kv = v->on_kv ? fw_kv : NULL;
    z->vis.on_member = v->on_member ? fw_member : NULL;
}

void afmt_inflated_reblame(const afmt_inflated *z, afmt_error *err)
{
    char msg[2 * AFMT_MESSAGE_MAX + 160];
    for (; z; z = z->outer) {
        if (err->offset == AFMT_NO_OFFSET) continue;
        snprintf(msg, sizeof msg, "%.*s (at byte %" PRIu64 " of the %" PRIu64 " bytes %.60s inflates to)",
                 (int)AFMT_MESSAGE_MAX, err->message, err->offset, z->src.len, z->name);
        msg[AFMT_MESSAGE_MAX - 1] = '\0';
        /* the text and zeros after it: an error's bytes are the same from
         * run to run (msg's tail is whatever the stack held) */
        {
            size_t n = strlen(msg) + 1;
            memcpy(err->message, msg, n);
            memset(err->message + n, 0, AFMT_MESSAGE_MAX - n);
        }
        err->offset = z->start;
    }
}

static uint32_t adler32(const uint8_t *p, uint64_t n)
{
    uint32_t a = 1, b = 0;
    while (n > 0) {
        uint64_t k = n < 5552 ? n : 5552; /* no overflow of b before the modulo */
        n -= k;
        while (k--) {
            a += *p++;
            b += a;
        }
        a %= 65521u;
        b %= 65521u;
    }
    return (b << 16) | a;
}

/* Inflate into out[0..cap) (the decoder's output so far continued);
 * *got what came.  -1 with err set (rebased on the compressed bytes). */
static int run(afmt_validation *c, afmt_inflate *d, const char *name, uint64_t base, uint8_t *out, uint64_t cap,
               uint64_t *got, int *status)
{
    *status = afmt_inflate_run(d, out, cap, got, c->err);
    if (*status == AFMT_INFLATE_ERROR) {
        const afmt_code code = c->err->code;
        const uint64_t off = base + c->err->offset;
        char msg[AFMT_MESSAGE_MAX];
        memcpy(msg, c->err->message, sizeof msg);
        return afmt_fail(c->err, code, c->path, name, AFMT_NO_INDEX, off, "malformed zlib stream: %s", msg);
    }
    return 0;
}

int afmt_inflated_open(afmt_validation *c, afmt_inflated **zp, const char *name, uint64_t size, uint64_t max,
                       unsigned at, unsigned width, int big, uint64_t plus)
{
    afmt_src *src = c->src;
    const uint64_t pos = c->pos, end = afmt_end(c);
    const uint64_t cap_limit = c->opt->limits.max_decoded_bytes;
    const uint8_t *p;
    afmt_inflate *d;
    afmt_inflated *z;
    uint8_t head[16];
    uint8_t *out;
    uint64_t total, got = 0, used, sum_at;
    int status, rc = -1;
    if (!afmt_src_have(src, end, pos, size))
        return afmt_src_short_ex(src, c->err, c->path, name, AFMT_NO_INDEX, pos, end, size, 0,
                                 "compressed data", c->region);
    p = AFMT_B(src, pos);
    if (size < 6)
        return afmt_fail(c->err, AFMT_E_TRUNCATED, c->path, name, AFMT_NO_INDEX, pos,
                         "%" PRIu64 " bytes cannot hold a zlib stream (a 2-byte header, its data and a 4-byte Adler-32)",
                         size);
    if ((p[0] & 0x0f) != 8 || (p[0] >> 4) > 7)
        return afmt_fail(c->err, AFMT_E_VALUE, c->path, name, AFMT_NO_INDEX, pos,
                         "zlib header byte 0x%02x: not DEFLATE with a window of at most 32 KiB", p[0]);
    if (((unsigned)p[0] * 256u + p[1]) % 31u != 0)
        return afmt_fail(c->err, AFMT_E_VALUE, c->path, name, AFMT_NO_INDEX, pos + 1,
                         "zlib header check fails (0x%02x%02x is not a multiple of 31)", p[0], p[1]);
    if (p[1] & 0x20)
        return afmt_fail(c->err, AFMT_E_UNSUPPORTED, c->path, name, AFMT_NO_INDEX, pos + 1,
                         "the zlib stream needs a preset dictionary (FDICT)");
    d = malloc(sizeof *d);
    if (!d)
        return afmt_fail(c->err, AFMT_E_NOMEM, c->path, name, AFMT_NO_INDEX, pos, "no memory for a decoder");
    /* the size: known, or read from the output's first at + width bytes */
    if (width == AFMT_INFLATED_KNOWN) {
        total = plus;
        afmt_inflate_init(d, p + 2, size - 2, total + (total < UINT64_MAX));
    } else {
        uint64_t v;
        afmt_inflate_init(d, p + 2, size - 2, UINT64_MAX); /* bounded by head */
        if (run(c, d, name, pos + 2, head, (uint64_t)at + width, &got, &status)) goto out;
        if (got < (uint64_t)at + width) {
            afmt_fail(c->err, AFMT_E_SIZE, c->path, name, AFMT_NO_INDEX, pos,
                      "inflates to %" PRIu64 " bytes, too few for its size at byte %u", got, at);
            goto out;
        }
        v = afmt_field_get(head + at, 0, width, afmt_order_of(c, big));
        if (afmt_checked_add_u64(v, plus, &total)) {
            afmt_fail(c->err, AFMT_E_OVERFLOW, c->path, name, AFMT_NO_INDEX, pos,
                      "its inflated size %" PRIu64 " + %" PRIu64 " overflows 64 bits", v, plus);
            goto out;
        }
        if (total < got) {
            afmt_fail(c->err, AFMT_E_SIZE, c->path, name, AFMT_NO_INDEX, pos,
                      "says it inflates to %" PRIu64 " bytes, fewer than the %" PRIu64 " that say so", total, got);
            goto out;
        }
    }
    if (total / 1032 > size) { /* DEFLATE makes at most 1032 bytes of one */
        afmt_fail(c->err, AFMT_E_SIZE, c->path, name, AFMT_NO_INDEX, pos,
                  "says it inflates to %" PRIu64 " bytes, more than DEFLATE makes of %" PRIu64 " bytes", total, size);
        goto out;
    }
    if (max && total > max) {
        afmt_fail(c->err, AFMT_E_LIMIT, c->path, name, AFMT_NO_INDEX, pos,
                  "inflates to %" PRIu64 " bytes, more than the format's %" PRIu64, total, max);
        goto out;
    }
    if (total > cap_limit) {
        afmt_fail(c->err, AFMT_E_LIMIT, c->path, name, AFMT_NO_INDEX, pos,
                  "inflates to %" PRIu64 " bytes, more than the limit of %" PRIu64 " (limits.max_decoded_bytes)",
                  total, cap_limit);
        goto out;
    }
    {
        const struct afmt_scratch *mark = c->scratch;
        z = afmt_scratch_grow(c, NULL, sizeof *z + (total ? total : 1), name);
        if (!z) goto out;
        z->mark = mark;
    }
    out = (uint8_t *)(z + 1);
    memcpy(out, head, (size_t)got);
    /* one byte more tells a stream that holds more (private, but ours) */
    d->max_out = total + (total < UINT64_MAX);
    {
        uint64_t more = 0;
        if (run(c, d, name, pos + 2, out + got, total - got, &more, &status)) goto out;
        got += more;
        if (status == AFMT_INFLATE_FULL || (status != AFMT_INFLATE_DONE && got == total)) {
            uint8_t extra;
            if (run(c, d, name, pos + 2, &extra, 1, &more, &status)) goto out;
            if (more) {
                afmt_fail(c->err, AFMT_E_SIZE, c->path, name, AFMT_NO_INDEX, pos,
                          "inflates to more than the %" PRIu64 " bytes it says", total);
                goto out;
            }
        }
        if (status != AFMT_INFLATE_DONE && got < total) {
            /* input ended before the stream: afmt_inflate_run reported
             * that as an error already; anything else is a bound */
            afmt_fail(c->err, AFMT_E_SIZE, c->path, name, AFMT_NO_INDEX, pos,
                      "inflates to more than the %" PRIu64 " bytes it says", total);
            goto out;
        }
        if (got != total) {
            afmt_fail(c->err, AFMT_E_SIZE, c->path, name, AFMT_NO_INDEX, pos,
                      "inflates to %" PRIu64 " bytes, not the %" PRIu64 " it says", got, total);
            goto out;
        }
    }
    used = afmt_inflate_used(d);
    sum_at = pos + 2 + used;
    if (size - 2 - used < 4) {
        afmt_fail(c->err, AFMT_E_TRUNCATED, c->path, name, AFMT_NO_INDEX, sum_at,
                  "the zlib stream's Adler-32 is cut: %" PRIu64 " of its 4 bytes left", size - 2 - used);
        goto out;
    }
    if (size - 2 - used > 4) {
        afmt_fail(c->err, AFMT_E_SIZE, c->path, name, AFMT_NO_INDEX, sum_at + 4,
                  "%" PRIu64 " bytes after the end of the zlib stream", size - 2 - used - 4);
        goto out;
    }
    {
        const uint32_t want = (uint32_t)afmt_field_get(p + 2 + used, 0, 4, 1), have = adler32(out, total);
        if (want != have) {
            afmt_fail(c->err, AFMT_E_VALUE, c->path, name, AFMT_NO_INDEX, sum_at,
                      "Adler-32 of the inflated data is 0x%08" PRIx32 ", the stream says 0x%08" PRIx32, have, want);
            goto out;
        }
    }
    z->name = name;
    afmt_src_buffer(&z->src, out, total);
    z->outer_src = src;
    z->outer_region = c->region;
    z->outer = c->inflated;
    z->start = pos;
    z->end = pos + size;
    z->rc.name = name;
    z->rc.size_field = NULL;
    z->rc.size = total;
    z->rc.end = total;
    z->rc.outer_end = total;
    z->rc.outer = NULL;
    if (c->vis) {
        wrap_visitor(z, c->vis);
        c->vis = &z->vis;
    } else
        z->outer_vis = NULL;
    c->src = &z->src;
    c->region = &z->rc;
    c->inflated = z;
    c->pos = 0;
    *zp = z;
    rc = 0;
out:
    free(d);
    return rc;
}

int afmt_inflated_close(afmt_validation *c, afmt_inflated *z)
{
    if (c->pos != z->src.len)
        return afmt_fail(c->err, AFMT_E_SIZE, c->path, z->name, AFMT_NO_INDEX, c->pos,
                         "%" PRIu64 " bytes of what %s inflates to are not used by its content",
                         z->src.len - c->pos, z->name);
    c->src = z->outer_src;
    c->region = z->outer_region;
    c->inflated = z->outer;
    if (z->outer_vis) c->vis = z->outer_vis;
    c->pos = z->end;
    afmt_scratch_free_since(c, z->mark); /* z and the output with it */
    return 0;
}
