/* Futhark text values (runtime/text/afmt_futhark_text.re):
 *  - every samples/futhark/<name>.txt scans to the dtype and shape of its
 *    .bin twin and decodes to the bytes of the .bin payload;
 *  - a table of valid literals and arrays with their expected bytes;
 *  - a table of invalid inputs with the expected error code and offset;
 *  - streams, absolute offsets, decode misuse;
 *  - float rounding: exact decimal midpoints of f16/f32/f64 (ties to even,
 *    a hair above, a hair below) and random literals against glibc's
 *    correctly rounded strtod/strtof.
 * Samples come from $AFMT_SAMPLES, default ../shared/samples. */
#include <dirent.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text/afmt_futhark_text.h"
#include "check.h"
#include "samples.h"
#include "testutil.h"

/* ---------------------------------------------------------------- helpers */

/* text for a one-line check name: control and non-ASCII bytes as \xNN */
static const char *esc(const char *t, size_t len)
{
    static char out[4][200];
    static int which;
    char *o = out[which++ & 3];
    size_t k, n = 0;
    for (k = 0; k < len && n + 5 < sizeof out[0]; k++) {
        unsigned char c = (unsigned char)t[k];
        if (c >= 0x20 && c < 0x7f)
            o[n++] = (char)c;
        else
            n += (size_t)sprintf(o + n, "\\x%02x", c);
    }
    o[n] = '\0';
    return o;
}

static void shape_str(const afmt_array *a, char *out, size_t cap)
{
    size_t n = (size_t)snprintf(out, cap, "%s[", afmt_dtype_name(a->dtype));
    uint32_t k;
    for (k = 0; k < a->rank && n < cap; k++)
        n += (size_t)snprintf(out + n, cap - n, k ? ",%llu" : "%llu",
                              (unsigned long long)a->dims[k]);
    if (n < cap)
        snprintf(out + n, cap - n, "]");
}

static size_t unhex(const char *h, uint8_t *out, size_t cap)
{
    size_t n = 0;
    while (h[0] && h[1] && n < cap) {
        unsigned v;
        sscanf(h, "%2x", &v);
        out[n++] = (uint8_t)v;
        h += 2;
    }
    return n;
}

static void tohex(const uint8_t *p, size_t n, char *out, size_t cap)
{
    size_t k;
    out[0] = '\0';
    for (k = 0; k < n && 2 * k + 2 < cap; k++)
        sprintf(out + 2 * k, "%02x", p[k]);
}

/* scan the whole of text (from pos), decode into dst; 0 on success */
static int scan_decode(const char *text, size_t len, uint64_t pos, uint64_t max_rank,
                       afmt_array *a, uint64_t *end, uint8_t *dst, size_t cap, size_t *nout,
                       afmt_error *err)
{
    size_t need;
    afmt_error_clear(err);
    if (afmt_futhark_text_scan((const uint8_t *)text, len, pos, max_rank, end, a, err) != 0)
        return -1;
    need = (size_t)a->count * afmt_dtype_get(a->dtype)->size;
    if (need > cap)
        return -2;
    *nout = need;
    return afmt_futhark_text_decode(a, dst, cap, err);
}

/* ---------------------------------------------------------------- samples */

static afmt_dtype bin_dtype(const uint8_t *tag)
{
    static const struct { const char *tag, *name; } t[] = {
        {"  i8", "i8"}, {" i16", "i16"}, {" i32", "i32"}, {" i64", "i64"},
        {"  u8", "u8"}, {" u16", "u16"}, {" u32", "u32"}, {" u64", "u64"},
        {" f16", "f16"}, {" f32", "f32"}, {" f64", "f64"}, {"bool", "bool"},
    };
    unsigned k;
    for (k = 0; k < 12; k++)
        if (memcmp(tag, t[k].tag, 4) == 0)
            return afmt_dtype_from_name(t[k].name);
    return AFMT_DTYPE_INVALID;
}

static void test_samples(void)
{
    const char *root = samples_root("futhark text against the samples' .bin twins");
    char dir[1024], path[1400], name[2048];
    struct dirent *de;
    DIR *d;
    int seen = 0;

    if (!root)
        return;
    snprintf(dir, sizeof dir, "%s/futhark", root);
    d = opendir(dir);
    CHECK("samples: futhark folder opens", d != NULL);
    if (!d)
        return;
    while ((de = readdir(d)) != NULL) {
        size_t nl = strlen(de->d_name), need, nout = 0;
        uint64_t tlen = 0, blen = 0;
        uint8_t *txt, *bin, *dst;
        afmt_array a;
        afmt_error err;
        uint64_t end = 0, k, count = 1, payload;
        unsigned rank;
        int rc, shape_ok;

        if (nl < 5 || strcmp(de->d_name + nl - 4, ".txt") != 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        txt = fz_read_file(path, &tlen);
        memcpy(path + strlen(path) - 4, ".bin", 4);
        bin = fz_read_file(path, &blen);
        snprintf(name, sizeof name, "sample %s", de->d_name);
        CHECK(name, txt && bin && blen >= 7 && bin[0] == 'b' && bin[1] == 2);
        if (!txt || !bin || blen < 7) {
            free(txt);
            free(bin);
            continue;
        }
        seen++;
        rank = bin[2];
        payload = 7 + 8 * (uint64_t)rank;
        rc = afmt_futhark_text_scan(txt, tlen, 0, 127, &end, &a, &err);
        snprintf(name, sizeof name, "sample %s: scans (%s)", de->d_name, rc ? err.message : "ok");
        CHECK(name, rc == 0 && end == tlen);
        if (rc != 0) {
            free(txt);
            free(bin);
            continue;
        }
        shape_ok = a.dtype == bin_dtype(bin + 3) && a.rank == rank;
        for (k = 0; k < rank && shape_ok; k++) {
            uint64_t dim = 0;
            unsigned b;
            for (b = 0; b < 8; b++)
                dim |= (uint64_t)bin[7 + 8 * k + b] << (8 * b);
            shape_ok = a.dims[k] == dim;
            count *= dim;
        }
        snprintf(name, sizeof name, "sample %s: dtype and shape of the .bin", de->d_name);
        CHECK(name, shape_ok && a.count == count);
        snprintf(name, sizeof name, "sample %s: view fields", de->d_name);
        CHECK(name, a.order == AFMT_ROW_MAJOR && a.encoding == AFMT_FUTHARK_TEXT_ENCODING &&
                        a.data == txt && a.offset == 0 && a.nbytes == tlen);
        need = (size_t)a.count * afmt_dtype_get(a.dtype)->size;
        dst = malloc(need + 1);
        rc = afmt_futhark_text_decode(&a, dst, need, &err);
        nout = need;
        snprintf(name, sizeof name, "sample %s: decodes to the .bin payload", de->d_name);
        CHECK(name, rc == 0 && payload + nout == blen &&
                        (nout == 0 || memcmp(dst, bin + payload, nout) == 0));
        free(dst);
        free(txt);
        free(bin);
    }
    closedir(d);
    CHECK("samples: at least 8 text samples", seen >= 8);
}

/* ------------------------------------------------------------ valid table */

typedef struct valid_case {
    const char *text;
    const char *shape; /* "i32[2,3]", "f64[]" */
    const char *hex;   /* expected decoded bytes */
} valid_case;

static const valid_case VALID[] = {
    /* integers */
    {"1i8", "i8[]", "01"},
    {"-128i8", "i8[]", "80"},
    {"127i8", "i8[]", "7f"},
    {"255u8", "u8[]", "ff"},
    {"0x7fi8", "i8[]", "7f"},
    {"-0x80i8", "i8[]", "80"},
    {"0xffu8", "u8[]", "ff"},
    {"0b101i32", "i32[]", "05000000"},
    {"0b1_0_0_1", "i32[]", "09000000"},
    {"0x12_34", "i32[]", "34120000"},
    {"0x1f32", "i32[]", "321f0000"}, /* hex digits swallow the 'f': 0x1f32 */
    {"1_000i64", "i64[]", "e803000000000000"},
    {"-2_3i32", "i32[]", "e9ffffff"},
    {"1_", "i32[]", "01000000"}, /* futhark-data: '_' may follow any digit */
    {"1", "i32[]", "01000000"},
    {"0", "i32[]", "00000000"},
    {"-0", "i32[]", "00000000"},
    {"+5", "i32[]", "05000000"},
    {"-0u8", "u8[]", "00"},
    {"2147483647", "i32[]", "ffffff7f"},
    {"-2147483648", "i32[]", "00000080"},
    {"65535u16", "u16[]", "ffff"},
    {"-32768i16", "i16[]", "0080"},
    {"4294967295u32", "u32[]", "ffffffff"},
    {"18446744073709551615u64", "u64[]", "ffffffffffffffff"},
    {"0xffff_ffff_ffff_ffffu64", "u64[]", "ffffffffffffffff"},
    {"-9223372036854775808i64", "i64[]", "0000000000000080"},
    {"9223372036854775807i64", "i64[]", "ffffffffffffff7f"},
    {"0x0000000000000000000000001i8", "i8[]", "01"},
    /* floats */
    {"1.5f32", "f32[]", "0000c03f"},
    {"1.5", "f64[]", "000000000000f83f"},
    {"1e3", "f64[]", "0000000000408f40"},
    {"1.0E3", "f64[]", "0000000000408f40"},
    {"1e+3", "f64[]", "0000000000408f40"},
    {"1_0e2", "f64[]", "0000000000408f40"},
    {"0.1f32", "f32[]", "cdcccc3d"},
    {"0.100000001f32", "f32[]", "cdcccc3d"},
    {"0.1", "f64[]", "9a9999999999b93f"},
    {"0.1f64", "f64[]", "9a9999999999b93f"},
    {"3.1_4", "f64[]", "1f85eb51b81e0940"},
    {"3.1_e-2f64", "f64[]", "5839b4c876be9f3f"},
    {"1f32", "f32[]", "0000803f"},
    {"-2f64", "f64[]", "00000000000000c0"},
    {"010f32", "f32[]", "00002041"}, /* decimal to every reader: not ambiguous */
    {"00.5", "f64[]", "000000000000e03f"},
    {"-0.0", "f64[]", "0000000000000080"},
    {"-0f32", "f32[]", "00000080"},
    {"0e999999999999999999999", "f64[]", "0000000000000000"},
    {"1e-45f32", "f32[]", "01000000"},
    {"1e-50f32", "f32[]", "00000000"},
    {"1e-99999999999999999999", "f64[]", "0000000000000000"},
    {"3.4028235e38f32", "f32[]", "ffff7f7f"},
    {"5e-324", "f64[]", "0100000000000000"},
    {"2.4703282292062328e-324", "f64[]", "0100000000000000"},
    {"2.4703282292062327e-324", "f64[]", "0000000000000000"},
    {"1.7976931348623157e308", "f64[]", "ffffffffffffef7f"},
    {"1.7976931348623158e308", "f64[]", "ffffffffffffef7f"},
    {"2.2250738585072011e-308", "f64[]", "ffffffffffff0f00"},
    {"9007199254740993f64", "f64[]", "0000000000004043"}, /* tie -> even 2^53 */
    {"9007199254740995f64", "f64[]", "0200000000004043"}, /* tie -> even up */
    {"0.9597767951851629f64", "f64[]", "79f558d37db6ee3f"},
    /* f32 that double rounding through f64 gets wrong: 1 + 2^-24 + 2^-60 */
    {"1.000000059604644776257986737988403547205962240695953369140625f32", "f32[]",
     "0100803f"},
    {"1.000000059604644775390625f32", "f32[]", "0000803f"}, /* exact tie -> even */
    {"1.0000000596046447753906249999999999f32", "f32[]", "0000803f"},
    {"1.0000000596046447753906250000000001f32", "f32[]", "0100803f"},
    /* f16 */
    {"2f16", "f16[]", "0040"},
    {"1.5f16", "f16[]", "003e"},
    {"0.1f16", "f16[]", "662e"},
    {"65504f16", "f16[]", "ff7b"},
    {"65519.99f16", "f16[]", "ff7b"},
    {"6e-8f16", "f16[]", "0100"},
    {"2e-8f16", "f16[]", "0000"},
    {"1.00048828125f16", "f16[]", "003c"}, /* tie -> even */
    {"1.000488281250000000867361737988403547205962240695953369140625f16", "f16[]", "013c"},
    {"1.00048828124999999f16", "f16[]", "003c"},
    {"1.00146484375f16", "f16[]", "023c"}, /* tie between 0x3c01 and 0x3c02 -> even */
    /* specials */
    {"f16.nan", "f16[]", "007e"},
    {"f16.inf", "f16[]", "007c"},
    {"-f16.inf", "f16[]", "00fc"},
    {"f32.nan", "f32[]", "0000c07f"},
    {"f32.inf", "f32[]", "0000807f"},
    {"-f32.inf", "f32[]", "000080ff"},
    {"f64.nan", "f64[]", "000000000000f87f"},
    {"f64.inf", "f64[]", "000000000000f07f"},
    {"-f64.inf", "f64[]", "000000000000f0ff"},
    {"true", "bool[]", "01"},
    {"false", "bool[]", "00"},
    /* arrays */
    {"[1, 2, 3]", "i32[3]", "010000000200000003000000"},
    {"[1,2,3]", "i32[3]", "010000000200000003000000"},
    {"[[1,2],[3,4]]", "i32[2,2]", "01000000020000000300000004000000"},
    {"[[1,-- comment\n 2], [3,4]]", "i32[2,2]", "01000000020000000300000004000000"},
    {"[ [ 1i8 , 2i8 ] ,\n\t[ 3i8 , 4i8 ] ]", "i8[2,2]", "01020304"},
    {"[[[1u16]]]", "u16[1,1,1]", "0100"},
    {"[[[1u8, 2u8]], [[3u8, 4u8]], [[5u8, 6u8]]]", "u8[3,1,2]", "010203040506"},
    {"[true, false, true]", "bool[3]", "010001"},
    {"[1.5f16, f16.inf]", "f16[2]", "003e007c"},
    {"[f32.nan, -f32.inf, 0.100000001f32]", "f32[3]", "0000c07f000080ffcdcccc3d"},
    {"[0x7fi8, -0b1i8, 0i8]", "i8[3]", "7fff00"},
    {"[-- a\n1 -- b\n, -- c\n2 -- d\n] ", "i32[2]", "0100000002000000"},
    /* empty arrays */
    {"empty([0]i32)", "i32[0]", ""},
    {"empty([2][0]f64)", "f64[2,0]", ""},
    {"empty([0][3]bool)", "bool[0,3]", ""},
    {"empty([2][0]i16)", "i16[2,0]", ""},
    {"empty([9223372036854775807][0]u64)", "u64[9223372036854775807,0]", ""},
    /* leading whitespace and comments */
    {"  -- hi\n 5", "i32[]", "05000000"},
    {"--x\n--y\n\r\n true", "bool[]", "01"},
};

static void test_valid(void)
{
    size_t k;
    for (k = 0; k < sizeof VALID / sizeof VALID[0]; k++) {
        const valid_case *c = &VALID[k];
        size_t len = strlen(c->text), nout = 0, want_n;
        uint8_t dst[256], want[256];
        char shape[128], name[2048], got[600];
        afmt_array a;
        afmt_error err;
        uint64_t end = 0;
        int rc;

        if (!c->hex)
            continue;
        rc = scan_decode(c->text, len, 0, AFMT_RANK_CAP, &a, &end, dst, sizeof dst, &nout, &err);
        snprintf(name, sizeof name, "valid %.60s: accepted%s%s", esc(c->text, len), rc ? ": " : "",
                 rc ? err.message : "");
        CHECK(name, rc == 0);
        if (rc != 0)
            continue;
        shape_str(&a, shape, sizeof shape);
        snprintf(name, sizeof name, "valid %.60s: %s (got %s)", esc(c->text, len), c->shape, shape);
        CHECK(name, strcmp(shape, c->shape) == 0);
        want_n = unhex(c->hex, want, sizeof want);
        tohex(dst, nout, got, sizeof got);
        snprintf(name, sizeof name, "valid %.60s: bytes %s (got %s)", esc(c->text, len), c->hex, got);
        CHECK(name, nout == want_n && memcmp(dst, want, nout) == 0);
        /* the value is everything but trailing whitespace */
        while (len > 0 && (c->text[len - 1] == ' ' || c->text[len - 1] == '\n'))
            len--;
        snprintf(name, sizeof name, "valid %.60s: end and view", esc(c->text, strlen(c->text)));
        CHECK(name, end == len && a.offset + a.nbytes == end && a.data == (const uint8_t *)c->text + a.offset &&
                        a.elsize == afmt_dtype_get(a.dtype)->size);
    }
}

/* ---------------------------------------------------------- invalid table */

typedef struct invalid_case {
    const char *text;
    size_t len;        /* 0: strlen */
    uint64_t max_rank;
    afmt_code code;
    uint64_t offset;
    const char *says;  /* a piece of the message, or NULL */
} invalid_case;

#define R AFMT_RANK_CAP
static const invalid_case INVALID[] = {
    {"128i8", 0, R, AFMT_E_VALUE, 0, "does not fit in i8 (-128..127)"},
    {"256u8", 0, R, AFMT_E_VALUE, 0, "does not fit in u8"},
    {"-1u8", 0, R, AFMT_E_VALUE, 0, "does not fit in u8"},
    {"0xffi8", 0, R, AFMT_E_VALUE, 0, "does not fit in i8"},
    {"-129i8", 0, R, AFMT_E_VALUE, 0, NULL},
    {"2147483648", 0, R, AFMT_E_VALUE, 0, "does not fit in i32"},
    {"-2147483649", 0, R, AFMT_E_VALUE, 0, NULL},
    {"18446744073709551616u64", 0, R, AFMT_E_VALUE, 0, "u64"},
    {"9223372036854775808i64", 0, R, AFMT_E_VALUE, 0, NULL},
    {"99999999999999999999999999999i64", 0, R, AFMT_E_VALUE, 0, NULL},
    {"[1, 2i64]", 0, R, AFMT_E_CONSTRAINT, 4, "i64"},
    {"[1.0, 2f32]", 0, R, AFMT_E_CONSTRAINT, 6, NULL},
    {"[1, 2.0]", 0, R, AFMT_E_CONSTRAINT, 4, NULL},
    {"[true, 1]", 0, R, AFMT_E_CONSTRAINT, 7, NULL},
    {"[[1],[1,2]]", 0, R, AFMT_E_CONSTRAINT, 8, "irregular"},
    {"[[1,2],[1]]", 0, R, AFMT_E_CONSTRAINT, 9, "irregular"},
    {"[[[1,2]],[[3]]]", 0, R, AFMT_E_CONSTRAINT, 12, "irregular"},
    {"[[1], 2]", 0, R, AFMT_E_CONSTRAINT, 6, "expected '['"},
    {"[1, [2]]", 0, R, AFMT_E_CONSTRAINT, 4, NULL},
    {"[]", 0, R, AFMT_E_VALUE, 1, "empty("},
    {"[[]]", 0, R, AFMT_E_VALUE, 2, NULL},
    {"[1,]", 0, R, AFMT_E_VALUE, 3, "trailing comma"},
    {"[1,,2]", 0, R, AFMT_E_VALUE, 3, NULL},
    {"[,1]", 0, R, AFMT_E_VALUE, 1, NULL},
    {"[1 2]", 0, R, AFMT_E_VALUE, 3, "expected ',' or ']'"},
    {"]", 0, R, AFMT_E_VALUE, 0, NULL},
    {"010", 0, R, AFMT_E_VALUE, 0, "octal"},
    {"00", 0, R, AFMT_E_VALUE, 0, NULL},
    {"-0_1i64", 0, R, AFMT_E_VALUE, 0, NULL},
    {"1e39f32", 0, R, AFMT_E_VALUE, 0, "overflows f32"},
    {"3.4028236e38f32", 0, R, AFMT_E_VALUE, 0, NULL},
    {"65520f16", 0, R, AFMT_E_VALUE, 0, "overflows f16"},
    {"1e309", 0, R, AFMT_E_VALUE, 0, "overflows f64"},
    {"1.7976931348623159e308", 0, R, AFMT_E_VALUE, 0, NULL},
    {"-1e999999999999999999", 0, R, AFMT_E_VALUE, 0, NULL},
    {"1.5i32", 0, R, AFMT_E_VALUE, 3, "integer suffix"},
    {"1e3i64", 0, R, AFMT_E_VALUE, 3, NULL},
    {"0b1f32", 0, R, AFMT_E_VALUE, 3, "float suffix"},
    {"[[[1]]]", 0, 2, AFMT_E_LIMIT, 2, "rank limit 2"},
    {"[1]", 0, 0, AFMT_E_LIMIT, 0, NULL},
    {"empty([0][0][0]i32)", 0, 2, AFMT_E_LIMIT, 12, NULL},
    {"[", 0, R, AFMT_E_TRUNCATED, 1, "not closed"},
    {"[1, 2", 0, R, AFMT_E_TRUNCATED, 5, "not closed"},
    {"[[1],[2]", 0, R, AFMT_E_TRUNCATED, 8, NULL},
    {"[1, -- comment to the end", 0, R, AFMT_E_TRUNCATED, 25, NULL},
    {"", 0, R, AFMT_E_TRUNCATED, 0, "end of input"},
    {"   \n", 0, R, AFMT_E_TRUNCATED, 4, NULL},
    {"-- only a comment", 0, R, AFMT_E_TRUNCATED, 17, NULL},
    {"1i7", 0, R, AFMT_E_UNKNOWN_TYPE, 1, "unknown suffix 'i7'"},
    {"1x", 0, R, AFMT_E_UNKNOWN_TYPE, 1, NULL},
    {"1bool", 0, R, AFMT_E_UNKNOWN_TYPE, 1, NULL},
    {"empty([2]i32)", 0, R, AFMT_E_CONSTRAINT, 0, "zero"},
    {"empty([2][3]f32)", 0, R, AFMT_E_CONSTRAINT, 0, NULL},
    {"empty ([0]i32)", 0, R, AFMT_E_VALUE, 5, "whitespace"},
    {"empty([0] i32)", 0, R, AFMT_E_VALUE, 9, NULL},
    {"empty( [0]i32)", 0, R, AFMT_E_VALUE, 6, NULL},
    {"empty([0]i7)", 0, R, AFMT_E_UNKNOWN_TYPE, 9, "unknown element type 'i7'"},
    {"empty([0]bf16)", 0, R, AFMT_E_UNKNOWN_TYPE, 9, NULL},
    {"empty([0]i32", 0, R, AFMT_E_TRUNCATED, 12, NULL},
    {"empty([01]i32)", 0, R, AFMT_E_VALUE, 7, "leading zero"},
    {"empty([0x0]i32)", 0, R, AFMT_E_VALUE, 8, NULL},
    {"empty([-1][0]i32)", 0, R, AFMT_E_VALUE, 7, NULL},
    {"empty([9223372036854775808][0]i32)", 0, R, AFMT_E_OVERFLOW, 7, "2^63-1"},
    {"empty(i32)", 0, R, AFMT_E_VALUE, 6, NULL},
    {"empty", 0, R, AFMT_E_TRUNCATED, 5, NULL},
    {"[empty([0]i32)]", 0, R, AFMT_E_VALUE, 1, "whole value"},
    {"garbage", 0, R, AFMT_E_VALUE, 0, "expected a literal"},
    {"tru", 0, R, AFMT_E_VALUE, 0, NULL},
    {"true1", 0, R, AFMT_E_VALUE, 0, NULL},
    {"True", 0, R, AFMT_E_VALUE, 0, NULL},
    {"nan", 0, R, AFMT_E_VALUE, 0, "f64.nan"},
    {"-inf", 0, R, AFMT_E_VALUE, 0, NULL},
    {"-f32.nan", 0, R, AFMT_E_VALUE, 0, NULL},
    {"+f32.inf", 0, R, AFMT_E_VALUE, 0, NULL},
    {"f32.nanx", 0, R, AFMT_E_VALUE, 0, NULL},
    {"1E3", 0, R, AFMT_E_VALUE, 0, "1e3"},
    {"1E3f32", 0, R, AFMT_E_VALUE, 0, NULL},
    {".5", 0, R, AFMT_E_VALUE, 0, "digit before '.'"},
    {"1.", 0, R, AFMT_E_VALUE, 0, "digit after '.'"},
    {"1.e5", 0, R, AFMT_E_VALUE, 0, NULL},
    {"1.5e", 0, R, AFMT_E_VALUE, 0, NULL},
    {"1e", 0, R, AFMT_E_VALUE, 0, "exponent"},
    {"1e+", 0, R, AFMT_E_VALUE, 0, NULL},
    {"0x", 0, R, AFMT_E_VALUE, 0, "0x"},
    {"0X10", 0, R, AFMT_E_VALUE, 0, NULL},
    {"0b2", 0, R, AFMT_E_VALUE, 0, NULL},
    {"0x_1", 0, R, AFMT_E_VALUE, 0, NULL},
    {"_1", 0, R, AFMT_E_VALUE, 0, NULL},
    {"0x1.8p3", 0, R, AFMT_E_VALUE, 0, "floats are not allowed"},
    {"1--2", 0, R, AFMT_E_VALUE, 0, NULL},
    {"1-2", 0, R, AFMT_E_VALUE, 0, NULL},
    {"- 1", 0, R, AFMT_E_VALUE, 0, NULL},
    {"+-1", 0, R, AFMT_E_VALUE, 0, NULL},
    {"\"abc\"", 0, R, AFMT_E_UNSUPPORTED, 0, "string"},
    {"[1,\x01]", 0, R, AFMT_E_VALUE, 3, "\\x01"},
    {"[1\0]", 4, R, AFMT_E_VALUE, 2, "\\x00"},
    {"(1)", 0, R, AFMT_E_VALUE, 0, NULL},
    {"b\x02\x00 i32", 7, R, AFMT_E_VALUE, 0, "binary"},
    {"\xc3\xa9", 0, R, AFMT_E_VALUE, 0, "\\xc3"},
};
#undef R

static void test_invalid(void)
{
    size_t k;
    for (k = 0; k < sizeof INVALID / sizeof INVALID[0]; k++) {
        const invalid_case *c = &INVALID[k];
        size_t len = c->len ? c->len : strlen(c->text);
        afmt_array a;
        afmt_error err;
        uint64_t end = 0;
        char name[2048], shown[64];
        int rc;

        afmt_error_clear(&err);
        rc = afmt_futhark_text_scan((const uint8_t *)c->text, len, 0, c->max_rank, &end, &a, &err);
        tohex((const uint8_t *)c->text, len > 24 ? 24 : len, shown, sizeof shown);
        snprintf(name, sizeof name, "invalid %s (%s): %s at %llu, says \"%s\" (got %s at %llu: %s: %s)",
                 shown, esc(c->text, len), afmt_code_name(c->code),
                 (unsigned long long)c->offset, c->says ? c->says : "",
                 afmt_code_name(err.code), (unsigned long long)err.offset, err.field, err.message);
        CHECK(name, rc == -1 && err.code == c->code && err.offset == c->offset &&
                        (!c->says || strstr(err.message, c->says) != NULL));
    }
}

/* --------------------------------------------------------- deep nesting */

static void test_depth(void)
{
    static char deep[100000];
    afmt_array a;
    afmt_error err;
    uint64_t end;
    size_t k;
    int rc;

    /* 255 levels is the cap: fine; 256 is one too many, reported at the
     * 256th '[' whatever max_rank says */
    for (k = 0; k < 255; k++)
        deep[k] = '[';
    deep[255] = '1';
    for (k = 0; k < 255; k++)
        deep[256 + k] = ']';
    rc = afmt_futhark_text_scan((const uint8_t *)deep, 511, 0, 1000, &end, &a, &err);
    CHECK("depth: 255 nested arrays are rank 255", rc == 0 && a.rank == 255 && a.count == 1 &&
                                                         a.dims[254] == 1 && end == 511);
    rc = afmt_futhark_text_scan((const uint8_t *)deep, 511, 0, 127, &end, &a, &err);
    CHECK("depth: rank 255 over max_rank 127 is a limit error at the 128th '['",
          rc == -1 && err.code == AFMT_E_LIMIT && err.offset == 127);
    /* 100000 '[': fails at the cap, in time and stack independent of it */
    memset(deep, '[', sizeof deep);
    rc = afmt_futhark_text_scan((const uint8_t *)deep, sizeof deep, 0, UINT64_MAX, &end, &a, &err);
    CHECK("depth: 100000 '[' is a limit error at offset 255",
          rc == -1 && err.code == AFMT_E_LIMIT && err.offset == 255);
}

/* ------------------------------------------------- streams and offsets */

static void test_stream(void)
{
    const char *s = "1 [2, 3] -- c\n empty([0]u8)\ttrue --x\n[[1.5f32]]";
    const char *want[] = {"i32[]", "i32[2]", "u8[0]", "bool[]", "f32[1,1]"};
    size_t len = strlen(s), k;
    uint64_t pos = 0, end = 0;
    afmt_array a;
    afmt_error err;
    char shape[64], name[128];
    int ok = 1;

    for (k = 0; k < 5; k++) {
        if (afmt_futhark_text_scan((const uint8_t *)s, len, pos, 127, &end, &a, &err) != 0) {
            ok = 0;
            break;
        }
        shape_str(&a, shape, sizeof shape);
        snprintf(name, sizeof name, "stream: value %zu is %s (got %s)", k, want[k], shape);
        CHECK(name, strcmp(shape, want[k]) == 0 && end > pos);
        pos = end;
    }
    CHECK("stream: five values, the last ends the input", ok && end == len);
    CHECK("stream: nothing after the last value is end of input",
          afmt_futhark_text_scan((const uint8_t *)s, len, len, 127, &end, &a, &err) == -1 &&
              err.code == AFMT_E_TRUNCATED && err.offset == len);

    {
        /* values directly followed by the next one */
        const char *t = "[1][2]empty([0]i8)[3]";
        uint64_t e1 = 0;
        int r1 = afmt_futhark_text_scan((const uint8_t *)t, strlen(t), 0, 127, &e1, &a, &err);
        CHECK("stream: [1][2]: the first value ends at 3", r1 == 0 && e1 == 3);
        r1 = afmt_futhark_text_scan((const uint8_t *)t, strlen(t), 6, 127, &e1, &a, &err);
        CHECK("stream: empty([0]i8)[3]: ends after ')'", r1 == 0 && e1 == 18 && a.count == 0);
    }
    {
        /* offsets are absolute when scanning from the middle */
        const char *t = "xyz --c\n [1, 2i64]";
        int r1 = afmt_futhark_text_scan((const uint8_t *)t, strlen(t), 3, 127, &end, &a, &err);
        CHECK("offsets: an error from pos 3 is at its absolute offset 13",
              r1 == -1 && err.code == AFMT_E_CONSTRAINT && err.offset == 13 &&
                  strcmp(err.field, "element[1]") == 0);
    }
    {
        const char *t = "junk -- c\n [7i16, 8i16] more";
        uint8_t dst[8];
        int r1 = afmt_futhark_text_scan((const uint8_t *)t, strlen(t), 4, 127, &end, &a, &err);
        CHECK("offsets: the view starts at the value, after the comment",
              r1 == 0 && a.offset == 11 && a.data == (const uint8_t *)t + 11 && end == 23 &&
                  a.nbytes == 12);
        r1 = afmt_futhark_text_decode(&a, dst, sizeof dst, &err);
        CHECK("offsets: decode of a view in the middle of a buffer",
              r1 == 0 && dst[0] == 7 && dst[1] == 0 && dst[2] == 8 && dst[3] == 0);
    }
}

/* ------------------------------------------------------- decode misuse */

/* What a misused view differs in from the one the scan made. */
typedef enum {
    MISUSE_NONE, MISUSE_DTYPE, MISUSE_COUNT, MISUSE_DIMS, MISUSE_NBYTES, MISUSE_ENCODING
} misuse;

static void test_decode_misuse(void)
{
    static const struct {
        const char *name;
        misuse change;
        int null_dst;
        size_t cap;
        afmt_code code;
    } cases[] = {
        {"destination too small is a usage error", MISUSE_NONE, 0, 11, AFMT_E_USAGE},
        {"NULL destination is a usage error", MISUSE_NONE, 1, 12, AFMT_E_USAGE},
        {"a view with another dtype is refused", MISUSE_DTYPE, 0, 16, AFMT_E_USAGE},
        {"a view with another count is refused, nothing past it written", MISUSE_COUNT, 0, 8,
         AFMT_E_USAGE},
        {"a view with other dims is refused", MISUSE_DIMS, 0, 16, AFMT_E_USAGE},
        {"a cut view is refused (truncated)", MISUSE_NBYTES, 0, 16, AFMT_E_TRUNCATED},
        {"a non-text view is refused", MISUSE_ENCODING, 0, 16, AFMT_E_USAGE},
    };
    const char *t = "[1, 2, 3]";
    afmt_array a, b;
    afmt_error err;
    uint64_t end;
    uint8_t dst[16];
    char name[128];
    size_t k;

    if (afmt_futhark_text_scan((const uint8_t *)t, strlen(t), 0, 127, &end, &a, &err) != 0) {
        CHECK("decode: scan", 0);
        return;
    }
    for (k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        b = a;
        switch (cases[k].change) {
        case MISUSE_NONE: break;
        case MISUSE_DTYPE: b.dtype = AFMT_I64; break;
        case MISUSE_COUNT: b.count = 2; b.dims[0] = 2; break;
        case MISUSE_DIMS: b.dims[0] = 4; break;
        case MISUSE_NBYTES: b.nbytes = 5; break;
        case MISUSE_ENCODING: b.encoding = AFMT_ENC_PLAIN; break;
        }
        snprintf(name, sizeof name, "decode: %s", cases[k].name);
        CHECK(name, afmt_futhark_text_decode(&b, cases[k].null_dst ? NULL : dst, cases[k].cap,
                                             &err) == -1 &&
                        err.code == cases[k].code);
    }
    CHECK("decode: the real view decodes",
          afmt_futhark_text_decode(&a, dst, 12, &err) == 0 && dst[0] == 1 && dst[4] == 2 &&
              dst[8] == 3);
}

/* ---------------------------------------------------- float correctness */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* decode one scalar literal; returns 0 and its bits, or -1 (error code in *code) */
static int lit_bits(const char *text, uint64_t *bits, afmt_code *code)
{
    afmt_array a;
    afmt_error err;
    uint64_t end;
    uint8_t dst[8] = {0};
    unsigned k;
    afmt_error_clear(&err);
    if (afmt_futhark_text_scan((const uint8_t *)text, strlen(text), 0, 0, &end, &a, &err) != 0 ||
        end != strlen(text) || afmt_futhark_text_decode(&a, dst, sizeof dst, &err) != 0) {
        *code = err.code;
        return -1;
    }
    *bits = 0;
    for (k = 0; k < 8; k++)
        *bits |= (uint64_t)dst[k] << (8 * k);
    return 0;
}

/* exact decimal digits of a binary value (printf of glibc is exact):
 * "d.ddddde[+-]x" with trailing zeros of the mantissa removed */
static void exact_decimal(long double x, char *out, size_t cap)
{
    char tmp[1200], *e, *p;
    snprintf(tmp, sizeof tmp, "%.1100Le", x);
    e = strchr(tmp, 'e');
    p = e;
    while (p[-1] == '0')
        p--;
    if (p[-1] == '.')
        p--;
    snprintf(out, cap, "%.*s%s", (int)(p - tmp), tmp, e);
}

/* m's digits nudged just below (-1) or above (+1) */
static void nudge(const char *exact, int dir, char *out, size_t cap)
{
    const char *e = strchr(exact, 'e');
    size_t mlen = (size_t)(e - exact);
    char mant[1200];
    memcpy(mant, exact, mlen);
    mant[mlen] = '\0';
    if (dir < 0) /* the last digit is non-zero: decrement it, append 9s */
        mant[mlen - 1] = (char)(mant[mlen - 1] - 1);
    if (!strchr(mant, '.')) {
        mant[mlen++] = '.';
        mant[mlen] = '\0';
    }
    snprintf(out, cap, "%s%s%s", mant, dir > 0 ? "000000000001" : "99999999999", e);
}

/* The three probes around one midpoint: the exact tie goes to the even
 * neighbour, a hair above to hi, a hair below to lo. */
static int midpoint_case(const char *suffix, long double mid, uint64_t lo, uint64_t hi,
                         const char *what)
{
    char ex[1300], s[1400], t[1400];
    uint64_t got;
    afmt_code code;
    int bad = 0;
    size_t k;
    const struct {
        const char *probe;
        int nudge; /* 0: the exact decimal; +1 / -1: a hair above / below */
        uint64_t want;
    } probes[] = {
        {"tie", 0, (lo & 1) ? hi : lo},
        {"above", 1, hi},
        {"below", -1, lo},
    };

    exact_decimal(mid, ex, sizeof ex);
    for (k = 0; k < sizeof probes / sizeof probes[0]; k++) {
        if (probes[k].nudge)
            nudge(ex, probes[k].nudge, t, sizeof t);
        snprintf(s, sizeof s, "%s%s", probes[k].nudge ? t : ex, suffix);
        if (lit_bits(s, &got, &code) != 0 || got != probes[k].want) {
            printf("  %s %s %s: got %llx want %llx\n", what, probes[k].probe, s,
                   (unsigned long long)got, (unsigned long long)probes[k].want);
            bad = 1;
        }
    }
    return bad;
}

static void test_midpoints(void)
{
    int k, bad16 = 0, bad32 = 0, bad64 = 0;

    /* f16: every positive finite value and its successor (1..0x7bfe) */
    for (k = 0; k < 0x7bff; k++) {
        double a = afmt_f16_to_double((uint16_t)k), b = afmt_f16_to_double((uint16_t)(k + 1));
        bad16 += midpoint_case("f16", ((long double)a + b) / 2, (uint64_t)k, (uint64_t)k + 1, "f16");
        if (bad16 > 3)
            break;
    }
    CHECK("midpoints: all f16 ties go to even, a hair above up, a hair below down", bad16 == 0);
    for (k = 0; k < 3000 && bad32 <= 3; k++) {
        uint32_t u = (uint32_t)(rng() % 0x7f7fffffu), v = u + 1;
        float a, b;
        memcpy(&a, &u, 4);
        memcpy(&b, &v, 4);
        bad32 += midpoint_case("f32", ((long double)a + b) / 2, u, v, "f32");
    }
    CHECK("midpoints: 3000 random f32 ties, above, below", bad32 == 0);
#if LDBL_MANT_DIG >= 64
    for (k = 0; k < 3000 && bad64 <= 3; k++) {
        uint64_t u = rng() % 0x7fefffffffffffffull, v = u + 1;
        double a, b;
        if (k < 4)
            u = (uint64_t)k, v = u + 1; /* the smallest subnormals: ~750 digits */
        memcpy(&a, &u, 8);
        memcpy(&b, &v, 8);
        bad64 += midpoint_case("f64", ((long double)a + b) / 2, u, v, "f64");
    }
    CHECK("midpoints: 3000 random f64 ties, above, below (incl. subnormal, 750 digits)",
          bad64 == 0);
#else
    (void)bad64;
#endif
}

/* Literals longer than any buffer a reader might keep: more than 800
 * significant digits, where the sticky digit decides. */
static void test_long_literals(void)
{
    static const struct {
        const char *name, *head;
        char fill;
        size_t nfill;
        const char *tail;
        int rc;         /* lit_bits' result */
        uint64_t bits;  /* when rc == 0 */
    } cases[] = {
        {"tie with 1500 trailing zeros goes to even", "1.000000059604644775390625", '0', 1500,
         "f32", 0, 0x3f800000},
        {"a 1 after 1500 zeros rounds up", "1.000000059604644775390625", '0', 1500, "1f32", 0,
         0x3f800001},
        {"2000 nines overflow f64", "", '9', 2000, "f64", -1, 0},
        {"0.(2000 zeros)1e2330 is 1e329 -> overflow", "0.", '0', 2000, "1e2330", -1, 0},
        {"0.(2000 zeros)1e2002 is 10", "0.", '0', 2000, "1e2002", 0, 0x4024000000000000ull},
    };
    static char s[3000];
    char name[128];
    size_t k, n;

    for (k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        uint64_t got = 0;
        afmt_code code = AFMT_OK;
        int rc;

        n = strlen(cases[k].head);
        memcpy(s, cases[k].head, n);
        memset(s + n, cases[k].fill, cases[k].nfill);
        strcpy(s + n + cases[k].nfill, cases[k].tail);
        rc = lit_bits(s, &got, &code);
        snprintf(name, sizeof name, "long literal: %s", cases[k].name);
        CHECK(name, rc == cases[k].rc &&
                        (rc == 0 ? got == cases[k].bits : code == AFMT_E_VALUE));
    }
}

/* 1 if literal s with the type suffix does not decode to the bits want
 * (or, when overflows, is not refused); the first three are printed. */
static int literal_differs(const char *s, const char *suffix, uint64_t want, int overflows,
                           int bad_so_far)
{
    char t[80];
    uint64_t got = 0;
    afmt_code code;
    int rc;

    snprintf(t, sizeof t, "%s%s", s, suffix);
    rc = lit_bits(t, &got, &code);
    if (overflows ? rc == -1 : (rc == 0 && got == want))
        return 0;
    if (bad_so_far < 3)
        printf("  %s: got %llx want %llx\n", t, (unsigned long long)got, (unsigned long long)want);
    return 1;
}

/* random literals against strtod / strtof (glibc rounds correctly) */
static void test_random_vs_libc(void)
{
    int k, bad64 = 0, bad32 = 0, bad16 = 0;
    for (k = 0; k < 20000; k++) {
        char s[64];
        int nd = 1 + (int)(rng() % 20), j, e, pos = 0;

        if (rng() % 4 == 0)
            s[pos++] = '-';
        for (j = 0; j < nd; j++)
            s[pos++] = (char)('0' + (j == 0 ? 1 + rng() % 9 : rng() % 10));
        if (rng() % 2) {
            /* put a point inside */
            int at = 1 + (int)(rng() % (unsigned)nd);
            memmove(s + (s[0] == '-') + at + 1, s + (s[0] == '-') + at, (size_t)(nd - at));
            s[(s[0] == '-') + at] = '.';
            pos++;
            if (at == nd)
                s[pos++] = '0';
        }
        e = (int)(rng() % 700) - 350;
        if (k % 3 == 1)
            e = (int)(rng() % 100) - 50;
        if (k % 3 == 2)
            e = (int)(rng() % 20) - 10;
        pos += sprintf(s + pos, "e%d", e);
        s[pos] = '\0';

        /* f64 and f32: glibc's strtod / strtof round correctly */
        {
            double d = strtod(s, NULL);
            float f = strtof(s, NULL);
            uint64_t want64 = 0;
            uint32_t want32;

            memcpy(&want64, &d, 8);
            memcpy(&want32, &f, 4);
            bad64 += literal_differs(s, "f64", want64, isinf(d), bad64);
            bad32 += literal_differs(s, "f32", want32, isinf(f), bad32);
        }
        /* f16: rounding the correctly rounded double is right unless the
         * double is itself an f16 midpoint (then skip) */
        {
            double d = strtod(s, NULL);
            uint16_t h, h2;
            int mid = 0;
            afmt_double_to_f16(d, &h);
            if ((h & 0x7fff) < 0x7c00 && (h & 0x7fff) > 0) {
                double a = afmt_f16_to_double(h);
                h2 = (uint16_t)(fabs(d) > fabs(a) ? h + 1 : h - 1);
                if ((h2 & 0x7fff) <= 0x7c00 && d * 2 == a + afmt_f16_to_double(h2))
                    mid = 1;
            }
            if ((h & 0x7fff) == 0 && d != 0 && fabs(d) * 2 == afmt_f16_to_double(1))
                mid = 1;
            if (!mid)
                bad16 += literal_differs(s, "f16", h, (h & 0x7fff) == 0x7c00, bad16);
        }
    }
    CHECK("random literals: f64 bits equal strtod's (20000)", bad64 == 0);
    CHECK("random literals: f32 bits equal strtof's (20000)", bad32 == 0);
    CHECK("random literals: f16 bits equal the rounded strtod (20000)", bad16 == 0);
}

int main(void)
{
    test_samples();
    test_valid();
    test_invalid();
    test_depth();
    test_stream();
    test_decode_misuse();
    test_midpoints();
    test_long_literals();
    test_random_vs_libc();
    CHECK_DONE();
}
