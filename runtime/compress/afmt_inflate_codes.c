/* afmt runtime: DEFLATE's Huffman codes, from code lengths to decoding
 * tables (see afmt_inflate_codes.h), and a dynamic block's header. */
#include "afmt_inflate_codes.h"

#include <inttypes.h>
#include <string.h>

typedef enum code_set { SET_LITLEN, SET_DIST, SET_CODELEN } code_set;

static const uint16_t length_base[29] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                         31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
static const uint8_t length_extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                         2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
static const uint16_t dist_base[30] = {1,   2,   3,   4,   5,   7,    9,    13,   17,   25,   33,   49,    65,    97,    129,
                                       193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
static const uint8_t dist_extra[30] = {0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6,
                                       6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};

/* The order of the code length code's lengths in a dynamic header. */
static const uint8_t codelen_order[19] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};

/* What symbol sym of a set decodes to, as a table entry of code length len. */
static uint32_t symbol_entry(code_set set, unsigned sym, unsigned len)
{
    if (set == SET_CODELEN)
        return AFMT_IE(len, AFMT_IK_LITERAL, 0, sym);
    if (set == SET_DIST)
        return sym < 30 ? AFMT_IE(len, AFMT_IK_BASE, dist_extra[sym], dist_base[sym])
                        : AFMT_IE(len, AFMT_IK_INVALID, 0, sym);
    if (sym < 256)
        return AFMT_IE(len, AFMT_IK_LITERAL, 0, sym);
    if (sym == 256)
        return AFMT_IE(len, AFMT_IK_END, 0, 0);
    if (sym < 286)
        return AFMT_IE(len, AFMT_IK_BASE, length_extra[sym - 257], length_base[sym - 257]);
    return AFMT_IE(len, AFMT_IK_INVALID, 0, sym); /* 286, 287: only in the fixed code */
}

static unsigned reverse_bits(unsigned code, unsigned len)
{
    unsigned r = 0;
    while (len--) {
        r = (r << 1) | (code & 1);
        code >>= 1;
    }
    return r;
}

/* Check the code lengths lens[0..n) (each <= 15): not over-subscribed, and
 * complete but for the one case DEFLATE allows (a single code of length 1,
 * or none at all, for literal/length and distance codes).  Fills the
 * canonical codes, bit-reversed for LSB-first reading, into codes[].
 * NULL, or the reason. */
static const char *canonical_codes(const uint8_t *lens, unsigned n, code_set set, uint16_t *codes,
                                   unsigned *max_len)
{
    unsigned count[16] = {0}, next[16], len, sym, code = 0, max = 0;
    long left = 1;

    for (sym = 0; sym < n; sym++)
        count[lens[sym]]++;
    count[0] = 0;
    for (len = 1; len <= 15; len++) {
        left = left * 2 - (long)count[len];
        if (left < 0)
            return "over-subscribed";
        if (count[len])
            max = len;
    }
    if (left > 0 && (set == SET_CODELEN || max > 1))
        return "incomplete";
    for (len = 1; len <= 15; len++) {
        code = (code + count[len - 1]) << 1;
        next[len] = code;
    }
    for (sym = 0; sym < n; sym++)
        if (lens[sym])
            codes[sym] = (uint16_t)reverse_bits(next[lens[sym]]++, lens[sym]);
    *max_len = max;
    return NULL;
}

/* The decoding table of lens[0..n) with a first level of root bits: every
 * entry no code reaches is invalid; codes longer than root get a
 * second-level table per first-level prefix, as deep as its longest code.
 * NULL, or the reason the lengths are not a code. */
static const char *build_table(uint32_t *table, unsigned cap, unsigned root, const uint8_t *lens, unsigned n,
                               code_set set)
{
    uint16_t codes[288];
    uint8_t depth[1024]; /* per prefix: the second level's index bits */
    unsigned sym, i, size = 1u << root, next_free = size, max_len = 0;
    const char *why = canonical_codes(lens, n, set, codes, &max_len);

    if (why)
        return why;
    for (i = 0; i < size; i++)
        table[i] = AFMT_IE(0, AFMT_IK_INVALID, 0, 0);
    memset(depth, 0, size);
    for (sym = 0; sym < n; sym++)
        if (lens[sym] > root && (unsigned)(lens[sym] - root) > depth[codes[sym] & (size - 1)])
            depth[codes[sym] & (size - 1)] = (uint8_t)(lens[sym] - root);
    for (i = 0; i < size; i++) {
        unsigned k, sub = 1u << depth[i];
        if (!depth[i])
            continue;
        if (next_free + sub > cap)
            return "too large for the decoding table"; /* cannot happen: see AFMT_INFLATE_*_TABLE */
        table[i] = AFMT_IE(0, AFMT_IK_LINK, depth[i], next_free);
        for (k = 0; k < sub; k++)
            table[next_free + k] = AFMT_IE(0, AFMT_IK_INVALID, 0, 0);
        next_free += sub;
    }
    for (sym = 0; sym < n; sym++) {
        unsigned len = lens[sym], at;
        uint32_t e = symbol_entry(set, sym, len), link;
        if (!len)
            continue;
        if (len <= root) {
            for (at = codes[sym]; at < size; at += 1u << len)
                table[at] = e;
            continue;
        }
        link = table[codes[sym] & (size - 1)];
        for (at = (unsigned)codes[sym] >> root; at < (1u << AFMT_IE_EXTRA(link)); at += 1u << (len - root))
            table[AFMT_IE_VALUE(link) + at] = e;
    }
    return NULL;
}

void afmt_inflate_fixed_codes(afmt_inflate *z)
{
    uint8_t lens[288];
    unsigned i;

    for (i = 0; i < 288; i++)
        lens[i] = i < 144 ? 8 : i < 256 ? 9 : i < 280 ? 7 : 8;
    (void)build_table(z->litlen, AFMT_INFLATE_LITLEN_TABLE, AFMT_INFLATE_LITLEN_ROOT, lens, 288, SET_LITLEN);
    for (i = 0; i < 32; i++)
        lens[i] = 5;
    (void)build_table(z->dist, AFMT_INFLATE_DIST_TABLE, AFMT_INFLATE_DIST_ROOT, lens, 32, SET_DIST);
}

/* n bits (<= 16) of the header, or -1 (truncated). */
static int header_bits(afmt_inflate *z, unsigned n, unsigned *v, afmt_error *err)
{
    if (!afmt_inflate_need(z, n))
        return afmt_inflate_truncated(z, err);
    *v = (unsigned)(z->bits & AFMT_INFLATE_ROOT_MASK(n));
    z->bits >>= n;
    z->nbits -= n;
    if (z->overrun && z->overrun * 8 > z->nbits)
        return afmt_inflate_truncated(z, err);
    return 0;
}

/* The literal/length and distance code lengths, run-length coded with the
 * code length code in cl (a table of 7-bit codes). */
static int read_lengths(afmt_inflate *z, const uint32_t *cl, uint8_t *lens, unsigned total, afmt_error *err)
{
    unsigned i = 0;

    while (i < total) {
        unsigned sym, rep, extra;
        uint8_t value = 0;
        uint32_t e;

        if (!afmt_inflate_need(z, 7))
            return afmt_inflate_truncated(z, err);
        e = cl[z->bits & 127u];
        if (AFMT_IE_KIND(e) == AFMT_IK_INVALID) /* cannot happen: the code is complete */
            return afmt_inflate_fail(z, err, AFMT_E_VALUE, "code length code %" PRIu64 " is not valid",
                                     (uint64_t)(z->bits & 127u));
        z->bits >>= AFMT_IE_LEN(e);
        z->nbits -= AFMT_IE_LEN(e);
        if (z->overrun && z->overrun * 8 > z->nbits)
            return afmt_inflate_truncated(z, err);
        sym = AFMT_IE_VALUE(e);
        if (sym < 16) {
            lens[i++] = (uint8_t)sym;
            continue;
        }
        if (sym == 16) {
            if (i == 0)
                return afmt_inflate_fail(z, err, AFMT_E_VALUE, "code length repeat (16) with no length before "
                                         "it");
            value = lens[i - 1];
        }
        if (header_bits(z, sym == 16 ? 2 : sym == 17 ? 3 : 7, &extra, err) != 0)
            return -1;
        rep = (sym == 16 ? 3 : sym == 17 ? 3 : 11) + extra;
        if (rep > total - i)
            return afmt_inflate_fail(z, err, AFMT_E_VALUE, "a code length repeat of %" PRIu64 " passes the last "
                                     "of the %" PRIu64 " lengths", (uint64_t)rep, (uint64_t)total);
        memset(lens + i, value, rep);
        i += rep;
    }
    return 0;
}

int afmt_inflate_dynamic_codes(afmt_inflate *z, afmt_error *err)
{
    uint8_t lens[286 + 30], cl_lens[19];
    uint32_t cl[128];
    unsigned nlen, ndist, ncl, i, v;
    const char *why, *set_name = "literal/length";

    if (header_bits(z, 5, &nlen, err) != 0 || header_bits(z, 5, &ndist, err) != 0 ||
        header_bits(z, 4, &ncl, err) != 0)
        return -1;
    nlen += 257;
    ndist += 1;
    ncl += 4;
    if (nlen > 286 || ndist > 30)
        return afmt_inflate_fail(z, err, AFMT_E_VALUE, "%" PRIu64 " literal/length and %" PRIu64
                                 " distance codes: at most 286 and 30", (uint64_t)nlen, (uint64_t)ndist);
    memset(cl_lens, 0, sizeof cl_lens);
    for (i = 0; i < ncl; i++) {
        if (header_bits(z, 3, &v, err) != 0)
            return -1;
        cl_lens[codelen_order[i]] = (uint8_t)v;
    }
    why = build_table(cl, 128, 7, cl_lens, 19, SET_CODELEN);
    if (why)
        return afmt_inflate_fail(z, err, AFMT_E_VALUE, "the code length code is %s", why);
    if (read_lengths(z, cl, lens, nlen + ndist, err) != 0)
        return -1;
    if (lens[256] == 0)
        return afmt_inflate_fail(z, err, AFMT_E_VALUE, "the block has no end-of-block code");
    why = build_table(z->litlen, AFMT_INFLATE_LITLEN_TABLE, AFMT_INFLATE_LITLEN_ROOT, lens, nlen, SET_LITLEN);
    if (!why) {
        set_name = "distance";
        why = build_table(z->dist, AFMT_INFLATE_DIST_TABLE, AFMT_INFLATE_DIST_ROOT, lens + nlen, ndist, SET_DIST);
    }
    if (why)
        return afmt_inflate_fail(z, err, AFMT_E_VALUE, "the %s code lengths are %s", set_name, why);
    return 0;
}
