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
#include "afmt.h"

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

#ifdef __cplusplus
}
#endif
#endif
