/* afmt runtime: payload scans used by generated validators.
 *
 * The common case is "every byte is fine", so each block is reduced with a
 * branch-free OR that compilers turn into SIMD at -O3 (the Makefile builds
 * this file with SCAN_CFLAGS).  Only a bad block is searched again for the
 * exact index.  BENCH-NOTES: a byte-at-a-time early-exit loop runs at a
 * sixth of memory speed.
 */
#include "../array/afmt_array.h"

/* Long enough that the horizontal reduction at the end of a block is
 * amortised over many vector ORs; short enough to stay in L1 when a bad
 * block is searched again. */
#define SCAN_BLOCK 256

/* OR of (p[i] & mask) over one full block. */
static inline uint8_t block_or(const uint8_t *p, uint8_t mask)
{
    uint8_t acc = 0;
    int i;
    for (i = 0; i < SCAN_BLOCK; i++)
        acc |= (uint8_t)(p[i] & mask);
    return acc;
}

static uint64_t scan_masked(const uint8_t *p, uint64_t n, uint8_t mask)
{
    uint64_t i = 0, full = n - n % SCAN_BLOCK;

    for (; i < full; i += SCAN_BLOCK)
        if (block_or(p + i, mask))
            break;
    /* Either a bad block or the tail: finish byte by byte. */
    for (; i < n; i++)
        if (p[i] & mask)
            return i;
    return n;
}

/* A bool byte is 0 or 1: any other bit set is an error. */
uint64_t afmt_scan_not_bool(const uint8_t *p, uint64_t n)
{
    return scan_masked(p, n, 0xFE);
}

uint64_t afmt_scan_nonzero(const uint8_t *p, uint64_t n)
{
    return scan_masked(p, n, 0xFF);
}

/* OR of (p[i] ^ b) over one full block. */
static inline uint8_t block_xor_or(const uint8_t *p, uint8_t b)
{
    uint8_t acc = 0;
    int i;
    for (i = 0; i < SCAN_BLOCK; i++)
        acc |= (uint8_t)(p[i] ^ b);
    return acc;
}

/* A fill of byte b (a header's spaces): the first byte that is not b. */
uint64_t afmt_scan_not_byte(const uint8_t *p, uint64_t n, uint8_t b)
{
    uint64_t i = 0, full = n - n % SCAN_BLOCK;

    for (; i < full; i += SCAN_BLOCK)
        if (block_xor_or(p + i, b))
            break;
    for (; i < n; i++)
        if (p[i] != b)
            return i;
    return n;
}

uint64_t afmt_scan_not_bool_strided(const uint8_t *p, uint64_t n, uint64_t stride)
{
    uint64_t k = 0, j, full;
    const uint8_t *q;
    uint8_t acc;

    if (stride == 1)
        return afmt_scan_not_bool(p, n);
    full = n - n % SCAN_BLOCK;
    /* A gather cannot vectorise well, but the branch-free block still
     * keeps the loop free of a data-dependent exit per element. */
    for (; k < full; k += SCAN_BLOCK) {
        q = p + k * stride;
        acc = 0;
        for (j = 0; j < SCAN_BLOCK; j++)
            acc |= (uint8_t)(q[j * stride] & 0xFE);
        if (acc)
            break;
    }
    for (; k < n; k++)
        if (p[k * stride] & 0xFE)
            return k;
    return n;
}
