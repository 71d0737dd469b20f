/* afmt CLI: JSON string escaping and the error object (see json_out.h). */
#include "json_out.h"

#include <string.h>

/* The UTF-8 sequence at s (at most n bytes, s[0] >= 0x80): its length,
 * with *valid set when it is well formed (Unicode's table 3-7: no
 * overlong form, no surrogate, nothing past U+10FFFF); else the length of
 * its maximal subpart, the bytes one U+FFFD replaces (a lead byte and the
 * continuation bytes that could follow it, at least one byte), as
 * Unicode's recommended practice, WHATWG's decoder (JavaScript's
 * TextDecoder, so @huggingface/gguf) and Python do: "\xe3\xa9." is one
 * U+FFFD then ".", not two. */
size_t afmt_cli_utf8_scan(const unsigned char *s, size_t n, int *valid)
{
    unsigned c = s[0], lo = 0x80, hi = 0xbf;
    size_t len, i;

    *valid = 0;
    if (c >= 0xc2 && c <= 0xdf)
        len = 2;
    else if (c >= 0xe0 && c <= 0xef)
        len = 3;
    else if (c >= 0xf0 && c <= 0xf4)
        len = 4;
    else
        return 1;
    /* the second byte's range narrows for E0, ED, F0 and F4 */
    if (c == 0xe0)
        lo = 0xa0;
    else if (c == 0xed)
        hi = 0x9f;
    else if (c == 0xf0)
        lo = 0x90;
    else if (c == 0xf4)
        hi = 0x8f;
    for (i = 1; i < len; i++) {
        if (i >= n || s[i] < lo || s[i] > hi)
            return i;
        lo = 0x80;
        hi = 0xbf;
    }
    *valid = 1;
    return len;
}

/* JSON's two-character escape of c, or NULL when it has none. */
static const char *short_escape(unsigned c)
{
    switch (c) {
    case '"': return "\\\"";
    case '\\': return "\\\\";
    case '\n': return "\\n";
    case '\t': return "\\t";
    case '\r': return "\\r";
    default: return NULL;
    }
}

int afmt_cli_json_str(afmt_cli_buf *b, const char *str, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *s = (const unsigned char *)str;
    size_t i = 0, start = 0, len;
    char esc[7];

    if (afmt_cli_buf_putc(b, '"') != 0)
        return -1;
    while (i < n) {
        unsigned c = s[i];
        const char *rep = NULL;
        size_t replen = 0, skip = 1; /* the bytes rep stands for */

        if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
            i++;
            continue;
        }
        if (c >= 0x80) {
            int valid;
            len = afmt_cli_utf8_scan(s + i, n - i, &valid);
            if (valid) {
                i += len;
                continue;
            }
            rep = "\\ufffd";
            replen = 6;
            skip = len;
        } else if ((rep = short_escape(c)) != NULL) {
            replen = 2;
        } else {
            memcpy(esc, "\\u00", 4);
            esc[4] = hex[c >> 4];
            esc[5] = hex[c & 15];
            esc[6] = '\0';
            rep = esc;
            replen = 6;
        }
        if (afmt_cli_buf_put(b, s + start, i - start) != 0 ||
            afmt_cli_buf_put(b, rep, replen) != 0)
            return -1;
        i += skip;
        start = i;
    }
    if (afmt_cli_buf_put(b, s + start, n - start) != 0)
        return -1;
    return afmt_cli_buf_putc(b, '"');
}

int afmt_cli_json_cstr(afmt_cli_buf *b, const char *s)
{
    return afmt_cli_json_str(b, s, strlen(s));
}

/* Is s[0..n) UTF-8 through and through? */
static int is_utf8(const unsigned char *s, size_t n)
{
    size_t i = 0;

    while (i < n) {
        int valid = 1;
        i += s[i] < 0x80 ? 1 : afmt_cli_utf8_scan(s + i, n - i, &valid);
        if (!valid)
            return 0;
    }
    return 1;
}

/* RFC 4648 base64 (with padding) of s[0..n). */
static int put_base64(afmt_cli_buf *b, const unsigned char *s, size_t n)
{
    static const char digits[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t i;

    for (i = 0; i < n; i += 3) {
        unsigned v = (unsigned)s[i] << 16;
        char q[4];
        if (i + 1 < n)
            v |= (unsigned)s[i + 1] << 8;
        if (i + 2 < n)
            v |= s[i + 2];
        q[0] = digits[v >> 18];
        q[1] = digits[(v >> 12) & 63];
        q[2] = i + 1 < n ? digits[(v >> 6) & 63] : '=';
        q[3] = i + 2 < n ? digits[v & 63] : '=';
        if (afmt_cli_buf_put(b, q, 4) != 0)
            return -1;
    }
    return 0;
}

int afmt_cli_json_path(afmt_cli_buf *b, const char *path)
{
    size_t n = strlen(path);

    afmt_cli_buf_puts(b, "\"path\":");
    afmt_cli_json_str(b, path, n);
    if (is_utf8((const unsigned char *)path, n))
        return 0;
    afmt_cli_buf_puts(b, ",\"path_bytes\":\"");
    put_base64(b, (const unsigned char *)path, n);
    return afmt_cli_buf_putc(b, '"');
}

int afmt_cli_json_error(afmt_cli_buf *b, const afmt_error *err)
{
    afmt_cli_buf_puts(b, "{\"code\":");
    afmt_cli_json_cstr(b, afmt_code_name(err->code));
    afmt_cli_buf_puts(b, ",\"offset\":");
    if (err->offset == AFMT_NO_OFFSET)
        afmt_cli_buf_puts(b, "null"); /* an error about no byte of the input */
    else
        afmt_cli_buf_u64(b, err->offset);
    afmt_cli_buf_puts(b, ",\"field\":");
    afmt_cli_json_str(b, err->field, strnlen(err->field, sizeof err->field));
    afmt_cli_buf_puts(b, ",\"message\":");
    afmt_cli_json_str(b, err->message, strnlen(err->message, sizeof err->message));
    return afmt_cli_buf_putc(b, '}');
}
