/* afmt runtime: LZ4 block checking, decoding and (with liblz4) compressing.
 *
 * Block format: a series of sequences, each a token (high nibble: literal
 * length, low nibble: match length - 4; 15 means "more length bytes follow,
 * each added, until one is not 255"), the literals, then a 2-byte
 * little-endian offset back into the output and the match.  The last
 * sequence has literals only and ends the block.
 */
#include <stdlib.h>
#include <string.h>
#include "../common/afmt_bytes.h"
#include "afmt_lz4.h"
#include "../io/afmt_sink.h"

#ifdef AFMT_HAVE_LZ4
#include <lz4.h>
#endif

/* Read an extended length; 0 if the input ends inside it or it overflows. */
static int ext_length(const uint8_t *src, uint64_t n, uint64_t *pos, uint64_t *len)
{
    uint8_t b;
    do {
        if (*pos >= n) return 0;
        b = src[(*pos)++];
        if (afmt_checked_add_u64(*len, b, len)) return 0;
    } while (b == 255);
    return 1;
}

/* The one walker: dst NULL checks only. */
static int walk(const uint8_t *src, uint64_t n, uint8_t *dst, uint64_t expected,
                uint64_t *bad_offset, const char **why)
{
    uint64_t pos = 0, out = 0;
#define BAD(msg) do { *bad_offset = pos; *why = (msg); return -1; } while (0)
    if (n == 0) {
        if (expected == 0) return 0;
        BAD("empty block");
    }
    for (;;) {
        uint8_t token = src[pos++];
        uint64_t lit = token >> 4, match = (uint64_t)(token & 15), offset;
        if (lit == 15 && !ext_length(src, n, &pos, &lit)) BAD("block ends inside a literal length");
        if (lit > n - pos) BAD("literals run past the end of the block");
        if (lit > expected - out) { *bad_offset = pos; *why = "decodes to more bytes than the dims give"; return -2; }
        if (dst) memcpy(dst + out, src + pos, (size_t)lit);
        pos += lit;
        out += lit;
        if (pos == n) break; /* the last sequence: literals only */
        if (n - pos < 2) BAD("block ends inside a match offset");
        offset = afmt_load_u16le(src + pos);
        if (offset == 0 || offset > out) BAD("match offset points before the start of the output");
        pos += 2;
        if (match == 15 && !ext_length(src, n, &pos, &match)) BAD("block ends inside a match length");
        match += 4;
        if (match > expected - out) { *bad_offset = pos; *why = "decodes to more bytes than the dims give"; return -2; }
        if (dst) {
            /* byte by byte: a match may overlap the bytes it produces */
            uint64_t k;
            for (k = 0; k < match; k++) dst[out + k] = dst[out - offset + k];
        }
        out += match;
        if (pos >= n) BAD("block ends after a match: the last sequence must hold literals");
    }
    if (out != expected) {
        *bad_offset = n;
        *why = "decodes to fewer bytes than the dims give";
        return -2;
    }
    return 0;
#undef BAD
}

int afmt_lz4_block_check(const uint8_t *src, uint64_t n, uint64_t expected,
                         uint64_t *bad_offset, const char **why)
{
    return walk(src, n, NULL, expected, bad_offset, why);
}

int afmt_lz4_block_decode(const uint8_t *src, uint64_t n, uint8_t *dst, uint64_t expected,
                          uint64_t *bad_offset, const char **why)
{
    return walk(src, n, dst, expected, bad_offset, why);
}

int afmt_lz4_compress(const uint8_t *src, uint64_t n, uint8_t **out, uint64_t *out_len,
                      afmt_error *err)
{
#ifdef AFMT_HAVE_LZ4
    int bound, got;
    *out = NULL;
    *out_len = 0;
    if (n > (uint64_t)LZ4_MAX_INPUT_SIZE)
        return afmt_fail(err, AFMT_E_LIMIT, NULL, NULL, AFMT_NO_INDEX, 0,
                         "%llu bytes exceed the LZ4 block limit", (unsigned long long)n);
    bound = LZ4_compressBound((int)n);
    *out = malloc(bound > 0 ? (size_t)bound : 1);
    if (!*out)
        return afmt_fail(err, AFMT_E_NOMEM, NULL, NULL, AFMT_NO_INDEX, 0, "out of memory for LZ4 output");
    got = LZ4_compress_default((const char *)src, (char *)*out, (int)n, bound);
    if (got <= 0) {
        free(*out);
        *out = NULL;
        return afmt_fail(err, AFMT_E_IO, NULL, NULL, AFMT_NO_INDEX, 0, "LZ4 compression failed");
    }
    *out_len = (uint64_t)got;
    return 0;
#else
    (void)src;
    (void)n;
    *out = NULL;
    *out_len = 0;
    return afmt_fail(err, AFMT_E_UNSUPPORTED, NULL, NULL, AFMT_NO_INDEX, 0,
                     "writing LZ4-compressed data needs afmt built with liblz4");
#endif
}

int afmt_lz4_compress_payload(const afmt_array *a, afmt_endian endian, uint8_t **out, uint64_t *out_len,
                              afmt_error *err)
{
    uint64_t n;
    uint8_t *stored;
    afmt_sink sink;
    int rc;
    if (afmt_payload_size(a, AFMT_ENC_PLAIN, &n, err) != 0) return -1;
    if (endian == AFMT_LITTLE) return afmt_lz4_compress(a->data, n, out, out_len, err);
    if (n > (uint64_t)SIZE_MAX - 1 || (stored = malloc(n ? (size_t)n : 1)) == NULL)
        return afmt_fail(err, AFMT_E_NOMEM, NULL, NULL, AFMT_NO_INDEX, AFMT_NO_OFFSET,
                         "out of memory for the %llu bytes to compress", (unsigned long long)n);
    afmt_sink_buffer(&sink, stored, n);
    rc = afmt_sink_payload(&sink, a, endian, AFMT_ENC_PLAIN, err);
    if (rc == 0) rc = afmt_lz4_compress(stored, n, out, out_len, err);
    free(stored);
    return rc;
}
