/* afmt runtime: CRC-32 (see afmt_crc32.h): carry-less multiplication
 * where the processor has it, slicing by 8 elsewhere and for the tail. */
#include "afmt_crc32.h"

#include "../common/afmt_bytes.h"
#include "afmt_crc32_table.h"

/* Slicing by 8 over the running (inverted) value c. */
static uint32_t crc32_slice8(uint32_t c, const uint8_t *p, size_t n)
{
    const uint32_t (*t)[256] = afmt_crc32_table;

    /* Byte by byte up to an 8-byte boundary is not needed: the loads are
     * memcpy-based (afmt_load_u32le), so any alignment is fine. */
    while (n >= 8) {
        uint32_t lo = afmt_load_u32le(p) ^ c, hi = afmt_load_u32le(p + 4);
        c = t[7][lo & 0xff] ^ t[6][(lo >> 8) & 0xff] ^ t[5][(lo >> 16) & 0xff] ^ t[4][lo >> 24] ^
            t[3][hi & 0xff] ^ t[2][(hi >> 8) & 0xff] ^ t[1][(hi >> 16) & 0xff] ^ t[0][hi >> 24];
        p += 8;
        n -= 8;
    }
    while (n--)
        c = (c >> 8) ^ t[0][(c ^ *p++) & 0xff];
    return c;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define AFMT_CRC32_CLMUL 1
#include <immintrin.h>

#define AFMT_CLMUL_TARGET __attribute__((target("pclmul,sse4.1")))

/* x * k's halves (x.lo by k.lo, x.hi by k.hi) folded onto next: x's 128
 * bits moved 512 or 128 bits further along the stream, depending on k. */
static AFMT_CLMUL_TARGET __m128i fold_128(__m128i x, __m128i k, __m128i next)
{
    __m128i lo = _mm_clmulepi64_si128(x, k, 0x00), hi = _mm_clmulepi64_si128(x, k, 0x11);
    return _mm_xor_si128(_mm_xor_si128(lo, hi), next);
}

/* The running value c over p[0..n), n >= 64 and a multiple of 16, by
 * folding with PCLMULQDQ: Gopal et al., "Fast CRC Computation for Generic
 * Polynomials Using PCLMULQDQ Instruction" (Intel, 2009), for the
 * reflected polynomial 0xEDB88320.  The constants are x^k mod P(x),
 * bit-reflected: k1 = x^(4*128+32), k2 = x^(4*128-32) fold four lanes of 128
 * bits by 512; k3, k4 the same by 128; k5 = x^64 takes 64 bits to 32; and
 * P' and mu = floor(x^64 / P) do the Barrett reduction to 32. */
static AFMT_CLMUL_TARGET uint32_t crc32_clmul(uint32_t c, const uint8_t *p, size_t n)
{
    const __m128i k1k2 = _mm_set_epi64x(0x1c6e41596LL, 0x154442bd4LL);
    const __m128i k3k4 = _mm_set_epi64x(0x0ccaa009eLL, 0x1751997d0LL);
    const __m128i k5 = _mm_set_epi64x(0, 0x163cd6124LL);
    const __m128i poly_mu = _mm_set_epi64x(0x1f7011641LL, 0x1db710641LL);
    const __m128i low32 = _mm_setr_epi32(-1, 0, 0, 0);
    __m128i x1 = _mm_loadu_si128((const __m128i *)(const void *)p);
    __m128i x2 = _mm_loadu_si128((const __m128i *)(const void *)(p + 16));
    __m128i x3 = _mm_loadu_si128((const __m128i *)(const void *)(p + 32));
    __m128i x4 = _mm_loadu_si128((const __m128i *)(const void *)(p + 48));
    __m128i t;

    x1 = _mm_xor_si128(x1, _mm_cvtsi32_si128((int)c));
    for (p += 64, n -= 64; n >= 64; p += 64, n -= 64) {
        x1 = fold_128(x1, k1k2, _mm_loadu_si128((const __m128i *)(const void *)p));
        x2 = fold_128(x2, k1k2, _mm_loadu_si128((const __m128i *)(const void *)(p + 16)));
        x3 = fold_128(x3, k1k2, _mm_loadu_si128((const __m128i *)(const void *)(p + 32)));
        x4 = fold_128(x4, k1k2, _mm_loadu_si128((const __m128i *)(const void *)(p + 48)));
    }
    x1 = fold_128(fold_128(fold_128(x1, k3k4, x2), k3k4, x3), k3k4, x4);
    for (; n >= 16; p += 16, n -= 16)
        x1 = fold_128(x1, k3k4, _mm_loadu_si128((const __m128i *)(const void *)p));
    /* 128 bits to 64 (x1.lo by k4), then 64 to 32 (its low 32 by k5) */
    t = _mm_clmulepi64_si128(x1, k3k4, 0x10);
    x1 = _mm_xor_si128(_mm_srli_si128(x1, 8), t);
    t = _mm_clmulepi64_si128(_mm_and_si128(x1, low32), k5, 0x00);
    x1 = _mm_xor_si128(_mm_srli_si128(x1, 4), t);
    /* Barrett: the quotient's estimate by mu, times P, off the value */
    t = _mm_clmulepi64_si128(_mm_and_si128(x1, low32), poly_mu, 0x10);
    t = _mm_clmulepi64_si128(_mm_and_si128(t, low32), poly_mu, 0x00);
    x1 = _mm_xor_si128(x1, t);
    return (uint32_t)_mm_extract_epi32(x1, 1);
}

/* Asked each call rather than kept: __builtin_cpu_supports reads a word
 * the compiler's runtime filled in at start-up, so there is no state of
 * ours to initialise or race on. */
static int have_clmul(void)
{
    return __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
}
#endif

uint32_t afmt_crc32(uint32_t crc, const uint8_t *p, size_t n)
{
    uint32_t c = ~crc;

#ifdef AFMT_CRC32_CLMUL
    /* below 64 bytes the tables are as fast and folding cannot start */
    if (n >= 64 && have_clmul()) {
        size_t whole = n & ~(size_t)15;
        c = crc32_clmul(c, p, whole);
        p += whole;
        n -= whole;
    }
#endif
    return ~crc32_slice8(c, p, n);
}
