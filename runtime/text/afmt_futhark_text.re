/* afmt runtime: Futhark text values (re2c source).
 *
 * `make regen` turns this into runtime/text/afmt_futhark_text.c (edit this file,
 * never that one; it sits in runtime/ so that copying runtime/ brings every
 * .c the runtime needs, and `make check-regen` keeps it current); the grammar and the policy are in
 * afmt_futhark_text.h.
 *
 * Layout: re2c splits the input into tokens (whitespace, `--` comments,
 * punctuation, words) and classifies a word as a number body, a name or
 * garbage; plain C walks the array structure iteratively (one counter per
 * open '[', bounded by the rank limit), checks every literal's range, and
 * converts decimals to binary floats exactly.  The input is a (buf, len)
 * slice, not a C string: re2c reads it through YYPEEK, which returns a
 * virtual NUL at the end, so no byte past len is ever touched.
 */
#include "afmt_futhark_text.h"

#include <float.h>
#include <string.h>

/* ================================================================ tokens */

enum tok {
    TK_END,     /* end of input */
    TK_SPACE,   /* whitespace */
    TK_COMMENT, /* -- up to the end of the line */
    TK_LBRACK, TK_RBRACK, TK_COMMA, TK_LPAREN, TK_RPAREN,
    TK_WORD,    /* a run of [A-Za-z0-9_.+-] that is not a comment */
    TK_STRING,  /* '"': futhark-data string literal, not supported */
    TK_BAD      /* any other byte (a NUL, a control or non-ASCII byte, ...) */
};

/* re2c input over the slice buf[0..n): a virtual NUL past the end. */
#define YYPEEK() (i < n ? buf[i] : 0)
#define YYSKIP() (++i)
#define YYBACKUP() (mar = i)
#define YYRESTORE() (i = mar)

/*!re2c
    re2c:api = custom;
    re2c:define:YYCTYPE = "uint8_t";
    re2c:yyfill:enable = 0;

    wc   = [A-Za-z0-9_.+-];
    ws   = [ \t\n\v\f\r];
    sign = [+-];
    dec  = [0-9] [0-9_]*;
    hex  = "0x" [0-9a-fA-F] [0-9a-fA-F_]*;
    bin  = "0b" [01] [01_]*;
*/

/* One token at buf[*pi]; *pi moves past it. */
static enum tok lex_token(const uint8_t *buf, uint64_t n, uint64_t *pi)
{
    uint64_t i = *pi, mar = i;
    const void *nl;

    (void)mar;
    /*!re2c
    "\x00" {
        if (i > n) { *pi = n; return TK_END; }
        *pi = i; return TK_BAD;
    }
    ws+ { *pi = i; return TK_SPACE; }
    "--" {
        nl = i < n ? memchr(buf + i, '\n', (size_t)(n - i)) : NULL;
        *pi = nl ? (uint64_t)((const uint8_t *)nl - buf) + 1 : n;
        return TK_COMMENT;
    }
    "[" { *pi = i; return TK_LBRACK; }
    "]" { *pi = i; return TK_RBRACK; }
    "," { *pi = i; return TK_COMMA; }
    "(" { *pi = i; return TK_LPAREN; }
    ")" { *pi = i; return TK_RPAREN; }
    "\"" { *pi = i; return TK_STRING; }
    [A-Za-z0-9_.+] wc* | "-" ([A-Za-z0-9_.+] wc*)? { *pi = i; return TK_WORD; }
    * { *pi = i; return TK_BAD; }
    */
}

/* What a word is. */
enum lk {
    LK_BAD,
    LK_DEC, LK_HEX, LK_BIN, /* integer bodies (a float suffix may follow LK_DEC) */
    LK_FLOAT,               /* decimal with a fraction and/or an exponent */
    LK_BIG_E,               /* 1E3: an integer then 'E' (futhark-data misreads it) */
    LK_TRUE, LK_FALSE,
    LK_NAN16, LK_NAN32, LK_NAN64,
    LK_INF16, LK_INF32, LK_INF64,
    LK_NINF16, LK_NINF32, LK_NINF64,
    LK_EMPTY
};

/* Classify the word buf[*pi..n): the longest body or name at its start;
 * *pi moves to the end of that body (where a suffix would start). */
static enum lk lex_word(const uint8_t *buf, uint64_t n, uint64_t *pi)
{
    uint64_t i = *pi, mar = i;
    enum lk k;

    (void)mar;
    /*!re2c
    sign? dec                                   { k = LK_DEC; goto done; }
    sign? hex                                   { k = LK_HEX; goto done; }
    sign? bin                                   { k = LK_BIN; goto done; }
    sign? dec "." dec ([eE] sign? dec)?         { k = LK_FLOAT; goto done; }
    sign? dec "e" sign? dec                     { k = LK_FLOAT; goto done; }
    sign? dec "E" sign? dec                     { k = LK_BIG_E; goto done; }
    "true"                                      { k = LK_TRUE; goto done; }
    "false"                                     { k = LK_FALSE; goto done; }
    "f16.nan"                                   { k = LK_NAN16; goto done; }
    "f32.nan"                                   { k = LK_NAN32; goto done; }
    "f64.nan"                                   { k = LK_NAN64; goto done; }
    "f16.inf"                                   { k = LK_INF16; goto done; }
    "f32.inf"                                   { k = LK_INF32; goto done; }
    "f64.inf"                                   { k = LK_INF64; goto done; }
    "-f16.inf"                                  { k = LK_NINF16; goto done; }
    "-f32.inf"                                  { k = LK_NINF32; goto done; }
    "-f64.inf"                                  { k = LK_NINF64; goto done; }
    "empty"                                     { k = LK_EMPTY; goto done; }
    *                                           { k = LK_BAD; goto done; }
    */
done:
    *pi = i;
    return k;
}

/* =============================================================== messages */

#define TXT_MAX 48

/* The message helpers below run once per character of a quoted token or a
 * number, so a fuzzer's hit counts of their loops only tell it how long the
 * token was: in a coverage-guided build (libFuzzer) every new length was a
 * "new" input written to disk, and the helpers were a seventh of the time of
 * a futhark fuzz target.  They decide nothing about the input, so they are
 * left out of the coverage instrumentation (sanitizers still check them). */
#if defined(__clang__) && __clang_major__ >= 13
#define TXT_NO_COVERAGE __attribute__((no_sanitize("coverage")))
#else
#define TXT_NO_COVERAGE
#endif

static int is_print(uint8_t c) { return c >= 0x20 && c < 0x7f; }

TXT_NO_COVERAGE static void txt_put(char *out, size_t *len, size_t cap, char c)
{
    if (*len + 1 < cap)
        out[(*len)++] = c;
    out[*len] = '\0';
}

TXT_NO_COVERAGE static void txt_puts(char *out, size_t *len, size_t cap, const char *s)
{
    while (*s)
        txt_put(out, len, cap, *s++);
}

/* buf[a..b) quoted, at most ~32 bytes, non-printable bytes as \xNN. */
TXT_NO_COVERAGE static const char *txt_quote(const uint8_t *buf, uint64_t a, uint64_t b, char *out, size_t cap)
{
    static const char hexd[] = "0123456789abcdef";
    size_t len = 0;
    uint64_t k, m = b - a > 32 ? 32 : b - a;

    out[0] = '\0';
    txt_put(out, &len, cap, '\'');
    for (k = 0; k < m; k++) {
        uint8_t c = buf[a + k];
        if (is_print(c) && c != '\\' && c != '\'') {
            txt_put(out, &len, cap, (char)c);
        } else {
            txt_put(out, &len, cap, '\\');
            txt_put(out, &len, cap, 'x');
            txt_put(out, &len, cap, hexd[c >> 4]);
            txt_put(out, &len, cap, hexd[c & 15]);
        }
    }
    if (m < b - a)
        txt_puts(out, &len, cap, "...");
    txt_put(out, &len, cap, '\'');
    return out;
}

TXT_NO_COVERAGE static const char *txt_u64(uint64_t v, char *out, size_t cap)
{
    char tmp[24];
    size_t k = 0, len = 0;

    do {
        tmp[k++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    out[0] = '\0';
    while (k)
        txt_put(out, &len, cap, tmp[--k]);
    return out;
}

/* ================================================================ walker */

typedef struct walker {
    const uint8_t *buf;
    uint64_t n;        /* bytes of buf */
    uint64_t base;     /* absolute offset of buf[0] (errors report base + i) */
    uint64_t limit;    /* maximum rank */
    afmt_error *err;
    /* decode: elements are stored into dst (NULL while only scanning) */
    uint8_t *dst;
    uint64_t dst_count;
    afmt_dtype want;
} walker;

static int wfail(const walker *w, afmt_code code, const char *field, uint64_t index,
                 uint64_t at, const char *msg1, const char *msg2, const char *msg3)
{
    return afmt_fail(w->err, code, NULL, field, index, w->base + at, "%s%s%s", msg1,
                     msg2 ? msg2 : "", msg3 ? msg3 : "");
}

/* A description of what is at buf[i] (a token starting there). */
static const char *found_at(const walker *w, uint64_t i, char *out, size_t cap)
{
    uint64_t j = i;
    size_t len = 0;
    enum tok k;

    out[0] = '\0';
    if (i >= w->n) {
        txt_puts(out, &len, cap, "end of input");
        return out;
    }
    k = lex_token(w->buf, w->n, &j);
    if (k == TK_SPACE) {
        txt_puts(out, &len, cap, "whitespace");
        return out;
    }
    if (k == TK_COMMENT)
        j = i + 2;
    return txt_quote(w->buf, i, j > i ? j : i + 1, out, cap);
}

/* Skip whitespace and comments: the next significant token starts at *t0
 * and ends at *pi. */
static enum tok next_sig(const walker *w, uint64_t *pi, uint64_t *t0)
{
    enum tok k;
    for (;;) {
        *t0 = *pi;
        k = lex_token(w->buf, w->n, pi);
        if (k != TK_SPACE && k != TK_COMMENT)
            return k;
    }
}

/* ======================================================== integer values */

static unsigned digit_value(uint8_t c)
{
    if (c >= '0' && c <= '9') return (unsigned)(c - '0');
    if (c >= 'a' && c <= 'f') return (unsigned)(c - 'a' + 10);
    if (c >= 'A' && c <= 'F') return (unsigned)(c - 'A' + 10);
    return 99;
}

/* Magnitude of the digits buf[p..q) ('_' skipped); 0 when it exceeds
 * 2^64 - 1. */
static int parse_mag(const uint8_t *buf, uint64_t p, uint64_t q, unsigned base, uint64_t *mag)
{
    uint64_t v = 0;
    for (; p < q; p++) {
        unsigned d;
        if (buf[p] == '_')
            continue;
        d = digit_value(buf[p]);
        if (v > (UINT64_MAX - d) / base)
            return 0;
        v = v * base + d;
    }
    *mag = v;
    return 1;
}

/* ========================================== decimal -> binary, exactly */

#define MAXDIG 800   /* significant digits kept; then one sticky digit */
#define BIG_LIMBS 132 /* 4224 bits: the largest operand is ~3800 bits */

typedef struct decnum {
    uint8_t dig[MAXDIG + 1]; /* digit values, no leading or trailing zeros */
    unsigned nd;
    int64_t e10;             /* value = int(dig) * 10^e10 */
} decnum;

#define SAT_MAX ((uint64_t)1 << 60)

static uint64_t sat_add(uint64_t a, uint64_t b)
{
    return a >= SAT_MAX || b >= SAT_MAX || a + b >= SAT_MAX ? SAT_MAX : a + b;
}

static void dec_push(decnum *d, uint8_t v, uint64_t *extra)
{
    if (d->nd < MAXDIG)
        d->dig[d->nd++] = v;
    else
        *extra = sat_add(*extra, 1);
}

/* Parse the decimal body buf[p..q) (digits, '_', an optional fraction and
 * exponent, as lex_word accepted them, without sign or suffix). */
static void parse_decimal(const uint8_t *buf, uint64_t p, uint64_t q, decnum *d)
{
    uint64_t zrun = 0, extra = 0, frac = 0, ex = 0;
    int in_frac = 0, started = 0, eneg = 0;

    d->nd = 0;
    for (; p < q; p++) {
        uint8_t c = buf[p];
        if (c == '_')
            continue;
        if (c == '.') {
            in_frac = 1;
            continue;
        }
        if (c == 'e' || c == 'E') {
            p++;
            break;
        }
        if (in_frac)
            frac = sat_add(frac, 1);
        if (c == '0') {
            if (started)
                zrun = sat_add(zrun, 1);
            continue;
        }
        started = 1;
        /* zeros between non-zero digits are significant */
        while (zrun && d->nd < MAXDIG) {
            d->dig[d->nd++] = 0;
            zrun--;
        }
        extra = sat_add(extra, zrun);
        zrun = 0;
        dec_push(d, (uint8_t)(c - '0'), &extra);
    }
    if (p < q && (buf[p] == '+' || buf[p] == '-')) {
        eneg = buf[p] == '-';
        p++;
    }
    for (; p < q; p++) {
        if (buf[p] == '_')
            continue;
        if (ex < SAT_MAX / 16)
            ex = ex * 10 + (uint64_t)(buf[p] - '0');
    }
    if (d->nd == 0) {
        d->e10 = 0;
        return;
    }
    /* value = int(kept digits) * 10^(extra + zrun - frac +- ex), every term
     * below 2^60, so the sum fits an int64. */
    d->e10 = (int64_t)extra + (int64_t)zrun - (int64_t)frac + (eneg ? -(int64_t)ex : (int64_t)ex);
    if (extra > 0) {
        /* Digits were dropped and they end with a non-zero one: a sticky
         * digit 1 keeps the value strictly between the same two neighbours
         * of every rounding boundary (those have < MAXDIG digits). */
        d->dig[d->nd++] = 1;
        d->e10 -= 1;
    }
}

typedef struct big {
    uint32_t w[BIG_LIMBS];
    unsigned n;   /* limbs in use; w[n-1] != 0 */
    int ovf;      /* capacity exceeded (never, by the bounds above) */
} big;

static void big_set(big *a, uint32_t v)
{
    a->w[0] = v;
    a->n = v ? 1 : 0;
    a->ovf = 0;
}

static void big_muladd(big *a, uint32_t m, uint32_t c)
{
    uint64_t carry = c;
    unsigned k;
    for (k = 0; k < a->n; k++) {
        uint64_t t = (uint64_t)a->w[k] * m + carry;
        a->w[k] = (uint32_t)t;
        carry = t >> 32;
    }
    if (carry) {
        if (a->n < BIG_LIMBS)
            a->w[a->n++] = (uint32_t)carry;
        else
            a->ovf = 1;
    }
}

static const uint32_t pow10_u32[10] = {
    1u, 10u, 100u, 1000u, 10000u, 100000u, 1000000u, 10000000u, 100000000u, 1000000000u
};

static void big_mul_pow10(big *a, uint64_t e)
{
    while (e >= 9 && !a->ovf) {
        big_muladd(a, pow10_u32[9], 0);
        e -= 9;
    }
    if (e)
        big_muladd(a, pow10_u32[e], 0);
}

static void big_from_digits(big *a, const uint8_t *dig, unsigned nd)
{
    unsigned k = 0;
    big_set(a, 0);
    while (k < nd) {
        unsigned take = nd - k < 9 ? nd - k : 9, j;
        uint32_t v = 0;
        for (j = 0; j < take; j++)
            v = v * 10 + dig[k + j];
        big_muladd(a, pow10_u32[take], v);
        k += take;
    }
}

static unsigned bitlen32(uint32_t v)
{
    unsigned b = 0;
    while (v) {
        b++;
        v >>= 1;
    }
    return b;
}

static uint64_t big_bitlen(const big *a)
{
    return a->n ? 32u * (uint64_t)(a->n - 1) + bitlen32(a->w[a->n - 1]) : 0;
}

static void big_shl(big *a, uint64_t s)
{
    uint64_t limbs = s / 32;
    unsigned bits = (unsigned)(s % 32), k;
    uint32_t top;

    if (a->n == 0)
        return;
    top = bits ? a->w[a->n - 1] >> (32 - bits) : 0;
    if (limbs + a->n + (top ? 1 : 0) > BIG_LIMBS) {
        a->ovf = 1;
        return;
    }
    if (top)
        a->w[a->n + limbs] = top;
    for (k = a->n; k-- > 0;) {
        uint32_t lo = (bits && k > 0) ? a->w[k - 1] >> (32 - bits) : 0;
        a->w[k + limbs] = bits ? (a->w[k] << bits | lo) : a->w[k];
    }
    for (k = 0; k < limbs; k++)
        a->w[k] = 0;
    a->n += (unsigned)limbs + (top ? 1 : 0);
}

/* The division loop of dec_to_float calls this prec + 3 times on the
 * whole divisor: the top limb is done outside the loop, so the loop body
 * has no test (it was a seventh of the fuzz targets' time on float
 * literals). */
static void big_shr1(big *a)
{
    unsigned k;
    if (a->n == 0)
        return;
    for (k = 0; k + 1 < a->n; k++)
        a->w[k] = a->w[k] >> 1 | a->w[k + 1] << 31;
    a->w[a->n - 1] >>= 1;
    if (a->w[a->n - 1] == 0)
        a->n--;
}

static int big_cmp(const big *a, const big *b)
{
    unsigned k;
    if (a->n != b->n)
        return a->n < b->n ? -1 : 1;
    for (k = a->n; k-- > 0;)
        if (a->w[k] != b->w[k])
            return a->w[k] < b->w[k] ? -1 : 1;
    return 0;
}

/* a -= b, with a >= b. */
static void big_sub(big *a, const big *b)
{
    uint64_t borrow = 0;
    unsigned k;
    for (k = 0; k < a->n; k++) {
        uint64_t t = (uint64_t)a->w[k] - (k < b->n ? b->w[k] : 0) - borrow;
        a->w[k] = (uint32_t)t;
        borrow = (t >> 32) & 1;
    }
    while (a->n && a->w[a->n - 1] == 0)
        a->n--;
}

static unsigned bitlen64(uint64_t v)
{
    unsigned b = 0;
    while (v) {
        b++;
        v >>= 1;
    }
    return b;
}

/* Round q * 2^-s (plus a little more when sticky) to the IEEE format with
 * mbits of mantissa and ebits of exponent, nearest even.  0, or -1 when
 * the result is infinite. */
static int round_pack(uint64_t q, int64_t s, int sticky, int neg, unsigned mbits,
                      unsigned ebits, uint64_t *bits)
{
    int64_t bias = ((int64_t)1 << (ebits - 1)) - 1, emin = 1 - bias, emax = bias;
    int64_t e, te, drop;
    uint64_t r, sign = (uint64_t)(neg ? 1 : 0) << (mbits + ebits);

    if (q == 0) {
        *bits = sign;
        return 0;
    }
    e = (int64_t)bitlen64(q) - 1 - s;
    if (e > emax)
        return -1;
    te = e < emin ? emin : e;
    drop = te - (int64_t)mbits + s;
    if (drop <= 0) {
        /* exact with room to spare (cannot happen: q has 2 bits more) */
        r = drop < -63 ? 0 : q << -drop;
    } else if (drop >= 64) {
        r = 0; /* below half of the smallest subnormal: q < 2^63 */
    } else {
        uint64_t rem = q & (((uint64_t)1 << drop) - 1);
        uint64_t half = (uint64_t)1 << (drop - 1);
        r = q >> drop;
        if (rem > half || (rem == half && (sticky || (r & 1))))
            r++;
    }
    if (r >> (mbits + 1)) {
        r >>= 1;
        te++;
    }
    if (te > emax)
        return -1;
    if (r < ((uint64_t)1 << mbits))
        *bits = sign | r; /* subnormal or zero */
    else
        *bits = sign | (uint64_t)(te + bias) << mbits | (r - ((uint64_t)1 << mbits));
    return 0;
}

#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD == 0 && !defined(__FAST_MATH__)
#define AFMT_TEXT_FAST_FLOAT 1
static const double pow10_f64[23] = {
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22
};
static const float pow10_f32[11] = {
    1e0f, 1e1f, 1e2f, 1e3f, 1e4f, 1e5f, 1e6f, 1e7f, 1e8f, 1e9f, 1e10f
};
#endif

/* The decimal d (negated when neg) as IEEE bits of the format (mbits,
 * ebits), correctly rounded.  0, or -1 when it rounds to infinity. */
static int dec_to_float(const decnum *d, int neg, unsigned mbits, unsigned ebits, uint64_t *bits)
{
    uint64_t sign = (uint64_t)(neg ? 1 : 0) << (mbits + ebits);
    int64_t nd = d->nd, e10 = d->e10, s;
    uint64_t b1, b2, q = 0;
    unsigned prec = mbits + 1, k;
    big num, den;

    if (nd == 0) {
        *bits = sign;
        return 0;
    }
    /* 10^(nd-1+e10) <= value < 10^(nd+e10) */
    if (nd - 1 + e10 >= 309)
        return -1; /* >= 10^309, above every format's maximum */
    if (nd + e10 <= -324) {
        *bits = sign; /* < 10^-324: below half of the smallest subnormal */
        return 0;
    }
#ifdef AFMT_TEXT_FAST_FLOAT
    /* Clinger's fast path: the digits and the power of ten are exact in
     * the target, so one IEEE multiply or divide rounds correctly. */
    if (nd <= 19 && (mbits == 52 || mbits == 23)) {
        uint64_t v = 0;
        for (k = 0; k < (unsigned)nd; k++)
            v = v * 10 + d->dig[k];
        if (mbits == 52 && v <= ((uint64_t)1 << 53) && e10 >= -22 && e10 <= 22) {
            double x = (double)v;
            x = e10 < 0 ? x / pow10_f64[-e10] : x * pow10_f64[e10];
            memcpy(bits, &x, sizeof x);
            *bits |= sign;
            return 0;
        }
        if (mbits == 23 && v <= ((uint64_t)1 << 24) && e10 >= -10 && e10 <= 10) {
            float x = (float)v;
            uint32_t u;
            x = e10 < 0 ? x / pow10_f32[-e10] : x * pow10_f32[e10];
            memcpy(&u, &x, sizeof u);
            *bits = u | sign;
            return 0;
        }
    }
#endif
    /* Exact: value = num / den with integers; q = floor(num * 2^s / den)
     * gets prec + 2 or prec + 3 bits, the remainder is the sticky bit. */
    big_from_digits(&num, d->dig, (unsigned)nd);
    big_set(&den, 1);
    if (e10 >= 0)
        big_mul_pow10(&num, (uint64_t)e10);
    else
        big_mul_pow10(&den, (uint64_t)-e10);
    b1 = big_bitlen(&num);
    b2 = big_bitlen(&den);
    s = (int64_t)prec + 2 - ((int64_t)b1 - (int64_t)b2);
    if (s > 0)
        big_shl(&num, (uint64_t)s);
    else
        big_shl(&den, (uint64_t)-s);
    big_shl(&den, prec + 3);
    for (k = prec + 3; k-- > 0;) {
        big_shr1(&den);
        if (big_cmp(&num, &den) >= 0) {
            big_sub(&num, &den);
            q |= (uint64_t)1 << k;
        }
    }
    if (num.ovf || den.ovf)
        return -1; /* unreachable: the operands stay below BIG_LIMBS */
    return round_pack(q, s, num.n != 0, neg, mbits, ebits, bits);
}

/* ======================================================== literal values */

typedef struct scalar {
    afmt_dtype dtype;
    uint64_t bits; /* little-endian value of dtype's size */
} scalar;

static const char *int_range(afmt_dtype t)
{
    switch (t) {
    case AFMT_I8: return "-128..127";
    case AFMT_I16: return "-32768..32767";
    case AFMT_I32: return "-2147483648..2147483647";
    case AFMT_I64: return "-9223372036854775808..9223372036854775807";
    case AFMT_U8: return "0..255";
    case AFMT_U16: return "0..65535";
    case AFMT_U32: return "0..4294967295";
    default: return "0..18446744073709551615";
    }
}

/* The twelve Futhark element types, by suffix / type name. */
static afmt_dtype futhark_type(const uint8_t *p, uint64_t n)
{
    static const struct { const char *name; afmt_dtype t; } types[] = {
        {"i8", AFMT_I8}, {"i16", AFMT_I16}, {"i32", AFMT_I32}, {"i64", AFMT_I64},
        {"u8", AFMT_U8}, {"u16", AFMT_U16}, {"u32", AFMT_U32}, {"u64", AFMT_U64},
        {"f16", AFMT_F16}, {"f32", AFMT_F32}, {"f64", AFMT_F64}, {"bool", AFMT_BOOL},
    };
    unsigned k;
    for (k = 0; k < sizeof types / sizeof types[0]; k++)
        if (strlen(types[k].name) == n && memcmp(types[k].name, p, (size_t)n) == 0)
            return types[k].t;
    return AFMT_DTYPE_INVALID;
}

static int is_float_type(afmt_dtype t)
{
    return t == AFMT_F16 || t == AFMT_F32 || t == AFMT_F64;
}

static int lower_eq(const uint8_t *p, uint64_t n, const char *s)
{
    uint64_t k;
    if (strlen(s) != n)
        return 0;
    for (k = 0; k < n; k++) {
        uint8_t c = p[k];
        if (c >= 'A' && c <= 'Z')
            c = (uint8_t)(c - 'A' + 'a');
        if (c != (uint8_t)s[k])
            return 0;
    }
    return 1;
}

/* The word buf[ws..we) is not a literal: say why as well as we can. */
static int bad_word(const walker *w, uint64_t ws, uint64_t we, uint64_t index)
{
    const uint8_t *p = w->buf + ws;
    uint64_t n = we - ws, off = (p[0] == '-' || p[0] == '+') ? 1 : 0;
    char q[TXT_MAX];

    txt_quote(w->buf, ws, we, q, sizeof q);
    if (lower_eq(p + off, n - off, "nan") || lower_eq(p + off, n - off, "inf") ||
        lower_eq(p + off, n - off, "infinity"))
        return wfail(w, AFMT_E_VALUE, "element", index, ws, "expected a literal, found ", q,
                     ": special floats are written f64.nan, f32.inf, -f16.inf, ...");
    if (n > off && p[off] == '.')
        return wfail(w, AFMT_E_VALUE, "element", index, ws, "expected a literal, found ", q,
                     ": a number needs a digit before '.'");
    if (n == 1 && p[0] == 'b')
        return wfail(w, AFMT_E_VALUE, "element", index, ws, "expected a literal, found ", q,
                     " (the start of a binary value, not text)");
    if (n >= 4 && (p[0] == '-' || p[0] == '+') && p[1] == 'f')
        return wfail(w, AFMT_E_VALUE, "element", index, ws, "expected a literal, found ", q,
                     ": only -f16.inf, -f32.inf and -f64.inf take a sign");
    return wfail(w, AFMT_E_VALUE, "element", index, ws, "expected a literal (a number, true, "
                 "false, fNN.nan or fNN.inf), found ", q, NULL);
}

/* Parse the literal word buf[ws..we), element number `index`. */
static int literal(const walker *w, uint64_t ws, uint64_t we, uint64_t index, scalar *out)
{
    const uint8_t *buf = w->buf;
    uint64_t be = ws, ds, mag;
    enum lk k = lex_word(buf, we, &be);
    afmt_dtype t = AFMT_DTYPE_INVALID;
    int neg = buf[ws] == '-';
    char q[TXT_MAX], q2[TXT_MAX];

    switch (k) {
    case LK_BAD:
        return bad_word(w, ws, we, index);
    case LK_EMPTY:
        if (be == we)
            return wfail(w, AFMT_E_VALUE, "element", index, ws,
                         "expected a literal, found 'empty': empty(...) is only allowed as a "
                         "whole value, not inside [...]", NULL, NULL);
        return bad_word(w, ws, we, index);
    case LK_BIG_E:
        return wfail(w, AFMT_E_VALUE, "element", index, ws, "malformed number ",
                     txt_quote(buf, ws, we, q, sizeof q),
                     ": an exponent without a fraction is written with 'e' (futhark-data "
                     "reads 1E3 as 1 followed by garbage; write 1e3 or 1.0E3)");
    case LK_TRUE: case LK_FALSE:
    case LK_NAN16: case LK_NAN32: case LK_NAN64:
    case LK_INF16: case LK_INF32: case LK_INF64:
    case LK_NINF16: case LK_NINF32: case LK_NINF64:
        if (be != we)
            return bad_word(w, ws, we, index);
        switch (k) {
        case LK_TRUE: out->dtype = AFMT_BOOL; out->bits = 1; break;
        case LK_FALSE: out->dtype = AFMT_BOOL; out->bits = 0; break;
        case LK_NAN16: out->dtype = AFMT_F16; out->bits = 0x7e00; break;
        case LK_NAN32: out->dtype = AFMT_F32; out->bits = 0x7fc00000; break;
        case LK_NAN64: out->dtype = AFMT_F64; out->bits = 0x7ff8000000000000; break;
        case LK_INF16: out->dtype = AFMT_F16; out->bits = 0x7c00; break;
        case LK_INF32: out->dtype = AFMT_F32; out->bits = 0x7f800000; break;
        case LK_INF64: out->dtype = AFMT_F64; out->bits = 0x7ff0000000000000; break;
        case LK_NINF16: out->dtype = AFMT_F16; out->bits = 0xfc00; break;
        case LK_NINF32: out->dtype = AFMT_F32; out->bits = 0xff800000; break;
        default: out->dtype = AFMT_F64; out->bits = 0xfff0000000000000; break;
        }
        return 0;
    default:
        break;
    }

    /* A number body buf[ws..be), then its suffix buf[be..we). */
    if (be < we) {
        uint8_t c = buf[be];
        const char *why = NULL;
        t = futhark_type(buf + be, we - be);
        if (t == AFMT_BOOL)
            t = AFMT_DTYPE_INVALID;
        if (t == AFMT_DTYPE_INVALID) {
            uint64_t ds0 = ws + (buf[ws] == '-' || buf[ws] == '+');
            if (k == LK_DEC && be == ds0 + 1 && buf[ds0] == '0' &&
                (c == 'x' || c == 'X' || c == 'b' || c == 'B' || c == 'o' || c == 'O'))
                why = ": hexadecimal and binary literals are written 0x and 0b followed by "
                      "at least one digit";
            else if (c == '.' && (k == LK_HEX || k == LK_BIN))
                why = ": hexadecimal and binary floats are not allowed";
            else if (c == '.' && k == LK_DEC)
                why = ": expected a digit after '.'";
            else if ((c == 'e' || c == 'E') && (k == LK_DEC || k == LK_FLOAT))
                why = ": expected exponent digits after 'e'";
            else if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')))
                why = c == '-' || c == '+' ? ": unexpected sign in the number (a literal ends "
                                             "at whitespace, ',' or ']')"
                                           : ": unexpected character in the number";
            if (why)
                return wfail(w, AFMT_E_VALUE, "element", index, ws, "malformed number ",
                             txt_quote(buf, ws, we, q, sizeof q), why);
            return wfail(w, AFMT_E_UNKNOWN_TYPE, "element", index, be, "unknown suffix ",
                         txt_quote(buf, be, we, q2, sizeof q2),
                         " (expected i8, i16, i32, i64, u8, u16, u32, u64, f16, f32 or f64)");
        }
    }

    if (k == LK_FLOAT || (k == LK_DEC && is_float_type(t))) {
        decnum d;
        unsigned mbits, ebits;
        if (t == AFMT_DTYPE_INVALID)
            t = AFMT_F64;
        if (!is_float_type(t))
            return wfail(w, AFMT_E_VALUE, "element", index, be, "integer suffix ",
                         txt_quote(buf, be, we, q2, sizeof q2),
                         " on a float literal (write the value as an integer, or use "
                         "f16, f32 or f64)");
        ds = ws + (buf[ws] == '-' || buf[ws] == '+');
        parse_decimal(buf, ds, be, &d);
        mbits = t == AFMT_F16 ? 10 : t == AFMT_F32 ? 23 : 52;
        ebits = t == AFMT_F16 ? 5 : t == AFMT_F32 ? 8 : 11;
        if (dec_to_float(&d, neg, mbits, ebits, &out->bits) != 0)
            return wfail(w, AFMT_E_VALUE, "element", index, ws,
                         txt_quote(buf, ws, we, q, sizeof q), " overflows ",
                         t == AFMT_F16 ? "f16 (largest 65504)"
                                       : t == AFMT_F32 ? "f32 (largest 3.4028235e38)"
                                                       : "f64 (largest 1.7976931348623157e308)");
        out->dtype = t;
        return 0;
    }

    /* An integer. */
    if (is_float_type(t))
        return wfail(w, AFMT_E_VALUE, "element", index, be, "float suffix ",
                     txt_quote(buf, be, we, q2, sizeof q2),
                     " on a 0b literal (write the value in decimal)");
    if (t == AFMT_DTYPE_INVALID)
        t = AFMT_I32;
    ds = ws + (buf[ws] == '-' || buf[ws] == '+');
    if (k == LK_DEC) {
        uint64_t p;
        int more = 0;
        for (p = ds + 1; p < be; p++)
            if (buf[p] != '_')
                more = 1;
        if (buf[ds] == '0' && more)
            return wfail(w, AFMT_E_VALUE, "element", index, ws, "ambiguous integer ",
                         txt_quote(buf, ws, we, q, sizeof q),
                         ": a leading zero is octal to Futhark's C runtime and decimal to the "
                         "other readers; remove it");
    }
    if (!parse_mag(buf, ds + (k == LK_DEC ? 0 : 2), be, k == LK_HEX ? 16 : k == LK_BIN ? 2 : 10,
                   &mag))
        goto range;
    switch (t) {
    case AFMT_I8: case AFMT_I16: case AFMT_I32: case AFMT_I64: {
        unsigned nb = afmt_dtype_get(t)->size * 8;
        uint64_t lim = (uint64_t)1 << (nb - 1);
        if (neg ? mag > lim : mag >= lim)
            goto range;
        out->bits = neg ? (~mag + 1) : mag;
        if (nb < 64)
            out->bits &= ((uint64_t)1 << nb) - 1;
        break;
    }
    default: {
        unsigned nb = afmt_dtype_get(t)->size * 8;
        if (neg && mag != 0)
            goto range;
        if (nb < 64 && mag >> nb)
            goto range;
        out->bits = mag;
        break;
    }
    }
    out->dtype = t;
    return 0;
range:
    txt_quote(buf, ws, we, q, sizeof q);
    return afmt_fail(w->err, AFMT_E_VALUE, NULL, "element", index, w->base + ws,
                     "%s does not fit in %s (%s)", q, afmt_dtype_name(t), int_range(t));
}

/* ============================================================ structure */

#define DIM_UNKNOWN UINT64_MAX

static void store_le(uint8_t *p, uint64_t bits, unsigned size)
{
    unsigned k;
    for (k = 0; k < size; k++)
        p[k] = (uint8_t)(bits >> (8 * k));
}

static int expect_fail(const walker *w, enum tok k, uint64_t at, const char *expected)
{
    char f[TXT_MAX];
    if (k == TK_STRING)
        return wfail(w, AFMT_E_UNSUPPORTED, "value", AFMT_NO_INDEX, at, expected,
                     ", found '\"': string literals (futhark-data's u8 arrays) are not supported",
                     NULL);
    return wfail(w, k == TK_END ? AFMT_E_TRUNCATED : AFMT_E_VALUE, "value", AFMT_NO_INDEX, at,
                 expected, ", found ", found_at(w, at, f, sizeof f));
}

/* The element `index` at word buf[ws..we): parse, check its type against
 * the first element's, store it when decoding. */
static int element(const walker *w, afmt_array *out, uint64_t ws, uint64_t we, uint64_t index)
{
    scalar s;
    if (literal(w, ws, we, index, &s) != 0)
        return -1;
    if (index == 0) {
        out->dtype = s.dtype;
    } else if (s.dtype != out->dtype) {
        char q[TXT_MAX];
        return afmt_fail(w->err, AFMT_E_CONSTRAINT, NULL, "element", index, w->base + ws,
                         "element type %s of %s differs from %s of the first element (an "
                         "array has one element type; an unsuffixed integer is i32, an "
                         "unsuffixed float f64)",
                         afmt_dtype_name(s.dtype), txt_quote(w->buf, ws, we, q, sizeof q),
                         afmt_dtype_name(out->dtype));
    }
    if (w->dst) {
        unsigned size = afmt_dtype_get(s.dtype)->size;
        if (s.dtype != w->want || index >= w->dst_count)
            return wfail(w, AFMT_E_USAGE, "element", index, ws,
                         "the text does not match the view's type and count", NULL, NULL);
        store_le(w->dst + index * size, s.bits, size);
    }
    return 0;
}

/* empty([d0][d1]...type), starting at the word 'empty' at t0; i is after
 * the word.  No whitespace inside, as futhark-data requires. */
static int walk_empty(const walker *w, uint64_t t0, uint64_t i, afmt_array *out, uint64_t *vend)
{
    const uint8_t *buf = w->buf;
    uint64_t n = w->n, r = 0, ts;
    int zero = 0;
    char f[TXT_MAX];

    if (i >= n || buf[i] != '(')
        return expect_fail(w, i >= n ? TK_END : TK_BAD, i,
                           "expected '(' right after 'empty' (no whitespace inside empty(...))");
    i++;
    while (i < n && buf[i] == '[') {
        uint64_t open = i, ds, v = 0;
        i++;
        ds = i;
        while (i < n && buf[i] >= '0' && buf[i] <= '9') {
            uint64_t d = (uint64_t)(buf[i] - '0');
            v = v > (UINT64_MAX - d) / 10 ? UINT64_MAX : v * 10 + d;
            i++;
        }
        if (i == ds)
            return expect_fail(w, i >= n ? TK_END : TK_BAD, i,
                               "expected a dimension (decimal digits) after '[' in empty(...)");
        if (buf[ds] == '0' && i - ds > 1)
            return wfail(w, AFMT_E_VALUE, "value", AFMT_NO_INDEX, ds, "dimension ",
                         txt_quote(buf, ds, i, f, sizeof f), " has a leading zero");
        if (v > (uint64_t)INT64_MAX)
            return wfail(w, AFMT_E_OVERFLOW, "value", AFMT_NO_INDEX, ds, "dimension ",
                         txt_quote(buf, ds, i, f, sizeof f),
                         " is above 2^63-1 (Futhark reads dimensions as signed 64-bit)");
        if (i >= n || buf[i] != ']')
            return expect_fail(w, i >= n ? TK_END : TK_BAD, i,
                               "expected ']' after the dimension in empty(...)");
        i++;
        if (r >= w->limit)
            return afmt_fail(w->err, AFMT_E_LIMIT, NULL, "value", AFMT_NO_INDEX, w->base + open,
                             "empty(...) has more than %s dimensions (the rank limit)",
                             txt_u64(w->limit, f, sizeof f));
        out->dims[r++] = v;
        if (v == 0)
            zero = 1;
    }
    if (r == 0)
        return expect_fail(w, i >= n ? TK_END : TK_BAD, i,
                           "expected '[' (a dimension) after 'empty('");
    ts = i;
    while (i < n && ((buf[i] >= 'a' && buf[i] <= 'z') || (buf[i] >= '0' && buf[i] <= '9')))
        i++;
    out->dtype = futhark_type(buf + ts, i - ts);
    if (out->dtype == AFMT_DTYPE_INVALID) {
        if (i == ts)
            return expect_fail(w, i >= n ? TK_END : TK_BAD, i,
                               "expected an element type or '[' in empty(...)");
        return wfail(w, AFMT_E_UNKNOWN_TYPE, "value", AFMT_NO_INDEX, ts, "unknown element type ",
                     txt_quote(buf, ts, i, f, sizeof f),
                     " in empty(...) (expected i8, i16, i32, i64, u8, u16, u32, u64, f16, f32, "
                     "f64 or bool)");
    }
    if (i >= n || buf[i] != ')')
        return expect_fail(w, i >= n ? TK_END : TK_BAD, i,
                           "expected ')' after the element type in empty(...)");
    i++;
    if (!zero)
        return wfail(w, AFMT_E_CONSTRAINT, "value", AFMT_NO_INDEX, t0, "empty(...) needs a zero "
                     "dimension, found ", txt_quote(buf, t0, i, f, sizeof f),
                     " (an array with elements is written [a, b, ...])");
    if (w->dst && out->dtype != w->want)
        return wfail(w, AFMT_E_USAGE, "value", AFMT_NO_INDEX, t0,
                     "the text does not match the view's type", NULL, NULL);
    out->rank = (uint32_t)r;
    out->count = 0;
    *vend = i;
    return 0;
}

/* One value at buf[pos] (after optional whitespace and comments): its
 * first byte goes to *vstart, the offset past it to *vend; out gets dtype,
 * rank, dims and count. */
static int walk(const walker *w, uint64_t pos, uint64_t *vstart, uint64_t *vend, afmt_array *out)
{
    uint64_t cnt[AFMT_RANK_CAP], open_at[AFMT_RANK_CAP];
    uint64_t i = pos, t0, leaves = 0;
    unsigned depth = 0, rank = 0, seen = 0;
    int rank_known = 0;
    enum { ST_FIRST, ST_ELEM, ST_AFTER } st;
    enum tok k;
    char f[TXT_MAX], g[TXT_MAX];

    k = next_sig(w, &i, &t0);
    *vstart = t0;
    if (k == TK_WORD) {
        uint64_t be = t0;
        if (lex_word(w->buf, i, &be) == LK_EMPTY && be == i)
            return walk_empty(w, t0, i, out, vend);
        if (element(w, out, t0, i, 0) != 0)
            return -1;
        out->rank = 0;
        out->count = 1;
        *vend = i;
        return 0;
    }
    if (k != TK_LBRACK)
        return expect_fail(w, k, t0,
                           "expected a value (a literal, '[' or empty(...))");
    if (w->limit == 0)
        return wfail(w, AFMT_E_LIMIT, "value", AFMT_NO_INDEX, t0,
                     "expected a scalar (the rank limit is 0), found '['", NULL, NULL);
    cnt[0] = 0;
    open_at[0] = t0;
    out->dims[0] = DIM_UNKNOWN;
    depth = seen = 1;
    st = ST_FIRST;
    for (;;) {
        k = next_sig(w, &i, &t0);
        if (st != ST_AFTER) {
            if (k == TK_LBRACK || k == TK_WORD) {
                unsigned lv = depth - 1;
                if (k == TK_LBRACK && rank_known && depth >= rank)
                    return afmt_fail(w->err, AFMT_E_CONSTRAINT, NULL, "value", AFMT_NO_INDEX,
                                     w->base + t0,
                                     "expected a literal (the array has rank %s, as its first "
                                     "element says), found '['",
                                     txt_u64(rank, f, sizeof f));
                if (k == TK_WORD && rank_known && depth != rank)
                    return afmt_fail(w->err, AFMT_E_CONSTRAINT, NULL, "value", AFMT_NO_INDEX,
                                     w->base + t0,
                                     "expected '[' (the array has rank %s, as its first "
                                     "element says), found %s",
                                     txt_u64(rank, f, sizeof f),
                                     txt_quote(w->buf, t0, i, g, sizeof g));
                if (k == TK_LBRACK && depth >= w->limit)
                    return afmt_fail(w->err, AFMT_E_LIMIT, NULL, "value", AFMT_NO_INDEX,
                                     w->base + t0,
                                     "arrays nested deeper than the rank limit %s",
                                     txt_u64(w->limit, f, sizeof f));
                cnt[lv]++;
                if (out->dims[lv] != DIM_UNKNOWN && cnt[lv] > out->dims[lv])
                    return afmt_fail(w->err, AFMT_E_CONSTRAINT, NULL, "value", AFMT_NO_INDEX,
                                     w->base + t0,
                                     "irregular array: expected %s elements at depth %u (as in "
                                     "the first array at that depth), found more",
                                     txt_u64(out->dims[lv], f, sizeof f), lv + 1);
                if (k == TK_WORD) {
                    if (!rank_known) {
                        rank = depth;
                        rank_known = 1;
                    }
                    if (element(w, out, t0, i, leaves) != 0)
                        return -1;
                    leaves++;
                    st = ST_AFTER;
                } else {
                    cnt[depth] = 0;
                    open_at[depth] = t0;
                    if (depth == seen) {
                        out->dims[depth] = DIM_UNKNOWN;
                        seen++;
                    }
                    depth++;
                    st = ST_FIRST;
                }
                continue;
            }
            if (k == TK_RBRACK && st == ST_FIRST)
                return wfail(w, AFMT_E_VALUE, "value", AFMT_NO_INDEX, t0,
                             "expected a value after '[', found ']': an empty array is written "
                             "with its shape and type, e.g. empty([0]i32)", NULL, NULL);
            if (k == TK_RBRACK)
                return wfail(w, AFMT_E_VALUE, "value", AFMT_NO_INDEX, t0,
                             "expected a value after ',', found ']' (no trailing comma)", NULL,
                             NULL);
            if (k == TK_END)
                return afmt_fail(w->err, AFMT_E_TRUNCATED, NULL, "value", AFMT_NO_INDEX,
                                 w->base + t0,
                                 "expected a value, found end of input ('[' at offset %s is "
                                 "not closed)",
                                 txt_u64(w->base + open_at[depth - 1], f, sizeof f));
            return expect_fail(w, k, t0, "expected a value (a literal or '[')");
        }
        /* ST_AFTER: an element has just ended */
        if (k == TK_COMMA) {
            st = ST_ELEM;
            continue;
        }
        if (k == TK_RBRACK) {
            unsigned lv = depth - 1;
            if (out->dims[lv] == DIM_UNKNOWN)
                out->dims[lv] = cnt[lv];
            else if (cnt[lv] != out->dims[lv])
                return afmt_fail(w->err, AFMT_E_CONSTRAINT, NULL, "value", AFMT_NO_INDEX,
                                 w->base + t0,
                                 "irregular array: expected %s elements at depth %u (as in "
                                 "the first array at that depth), found %s",
                                 txt_u64(out->dims[lv], g, sizeof g), lv + 1,
                                 txt_u64(cnt[lv], f, sizeof f));
            depth--;
            if (depth == 0)
                break;
            continue;
        }
        if (k == TK_END)
            return afmt_fail(w->err, AFMT_E_TRUNCATED, NULL, "value", AFMT_NO_INDEX,
                             w->base + t0,
                             "expected ',' or ']', found end of input ('[' at offset %s is "
                             "not closed)",
                             txt_u64(w->base + open_at[depth - 1], f, sizeof f));
        return expect_fail(w, k, t0, "expected ',' or ']'");
    }
    /* Every level below the rank was closed at least once: dims are set,
     * and every element was counted against them, so count == leaves. */
    out->rank = rank;
    out->count = leaves;
    *vend = i;
    return 0;
}

/* ================================================================== API */

int afmt_futhark_text_scan(const uint8_t *buf, uint64_t len, uint64_t pos, uint64_t max_rank,
                           uint64_t *end, afmt_array *out, afmt_error *err)
{
    walker w;
    uint64_t vstart = pos, vend = pos;

    memset(out, 0, sizeof *out);
    if (!buf || pos > len)
        return afmt_fail(err, AFMT_E_USAGE, NULL, "value", AFMT_NO_INDEX, pos,
                         "no input, or the start is past the end");
    w.buf = buf;
    w.n = len;
    w.base = 0;
    w.limit = max_rank < AFMT_RANK_CAP ? max_rank : AFMT_RANK_CAP;
    w.err = err;
    w.dst = NULL;
    w.dst_count = 0;
    w.want = AFMT_DTYPE_INVALID;
    if (walk(&w, pos, &vstart, &vend, out) != 0)
        return -1;
    out->elsize = afmt_dtype_get(out->dtype)->size;
    out->order = AFMT_ROW_MAJOR;
    out->encoding = AFMT_FUTHARK_TEXT_ENCODING;
    out->endian = AFMT_LITTLE;
    out->data = buf + vstart;
    out->nbytes = vend - vstart;
    out->offset = vstart;
    *end = vend;
    return 0;
}

int afmt_futhark_text_decode(const afmt_array *view, uint8_t *dst, uint64_t dst_size,
                             afmt_error *err)
{
    walker w;
    afmt_array got;
    uint64_t vstart, vend, size = afmt_dtype_get(view->dtype)->size, need;
    unsigned k;
    char f[TXT_MAX], g[TXT_MAX];

    if (view->encoding != AFMT_FUTHARK_TEXT_ENCODING || !view->data || size == 0 ||
        view->rank > AFMT_RANK_CAP)
        return afmt_fail(err, AFMT_E_USAGE, NULL, "value", AFMT_NO_INDEX, view->offset,
                         "not a futhark text view");
    if (view->count > UINT64_MAX / size)
        return afmt_fail(err, AFMT_E_OVERFLOW, NULL, "value", AFMT_NO_INDEX, view->offset,
                         "%s elements overflow 64 bits of bytes",
                         txt_u64(view->count, f, sizeof f));
    need = view->count * size;
    if (dst_size < need || (need && !dst))
        return afmt_fail(err, AFMT_E_USAGE, NULL, "value", AFMT_NO_INDEX, view->offset,
                         "destination holds %s bytes, the value needs %s",
                         txt_u64(dst ? dst_size : 0, f, sizeof f), txt_u64(need, g, sizeof g));
    w.buf = view->data;
    w.n = view->nbytes;
    w.base = view->offset;
    w.limit = AFMT_RANK_CAP;
    w.err = err;
    w.dst = dst;
    w.dst_count = view->count;
    w.want = view->dtype;
    memset(&got, 0, sizeof got);
    if (walk(&w, 0, &vstart, &vend, &got) != 0)
        return -1;
    if (got.dtype != view->dtype || got.rank != view->rank || got.count != view->count ||
        vend != view->nbytes)
        return afmt_fail(err, AFMT_E_USAGE, NULL, "value", AFMT_NO_INDEX, view->offset,
                         "the view does not describe its text (type, rank, count or length "
                         "differ)");
    for (k = 0; k < got.rank; k++)
        if (got.dims[k] != view->dims[k])
            return afmt_fail(err, AFMT_E_USAGE, NULL, "value", AFMT_NO_INDEX, view->offset,
                             "the view does not describe its text (dims[%u] differs)", k);
    return 0;
}
