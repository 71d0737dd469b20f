/* afmt runtime: filling and formatting afmt_error.
 *
 * Nothing here prints: errors are data the caller decides what to do with.
 * Every string operation is bounded by the fixed array sizes of afmt_error,
 * and a name too long for its slot is truncated, never overflowed.
 */
#include "afmt_error.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char *const code_names[AFMT_CODE_COUNT_] = {
    "ok", "truncated", "magic", "constraint", "unknown-type", "overflow",
    "limit", "trailing", "padding", "value", "size", "negative",
    "unsupported", "io", "usage", "nomem", "type", "lossy", "detect",
    "callback", "divzero",
};

const char *afmt_code_name(afmt_code code)
{
    /* The enum may be signed or unsigned depending on the compiler. */
    if ((int)code < 0 || (int)code >= (int)AFMT_CODE_COUNT_)
        return "invalid";
    return code_names[code];
}

void afmt_error_clear(afmt_error *err)
{
    if (err)
        memset(err, 0, sizeof *err);
}

/* A bounded string builder: appends until the slot is full, then drops the
 * rest while keeping the result NUL-terminated. */
typedef struct strbuf {
    char *p;
    size_t cap; /* including the NUL */
    size_t len;
} strbuf;

static void sb_puts(strbuf *b, const char *s)
{
    size_t n = strlen(s);
    size_t room = b->cap - 1 - b->len;
    if (n > room)
        n = room;
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

/* "[index]": by hand, since every failure naming an element comes here
 * and snprintf was most of the cost of filling an error (fuzzing, where
 * nearly every input fails, measured it). */
static void sb_index(strbuf *b, uint64_t index)
{
    char tmp[24];
    size_t k = sizeof tmp;

    tmp[--k] = '\0';
    tmp[--k] = ']';
    do {
        tmp[--k] = (char)('0' + index % 10);
        index /= 10;
    } while (index);
    tmp[--k] = '[';
    sb_puts(b, tmp + k);
}

static void build_field(char *out, size_t out_size, const afmt_path *path,
                        const char *field, uint64_t index)
{
    strbuf b = { out, out_size, 0 };
    unsigned depth, i;
    int any = 0;

    out[0] = '\0';
    if (path) {
        /* Segments pushed beyond the fixed depth were never stored. */
        depth = path->depth < AFMT_PATH_DEPTH ? path->depth : AFMT_PATH_DEPTH;
        for (i = 0; i < depth; i++) {
            if (any)
                sb_puts(&b, ".");
            sb_puts(&b, path->seg[i].name ? path->seg[i].name : "?");
            if (path->seg[i].index != AFMT_NO_INDEX)
                sb_index(&b, path->seg[i].index);
            any = 1;
        }
    }
    if (field && field[0]) {
        if (any)
            sb_puts(&b, ".");
        sb_puts(&b, field);
    }
    if (index != AFMT_NO_INDEX)
        sb_index(&b, index);
}

void afmt_path_describe(const afmt_path *path, const char *field, uint64_t index,
                        char *out, size_t out_size)
{
    if (out && out_size)
        build_field(out, out_size, path, field, index);
}

int afmt_failv(afmt_error *err, afmt_code code, const afmt_path *path, const char *field,
               uint64_t index, uint64_t offset, const char *fmt, va_list ap)
{
    if (!err)
        return -1;
    /* err->format is kept: validators set it once, before any failure. */
    err->code = code;
    err->offset = offset;
    build_field(err->field, sizeof err->field, path, field, index);
    err->message[0] = '\0';
    if (fmt)
        vsnprintf(err->message, sizeof err->message, fmt, ap);
    return -1;
}

int afmt_fail(afmt_error *err, afmt_code code, const afmt_path *path,
              const char *field, uint64_t index, uint64_t offset,
              const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    afmt_failv(err, code, path, field, index, offset, fmt, ap);
    va_end(ap);
    return -1;
}

int afmt_fail_overflow(afmt_error *err, const afmt_path *path, const char *field,
                       uint64_t index, uint64_t offset, const char *expr_text)
{
    return afmt_fail(err, AFMT_E_OVERFLOW, path, field, index, offset,
                     "`%s` overflows 64 bits", expr_text);
}

int afmt_error_reblame(afmt_error *err, const afmt_path *path, const char *field,
                       uint64_t index, uint64_t offset)
{
    char own[sizeof err->field];

    if (!err)
        return -1;
    if (field) { /* it may be err->field, which build_field overwrites */
        strbuf b = { own, sizeof own, 0 };
        own[0] = '\0';
        sb_puts(&b, field);
        field = own;
    }
    err->offset = offset;
    build_field(err->field, sizeof err->field, path, field, index);
    return -1;
}

int afmt_error_within(afmt_error *err, const char *name, uint64_t index)
{
    afmt_path path;

    if (!err)
        return -1;
    path.depth = 1;
    path.seg[0].name = name;
    path.seg[0].index = index;
    return afmt_error_reblame(err, &path, err->field, AFMT_NO_INDEX, err->offset);
}

void afmt_error_set_format(afmt_error *err, const char *format)
{
    strbuf b;

    if (!err)
        return;
    b.p = err->format;
    b.cap = sizeof err->format;
    b.len = 0;
    err->format[0] = '\0';
    if (format)
        sb_puts(&b, format);
}

int afmt_error_describe(const afmt_error *err, char *out, size_t out_size)
{
    if (!err)
        return snprintf(out, out_size, "(no error)");
    /* The struct may have been filled by hand: never read past its arrays. */
    if (err->offset == AFMT_NO_OFFSET) {
        if (err->field[0])
            return snprintf(out, out_size, "%.*s: %.*s", (int)sizeof err->field, err->field,
                            (int)sizeof err->message, err->message);
        return snprintf(out, out_size, "%.*s", (int)sizeof err->message, err->message);
    }
    if (err->field[0])
        return snprintf(out, out_size, "%.*s at offset %" PRIu64 ": %.*s",
                        (int)sizeof err->field, err->field, err->offset,
                        (int)sizeof err->message, err->message);
    return snprintf(out, out_size, "offset %" PRIu64 ": %.*s", err->offset,
                    (int)sizeof err->message, err->message);
}
