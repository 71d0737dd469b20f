/* afmt runtime: element types.
 *
 * One table of element types shared by every format.  Spec files name
 * element types with these names ("i32", "c64", ...); afmt-gen refuses any
 * other name.  "opaque" is RawArray's user-defined element: bytes whose size
 * the file gives and whose meaning afmt does not know.
 */
#ifndef AFMT_DTYPE_H
#define AFMT_DTYPE_H

#include <stdint.h>

typedef enum afmt_dtype {
    AFMT_DTYPE_INVALID = 0,
    AFMT_BOOL, AFMT_I8, AFMT_I16, AFMT_I32, AFMT_I64,
    AFMT_U8, AFMT_U16, AFMT_U32, AFMT_U64,
    AFMT_F16, AFMT_BF16, AFMT_F32, AFMT_F64,
    AFMT_C64,  /* complex of two f32 */
    AFMT_C128, /* complex of two f64 */
    AFMT_OPAQUE,
    AFMT_DTYPE_COUNT_
} afmt_dtype;

typedef enum afmt_dtype_kind {
    AFMT_KIND_BOOL, AFMT_KIND_SIGNED, AFMT_KIND_UNSIGNED,
    AFMT_KIND_FLOAT, AFMT_KIND_COMPLEX, AFMT_KIND_OPAQUE
} afmt_dtype_kind;

typedef struct afmt_dtype_info {
    afmt_dtype dtype;
    const char *name;      /* "i32" */
    unsigned size;         /* bytes of one element, 0 for opaque */
    afmt_dtype_kind kind;
    unsigned component;    /* bytes of one scalar component: c64 -> 4 */
} afmt_dtype_info;

/* Info for a dtype; the INVALID entry for out-of-range values. */
const afmt_dtype_info *afmt_dtype_get(afmt_dtype dtype);
const char *afmt_dtype_name(afmt_dtype dtype);
/* Parse "i32", "c64", ...; AFMT_DTYPE_INVALID if unknown. */
afmt_dtype afmt_dtype_from_name(const char *name);

/* IEEE half and bfloat16 conversions, exact in the widening direction. */
double afmt_f16_to_double(uint16_t h);
double afmt_bf16_to_double(uint16_t h);
/* Narrowing: returns 1 when the value is exactly representable (NaN payload
 * aside), 0 otherwise; *out receives the round-to-nearest-even result. */
int afmt_double_to_f16(double d, uint16_t *out);
int afmt_double_to_bf16(double d, uint16_t *out);

#endif /* AFMT_DTYPE_H */
