/* afmt runtime: tar archives, read forward in 512-byte blocks (POSIX
 * ustar, pax extended headers 'x' and 'g', GNU long names 'L' and 'K',
 * base-256 sizes), ending in two zero blocks; nothing but zero blocks may
 * follow (GNU tar pads to its record size).  A header's checksum is the
 * unsigned sum of its bytes with the checksum field as spaces; some old
 * writers summed signed bytes: lenient only.
 *
 * From a stream the window is released block by block: a member a rule
 * parses must fit the window, the others are read through. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "afmt_ar_run.h"
#include "../common/afmt_bytes.h"

#define BLOCK 512u

/* n bytes at off, in memory; NULL with err (naming m/sub) when the input
 * ends first or a stream's window cannot hold them. */
static const uint8_t *need(afmt_ar_run *r, uint64_t off, uint64_t n, const afmt_ar_member *m, const char *sub,
                           const char *what)
{
    char field[AFMT_FIELD_MAX];

    if (r->bytes) {
        if (off <= r->end && r->end - off >= n)
            return r->bytes + (off - r->base);
        afmt_ar_fail(r, AFMT_E_TRUNCATED, m, sub, off, "needs %" PRIu64 " bytes for %s, only %" PRIu64 " left", n,
                     what, off <= r->end ? r->end - off : 0);
        return NULL;
    }
    if (afmt_src_have(r->src, r->end, off, n))
        return AFMT_B(r->src, off);
    afmt_ar_field(r, m, sub, field, sizeof field);
    afmt_src_short(r->src, r->err, r->path, field, AFMT_NO_INDEX, off, r->end, n, what);
    return NULL;
}

/* Is there a byte at off (1), none (0)? */
static int more(afmt_ar_run *r, uint64_t off)
{
    if (r->bytes)
        return off < r->end;
    return afmt_src_at_end(r->src, r->end, off) != 1; /* -1: a full window holds bytes */
}

static int all_zero(const uint8_t *p, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (p[i])
            return 0;
    return 1;
}

/* An octal field: optional leading spaces, digits, then only NULs and
 * spaces.  1 with *v, or 0. */
static int octal(const uint8_t *f, size_t n, uint64_t *v)
{
    size_t i = 0, digits = 0;

    *v = 0;
    while (i < n && f[i] == ' ')
        i++;
    for (; i < n && f[i] >= '0' && f[i] <= '7'; i++, digits++) {
        if (*v > (UINT64_MAX >> 3))
            return 0;
        *v = *v << 3 | (uint64_t)(f[i] - '0');
    }
    for (; i < n; i++)
        if (f[i] != 0 && f[i] != ' ')
            return 0;
    return digits > 0;
}

/* The size field: octal, or GNU's base-256 (first byte 0x80, then big-
 * endian); below 2^63. */
static int header_size(afmt_ar_run *r, const uint8_t *h, uint64_t off, const char *sub, uint64_t *size)
{
    char field[64];
    size_t i;

    snprintf(field, sizeof field, "%s.size", sub);
    if (h[124] & 0x80) {
        if (h[124] != 0x80 || h[125] || h[126] || h[127] & 0x80)
            return afmt_ar_fail(r, AFMT_E_VALUE, NULL, field, off + 124,
                                "a base-256 size below 2^63 starts with 0x80 and three zero bytes");
        for (*size = 0, i = 127; i < 136; i++)
            *size = *size << 8 | h[i];
        return 0;
    }
    if (!octal(h + 124, 12, size) || *size > INT64_MAX)
        return afmt_ar_fail(r, AFMT_E_VALUE, NULL, field, off + 124,
                            "the size field is octal digits then NULs or spaces (or base-256)");
    return 0;
}

/* The header's checksum, and its magic: POSIX "ustar\0" "00" or GNU
 * "ustar  \0".  *posix: the name has a prefix field. */
static int check_header(afmt_ar_run *r, const uint8_t *h, uint64_t off, const char *sub, int *posix)
{
    uint64_t stored, sum = 0;
    int64_t signed_sum = 0;
    size_t i;
    char field[64];

    /* the magic first: bytes that are no tar header are said to be so
     * (not a checksum that cannot be read) */
    *posix = memcmp(h + 257, "ustar\0" "00", 8) == 0;
    snprintf(field, sizeof field, "%s.magic", sub);
    if (!*posix && memcmp(h + 257, "ustar  \0", 8) != 0) {
        if (!all_zero(h + 257, 8) && off == r->base) /* the first block is no header: no tar at all */
            return afmt_ar_fail(r, AFMT_E_MAGIC, NULL, sub, off, "not a tar header: no ustar magic at offset %"
                                PRIu64 " (\"ustar\\0\" \"00\" POSIX, \"ustar  \\0\" GNU)", off + 257);
        if (!all_zero(h + 257, 8))
            return afmt_ar_fail(r, AFMT_E_MAGIC, NULL, field, off + 257,
                                "expected \"ustar\\0\" \"00\" (POSIX) or \"ustar  \\0\" (GNU)");
        if (afmt_ar_refuse(r, 1, AFMT_E_MAGIC, NULL, field, off + 257,
                           "a pre-POSIX (v7) header, without the ustar magic"))
            return -1;
    }
    for (i = 0; i < BLOCK; i++) {
        uint8_t b = i >= 148 && i < 156 ? ' ' : h[i];
        sum += b;
        signed_sum += (int8_t)b;
    }
    snprintf(field, sizeof field, "%s.checksum", sub);
    if (!octal(h + 148, 8, &stored))
        return afmt_ar_fail(r, AFMT_E_VALUE, NULL, field, off + 148, "the checksum field is octal digits then NULs "
                            "or spaces");
    if (stored != sum) {
        if (signed_sum < 0 || stored != (uint64_t)signed_sum)
            return afmt_ar_fail(r, AFMT_E_CONSTRAINT, NULL, field, off + 148, "checksum %" PRIu64 ", but the "
                                "header's bytes sum to %" PRIu64, stored, sum);
        if (afmt_ar_refuse(r, 1, AFMT_E_CONSTRAINT, NULL, field, off + 148, "checksum %" PRIu64 " is the signed "
                           "sum of the header's bytes; the unsigned one is %" PRIu64, stored, sum))
            return -1;
    }
    return 0;
}

/* The name a header gives (prefix "/" name for POSIX ustar) into buf. */
static size_t header_name(const uint8_t *h, int posix, uint8_t *buf)
{
    size_t n = 0, k;

    if (posix && h[345]) {
        for (k = 0; k < 155 && h[345 + k]; k++)
            buf[n++] = h[345 + k];
        buf[n++] = '/';
    }
    for (k = 0; k < 100 && h[k]; k++)
        buf[n++] = h[k];
    return n;
}

static const char *type_name(uint8_t t)
{
    switch (t) {
    case '1': return "a hard link";
    case '2': return "a symbolic link";
    case '3': return "a character device";
    case '4': return "a block device";
    case '6': return "a FIFO";
    case 'S': return "a GNU sparse file";
    case 'M': case 'V': return "a part of a multi-volume archive";
    default: return "an entry of an unknown type";
    }
}

/* A regular file: its rule, and its action when a rule parses it. */
static int member(afmt_ar_run *r, const afmt_tar_pending *pend, const uint8_t *name, size_t len, uint64_t off,
                  uint64_t size, int utf8, int *kept)
{
    afmt_ar_member *m;
    const uint8_t *bytes;

    if (r->n >= r->opt->limits.max_items)
        return afmt_ar_fail(r, AFMT_E_LIMIT, NULL, NULL, off, "more than %" PRIu64 " members (limits.max_items)",
                            r->opt->limits.max_items);
    if (!(m = afmt_ar_add_member(r, off)))
        return -1;
    if (!(m->name = pend->has_path ? pend->path : afmt_ar_keep(r, name, len, off)))
        return -1;
    m->name_len = (uint32_t)(pend->has_path ? pend->path_len : len);
    m->name_off = pend->has_path ? pend->path_off : off;
    m->entry_off = off;
    m->local_off = off;
    m->data_off = off + BLOCK;
    m->csize = m->usize = size;
    if (afmt_ar_check_name(r, m, utf8, "header.name") != 0 || afmt_ar_assign(r, m) != 0)
        return -1;
    if (!afmt_ar_parsed(r, m))
        return 0;
    if (!(bytes = need(r, m->data_off, size, m, "data", "the member's data")))
        return -1;
    *kept = 1;
    return afmt_ar_act(r, m, bytes, size);
}

/* After the two zero blocks: only zero bytes to the end (of the input,
 * or of the region end). */
static int trailer(afmt_ar_run *r, uint64_t *p)
{
    for (;;) {
        const uint8_t *b;
        uint64_t n = BLOCK, stop;
        if (!r->bytes)
            afmt_src_keep_from(r->src, *p);
        if (!more(r, *p))
            return 0;
        if (r->bytes ? r->end - *p < BLOCK : !afmt_src_have(r->src, r->end, *p, BLOCK)) {
            stop = r->bytes ? r->end : r->end < r->src->len ? r->end : r->src->len;
            if (!r->bytes && (r->src->io_error || stop == AFMT_LEN_UNKNOWN))
                return afmt_ar_fail(r, AFMT_E_IO, NULL, "end", *p, "reading the input failed");
            n = stop - *p; /* a last partial block */
        }
        if (!(b = need(r, *p, n, NULL, "end", "the bytes after the archive")))
            return -1;
        if (!all_zero(b, (size_t)n)) {
            if (afmt_ar_refuse(r, 1, AFMT_E_TRAILING, NULL, "end", *p,
                               "non-zero bytes after the archive's two zero blocks"))
                return -1;
            *p = r->bytes ? r->end : r->src->len;
            return 0;
        }
        *p += n;
    }
}

/* The end: a zero block at p; a second must follow. */
static int end_blocks(afmt_ar_run *r, uint64_t *p, const char *sub)
{
    const uint8_t *b;

    if (!more(r, *p + BLOCK)) {
        *p += BLOCK;
        return afmt_ar_refuse(r, 1, AFMT_E_TRUNCATED, NULL, sub, *p, "the archive ends after one zero block; "
                              "it ends with two");
    }
    if (!(b = need(r, *p + BLOCK, BLOCK, NULL, sub, "the second zero block")))
        return -1;
    if (!all_zero(b, BLOCK))
        return afmt_ar_fail(r, AFMT_E_CONSTRAINT, NULL, sub, *p, "a zero block inside the archive: readers stop "
                            "there or read on");
    *p += 2 * BLOCK;
    return trailer(r, p);
}

/* An extended header's data (pax, GNU long name), into *pend. */
static int extended(afmt_ar_run *r, uint8_t type, uint64_t data, uint64_t size, afmt_tar_pending *pend,
                    const char *sub)
{
    const uint8_t *b;
    char field[64];

    if (pend->kind)
        return afmt_ar_fail(r, AFMT_E_CONSTRAINT, NULL, sub, data - BLOCK, "a second extended header ('%c') for "
                            "one member", type);
    if (size > (type == 'x' || type == 'g' ? r->opt->limits.max_header_bytes : (uint64_t)AFMT_AR_NAME_MAX + 1))
        return afmt_ar_fail(r, AFMT_E_LIMIT, NULL, sub, data - BLOCK + 124, "an extended header ('%c') of %" PRIu64
                            " bytes: afmt reads at most %" PRIu64, type, size,
                            type == 'L' || type == 'K' ? (uint64_t)AFMT_AR_NAME_MAX + 1 : r->opt->limits.max_header_bytes);
    if (!(b = need(r, data, size, NULL, sub, "an extended header")))
        return -1;
    if (type == 'x' || type == 'g') {
        snprintf(field, sizeof field, "%s.pax", sub);
        if (afmt_tar_pax(r, b, size, data, type == 'g', pend, field) != 0)
            return -1;
    } else if (type == 'L') {
        size_t n = (size_t)size;
        while (n > 0 && b[n - 1] == 0)
            n--;
        if (!(pend->path = afmt_ar_keep(r, b, n, data)))
            return -1;
        pend->path_len = n;
        pend->path_off = data;
        pend->has_path = 1;
    }
    if (type != 'g')
        pend->kind = (char)type;
    return 0;
}

/* What a header that is not an extended one stands for: a regular file
 * (a member), a directory (its name checked, nothing else), or a refusal.
 * *kept: the member's data was read into memory. */
static int plain_entry(afmt_ar_run *r, uint8_t type, const afmt_tar_pending *used, const uint8_t *name, size_t len,
                       uint64_t off, uint64_t size, int *kept)
{
    afmt_ar_member named;

    if (type == '0' || type == 0 || type == '7')
        return member(r, used, name, len, off, size, used->kind == 'x' && used->has_path, kept);
    memset(&named, 0, sizeof named);
    named.name = used->has_path ? used->path : name;
    named.name_len = (uint32_t)(used->has_path ? used->path_len : len);
    named.name_off = used->has_path ? used->path_off : off;
    if (type != '5')
        return afmt_ar_fail(r, AFMT_E_UNSUPPORTED, &named, "header.typeflag", off + 156,
                            "%s (type '%c'): afmt reads regular files only", type_name(type), type);
    if (named.name_len > 1 && named.name[named.name_len - 1] == '/')
        named.name_len--; /* a directory's name ends with '/' */
    return afmt_ar_check_name(r, &named, used->kind == 'x', "header.name");
}

/* Past an entry's data at data (a stream reads it through when nothing
 * kept it), then its zero padding to the block's end. */
static int past_data(afmt_ar_run *r, uint64_t data, uint64_t size, uint64_t padded, int kept, const char *sub)
{
    const uint8_t *pad;
    uint64_t bad;

    if (!kept && r->bytes && !need(r, data, size, NULL, sub, "the member's data"))
        return -1;
    if (!kept && !r->bytes && !afmt_src_take(r->src, r->end, data, size, NULL, NULL, &bad)) {
        char field[AFMT_FIELD_MAX];
        afmt_ar_field(r, NULL, sub, field, sizeof field);
        return afmt_src_short(r->src, r->err, r->path, field, AFMT_NO_INDEX, data, r->end, size, "the member's data");
    }
    if (!(pad = need(r, data + size, padded - size, NULL, sub, "the padding after the member's data")))
        return -1;
    if (!all_zero(pad, (size_t)(padded - size)) &&
        afmt_ar_refuse(r, 1, AFMT_E_PADDING, NULL, sub, data + size, "non-zero padding after the member's data"))
        return -1;
    return 0;
}

/* One header block at *p (not zero) and what follows it. */
static int entry(afmt_ar_run *r, const uint8_t *h, uint64_t *p, afmt_tar_pending *pend, const char *sub)
{
    const uint64_t off = *p;
    uint8_t name[BLOCK], type = h[156];
    uint64_t size, padded;
    size_t len;
    int posix, rc, kept = 0;

    if (check_header(r, h, off, sub, &posix) != 0 || header_size(r, h, off, sub, &size) != 0)
        return -1;
    if (pend->has_size && (type == '0' || type == 0 || type == '7'))
        size = pend->size;
    if (afmt_checked_roundup_u64(size, BLOCK, &padded) || padded > UINT64_MAX - off - BLOCK)
        return afmt_ar_fail(r, AFMT_E_OVERFLOW, NULL, sub, off + 124, "a size of %" PRIu64 " bytes passes 2^64",
                            size);
    len = header_name(h, posix, name);
    if (type == 'x' || type == 'g' || type == 'L' || type == 'K') {
        rc = extended(r, type, off + BLOCK, size, pend, sub);
        kept = 1;
    } else {
        afmt_tar_pending used = *pend;
        memset(pend, 0, sizeof *pend);
        rc = plain_entry(r, type, &used, name, len, off, size, &kept);
    }
    if (rc != 0 || past_data(r, off + BLOCK, size, padded, kept, sub) != 0)
        return -1;
    *p = off + BLOCK + padded;
    return 0;
}

int afmt_tar_read(afmt_ar_run *r, uint64_t *pos)
{
    afmt_tar_pending pend;
    uint64_t p = *pos;
    char sub[48];

    memset(&pend, 0, sizeof pend);
    for (;;) {
        const uint8_t *h;
        snprintf(sub, sizeof sub, "block[%" PRIu64 "]", (p - r->base) / BLOCK);
        if (!r->bytes)
            afmt_src_keep_from(r->src, p);
        if (!more(r, p)) {
            if (r->err->code == AFMT_OK && !r->bytes && r->src->io_error)
                return afmt_ar_fail(r, AFMT_E_IO, NULL, sub, p, "reading the input failed");
            if (pend.kind)
                return afmt_ar_fail(r, AFMT_E_TRUNCATED, NULL, sub, p, "an extended header ('%c') with no member "
                                    "after it", pend.kind);
            if (afmt_ar_refuse(r, 1, AFMT_E_TRUNCATED, NULL, "end", p,
                               "the archive ends without its two zero blocks"))
                return -1;
            break;
        }
        if (!(h = need(r, p, BLOCK, NULL, sub, "a header block")))
            return -1;
        if (all_zero(h, BLOCK)) {
            if (pend.kind)
                return afmt_ar_fail(r, AFMT_E_CONSTRAINT, NULL, sub, p, "an extended header ('%c') with no member "
                                    "after it", pend.kind);
            if (end_blocks(r, &p, sub) != 0)
                return -1;
            break;
        }
        if (entry(r, h, &p, &pend, sub) != 0)
            return -1;
    }
    *pos = p;
    return afmt_ar_sort_names(r) != 0 ? -1 : afmt_ar_finish(r, p);
}
