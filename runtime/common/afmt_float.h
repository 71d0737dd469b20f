/* INTERNAL HEADER: for generated code and the runtime only, not an API (it
 * changes with AFMT_RUNTIME_ABI); programs include <afmt/afmt.h> and <afmt/<format>.h>. */
/* afmt runtime: float header fields (spec/LANGUAGE.md, "Float fields").
 * A field of type f32 or f64 is loaded as a double (an f32 converts
 * exactly); expressions only compare it, or test it with finite() and
 * integral().  The text of a value is its shortest form that reads back
 * to the same value, so what `afmt info` and error messages show is
 * exact and the same from the generated code and the interpreter.
 */
#ifndef AFMT_FLOAT_H
#define AFMT_FLOAT_H

#include <stdint.h>
#include "../afmt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* afmt_float_get and afmt_float_text (a float field's value, and its
 * shortest exact text) are public: afmt.h. */


/* The bit pattern of v as a float of `width` bytes (4: v rounded to
 * binary32, which writers only do for values that are exact in it). */
AFMT_GEN_API uint64_t afmt_float_bits(double v, unsigned width);


/* finite(x): neither infinite nor NaN.  (x - x is 0 exactly then; no
 * <math.h>, which a vendored build may not link.) */
static inline int afmt_float_finite(double x)
{
    return x - x == 0;
}

/* integral(x): finite and without a fractional part. */
static inline int afmt_float_integral(double x)
{
    if (!afmt_float_finite(x)) return 0;
    /* from 2^52 up every double is an integer, and within +-2^63 the
     * conversion to int64_t below is defined */
    if (x >= 4503599627370496.0 || x <= -4503599627370496.0) return 1;
    return (double)(int64_t)x == x;
}

/* int(x) and trunc(x): a float as a signed 64-bit integer (spec/LANGUAGE.md,
 * "Float fields").  trunc drops the fractional part toward zero, as C's
 * (int) conversion does (nifti1.h reads vox_offset so); int (exact set)
 * refuses one.  Returns AFMT_F2I_OK with *out set, or why not: the value
 * is infinite or NaN, has a fractional part (exact only), or lies outside
 * [-2^63, 2^63), where the conversion would be undefined behaviour. */
enum { AFMT_F2I_OK, AFMT_F2I_NOT_FINITE, AFMT_F2I_FRACTION, AFMT_F2I_RANGE };
static inline int afmt_float_to_i64(double x, int exact, int64_t *out)
{
    if (!afmt_float_finite(x)) return AFMT_F2I_NOT_FINITE;
    if (exact && !afmt_float_integral(x)) return AFMT_F2I_FRACTION;
    /* both bounds are powers of two, exact as doubles */
    if (!(x >= -9223372036854775808.0 && x < 9223372036854775808.0)) return AFMT_F2I_RANGE;
    *out = (int64_t)x;
    return AFMT_F2I_OK;
}

#ifdef __cplusplus
}
#endif
#endif
