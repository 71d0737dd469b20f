/* afmt runtime: text headers (JSON object / Python dict literal), parsed in
 * place.  See afmt_texthdr.h.
 *
 * One recursive-descent scanner serves two purposes: with `check` set it
 * validates everything and reports the first problem with its key path;
 * without it, it only finds where an already validated value ends (used by
 * lookups and iteration, which therefore cannot fail).  Recursion is bounded
 * by AFMT_TEXTHDR_DEPTH_CAP, so stack use is too.
 */
#include "afmt_texthdr.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

typedef struct ctx {
    const afmt_texthdr *hdr;
    const afmt_path *outer;
    afmt_error *err;
    afmt_texthdr_path path;
    unsigned max_depth;
    int check;
    struct key_rec *work;  /* hdr->work as key records (NULL: none) */
    uint64_t work_cap;     /* records that fit */
    uint64_t work_top;     /* records in use by the open objects */
} ctx;

static int is_py(const afmt_texthdr *hdr) { return hdr->syntax == AFMT_TEXTHDR_PYDICT; }

static int is_ws(const afmt_texthdr *hdr, uint8_t b)
{
    if (b == ' ' || b == '\t' || b == '\n' || b == '\r')
        return 1;
    return is_py(hdr) && (b == '\f' || b == '\v');
}

static uint64_t skip_ws(const afmt_texthdr *hdr, uint64_t pos)
{
    while (pos < hdr->len && is_ws(hdr, hdr->text[pos]))
        pos++;
    return pos;
}

/* "'x'" for a printable byte, "byte 0xNN" otherwise, "the end" past it. */
static const char *describe_at(const afmt_texthdr *hdr, uint64_t pos, char *buf, size_t n)
{
    if (pos >= hdr->len)
        return "the end of the header";
    if (hdr->text[pos] >= 0x20 && hdr->text[pos] < 0x7f)
        snprintf(buf, n, "'%c'", hdr->text[pos]);
    else
        snprintf(buf, n, "byte 0x%02x", hdr->text[pos]);
    return buf;
}

static int vfail(const afmt_texthdr *hdr, const afmt_texthdr_path *p, const afmt_path *outer, afmt_error *err,
                 afmt_code code, uint64_t at, const char *fmt, va_list ap)
{
    char field[AFMT_FIELD_MAX];
    char msg[AFMT_MESSAGE_MAX];
    uint64_t off = hdr->base + at;

    afmt_texthdr_path_render(hdr, p, field, sizeof field);
    vsnprintf(msg, sizeof msg, fmt, ap);
    /* base + at cannot wrap for a header that lies inside a file, but the
     * caller's base is not ours to trust. */
    if (off < hdr->base)
        off = UINT64_MAX;
    return afmt_fail(err, code, outer, field, AFMT_NO_INDEX, off, "%s", msg);
}

int afmt_texthdr_fail(const afmt_texthdr *hdr, const afmt_texthdr_path *p, const afmt_path *outer, afmt_error *err,
                 afmt_code code, uint64_t at, const char *fmt, ...)
{
    va_list ap;
    int r;
    va_start(ap, fmt);
    r = vfail(hdr, p, outer, err, code, at, fmt, ap);
    va_end(ap);
    return r;
}

#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 4, 5)))
#endif
static int fail(ctx *c, afmt_code code, uint64_t at, const char *fmt, ...)
{
    va_list ap;
    int r;
    va_start(ap, fmt);
    r = vfail(c->hdr, &c->path, c->outer, c->err, code, at, fmt, ap);
    va_end(ap);
    return r;
}

/* ------------------------------------------------------------ UTF-8 */

/* Length of the well-formed UTF-8 sequence at p (n bytes left), or 0:
 * no overlong forms, no surrogates, nothing above U+10FFFF. */
static unsigned utf8_len(const uint8_t *p, uint64_t n)
{
    uint8_t b = p[0];
    if (b < 0x80)
        return 1;
    if (b >= 0xc2 && b <= 0xdf)
        return n >= 2 && (p[1] & 0xc0) == 0x80 ? 2 : 0;
    if (b >= 0xe0 && b <= 0xef) {
        uint8_t lo = b == 0xe0 ? 0xa0 : 0x80, hi = b == 0xed ? 0x9f : 0xbf;
        return n >= 3 && p[1] >= lo && p[1] <= hi && (p[2] & 0xc0) == 0x80 ? 3 : 0;
    }
    if (b >= 0xf0 && b <= 0xf4) {
        uint8_t lo = b == 0xf0 ? 0x90 : 0x80, hi = b == 0xf4 ? 0x8f : 0xbf;
        return n >= 4 && p[1] >= lo && p[1] <= hi && (p[2] & 0xc0) == 0x80 &&
                       (p[3] & 0xc0) == 0x80
                   ? 4
                   : 0;
    }
    return 0;
}

int afmt_texthdr_utf8_valid(const uint8_t *p, uint64_t n)
{
    uint64_t i = 0;
    while (i < n) {
        unsigned k = utf8_len(p + i, n - i);
        if (!k)
            return 0;
        i += k;
    }
    return 1;
}

static unsigned utf8_put(uint32_t cp, uint8_t out[4])
{
    if (cp < 0x80) { out[0] = (uint8_t)cp; return 1; }
    if (cp < 0x800) {
        out[0] = (uint8_t)(0xc0 | cp >> 6); out[1] = (uint8_t)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (uint8_t)(0xe0 | cp >> 12); out[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
        out[2] = (uint8_t)(0x80 | (cp & 0x3f));
        return 3;
    }
    out[0] = (uint8_t)(0xf0 | cp >> 18); out[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3f));
    out[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f)); out[3] = (uint8_t)(0x80 | (cp & 0x3f));
    return 4;
}

static int hexval(uint8_t b)
{
    if (b >= '0' && b <= '9') return b - '0';
    if (b >= 'a' && b <= 'f') return b - 'a' + 10;
    if (b >= 'A' && b <= 'F') return b - 'A' + 10;
    return -1;
}

/* n hex digits at p (all present), or -1. */
static int64_t hexn(const uint8_t *p, unsigned n)
{
    int64_t v = 0;
    unsigned i;
    for (i = 0; i < n; i++) {
        int h = hexval(p[i]);
        if (h < 0) return -1;
        v = v * 16 + h;
    }
    return v;
}

/* ------------------------------------------------------------ strings */

/* Decode one escape starting at the backslash text[pos] (end: the closing
 * quote).  Returns the bytes of its UTF-8 encoding in out and advances *pos,
 * or 0 with *why set when malformed. */
static unsigned decode_escape(const afmt_texthdr *hdr, uint64_t *pos, uint64_t end, uint8_t out[4],
                              const char **why)
{
    const uint8_t *t = hdr->text;
    uint64_t p = *pos + 1;
    uint8_t e;
    int64_t cp;
    unsigned digits = 0;

    if (p >= end) { *why = "a backslash ends the string"; return 0; }
    e = t[p];
    *pos = p + 1;
    switch (e) {
    case '"': out[0] = '"'; return 1;
    case '\\': out[0] = '\\'; return 1;
    case 'n': out[0] = '\n'; return 1;
    case 't': out[0] = '\t'; return 1;
    case 'r': out[0] = '\r'; return 1;
    case 'b': out[0] = '\b'; return 1;
    case 'f': out[0] = '\f'; return 1;
    case '/': if (!is_py(hdr)) { out[0] = '/'; return 1; } break;
    case '\'': if (is_py(hdr)) { out[0] = '\''; return 1; } break;
    case 'x': if (is_py(hdr)) digits = 2; break;
    case 'u': digits = 4; break;
    case 'U': if (is_py(hdr)) digits = 8; break;
    default: break;
    }
    if (!digits) {
        *why = "unknown escape";
        return 0;
    }
    if (end - *pos < digits || (cp = hexn(t + *pos, digits)) < 0) {
        *why = "an escape needs hexadecimal digits";
        return 0;
    }
    *pos += digits;
    if (cp >= 0xd800 && cp <= 0xdbff && !is_py(hdr)) {
        /* JSON spells characters above U+FFFF as a surrogate pair. */
        int64_t lo;
        if (end - *pos < 6 || t[*pos] != '\\' || t[*pos + 1] != 'u' ||
            (lo = hexn(t + *pos + 2, 4)) < 0xdc00 || lo > 0xdfff) {
            *why = "a high surrogate escape is not followed by a low one";
            return 0;
        }
        *pos += 6;
        cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
    } else if ((cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff) {
        *why = "the escape is not a Unicode scalar value";
        return 0;
    }
    return utf8_put((uint32_t)cp, out);
}

/* Next decoded unit of the string body [*pos, end): its bytes in out. */
static unsigned next_unit(const afmt_texthdr *hdr, uint64_t *pos, uint64_t end, uint8_t out[4])
{
    const char *why;
    if (hdr->text[*pos] == '\\') {
        unsigned n = decode_escape(hdr, pos, end, out, &why);
        if (n) return n;
        /* Validated strings never get here; keep the walk finite anyway. */
        *pos = end;
        return 0;
    }
    out[0] = hdr->text[(*pos)++];
    return 1;
}

/* A string value starting at the quote text[pos]. */
static int parse_string(ctx *c, uint64_t pos, afmt_texthdr_value *v)
{
    const afmt_texthdr *hdr = c->hdr;
    uint8_t q = hdr->text[pos];
    uint64_t p = pos + 1;

    v->kind = AFMT_TV_STRING;
    v->begin = p;
    v->escaped = 0;
    for (;;) {
        uint8_t b;
        /* printable ASCII other than the quotes and the backslash needs
         * no check: the common case, one test per byte */
        while (p < hdr->len && hdr->text[p] >= 0x20 && hdr->text[p] < 0x7f && hdr->text[p] != '"' &&
               hdr->text[p] != '\'' && hdr->text[p] != '\\')
            p++;
        if (p < hdr->len && hdr->text[p] == '\'' && q != '\'') {
            p++;
            continue;
        }
        if (p >= hdr->len)
            return fail(c, AFMT_E_VALUE, pos, "the string is not closed before the end of the header");
        b = hdr->text[p];
        if (b == q)
            break;
        if (b == '\\') {
            uint8_t tmp[4];
            const char *why = NULL;
            uint64_t at = p;
            v->escaped = 1;
            if (!c->check) {
                p += 2; /* validated: the escaped byte is never the quote */
                continue;
            }
            /* Look for the closing quote for the escape's bound: the escape
             * may not run past the end of the header. */
            if (!decode_escape(hdr, &p, hdr->len, tmp, &why))
                return fail(c, AFMT_E_VALUE, at, "%s in a string", why);
            continue;
        }
        if (c->check) {
            if (b < 0x20 && !(b == '\t' && is_py(hdr)))
                return fail(c, AFMT_E_VALUE, p, "control byte 0x%02x in a string (escape it)", b);
            if (b >= 0x80) {
                unsigned n = utf8_len(hdr->text + p, hdr->len - p);
                if (!n)
                    return fail(c, AFMT_E_VALUE, p, "invalid UTF-8 (byte 0x%02x) in a string", b);
                p += n;
                continue;
            }
        }
        p++;
    }
    v->end = p;
    v->count = 0;
    v->u = 0;
    v->negative = 0;
    /* The span after the closing quote: callers continue from end + 1. */
    return 0;
}

/* ------------------------------------------------------------ numbers, words */

static int is_ident_byte(uint8_t b)
{
    return (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || (b >= '0' && b <= '9') || b == '_';
}

static int parse_int(ctx *c, uint64_t pos, afmt_texthdr_value *v)
{
    const afmt_texthdr *hdr = c->hdr;
    uint64_t p = pos, digits0;
    uint64_t u = 0;
    int neg = 0;

    if (hdr->text[p] == '-') { neg = 1; p++; }
    digits0 = p;
    if (p >= hdr->len || hdr->text[p] < '0' || hdr->text[p] > '9')
        return fail(c, AFMT_E_VALUE, pos, "'-' is not followed by digits");
    while (p < hdr->len && hdr->text[p] >= '0' && hdr->text[p] <= '9') {
        unsigned d = (unsigned)(hdr->text[p] - '0');
        if (c->check && u > (UINT64_MAX - d) / 10)
            return fail(c, AFMT_E_VALUE, pos, "integer does not fit in 64 bits");
        u = u * 10 + d;
        p++;
    }
    if (c->check) {
        if (hdr->text[digits0] == '0' && p - digits0 > 1)
            return fail(c, AFMT_E_VALUE, pos, "an integer may not start with 0");
        if (p < hdr->len && (hdr->text[p] == '.' || hdr->text[p] == 'e' || hdr->text[p] == 'E'))
            return fail(c, AFMT_E_VALUE, pos, "a number with a fraction or exponent: only integers are allowed here");
        if (p < hdr->len && is_ident_byte(hdr->text[p]))
            return fail(c, AFMT_E_VALUE, p, "unexpected '%c' after an integer", hdr->text[p]);
    }
    v->kind = AFMT_TV_INT;
    v->begin = pos;
    v->end = p;
    v->u = u;
    v->negative = neg && u != 0;
    v->count = 0;
    v->escaped = 0;
    return 0;
}

static int parse_word(ctx *c, uint64_t pos, afmt_texthdr_value *v)
{
    const afmt_texthdr *hdr = c->hdr;
    uint64_t p = pos;
    size_t n;
    const char *t = is_py(hdr) ? "True" : "true", *f = is_py(hdr) ? "False" : "false";
    const char *nul = is_py(hdr) ? "None" : "null";
    char buf[16];

    while (p < hdr->len && is_ident_byte(hdr->text[p]) && p - pos < 8)
        p++;
    n = (size_t)(p - pos);
    v->kind = AFMT_TV_BOOL;
    v->begin = pos;
    v->end = p;
    v->count = 0;
    v->negative = 0;
    v->escaped = 0;
    if (n == strlen(t) && memcmp(hdr->text + pos, t, n) == 0 && !(p < hdr->len && is_ident_byte(hdr->text[p]))) {
        v->u = 1;
        return 0;
    }
    if (n == strlen(f) && memcmp(hdr->text + pos, f, n) == 0 && !(p < hdr->len && is_ident_byte(hdr->text[p]))) {
        v->u = 0;
        return 0;
    }
    if (n == strlen(nul) && memcmp(hdr->text + pos, nul, n) == 0)
        return fail(c, AFMT_E_VALUE, pos, "%s is not allowed in this header", nul);
    return fail(c, AFMT_E_VALUE, pos, "expected a value, found %s", describe_at(hdr, pos, buf, sizeof buf));
}

/* ------------------------------------------------------------ duplicates */

static int map_depth(const afmt_texthdr *hdr, unsigned depth)
{
    return depth < 32 && ((hdr->map_depths >> depth) & 1u);
}


#define DUP_SLOTS 4096 /* power of two */
#define DUP_CHUNK 2048 /* keys hashed per pass: the table stays half empty */

typedef struct dup_slot {
    uint64_t begin, end;
    uint32_t hash;
    uint32_t used;
    int escaped;
} dup_slot;

static uint32_t key_hash(const afmt_texthdr *hdr, const afmt_texthdr_value *k)
{
    uint32_t h = 2166136261u;
    uint64_t p = k->begin;
    while (p < k->end) {
        uint8_t u[4];
        unsigned n = next_unit(hdr, &p, k->end, u), i;
        for (i = 0; i < n; i++)
            h = (h ^ u[i]) * 16777619u;
    }
    return h;
}

static dup_slot *dup_find(dup_slot *tab, uint32_t mask, const afmt_texthdr *hdr, const afmt_texthdr_value *k,
                          uint32_t h)
{
    uint32_t i = h & mask;
    for (;;) {
        dup_slot *s = &tab[i];
        if (!s->used)
            return s;
        if (s->hash == h) {
            afmt_texthdr_value other;
            memset(&other, 0, sizeof other);
            other.kind = AFMT_TV_STRING;
            other.begin = s->begin;
            other.end = s->end;
            other.escaped = s->escaped;
            if (afmt_texthdr_str_cmp(hdr, &other, k) == 0)
                return s;
        }
        i = (i + 1) & mask;
    }
}

static int fail_duplicate(ctx *c, const afmt_texthdr_value *k, uint64_t first_quote, int is_map)
{
    char first[24];
    snprintf(first, sizeof first, "%" PRIu64, c->hdr->base + first_quote);
    afmt_texthdr_path_key(&c->path, k, is_map);
    return fail(c, AFMT_E_CONSTRAINT, k->begin - 1, "duplicate key: it is already defined at offset %s", first);
}

/* Every pair of equal keys in obj: a pass hashes DUP_CHUNK keys and looks
 * up all later ones, so the table has a fixed size whatever the count
 * (passes = count / DUP_CHUNK; constant memory, quadratic only in chunks:
 * a 1 MiB header, max_header_bytes' default, has at most 21,000 keys of
 * tensors, 11 passes).  Each pass only re-reads keys and skips values. */
static int check_duplicates(ctx *c, const afmt_texthdr_value *obj, int is_map)
{
    const afmt_texthdr *hdr = c->hdr;
    dup_slot tab[DUP_SLOTS];
    afmt_texthdr_iter start, it;
    afmt_texthdr_value k, v;
    uint32_t slots = 16;

    /* Small objects (a tensor's three keys) clear a small part of the
     * table: at least twice as many slots as keys hashed in a pass. */
    while (slots < DUP_SLOTS && slots < 2 * obj->count)
        slots *= 2;
    afmt_texthdr_iter_begin(hdr, obj, &start);
    while (start.index < start.count) {
        uint64_t hashed = 0;
        memset(tab, 0, slots * sizeof tab[0]);
        it = start;
        while (afmt_texthdr_next(hdr, &it, &k, &v)) {
            uint32_t h = key_hash(hdr, &k);
            dup_slot *s = dup_find(tab, slots - 1, hdr, &k, h);
            if (s->used)
                return fail_duplicate(c, &k, s->begin - 1, is_map);
            if (hashed < DUP_CHUNK) {
                s->used = 1;
                s->hash = h;
                s->begin = k.begin;
                s->end = k.end;
                s->escaped = k.escaped;
                hashed++;
                if (hashed == DUP_CHUNK) {
                    /* The next pass starts after this chunk. */
                    start = it;
                }
            }
        }
        if (hashed < DUP_CHUNK)
            break;
    }
    return 0;
}

/* The keys of an object, recorded as they are parsed so that duplicates
 * are found by one sort at its end instead of passes over its text.  An
 * object's first LOCAL_KEYS keys stay in its own frame (a tensor's three
 * keys never need more); a longer object moves them to the caller's work
 * area (afmt_texthdr.work), which nested objects then use above them, and sorts
 * them there in place.  Without room there it falls back to
 * check_duplicates' constant-memory passes. */
#define LOCAL_KEYS 8

typedef struct key_rec {
    uint32_t begin;      /* the key's text (quotes excluded) */
    uint32_t len_esc;    /* its length << 1 | holds an escape */
    uint32_t hash;       /* of the decoded bytes */
} key_rec;

static uint32_t rec_len(const key_rec *r) { return r->len_esc >> 1; }
static int rec_escaped(const key_rec *r) { return (int)(r->len_esc & 1u); }

static uint32_t rec_hash(const afmt_texthdr *hdr, const afmt_texthdr_value *k)
{
    uint32_t h = 2166136261u;
    uint64_t p;
    if (k->escaped)
        return key_hash(hdr, k);
    for (p = k->begin; p < k->end; p++)
        h = (h ^ hdr->text[p]) * 16777619u;
    return h;
}

static void rec_tv(const key_rec *r, afmt_texthdr_value *k)
{
    memset(k, 0, sizeof *k);
    k->kind = AFMT_TV_STRING;
    k->begin = r->begin;
    k->end = (uint64_t)r->begin + rec_len(r);
    k->escaped = rec_escaped(r);
}

/* Order of the sort: hash, then decoded bytes, then text position (so
 * that equal keys end up together, in text order). */
static int rec_cmp(const afmt_texthdr *hdr, const key_rec *x, const key_rec *y)
{
    afmt_texthdr_value a, b;
    int r;
    if (x->hash != y->hash)
        return x->hash < y->hash ? -1 : 1;
    if (x->len_esc == y->len_esc && !rec_escaped(x) &&
        memcmp(hdr->text + x->begin, hdr->text + y->begin, rec_len(x)) == 0)
        r = 0;
    else {
        rec_tv(x, &a);
        rec_tv(y, &b);
        r = afmt_texthdr_str_cmp(hdr, &a, &b);
    }
    if (r)
        return r;
    return x->begin < y->begin ? -1 : x->begin > y->begin;
}

/* Decoded bytes, for keys of unset (equal) hashes too. */
static int rec_bytes_cmp(const afmt_texthdr *hdr, const key_rec *x, const key_rec *y)
{
    afmt_texthdr_value a, b;
    if (!rec_escaped(x) && !rec_escaped(y)) {
        uint32_t lx = rec_len(x), ly = rec_len(y);
        int r = memcmp(hdr->text + x->begin, hdr->text + y->begin, lx < ly ? lx : ly);
        return r ? r : (lx > ly) - (lx < ly);
    }
    rec_tv(x, &a);
    rec_tv(y, &b);
    return afmt_texthdr_str_cmp(hdr, &a, &b);
}

static int rec_equal(const afmt_texthdr *hdr, const key_rec *x, const key_rec *y)
{
    afmt_texthdr_value a, b;
    if (x->hash != y->hash)
        return 0;
    if (!rec_escaped(x) && !rec_escaped(y))
        return x->len_esc == y->len_esc && memcmp(hdr->text + x->begin, hdr->text + y->begin, rec_len(x)) == 0;
    rec_tv(x, &a);
    rec_tv(y, &b);
    return afmt_texthdr_str_cmp(hdr, &a, &b) == 0;
}

static void rec_sift(const afmt_texthdr *hdr, key_rec *v, uint64_t root, uint64_t n)
{
    for (;;) {
        uint64_t c = 2 * root + 1;
        key_rec t;
        if (c >= n) return;
        if (c + 1 < n && rec_cmp(hdr, &v[c], &v[c + 1]) < 0) c++;
        if (rec_cmp(hdr, &v[root], &v[c]) >= 0) return;
        t = v[root]; v[root] = v[c]; v[c] = t;
        root = c;
    }
}

/* Heapsort v[0, n) in place: O(n log n) whatever the keys (keys an input
 * makes collide in the hash only cost byte comparisons), no scratch. */
static void rec_sort(const afmt_texthdr *hdr, key_rec *v, uint64_t n)
{
    uint64_t i;
    key_rec t;
    for (i = n / 2; i-- > 0;)
        rec_sift(hdr, v, i, n);
    for (i = n; i-- > 1;) {
        t = v[0]; v[0] = v[i]; v[i] = t;
        rec_sift(hdr, v, 0, i);
    }
}

/* Keys of one object while it is parsed. */
typedef struct key_set {
    key_rec local[LOCAL_KEYS];
    uint64_t n;       /* keys recorded */
    uint64_t base;    /* where they go in the work area once moved */
    int moved;        /* in the work area */
    int lost;         /* no room: check_duplicates' passes at the end */
    int ascending;    /* every key so far after the one before in byte
                       * order: then they are distinct, whatever the room */
    key_rec prev;     /* the last key (when n > 0) */
} key_set;

static void keys_begin(ctx *c, key_set *ks)
{
    ks->n = 0;
    ks->base = c->work_top;
    ks->moved = 0;
    ks->lost = c->hdr->len > UINT32_MAX / 2; /* offsets and lengths fit 31 bits */
    ks->ascending = !ks->lost;
}

static void keys_add(ctx *c, key_set *ks, const afmt_texthdr_value *k)
{
    key_rec r;
    if (ks->lost && !ks->ascending)
        return;
    r.begin = (uint32_t)k->begin;
    r.len_esc = (uint32_t)((k->end - k->begin) << 1) | (k->escaped ? 1u : 0u);
    r.hash = 0; /* computed if a sort needs it */
    /* Writers often list keys in byte order (the reference's tensors of
     * one type): checked as they come, that needs no room at all. */
    if (ks->ascending && (ks->n || ks->lost) && rec_bytes_cmp(c->hdr, &ks->prev, &r) >= 0)
        ks->ascending = 0;
    ks->prev = r;
    if (ks->lost)
        return;
    if (!ks->moved && ks->n < LOCAL_KEYS) {
        ks->local[ks->n++] = r;
        return;
    }
    if (!ks->moved) {
        if (!c->work || c->work_cap - ks->base < LOCAL_KEYS + 1) {
            ks->lost = 1;
            return;
        }
        memcpy(c->work + ks->base, ks->local, sizeof ks->local);
        c->work_top = ks->base + LOCAL_KEYS;
        ks->moved = 1;
    }
    if (c->work_top >= c->work_cap) {
        ks->lost = 1;
        return;
    }
    c->work[c->work_top++] = r;
    ks->n++;
}

static int fail_duplicate_rec(ctx *c, const key_rec *later, const key_rec *first, int is_map)
{
    afmt_texthdr_value k;
    rec_tv(later, &k);
    return fail_duplicate(c, &k, (uint64_t)first->begin - 1, is_map);
}

/* At the object's end: the first key (in text order) defined before, if
 * any, is the error; the work area is given back either way. */
static int keys_end(ctx *c, key_set *ks, const afmt_texthdr_value *obj, int is_map)
{
    uint64_t i, j, n = ks->n;
    const key_rec *later = NULL, *first = NULL;
    c->work_top = ks->base;
    if (ks->ascending)
        return 0;
    if (ks->lost)
        return check_duplicates(c, obj, is_map);
    if (!ks->moved) {
        for (i = 1; i < n; i++)
            for (j = 0; j < i; j++)
                if (rec_equal(c->hdr, &ks->local[i], &ks->local[j]))
                    return fail_duplicate_rec(c, &ks->local[i], &ks->local[j], is_map);
        return 0;
    }
    {
        key_rec *v = c->work + ks->base;
        /* Writers often list keys in byte order (the reference writes
         * tensors sorted by name): then they are distinct, no sort. */
        for (i = 1; i < n && rec_bytes_cmp(c->hdr, &v[i - 1], &v[i]) < 0; i++)
            ;
        if (i == n)
            return 0;
        for (i = 0; i < n; i++)
            v[i].hash = rec_hash(c->hdr, &(afmt_texthdr_value){.begin = v[i].begin, .end = (uint64_t)v[i].begin + rec_len(&v[i]),
                                                 .escaped = rec_escaped(&v[i]), .kind = AFMT_TV_STRING});
        rec_sort(c->hdr, v, n);
        /* Equal keys are adjacent, in text order: a run's second is a
         * redefinition; the earliest of them is reported. */
        for (i = 1; i < n; i++)
            if (rec_equal(c->hdr, &v[i], &v[i - 1]) && (i < 2 || !rec_equal(c->hdr, &v[i - 1], &v[i - 2])) &&
                (!later || v[i].begin < later->begin)) {
                later = &v[i];
                first = &v[i - 1];
            }
        if (later) {
            key_rec l = *later, f = *first;
            return fail_duplicate_rec(c, &l, &f, is_map);
        }
    }
    return 0;
}

uint64_t afmt_texthdr_work_size(const uint8_t *text, uint64_t len)
{
    uint64_t i, colons = 0;
    for (i = 0; i < len; i++)
        colons += text[i] == ':';
    /* Every key has its ':' and is recorded once, sorted in place. */
    return (colons + LOCAL_KEYS + 1) * sizeof(key_rec);
}

/* ------------------------------------------------------------ values */

static int parse_value(ctx *c, uint64_t pos, unsigned depth, afmt_texthdr_value *v);


/* Object, list or tuple starting at the bracket text[pos]. */
static int parse_container(ctx *c, uint64_t pos, unsigned depth, afmt_texthdr_value *v)
{
    const afmt_texthdr *hdr = c->hdr;
    uint8_t open = hdr->text[pos];
    uint8_t close = open == '{' ? '}' : open == '[' ? ']' : ')';
    int object = open == '{';
    uint64_t p, n = 0;
    int trailing_comma = 0;
    uint64_t comma = 0;
    char buf[16];
    key_set keys;

    v->kind = object ? AFMT_TV_OBJECT : open == '[' ? AFMT_TV_LIST : AFMT_TV_TUPLE;
    v->begin = pos;
    v->u = 0;
    v->negative = 0;
    v->escaped = 0;
    if (c->check && depth + 1 > c->max_depth)
        return fail(c, AFMT_E_LIMIT, pos, "values nested deeper than %u levels (limits.max_depth)", c->max_depth);
    if (c->check && object)
        keys_begin(c, &keys);
    p = skip_ws(hdr, pos + 1);
    for (;;) {
        afmt_texthdr_value key, val;
        if (p < hdr->len && hdr->text[p] == close) {
            /* JSON has no trailing comma; Python allows one, except in an
             * empty container. */
            if (c->check && trailing_comma && !is_py(hdr))
                return fail(c, AFMT_E_VALUE, comma, "a comma before '%c'", close);
            break;
        }
        if (c->check && n > 0 && !trailing_comma)
            return fail(c, AFMT_E_VALUE, p, "expected ',' or '%c', found %s", close,
                        describe_at(hdr, p, buf, sizeof buf));
        if (c->check && hdr->max_entries && n >= hdr->max_entries)
            return fail(c, AFMT_E_LIMIT, p, "more than %" PRIu64 " entries in one %s (limits.max_items)",
                        hdr->max_entries, object ? "object" : "list");
        if (p >= hdr->len)
            return fail(c, AFMT_E_VALUE, p, "expected a value or '%c', found the end of the header", close);
        if (object) {
            if (hdr->text[p] != '"' && !(is_py(hdr) && hdr->text[p] == '\''))
                return fail(c, AFMT_E_VALUE, p, "expected a string key or '}', found %s",
                            describe_at(hdr, p, buf, sizeof buf));
            if (parse_string(c, p, &key) != 0)
                return -1;
            p = skip_ws(hdr, key.end + 1);
            if (c->check && (p >= hdr->len || hdr->text[p] != ':')) {
                afmt_texthdr_path_key(&c->path, &key, map_depth(hdr, depth));
                return fail(c, AFMT_E_VALUE, p, "expected ':' after the key, found %s",
                            describe_at(hdr, p, buf, sizeof buf));
            }
            p = skip_ws(hdr, p + 1);
            if (c->check) {
                afmt_texthdr_path_key(&c->path, &key, map_depth(hdr, depth));
                keys_add(c, &keys, &key);
            }
        } else if (c->check) {
            afmt_texthdr_path_index(&c->path, n);
        }
        if (parse_value(c, p, depth + 1, &val) != 0)
            return -1;
        if (c->check)
            afmt_texthdr_path_pop(&c->path);
        n++;
        p = skip_ws(hdr, val.kind == AFMT_TV_STRING ? val.end + 1 : val.end);
        trailing_comma = 0;
        if (p < hdr->len && hdr->text[p] == ',') {
            trailing_comma = 1;
            comma = p;
            p = skip_ws(hdr, p + 1);
        } else if (c->check && (p >= hdr->len || hdr->text[p] != close)) {
            return fail(c, AFMT_E_VALUE, p, "expected ',' or '%c', found %s", close,
                        describe_at(hdr, p, buf, sizeof buf));
        }
    }
    if (c->check && open == '(' && n == 1 && !trailing_comma)
        return fail(c, AFMT_E_VALUE, pos, "a tuple of one element is written (x,)");
    v->end = p + 1;
    v->count = n;
    if (c->check && object)
        return keys_end(c, &keys, v, map_depth(hdr, depth));
    return 0;
}

static int parse_value(ctx *c, uint64_t pos, unsigned depth, afmt_texthdr_value *v)
{
    const afmt_texthdr *hdr = c->hdr;
    uint8_t b;
    char buf[16];

    if (pos >= hdr->len)
        return fail(c, AFMT_E_VALUE, pos, "expected a value, found the end of the header");
    b = hdr->text[pos];
    if (b == '{' || b == '[' || (b == '(' && is_py(hdr)))
        return parse_container(c, pos, depth, v);
    if (b == '"' || (b == '\'' && is_py(hdr)))
        return parse_string(c, pos, v);
    if (b == '-' || (b >= '0' && b <= '9'))
        return parse_int(c, pos, v);
    if ((b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z'))
        return parse_word(c, pos, v);
    return fail(c, AFMT_E_VALUE, pos, "expected a value, found %s", describe_at(hdr, pos, buf, sizeof buf));
}

/* End of a value's text (strings: after the closing quote). */
static uint64_t value_end(const afmt_texthdr_value *v)
{
    return v->kind == AFMT_TV_STRING ? v->end + 1 : v->end;
}

int afmt_texthdr_parse(const afmt_texthdr *hdr, uint64_t from, afmt_texthdr_value *root, const afmt_path *outer,
                  afmt_error *err)
{
    ctx c;
    memset(&c, 0, sizeof c);
    c.hdr = hdr;
    c.outer = outer;
    c.err = err;
    c.check = 1;
    c.max_depth = hdr->max_depth && hdr->max_depth <= AFMT_TEXTHDR_DEPTH_CAP ? hdr->max_depth : AFMT_TEXTHDR_DEPTH_CAP;
    if (hdr->work && hdr->work_size >= sizeof(key_rec)) {
        c.work = (key_rec *)hdr->work;
        c.work_cap = hdr->work_size / sizeof(key_rec);
    }
    if (parse_value(&c, skip_ws(hdr, from), 0, root) != 0)
        return -1;
    /* Callers continue after the value: report strings' end past the quote
     * through root->end only for containers and scalars they read. */
    return 0;
}

/* ------------------------------------------------------------ skimming */

/* Lookups and iteration read text afmt_texthdr_parse has validated, so they
 * only need where each value ends: a container is skimmed byte by byte
 * for its matching bracket (strings skipped whole, separators at its own
 * level counted), never parsed value by value, so reading an entry costs
 * its length once whatever it nests. */
enum { SK_OTHER = 0, SK_SPACE, SK_QUOTE, SK_OPEN, SK_CLOSE, SK_COMMA, SK_COLON };

static const uint8_t skim_class[256] = {
    [' '] = SK_SPACE, ['\t'] = SK_SPACE, ['\n'] = SK_SPACE, ['\r'] = SK_SPACE,
    ['\f'] = SK_SPACE, ['\v'] = SK_SPACE,
    ['"'] = SK_QUOTE, ['\''] = SK_QUOTE,
    ['{'] = SK_OPEN, ['['] = SK_OPEN, ['('] = SK_OPEN,
    ['}'] = SK_CLOSE, [']'] = SK_CLOSE, [')'] = SK_CLOSE,
    [','] = SK_COMMA, [':'] = SK_COLON,
};

/* Past the closing quote of the string whose opening quote is text[pos];
 * *escaped set when it holds a backslash. */
static uint64_t skim_string(const afmt_texthdr *hdr, uint64_t pos, int *escaped)
{
    const uint8_t *t = hdr->text;
    uint8_t q = t[pos];
    uint64_t p = pos + 1;
    while (p < hdr->len && t[p] != q) {
        if (t[p] == '\\') {
            *escaped = 1;
            p++; /* validated: the escaped byte is never the closing quote */
        }
        p++;
    }
    return p + 1;
}

static void skim_value(const afmt_texthdr *hdr, uint64_t pos, afmt_texthdr_value *v)
{
    const uint8_t *t = hdr->text;
    uint8_t b = pos < hdr->len ? t[pos] : 0;
    uint64_t p;

    memset(v, 0, sizeof *v);
    v->begin = pos;
    if (b == '"' || b == '\'') {
        v->kind = AFMT_TV_STRING;
        v->begin = pos + 1;
        v->end = skim_string(hdr, pos, &v->escaped) - 1;
        return;
    }
    if (b == '{' || b == '[' || b == '(') {
        uint64_t depth = 0, commas = 0;
        int pending = 0; /* a value at our level since the last comma */
        int dummy;
        v->kind = b == '{' ? AFMT_TV_OBJECT : b == '[' ? AFMT_TV_LIST : AFMT_TV_TUPLE;
        for (p = pos; p < hdr->len; p++) {
            switch (skim_class[t[p]]) {
            case SK_SPACE:
            case SK_COLON:
                break;
            case SK_QUOTE:
                p = skim_string(hdr, p, &dummy) - 1;
                pending |= depth == 1;
                break;
            case SK_OPEN:
                pending |= depth == 1;
                depth++;
                break;
            case SK_CLOSE:
                if (--depth == 0) {
                    v->end = p + 1;
                    v->count = commas + (uint64_t)pending;
                    return;
                }
                break;
            case SK_COMMA:
                if (depth == 1) {
                    commas++;
                    pending = 0;
                }
                break;
            default:
                pending |= depth == 1;
                break;
            }
        }
        v->end = hdr->len; /* not reached for validated text */
        v->count = commas + (uint64_t)pending;
        return;
    }
    if (b == '-' || (b >= '0' && b <= '9')) {
        uint64_t u = 0;
        p = pos + (b == '-');
        while (p < hdr->len && t[p] >= '0' && t[p] <= '9')
            u = u * 10 + (uint64_t)(t[p++] - '0');
        v->kind = AFMT_TV_INT;
        v->end = p;
        v->u = u;
        v->negative = b == '-' && u != 0;
        return;
    }
    p = pos;
    while (p < hdr->len && is_ident_byte(t[p]))
        p++;
    v->kind = AFMT_TV_BOOL;
    v->end = p;
    v->u = b == 't' || b == 'T';
}

/* ------------------------------------------------------------ access */

void afmt_texthdr_iter_begin(const afmt_texthdr *hdr, const afmt_texthdr_value *container, afmt_texthdr_iter *it)
{
    (void)hdr;
    it->pos = container->begin + 1;
    it->index = 0;
    it->done = 0;
    it->count = container->kind == AFMT_TV_OBJECT || container->kind == AFMT_TV_LIST ||
                        container->kind == AFMT_TV_TUPLE
                    ? container->count
                    : 0;
    it->object = container->kind == AFMT_TV_OBJECT;
}

static int is_close(uint8_t b) { return b == '}' || b == ']' || b == ')'; }

/* The next entry's key and where its value starts, or 0 at the end (the
 * iterator then past the closing bracket, once). */
static int next_head(const afmt_texthdr *hdr, afmt_texthdr_iter *it, afmt_texthdr_value *key, uint64_t *at)
{
    uint64_t p;
    if (it->done)
        return 0;
    p = skip_ws(hdr, it->pos);
    if (it->index >= it->count || (p < hdr->len && is_close(hdr->text[p]))) {
        /* validated text: only white space before the bracket */
        it->pos = p < hdr->len ? p + 1 : p;
        it->done = 1;
        return 0;
    }
    if (it->object) {
        afmt_texthdr_value k;
        skim_value(hdr, p, &k);
        if (key)
            *key = k;
        p = skip_ws(hdr, k.end + 1);
        p = skip_ws(hdr, p + 1); /* the ':' */
    }
    *at = p;
    return 1;
}

void afmt_texthdr_iter_resume(const afmt_texthdr *hdr, afmt_texthdr_iter *it, uint64_t end)
{
    uint64_t p = skip_ws(hdr, end);
    if (p < hdr->len && hdr->text[p] == ',')
        p++;
    it->pos = p;
    it->index++;
}

int afmt_texthdr_next(const afmt_texthdr *hdr, afmt_texthdr_iter *it, afmt_texthdr_value *key, afmt_texthdr_value *val)
{
    uint64_t p;
    if (!next_head(hdr, it, key, &p))
        return 0;
    skim_value(hdr, p, val);
    afmt_texthdr_iter_resume(hdr, it, value_end(val));
    return 1;
}

int afmt_texthdr_next_shallow(const afmt_texthdr *hdr, afmt_texthdr_iter *it, afmt_texthdr_value *key, afmt_texthdr_value *val)
{
    uint64_t p;
    if (!next_head(hdr, it, key, &p))
        return 0;
    if (p < hdr->len && (hdr->text[p] == '{' || hdr->text[p] == '[' || hdr->text[p] == '(')) {
        memset(val, 0, sizeof *val);
        val->kind = hdr->text[p] == '{' ? AFMT_TV_OBJECT : hdr->text[p] == '[' ? AFMT_TV_LIST : AFMT_TV_TUPLE;
        val->begin = p;
        val->count = AFMT_TV_COUNT_UNKNOWN;
        it->pos = p;
        return 1;
    }
    skim_value(hdr, p, val);
    afmt_texthdr_iter_resume(hdr, it, value_end(val));
    return 1;
}

void afmt_texthdr_finish(const afmt_texthdr *hdr, afmt_texthdr_iter *it, afmt_texthdr_value *val)
{
    skim_value(hdr, val->begin, val);
    afmt_texthdr_iter_resume(hdr, it, value_end(val));
}

int afmt_texthdr_get(const afmt_texthdr *hdr, const afmt_texthdr_value *obj, const char *key, afmt_texthdr_value *out)
{
    afmt_texthdr_iter it;
    afmt_texthdr_value k, v;
    if (obj->kind != AFMT_TV_OBJECT)
        return 0;
    afmt_texthdr_iter_begin(hdr, obj, &it);
    while (afmt_texthdr_next(hdr, &it, &k, &v))
        if (afmt_texthdr_str_eq(hdr, &k, key)) {
            *out = v;
            return 1;
        }
    return 0;
}

int afmt_texthdr_str_eq(const afmt_texthdr *hdr, const afmt_texthdr_value *s, const char *lit)
{
    uint64_t p = s->begin;
    size_t i = 0, n;
    if (!s->escaped) {
        /* most comparisons fail at the first byte: no strlen for them */
        if (s->end == s->begin)
            return lit[0] == '\0';
        if (hdr->text[s->begin] != (uint8_t)lit[0])
            return 0;
        n = strlen(lit);
        return s->end - s->begin == n && memcmp(hdr->text + s->begin, lit, n) == 0;
    }
    n = strlen(lit);
    while (p < s->end) {
        uint8_t u[4];
        unsigned k = next_unit(hdr, &p, s->end, u), j;
        for (j = 0; j < k; j++, i++)
            if (i >= n || (uint8_t)lit[i] != u[j])
                return 0;
    }
    return i == n;
}

int afmt_texthdr_str_cmp(const afmt_texthdr *hdr, const afmt_texthdr_value *a, const afmt_texthdr_value *b)
{
    uint64_t pa = a->begin, pb = b->begin;
    uint8_t ua[4], ub[4];
    unsigned na = 0, nb = 0, ia = 0, ib = 0;

    if (!a->escaped && !b->escaped) {
        uint64_t la = a->end - a->begin, lb = b->end - b->begin;
        int r = memcmp(hdr->text + a->begin, hdr->text + b->begin, la < lb ? la : lb);
        if (r) return r;
        return la < lb ? -1 : la > lb;
    }
    for (;;) {
        if (ia == na) { na = pa < a->end ? next_unit(hdr, &pa, a->end, ua) : 0; ia = 0; }
        if (ib == nb) { nb = pb < b->end ? next_unit(hdr, &pb, b->end, ub) : 0; ib = 0; }
        if (na == 0 || nb == 0)
            return na == 0 && nb == 0 ? 0 : na == 0 ? -1 : 1;
        if (ua[ia] != ub[ib])
            return ua[ia] < ub[ib] ? -1 : 1;
        ia++;
        ib++;
    }
}

uint64_t afmt_texthdr_str_copy(const afmt_texthdr *hdr, const afmt_texthdr_value *s, char *out, size_t out_size)
{
    uint64_t p = s->begin, len = 0;
    while (p < s->end) {
        uint8_t u[4];
        unsigned k = next_unit(hdr, &p, s->end, u), j;
        for (j = 0; j < k; j++, len++)
            if (out_size && len < out_size - 1)
                out[len] = (char)u[j];
    }
    if (out_size)
        out[len < out_size - 1 ? len : out_size - 1] = '\0';
    return len;
}

int afmt_texthdr_as_i64(const afmt_texthdr_value *v, int64_t *out)
{
    if (v->kind != AFMT_TV_INT)
        return -1;
    if (v->negative) {
        if (v->u > (uint64_t)1 << 63)
            return -1;
        *out = v->u == (uint64_t)1 << 63 ? INT64_MIN : -(int64_t)v->u;
        return 0;
    }
    if (v->u > (uint64_t)INT64_MAX)
        return -1;
    *out = (int64_t)v->u;
    return 0;
}

int afmt_texthdr_as_u64(const afmt_texthdr_value *v, uint64_t *out)
{
    if (v->kind != AFMT_TV_INT || v->negative)
        return -1;
    *out = v->u;
    return 0;
}

const char *afmt_tv_kind_name(afmt_tv_kind kind)
{
    switch (kind) {
    case AFMT_TV_OBJECT: return "an object";
    case AFMT_TV_LIST: return "a list";
    case AFMT_TV_TUPLE: return "a tuple";
    case AFMT_TV_STRING: return "a string";
    case AFMT_TV_INT: return "an integer";
    case AFMT_TV_BOOL: return "a boolean";
    default: return "nothing";
    }
}

/* ------------------------------------------------------------ paths */

void afmt_texthdr_path_key(afmt_texthdr_path *p, const afmt_texthdr_value *key, int is_map)
{
    if (p->depth < AFMT_TEXTHDR_DEPTH_CAP) {
        afmt_texthdr_seg *s = &p->seg[p->depth];
        s->is_index = 0;
        s->is_map = is_map;
        s->key = *key;
        s->index = 0;
    }
    p->depth++;
}

void afmt_texthdr_path_index(afmt_texthdr_path *p, uint64_t index)
{
    if (p->depth < AFMT_TEXTHDR_DEPTH_CAP) {
        afmt_texthdr_seg *s = &p->seg[p->depth];
        s->is_index = 1;
        s->is_map = 0;
        memset(&s->key, 0, sizeof s->key);
        s->index = index;
    }
    p->depth++;
}

void afmt_texthdr_path_pop(afmt_texthdr_path *p)
{
    if (p->depth > 0)
        p->depth--;
}

typedef struct outbuf {
    char *p;
    size_t cap, len;
} outbuf;

static void ob_put(outbuf *b, const char *s, size_t n)
{
    if (!b->cap) return;
    while (n-- && b->len + 1 < b->cap)
        b->p[b->len++] = *s++;
    b->p[b->len] = '\0';
}

static void ob_str(outbuf *b, const char *s) { ob_put(b, s, strlen(s)); }

/* A key for a path: at most 48 decoded bytes, printable ASCII and UTF-8 as
 * is, quotes, backslashes and other bytes escaped. */
static void render_key(const afmt_texthdr *hdr, const afmt_texthdr_value *k, outbuf *b, int bracket)
{
    uint64_t p = k->begin, shown = 0;
    if (bracket) ob_str(b, "[\"");
    else ob_str(b, ".");
    while (p < k->end) {
        uint8_t u[4];
        unsigned n = next_unit(hdr, &p, k->end, u), j;
        if (shown >= 48) { ob_str(b, "..."); break; }
        for (j = 0; j < n; j++, shown++) {
            char tmp[8];
            if (u[j] == '"' || u[j] == '\\') { tmp[0] = '\\'; tmp[1] = (char)u[j]; ob_put(b, tmp, 2); }
            else if (u[j] >= 0x20 && u[j] != 0x7f) ob_put(b, (const char *)&u[j], 1);
            else { snprintf(tmp, sizeof tmp, "\\x%02x", u[j]); ob_str(b, tmp); }
        }
    }
    if (bracket) ob_str(b, "\"]");
}

static int key_is_identifier(const afmt_texthdr *hdr, const afmt_texthdr_value *k)
{
    uint64_t p;
    if (k->escaped || k->end == k->begin) return 0;
    if (hdr->text[k->begin] >= '0' && hdr->text[k->begin] <= '9') return 0;
    for (p = k->begin; p < k->end; p++)
        if (!is_ident_byte(hdr->text[p])) return 0;
    return 1;
}

void afmt_texthdr_path_render(const afmt_texthdr *hdr, const afmt_texthdr_path *path, char *out, size_t out_size)
{
    outbuf b = { out, out_size, 0 };
    unsigned i, depth;
    if (out_size) out[0] = '\0';
    ob_str(&b, hdr->root ? hdr->root : "header");
    if (!path) return;
    depth = path->depth < AFMT_TEXTHDR_DEPTH_CAP ? path->depth : AFMT_TEXTHDR_DEPTH_CAP;
    for (i = 0; i < depth; i++) {
        const afmt_texthdr_seg *s = &path->seg[i];
        if (s->is_index) {
            char tmp[32];
            snprintf(tmp, sizeof tmp, "[%" PRIu64 "]", s->index);
            ob_str(&b, tmp);
        } else {
            render_key(hdr, &s->key, &b, s->is_map || !key_is_identifier(hdr, &s->key));
        }
    }
}
