/* afmt CLI: quoting file names in text output (see quote.h). */
#include "quote.h"

#include <string.h>

#include "json_out.h"

/* The UTF-8 character of len bytes at s (valid): one that moves text
 * across lines or reorders it on screen? */
static int is_hostile_char(const unsigned char *s, size_t len)
{
    if (len == 2)
        return s[0] == 0xc2 && s[1] < 0xa0; /* C1 controls U+0080-U+009F */
    if (len != 3 || s[0] != 0xe2)
        return 0;
    if (s[1] == 0x80)
        return s[2] >= 0xa8 && s[2] <= 0xae; /* U+2028-U+202E */
    return s[1] == 0x81 && s[2] >= 0xa6 && s[2] <= 0xa9; /* U+2066-U+2069 */
}

int afmt_cli_name_needs_quoting(const char *name)
{
    const unsigned char *s = (const unsigned char *)name;
    size_t n = strlen(name), i = 0;

    while (i < n) {
        unsigned c = s[i];
        if (c >= 0x80) {
            int valid;
            size_t len = afmt_cli_utf8_scan(s + i, n - i, &valid);
            if (!valid || is_hostile_char(s + i, len))
                return 1;
            i += len;
            continue;
        }
        if (c < 0x20 || c == 0x7f || c == '"' || c == '\\')
            return 1;
        i++;
    }
    return 0;
}

/* The escape of byte c inside quotes, into out (at most 4 bytes, no NUL):
 * its length. */
static size_t escape_byte(unsigned c, char *out)
{
    static const char shorts[] = "\a\b\t\n\v\f\r";
    static const char letters[] = "abtnvfr";
    const char *hit = c && c < 0x20 ? strchr(shorts, (int)c) : NULL;

    if (hit) {
        out[0] = '\\';
        out[1] = letters[hit - shorts];
        return 2;
    }
    if (c == '"' || c == '\\') {
        out[0] = '\\';
        out[1] = (char)c;
        return 2;
    }
    if (c < 0x20 || c >= 0x7f) {
        out[0] = '\\';
        out[1] = (char)('0' + (c >> 6));
        out[2] = (char)('0' + ((c >> 3) & 7));
        out[3] = (char)('0' + (c & 7));
        return 4;
    }
    out[0] = (char)c;
    return 1;
}

const char *afmt_cli_quote_name(const char *name, char *buf, size_t cap)
{
    const unsigned char *s = (const unsigned char *)name;
    size_t at = 0;

    if (!afmt_cli_name_needs_quoting(name) || cap < 8)
        return name;
    buf[at++] = '"';
    for (; *s; s++) {
        char esc[4];
        size_t k = escape_byte(*s, esc);
        if (at + k + 5 > cap) {
            /* no room for this escape, "...", the quote and the NUL */
            memcpy(buf + at, "...", 3);
            at += 3;
            break;
        }
        memcpy(buf + at, esc, k);
        at += k;
    }
    buf[at++] = '"';
    buf[at] = '\0';
    return buf;
}
