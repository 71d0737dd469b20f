/* Float header fields: loading and exact text (afmt_float.h). */
#include "afmt_float.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../core/afmt_fields.h"

double afmt_float_get(const uint8_t *p, unsigned width, int big)
{
    const uint64_t bits = afmt_field_get(p, 0, width, big);
    if (width == 4) {
        const uint32_t b32 = (uint32_t)bits;
        float f;
        memcpy(&f, &b32, sizeof f);
        return (double)f;
    } else {
        double d;
        memcpy(&d, &bits, sizeof d);
        return d;
    }
}

uint64_t afmt_float_bits(double v, unsigned width)
{
    if (width == 4) {
        const float f = (float)v;
        uint32_t b32;
        memcpy(&b32, &f, sizeof b32);
        return b32;
    } else {
        uint64_t b;
        memcpy(&b, &v, sizeof b);
        return b;
    }
}

afmt_float_txt afmt_float_text(double v, unsigned width)
{
    afmt_float_txt t;
    int prec;
    if (v != v) { /* NaN, whatever its sign and payload: one spelling */
        strcpy(t.s, "nan");
        return t;
    }
    if (!afmt_float_finite(v)) {
        strcpy(t.s, v > 0 ? "inf" : "-inf");
        return t;
    }
    /* the fewest significant digits that read back exactly (9 always do
     * for binary32, 17 for binary64); then, of the spellings with as many
     * digits or more, the shortest: 300, not 3e+02 */
    for (prec = 1; prec < 17; prec++) {
        snprintf(t.s, sizeof t.s, "%.*g", prec, v);
        if (width == 4 ? (double)strtof(t.s, NULL) == v : strtod(t.s, NULL) == v) break;
    }
    if (prec == 17) snprintf(t.s, sizeof t.s, "%.17g", v);
    for (prec++; prec <= 17 && strchr(t.s, 'e'); prec++) {
        afmt_float_txt u;
        snprintf(u.s, sizeof u.s, "%.*g", prec, v);
        if (strlen(u.s) < strlen(t.s) && (width == 4 ? (double)strtof(u.s, NULL) == v : strtod(u.s, NULL) == v)) t = u;
    }
    return t;
}
