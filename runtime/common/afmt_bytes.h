/* INTERNAL HEADER: for generated code and the runtime only, not an API (it
 * changes with AFMT_RUNTIME_ABI); programs include <afmt/afmt.h> and <afmt/<format>.h>. */
/* afmt runtime: bounded loads and checked 64-bit arithmetic.
 *
 * Every load takes a pointer the caller has already bounds-checked against
 * the input length; the loads themselves use memcpy so that unaligned input
 * (tenbin payloads are only 16-byte aligned, futhark dims start at odd
 * offsets) is never undefined behaviour.  Arithmetic helpers fail (-1) on
 * overflow instead of wrapping, so a size computed from a hostile header can
 * never come out small.
 */
#ifndef AFMT_BYTES_H
#define AFMT_BYTES_H

#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

static inline uint8_t afmt_load_u8(const uint8_t *p) { return p[0]; }

static inline uint16_t afmt_load_u16le(const uint8_t *p)
{
    return (uint16_t)(p[0] | (uint16_t)p[1] << 8);
}
static inline uint16_t afmt_load_u16be(const uint8_t *p)
{
    return (uint16_t)(p[1] | (uint16_t)p[0] << 8);
}
static inline uint32_t afmt_load_u32le(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint32_t afmt_load_u32be(const uint8_t *p)
{
    return (uint32_t)p[3] | (uint32_t)p[2] << 8 | (uint32_t)p[1] << 16 | (uint32_t)p[0] << 24;
}
static inline uint64_t afmt_load_u64le(const uint8_t *p)
{
    return (uint64_t)afmt_load_u32le(p) | (uint64_t)afmt_load_u32le(p + 4) << 32;
}
static inline uint64_t afmt_load_u64be(const uint8_t *p)
{
    return (uint64_t)afmt_load_u32be(p + 4) | (uint64_t)afmt_load_u32be(p) << 32;
}
/* Signed loads: two's complement reinterpretation, defined in C11 through
 * the conversion of an in-range value (we never shift into the sign bit). */
static inline int64_t afmt_as_i64(uint64_t v, unsigned bits)
{
    if (bits < 64 && (v >> (bits - 1)) & 1u)
        v |= ~(uint64_t)0 << bits;
    return (v >> 63) ? -(int64_t)(~v) - 1 : (int64_t)v;
}

static inline void afmt_store_u16le(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static inline void afmt_store_u16be(uint8_t *p, uint16_t v) { p[1] = (uint8_t)v; p[0] = (uint8_t)(v >> 8); }
static inline void afmt_store_u32le(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24);
}
static inline void afmt_store_u32be(uint8_t *p, uint32_t v)
{
    p[3] = (uint8_t)v; p[2] = (uint8_t)(v >> 8); p[1] = (uint8_t)(v >> 16); p[0] = (uint8_t)(v >> 24);
}
static inline void afmt_store_u64le(uint8_t *p, uint64_t v)
{
    afmt_store_u32le(p, (uint32_t)v); afmt_store_u32le(p + 4, (uint32_t)(v >> 32));
}
static inline void afmt_store_u64be(uint8_t *p, uint64_t v)
{
    afmt_store_u32be(p + 4, (uint32_t)v); afmt_store_u32be(p, (uint32_t)(v >> 32));
}

/* Checked arithmetic: 0 on success, -1 on overflow (out untouched), the
 * convention of the rest of the runtime (and of C23's ckd_add: nonzero
 * when the result does not fit), so that
 *     if (afmt_checked_add_u64(off, len, &end)) return fail(...);
 * reads as every other check does.  (Until runtime ABI 18 these were
 * afmt_add_u64 & co. returning 1 on success: renamed rather than turned
 * round, so that code written for the old convention does not compile
 * instead of silently inverting.) */
static inline int afmt_checked_add_u64(uint64_t a, uint64_t b, uint64_t *out)
{
    if (a > UINT64_MAX - b) return -1;
    *out = a + b; return 0;
}
static inline int afmt_checked_sub_u64(uint64_t a, uint64_t b, uint64_t *out)
{
    if (b > a) return -1;
    *out = a - b; return 0;
}
static inline int afmt_checked_mul_u64(uint64_t a, uint64_t b, uint64_t *out)
{
    if (a != 0 && b > UINT64_MAX / a) return -1;
    *out = a * b; return 0;
}
static inline int afmt_checked_add_i64(int64_t a, int64_t b, int64_t *out)
{
    if ((b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b)) return -1;
    *out = a + b; return 0;
}
static inline int afmt_checked_sub_i64(int64_t a, int64_t b, int64_t *out)
{
    if ((b < 0 && a > INT64_MAX + b) || (b > 0 && a < INT64_MIN + b)) return -1;
    *out = a - b; return 0;
}
static inline int afmt_checked_mul_i64(int64_t a, int64_t b, int64_t *out)
{
    if (a == 0 || b == 0) { *out = 0; return 0; }
    if (a == -1) { if (b == INT64_MIN) return -1; *out = -b; return 0; }
    if (b == -1) { if (a == INT64_MIN) return -1; *out = -a; return 0; }
    if (a > 0 ? (b > 0 ? a > INT64_MAX / b : b < INT64_MIN / a)
              : (b > 0 ? a < INT64_MIN / b : a < INT64_MAX / b)) return -1;
    *out = a * b; return 0;
}
/* Round a up to a multiple of k: 0 on success, -1 when k is 0 or the
 * result does not fit. */
static inline int afmt_checked_roundup_u64(uint64_t a, uint64_t k, uint64_t *out)
{
    uint64_t r;
    if (k == 0) return -1;
    r = a % k;
    if (r == 0) { *out = a; return 0; }
    return afmt_checked_add_u64(a, k - r, out);
}
/* ceil(a / k) (k > 0), never overflows. */
static inline uint64_t afmt_ceil_div_u64(uint64_t a, uint64_t k)
{
    return a / k + (a % k != 0);
}
/* Exact comparison of a signed and an unsigned value: -1, 0, 1. */
static inline int afmt_cmp_i64_u64(int64_t a, uint64_t b)
{
    if (a < 0) return -1;
    return (uint64_t)a < b ? -1 : (uint64_t)a > b;
}

#ifdef __cplusplus
}
#endif
#endif /* AFMT_BYTES_H */
