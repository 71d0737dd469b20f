/* afmt runtime: text headers of fixed-width records and their data units
 * (afmt_cards.h; spec/LANGUAGE.md, "Card headers"). */
#include "afmt_cards.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../array/afmt_array.h"
#include "../array/afmt_transpose.h"
#include "../common/afmt_options.h"
#include "../io/afmt_sink.h"
#include "../io/afmt_src.h"
#include "../core/afmt_step.h"

/* The kinds of value a record holds. */
enum { K_UNDEF, K_STRING, K_LOGICAL, K_INT, K_REAL, K_COMPLEX };

static const char *const KIND_NAMES[] = {"no value", "a string", "a logical", "an integer", "a real",
                                         "a complex"};

typedef struct cval {
    int kind;
    uint32_t b, e;   /* the value's bytes in the record */
    uint32_t sb, se; /* a string's content, between its quotes (quotes doubled) */
    int logical;
    int64_t i;       /* an integer's value ... */
    int iover;       /* ... unless it does not fit 64 bits */
} cval;

/* The state of one unit being read. */
typedef struct unit_run {
    const afmt_cards_desc *d;
    const afmt_cards_unit *u;
    char uname[32];       /* "primary", "hdu1": names fields in messages */
    uint64_t at;          /* the record being read */
    const uint8_t *r;     /* its bytes */
    uint64_t ncard;
    int have_type, have_rank;
    int64_t type, rank, extra, groups;
    afmt_dtype dtype;
    uint64_t elsize;
    uint64_t axes_read, product;
    int zero_axis, over;
    afmt_array *a;        /* dims are written here */
    char name[AFMT_NAME_MAX];
    int zero_set, scale_set;
    uint64_t zero_at;
    char zero[72], scale[72];
    char sel[72];         /* the first key's string value */
} unit_run;

static int is_digit(int ch) { return ch >= '0' && ch <= '9'; }

/* A number at r[i..n): [+-] digits [. [digits]] or [+-] . digits, then
 * [E|D [+-] digits]; 1 with *j after it and *real, or 0. */
static int scan_number(const uint8_t *r, uint32_t i, uint32_t n, uint32_t *j, int *real)
{
    uint32_t k = i, digits = 0;
    *real = 0;
    if (k < n && (r[k] == '+' || r[k] == '-')) k++;
    while (k < n && is_digit(r[k])) k++, digits++;
    if (k < n && r[k] == '.') {
        *real = 1;
        k++;
        while (k < n && is_digit(r[k])) k++, digits++;
    }
    if (!digits) return 0;
    if (k < n && (r[k] == 'E' || r[k] == 'D')) {
        uint32_t e = 0;
        *real = 1;
        k++;
        if (k < n && (r[k] == '+' || r[k] == '-')) k++;
        while (k < n && is_digit(r[k])) k++, e++;
        if (!e) return 0;
    }
    *j = k;
    return 1;
}

static void int_value(const uint8_t *r, uint32_t b, uint32_t e, cval *v)
{
    int neg = r[b] == '-';
    uint64_t m = 0, lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    uint32_t k = (r[b] == '+' || r[b] == '-') ? b + 1 : b;
    v->iover = 0;
    for (; k < e; k++) {
        unsigned dg = (unsigned)(r[k] - '0');
        if (m > (lim - dg) / 10) { v->iover = 1; return; }
        m = m * 10 + dg;
    }
    v->i = neg ? (m == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)m) : (int64_t)m;
}

static uint32_t skip_sp(const uint8_t *r, uint32_t i, uint32_t n)
{
    while (i < n && r[i] == ' ') i++;
    return i;
}

/* Parse r[from..n): [spaces] [value [spaces]] [/ comment].  0 and *v, or
 * -1 with *bad the index of the byte that does not fit. */
static int parse_value(const uint8_t *r, uint32_t from, uint32_t n, cval *v, uint32_t *bad)
{
    uint32_t i = skip_sp(r, from, n), j;
    int real;
    memset(v, 0, sizeof *v);
    v->b = v->e = i;
    if (i == n || r[i] == '/') { v->kind = K_UNDEF; return 0; }
    if (r[i] == '\'') {
        j = i + 1;
        for (;;) {
            if (j >= n) { *bad = n - 1; return -1; } /* no closing quote */
            if (r[j] == '\'') {
                if (j + 1 < n && r[j + 1] == '\'') { j += 2; continue; }
                break;
            }
            j++;
        }
        v->kind = K_STRING;
        v->sb = i + 1;
        v->se = j;
        j++;
    } else if ((r[i] == 'T' || r[i] == 'F') && (i + 1 == n || r[i + 1] == ' ' || r[i + 1] == '/')) {
        v->kind = K_LOGICAL;
        v->logical = r[i] == 'T';
        j = i + 1;
    } else if (r[i] == '(') {
        uint32_t k = skip_sp(r, i + 1, n);
        if (!scan_number(r, k, n, &j, &real)) { *bad = k < n ? k : n - 1; return -1; }
        k = skip_sp(r, j, n);
        if (k >= n || r[k] != ',') { *bad = k < n ? k : n - 1; return -1; }
        k = skip_sp(r, k + 1, n);
        if (!scan_number(r, k, n, &j, &real)) { *bad = k < n ? k : n - 1; return -1; }
        k = skip_sp(r, j, n);
        if (k >= n || r[k] != ')') { *bad = k < n ? k : n - 1; return -1; }
        v->kind = K_COMPLEX;
        j = k + 1;
    } else if (scan_number(r, i, n, &j, &real)) {
        v->kind = real ? K_REAL : K_INT;
        if (!real) int_value(r, i, j, v);
    } else {
        *bad = i;
        return -1;
    }
    v->e = j;
    j = skip_sp(r, j, n);
    if (j < n && r[j] != '/') { *bad = j; return -1; }
    return 0;
}

/* The string's content without its trailing spaces, quotes undoubled,
 * into out (cap bytes, cut there); its length. */
static size_t string_text(const uint8_t *r, const cval *v, char *out, size_t cap)
{
    size_t n = 0;
    uint32_t k, e = v->se;
    while (e > v->sb && r[e - 1] == ' ') e--;
    for (k = v->sb; k < e && n + 1 < cap; k++) {
        out[n++] = (char)r[k];
        if (r[k] == '\'') k++;
    }
    out[n] = 0;
    return n;
}

/* Whether the key field of r is key, space-filled. */
static int key_is(const afmt_cards_desc *d, const uint8_t *r, const char *key)
{
    size_t n = strlen(key), k;
    if (n > d->key_width || memcmp(r, key, n) != 0) return 0;
    for (k = n; k < d->key_width; k++)
        if (r[k] != ' ') return 0;
    return 1;
}

/* Whether the key field is stem followed by a positive decimal number. */
static int key_is_run(const afmt_cards_desc *d, const uint8_t *r, const char *stem, uint64_t *n)
{
    size_t s = strlen(stem), k;
    uint64_t v = 0;
    if (s >= d->key_width || memcmp(r, stem, s) != 0 || !(r[s] >= '1' && r[s] <= '9')) return 0;
    for (k = s; k < d->key_width && is_digit(r[k]); k++) v = v * 10 + (uint64_t)(r[k] - '0');
    for (; k < d->key_width; k++)
        if (r[k] != ' ') return 0;
    *n = v;
    return 1;
}

/* The key field as text, for messages. */
static void key_text(const afmt_cards_desc *d, const uint8_t *r, char *out)
{
    uint32_t n = d->key_width < 16 ? d->key_width : 16;
    memcpy(out, r, n);
    while (n > 0 && out[n - 1] == ' ') n--;
    out[n] = 0;
}

static int has_indicator(const afmt_cards_desc *d, const uint8_t *r)
{
    size_t n = strlen(d->indicator);
    return memcmp(r + d->key_width, d->indicator, n) == 0;
}

static uint32_t value_from(const afmt_cards_desc *d) { return d->key_width + (uint32_t)strlen(d->indicator); }

static int is_commentary(const afmt_cards_desc *d, const uint8_t *r)
{
    size_t k;
    for (k = 0; k < d->ncommentary; k++)
        if (key_is(d, r, d->commentary[k])) return 1;
    return 0;
}

/* 1 when every byte of record r is in [byte_min, byte_max]. */
static int record_bytes_ok(const afmt_cards_desc *d, const uint8_t *r)
{
    const uint8_t lo = (uint8_t)d->byte_min, span = (uint8_t)(d->byte_max - d->byte_min);
    uint8_t bad = 0;
    uint32_t k;
    for (k = 0; k < d->record; k++)
        bad |= (uint8_t)((uint8_t)(r[k] - lo) > span);
    return !bad;
}

/* Read the record at ur->at: there, and every byte allowed. */
static int take_record(afmt_validation *c, unit_run *ur, uint64_t end)
{
    const afmt_cards_desc *d = ur->d;
    uint32_t k;
    char field[128];
    if (!afmt_src_have(c->src, end, ur->at, d->record)) {
        snprintf(field, sizeof field, "%s.header", ur->uname);
        return afmt_src_short(c->src, c->err, c->path, field, AFMT_NO_INDEX, ur->at, end, d->record,
                              "a header record (the header has no end record)");
    }
    ur->r = AFMT_B(c->src, ur->at);
    afmt_src_keep_from(c->src, ur->at);
    if (record_bytes_ok(d, ur->r))
        return 0; /* the usual case, found without a branch per byte */
    for (k = 0; k < d->record; k++)
        if (ur->r[k] < d->byte_min || ur->r[k] > d->byte_max) {
            snprintf(field, sizeof field, "%s.card", ur->uname);
            return afmt_fail_c(c, AFMT_E_VALUE, field, ur->ncard, ur->at + k,
                               "byte %u of record %" PRIu64 " is 0x%02x: header records hold bytes %d to %d only",
                               k + 1, ur->ncard + 1, ur->r[k], d->byte_min, d->byte_max);
        }
    return 0;
}

static void report(afmt_validation *c, unit_run *ur, const char *key, const cval *v)
{
    char field[128];
    if (!c->opt || !c->opt->fields || v->e <= v->b) return;
    snprintf(field, sizeof field, "%s.%s", ur->uname, key);
    afmt_report_field(c->opt, c->path, field, AFMT_FIELD_TEXT, ur->at + v->b, 0, 1, v->e - v->b, 0, ur->r + v->b,
                      NULL, NULL);
}

/* Whether v is of kind t. */
static int kind_fits(afmt_cards_vt t, const cval *v)
{
    switch (t) {
    case AFMT_CV_ANY: return 1;
    case AFMT_CV_INT: return v->kind == K_INT;
    case AFMT_CV_REAL: return v->kind == K_INT || v->kind == K_REAL;
    case AFMT_CV_STRING: return v->kind == K_STRING;
    case AFMT_CV_LOGICAL: return v->kind == K_LOGICAL;
    case AFMT_CV_COMPLEX: return v->kind == K_COMPLEX;
    }
    return 0;
}

static const char *vt_name(afmt_cards_vt t)
{
    static const char *const N[] = {"any value", "an integer", "a number", "a string", "a logical (T or F)",
                                    "a complex (re, im)"};
    return (unsigned)t < 6 ? N[t] : "?";
}

/* The key's name, NAXIS3 for the third of a run: written by hand, as
 * every record of a header names its key. */
static void key_name(const afmt_cards_key *k, uint64_t n, char *out, size_t cap)
{
    char digits[20];
    size_t len = strlen(k->key), nd = 0;

    if (k->run)
        do {
            digits[nd++] = (char)('0' + n % 10);
            n /= 10;
        } while (n && nd < sizeof digits);
    if (cap == 0)
        return;
    if (nd + 1 > cap)
        nd = cap - 1; /* never: a key and 20 digits fit every caller's buffer */
    if (len + nd + 1 > cap)
        len = cap - nd - 1;
    memcpy(out, k->key, len);
    for (; nd > 0; nd--)
        out[len++] = digits[nd - 1];
    out[len] = '\0';
}

/* "UNIT.KEY" in buf, made only when a failure or warning needs it: a
 * header's every record would otherwise pay for a name it never shows. */
static const char *unit_field(const unit_run *ur, const char *key, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s.%s", ur->uname, key);
    return buf;
}

/* The value of the record at ur->at for rule k (its name kn): syntax,
 * type, the rule's values, fixed format.  tol: failures of the rule are
 * tolerated in lenient mode (keys read but not needed). */
static int read_value(afmt_validation *c, unit_run *ur, const afmt_cards_key *k, const char *kn, int tol, cval *v)
{
    const afmt_cards_desc *d = ur->d;
    const uint8_t *r = ur->r;
    char field[128], s[72];
    uint32_t bad;
    const char *why = k->message ? k->message : "";
    const char *sep = k->message ? ": " : "";
#define RULE_FAIL(code, off, ...)                                                                   \
    do {                                                                                            \
        if (tol ? afmt_tolerate_c(c, code, unit_field(ur, kn, field, sizeof field), AFMT_NO_INDEX, off, __VA_ARGS__)                  \
                : afmt_fail_c(c, code, unit_field(ur, kn, field, sizeof field), AFMT_NO_INDEX, off, __VA_ARGS__))                     \
            return -1;                                                                              \
        return 1;                                                                                   \
    } while (0)
    if (!has_indicator(d, r))
        RULE_FAIL(AFMT_E_CONSTRAINT, ur->at + d->key_width, "%s takes a value: bytes %u-%u are '%s'", kn,
                  d->key_width + 1, d->key_width + (unsigned)strlen(d->indicator), d->indicator);
    if (parse_value(r, value_from(d), d->record, v, &bad) != 0)
        RULE_FAIL(AFMT_E_VALUE, ur->at + bad, "%s: byte %u of its record ('%c') is not part of a value", kn,
                  bad + 1, r[bad]);
    report(c, ur, kn, v);
    if (!kind_fits(k->type, v))
        RULE_FAIL(AFMT_E_CONSTRAINT, ur->at + v->b, "%s is %s, not %s%s%s", kn, vt_name(k->type),
                  KIND_NAMES[v->kind], sep, why);
    if (v->kind == K_INT && v->iover && k->type == AFMT_CV_INT)
        RULE_FAIL(AFMT_E_OVERFLOW, ur->at + v->b, "%s: %.*s does not fit 64 bits", kn, (int)(v->e - v->b),
                  (const char *)r + v->b);
    if (v->kind == K_INT && ((k->has_min && v->i < k->min) || (k->has_max && v->i > k->max))) {
        if (k->has_min && k->has_max)
            RULE_FAIL(AFMT_E_CONSTRAINT, ur->at + v->b, "%s is %" PRId64 ", not from %" PRId64 " to %" PRId64 "%s%s",
                      kn, v->i, k->min, k->max, sep, why);
        RULE_FAIL(AFMT_E_CONSTRAINT, ur->at + v->b, "%s is %" PRId64 ", not %s %" PRId64 "%s%s", kn, v->i,
                  k->has_min ? "at least" : "at most", k->has_min ? k->min : k->max, sep, why);
    }
    if (v->kind == K_LOGICAL && k->logical >= 0 && v->logical != k->logical)
        RULE_FAIL(k->role == AFMT_CR_NONE && k->logical == 1 ? AFMT_E_MAGIC : AFMT_E_CONSTRAINT, ur->at + v->b,
                  "%s = %c, not %c%s%s", kn, v->logical ? 'T' : 'F', k->logical ? 'T' : 'F', sep, why);
    if (v->kind == K_LOGICAL && k->refuse_logical >= 0 && v->logical == k->refuse_logical) {
        if (afmt_fail_c(c, AFMT_E_UNSUPPORTED, unit_field(ur, kn, field, sizeof field), AFMT_NO_INDEX, ur->at + v->b, "%s = %c%s%s", kn,
                        v->logical ? 'T' : 'F', sep, why))
            return -1;
    }
    if (v->kind == K_STRING && k->string) {
        string_text(r, v, s, sizeof s);
        if (strcmp(s, k->string) != 0)
            RULE_FAIL(AFMT_E_CONSTRAINT, ur->at + v->b, "%s is '%s', not '%s'%s%s", kn, s, k->string, sep, why);
    }
    if (k->fixed && d->fixed_end) {
        const uint32_t last = d->fixed_end - 1, vf = value_from(d);
        int ok = 1;
        if (v->kind == K_STRING)
            ok = v->b == vf && v->se - v->sb >= d->fixed_string;
        else if (v->kind == K_LOGICAL || v->kind == K_INT)
            ok = v->e == last + 1;
        if (!ok) {
            if (afmt_tolerate_c(c, AFMT_E_CONSTRAINT, unit_field(ur, kn, field, sizeof field), AFMT_NO_INDEX, ur->at + v->b,
                                v->kind == K_STRING
                                    ? "%s is not in fixed format: a string from byte %u of at least %u characters"
                                    : "%s is not in fixed format: its value ends in byte %u",
                                kn, v->kind == K_STRING ? vf + 1 : d->fixed_end, d->fixed_string))
                return -1;
        }
    }
    return 0;
#undef RULE_FAIL
}

/* What a required or optional key's value means to the unit. */
static int apply_role(afmt_validation *c, unit_run *ur, const afmt_cards_key *k, const char *kn, const cval *v)
{
    const afmt_cards_desc *d = ur->d;
    char field[128];
    size_t t;
    switch (k->role) {
    case AFMT_CR_TYPE:
        for (t = 0; t < d->ntypes; t++)
            if (d->types[t].value == v->i) break;
        if (t == d->ntypes)
            return afmt_fail_c(c, AFMT_E_UNKNOWN_TYPE, unit_field(ur, kn, field, sizeof field), AFMT_NO_INDEX, ur->at + v->b,
                               "%s %" PRId64 " names no element type%s%s", kn, v->i, k->message ? ": " : "",
                               k->message ? k->message : "");
        ur->have_type = 1;
        ur->type = v->i;
        ur->dtype = d->types[t].dtype;
        ur->elsize = afmt_dtype_get(ur->dtype)->size;
        break;
    case AFMT_CR_RANK:
        if (v->i < 0) return afmt_fail_c(c, AFMT_E_NEGATIVE, unit_field(ur, kn, field, sizeof field), AFMT_NO_INDEX, ur->at + v->b, "%s is negative", kn);
        ur->have_rank = 1;
        ur->rank = v->i;
        break;
    case AFMT_CR_AXES:
        if (v->i < 0) return afmt_fail_c(c, AFMT_E_NEGATIVE, unit_field(ur, kn, field, sizeof field), AFMT_NO_INDEX, ur->at + v->b, "%s is negative", kn);
        if (ur->axes_read < AFMT_RANK_CAP) ur->a->dims[ur->axes_read] = (uint64_t)v->i;
        if (v->i == 0) ur->zero_axis = 1;
        else if (!ur->over && ur->product > UINT64_MAX / (uint64_t)v->i) ur->over = 1;
        else if (!ur->over) ur->product *= (uint64_t)v->i;
        ur->axes_read++;
        break;
    case AFMT_CR_EXTRA:
        if (v->i < 0) return afmt_fail_c(c, AFMT_E_NEGATIVE, unit_field(ur, kn, field, sizeof field), AFMT_NO_INDEX, ur->at + v->b, "%s is negative", kn);
        ur->extra = v->i;
        break;
    case AFMT_CR_GROUPS:
        if (v->i < 0) return afmt_fail_c(c, AFMT_E_NEGATIVE, unit_field(ur, kn, field, sizeof field), AFMT_NO_INDEX, ur->at + v->b, "%s is negative", kn);
        ur->groups = v->i;
        break;
    case AFMT_CR_NAME:
        if (v->kind == K_STRING) string_text(ur->r, v, ur->name, sizeof ur->name);
        break;
    case AFMT_CR_SCALE:
    case AFMT_CR_ZERO: {
        char *out = k->role == AFMT_CR_SCALE ? ur->scale : ur->zero;
        uint32_t n = v->e - v->b;
        if (n >= sizeof ur->zero) n = sizeof ur->zero - 1;
        memcpy(out, ur->r + v->b, n);
        out[n] = 0;
        if (k->role == AFMT_CR_SCALE) ur->scale_set = 1;
        else ur->zero_set = 1, ur->zero_at = ur->at + v->b;
        break;
    }
    case AFMT_CR_NONE:
        break;
    }
    return 0;
}

/* A decimal number's canonical form: sign, significant digits, the
 * exponent of the last one ("32768" and "3.2768E4" alike). */
typedef struct dec {
    int neg;
    char dg[72];
    long exp;
} dec;

static void dec_of(const char *s, dec *o)
{
    size_t n = 0, k;
    long frac = 0, e = 0;
    int in_frac = 0, eneg = 0;
    o->neg = *s == '-';
    if (*s == '+' || *s == '-') s++;
    for (; *s && *s != 'E' && *s != 'D' && *s != 'e' && *s != 'd'; s++) {
        if (*s == '.') { in_frac = 1; continue; }
        if (!is_digit(*s)) break;
        if (n == 0 && *s == '0') { if (in_frac) frac++; continue; }
        if (n + 1 < sizeof o->dg) o->dg[n++] = *s;
        else if (!in_frac) frac--; /* (digits past 70: an integer's scale) */
        if (in_frac) frac++;
    }
    if (*s == 'E' || *s == 'D' || *s == 'e' || *s == 'd') {
        s++;
        eneg = *s == '-';
        if (*s == '+' || *s == '-') s++;
        for (; is_digit(*s) && e < 100000; s++) e = e * 10 + (*s - '0');
    }
    o->dg[n] = 0;
    o->exp = (eneg ? -e : e) - frac;
    for (k = n; k > 0 && o->dg[k - 1] == '0'; k--) o->exp++;
    o->dg[k] = 0;
    if (k == 0) o->neg = 0, o->exp = 0;
}

static int dec_equal(const char *a, const char *b)
{
    dec x, y;
    dec_of(a, &x);
    dec_of(b, &y);
    return x.neg == y.neg && x.exp == y.exp && strcmp(x.dg, y.dg) == 0;
}

/* The logical type a scale/zero convention gives the unit's data, reported as a field. */
static void report_logical(afmt_validation *c, unit_run *ur)
{
    const afmt_cards_desc *d = ur->d;
    size_t i;
    char field[128];
    if (!c->opt || !c->opt->fields || !ur->zero_set || !ur->have_type) return;
    for (i = 0; i < d->nconvs; i++) {
        const afmt_cards_conv *cv = &d->convs[i];
        if (cv->type != ur->type || !dec_equal(ur->zero, cv->zero)) continue;
        if (ur->scale_set ? !dec_equal(ur->scale, cv->scale ? cv->scale : "1") : 0) continue;
        {
            const char *name = afmt_dtype_name(cv->logical);
            snprintf(field, sizeof field, "%s.logical_type", ur->uname);
            afmt_report_field(c->opt, c->path, field, AFMT_FIELD_TEXT, ur->zero_at, 0, 1, (unsigned)strlen(name), 0,
                              (const uint8_t *)name, NULL, NULL);
        }
        return;
    }
}

/* A number's text as a double: FITS writes D exponents too.  The text
 * was checked as a number when read. */
static double dec_double(const char *t)
{
    char b[72];
    size_t i;
    for (i = 0; t[i] && i + 1 < sizeof b; i++) b[i] = (t[i] == 'D' || t[i] == 'd') ? 'E' : t[i];
    b[i] = 0;
    return strtod(b, NULL);
}

/* The value transform the unit's scale and zero give its view (afmt.h,
 * "Value transforms"): a convention's logical type, exact in integers;
 * any other scale or zero kept as a general scale (f64 values); scale 1
 * and zero 0 (or neither): none. */
static void set_transform(const unit_run *ur, afmt_array *a)
{
    const afmt_cards_desc *d = ur->d;
    double scale = ur->scale_set ? dec_double(ur->scale) : 1.0, zero = ur->zero_set ? dec_double(ur->zero) : 0.0;
    size_t i;

    if (!ur->zero_set && !ur->scale_set) return;
    for (i = 0; ur->zero_set && i < d->nconvs; i++) {
        const afmt_cards_conv *cv = &d->convs[i];
        if (cv->type != ur->type || !dec_equal(ur->zero, cv->zero)) continue;
        if (ur->scale_set && !dec_equal(ur->scale, cv->scale ? cv->scale : "1")) continue;
        a->logical = cv->logical, a->scaled = 1, a->scale = scale, a->zero = zero;
        if (afmt_array_has_transform(a)) return;
        a->logical = AFMT_DTYPE_INVALID; /* a convention no integer arithmetic makes: the general case */
    }
    if (scale == 1.0 && zero == 0.0) return;
    a->logical = AFMT_F64, a->scaled = 1, a->scale = scale, a->zero = zero;
}

/* A record after the required ones, before the terminator. */
static int other_record(afmt_validation *c, unit_run *ur, int *cont)
{
    const afmt_cards_desc *d = ur->d;
    const afmt_cards_unit *u = ur->u;
    const uint8_t *r = ur->r;
    char field[128], kt[20];
    size_t i;
    uint32_t k, bad;
    uint64_t n;
    cval v;
    int was_cont = *cont;
    *cont = 0;
    key_text(d, r, kt);
    if (is_commentary(d, r)) return 0;
    /* the key: allowed bytes, left-justified, space-filled */
    for (k = 0; k < d->key_width && r[k] != ' '; k++)
        if (!strchr(d->key_chars, r[k])) break;
    {
        uint32_t j = k;
        while (j < d->key_width && r[j] == ' ') j++;
        if (j < d->key_width) {
            snprintf(field, sizeof field, "%s.card", ur->uname);
            return afmt_tolerate_c(c, AFMT_E_CONSTRAINT, field, ur->ncard, ur->at + (k < d->key_width ? k : j),
                                   "the key '%s' of record %" PRIu64 " is not left-justified bytes of \"%s\"", kt,
                                   ur->ncard + 1, d->key_chars);
        }
    }
    /* a required key again (a run's key of any number) */
    for (i = 0; i < u->nrequired; i++) {
        const afmt_cards_key *q = &u->required[i];
        if (q->run ? key_is_run(d, r, q->key, &n) : key_is(d, r, q->key)) {
            snprintf(field, sizeof field, "%s.%s", ur->uname, kt);
            return afmt_fail_c(c, AFMT_E_CONSTRAINT, field, AFMT_NO_INDEX, ur->at,
                               "%s again in record %" PRIu64 ": a mandatory key is given once, in its place", kt,
                               ur->ncard + 1);
        }
    }
    if (d->cont && key_is(d, r, d->cont)) {
        uint32_t vf = value_from(d);
        snprintf(field, sizeof field, "%s.%s", ur->uname, kt);
        for (k = d->key_width; k < vf; k++)
            if (r[k] != ' ') break;
        if (k < vf || parse_value(r, vf, d->record, &v, &bad) != 0 || v.kind != K_STRING)
            return afmt_tolerate_c(c, AFMT_E_VALUE, field, ur->ncard, ur->at,
                                   "record %" PRIu64 ": %s holds a string from byte %u", ur->ncard + 1, d->cont,
                                   vf + 1);
        if (!was_cont)
            return afmt_tolerate_c(c, AFMT_E_CONSTRAINT, field, ur->ncard, ur->at,
                                   "record %" PRIu64 ": %s with no string ending in '&' before it", ur->ncard + 1, d->cont);
        {
            uint32_t e = v.se;
            while (e > v.sb && r[e - 1] == ' ') e--;
            *cont = e > v.sb && r[e - 1] == '&';
        }
        return 0;
    }
    if (!has_indicator(d, r)) return 0; /* free text */
    for (i = 0; i < u->noptional; i++) {
        const afmt_cards_key *q = &u->optional[i];
        if (!(q->run ? key_is_run(d, r, q->key, &n) : key_is(d, r, q->key))) continue;
        snprintf(field, sizeof field, "%s.%s", ur->uname, kt);
        if (q->refuse == AFMT_CRF_ALWAYS)
            return afmt_fail_c(c, AFMT_E_CONSTRAINT, field, AFMT_NO_INDEX, ur->at, "%s in record %" PRIu64 "%s%s", kt,
                               ur->ncard + 1, q->message ? ": " : "", q->message ? q->message : "");
        if (q->refuse == AFMT_CRF_STRICT)
            return afmt_tolerate_c(c, AFMT_E_CONSTRAINT, field, AFMT_NO_INDEX, ur->at, "%s in record %" PRIu64 "%s%s",
                                   kt, ur->ncard + 1, q->message ? ": " : "", q->message ? q->message : "");
        {
            int rc = read_value(c, ur, q, kt, 1, &v);
            if (rc < 0) return -1;
            if (rc > 0) return 0;
        }
        if (q->int_types_only && ur->have_type && afmt_dtype_get(ur->dtype)->kind != AFMT_KIND_SIGNED &&
            afmt_dtype_get(ur->dtype)->kind != AFMT_KIND_UNSIGNED)
            return afmt_tolerate_c(c, AFMT_E_CONSTRAINT, field, AFMT_NO_INDEX, ur->at + v.b,
                                   "%s is for integer data only, this is %s%s%s", kt, afmt_dtype_name(ur->dtype),
                                   q->message ? ": " : "", q->message ? q->message : "");
        if (apply_role(c, ur, q, kt, &v)) return -1;
        if (v.kind == K_STRING) {
            uint32_t e = v.se;
            while (e > v.sb && r[e - 1] == ' ') e--;
            *cont = e > v.sb && r[e - 1] == '&';
        }
        return 0;
    }
    if (parse_value(r, value_from(d), d->record, &v, &bad) != 0) {
        snprintf(field, sizeof field, "%s.%s", ur->uname, kt);
        return afmt_tolerate_c(c, AFMT_E_VALUE, field, AFMT_NO_INDEX, ur->at + bad,
                               "%s: byte %u of its record ('%c') is not part of a value", kt, bad + 1, r[bad]);
    }
    if (v.kind == K_STRING) {
        uint32_t e = v.se;
        while (e > v.sb && r[e - 1] == ' ') e--;
        *cont = e > v.sb && r[e - 1] == '&';
    }
    return 0;
}

static int next_record(afmt_validation *c, unit_run *ur, uint64_t end)
{
    ur->at += ur->d->record;
    ur->ncard++;
    return take_record(c, ur, end);
}

/* One unit at c->pos: its header, its data, their fill. */
static int run_unit(afmt_validation *c, const afmt_cards_desc *d, const afmt_cards_unit *u, uint32_t index, uint64_t end)
{
    unit_run ur;
    afmt_array a;
    char field[128], kn[40];
    size_t i;
    uint64_t j, nbytes, pad, bad;
    int cont = 0;
    cval v;
    memset(&ur, 0, sizeof ur);
    memset(&a, 0, sizeof a);
    ur.d = d;
    ur.u = u;
    ur.a = &a;
    ur.at = c->pos;
    ur.product = 1;
    ur.groups = 1;
    if (u->first) snprintf(ur.uname, sizeof ur.uname, "%s", u->name);
    else snprintf(ur.uname, sizeof ur.uname, "hdu%" PRIu32, index);
    if (take_record(c, &ur, end)) return -1;
    /* the required keys, in order */
    for (i = 0; i < u->nrequired; i++) {
        const afmt_cards_key *k = &u->required[i];
        uint64_t count = 1;
        if (k->run) {
            if (!ur.have_rank) {
                snprintf(field, sizeof field, "%s.%s", ur.uname, k->key);
                return afmt_fail_c(c, AFMT_E_CONSTRAINT, field, AFMT_NO_INDEX, ur.at,
                                   "the run %sn has no count: no key before it gives the rank", k->key);
            }
            count = (uint64_t)ur.rank;
        }
        for (j = 0; j < count; j++) {
            char kt[20];
            if ((i > 0 || j > 0) && next_record(c, &ur, end)) return -1;
            key_name(k, j + 1, kn, sizeof kn);
            if (!(k->run ? key_is_run(d, ur.r, k->key, &bad) && bad == j + 1 : key_is(d, ur.r, k->key))) {
                key_text(d, ur.r, kt);
                snprintf(field, sizeof field, "%s.%s", ur.uname, kn);
                return afmt_fail_c(c, AFMT_E_CONSTRAINT, field, AFMT_NO_INDEX, ur.at,
                                   "record %" PRIu64 " is '%s', not %s: the mandatory keys come first, in order",
                                   ur.ncard + 1, kt, kn);
            }
            {
                int rc = read_value(c, &ur, k, kn, 0, &v);
                if (rc) return -1;
            }
            if (i == 0 && v.kind == K_STRING) string_text(ur.r, &v, ur.sel, sizeof ur.sel);
            if (apply_role(c, &ur, k, kn, &v)) return -1;
        }
    }
    /* the others, up to the terminator */
    for (;;) {
        if (next_record(c, &ur, end)) return -1;
        if (key_is(d, ur.r, d->end) || (memcmp(ur.r, d->end, strlen(d->end)) == 0 && ur.r[strlen(d->end)] == ' ')) {
            uint32_t k;
            for (k = (uint32_t)strlen(d->end); k < d->record && ur.r[k] == ' '; k++) {}
            if (k < d->record) {
                snprintf(field, sizeof field, "%s.%s", ur.uname, d->end);
                if (afmt_tolerate_c(c, AFMT_E_PADDING, field, AFMT_NO_INDEX, ur.at + k,
                                    "byte %u of the %s record is '%c': the rest of it is spaces", k + 1, d->end,
                                    ur.r[k]))
                    return -1;
            }
            break;
        }
        if (other_record(c, &ur, &cont)) return -1;
    }
    report_logical(c, &ur);
    /* the header's fill to the block's end */
    {
        uint64_t hend = ur.at + d->record, hpad = (d->block - hend % d->block) % d->block, k;
        snprintf(field, sizeof field, "%s.header_fill", ur.uname);
        afmt_src_keep_from(c->src, hend);
        for (k = 0; k < hpad;) {
            uint64_t chunk = hpad - k < 4096 ? hpad - k : 4096, q;
            const uint8_t *p;
            if (!afmt_src_have(c->src, end, hend + k, chunk))
                return afmt_src_short(c->src, c->err, c->path, field, AFMT_NO_INDEX, hend + k, end, hpad - k,
                                      "the header's last block");
            p = AFMT_B(c->src, hend + k);
            q = afmt_scan_not_byte(p, chunk, (uint8_t)d->fill);
            if (q < chunk) {
                if (afmt_tolerate_c(c, AFMT_E_PADDING, field, AFMT_NO_INDEX, hend + k + q,
                                    "byte 0x%02x after the %s record: the header's block is filled with 0x%02x",
                                    p[q], d->end, d->fill))
                    return -1;
                break;
            }
            k += chunk;
        }
        c->pos = hend + hpad;
    }
    /* the data: elsize x groups x (extra + prod(axes)) */
    {
        uint64_t count = 0;
        snprintf(field, sizeof field, "%s.data", ur.uname);
        if (ur.rank > 0 && !ur.zero_axis) {
            if (ur.over) return afmt_overflow_c(c, field, AFMT_NO_INDEX, c->pos, "the product of the axes");
            count = ur.product;
        }
        if (count > UINT64_MAX - (uint64_t)ur.extra) return afmt_overflow_c(c, field, AFMT_NO_INDEX, c->pos, "extra + count");
        count += (uint64_t)ur.extra;
        if (ur.groups && count > UINT64_MAX / (uint64_t)ur.groups)
            return afmt_overflow_c(c, field, AFMT_NO_INDEX, c->pos, "groups x count");
        count *= (uint64_t)ur.groups;
        if (ur.elsize && count > UINT64_MAX / ur.elsize)
            return afmt_overflow_c(c, field, AFMT_NO_INDEX, c->pos, "the data's bytes");
        nbytes = count * ur.elsize;
        if (u->skip) {
            const uint64_t start = ur.at - ur.ncard * d->record;
            snprintf(field, sizeof field, "%s.%s", ur.uname, u->required[0].key);
            if (afmt_tolerate_c(c, AFMT_E_UNSUPPORTED, field, AFMT_NO_INDEX, start,
                                "%s = '%s': a kind of unit this spec does not read: skipped by its size, "
                                "%" PRIu64 " bytes of data",
                                u->required[0].key, ur.sel, nbytes))
                return -1;
            if (afmt_take_payload(c, field, nbytes, NULL, NULL, NULL)) return -1;
        } else if (ur.rank > 0) {
            afmt_array *view = NULL;
            if (c->vis && c->vis->on_array && ur.rank <= AFMT_RANK_CAP &&
                (!c->opt || (uint64_t)ur.rank <= c->opt->limits.max_rank)) {
                uint64_t dims[AFMT_RANK_CAP];
                memcpy(dims, a.dims, sizeof dims);
                afmt_view_start(&a, ur.dtype, ur.elsize, AFMT_ENC_PLAIN, count, d->order, d->endian, nbytes, c->pos,
                                c->narrays);
                memcpy(a.dims, dims, sizeof dims);
                a.rank = (uint32_t)ur.rank;
                snprintf(a.name, sizeof a.name, "%s", ur.name[0] ? ur.name : ur.uname);
                set_transform(&ur, &a);
                view = &a;
            }
            if (afmt_take_payload(c, field, nbytes, NULL, NULL, NULL)) return -1;
            if (view && afmt_view_hand(c, field, view, nbytes)) return -1;
            ++c->narrays;
        }
        c->pos += nbytes;
    }
    /* the data's fill */
    pad = (d->block - c->pos % d->block) % d->block;
    if (pad) {
        uint64_t first_bad = pad;
        snprintf(field, sizeof field, "%s.data_fill", ur.uname);
        if (!afmt_src_take(c->src, end, c->pos, pad, d->data_fill == 0 ? afmt_src_scan_zero : NULL, NULL, &first_bad))
            return afmt_take_payload_short(c, field, pad);
        if (first_bad < pad &&
            afmt_tolerate_c(c, AFMT_E_PADDING, field, AFMT_NO_INDEX, c->pos + first_bad,
                            "the data's last block is filled with zero bytes: byte %" PRIu64 " of the fill is not",
                            first_bad))
            return -1;
        c->pos += pad;
    }
    return 0;
}

int afmt_cards_validate(afmt_validation *c, const afmt_cards_desc *d, uint64_t end)
{
    const afmt_cards_unit *first = NULL;
    const afmt_cards_key *start = NULL;
    size_t i;
    uint32_t index;
    for (i = 0; i < d->nunits; i++) {
        if (d->units[i].first && !first) first = &d->units[i];
        if (!d->units[i].first && d->units[i].nrequired && !start) start = &d->units[i].required[0];
    }
    if (!first) return afmt_fail_c(c, AFMT_E_USAGE, "cards", AFMT_NO_INDEX, c->pos, "no first unit");
    if (run_unit(c, d, first, 0, end)) return -1;
    for (index = 1; start; index++) {
        const afmt_cards_unit *u = NULL;
        const uint8_t *r;
        cval v;
        uint32_t bad;
        char s[72];
        size_t kl = strlen(start->key);
        if (!afmt_src_have(c->src, end, c->pos, kl)) return 0;
        r = AFMT_B(c->src, c->pos);
        if (memcmp(r, start->key, kl) != 0) return 0;
        if (!afmt_src_have(c->src, end, c->pos, d->record)) {
            char field[128];
            snprintf(field, sizeof field, "hdu%" PRIu32 ".header", index);
            return afmt_src_short(c->src, c->err, c->path, field, AFMT_NO_INDEX, c->pos, end, d->record,
                                  "a header record (the header has no end record)");
        }
        r = AFMT_B(c->src, c->pos);
        if (!key_is(d, r, start->key)) return 0;
        s[0] = 0;
        if (parse_value(r, value_from(d), d->record, &v, &bad) == 0 && v.kind == K_STRING)
            string_text(r, &v, s, sizeof s);
        for (i = 0; i < d->nunits; i++)
            if (!d->units[i].first && d->units[i].select && strcmp(d->units[i].select, s) == 0) u = &d->units[i];
        for (i = 0; !u && i < d->nunits; i++)
            if (!d->units[i].first && !d->units[i].select) u = &d->units[i];
        if (!u) {
            char field[128];
            snprintf(field, sizeof field, "hdu%" PRIu32 ".%s", index, start->key);
            return afmt_fail_c(c, AFMT_E_UNSUPPORTED, field, AFMT_NO_INDEX, c->pos, "a unit of kind '%s' is not read",
                               s);
        }
        if (run_unit(c, d, u, index, end)) return -1;
        if (index == UINT32_MAX) break;
    }
    return 0;
}

/* ------------------------------------------------------------ the writer */

/* One record of key kn with value text v in fixed format: a logical or
 * number ending in byte fixed_end, a string from the byte after the
 * indicator, padded to fixed_string characters.  A value too long to end
 * there goes right after the indicator, unless its rule says "fixed":
 * then the validator would refuse the record, so the writer does. */
static int put_record(afmt_sink *sink, const afmt_cards_desc *d, const char *kn, const char *v, int is_string,
                      int fixed, afmt_error *err)
{
    char rec[4096];
    size_t kl = strlen(kn), il = strlen(d->indicator), vl = strlen(v), at;
    const size_t vf = d->key_width + il;
    if (kl > d->key_width)
        return afmt_fail(err, AFMT_E_TYPE, NULL, kn, AFMT_NO_INDEX, AFMT_NO_OFFSET,
                         "the key %s is longer than the key field (%u bytes)", kn, d->key_width);
    memset(rec, ' ', d->record);
    memcpy(rec, kn, kl);
    memcpy(rec + d->key_width, d->indicator, il);
    if (fixed && !is_string && d->fixed_end && vl > d->fixed_end - vf)
        return afmt_fail(err, AFMT_E_TYPE, NULL, kn, AFMT_NO_INDEX, AFMT_NO_OFFSET,
                         "the value %s of %s does not fit fixed format: it must end in byte %u, and the value "
                         "starts in byte %zu", v, kn, d->fixed_end, vf + 1);
    if (is_string || !d->fixed_end || vl > d->fixed_end - vf) at = vf;
    else at = d->fixed_end - vl;
    if (at + vl > d->record)
        return afmt_fail(err, AFMT_E_TYPE, NULL, kn, AFMT_NO_INDEX, AFMT_NO_OFFSET,
                         "the value of %s (%zu bytes) does not fit a record", kn, vl);
    memcpy(rec + at, v, vl);
    return afmt_sink_put(sink, rec, d->record, err);
}

/* A string value, quoted, quotes doubled, padded to fixed_string. */
static int string_value(const afmt_cards_desc *d, const char *s, char *out, size_t cap)
{
    size_t n = 0, k, chars = 0;
    out[n++] = '\'';
    for (k = 0; s[k]; k++) {
        if ((unsigned char)s[k] < (unsigned)d->byte_min || (unsigned char)s[k] > (unsigned)d->byte_max) return -1;
        if (n + 3 >= cap) return -1;
        out[n++] = s[k];
        if (s[k] == '\'') out[n++] = '\'';
        chars++;
    }
    for (; chars < d->fixed_string && n + 2 < cap; chars++) out[n++] = ' ';
    out[n++] = '\'';
    out[n] = 0;
    return 0;
}

/* How a unit's data is written: the stored type's entry, and the scale
 * and zero keys' values ("" none). */
typedef struct unit_form {
    int64_t typev;
    afmt_dtype stored;
    int flip;            /* an integer convention: the top bit of each element flipped */
    char scale[40], zero[40];
} unit_form;

/* A double as a real value: "%.17G", with a point where it has none. */
static void real_text(double x, char *out, size_t size)
{
    snprintf(out, size, "%.17G", x);
    if (!strpbrk(out, ".EN")) snprintf(out + strlen(out), size - strlen(out), ".0");
}

/* The stored type a's values are written as: its own type; a general
 * scale's stored type with the scale; a convention's stored type with its
 * zero for a logical type only a convention gives (u16: i16 + 32768). */
static int choose_form(const afmt_cards_desc *d, const afmt_array *a, size_t index, unit_form *f,
                       afmt_error *err)
{
    size_t t, i;
    memset(f, 0, sizeof *f);
    f->stored = a->dtype;
    if (afmt_array_general_scale(a)) {
        real_text(a->scale, f->scale, sizeof f->scale);
        real_text(a->zero, f->zero, sizeof f->zero);
    } else if (afmt_array_has_transform(a)) {
        return afmt_sink_refuse_transform(a, err);
    }
    for (t = 0; t < d->ntypes; t++)
        if (d->types[t].dtype == f->stored) break;
    for (i = 0; t == d->ntypes && !a->scaled && i < d->nconvs; i++) {
        if (d->convs[i].logical != a->dtype || d->convs[i].scale) continue;
        for (t = 0; t < d->ntypes && d->types[t].value != d->convs[i].type; t++) {}
        if (t == d->ntypes) continue;
        f->stored = d->types[t].dtype, f->flip = 1;
        snprintf(f->zero, sizeof f->zero, "%s", d->convs[i].zero);
    }
    if (t == d->ntypes)
        return afmt_fail(err, AFMT_E_TYPE, NULL, "data", index, AFMT_NO_OFFSET,
                         "%s cannot hold elements of type %s", d->format, afmt_dtype_name(a->dtype));
    f->typev = d->types[t].value;
    return 0;
}

/* The keys bound to scale and zero, where the form has values for them. */
static int put_scale_keys(afmt_sink *sink, const afmt_cards_desc *d, const afmt_cards_unit *u, const unit_form *f,
                          afmt_error *err)
{
    size_t i;
    for (i = 0; i < u->noptional; i++) {
        const afmt_cards_key *q = &u->optional[i];
        const char *v = q->role == AFMT_CR_SCALE ? f->scale : q->role == AFMT_CR_ZERO ? f->zero : "";
        if (v[0] && put_record(sink, d, q->key, v, 0, q->fixed, err)) return -1;
    }
    return 0;
}

/* The data of a unit of an integer convention: each element with its top
 * bit flipped (u16 as i16 + 32768), in the descriptor's byte order. */
static int put_flipped(afmt_sink *sink, const afmt_array *a, afmt_endian endian, afmt_error *err)
{
    uint8_t buf[1 << 14];
    const unsigned es = afmt_dtype_get(a->dtype)->size;
    const uint16_t one = 1;
    uint8_t first;
    uint64_t total = a->count * es, k, n, e; /* fits: afmt_payload_size checked it */
    memcpy(&first, &one, 1);
    if (sink->counting) { sink->written += total; return 0; }
    for (k = 0; k < total; k += n) {
        n = total - k < sizeof buf ? total - k : sizeof buf;
        afmt_swap_copy(buf, a->data + k, n, (endian == AFMT_BIG) == (first == 0) ? 1 : es);
        for (e = endian == AFMT_BIG ? 0 : es - 1; e < n; e += es) buf[e] ^= 0x80;
        if (afmt_sink_put(sink, buf, n, err) != 0) return -1;
    }
    return 0;
}

/* The header and data of one unit of kind u holding array a. */
static int write_unit(const afmt_cards_desc *d, const afmt_cards_unit *u, const afmt_array *a, size_t index,
                      afmt_sink *sink, afmt_error *err)
{
    size_t i, t;
    uint64_t start = sink->written, nbytes, k;
    char v[160], kn[40];
    int64_t typev = 0;
    unit_form form;
    afmt_array stored;
    if (choose_form(d, a, index, &form, err)) return -1;
    typev = form.typev;
    (void)t;
    if (a->rank == 0)
        return afmt_fail(err, AFMT_E_TYPE, NULL, "data", index, AFMT_NO_OFFSET,
                         "%s holds arrays of at least one axis (a rank of 0 means no data); this array is a scalar",
                         d->format);
    if (a->encoding != AFMT_ENC_PLAIN || a->stride != a->elsize || (a->rank > 1 && a->order != d->order))
        return afmt_fail(err, AFMT_E_USAGE, NULL, "data", index, AFMT_NO_OFFSET,
                         "array %zu must be plain and %s (see afmt_array_to_plain)", index,
                         d->order == AFMT_COL_MAJOR ? "column-major" : "row-major");
    for (i = 0; i < u->nrequired; i++) {
        const afmt_cards_key *q = &u->required[i];
        uint64_t r, count = q->run ? a->rank : 1;
        for (r = 0; r < count; r++) {
            int is_string = 0;
            key_name(q, r + 1, kn, sizeof kn);
            switch (q->role) {
            case AFMT_CR_TYPE: snprintf(v, sizeof v, "%" PRId64, typev); break;
            case AFMT_CR_RANK:
                if (q->has_max && (int64_t)a->rank > q->max)
                    return afmt_fail(err, AFMT_E_TYPE, NULL, kn, AFMT_NO_INDEX, AFMT_NO_OFFSET,
                                     "array %zu has %" PRIu32 " axes: %s holds at most %" PRId64, index, a->rank, kn,
                                     q->max);
                snprintf(v, sizeof v, "%" PRIu32, a->rank);
                break;
            case AFMT_CR_AXES:
                if (a->dims[r] > (uint64_t)INT64_MAX || (q->has_max && a->dims[r] > (uint64_t)q->max))
                    return afmt_fail(err, AFMT_E_TYPE, NULL, kn, AFMT_NO_INDEX, AFMT_NO_OFFSET,
                                     "axis %" PRIu64 " of array %zu is %" PRIu64 ": more than %s holds", r, index,
                                     a->dims[r], kn);
                snprintf(v, sizeof v, "%" PRIu64, a->dims[r]);
                break;
            default:
                if (q->type == AFMT_CV_LOGICAL && q->logical >= 0) {
                    snprintf(v, sizeof v, "%c", q->logical ? 'T' : 'F');
                } else if (q->type == AFMT_CV_INT && q->has_min && q->has_max && q->min == q->max) {
                    snprintf(v, sizeof v, "%" PRId64, q->min);
                } else if (q->type == AFMT_CV_STRING && q->string) {
                    if (string_value(d, q->string, v, sizeof v))
                        return afmt_fail(err, AFMT_E_USAGE, NULL, kn, AFMT_NO_INDEX, AFMT_NO_OFFSET,
                                         "the value of %s does not fit a record", kn);
                    is_string = 1;
                } else {
                    return afmt_fail(err, AFMT_E_UNSUPPORTED, NULL, kn, AFMT_NO_INDEX, AFMT_NO_OFFSET,
                                     "the writer has no value for %s", kn);
                }
            }
            if (put_record(sink, d, kn, v, is_string, q->fixed, err)) return -1;
        }
    }
    /* the view's name, where a key is bound to it */
    for (i = 0; i < u->noptional && a->name[0] && !(u->first && strcmp(a->name, u->name) == 0); i++) {
        const afmt_cards_key *q = &u->optional[i];
        if (q->role != AFMT_CR_NAME || q->run) continue;
        if (string_value(d, a->name, v, sizeof v) != 0 || strlen(v) + d->key_width + strlen(d->indicator) > d->record)
            return afmt_fail(err, AFMT_E_TYPE, NULL, q->key, index, AFMT_NO_OFFSET,
                             "array %zu's name '%s' does not fit a %s value (bytes %d to %d, one record)", index,
                             a->name, q->key, d->byte_min, d->byte_max);
        if (put_record(sink, d, q->key, v, 1, q->fixed, err)) return -1;
        break;
    }
    if (put_scale_keys(sink, d, u, &form, err)) return -1;
    {
        char rec[4096];
        memset(rec, ' ', d->record);
        memcpy(rec, d->end, strlen(d->end));
        if (afmt_sink_put(sink, rec, d->record, err) != 0) return -1;
    }
    {
        uint64_t hlen = sink->written - start, hpad = (d->block - hlen % d->block) % d->block;
        char fill[256];
        memset(fill, d->fill, sizeof fill);
        for (k = 0; k < hpad; k += sizeof fill)
            if (afmt_sink_put(sink, fill, hpad - k < sizeof fill ? hpad - k : sizeof fill, err)) return -1;
    }
    /* the stored elements: a general scale's without its transform */
    stored = *a;
    stored.logical = AFMT_DTYPE_INVALID, stored.scaled = 0;
    if (afmt_payload_size(&stored, AFMT_ENC_PLAIN, &nbytes, err)) return -1;
    if (nbytes && form.flip && put_flipped(sink, &stored, d->endian, err)) return -1;
    if (nbytes && !form.flip && afmt_sink_payload(sink, &stored, d->endian, AFMT_ENC_PLAIN, err)) return -1;
    {
        uint64_t pad = (d->block - nbytes % d->block) % d->block;
        if (d->data_fill == 0) return afmt_sink_zeros(sink, pad, err);
        for (k = 0; k < pad; k++)
            if (afmt_sink_u8(sink, (uint64_t)d->data_fill, err)) return -1;
    }
    return 0;
}

int afmt_cards_write(const afmt_cards_desc *d, const afmt_array *arrays, size_t n, const afmt_write_options *wopt,
                     afmt_sink *sink, afmt_error *err)
{
    const afmt_cards_unit *first = NULL, *ext = NULL;
    size_t i;
    (void)wopt;
    for (i = 0; i < d->nunits; i++) {
        if (d->units[i].first && !first) first = &d->units[i];
        if (!d->units[i].first && !d->units[i].skip && d->units[i].select && !ext) ext = &d->units[i];
    }
    if (!first) return afmt_fail(err, AFMT_E_USAGE, NULL, "", AFMT_NO_INDEX, AFMT_NO_OFFSET, "no first unit");
    if (n == 0)
        return afmt_fail(err, AFMT_E_USAGE, NULL, "", AFMT_NO_INDEX, AFMT_NO_OFFSET, "%s needs an array to write",
                         d->format);
    if (n > 1 && !ext)
        return afmt_fail(err, AFMT_E_USAGE, NULL, "", AFMT_NO_INDEX, AFMT_NO_OFFSET, "%s holds one array, not %zu",
                         d->format, n);
    for (i = 0; i < n; i++)
        if (write_unit(d, i == 0 ? first : ext, &arrays[i], i, sink, err)) return -1;
    return 0;
}
