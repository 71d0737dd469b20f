/* afmt runtime: raw DEFLATE decoding (see afmt_inflate.h).
 *
 * The state machine: a block header (stored, fixed or dynamic codes), then
 * a stored block's bytes or the block's symbols, until the final block's
 * end.  Symbols are decoded in a fast loop while 8 input bytes and 266
 * output bytes are at hand (no bounds check per symbol: one refill covers
 * the longest length-distance pair, 48 bits), and one at a time, with
 * every check, near either end.  The tables are built by
 * afmt_inflate_codes.c.
 */
#include "afmt_inflate.h"

#include <inttypes.h>
#include <stdarg.h>
#include <string.h>

#include "../common/afmt_bytes.h"
#include "afmt_inflate_codes.h"

enum { ST_HEADER, ST_STORED, ST_CODES, ST_DONE, ST_BOUND, ST_ERROR };

/* The output of one afmt_inflate_run call. */
typedef struct out_buf {
    uint8_t *p;
    uint64_t pos, limit;
    int bounded; /* limit is max_out's, not the caller's buffer's */
} out_buf;

void afmt_inflate_init(afmt_inflate *z, const uint8_t *in, uint64_t in_len, uint64_t max_out)
{
    z->in = in;
    z->in_len = in_len;
    z->in_pos = 0;
    z->bits = 0;
    z->nbits = 0;
    z->overrun = 0;
    z->total_out = 0;
    z->max_out = max_out;
    z->state = ST_HEADER;
    z->last_block = 0;
    z->fixed_built = 0;
    z->stored_left = 0;
    z->copy_len = 0;
    z->copy_dist = 0;
    z->window_fill = 0;
    z->window_next = 0;
}

uint64_t afmt_inflate_used(const afmt_inflate *z)
{
    uint64_t consumed = (z->in_pos + z->overrun) * 8 - z->nbits;
    return afmt_ceil_div_u64(consumed, 8);
}

uint64_t afmt_inflate_total(const afmt_inflate *z)
{
    return z->total_out;
}

/* A refusal at the current bit position; the stream stays refused. */
int afmt_inflate_fail(afmt_inflate *z, afmt_error *err, afmt_code code, const char *fmt, ...)
{
    uint64_t at = ((z->in_pos + z->overrun) * 8 - z->nbits) / 8;
    va_list ap;

    z->state = ST_ERROR;
    if (at > z->in_len)
        at = z->in_len;
    va_start(ap, fmt);
    afmt_failv(err, code, NULL, "deflate", AFMT_NO_INDEX, at, fmt, ap);
    va_end(ap);
    return -1;
}

int afmt_inflate_truncated(afmt_inflate *z, afmt_error *err)
{
    z->state = ST_ERROR;
    return afmt_fail(err, AFMT_E_TRUNCATED, NULL, "deflate", AFMT_NO_INDEX, z->in_len,
                     "the deflate stream ends inside a block (after %" PRIu64 " bytes)", z->in_len);
}

/* Hold at least n (<= 32) bits, loading zero bytes past the end of the
 * input (at most 8: the decoder refuses the stream as soon as it uses
 * one, afmt_inflate_overrun).  0 when it ran that far past the end. */
int afmt_inflate_need(afmt_inflate *z, unsigned n)
{
    while (z->nbits < n) {
        if (z->in_pos < z->in_len)
            z->bits |= (uint64_t)z->in[z->in_pos++] << z->nbits;
        else if (++z->overrun > 8)
            return 0;
        z->nbits += 8;
    }
    return 1;
}

/* The stream used a bit past its end: it is cut short. */
static int used_past_end(const afmt_inflate *z)
{
    return z->overrun && z->overrun * 8 > z->nbits;
}

/* Keep the last 32 KiB of the output (out[0..n) after what came before)
 * for the distances of the next call. */
static void keep_window(afmt_inflate *z, const uint8_t *out, uint64_t n)
{
    const uint32_t size = AFMT_INFLATE_WINDOW;
    uint32_t first;

    if (n >= size) {
        memcpy(z->window, out + (n - size), size);
        z->window_next = 0;
        z->window_fill = size;
        return;
    }
    first = size - z->window_next;
    if (first > (uint32_t)n)
        first = (uint32_t)n;
    memcpy(z->window + z->window_next, out, first);
    memcpy(z->window, out + first, (size_t)n - first);
    z->window_next = (uint32_t)((z->window_next + n) % size);
    z->window_fill = z->window_fill + n > size ? size : z->window_fill + (uint32_t)n;
}

/* Copy n bytes of a match at distance dist (already checked against the
 * output so far) to o->p + o->pos, from this call's output or the window
 * before it, byte by byte (the two may overlap). */
static void copy_history(afmt_inflate *z, out_buf *o, unsigned dist, uint64_t n)
{
    uint8_t *dst = o->p + o->pos;
    uint64_t i;

    for (i = 0; i < n; i++) {
        uint64_t at = o->pos + i;
        dst[i] = dist <= at ? o->p[at - dist]
                            : z->window[(z->window_next + AFMT_INFLATE_WINDOW - (dist - at)) % AFMT_INFLATE_WINDOW];
    }
    o->pos += n;
}

/* A match within this call's output, with room for 8 bytes past it.  A
 * distance below 8 repeats a pattern of that period: once the first
 * bytes make its period a multiple of at least 8, the rest is copied 8
 * bytes at a time from that far back (the same bytes, without overlap). */
static void copy_fast(uint8_t *dst, unsigned dist, unsigned len)
{
    const uint8_t *src = dst - dist;
    uint8_t *end = dst + len;

    if (dist == 1) {
        memset(dst, *src, len);
        return;
    }
    if (dist < 8) {
        unsigned period = dist * ((8 + dist - 1) / dist);
        uint8_t *stop = period - dist < len ? dst + (period - dist) : end;
        while (dst < stop) {
            *dst = *(dst - dist);
            dst++;
        }
        src = dst - period;
    }
    while (dst < end) {
        memcpy(dst, src, 8);
        dst += 8;
        src += 8;
    }
}

/* The block header: stored (its length checked against the input),
 * fixed or dynamic codes.  0, or -1 with err. */
static int block_header(afmt_inflate *z, afmt_error *err)
{
    unsigned type;
    uint64_t len, nlen;

    if (!afmt_inflate_need(z, 3) || used_past_end(z))
        return afmt_inflate_truncated(z, err);
    z->last_block = (int)(z->bits & 1);
    type = (unsigned)(z->bits >> 1) & 3;
    z->bits >>= 3;
    z->nbits -= 3;
    if (type == 0) {
        /* to the byte boundary, then give back whole bytes still held */
        z->bits >>= z->nbits % 8;
        z->nbits -= z->nbits % 8;
        while (z->nbits >= 8) {
            if (z->overrun) z->overrun--;
            else z->in_pos--;
            z->nbits -= 8;
        }
        z->bits = 0;
        if (z->overrun || z->in_len - z->in_pos < 4)
            return afmt_inflate_truncated(z, err);
        len = afmt_load_u16le(z->in + z->in_pos);
        nlen = afmt_load_u16le(z->in + z->in_pos + 2);
        if (len != (~nlen & 0xffff))
            return afmt_inflate_fail(z, err, AFMT_E_VALUE, "a stored block's length 0x%04" PRIx64
                                     " and its complement 0x%04" PRIx64 " disagree", len, nlen);
        z->in_pos += 4;
        if (len > z->in_len - z->in_pos)
            return afmt_inflate_fail(z, err, AFMT_E_TRUNCATED, "a stored block of %" PRIu64
                                     " bytes, only %" PRIu64 " left in the stream", len, z->in_len - z->in_pos);
        z->stored_left = len;
        z->state = ST_STORED;
        return 0;
    }
    if (type == 3)
        return afmt_inflate_fail(z, err, AFMT_E_VALUE, "block type 3 is reserved");
    if (type == 1) {
        if (!z->fixed_built)
            afmt_inflate_fixed_codes(z);
        z->fixed_built = 1;
    } else {
        z->fixed_built = 0;
        if (afmt_inflate_dynamic_codes(z, err) != 0)
            return -1;
    }
    z->state = ST_CODES;
    return 0;
}

/* The end of a block (its end-of-block code just read). */
static void block_end(afmt_inflate *z)
{
    z->state = z->last_block ? ST_DONE : ST_HEADER;
}

/* What a full output buffer means: more calls, or more than max_out. */
static int full(afmt_inflate *z, const out_buf *o)
{
    if (o->bounded) {
        z->state = ST_BOUND;
        return AFMT_INFLATE_BOUND;
    }
    return AFMT_INFLATE_FULL;
}

/* Symbols while input and output are plentiful; returns with the block's
 * end (state changed), ST_CODES still when either ran low, or -1. */
static int codes_fast(afmt_inflate *z, out_buf *o, afmt_error *err)
{
    const uint32_t *lit = z->litlen, *dst = z->dist;
    uint64_t bits = z->bits;
    unsigned nbits = z->nbits;

    while (o->limit - o->pos >= 258 + 8 && z->in_len - z->in_pos >= 8) {
        uint32_t e;
        unsigned len, dist;

        bits |= afmt_load_u64le(z->in + z->in_pos) << nbits;
        z->in_pos += (63 - nbits) >> 3;
        nbits |= 56;
        e = lit[bits & AFMT_INFLATE_ROOT_MASK(AFMT_INFLATE_LITLEN_ROOT)];
        if (AFMT_IE_KIND(e) == AFMT_IK_LINK)
            e = lit[AFMT_IE_VALUE(e) + ((bits >> AFMT_INFLATE_LITLEN_ROOT) & AFMT_INFLATE_ROOT_MASK(AFMT_IE_EXTRA(e)))];
        if (AFMT_IE_KIND(e) == AFMT_IK_LITERAL) {
            bits >>= AFMT_IE_LEN(e);
            nbits -= AFMT_IE_LEN(e);
            o->p[o->pos++] = (uint8_t)AFMT_IE_VALUE(e);
            continue;
        }
        if (AFMT_IE_KIND(e) != AFMT_IK_BASE) {
            /* end of block, or a code the slow path names */
            if (AFMT_IE_KIND(e) == AFMT_IK_END) {
                bits >>= AFMT_IE_LEN(e);
                nbits -= AFMT_IE_LEN(e);
                block_end(z);
            }
            break;
        }
        bits >>= AFMT_IE_LEN(e);
        nbits -= AFMT_IE_LEN(e);
        len = AFMT_IE_VALUE(e) + (unsigned)(bits & AFMT_INFLATE_ROOT_MASK(AFMT_IE_EXTRA(e)));
        bits >>= AFMT_IE_EXTRA(e);
        nbits -= AFMT_IE_EXTRA(e);
        e = dst[bits & AFMT_INFLATE_ROOT_MASK(AFMT_INFLATE_DIST_ROOT)];
        if (AFMT_IE_KIND(e) == AFMT_IK_LINK)
            e = dst[AFMT_IE_VALUE(e) + ((bits >> AFMT_INFLATE_DIST_ROOT) & AFMT_INFLATE_ROOT_MASK(AFMT_IE_EXTRA(e)))];
        if (AFMT_IE_KIND(e) != AFMT_IK_BASE) {
            z->bits = bits;
            z->nbits = nbits;
            return afmt_inflate_fail(z, err, AFMT_E_VALUE, "distance code %" PRIu64 " is not valid",
                                     (uint64_t)AFMT_IE_VALUE(e));
        }
        bits >>= AFMT_IE_LEN(e);
        nbits -= AFMT_IE_LEN(e);
        dist = AFMT_IE_VALUE(e) + (unsigned)(bits & AFMT_INFLATE_ROOT_MASK(AFMT_IE_EXTRA(e)));
        bits >>= AFMT_IE_EXTRA(e);
        nbits -= AFMT_IE_EXTRA(e);
        if (dist > z->total_out + o->pos) {
            z->bits = bits;
            z->nbits = nbits;
            return afmt_inflate_fail(z, err, AFMT_E_VALUE, "distance %" PRIu64 " reaches back past the start "
                                     "of the output (%" PRIu64 " bytes so far)", (uint64_t)dist, z->total_out + o->pos);
        }
        if (dist <= o->pos) {
            copy_fast(o->p + o->pos, dist, len);
            o->pos += len;
        } else {
            copy_history(z, o, dist, len);
        }
    }
    z->bits = bits;
    z->nbits = nbits;
    return 0;
}

/* One symbol through the slow path: *e its table entry, consumed. */
static int decode_slow(afmt_inflate *z, const uint32_t *table, unsigned root, uint32_t *e, afmt_error *err)
{
    uint32_t x;

    if (!afmt_inflate_need(z, 15))
        return afmt_inflate_truncated(z, err);
    x = table[z->bits & AFMT_INFLATE_ROOT_MASK(root)];
    if (AFMT_IE_KIND(x) == AFMT_IK_LINK)
        x = table[AFMT_IE_VALUE(x) + ((z->bits >> root) & AFMT_INFLATE_ROOT_MASK(AFMT_IE_EXTRA(x)))];
    /* A code that needs bits past the end is cut short, valid or not: an
     * invalid symbol's entry has its code's length; one no code reaches
     * (of an incomplete code) is judged by whether any bit is missing. */
    if (AFMT_IE_KIND(x) == AFMT_IK_INVALID &&
        (AFMT_IE_LEN(x) ? z->overrun * 8 > z->nbits - AFMT_IE_LEN(x) : z->overrun != 0))
        return afmt_inflate_truncated(z, err);
    if (AFMT_IE_KIND(x) == AFMT_IK_INVALID)
        return afmt_inflate_fail(z, err, AFMT_E_VALUE,
                                 table == z->litlen ? "literal/length code %" PRIu64 " is not valid"
                                                    : "distance code %" PRIu64 " is not valid",
                                 (uint64_t)AFMT_IE_VALUE(x));
    z->bits >>= AFMT_IE_LEN(x);
    z->nbits -= AFMT_IE_LEN(x);
    *e = x;
    return used_past_end(z) ? afmt_inflate_truncated(z, err) : 0;
}

/* n extra bits (<= 13) of a length or distance. */
static int extra_bits(afmt_inflate *z, unsigned n, unsigned *v, afmt_error *err)
{
    if (!afmt_inflate_need(z, n))
        return afmt_inflate_truncated(z, err);
    *v = (unsigned)(z->bits & AFMT_INFLATE_ROOT_MASK(n));
    z->bits >>= n;
    z->nbits -= n;
    return used_past_end(z) ? afmt_inflate_truncated(z, err) : 0;
}

/* A length-distance pair through the slow path (its length entry read). */
static int match_slow(afmt_inflate *z, out_buf *o, uint32_t e, afmt_error *err)
{
    unsigned len, dist, extra;
    uint64_t n;

    if (extra_bits(z, AFMT_IE_EXTRA(e), &extra, err) != 0)
        return -1;
    len = AFMT_IE_VALUE(e) + extra;
    if (decode_slow(z, z->dist, AFMT_INFLATE_DIST_ROOT, &e, err) != 0)
        return -1;
    if (AFMT_IE_KIND(e) != AFMT_IK_BASE)
        return afmt_inflate_fail(z, err, AFMT_E_VALUE, "distance code %" PRIu64 " is not valid",
                                 (uint64_t)AFMT_IE_VALUE(e));
    if (extra_bits(z, AFMT_IE_EXTRA(e), &extra, err) != 0)
        return -1;
    dist = AFMT_IE_VALUE(e) + extra;
    if (dist > z->total_out + o->pos)
        return afmt_inflate_fail(z, err, AFMT_E_VALUE, "distance %" PRIu64 " reaches back past the start of "
                                 "the output (%" PRIu64 " bytes so far)", (uint64_t)dist, z->total_out + o->pos);
    n = o->limit - o->pos < len ? o->limit - o->pos : len;
    copy_history(z, o, dist, n);
    z->copy_len = len - (unsigned)n;
    z->copy_dist = dist;
    return 0;
}

/* The block's symbols: AFMT_INFLATE_FULL or _BOUND when the output is
 * full, 1 at the block's end, -1 on error. */
static int codes(afmt_inflate *z, out_buf *o, afmt_error *err)
{
    for (;;) {
        uint32_t e;

        if (z->copy_len) {
            uint64_t n = o->limit - o->pos < z->copy_len ? o->limit - o->pos : z->copy_len;
            copy_history(z, o, z->copy_dist, n);
            z->copy_len -= (unsigned)n;
            if (z->copy_len)
                return full(z, o);
        }
        if (codes_fast(z, o, err) != 0)
            return -1;
        if (z->state != ST_CODES)
            return 1;
        /* Unbounded: stop before the next symbol.  Bounded: only an
         * end-of-block code may still come. */
        if (o->pos == o->limit && !o->bounded)
            return AFMT_INFLATE_FULL;
        if (decode_slow(z, z->litlen, AFMT_INFLATE_LITLEN_ROOT, &e, err) != 0)
            return -1;
        if (AFMT_IE_KIND(e) == AFMT_IK_END) {
            block_end(z);
            return 1;
        }
        if (o->pos == o->limit)
            return full(z, o);
        if (AFMT_IE_KIND(e) == AFMT_IK_LITERAL)
            o->p[o->pos++] = (uint8_t)AFMT_IE_VALUE(e);
        else if (match_slow(z, o, e, err) != 0)
            return -1;
    }
}

static int run(afmt_inflate *z, out_buf *o, afmt_error *err)
{
    for (;;) {
        int rc;
        uint64_t n;

        switch (z->state) {
        case ST_HEADER:
            if (block_header(z, err) != 0)
                return AFMT_INFLATE_ERROR;
            break;
        case ST_STORED:
            n = o->limit - o->pos < z->stored_left ? o->limit - o->pos : z->stored_left;
            if (n == 0 && z->stored_left > 0)
                return full(z, o);
            memcpy(o->p + o->pos, z->in + z->in_pos, (size_t)n);
            o->pos += n;
            z->in_pos += n;
            z->stored_left -= n;
            if (z->stored_left == 0)
                block_end(z);
            break;
        case ST_CODES:
            rc = codes(z, o, err);
            if (rc != 1)
                return rc < 0 ? AFMT_INFLATE_ERROR : rc;
            break;
        case ST_DONE:
            return AFMT_INFLATE_DONE;
        case ST_BOUND:
            return AFMT_INFLATE_BOUND;
        default:
            return afmt_fail(err, AFMT_E_VALUE, NULL, "deflate", AFMT_NO_INDEX, afmt_inflate_used(z),
                             "the deflate stream was already refused");
        }
    }
}

int afmt_inflate_run(afmt_inflate *z, uint8_t *out, uint64_t cap, uint64_t *produced, afmt_error *err)
{
    out_buf o;
    int rc;

    o.p = out;
    o.pos = 0;
    o.limit = cap;
    o.bounded = 0;
    if (!out)
        o.limit = 0;
    if (z->max_out - z->total_out <= o.limit) {
        o.limit = z->max_out - z->total_out;
        o.bounded = 1;
    }
    rc = run(z, &o, err);
    *produced = o.pos;
    if (rc == AFMT_INFLATE_FULL)
        keep_window(z, out, o.pos);
    z->total_out += o.pos;
    return rc;
}
