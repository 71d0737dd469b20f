/* Writing Futhark text values (runtime/text/afmt_futhark_text_write.c):
 *  - a table of arrays with the exact text expected (suffixes, nesting,
 *    empty(...), specials, shortest floats, '.0' on integral floats);
 *  - types Futhark text lacks and layouts it is not written from;
 *  - round trips of random bit patterns of f16, f32 and f64 through the
 *    runtime's own reader (every value back to the same bits, every NaN
 *    to a NaN), and the shortest-digits property: one digit fewer does not
 *    read back;
 *  - the locale does not matter (a comma decimal point is not written).
 * Needs no sample files. */
#include <locale.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "afmt.h"
#include "text/afmt_futhark_text.h"
#include "check.h"

/* ---------------------------------------------------------------- helpers */

/* a's text in out (NUL-terminated); 0, or -1 with err. */
static int to_text(const afmt_array *a, char *out, size_t cap, afmt_error *err)
{
    afmt_sink s;
    afmt_sink_buffer(&s, (uint8_t *)out, cap - 1);
    afmt_error_clear(err);
    if (afmt_futhark_text_write(a, &s, err) != 0)
        return -1;
    out[s.written] = '\0';
    return 0;
}

static void make_view(afmt_array *a, afmt_dtype t, const void *data, uint32_t rank,
                      const uint64_t *dims)
{
    uint32_t i;
    memset(a, 0, sizeof *a);
    a->dtype = t;
    a->elsize = afmt_dtype_get(t)->size;
    a->stride = a->elsize;
    a->rank = rank;
    a->count = 1;
    for (i = 0; i < rank; i++) {
        a->dims[i] = dims[i];
        a->count *= dims[i];
    }
    a->order = AFMT_ROW_MAJOR;
    a->encoding = AFMT_ENC_PLAIN;
    a->endian = AFMT_LITTLE;
    a->data = data;
    a->nbytes = a->count * a->elsize;
}

/* Read text back with the runtime's reader into out (at most cap bytes). */
static int read_back(const char *text, afmt_array *v, uint8_t *out, size_t cap)
{
    afmt_error e;
    uint64_t end;
    afmt_error_clear(&e);
    if (afmt_futhark_text_scan((const uint8_t *)text, strlen(text), 0, AFMT_RANK_CAP, &end, v, &e) != 0)
        return -1;
    if (end != strlen(text))
        return -1;
    return afmt_futhark_text_decode(v, out, cap, &e);
}

static uint64_t rng_state = 0x9e3779b97f4a7c15u;
static uint64_t rng(void)
{
    /* xorshift64*: a fixed sequence, so a failure reproduces */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545f4914f6cdd1du;
}

/* ---------------------------------------------------------------- table */

typedef struct text_case {
    const char *name;
    afmt_dtype dtype;
    uint32_t rank;
    uint64_t dims[3];
    const void *data;
    const char *want;
} text_case;

static const int32_t i32_2x3[] = { 0, 1, 2, 3, 4, -5 };
static const int8_t i8_ends[] = { -128, 127 };
static const int64_t i64_min[] = { INT64_MIN };
static const uint64_t u64_max[] = { UINT64_MAX };
static const uint8_t bools[] = { 1, 0, 1 };
static const float f32s[] = { 0.1f, 1.0f, -0.0f, 3.4028235e38f, 1.4e-45f, 16777216.0f };
static const double f64s[] = { 0.1, 1.5, 1e20, -2.5e-300, 5e-324, 100.0 };
static const uint16_t f16s[] = { 0x3e00 /* 1.5 */, 0x7c00 /* inf */, 0xfc00, 0x7e00, 0x0001 /* 2^-24 */ };
static const uint16_t u16s[] = { 65535 };
static const uint8_t u8s[] = { 0, 255 };
static const int16_t none[1];

static const text_case cases[] = {
    { "i32 2x3", AFMT_I32, 2, { 2, 3 }, i32_2x3, "[[0i32, 1i32, 2i32], [3i32, 4i32, -5i32]]" },
    { "i8 ends", AFMT_I8, 1, { 2 }, i8_ends, "[-128i8, 127i8]" },
    { "i64 min scalar", AFMT_I64, 0, { 0 }, i64_min, "-9223372036854775808i64" },
    { "u64 max scalar", AFMT_U64, 0, { 0 }, u64_max, "18446744073709551615u64" },
    { "u16", AFMT_U16, 1, { 1 }, u16s, "[65535u16]" },
    { "u8", AFMT_U8, 1, { 2 }, u8s, "[0u8, 255u8]" },
    { "bool", AFMT_BOOL, 1, { 3 }, bools, "[true, false, true]" },
    { "f32 shortest", AFMT_F32, 1, { 6 }, f32s,
      "[0.1f32, 1.0f32, -0.0f32, 3.4028235e38f32, 1e-45f32, 16777216.0f32]" },
    { "f64 shortest", AFMT_F64, 1, { 6 }, f64s,
      "[0.1f64, 1.5f64, 1e20f64, -2.5e-300f64, 5e-324f64, 100.0f64]" },
    { "f16 specials", AFMT_F16, 1, { 5 }, f16s,
      "[1.5f16, f16.inf, -f16.inf, f16.nan, 6e-8f16]" },
    { "empty 2x0", AFMT_I16, 2, { 2, 0 }, none, "empty([2][0]i16)" },
    { "empty 0x3", AFMT_I32, 2, { 0, 3 }, none, "empty([0][3]i32)" },
    { "empty 1-d", AFMT_F64, 1, { 0 }, none, "empty([0]f64)" },
    { "rank 3", AFMT_U8, 3, { 1, 1, 2 }, u8s, "[[[0u8, 255u8]]]" },
};

static void test_table(void)
{
    size_t i;
    char text[512], name[160];
    afmt_array a, v;
    afmt_error err;
    uint8_t back[64];

    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const text_case *c = &cases[i];
        make_view(&a, c->dtype, c->data, c->rank, c->dims);
        snprintf(name, sizeof name, "text %s", c->name);
        if (to_text(&a, text, sizeof text, &err) != 0) {
            CHECK(name, 0);
            continue;
        }
        if (strcmp(text, c->want) != 0)
            printf("  got  %s\n  want %s\n", text, c->want);
        CHECK(name, strcmp(text, c->want) == 0);
        /* and the reader reads it back: same type, shape and bytes (the
         * NaN case included: 0x7e00 is what the reader makes of f16.nan) */
        snprintf(name, sizeof name, "text %s reads back", c->name);
        CHECK(name, read_back(text, &v, back, sizeof back) == 0 && v.dtype == c->dtype &&
                        v.rank == c->rank && v.count == a.count &&
                        memcmp(v.dims, a.dims, c->rank * sizeof v.dims[0]) == 0 &&
                        memcmp(back, c->data, (size_t)a.nbytes) == 0);
    }
}

static void test_refusals(void)
{
    static const uint8_t bytes[16];
    static const afmt_dtype lacking[] = { AFMT_BF16, AFMT_C64, AFMT_C128, AFMT_OPAQUE };
    uint64_t dims[1] = { 1 };
    char text[128], name[96];
    afmt_array a;
    afmt_error err;
    size_t i;

    for (i = 0; i < sizeof lacking / sizeof lacking[0]; i++) {
        make_view(&a, lacking[i], bytes, 1, dims);
        if (lacking[i] == AFMT_OPAQUE) {
            a.elsize = a.stride = 3;
            a.nbytes = 3;
        }
        snprintf(name, sizeof name, "text refuses %s", afmt_dtype_name(lacking[i]));
        CHECK(name, to_text(&a, text, sizeof text, &err) != 0 && err.code == AFMT_E_TYPE &&
                        strstr(err.message, afmt_dtype_name(lacking[i])) != NULL);
    }
    make_view(&a, AFMT_I32, bytes, 1, dims);
    a.order = AFMT_COL_MAJOR;
    a.rank = 1;
    CHECK("text refuses column-major data", to_text(&a, text, sizeof text, &err) != 0 &&
                                                 err.code == AFMT_E_USAGE);
    make_view(&a, AFMT_I32, bytes, 1, dims);
    a.endian = AFMT_BIG;
    CHECK("text refuses big-endian data", to_text(&a, text, sizeof text, &err) != 0 &&
                                               err.code == AFMT_E_USAGE);
    /* a sink too small: the sink's error, not a short text */
    make_view(&a, AFMT_I32, i32_2x3, 1, dims);
    {
        afmt_sink s;
        uint8_t small[3];
        afmt_sink_buffer(&s, small, sizeof small);
        afmt_error_clear(&err);
        CHECK("text into a full sink fails", afmt_futhark_text_write(&a, &s, &err) != 0);
    }
}

/* ---------------------------------------------------------------- floats */

/* The significant digits of a float literal (before the exponent or the
 * suffix; trailing zeros, such as the '.0' of 100.0, do not count). */
static int sig_digits(const char *t)
{
    int n = 0, zeros = 0, started = 0;
    for (; *t && *t != 'e' && *t != 'f'; t++) {
        if (*t >= '1' && *t <= '9')
            started = 1;
        if (started && *t >= '1' && *t <= '9') {
            n += zeros + 1;
            zeros = 0;
        } else if (started && *t == '0') {
            zeros++;
        }
    }
    return n;
}

/* Random bit patterns: every one reads back to its bits (NaNs to a NaN),
 * and with one significant digit fewer it would not. */
static void test_float_round_trips(afmt_dtype t, unsigned size, int rounds)
{
    char text[128], shorter[400], name[96];
    afmt_array a, v;
    afmt_error err;
    uint64_t dims[1] = { 1 };
    int i, bad = 0, not_shortest = 0, nan_bad = 0;

    for (i = 0; i < rounds; i++) {
        uint64_t bits = rng();
        uint8_t p[8], back[8];
        int is_nan;
        double x;
        memcpy(p, &bits, 8);
        if (t == AFMT_F16) {
            uint16_t h;
            memcpy(&h, p, 2);
            x = afmt_f16_to_double(h);
        } else if (t == AFMT_F32) {
            float f;
            memcpy(&f, p, 4);
            x = f;
        } else {
            memcpy(&x, p, 8);
        }
        is_nan = isnan(x);
        make_view(&a, t, p, 0, dims);
        if (to_text(&a, text, sizeof text, &err) != 0 ||
            read_back(text, &v, back, sizeof back) != 0) {
            bad++;
            continue;
        }
        if (is_nan) {
            double y;
            if (t == AFMT_F16) { uint16_t h; memcpy(&h, back, 2); y = afmt_f16_to_double(h); }
            else if (t == AFMT_F32) { float f; memcpy(&f, back, 4); y = f; }
            else memcpy(&y, back, 8);
            nan_bad += !isnan(y);
            continue;
        }
        if (memcmp(back, p, size) != 0) {
            if (bad++ < 3)
                printf("  %s: %s does not read back\n", afmt_dtype_name(t), text);
            continue;
        }
        if (strstr(text, ".inf"))
            continue;
        /* one digit fewer must not read back */
        {
            int d = sig_digits(text);
            const char *suffix = afmt_dtype_name(t);
            if (d > 1) {
                snprintf(shorter, sizeof shorter, "%.*g%s", d - 2 + 1, x, suffix);
                /* %g may print "1e+20": the reader takes "1e+20f32" too */
                if (read_back(shorter, &v, back, sizeof back) == 0 &&
                    memcmp(back, p, size) == 0) {
                    if (not_shortest++ < 3)
                        printf("  %s: %s is shorter than %s\n", suffix, shorter, text);
                }
            }
        }
    }
    snprintf(name, sizeof name, "%s: %d random values read back to their bits", afmt_dtype_name(t), rounds);
    CHECK(name, bad == 0);
    snprintf(name, sizeof name, "%s: every NaN reads back as a NaN", afmt_dtype_name(t));
    CHECK(name, nan_bad == 0);
    snprintf(name, sizeof name, "%s: the fewest digits that read back", afmt_dtype_name(t));
    CHECK(name, not_shortest == 0);
}

/* A locale with a comma decimal point (if the system has one) must not
 * leak into the text. */
static void test_locale(void)
{
    static const double v[] = { 1.5 };
    uint64_t dims[1] = { 1 };
    const char *names[] = { "de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "C.UTF-8", NULL };
    char text[64];
    afmt_array a;
    afmt_error err;
    int i;

    for (i = 0; names[i]; i++)
        if (setlocale(LC_NUMERIC, names[i]))
            break;
    make_view(&a, AFMT_F64, v, 1, dims);
    CHECK("text ignores the locale's decimal point",
          to_text(&a, text, sizeof text, &err) == 0 && strcmp(text, "[1.5f64]") == 0);
    setlocale(LC_NUMERIC, "C");
}

int main(void)
{
    test_table();
    test_refusals();
    test_float_round_trips(AFMT_F16, 2, 20000);
    test_float_round_trips(AFMT_F32, 4, 20000);
    test_float_round_trips(AFMT_F64, 8, 20000);
    test_locale();
    CHECK_DONE();
}
