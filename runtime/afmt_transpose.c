/* afmt runtime: cache-aware transposes (see afmt_transpose.h).
 *
 * Two levels of tiling.  The matrix is cut into blocks of a few KiB; each
 * block goes through two small scratch buffers that stay in L1:
 *
 *   1. copy the block's source rows, one row segment after the other, into
 *      scratch A (and byte-swap here when asked: the swap is free on data
 *      already in L1);
 *   2. transpose A into scratch T with register kernels (SSE2 on x86-64:
 *      8x8 bytes, 8x8 u16, 4x4 u32, 2x2 u64; a portable element loop
 *      elsewhere), reading and writing at the small strides of the scratch
 *      buffers;
 *   3. copy T's rows to their destination rows, with non-temporal stores
 *      when the caller allows it and the rows are aligned.
 *
 * Why the detour: the direct transpose reads (or writes) with the row
 * stride of the matrix, and at a power-of-two stride (8192 or 16384
 * elements) every row of a tile maps to the same L1 and L2 sets, so lines
 * are evicted before the rest of them is used (the 64x64 tiles of the first
 * version ran 3-6x slower than 16x16 tiles for that reason).  Through the
 * scratch, each source and destination line is touched once, whole, in a
 * row segment of 64-256 contiguous bytes, and the strided register work
 * happens at strides that do not alias.
 *
 * The kernels need fixed small strides only, so edge blocks (odd shapes,
 * one-row or one-column matrices) use the same code: a block is as wide as
 * what is left, the kernels read a little past the block (inside the
 * scratch, which is initialised) and write past a row of T only into places
 * that a later kernel overwrites (see transpose_block).
 */
#include "afmt_transpose.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "afmt_bytes.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#define AFMT_HAVE_SSE2 1
#endif

/* Most bytes of each of the two scratch buffers; a block of rb x cb
 * elements uses (rb + K) * (cb + K) * es of it (K: the kernel's edge).
 * Blocks of about 64 KiB (the scratch then lives in L2): every row segment
 * of a block is on its own page for large matrices, so a block costs about
 * rb + cb TLB misses, and bigger blocks pay fewer per byte.  Measured on
 * 256 MiB - 1 GiB matrices: 32x32 f32 blocks ran at 3x memcpy, 64x64 and
 * 128x128 at about 2x; u8 went from 3.3x to 2.3-2.8x with 256x256. */
#define SCRATCH 83000
/* Elements larger than this skip the scratch (a block would be one element). */
#define BIG_ELEMENT 1024

void afmt_swap_copy(uint8_t *d, const uint8_t *s, uint64_t n, unsigned comp)
{
    uint64_t i;

    switch (comp) {
    case 2:
        for (i = 0; i + 2 <= n; i += 2) {
            uint16_t v;
            memcpy(&v, s + i, 2);
            v = (uint16_t)(v << 8 | v >> 8);
            memcpy(d + i, &v, 2);
        }
        break;
    case 4:
        for (i = 0; i + 4 <= n; i += 4) {
            uint32_t v;
            memcpy(&v, s + i, 4);
            v = (v >> 24) | ((v >> 8) & 0xff00u) | ((v << 8) & 0xff0000u) | (v << 24);
            memcpy(d + i, &v, 4);
        }
        break;
    case 8:
        for (i = 0; i + 8 <= n; i += 8) {
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
    uint64_t es;
    unsigned comp;
    int stream;
    kernel_fn kernel; /* NULL: element loop */
    uint64_t k;       /* kernel edge */
    uint64_t rb, cb;  /* block rows and columns */
    uint64_t rows;
} plan;

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
            _mm_stream_si128((__m128i *)(void *)(d + i), LOADU(s + i));
            _mm_stream_si128((__m128i *)(void *)(d + i + 16), LOADU(s + i + 16));
            _mm_stream_si128((__m128i *)(void *)(d + i + 32), LOADU(s + i + 32));
            _mm_stream_si128((__m128i *)(void *)(d + i + 48), LOADU(s + i + 48));
        }
        memcpy(d + body, s + body, n - body);
        return;
    }
#else
    (void)stream;
#endif
    memcpy(d, s, n);
}

/* One block: rows [i0, i0 + rn) and columns [k0, k0 + cn) of the source.
 * A holds the block row-major with stride cn, T its transpose with stride
 * rn.  Kernels cover ceil(rn/K) x ceil(cn/K) squares: they read past the
 * block (inside A, initialised) and a kernel at the right edge of T writes
 * past the end of its rows into the start of the next row; the i-squares
 * run from right to left so that square 0, which owns those places, is
 * written after, and the next row group comes later still.  While the block
 * is copied in, the rows of the next block down (the next call, usually)
 * are prefetched: each source row segment is on its own page, and without
 * the prefetch every one of them waits for its TLB miss and its lines. */
static void transpose_block(const plan *p, const uint8_t *src, uint64_t srs,
                            uint8_t *dst, uint64_t drs, uint64_t i0, uint64_t k0,
                            uint64_t rn, uint64_t cn, uint8_t *A, uint8_t *T)
{
    const uint64_t es = p->es, K = p->k;
    const uint8_t *s = src + (i0 * srs + k0) * es;
    uint8_t *d = dst + (k0 * drs + i0) * es;
    uint64_t i, k, j, row = cn * es;

    /* 1: source rows into A */
    if (srs == cn) {
        afmt_swap_copy(A, s, rn * row, p->comp);
    } else {
        uint64_t ahead = p->rows - i0 - rn < rn ? p->rows - i0 - rn : rn;
        for (i = 0; i < rn; i++) {
            if (i < ahead)
                for (j = 0; j < row; j += 64)
                    __builtin_prefetch(s + (rn + i) * srs * es + j);
            afmt_swap_copy(A + i * row, s + i * srs * es, row, p->comp);
        }
    }
    /* 2: A -> T */
    if (p->kernel) {
        uint64_t last = (rn - 1) / K * K;
        for (k = 0; k < cn; k += K) {
            i = last;
            for (;;) {
                p->kernel(A + (i * cn + k) * es, (size_t)row, T + (k * rn + i) * es,
                          (size_t)(rn * es));
                if (i == 0)
                    break;
                i -= K;
            }
        }
    } else {
        for (k = 0; k < cn; k++)
            for (i = 0; i < rn; i++)
                memcpy(T + (k * rn + i) * es, A + (i * cn + k) * es, (size_t)es);
    }
    /* 3: T rows to the destination rows */
    if (drs == rn) {
        /* the block's destination rows are contiguous: one copy */
        put_row(d, T, (size_t)(cn * rn * es), p->stream);
    } else {
        for (k = 0; k < cn; k++)
            put_row(d + k * drs * es, T + k * rn * es, (size_t)(rn * es), p->stream);
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

static uint64_t min_u64(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

#if AFMT_HAVE_SSE2
/* Two source rows into a destination of two columns: an interleave, done
 * straight from the rows (the blocks would pad every kernel to 8 or 16
 * rows for 2).  16 bytes of each row make 32 of the result. */
#define ZIP_LOOP(UNPACK_LO, UNPACK_HI)                                         \
    for (; k + per <= cols; k += per) {                                        \
        __m128i x = LOADU(s0 + k * es), y = LOADU(s1 + k * es);                \
        STOREU(dst + 2 * k * es, UNPACK_LO(x, y));                             \
        STOREU(dst + 2 * k * es + 16, UNPACK_HI(x, y));                        \
    }

static void zip_rows(const uint8_t *src, uint64_t srs, uint8_t *dst, uint64_t cols, uint64_t es)
{
    const uint8_t *s0 = src, *s1 = src + srs * es;
    const uint64_t per = 16 / es;
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
#endif

void afmt_transpose2d(const uint8_t *src, uint64_t srs, uint8_t *dst, uint64_t drs,
                      uint64_t rows, uint64_t cols, uint64_t es, unsigned comp,
                      int stream)
{
    uint64_t cap, rb, cb, i0, k0, first;
    size_t scratch;
    uint8_t *A, *T;
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
    if (rows == 2 && drs == 2 && comp == 1 && (es == 1 || es == 2 || es == 4 || es == 8)) {
        zip_rows(src, srs, dst, cols, es);
        return;
    }
#endif
    p.es = es;
    p.comp = comp;
    p.stream = stream;
    p.rows = rows;
    /* Blocks of about 64 KiB, rb (the destination segment) a multiple of
     * 64 bytes so that non-temporal stores write whole lines. */
    switch (es) {
    case 1: p.kernel = kernel_1; p.k = 16; rb = 256; cb = 256; break;
    case 2: p.kernel = kernel_2; p.k = 8; rb = 192; cb = 160; break;
    case 4: p.kernel = kernel_4; p.k = 4; rb = 128; cb = 128; break;
    case 8: p.kernel = kernel_8; p.k = 2; rb = 96; cb = 80; break;
    case 16: p.kernel = kernel_16; p.k = 4; rb = 64; cb = 48; break;
    default: p.kernel = NULL; p.k = 1; rb = 8; cb = 8; break;
    }
#if AFMT_HAVE_AVX2_KERNELS
    if ((es == 1 || es == 4 || es == 8) && have_avx2()) {
        p.kernel = es == 1 ? kernel_1_avx2 : es == 4 ? kernel_4_avx2 : kernel_8_avx2;
        p.k = es == 1 ? 32 : es == 4 ? 8 : 4;
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
    scratch = (size_t)((p.rb + p.k) * (p.cb + p.k) * es + 63) & ~(size_t)63;
    A = malloc(2 * scratch);
    if (!A) {
        /* no memory for at most 150 KiB: the slow way still works */
        transpose_big(src, srs, dst, drs, rows, cols, es, comp);
        return;
    }
    T = A + scratch;
    /* The kernels read A past the block: those bytes must be defined. */
    memset(A, 0, scratch);
    /* Non-temporal stores want whole lines: when every destination row has
     * the same alignment, a short first block makes the others start on a
     * line. */
    first = 0;
    if (stream && (drs * es) % 64 == 0) {
        uint64_t lead = (uint64_t)(-(uintptr_t)dst & 63);
        if (lead % es == 0 && lead / es < rows)
            first = lead / es;
    }
    for (k0 = 0; k0 < cols; k0 += p.cb) {
        uint64_t cn = min_u64(p.cb, cols - k0), rn;
        for (i0 = 0; i0 < rows; i0 += rn) {
            rn = i0 == 0 && first ? first : min_u64(p.rb, rows - i0);
            transpose_block(&p, src, srs, dst, drs, i0, k0, rn, cn, A, T);
        }
    }
#if AFMT_HAVE_SSE2
    if (stream)
        _mm_sfence();
#endif
    free(A);
}
