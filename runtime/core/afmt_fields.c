/* afmt runtime: loops over repeated integer fields and text slots. */
#include <inttypes.h>
#include <string.h>
#include <stdio.h>
#include "../common/afmt_bytes.h"
#include "afmt_fields.h"

uint64_t afmt_field_get(const uint8_t *p, uint64_t i, unsigned width, int big)
{
    const uint8_t *q = p + i * width;
    switch (width) {
    case 1: return q[0];
    case 2: return big ? afmt_load_u16be(q) : afmt_load_u16le(q);
    case 4: return big ? afmt_load_u32be(q) : afmt_load_u32le(q);
    default: return big ? afmt_load_u64be(q) : afmt_load_u64le(q);
    }
}

/* Value as unsigned, or AFMT_E_NEGATIVE for a negative signed element. */
static int field_u(const uint8_t *p, uint64_t i, unsigned width, int is_signed, int big, uint64_t *v)
{
    uint64_t raw = afmt_field_get(p, i, width, big);
    if (is_signed && afmt_as_i64(raw, width * 8) < 0) return AFMT_E_NEGATIVE;
    *v = raw;
    return AFMT_OK;
}

int afmt_field_prod(const uint8_t *p, uint64_t n, unsigned width, int is_signed, int big,
                    uint64_t *out, uint64_t *bad)
{
    uint64_t i, v, acc = 1;
    int zero = 0, overflow = 0;
    for (i = 0; i < n; i++) {
        if (field_u(p, i, width, is_signed, big, &v) != AFMT_OK) { *bad = i; return AFMT_E_NEGATIVE; }
        if (v == 0) zero = 1;
        else if (!overflow && afmt_checked_mul_u64(acc, v, &acc)) overflow = 1;
    }
    if (zero) { *out = 0; return AFMT_OK; }
    if (overflow) return AFMT_E_OVERFLOW;
    *out = acc;
    return AFMT_OK;
}

int afmt_field_sum(const uint8_t *p, uint64_t n, unsigned width, int is_signed, int big,
                   uint64_t *out, uint64_t *bad)
{
    uint64_t i, v, acc = 0;
    for (i = 0; i < n; i++) {
        if (field_u(p, i, width, is_signed, big, &v) != AFMT_OK) { *bad = i; return AFMT_E_NEGATIVE; }
        if (afmt_checked_add_u64(acc, v, &acc)) return AFMT_E_OVERFLOW;
    }
    *out = acc;
    return AFMT_OK;
}

uint64_t afmt_field_unordered(const uint8_t *p, uint64_t n, unsigned width, int is_signed,
                              int big, int strict)
{
    uint64_t i;
    if (n < 2) return n;
    if (width == 8 && !is_signed && !big) {
        /* the common case (CSR row offsets): a tight loop */
        uint64_t prev = afmt_load_u64le(p);
        for (i = 1; i < n; i++) {
            uint64_t v = afmt_load_u64le(p + 8 * i);
            if (v < prev || (strict && v == prev)) return i;
            prev = v;
        }
        return n;
    }
    for (i = 1; i < n; i++) {
        uint64_t a = afmt_field_get(p, i - 1, width, big), b = afmt_field_get(p, i, width, big);
        int lt, eq = a == b;
        if (is_signed) lt = afmt_as_i64(b, width * 8) < afmt_as_i64(a, width * 8);
        else lt = b < a;
        if (lt || (strict && eq)) return i;
    }
    return n;
}

uint64_t afmt_field_unordered_within(const uint8_t *p, uint64_t n, unsigned width, int big,
                                     const uint8_t *seg, uint64_t nseg, unsigned seg_width,
                                     int seg_big)
{
    uint64_t r;
    if (width == 8 && !big && seg_width == 8 && !seg_big) {
        /* the common case (CSR with u64 indices): direct loads, one pass */
        for (r = 0; r + 1 < nseg; r++) {
            uint64_t lo = afmt_load_u64le(seg + 8 * r), hi = afmt_load_u64le(seg + 8 * (r + 1)), i, prev;
            if (hi < lo || hi > n) return lo < n ? lo : 0;
            if (lo == hi) continue;
            prev = afmt_load_u64le(p + 8 * lo);
            for (i = lo + 1; i < hi; i++) {
                uint64_t v = afmt_load_u64le(p + 8 * i);
                if (v <= prev) return i;
                prev = v;
            }
        }
        return n;
    }
    for (r = 0; r + 1 < nseg; r++) {
        uint64_t lo = afmt_field_get(seg, r, seg_width, seg_big);
        uint64_t hi = afmt_field_get(seg, r + 1, seg_width, seg_big);
        uint64_t i;
        if (hi < lo || hi > n) return lo < n ? lo : 0;
        for (i = lo + 1; i < hi; i++)
            if (afmt_field_get(p, i, width, big) <= afmt_field_get(p, i - 1, width, big)) return i;
    }
    return n;
}

int afmt_u64s_prod(const uint64_t *v, uint64_t n, uint64_t *out)
{
    uint64_t i, acc = 1;
    int overflow = 0;
    for (i = 0; i < n; i++) {
        if (v[i] == 0) { *out = 0; return 1; }
        if (!overflow && afmt_checked_mul_u64(acc, v[i], &acc)) overflow = 1;
    }
    if (overflow) return 0;
    *out = acc;
    return 1;
}

int afmt_u64s_sum(const uint64_t *v, uint64_t n, uint64_t *out)
{
    uint64_t i, acc = 0;
    for (i = 0; i < n; i++)
        if (afmt_checked_add_u64(acc, v[i], &acc)) return 0;
    *out = acc;
    return 1;
}

uint64_t afmt_text_slot_check(const uint8_t *p, uint64_t n)
{
    uint64_t i = 0;
    while (i < n && p[i] >= 0x01 && p[i] < 0x80) i++;
    while (i < n && p[i] == 0) i++;
    return i;
}

void afmt_copy_text(char *out, size_t out_size, const uint8_t *p, uint64_t n)
{
    uint64_t i;
    if (out_size == 0) return;
    for (i = 0; i < n && i + 1 < out_size && p[i]; i++) out[i] = (char)p[i];
    out[i] = 0;
}

void afmt_escape_text(const uint8_t *p, uint64_t n, char *out, size_t out_size)
{
    size_t o = 0;
    uint64_t i;
    if (out_size < 3) { if (out_size) out[0] = 0; return; }
    out[o++] = '"';
    for (i = 0; i < n; i++) {
        char tmp[5];
        size_t k, tl;
        if (p[i] >= 0x20 && p[i] < 0x7f && p[i] != '"' && p[i] != '\\') { tmp[0] = (char)p[i]; tl = 1; }
        else { snprintf(tmp, sizeof tmp, "\\x%02x", p[i]); tl = 4; }
        if (o + tl + 2 > out_size) break;
        for (k = 0; k < tl; k++) out[o++] = tmp[k];
    }
    out[o++] = '"';
    out[o] = 0;
}

afmt_bytes_txt afmt_bytes_text(const uint8_t *p, unsigned n)
{
    afmt_bytes_txt t;
    afmt_escape_text(p, n > 8 ? 8 : n, t.s, sizeof t.s);
    return t;
}

int afmt_fail_bytes(afmt_error *err, afmt_code code, const afmt_path *path, const char *field,
                    uint64_t offset, const uint8_t *expected, const uint8_t *found, uint64_t n)
{
    char e[132], f[132];
    uint64_t shown = n > 32 ? 32 : n;
    afmt_escape_text(expected, shown, e, sizeof e);
    afmt_escape_text(found, shown, f, sizeof f);
    return afmt_fail(err, code, path, field, AFMT_NO_INDEX, offset, "expected %s, found %s", e, f);
}

int afmt_text_fill(uint8_t *slot, uint64_t size, const char *text)
{
    uint64_t i;
    for (i = 0; text[i]; i++) {
        if (i >= size || (unsigned char)text[i] >= 0x80) return -1;
        slot[i] = (uint8_t)text[i];
    }
    for (; i < size; i++) slot[i] = 0;
    return 0;
}

int afmt_name_whole(const afmt_array *a, uint64_t index, afmt_error *err)
{
    const char *nul = memchr(a->name, '\0', sizeof a->name);
    size_t kept = nul ? (size_t)(nul - a->name) : sizeof a->name;
    if (a->name_len <= kept)
        return 0;
    return afmt_fail(err, AFMT_E_TYPE, NULL, "name", index, AFMT_NO_OFFSET,
                     "the name of array %" PRIu64 " has %" PRIu64 " bytes, of which afmt keeps %zu "
                     "(AFMT_NAME_MAX - 1): it cannot be written exactly", index, a->name_len, kept);
}

const char *afmt_array_key(const afmt_array *a, size_t index, char *buf, size_t size)
{
    if (a->name[0] || size == 0)
        return a->name;
    snprintf(buf, size, AFMT_UNNAMED_PREFIX "%zu", index);
    return buf;
}

void afmt_copy_label(char *out, size_t out_size, const uint8_t *p, uint64_t n)
{
    uint64_t i;
    if (out_size == 0) return;
    for (i = 0; i < n && i + 1 < out_size; i++) out[i] = (p[i] >= 0x20 && p[i] < 0x7f) ? (char)p[i] : '?';
    out[i] = 0;
}
