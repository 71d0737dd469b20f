/* afmt CLI: JSON string escaping and the error object (see json_out.h). */
#include "json_out.h"

#include <string.h>

/* Length of the valid UTF-8 sequence at s (at most n bytes), 0 if none. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    size_t len, i;
    unsigned c = s[0];
    uint32_t cp;

    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf) {
        len = 2;
        cp = c & 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
        len = 3;
        cp = c & 0x0f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        len = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    if (len > n)
        return 0;
    for (i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    /* Overlong forms, surrogates and values past U+10FFFF. */
    if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
        (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
        return 0;
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
        size_t replen = 0;

        if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
            i++;
            continue;
        }
        if (c >= 0x80) {
            len = utf8_len(s + i, n - i);
            if (len > 0) {
                i += len;
                continue;
            }
            rep = "\\ufffd";
            replen = 6;
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
        i++;
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
