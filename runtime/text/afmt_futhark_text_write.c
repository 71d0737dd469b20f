/* afmt runtime: writing Futhark text values (see afmt_futhark_text.h).
 *
 * The form written is the one every Futhark reader reads (docs/FORMATS.md):
 * a type suffix on every number, no leading zeros, `empty([d]..type)` for
 * an array with a zero dimension, `fNN.nan`, `fNN.inf`, `-fNN.inf`, and
 * floats in the fewest significant digits that read back to the same
 * bits.  "Read back" is decided by this runtime's own text reader (correct
 * rounding, no locale), so a float printed here is exact by construction.
 */
#include "afmt_futhark_text.h"

#include <inttypes.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Text is made in a buffer of this size and handed to the sink in pieces. */
#define TEXT_CHUNK 65536
/* The longest element: "-9223372036854775808i64", a float of 17 digits
 * with exponent and suffix, "-f64.inf". */
#define ELEMENT_MAX 48

typedef struct text_out {
    afmt_sink *sink;
    afmt_error *err;
    size_t len;
    int failed;
    int c_point;  /* the locale's decimal point is '.': strtod reads our text */
    char buf[TEXT_CHUNK];
} text_out;

static void out_flush(text_out *o)
{
    if (o->len && !o->failed && afmt_sink_put(o->sink, o->buf, o->len, o->err) != 0)
        o->failed = 1;
    o->len = 0;
}

static void out_put(text_out *o, const char *s, size_t n)
{
    if (o->len + n > sizeof o->buf)
        out_flush(o);
    memcpy(o->buf + o->len, s, n);
    o->len += n;
}

static void out_puts(text_out *o, const char *s)
{
    out_put(o, s, strlen(s));
}

/* printf's output in whatever locale the program runs, made into
 * Futhark's spelling: the decimal point (whatever the locale calls it)
 * becomes '.', and an exponent loses its '+' and leading zeros (all
 * readers take 1e20 and 1e-8; not all 1e+20). */
static size_t spell(char *out, size_t cap, const char *raw)
{
    size_t i, n = 0;
    int in_point = 0, in_exp = 0, exp_digits = 0;

    for (i = 0; raw[i] && n + 1 < cap; i++) {
        char c = raw[i];
        if (c >= '0' && c <= '9') {
            if (in_exp && !exp_digits && c == '0' && raw[i + 1] >= '0' && raw[i + 1] <= '9')
                continue;
            if (in_exp)
                exp_digits++;
            out[n++] = c;
            in_point = 0;
        } else if (c == '-') {
            out[n++] = c;
        } else if (c == 'e') {
            out[n++] = c;
            in_exp = 1;
        } else if (c == '+') {
            continue;
        } else if (!in_point) {
            out[n++] = '.';
            in_point = 1;
        }
    }
    out[n] = '\0';
    return n;
}

static size_t g_format(char *out, size_t cap, int digits, double v)
{
    char raw[384]; /* %.17g or %.30f of any double the callers pass fits */
    snprintf(raw, sizeof raw, "%.*g", digits, v);
    return spell(out, cap, raw);
}

static size_t f_format(char *out, size_t cap, int decimals, double v)
{
    char raw[384];
    snprintf(raw, sizeof raw, "%.*f", decimals, v);
    return spell(out, cap, raw);
}

/* Significant digits of a number's text, trailing zeros not counted
 * (100.0 has one, 20432.0 five). */
static int significant(const char *t)
{
    int n = 0, zeros = 0, started = 0;
    for (; *t && *t != 'e' && *t != 'f'; t++) {
        if (*t >= '1' && *t <= '9') {
            started = 1;
            n += zeros + 1;
            zeros = 0;
        } else if (started && *t == '0') {
            zeros++;
        }
    }
    return n;
}

/* Does text (NUL-terminated, with its suffix) read back as the size bytes
 * at want? */
static int reads_back(const text_out *o, const char *text, const uint8_t *want, unsigned size)
{
    afmt_array v;
    afmt_error e;
    uint64_t end;
    uint8_t got[8];

    /* f32 and f64 with a '.' locale: the C library's conversions, which
     * round correctly (as this runtime's reader does) and are faster. */
    if (o->c_point && (size == 4 || size == 8)) {
        char *stop;
        if (size == 4) {
            float f = strtof(text, &stop);
            return strcmp(stop, "f32") == 0 && memcmp(&f, want, 4) == 0;
        } else {
            double d = strtod(text, &stop);
            return strcmp(stop, "f64") == 0 && memcmp(&d, want, 8) == 0;
        }
    }
    afmt_error_clear(&e);
    if (afmt_futhark_text_scan((const uint8_t *)text, strlen(text), 0, 1, &end, &v, &e) != 0 ||
        v.rank != 0 || afmt_futhark_text_decode(&v, got, sizeof got, &e) != 0)
        return 0;
    return memcmp(got, want, size) == 0;
}

/* The shortest %g that reads back exactly, with a '.0' when it would look
 * like an integer, and the suffix.  p holds the element (little-endian). */
static void put_float(text_out *o, double v, const uint8_t *p, unsigned size,
                      const char *suffix, int max_digits)
{
    char text[ELEMENT_MAX];
    int lo = 1, hi = max_digits;
    size_t n;

    if (isnan(v)) {
        out_puts(o, suffix);
        out_puts(o, ".nan");
        return;
    }
    if (isinf(v)) {
        if (v < 0)
            out_puts(o, "-");
        out_puts(o, suffix);
        out_puts(o, ".inf");
        return;
    }
    /* More digits never read back worse, so search for the fewest.
     * max_digits always reads back (17, 9, 5 for f64, f32, f16). */
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        n = g_format(text, sizeof text - 8, mid, v);
        if (!strchr(text, '.') && !strchr(text, 'e'))
            memcpy(text + n, ".0", 3), n += 2;
        memcpy(text + n, suffix, strlen(suffix) + 1);
        if (reads_back(o, text, p, size))
            hi = mid;
        else
            lo = mid + 1;
    }
    n = g_format(text, sizeof text - 8, lo, v);
    /* %g chose an exponent for a number people write without one (100,
     * 0.0001): fixed notation, if it needs no more digits and reads back. */
    {
        const char *e = strchr(text, 'e');
        int e10 = e ? atoi(e + 1) : 0;
        if (e && e10 >= -5 && e10 < 17) {
            char fixed[ELEMENT_MAX];
            int k = lo - 1 - e10;
            size_t m = f_format(fixed, sizeof fixed - 8, k < 0 ? 0 : k, v);
            if (!strchr(fixed, '.'))
                memcpy(fixed + m, ".0", 3), m += 2;
            memcpy(fixed + m, suffix, strlen(suffix) + 1);
            if (significant(fixed) <= lo && reads_back(o, fixed, p, size)) {
                memcpy(text, fixed, m + 1);
                n = m;
                out_put(o, text, n);
                out_puts(o, suffix);
                return;
            }
        }
    }
    if (!strchr(text, '.') && !strchr(text, 'e'))
        memcpy(text + n, ".0", 3), n += 2;
    out_put(o, text, n);
    out_puts(o, suffix);
}

/* One element of plain little-endian data. */
static void put_element(text_out *o, afmt_dtype t, const uint8_t *p)
{
    char text[ELEMENT_MAX];
    int8_t i8; int16_t i16; int32_t i32; int64_t i64;
    uint16_t u16; uint32_t u32; uint64_t u64;
    float f;
    double x;

    switch (t) {
    case AFMT_BOOL: out_puts(o, p[0] ? "true" : "false"); return;
    case AFMT_I8: memcpy(&i8, p, 1); snprintf(text, sizeof text, "%di8", (int)i8); break;
    case AFMT_I16: memcpy(&i16, p, 2); snprintf(text, sizeof text, "%di16", (int)i16); break;
    case AFMT_I32: memcpy(&i32, p, 4); snprintf(text, sizeof text, "%" PRId32 "i32", i32); break;
    case AFMT_I64: memcpy(&i64, p, 8); snprintf(text, sizeof text, "%" PRId64 "i64", i64); break;
    case AFMT_U8: snprintf(text, sizeof text, "%uu8", (unsigned)p[0]); break;
    case AFMT_U16: memcpy(&u16, p, 2); snprintf(text, sizeof text, "%uu16", (unsigned)u16); break;
    case AFMT_U32: memcpy(&u32, p, 4); snprintf(text, sizeof text, "%" PRIu32 "u32", u32); break;
    case AFMT_U64: memcpy(&u64, p, 8); snprintf(text, sizeof text, "%" PRIu64 "u64", u64); break;
    case AFMT_F16: memcpy(&u16, p, 2); put_float(o, afmt_f16_to_double(u16), p, 2, "f16", 5); return;
    case AFMT_F32: memcpy(&f, p, 4); put_float(o, (double)f, p, 4, "f32", 9); return;
    case AFMT_F64: memcpy(&x, p, 8); put_float(o, x, p, 8, "f64", 17); return;
    default: return; /* refused before (afmt_futhark_text_can_write) */
    }
    out_puts(o, text);
}

int afmt_futhark_text_can_write(afmt_dtype dtype)
{
    switch (dtype) {
    case AFMT_BOOL: case AFMT_I8: case AFMT_I16: case AFMT_I32: case AFMT_I64:
    case AFMT_U8: case AFMT_U16: case AFMT_U32: case AFMT_U64:
    case AFMT_F16: case AFMT_F32: case AFMT_F64:
        return 1;
    default:
        return 0;
    }
}

/* The elements of dims[axis..] starting at element *k, as nested arrays. */
static void put_nested(text_out *o, const afmt_array *a, uint32_t axis, uint64_t *k)
{
    uint64_t i;

    if (axis == a->rank) {
        put_element(o, a->dtype, a->data + *k * a->elsize);
        (*k)++;
        return;
    }
    out_put(o, "[", 1);
    for (i = 0; i < a->dims[axis] && !o->failed; i++) {
        if (i)
            out_put(o, ", ", 2);
        put_nested(o, a, axis + 1, k);
    }
    out_put(o, "]", 1);
}

int afmt_futhark_text_write(const afmt_array *a, afmt_sink *sink, afmt_error *err)
{
    text_out *o;
    uint32_t i;
    uint64_t k = 0;
    int zero = 0, rc;
    char dim[32];

    if (!afmt_futhark_text_can_write(a->dtype))
        return afmt_fail(err, AFMT_E_TYPE, NULL, NULL, AFMT_NO_INDEX, AFMT_NO_OFFSET,
                         "Futhark text has no %s values (it has bool, i8-i64, "
                         "u8-u64, f16, f32, f64)", afmt_dtype_name(a->dtype));
    if (a->encoding != AFMT_ENC_PLAIN || a->strided || a->order != AFMT_ROW_MAJOR ||
        a->endian != AFMT_LITTLE || a->stride != a->elsize || a->rank > AFMT_RANK_CAP ||
        (a->count && !a->data))
        return afmt_fail(err, AFMT_E_USAGE, NULL, NULL, AFMT_NO_INDEX, AFMT_NO_OFFSET,
                         "Futhark text is written from plain row-major little-endian data");
    o = malloc(sizeof *o); /* 64 KiB: not on the stack */
    if (!o)
        return afmt_fail(err, AFMT_E_NOMEM, NULL, NULL, AFMT_NO_INDEX, AFMT_NO_OFFSET,
                         "no memory for a text buffer");
    o->sink = sink;
    o->err = err;
    {
        const struct lconv *lc = localeconv();
        o->c_point = lc && lc->decimal_point && strcmp(lc->decimal_point, ".") == 0;
    }
    o->len = 0;
    o->failed = 0;
    for (i = 0; i < a->rank; i++)
        if (a->dims[i] == 0)
            zero = 1;
    if (zero) {
        out_puts(o, "empty(");
        for (i = 0; i < a->rank; i++) {
            snprintf(dim, sizeof dim, "[%" PRIu64 "]", a->dims[i]);
            out_puts(o, dim);
        }
        out_puts(o, afmt_dtype_name(a->dtype));
        out_puts(o, ")");
    } else {
        put_nested(o, a, 0, &k);
    }
    out_flush(o);
    rc = o->failed ? -1 : 0;
    free(o);
    return rc;
}
