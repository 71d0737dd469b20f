/* afmt runtime: cache-aware transposes (see afmt_transpose.h).
 *
 * Two levels of tiling.  The matrix is cut into blocks of 64-320 KiB,
 * long and flat; each block goes through two scratch buffers:
 *
 *   1. copy the block's source rows, one row segment after the other, into
 *      scratch A, in L2 (then byte-swap A in place when asked);
 *   2. transpose A, a strip of columns at a time, into scratch T, in L1,
 *      with register kernels (SSE2 on x86-64: 16x16 bytes, 8x8 u16, 4x4
 *      u32, 2x2 u64; AVX2 when the CPU has it: 32x32 bytes, 16x16 u16,
 *      8x8 u32, 4x4 u64; a portable element loop elsewhere), reading and
 *      writing at the small strides of the scratch buffers;
 *   3. copy each strip of T to its destination rows, with non-temporal
 *      stores when the caller allows it (whole lines only: a line that two
 *      blocks share waits for the second one, see put_seg).
 *
 * Why the detour: the direct transpose reads (or writes) with the row
 * stride of the matrix, and at a power-of-two stride (8192 or 16384
 * elements) every row of a tile maps to the same L1 and L2 sets, so lines
 * are evicted before the rest of them is used.  Through the scratch, each
 * source and destination line is touched once, whole, in a row segment of
 * 256-2048 contiguous bytes, and the strided register work happens at
 * strides that do not alias.  The source segments are the long ones:
 * reading 256-byte segments at a large stride runs at half the speed of
 * 1024-byte ones, while non-temporal writes of 256-byte segments lose
 * little.
 *
 * The kernels need fixed small strides only, so edge blocks (odd shapes,
 * one-row or one-column matrices) use the same code: a block is as wide as
 * what is left, the kernels read a little past the block (inside the
 * scratch, which is initialised) and write past a row of T only into places
 * that a later kernel overwrites (see transpose_block).  The two thin
 * shapes (two rows, two columns) are streams and skip the blocks (zip_rows,
 * unzip_rows).
 */
#include "afmt_transpose.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../common/afmt_bytes.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#define AFMT_HAVE_SSE2 1
#endif

/* Most elements (times their size in bytes) in a block of A, with the
 * kernel's edge: (rb + K) * (cb + K) * es.  A lives in L2 (1-2 MiB on
 * current x86-64 cores); the strips of T (STRIP bytes) in L1. */
#define SCRATCH 320000
#define STRIP 8192
/* Elements larger than this skip the scratch (a block would be one element). */
#define BIG_ELEMENT 1024

#if AFMT_HAVE_SSE2
/* Byte swaps of 16 bytes: every u16 (two shifts), every u32 (swap the
 * u16 halves, then each u16), every u64 (reverse its four u16, then each
 * u16).  SSE2 only (pshufb would need SSSE3).  In L1, 2-2.3x the speed of
 * the scalar loops for u32 and u64 (14 -> 33, 22 -> 46 GB/s). */
static __m128i bswap_u16s(__m128i v)
{
    return _mm_or_si128(_mm_slli_epi16(v, 8), _mm_srli_epi16(v, 8));
}

static __m128i bswap_u32s(__m128i v)
{
    return bswap_u16s(_mm_shufflehi_epi16(_mm_shufflelo_epi16(v, 0xB1), 0xB1));
}

static __m128i bswap_u64s(__m128i v)
{
    return bswap_u16s(_mm_shufflehi_epi16(_mm_shufflelo_epi16(v, 0x1B), 0x1B));
}

#define SWAP_LOOP(FN)                                                          \
    for (; i + 16 <= n; i += 16)                                               \
        _mm_storeu_si128((__m128i *)(void *)(d + i),                           \
                         FN(_mm_loadu_si128((const __m128i *)(const void *)(s + i))))
#else
#define SWAP_LOOP(FN) (void)0
#endif

void afmt_swap_copy(uint8_t *d, const uint8_t *s, uint64_t n, unsigned comp)
{
    uint64_t i = 0;

    switch (comp) {
    case 2:
        /* (the compiler vectorises this loop better than bswap_u16s) */
        for (; i + 2 <= n; i += 2) {
            uint16_t v;
            memcpy(&v, s + i, 2);
            v = (uint16_t)(v << 8 | v >> 8);
            memcpy(d + i, &v, 2);
        }
        break;
    case 4:
        SWAP_LOOP(bswap_u32s);
        for (; i + 4 <= n; i += 4) {
            uint32_t v;
            memcpy(&v, s + i, 4);
            v = (v >> 24) | ((v >> 8) & 0xff00u) | ((v << 8) & 0xff0000u) | (v << 24);
            memcpy(d + i, &v, 4);
        }
        break;
    case 8:
        SWAP_LOOP(bswap_u64s);
        for (; i + 8 <= n; i += 8) {
            uint64_t v;
            memcpy(&v, s + i, 8);
            v = (v >> 56) | ((v >> 40) & 0xff00u) | ((v >> 24) & 0xff0000u) |
                ((v >> 8) & 0xff000000u) | ((v << 8) & UINT64_C(0xff00000000)) |
                ((v << 24) & UINT64_C(0xff0000000000)) |
                ((v << 40) & UINT64_C(0xff000000000000)) | (v << 56);
            memcpy(d + i, &v, 8);
        }
        break;
    default:
        if (d != s && n > 0)
            memmove(d, s, (size_t)n);
        break;
    }
}

/* ---------------------------------------------------------------- kernels */

/* t[k][i] = a[i][k] for i, k < K; as and ts are row strides in bytes. */
typedef void (*kernel_fn)(const uint8_t *a, size_t as, uint8_t *t, size_t ts);

#if AFMT_HAVE_SSE2
#define LOADU(p) _mm_loadu_si128((const __m128i *)(const void *)(p))
#define STOREU(p, v) _mm_storeu_si128((__m128i *)(void *)(p), (v))

/* One whole 64-byte line of d (64-aligned) from s, with non-temporal
 * stores: the line goes to memory without being read into the cache. */
static void stream_line(uint8_t *d, const uint8_t *s)
{
    _mm_stream_si128((__m128i *)(void *)d, LOADU(s));
    _mm_stream_si128((__m128i *)(void *)(d + 16), LOADU(s + 16));
    _mm_stream_si128((__m128i *)(void *)(d + 32), LOADU(s + 32));
    _mm_stream_si128((__m128i *)(void *)(d + 48), LOADU(s + 48));
}

/* The 16x16 byte transpose in four rounds of interleaving (bytes, pairs,
 * quads, eights) on registers r[0..15] holding rows 0-15 (u: scratch
 * registers), with intrinsic prefix P (_mm: SSE2, 16 bytes; _mm256: AVX2,
 * the same on both 16-byte lanes).  OUT(c, v) receives column c.  One
 * macro for both widths: the kernels stay inline and identical. */
#define BYTE_ROUNDS(P, r, u, OUT)                                              \
    do {                                                                       \
        int j_, g_;                                                            \
        for (j_ = 0; j_ < 8; j_++) {                                           \
            u[j_] = P##_unpacklo_epi8(r[2 * j_], r[2 * j_ + 1]);               \
            u[j_ + 8] = P##_unpackhi_epi8(r[2 * j_], r[2 * j_ + 1]);           \
        }                                                                      \
        /* u[j]: rows 2j, 2j+1 interleaved, columns 0-7; u[j+8]: 8-15 */       \
        for (j_ = 0; j_ < 4; j_++) {                                           \
            r[j_] = P##_unpacklo_epi16(u[2 * j_], u[2 * j_ + 1]);              \
            r[j_ + 4] = P##_unpackhi_epi16(u[2 * j_], u[2 * j_ + 1]);          \
            r[j_ + 8] = P##_unpacklo_epi16(u[2 * j_ + 8], u[2 * j_ + 9]);      \
            r[j_ + 12] = P##_unpackhi_epi16(u[2 * j_ + 8], u[2 * j_ + 9]);     \
        }                                                                      \
        /* r[j + 4h]: rows 4j..4j+3, columns 4h..4h+3 */                       \
        for (j_ = 0; j_ < 2; j_++)                                             \
            for (g_ = 0; g_ < 4; g_++) {                                       \
                u[j_ + 4 * g_] =                                               \
                    P##_unpacklo_epi32(r[4 * g_ + 2 * j_], r[4 * g_ + 2 * j_ + 1]); \
                u[j_ + 4 * g_ + 2] =                                           \
                    P##_unpackhi_epi32(r[4 * g_ + 2 * j_], r[4 * g_ + 2 * j_ + 1]); \
            }                                                                  \
        /* u[j + 4h]: rows 8j..8j+7, columns 4h, 4h+1; u[j+4h+2]: 4h+2, 4h+3 */ \
        for (j_ = 0; j_ < 8; j_++) {                                           \
            int c_ = 2 * j_, h_ = (c_ / 4) * 4 + ((c_ % 4) / 2) * 2;           \
            OUT(c_, P##_unpacklo_epi64(u[h_], u[h_ + 1]));                     \
            OUT(c_ + 1, P##_unpackhi_epi64(u[h_], u[h_ + 1]));                 \
        }                                                                      \
    } while (0)

static void kernel_1(const uint8_t *a, size_t as, uint8_t *t, size_t ts)
{
    __m128i r[16], u[16];
    int j;

    for (j = 0; j < 16; j++)
        r[j] = LOADU(a + (size_t)j * as);
#define OUT_ROW(c, v) STOREU(t + (size_t)(c) * ts, (v))
    BYTE_ROUNDS(_mm, r, u, OUT_ROW);
#undef OUT_ROW
}

static void kernel_2(const uint8_t *a, size_t as, uint8_t *t, size_t ts)
{
    __m128i r0 = LOADU(a), r1 = LOADU(a + as), r2 = LOADU(a + 2 * as), r3 = LOADU(a + 3 * as);
    __m128i r4 = LOADU(a + 4 * as), r5 = LOADU(a + 5 * as), r6 = LOADU(a + 6 * as), r7 = LOADU(a + 7 * as);
    __m128i t0 = _mm_unpacklo_epi16(r0, r1), t1 = _mm_unpackhi_epi16(r0, r1);
    __m128i t2 = _mm_unpacklo_epi16(r2, r3), t3 = _mm_unpackhi_epi16(r2, r3);
    __m128i t4 = _mm_unpacklo_epi16(r4, r5), t5 = _mm_unpackhi_epi16(r4, r5);
    __m128i t6 = _mm_unpacklo_epi16(r6, r7), t7 = _mm_unpackhi_epi16(r6, r7);
    __m128i u0 = _mm_unpacklo_epi32(t0, t2), u1 = _mm_unpackhi_epi32(t0, t2);
    __m128i u2 = _mm_unpacklo_epi32(t1, t3), u3 = _mm_unpackhi_epi32(t1, t3);
    __m128i u4 = _mm_unpacklo_epi32(t4, t6), u5 = _mm_unpackhi_epi32(t4, t6);
    __m128i u6 = _mm_unpacklo_epi32(t5, t7), u7 = _mm_unpackhi_epi32(t5, t7);
    STOREU(t, _mm_unpacklo_epi64(u0, u4));
    STOREU(t + ts, _mm_unpackhi_epi64(u0, u4));
    STOREU(t + 2 * ts, _mm_unpacklo_epi64(u1, u5));
    STOREU(t + 3 * ts, _mm_unpackhi_epi64(u1, u5));
    STOREU(t + 4 * ts, _mm_unpacklo_epi64(u2, u6));
    STOREU(t + 5 * ts, _mm_unpackhi_epi64(u2, u6));
    STOREU(t + 6 * ts, _mm_unpacklo_epi64(u3, u7));
    STOREU(t + 7 * ts, _mm_unpackhi_epi64(u3, u7));
}

static void kernel_4(const uint8_t *a, size_t as, uint8_t *t, size_t ts)
{
    __m128i r0 = LOADU(a), r1 = LOADU(a + as), r2 = LOADU(a + 2 * as), r3 = LOADU(a + 3 * as);
    __m128i t0 = _mm_unpacklo_epi32(r0, r1), t1 = _mm_unpackhi_epi32(r0, r1);
    __m128i t2 = _mm_unpacklo_epi32(r2, r3), t3 = _mm_unpackhi_epi32(r2, r3);
    STOREU(t, _mm_unpacklo_epi64(t0, t2));
    STOREU(t + ts, _mm_unpackhi_epi64(t0, t2));
    STOREU(t + 2 * ts, _mm_unpacklo_epi64(t1, t3));
    STOREU(t + 3 * ts, _mm_unpackhi_epi64(t1, t3));
}

static void kernel_8(const uint8_t *a, size_t as, uint8_t *t, size_t ts)
{
    __m128i r0 = LOADU(a), r1 = LOADU(a + as);
    STOREU(t, _mm_unpacklo_epi64(r0, r1));
    STOREU(t + ts, _mm_unpackhi_epi64(r0, r1));
}

static void kernel_16(const uint8_t *a, size_t as, uint8_t *t, size_t ts)
{
    int i, k;
    for (k = 0; k < 4; k++)
        for (i = 0; i < 4; i++)
            STOREU(t + (size_t)k * ts + 16 * (size_t)i, LOADU(a + (size_t)i * as + 16 * (size_t)k));
}

#if AFMT_HAVE_SSE2 && (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
/* AVX2 kernels, compiled for AVX2 by attribute and chosen at run time, so
 * that the default build (x86-64 baseline: SSE2) needs no -march flag. */
#include <immintrin.h>
#define AFMT_HAVE_AVX2_KERNELS 1
#define AVX2_FN __attribute__((target("avx2")))

AVX2_FN static void kernel_4_avx2(const uint8_t *a, size_t as, uint8_t *t, size_t ts)
{
#define L8(n) _mm256_loadu_ps((const float *)(const void *)(a + (n) * as))
    __m256 r0 = L8(0), r1 = L8(1), r2 = L8(2), r3 = L8(3), r4 = L8(4), r5 = L8(5), r6 = L8(6), r7 = L8(7);
#undef L8
    __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1);
    __m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);
    __m256 t4 = _mm256_unpacklo_ps(r4, r5), t5 = _mm256_unpackhi_ps(r4, r5);
    __m256 t6 = _mm256_unpacklo_ps(r6, r7), t7 = _mm256_unpackhi_ps(r6, r7);
    __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xEE);
    __m256 u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xEE);
    __m256 u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xEE);
    __m256 u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xEE);
#define S8(n, v) _mm256_storeu_ps((float *)(void *)(t + (n) * ts), (v))
    S8(0, _mm256_permute2f128_ps(u0, u4, 0x20));
    S8(1, _mm256_permute2f128_ps(u1, u5, 0x20));
    S8(2, _mm256_permute2f128_ps(u2, u6, 0x20));
    S8(3, _mm256_permute2f128_ps(u3, u7, 0x20));
    S8(4, _mm256_permute2f128_ps(u0, u4, 0x31));
    S8(5, _mm256_permute2f128_ps(u1, u5, 0x31));
    S8(6, _mm256_permute2f128_ps(u2, u6, 0x31));
    S8(7, _mm256_permute2f128_ps(u3, u7, 0x31));
#undef S8
}

/* 16x16 u16: the 8x8 rounds of kernel_2 on 32-byte rows, for rows 0-7
 * and rows 8-15; each result register holds column c in its low lane and
 * column c + 8 in its high lane.  Rows of t stored whole and in order. */
AVX2_FN static void kernel_2_avx2(const uint8_t *a, size_t as, uint8_t *t, size_t ts)
{
    __m256i out[2][8];
    int h, c;

    for (h = 0; h < 2; h++) {
        const uint8_t *ah = a + (size_t)(8 * h) * as;
#define L(n) _mm256_loadu_si256((const __m256i *)(const void *)(ah + (size_t)(n) * as))
        __m256i r0 = L(0), r1 = L(1), r2 = L(2), r3 = L(3), r4 = L(4), r5 = L(5), r6 = L(6), r7 = L(7);
#undef L
        __m256i t0 = _mm256_unpacklo_epi16(r0, r1), t1 = _mm256_unpackhi_epi16(r0, r1);
        __m256i t2 = _mm256_unpacklo_epi16(r2, r3), t3 = _mm256_unpackhi_epi16(r2, r3);
        __m256i t4 = _mm256_unpacklo_epi16(r4, r5), t5 = _mm256_unpackhi_epi16(r4, r5);
        __m256i t6 = _mm256_unpacklo_epi16(r6, r7), t7 = _mm256_unpackhi_epi16(r6, r7);
        __m256i u0 = _mm256_unpacklo_epi32(t0, t2), u1 = _mm256_unpackhi_epi32(t0, t2);
        __m256i u2 = _mm256_unpacklo_epi32(t1, t3), u3 = _mm256_unpackhi_epi32(t1, t3);
        __m256i u4 = _mm256_unpacklo_epi32(t4, t6), u5 = _mm256_unpackhi_epi32(t4, t6);
        __m256i u6 = _mm256_unpacklo_epi32(t5, t7), u7 = _mm256_unpackhi_epi32(t5, t7);
        out[h][0] = _mm256_unpacklo_epi64(u0, u4);
        out[h][1] = _mm256_unpackhi_epi64(u0, u4);
        out[h][2] = _mm256_unpacklo_epi64(u1, u5);
        out[h][3] = _mm256_unpackhi_epi64(u1, u5);
        out[h][4] = _mm256_unpacklo_epi64(u2, u6);
        out[h][5] = _mm256_unpackhi_epi64(u2, u6);
        out[h][6] = _mm256_unpacklo_epi64(u3, u7);
        out[h][7] = _mm256_unpackhi_epi64(u3, u7);
    }
    for (c = 0; c < 8; c++)
        _mm256_storeu_si256((__m256i *)(void *)(t + (size_t)c * ts),
                            _mm256_permute2x128_si256(out[0][c], out[1][c], 0x20));
    for (c = 0; c < 8; c++)
        _mm256_storeu_si256((__m256i *)(void *)(t + (size_t)(c + 8) * ts),
                            _mm256_permute2x128_si256(out[0][c], out[1][c], 0x31));
}

AVX2_FN static void kernel_8_avx2(const uint8_t *a, size_t as, uint8_t *t, size_t ts)
{
#define L4(n) _mm256_loadu_pd((const double *)(const void *)(a + (n) * as))
    __m256d r0 = L4(0), r1 = L4(1), r2 = L4(2), r3 = L4(3);
#undef L4
    __m256d t0 = _mm256_unpacklo_pd(r0, r1), t1 = _mm256_unpackhi_pd(r0, r1);
    __m256d t2 = _mm256_unpacklo_pd(r2, r3), t3 = _mm256_unpackhi_pd(r2, r3);
#define S4(n, v) _mm256_storeu_pd((double *)(void *)(t + (n) * ts), (v))
    S4(0, _mm256_permute2f128_pd(t0, t2, 0x20));
    S4(1, _mm256_permute2f128_pd(t1, t3, 0x20));
    S4(2, _mm256_permute2f128_pd(t0, t2, 0x31));
    S4(3, _mm256_permute2f128_pd(t1, t3, 0x31));
#undef S4
}

/* 32x32 bytes: the 16x16 SSE2 rounds on 32-byte rows, for rows 0-15 and
 * rows 16-31; each result register holds column c in its low lane and
 * column c + 16 in its high lane.  The rows of t are stored whole and in
 * order (transpose_block relies on that). */
AVX2_FN static void kernel_1_avx2(const uint8_t *a, size_t as, uint8_t *t, size_t ts)
{
    __m256i r[16], u[16], out[2][16];
    int j, h, c;

    for (h = 0; h < 2; h++) {
        const uint8_t *ah = a + (size_t)(16 * h) * as;
        for (j = 0; j < 16; j++)
            r[j] = _mm256_loadu_si256((const __m256i *)(const void *)(ah + (size_t)j * as));
#define OUT_KEEP(c, v) (out[h][c] = (v))
        BYTE_ROUNDS(_mm256, r, u, OUT_KEEP);
#undef OUT_KEEP
    }
    for (c = 0; c < 16; c++)
        _mm256_storeu_si256((__m256i *)(void *)(t + (size_t)c * ts),
                            _mm256_permute2x128_si256(out[0][c], out[1][c], 0x20));
    for (c = 0; c < 16; c++)
        _mm256_storeu_si256((__m256i *)(void *)(t + (size_t)(c + 16) * ts),
                            _mm256_permute2x128_si256(out[0][c], out[1][c], 0x31));
}

static int have_avx2(void)
{
    return __builtin_cpu_supports("avx2");
}
#endif
#else
/* Portable kernels: fixed-size loops the compiler unrolls. */
#define PORTABLE_KERNEL(NAME, ES, K)                                           \
    static void NAME(const uint8_t *a, size_t as, uint8_t *t, size_t ts)       \
    {                                                                          \
        size_t i, k;                                                           \
        for (k = 0; k < (K); k++)                                              \
            for (i = 0; i < (K); i++)                                          \
                memcpy(t + k * ts + i * (ES), a + i * as + k * (ES), (ES));    \
    }
PORTABLE_KERNEL(kernel_1, 1, 16)
PORTABLE_KERNEL(kernel_2, 2, 8)
PORTABLE_KERNEL(kernel_4, 4, 4)
PORTABLE_KERNEL(kernel_8, 8, 2)
PORTABLE_KERNEL(kernel_16, 16, 4)
#endif

/* ---------------------------------------------------------------- blocks */

typedef struct plan {
    const uint8_t *src;
    uint8_t *dst;
    uint64_t srs, drs, rows, cols, es;
    unsigned comp;
    int stream;
    kernel_fn kernel; /* NULL: element loop */
    uint64_t k;       /* kernel edge */
    uint64_t rb, cb;  /* block rows and columns */
    uint64_t w;       /* strip: block columns transposed into T at a time */
    uint64_t first;   /* rows of the first block of a band (0: rb) */
    uint8_t *carry;   /* NULL, or 64 bytes for each column of a band: see put_seg */
} plan;

/* Rows [i0, i0 + rn) and columns [k0, k0 + cn) of the source. */
typedef struct block {
    uint64_t i0, k0, rn, cn;
} block;

static uint64_t min_u64(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

/* Blocks are visited down a band of cb columns, then the next band. */
static void first_block(const plan *p, block *b)
{
    b->i0 = 0;
    b->k0 = 0;
    b->cn = min_u64(p->cb, p->cols);
    b->rn = p->first ? p->first : min_u64(p->rb, p->rows);
}

/* b becomes the block after it; 0 when there is none. */
static int next_block(const plan *p, block *b)
{
    b->i0 += b->rn;
    if (b->i0 >= p->rows) {
        b->i0 = 0;
        b->k0 += b->cn;
        if (b->k0 >= p->cols)
            return 0;
        b->cn = min_u64(p->cb, p->cols - b->k0);
    }
    b->rn = b->i0 == 0 && p->first ? p->first : min_u64(p->rb, p->rows - b->i0);
    return 1;
}

/* Copy one destination row segment; non-temporal when allowed for the
 * whole lines inside it (the partial lines at either end are shared with
 * the neighbouring segments and take ordinary stores). */
static void put_row(uint8_t *d, const uint8_t *s, size_t n, int stream)
{
#if AFMT_HAVE_SSE2
    if (stream && n >= 128) {
        size_t head = (size_t)(-(uintptr_t)d & 63), i, body;
        memcpy(d, s, head);
        d += head;
        s += head;
        n -= head;
        body = n & ~(size_t)63;
        for (i = 0; i < body; i += 64) {
            stream_line(d + i, s + i);
        }
        memcpy(d + body, s + body, n - body);
        return;
    }
#else
    (void)stream;
#endif
    memcpy(d, s, n);
}

#if AFMT_HAVE_SSE2
/* One destination row segment of a block when the row continues in the
 * blocks before (prev) and after (next) it, with non-temporal stores and
 * no partial line.  When the destination rows are not line-aligned (odd
 * shapes), every segment starts and ends inside a line that it shares with
 * the segment of the block before or after; written with ordinary stores,
 * each such line costs a read of the line (and its write-back) on top of
 * the stream, 20-40% more time with 256-byte segments.  Instead the bytes
 * of the unfinished line at the end of a segment wait in `carry` (the
 * row's 64 bytes, which always hold the line's bytes before d), and the
 * next segment completes the line and streams it whole.  Every segment
 * but the row's last must be 128 bytes or more (see afmt_transpose2d). */
static void put_seg(uint8_t *d, const uint8_t *s, size_t n, uint8_t *carry, int prev, int next)
{
    size_t pre = (size_t)((uintptr_t)d & 63), body, i;

    if (pre != 0 && prev) {
        if (pre + n < 64) {
            /* the line does not end in this segment either */
            memcpy(carry + pre, s, n);
            if (!next)
                memcpy(d - pre, carry, pre + n);
            return;
        }
        memcpy(carry + pre, s, 64 - pre);
        stream_line(d - pre, carry);
        d += 64 - pre;
        s += 64 - pre;
        n -= 64 - pre;
    } else if (pre != 0) {
        /* the row's first segment: its first line is shared with the end
         * of the row before, written much later */
        size_t h = 64 - pre < n ? 64 - pre : n;
        memcpy(d, s, h);
        d += h;
        s += h;
        n -= h;
    }
    body = n & ~(size_t)63;
    for (i = 0; i < body; i += 64) {
        stream_line(d + i, s + i);
    }
    if (next)
        memcpy(carry, s + body, n - body);
    else
        memcpy(d + body, s + body, n - body);
}
#endif

/* A's row stride for rows of n bytes: long rows get one line more, so
 * that the K rows a kernel reads fall into different L1 sets (at a stride
 * of 1024 bytes they would share 4 of its 64 sets). */
static uint64_t a_stride(uint64_t n)
{
    return n >= 256 ? n + 64 : n;
}

/* Copy block b's source rows into A (row stride a_stride(cn * es)), then
 * byte-swap A in place when asked.  The source rows are read whole
 * segments at a time, one after the other, by memcpy and nothing else:
 * no software prefetch (the hardware follows segments of this length by
 * itself; prefetching the next block, during this copy or spread over the
 * transpose, made it 5-30% slower), and no swap on the way (a loop of
 * 16-byte loads reads such segments from memory at half the speed of
 * memcpy: swapping on the way made a big-endian f32 transpose 5.1x
 * memcpy, swapping A afterwards, in L2, 2.3x; swapping each row just
 * after its copy 3.1x). */
static void load_block(const plan *p, const block *b, uint8_t *A)
{
    const uint8_t *s = p->src + (b->i0 * p->srs + b->k0) * p->es;
    const uint64_t row = b->cn * p->es, as = a_stride(row), ss = p->srs * p->es;
    uint64_t i;

    for (i = 0; i < b->rn; i++)
        memcpy(A + i * as, s + i * ss, (size_t)row);
    if (p->comp > 1)
        for (i = 0; i < b->rn; i++)
            afmt_swap_copy(A + i * as, A + i * as, row, p->comp);
}

/* Transpose block b, already in A (row-major, stride a_stride(cn * es),
 * in L2), a strip of w columns at a time into T (w rows of rn elements,
 * stride rn: a few KiB that stay in L1); each strip goes out to its
 * destination rows at once.
 *
 * Kernels cover K x K squares: they read past the block (inside A,
 * initialised) and a kernel at the right edge of T writes past the end of
 * its rows into the start of the next row; the i-squares run from right
 * to left so that square 0, which owns those places, is written after, and
 * the next row group comes later still (T has room for the last row's
 * overrun). */
static void transpose_block(const plan *p, const block *b, const uint8_t *A, uint8_t *T)
{
    const uint64_t es = p->es, K = p->k, rn = b->rn, cn = b->cn;
    uint8_t *d = p->dst + (b->k0 * p->drs + b->i0) * es;
    const uint64_t as = a_stride(cn * es), ts = rn * es, ds = p->drs * es;
    const uint64_t last = (rn - 1) / K * K;
    uint64_t i, k, kk;

    for (k = 0; k < cn; k += p->w) {
        uint64_t wn = cn - k < p->w ? cn - k : p->w;
        /* columns k .. k + wn of A -> rows 0 .. wn of T */
        if (p->kernel) {
            for (kk = 0; kk < wn; kk += K) {
                i = last;
                for (;;) {
                    p->kernel(A + i * as + (k + kk) * es, (size_t)as, T + kk * ts + i * es,
                              (size_t)ts);
                    if (i == 0)
                        break;
                    i -= K;
                }
            }
        } else {
            for (kk = 0; kk < wn; kk++)
                for (i = 0; i < rn; i++)
                    memcpy(T + kk * ts + i * es, A + i * as + (k + kk) * es, (size_t)es);
        }
        /* T's rows to their destination rows */
        if (p->drs == rn)
            /* the strip's destination rows are contiguous: one copy */
            put_row(d + k * ds, T, (size_t)(wn * ts), p->stream);
#if AFMT_HAVE_SSE2
        else if (p->carry)
            for (kk = 0; kk < wn; kk++)
                put_seg(d + (k + kk) * ds, T + kk * ts, (size_t)ts, p->carry + (k + kk) * 64,
                        b->i0 > 0, b->i0 + rn < p->rows);
#endif
        else
            for (kk = 0; kk < wn; kk++)
                put_row(d + (k + kk) * ds, T + kk * ts, (size_t)ts, p->stream);
    }
}

/* Elements too large for the scratch: one at a time, destination-major. */
static void transpose_big(const uint8_t *src, uint64_t srs, uint8_t *dst, uint64_t drs,
                          uint64_t rows, uint64_t cols, uint64_t es, unsigned comp)
{
    uint64_t i, k;

    for (k = 0; k < cols; k++)
        for (i = 0; i < rows; i++)
            afmt_swap_copy(dst + (k * drs + i) * es, src + (i * srs + k) * es, es, comp);
}

#if AFMT_HAVE_SSE2
/* The two thin shapes, done straight from source to destination: the
 * blocks would pad every kernel to 8-32 rows or columns for 2.  Both are
 * streams (two in, one out, or one in, two out), 32 bytes of the result
 * per step; the stores are non-temporal when allowed and the destination
 * rows are 16-byte aligned. */

/* 16-byte store to d: non-temporal when nt (d then 16-byte aligned). */
static void put16(uint8_t *d, __m128i v, int nt)
{
    if (nt)
        _mm_stream_si128((__m128i *)(void *)d, v);
    else
        STOREU(d, v);
}

/* Two source rows into a destination of two columns (drs 2): an
 * interleave; 16 bytes of each row make 32 of the result. */
#define ZIP_LOOP(UNPACK_LO, UNPACK_HI)                                         \
    for (; k + per <= cols; k += per) {                                        \
        __m128i x = LOADU(s0 + k * es), y = LOADU(s1 + k * es);                \
        put16(dst + 2 * k * es, UNPACK_LO(x, y), nt);                          \
        put16(dst + 2 * k * es + 16, UNPACK_HI(x, y), nt);                     \
    }

static void zip_rows(const uint8_t *src, uint64_t srs, uint8_t *dst, uint64_t cols, uint64_t es,
                     int stream)
{
    const uint8_t *s0 = src, *s1 = src + srs * es;
    const uint64_t per = 16 / es;
    const int nt = stream && ((uintptr_t)dst & 15) == 0;
    uint64_t k = 0;

    switch (es) {
    case 1: ZIP_LOOP(_mm_unpacklo_epi8, _mm_unpackhi_epi8) break;
    case 2: ZIP_LOOP(_mm_unpacklo_epi16, _mm_unpackhi_epi16) break;
    case 4: ZIP_LOOP(_mm_unpacklo_epi32, _mm_unpackhi_epi32) break;
    default: ZIP_LOOP(_mm_unpacklo_epi64, _mm_unpackhi_epi64) break;
    }
    for (; k < cols; k++) {
        memcpy(dst + 2 * k * es, s0 + k * es, (size_t)es);
        memcpy(dst + (2 * k + 1) * es, s1 + k * es, (size_t)es);
    }
}

/* Even and odd elements of 32 source bytes (x, y: pairs a_j b_j in order)
 * into *a (a_0 a_1 ...) and *b (b_0 b_1 ...), for es 1, 2, 4, 8. */
static void unzip32(__m128i x, __m128i y, uint64_t es, __m128i *a, __m128i *b)
{
    switch (es) {
    case 1: {
        /* the even bytes are the low bytes of the 16-bit lanes, the odd
         * ones the high bytes: mask or shift, then pack (no saturation:
         * every lane is below 256) */
        const __m128i lo = _mm_set1_epi16(0xff);
        *a = _mm_packus_epi16(_mm_and_si128(x, lo), _mm_and_si128(y, lo));
        *b = _mm_packus_epi16(_mm_srli_epi16(x, 8), _mm_srli_epi16(y, 8));
        break;
    }
    case 2:
        /* a0 b0 a1 b1 | a2 b2 a3 b3 -> a0 a1 b0 b1 | a2 a3 b2 b3 (the
         * 16-bit shuffles), -> a0 a1 a2 a3 | b0 b1 b2 b3 (32-bit) */
        x = _mm_shuffle_epi32(_mm_shufflehi_epi16(_mm_shufflelo_epi16(x, 0xD8), 0xD8), 0xD8);
        y = _mm_shuffle_epi32(_mm_shufflehi_epi16(_mm_shufflelo_epi16(y, 0xD8), 0xD8), 0xD8);
        *a = _mm_unpacklo_epi64(x, y);
        *b = _mm_unpackhi_epi64(x, y);
        break;
    case 4:
        /* a0 b0 a1 b1 -> a0 a1 b0 b1 */
        x = _mm_shuffle_epi32(x, 0xD8);
        y = _mm_shuffle_epi32(y, 0xD8);
        *a = _mm_unpacklo_epi64(x, y);
        *b = _mm_unpackhi_epi64(x, y);
        break;
    default:
        *a = _mm_unpacklo_epi64(x, y);
        *b = _mm_unpackhi_epi64(x, y);
        break;
    }
}

/* A source of two columns (srs 2) into two destination rows (d0, and d1
 * drs elements further): the reverse of zip_rows. */
static void unzip_rows(const uint8_t *src, uint8_t *dst, uint64_t drs, uint64_t rows,
                       uint64_t es, int stream)
{
    uint8_t *d0 = dst, *d1 = dst + drs * es;
    const uint64_t per = 16 / es;
    uint64_t i = 0, head = 0;
    int nt = 0;

    /* a few elements first, so that both rows are 16-byte aligned for the
     * non-temporal stores (when one head aligns both) */
    if (stream && ((uintptr_t)d0 & 15) % es == 0 && ((uintptr_t)d0 & 15) == ((uintptr_t)d1 & 15)) {
        head = ((16 - ((uintptr_t)d0 & 15)) & 15) / es;
        nt = head < rows;
    }
    if (!nt)
        head = 0;
    for (; i < head; i++) {
        memcpy(d0 + i * es, src + 2 * i * es, (size_t)es);
        memcpy(d1 + i * es, src + (2 * i + 1) * es, (size_t)es);
    }
    for (; i + per <= rows; i += per) {
        __m128i a, b;
        unzip32(LOADU(src + 2 * i * es), LOADU(src + 2 * i * es + 16), es, &a, &b);
        put16(d0 + i * es, a, nt);
        put16(d1 + i * es, b, nt);
    }
    for (; i < rows; i++) {
        memcpy(d0 + i * es, src + 2 * i * es, (size_t)es);
        memcpy(d1 + i * es, src + (2 * i + 1) * es, (size_t)es);
    }
}
#endif

void afmt_transpose2d(const uint8_t *src, uint64_t srs, uint8_t *dst, uint64_t drs,
                      uint64_t rows, uint64_t cols, uint64_t es, unsigned comp,
                      int stream)
{
    uint64_t cap, rb, cb;
    size_t a_size, t_size, c_size;
    uint8_t *A, *T;
    block b;
    plan p;

    if (rows == 0 || cols == 0 || es == 0)
        return;
    if (comp != 2 && comp != 4 && comp != 8)
        comp = 1;
    if (es > BIG_ELEMENT) {
        transpose_big(src, srs, dst, drs, rows, cols, es, comp);
        return;
    }
#if AFMT_HAVE_SSE2
    if (comp == 1 && (es == 1 || es == 2 || es == 4 || es == 8)) {
        if (rows == 2 && drs == 2) {
            zip_rows(src, srs, dst, cols, es, stream);
            if (stream)
                _mm_sfence();
            return;
        }
        if (cols == 2 && srs == 2) {
            unzip_rows(src, dst, drs, rows, es, stream);
            if (stream)
                _mm_sfence();
            return;
        }
    }
#endif
    p.src = src;
    p.dst = dst;
    p.srs = srs;
    p.drs = drs;
    p.rows = rows;
    p.cols = cols;
    p.es = es;
    p.comp = comp;
    p.stream = stream;
    /* Blocks of 64-256 KiB, long and flat: source row segments of 1-2 KiB
     * (cb elements; shorter ones are read at a fraction of memory speed:
     * 256 bytes at about half), destination segments of 256-512 bytes (rb
     * elements, a multiple of 64 bytes so that non-temporal stores write
     * whole lines; writes lose less to short segments than reads).
     * Measured on 0.5-1 GiB arrays: f32 128 x 512 ran at 1.7-1.8x memcpy
     * where 64 x 256 ran at 2.0x; u16 and u8 gained 5-10% from 1 KiB to
     * 2 KiB source segments; f64 and c128 showed no difference between
     * these sizes and twice them. */
    switch (es) {
    case 1: p.kernel = kernel_1; p.k = 16; rb = 256; cb = 1024; break;
    case 2: p.kernel = kernel_2; p.k = 8; rb = 128; cb = 1024; break;
    case 4: p.kernel = kernel_4; p.k = 4; rb = 128; cb = 512; break;
    case 8: p.kernel = kernel_8; p.k = 2; rb = 32; cb = 128; break;
    case 16: p.kernel = kernel_16; p.k = 4; rb = 16; cb = 64; break;
    default: p.kernel = NULL; p.k = 1; rb = 8; cb = 64; break;
    }
#if AFMT_HAVE_AVX2_KERNELS
    if ((es == 1 || es == 2 || es == 4 || es == 8) && have_avx2()) {
        p.kernel = es == 1 ? kernel_1_avx2 : es == 2 ? kernel_2_avx2 : es == 4 ? kernel_4_avx2 : kernel_8_avx2;
        p.k = es == 1 ? 32 : es == 2 ? 16 : es == 4 ? 8 : 4;
    }
#endif
    /* A thin matrix gets blocks as thin as it is and as long as the
     * scratch allows. */
    cap = SCRATCH / es;
    p.rb = min_u64(rb, rows);
    p.cb = min_u64(cb, cols);
    if (cols < cb && cap / (cols + p.k) > p.k)
        p.rb = min_u64(rows, cap / (cols + p.k) - p.k);
    else if (rows < rb && cap / (rows + p.k) > p.k)
        p.cb = min_u64(cols, cap / (rows + p.k) - p.k);
    while ((p.rb + p.k) * (p.cb + p.k) > cap && (p.rb > 1 || p.cb > 1)) {
        if (p.rb > p.cb)
            p.rb = p.rb / 2;
        else
            p.cb = p.cb / 2;
    }
    /* Strips of T of about 8 KiB (a whole number of kernels). */
    p.w = STRIP / (p.rb * es) / p.k * p.k;
    if (p.w < p.k)
        p.w = p.k;
    /* A: rb + K rows (the kernels read up to K - 1 rows past the block)
     * and one more for the columns they read past the last row. */
    a_size = (size_t)((p.rb + p.k + 1) * a_stride((p.cb + p.k) * es) + 63) & ~(size_t)63;
    t_size = (size_t)((p.w * p.rb + p.k) * es + 63) & ~(size_t)63;
    /* Lines shared by two blocks' segments of a destination row go out
     * whole (put_seg) when streaming to rows that are not line-aligned
     * and that take more than one block, in segments of 128 bytes or more
     * (then a row's first segment ends past its first line boundary, so
     * every line put_seg completes lies inside the row). */
    c_size = 0;
#if AFMT_HAVE_SSE2
    if (stream && (drs * es) % 64 != 0 && rows > p.rb && p.rb * es >= 128)
        c_size = (size_t)(p.cb * 64);
#endif
    A = malloc(a_size + t_size + c_size);
    if (!A) {
        /* no memory for a few hundred KiB: the slow way still works */
        transpose_big(src, srs, dst, drs, rows, cols, es, comp);
        return;
    }
    T = A + a_size;
    p.carry = c_size ? T + t_size : NULL;
    /* The kernels read A past the block: those bytes must be defined. */
    memset(A, 0, a_size);
    /* Non-temporal stores want whole lines: when every destination row has
     * the same alignment, a short first block of each band makes the
     * others start on a line. */
    p.first = 0;
    if (stream && (drs * es) % 64 == 0) {
        uint64_t lead = (uint64_t)(-(uintptr_t)dst & 63);
        if (lead % es == 0 && lead / es < rows)
            p.first = lead / es;
    }
    first_block(&p, &b);
    do {
        load_block(&p, &b, A);
        transpose_block(&p, &b, A, T);
    } while (next_block(&p, &b));
#if AFMT_HAVE_SSE2
    if (stream)
        _mm_sfence();
#endif
    free(A);
}
