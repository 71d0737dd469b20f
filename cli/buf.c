/* afmt CLI: a growable byte buffer (see buf.h). */
#include "buf.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void afmt_cli_buf_init(afmt_cli_buf *b)
{
    b->p = NULL;
    b->len = 0;
    b->cap = 0;
    b->oom = 0;
}

void afmt_cli_buf_free(afmt_cli_buf *b)
{
    free(b->p);
    afmt_cli_buf_init(b);
}

void afmt_cli_buf_reset(afmt_cli_buf *b, size_t keep)
{
    if (b->cap > keep) {
        free(b->p);
        b->p = NULL;
        b->cap = 0;
    }
    b->len = 0;
    b->oom = 0;
    if (b->p)
        b->p[0] = '\0';
}

int afmt_cli_buf_reserve(afmt_cli_buf *b, size_t n)
{
    size_t need, cap;
    char *p;

    if (n > SIZE_MAX - 1 - b->len) {
        b->oom = 1;
        return -1;
    }
    need = b->len + n + 1; /* room for a NUL */
    if (need <= b->cap)
        return 0;
    cap = b->cap ? b->cap : 256;
    while (cap < need)
        cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    p = realloc(b->p, cap);
    if (!p) {
        b->oom = 1;
        return -1;
    }
    b->p = p;
    b->cap = cap;
    return 0;
}

int afmt_cli_buf_put(afmt_cli_buf *b, const void *p, size_t n)
{
    if (afmt_cli_buf_reserve(b, n) != 0)
        return -1;
    if (n)
        memcpy(b->p + b->len, p, n);
    b->len += n;
    b->p[b->len] = '\0';
    return 0;
}

int afmt_cli_buf_puts(afmt_cli_buf *b, const char *s)
{
    return afmt_cli_buf_put(b, s, strlen(s));
}

int afmt_cli_buf_putc(afmt_cli_buf *b, char c)
{
    return afmt_cli_buf_put(b, &c, 1);
}

int afmt_cli_buf_printf(afmt_cli_buf *b, const char *fmt, ...)
{
    va_list ap;
    int n;
    size_t room;

    /* Try in the free space first; most lines fit. */
    if (afmt_cli_buf_reserve(b, 128) != 0)
        return -1;
    room = b->cap - b->len;
    va_start(ap, fmt);
    n = vsnprintf(b->p + b->len, room, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->p[b->len] = '\0';
        return -1;
    }
    if ((size_t)n >= room) {
        if (afmt_cli_buf_reserve(b, (size_t)n) != 0) {
            b->p[b->len] = '\0';
            return -1;
        }
        va_start(ap, fmt);
        vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
        va_end(ap);
    }
    b->len += (size_t)n;
    return 0;
}

int afmt_cli_buf_u64(afmt_cli_buf *b, uint64_t v)
{
    char tmp[24];
    int n = snprintf(tmp, sizeof tmp, "%" PRIu64, v);
    return afmt_cli_buf_put(b, tmp, (size_t)n);
}

int afmt_cli_buf_put_escaped(afmt_cli_buf *b, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    size_t i, start = 0;
    char esc[4];

    for (i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c > 0x20 && c < 0x7f && c != '\\')
            continue;
        if (afmt_cli_buf_put(b, s + start, i - start) != 0)
            return -1;
        esc[0] = '\\';
        esc[1] = 'x';
        esc[2] = hex[c >> 4];
        esc[3] = hex[c & 15];
        if (afmt_cli_buf_put(b, esc, 4) != 0)
            return -1;
        start = i + 1;
    }
    return afmt_cli_buf_put(b, s + start, n - start);
}
