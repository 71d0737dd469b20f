/* afmt runtime: the bytes of archive members: CRC-32s, and deflated
 * members inflated with their claims checked first (see afmt_ar_run.h). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "afmt_ar_run.h"
#include "../compress/afmt_crc32.h"

static const uint8_t *at(const afmt_ar_run *r, uint64_t off)
{
    return r->bytes + (off - r->base);
}

static int crc_verdict(afmt_ar_run *r, const afmt_ar_member *m, uint32_t crc)
{
    if (crc == m->crc)
        return 0;
    return afmt_ar_refuse(r, r->d->crc_lenient, AFMT_E_CONSTRAINT, m, "central.crc32", m->entry_off + 16,
                          "the %sdata's CRC-32 is 0x%08" PRIx32 ", the archive says 0x%08" PRIx32,
                          m->method ? "inflated " : "", crc, m->crc);
}

int afmt_ar_check_stored(afmt_ar_run *r, const afmt_ar_member *m)
{
    /* a payload check: skipped when only the structure is wanted */
    if (!r->d->crc || !r->opt->check_values)
        return 0;
    return crc_verdict(r, m, afmt_crc32(0, at(r, m->data_off), (size_t)m->csize));
}

/* Before inflating: the claimed size against what deflate can make of the
 * bytes there, and against what the run may still inflate. */
static int claim(afmt_ar_run *r, const afmt_ar_member *m, int keep)
{
    uint64_t room = r->opt->limits.max_decoded_bytes > r->decoded ? r->opt->limits.max_decoded_bytes - r->decoded : 0;

    if (m->usize / AFMT_AR_DEFLATE_RATIO > m->csize ||
        (m->usize / AFMT_AR_DEFLATE_RATIO == m->csize && m->usize % AFMT_AR_DEFLATE_RATIO))
        return afmt_ar_fail(r, AFMT_E_SIZE, m, "central.uncompressed_size", m->entry_off + 24,
                            "%" PRIu64 " bytes claimed from %" PRIu64 " compressed: more than deflate's largest "
                            "ratio (1032:1) can give", m->usize, m->csize);
    if (m->usize > room)
        return afmt_ar_fail(r, AFMT_E_LIMIT, m, "central.uncompressed_size", m->entry_off + 24,
                            "a member of %" PRIu64 " bytes to inflate, %" PRIu64 " inflated before: more than the "
                            "limit of %" PRIu64 " (limits.max_decoded_bytes)", m->usize, r->decoded,
                            r->opt->limits.max_decoded_bytes);
    if (keep && m->usize > SIZE_MAX - 1)
        return afmt_ar_fail(r, AFMT_E_NOMEM, m, "central.uncompressed_size", m->entry_off + 24,
                            "a member of %" PRIu64 " bytes cannot be held in memory here", m->usize);
    return 0;
}

/* Why an inflated member disagrees with its claim, or 0. */
static int inflated_verdict(afmt_ar_run *r, const afmt_ar_member *m, int rc, uint64_t total)
{
    if (rc == AFMT_INFLATE_BOUND)
        return afmt_ar_fail(r, AFMT_E_SIZE, m, "central.uncompressed_size", m->entry_off + 24,
                            "the member inflates to more than the %" PRIu64 " bytes the archive says", m->usize);
    if (total != m->usize)
        return afmt_ar_fail(r, AFMT_E_SIZE, m, "central.uncompressed_size", m->entry_off + 24,
                            "the member inflates to %" PRIu64 " bytes, the archive says %" PRIu64, total, m->usize);
    if (afmt_inflate_used(r->inflater) != m->csize)
        return afmt_ar_fail(r, AFMT_E_CONSTRAINT, m, "data", m->data_off + afmt_inflate_used(r->inflater),
                            "the deflate stream ends after %" PRIu64 " of the member's %" PRIu64 " compressed bytes",
                            afmt_inflate_used(r->inflater), m->csize);
    return 0;
}

/* Inflate m into dst (its usize bytes), or through the scratch buffer
 * when dst is NULL; size, end and CRC-32 checked. */
static int inflate_member(afmt_ar_run *r, const afmt_ar_member *m, uint8_t *dst)
{
    uint64_t total = 0, got;
    uint32_t crc = 0;
    int rc;

    if (!r->inflater && !(r->inflater = malloc(sizeof *r->inflater)))
        return afmt_ar_fail(r, AFMT_E_NOMEM, m, "data", m->data_off, "no memory for the inflater");
    if (!dst && !r->scratch && !(r->scratch = malloc(AFMT_AR_SCRATCH)))
        return afmt_ar_fail(r, AFMT_E_NOMEM, m, "data", m->data_off, "no memory to inflate through");
    afmt_inflate_init(r->inflater, at(r, m->data_off), m->csize, m->usize);
    do {
        uint8_t *out = dst ? dst + total : r->scratch;
        rc = afmt_inflate_run(r->inflater, out, dst ? m->usize - total : AFMT_AR_SCRATCH, &got, r->err);
        if (r->d->crc)
            crc = afmt_crc32(crc, out, (size_t)got);
        total += got;
    } while (rc == AFMT_INFLATE_FULL);
    r->decoded += total;
    if (rc == AFMT_INFLATE_ERROR) {
        char field[AFMT_FIELD_MAX];
        afmt_ar_field(r, m, "data", field, sizeof field);
        return afmt_error_reblame(r->err, r->path, field, AFMT_NO_INDEX, m->data_off + r->err->offset);
    }
    if (inflated_verdict(r, m, rc, total) != 0)
        return -1;
    return r->d->crc ? crc_verdict(r, m, crc) : 0;
}

/* ------------------------------------------------ a member read as a stream */

int afmt_ar_stream_open(afmt_ar_run *r, const afmt_ar_member *m, afmt_ar_stream *s)
{
    memset(s, 0, sizeof *s);
    s->r = r;
    s->m = m;
    afmt_error_clear(&s->error);
    if (claim(r, m, 0) != 0)
        return -1;
    if (!r->inflater && !(r->inflater = malloc(sizeof *r->inflater)))
        return afmt_ar_fail(r, AFMT_E_NOMEM, m, "data", m->data_off, "no memory for the inflater");
    afmt_inflate_init(r->inflater, at(r, m->data_off), m->csize, m->usize);
    s->status = AFMT_INFLATE_FULL;
    return 0;
}

int afmt_ar_stream_read(void *ctx, uint8_t *buf, size_t n, size_t *got)
{
    afmt_ar_stream *s = ctx;
    uint64_t produced = 0;

    *got = 0;
    /* after the end, a bound or an error the stream just ends: the
     * verdict on the member's bytes is afmt_ar_stream_close's */
    if (s->status != AFMT_INFLATE_FULL || n == 0)
        return 0;
    s->status = afmt_inflate_run(s->r->inflater, buf, n, &produced, &s->error);
    if (s->r->d->crc)
        s->crc = afmt_crc32(s->crc, buf, (size_t)produced);
    s->total += produced;
    *got = (size_t)produced;
    return 0;
}

int afmt_ar_stream_close(afmt_ar_stream *s)
{
    afmt_ar_run *r = s->r;
    const afmt_ar_member *m = s->m;

    /* what the member's parser left unread still counts: size, end, CRC */
    if (s->status == AFMT_INFLATE_FULL && !r->scratch && !(r->scratch = malloc(AFMT_AR_SCRATCH)))
        return afmt_ar_fail(r, AFMT_E_NOMEM, m, "data", m->data_off, "no memory to inflate through");
    while (s->status == AFMT_INFLATE_FULL) {
        size_t got;
        afmt_ar_stream_read(s, r->scratch, AFMT_AR_SCRATCH, &got);
    }
    r->decoded += s->total;
    if (s->status == AFMT_INFLATE_ERROR) {
        char field[AFMT_FIELD_MAX];
        *r->err = s->error;
        afmt_ar_field(r, m, "data", field, sizeof field);
        return afmt_error_reblame(r->err, r->path, field, AFMT_NO_INDEX, m->data_off + r->err->offset);
    }
    if (inflated_verdict(r, m, s->status, s->total) != 0)
        return -1;
    return r->d->crc ? crc_verdict(r, m, s->crc) : 0;
}

int afmt_ar_check_deflated(afmt_ar_run *r, afmt_ar_member *m)
{
    if (m->method != 8 || !r->opt->check_values)
        return 0;
    return claim(r, m, 0) != 0 ? -1 : inflate_member(r, m, NULL);
}

int afmt_ar_member_bytes(afmt_ar_run *r, afmt_ar_member *m, const uint8_t **bytes, uint8_t **owned)
{
    *owned = NULL;
    if (m->method != 8) {
        *bytes = at(r, m->data_off);
        return 0;
    }
    if (claim(r, m, 1) != 0)
        return -1;
    if (!(*owned = malloc(m->usize ? (size_t)m->usize : 1)))
        return afmt_ar_fail(r, AFMT_E_NOMEM, m, "data", m->data_off, "no memory for the %" PRIu64
                            " bytes the member inflates to", m->usize);
    if (inflate_member(r, m, *owned) != 0) {
        free(*owned);
        *owned = NULL;
        return -1;
    }
    *bytes = *owned;
    return 0;
}
