/* afmt-gen: allocation and string-building helpers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util.h"

static void oom(void)
{
    fputs("afmt-gen: out of memory\n", stderr);
    exit(2);
}

void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) oom();
    return p;
}

char *xstrdup(const char *s)
{
    size_t n = strlen(s);
    char *d = malloc(n + 1);
    if (!d) oom();
    memcpy(d, s, n + 1);
    return d;
}

/* Formatted into a buffer of a guess first, formatted again only when
 * it was too small: one pass for most of what afmt-gen prints (a sizing
 * pass of every line was half its time). */
char *xvprintf(const char *fmt, va_list ap)
{
    va_list ap2;
    int n;
    char *s = malloc(256);
    if (!s) oom();
    va_copy(ap2, ap);
    n = vsnprintf(s, 256, fmt, ap2);
    va_end(ap2);
    if (n < 0) oom();
    if (n >= 256) {
        free(s);
        s = malloc((size_t)n + 1);
        if (!s) oom();
        vsnprintf(s, (size_t)n + 1, fmt, ap);
    }
    return s;
}

char *xprintf(const char *fmt, ...)
{
    va_list ap;
    char *s;
    va_start(ap, fmt);
    s = xvprintf(fmt, ap);
    va_end(ap);
    return s;
}

static void sb_reserve(sbuf *b, size_t more)
{
    if (b->len + more + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 1024;
        char *n;
        while (cap < b->len + more + 1) cap *= 2;
        n = realloc(b->s, cap);
        if (!n) oom();
        b->s = n;
        b->cap = cap;
    }
}

void sb_puts(sbuf *b, const char *s)
{
    size_t n = strlen(s);
    sb_reserve(b, n);
    memcpy(b->s + b->len, s, n + 1);
    b->len += n;
}

void fixed_printf(char *dst, size_t cap, const char *fmt, ...)
{
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(dst, cap, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= cap) {
        fprintf(stderr, "afmt-gen: internal error: a generated C text of %d characters exceeds its buffer of %zu "
                        "(\"%.40s...\"); please report it with the spec\n", n, cap, dst);
        exit(2);
    }
}

void str_printf(char **dst, const char *fmt, ...)
{
    va_list ap;
    char *s;
    va_start(ap, fmt);
    s = xvprintf(fmt, ap);
    va_end(ap);
    free(*dst);
    *dst = s;
}

/* Formatted straight into b's room (made 256 bytes at least), again
 * only when that was too little (as xvprintf). */
void sb_vprintf(sbuf *b, const char *fmt, va_list ap)
{
    va_list ap2;
    int n;
    size_t room;
    sb_reserve(b, 255);
    room = b->cap - b->len;
    va_copy(ap2, ap);
    n = vsnprintf(b->s + b->len, room, fmt, ap2);
    va_end(ap2);
    if (n < 0) oom();
    if ((size_t)n >= room) {
        sb_reserve(b, (size_t)n);
        vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    }
    b->len += (size_t)n;
}

void sb_printf(sbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(b, fmt, ap);
    va_end(ap);
}

void sb_free(sbuf *b)
{
    free(b->s);
    b->s = NULL;
    b->len = b->cap = 0;
}

int uint_magic_text(uint64_t v, int width, int big, char text[9])
{
    int i;
    if (width < 1 || width > 8) return 0;
    for (i = 0; i < width; i++) {
        const unsigned b = (unsigned)(v >> (8 * (big ? width - 1 - i : i))) & 0xffu;
        if (b < 0x20 || b >= 0x7f || b == '"' || b == '\\' || b == '%') return 0;
        text[i] = (char)b;
    }
    text[width] = 0;
    return 1;
}

char *c_quote(const char *s, size_t n)
{
    sbuf b = {0};
    size_t i;
    int prev_hex = 0;
    sb_puts(&b, "\"");
    for (i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') { sb_printf(&b, "\\%c", c); prev_hex = 0; }
        /* "??" could start a trigraph, which C11 translates (-Wtrigraphs) */
        else if (c == '?' && i > 0 && s[i - 1] == '?') { sb_puts(&b, "\\?"); prev_hex = 0; }
        else if (c >= 0x20 && c < 0x7f && !(prev_hex && ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')))) {
            char t[2] = {(char)c, 0};
            sb_puts(&b, t);
            prev_hex = 0;
        } else if (c >= 0x20 && c < 0x7f) {
            /* a hex escape would swallow this digit: split the literal */
            char t[2] = {(char)c, 0};
            sb_puts(&b, "\"\"");
            sb_puts(&b, t);
            prev_hex = 0;
        } else { sb_printf(&b, "\\x%02x", c); prev_hex = 1; }
    }
    sb_puts(&b, "\"");
    return b.s;
}

void c_comment_fix(char *s)
{
    size_t i;
    for (i = 0; s && s[i]; i++)
        if ((s[i] == '*' && s[i + 1] == '/') || (s[i] == '?' && s[i + 1] == '?')) s[i + 1] = '|';
        else if (s[i] == '/' && s[i + 1] == '*') s[i] = '|';
}

char *c_comment(const char *s)
{
    char *r = xstrdup(s ? s : "");
    c_comment_fix(r);
    return r;
}

/* The prefixes the emitters put before a spec name to name its locals
 * (v_<field>, o_<field>, A_<array>, nbytes_<array>, ...: keep in sync when
 * an emitter adds one), and lk, the one c_lookup_base adds. */
static const char *const LOCAL_PREFIXES[] = {
    "A", "a", "afmt", "AFMT", "arg", "bad", "comments", "compressed", "count", "dir", "dl", "e", "end", "field", "i",
    "len", "lk", "n", "nbytes", "o", "p", "r", "rc", "record", "rows", "s", "scan", "sel", "start", "stored", "tiles",
    "uniq", "uq", "v", "var", "view", "w", "width", "x", NULL};

int c_local_prefixed(const char *name)
{
    int i;
    for (i = 0; LOCAL_PREFIXES[i]; i++) {
        size_t n = strlen(LOCAL_PREFIXES[i]);
        if (strncmp(name, LOCAL_PREFIXES[i], n) == 0 && (name[n] == 0 || name[n] == '_')) return 1;
    }
    return 0;
}

char *c_lookup_base(const char *name)
{
    return c_local_prefixed(name) ? xprintf("lk_%s", name) : xstrdup(name);
}

char *c_format_literal(const char *s)
{
    sbuf b = {0};
    const char *c;
    char *q;
    for (c = s ? s : ""; *c; c++) {
        if (*c == '%') sb_puts(&b, "%%");
        else { char t[2] = {*c, 0}; sb_puts(&b, t); }
    }
    q = c_quote(b.s ? b.s : "", b.len);
    sb_free(&b);
    return q;
}

char *c_format_body(const char *s)
{
    char *q = c_format_literal(s);
    size_t n = strlen(q);
    memmove(q, q + 1, n - 2);
    q[n - 2] = 0;
    return q;
}

char *float_text(double v, int width)
{
    int prec;
    /* the fewest significant digits that read back exactly, as the
     * runtime's afmt_float_text writes them (its messages must agree) */
    for (prec = 1; prec < 17; prec++) {
        char *t = xprintf("%.*g", prec, v);
        if (width == 4 ? (double)strtof(t, NULL) == v : strtod(t, NULL) == v) return t;
        free(t);
    }
    return xprintf("%.17g", v);
}

/* ---- strindex: open addressing, linear probing, at most half full */

static const char strindex_gone[] = "";
#define STRINDEX_GONE strindex_gone

static size_t str_hash(const char *s)
{
    size_t h = 14695981039346656037u;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
}

/* The slot of key, or the empty one where it would go. */
static size_t strindex_slot(const strindex *x, const char *key)
{
    size_t i = str_hash(key) & (x->cap - 1);
    while (x->keys[i] && (x->keys[i] == STRINDEX_GONE || strcmp(x->keys[i], key) != 0)) i = (i + 1) & (x->cap - 1);
    return i;
}

int strindex_get(const strindex *x, const char *key)
{
    size_t i;
    if (x->cap == 0) return -1;
    i = strindex_slot(x, key);
    return x->keys[i] ? x->vals[i] : -1;
}

static void strindex_grow(strindex *x)
{
    strindex bigger = {0};
    size_t i;
    bigger.cap = x->cap ? x->cap * 2 : 64;
    bigger.keys = calloc(bigger.cap, sizeof *bigger.keys);
    bigger.vals = calloc(bigger.cap, sizeof *bigger.vals);
    if (!bigger.keys || !bigger.vals) oom();
    for (i = 0; i < x->cap; i++)
        if (x->keys[i] && x->keys[i] != STRINDEX_GONE) strindex_put(&bigger, x->keys[i], x->vals[i]);
    strindex_free(x);
    *x = bigger;
}

void strindex_put(strindex *x, const char *key, int val)
{
    size_t i;
    if ((x->used + 1) * 2 > x->cap) strindex_grow(x);
    i = strindex_slot(x, key);
    if (!x->keys[i]) { /* a new key (one there keeps its string) */
        x->used++;
        x->keys[i] = key;
    }
    x->vals[i] = val;
}

void strindex_del(strindex *x, const char *key)
{
    size_t i;
    if (x->cap == 0) return;
    i = strindex_slot(x, key);
    if (x->keys[i]) x->keys[i] = STRINDEX_GONE; /* still used: probes pass over it */
}

void strindex_free(strindex *x)
{
    free(x->keys);
    free(x->vals);
    memset(x, 0, sizeof *x);
}
