/* afmt runtime: the element type table and half/bfloat16 conversions.
 *
 * The conversions work on the bits of an IEEE double rather than through
 * libm or float casts: they are exact by construction, need no -lm, and do
 * not depend on the current rounding mode.
 */
#include "afmt_dtype.h"

#include <string.h>

static const afmt_dtype_info dtype_table[AFMT_DTYPE_COUNT_] = {
    { AFMT_DTYPE_INVALID, "invalid", 0, AFMT_KIND_OPAQUE, 0 },
    { AFMT_BOOL, "bool", 1, AFMT_KIND_BOOL, 1 },
    { AFMT_I8, "i8", 1, AFMT_KIND_SIGNED, 1 },
    { AFMT_I16, "i16", 2, AFMT_KIND_SIGNED, 2 },
    { AFMT_I32, "i32", 4, AFMT_KIND_SIGNED, 4 },
    { AFMT_I64, "i64", 8, AFMT_KIND_SIGNED, 8 },
    { AFMT_U8, "u8", 1, AFMT_KIND_UNSIGNED, 1 },
    { AFMT_U16, "u16", 2, AFMT_KIND_UNSIGNED, 2 },
    { AFMT_U32, "u32", 4, AFMT_KIND_UNSIGNED, 4 },
    { AFMT_U64, "u64", 8, AFMT_KIND_UNSIGNED, 8 },
    { AFMT_F16, "f16", 2, AFMT_KIND_FLOAT, 2 },
    { AFMT_BF16, "bf16", 2, AFMT_KIND_FLOAT, 2 },
    { AFMT_F32, "f32", 4, AFMT_KIND_FLOAT, 4 },
    { AFMT_F64, "f64", 8, AFMT_KIND_FLOAT, 8 },
    { AFMT_C64, "c64", 8, AFMT_KIND_COMPLEX, 4 },
    { AFMT_C128, "c128", 16, AFMT_KIND_COMPLEX, 8 },
    /* Opaque elements have no fixed size and are never byte-swapped. */
    { AFMT_OPAQUE, "opaque", 0, AFMT_KIND_OPAQUE, 0 },
    { AFMT_C32, "c32", 4, AFMT_KIND_COMPLEX, 2 },
};

const afmt_dtype_info *afmt_dtype_get(afmt_dtype dtype)
{
    if ((int)dtype <= 0 || (int)dtype >= (int)AFMT_DTYPE_COUNT_)
        return &dtype_table[AFMT_DTYPE_INVALID];
    return &dtype_table[dtype];
}

const char *afmt_dtype_name(afmt_dtype dtype)
{
    return afmt_dtype_get(dtype)->name;
}

afmt_dtype afmt_dtype_from_name(const char *name)
{
    int i;

    if (!name)
        return AFMT_DTYPE_INVALID;
    for (i = 1; i < (int)AFMT_DTYPE_COUNT_; i++)
        if (strcmp(dtype_table[i].name, name) == 0)
            return dtype_table[i].dtype;
    return AFMT_DTYPE_INVALID;
}

/* ---------------------------------------------------------------- bits */

#define F64_MANT 52
#define F64_BIAS 1023

static double bits_to_double(uint64_t b)
{
    double d;
    memcpy(&d, &b, sizeof d);
    return d;
}

static uint64_t double_to_bits(double d)
{
    uint64_t b;
    memcpy(&b, &d, sizeof b);
    return b;
}

/* Widen a small IEEE binary format (mbits of mantissa, ebits of exponent)
 * to double.  Every such value is a double, so this is exact. */
static double widen(uint32_t h, unsigned mbits, unsigned ebits)
{
    uint64_t sign = (uint64_t)(h >> (mbits + ebits)) & 1u;
    uint32_t emax_field = (1u << ebits) - 1;
    uint32_t efield = (h >> mbits) & emax_field;
    uint64_t mant = h & ((1u << mbits) - 1);
    int bias = (int)(emax_field >> 1);
    int e;

    if (efield == emax_field) /* inf, or NaN with its payload kept */
        return bits_to_double(sign << 63 | (uint64_t)0x7ff << F64_MANT |
                              mant << (F64_MANT - mbits));
    if (efield == 0) {
        if (mant == 0)
            return bits_to_double(sign << 63);
        /* Subnormal: normalise, the double has room for the exponent. */
        e = 1 - bias;
        while (!(mant & ((uint64_t)1 << mbits))) {
            mant <<= 1;
            e--;
        }
        mant &= ((uint64_t)1 << mbits) - 1;
    } else {
        e = (int)efield - bias;
    }
    return bits_to_double(sign << 63 | (uint64_t)(e + F64_BIAS) << F64_MANT |
                          mant << (F64_MANT - mbits));
}

/* Narrow a double to a small IEEE binary format, rounding to nearest even.
 * Returns 1 when no rounding happened (NaN counts as exact). */
static int narrow(double d, unsigned mbits, unsigned ebits, uint32_t *out)
{
    uint64_t b = double_to_bits(d);
    uint32_t sign = (uint32_t)(b >> 63) << (mbits + ebits);
    int dexp = (int)((b >> F64_MANT) & 0x7ff);
    uint64_t sig = b & (((uint64_t)1 << F64_MANT) - 1);
    uint32_t emax_field = (1u << ebits) - 1;
    int bias = (int)(emax_field >> 1);
    int emin = 1 - bias, emax = bias;
    uint32_t inf = emax_field << mbits;
    uint64_t r, rem, half;
    int e, te, shift, exact;

    if (dexp == 0x7ff) {
        if (sig == 0) {
            *out = sign | inf;
            return 1;
        }
        /* Quiet NaN, keeping the top payload bits that fit. */
        *out = sign | inf | 1u << (mbits - 1) |
               (uint32_t)(sig >> (F64_MANT - mbits));
        return 1;
    }
    if (dexp == 0 && sig == 0) {
        *out = sign;
        return 1;
    }
    /* value = sig * 2^(e - 52) with bit 52 of sig set. */
    if (dexp == 0) {
        e = 1 - F64_BIAS;
        while (!(sig & ((uint64_t)1 << F64_MANT))) {
            sig <<= 1;
            e--;
        }
    } else {
        sig |= (uint64_t)1 << F64_MANT;
        e = dexp - F64_BIAS;
    }
    if (e > emax) {
        *out = sign | inf;
        return 0;
    }
    /* Target: value ~ r * 2^(te - mbits); below emin the result is
     * subnormal and keeps the exponent of the smallest normal. */
    te = e < emin ? emin : e;
    shift = te - (int)mbits - e + F64_MANT;
    if (shift > F64_MANT + 1) {
        /* Less than half of the smallest subnormal: rounds to zero. */
        *out = sign;
        return 0;
    }
    r = sig >> shift;
    rem = sig & (((uint64_t)1 << shift) - 1);
    half = (uint64_t)1 << (shift - 1);
    exact = rem == 0;
    if (rem > half || (rem == half && (r & 1)))
        r++;
    if (r == (uint64_t)1 << (mbits + 1)) { /* carried into the exponent */
        r >>= 1;
        te++;
    }
    if (te > emax) {
        *out = sign | inf;
        return 0;
    }
    if (r < ((uint64_t)1 << mbits)) /* subnormal (or zero) */
        *out = sign | (uint32_t)r;
    else
        *out = sign | (uint32_t)(te + bias) << mbits |
               (uint32_t)(r - ((uint64_t)1 << mbits));
    return exact;
}

double afmt_f16_to_double(uint16_t h) { return widen(h, 10, 5); }
double afmt_bf16_to_double(uint16_t h) { return widen(h, 7, 8); }

int afmt_double_to_f16(double d, uint16_t *out)
{
    uint32_t v;
    int exact = narrow(d, 10, 5, &v);
    *out = (uint16_t)v;
    return exact;
}

int afmt_double_to_bf16(double d, uint16_t *out)
{
    uint32_t v;
    int exact = narrow(d, 7, 8, &v);
    *out = (uint16_t)v;
    return exact;
}
