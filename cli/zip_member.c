/* afmt CLI: a zip archive's members, checked against their local headers
 * (see zip.h). */
#include "zip.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "fail.h"

#define SIG_LOCAL 0x04034b50u
#define SIG_CENTRAL 0x02014b50u
#define CENTRAL_LEN 46
#define LOCAL_LEN 30
#define U32_FULL 0xffffffffu

static uint64_t le(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    while (n--)
        v = (v << 8) | p[n];
    return v;
}

static int mfail(afmt_error *err, afmt_code code, const char *where, uint64_t index,
                 const char *field, uint64_t off, const char *fmt, uint64_t a, uint64_t b)
{
    char name[96];
    snprintf(name, sizeof name, "%s[%" PRIu64 "].%s", where, index, field);
    return afmt_cli_fail(err, code, name, off, fmt, a, b);
}

/* The zip64 extra field (id 1) of extra[0..n): the values of the 32-bit
 * fields that hold 0xffffffff, in order (uncompressed, compressed, local
 * header offset).  want: how many are needed.  0, or -1 when it is
 * missing or short. */
static int zip64_extra(const uint8_t *x, uint64_t n, unsigned want, uint64_t *vals)
{
    uint64_t p = 0;
    unsigned i;

    while (p + 4 <= n) {
        uint64_t id = le(x + p, 2), size = le(x + p + 2, 2);
        if (p + 4 + size > n)
            return -1;
        if (id == 1) {
            if (size < 8ull * want)
                return -1;
            for (i = 0; i < want; i++)
                vals[i] = le(x + p + 4 + 8 * i, 8);
            return 0;
        }
        p += 4 + size;
    }
    return want == 0 ? 0 : -1;
}

/* Replace the 32-bit fields that overflowed by the zip64 extra's values. */
static int widen(uint64_t *usize, uint64_t *csize, uint64_t *off, const uint8_t *x,
                 uint64_t n)
{
    uint64_t v[3];
    unsigned want = 0, k = 0;

    want = (*usize == U32_FULL) + (*csize == U32_FULL) + (off && *off == U32_FULL);
    if (zip64_extra(x, n, want, v) != 0)
        return -1;
    if (*usize == U32_FULL) *usize = v[k++];
    if (*csize == U32_FULL) *csize = v[k++];
    if (off && *off == U32_FULL) *off = v[k++];
    return 0;
}

/* The central directory entry at z->next into m (without the local
 * header). */
static int read_central(afmt_cli_zip *z, afmt_cli_zip_member *m, uint64_t *entry_len,
                        unsigned *flags, afmt_error *err)
{
    const uint8_t *c = z->buf + z->next;
    uint64_t room = z->cd_end - z->next, nlen, xlen, clen;

    if (room < CENTRAL_LEN)
        return mfail(err, AFMT_E_TRUNCATED, "central", z->index, "header", z->next,
                     "the central directory ends inside entry %" PRIu64 " (%" PRIu64
                     " bytes left)", z->index, room);
    if (le(c, 4) != SIG_CENTRAL)
        return mfail(err, AFMT_E_MAGIC, "central", z->index, "signature", z->next,
                     "expected PK\\x01\\x02, found 0x%08" PRIx64 "%.0" PRIu64, le(c, 4), 0);
    nlen = le(c + 28, 2);
    xlen = le(c + 30, 2);
    clen = le(c + 32, 2);
    *entry_len = CENTRAL_LEN + nlen + xlen + clen;
    if (*entry_len > room)
        return mfail(err, AFMT_E_TRUNCATED, "central", z->index, "name", z->next + 28,
                     "the entry needs %" PRIu64 " bytes, the central directory has %" PRIu64,
                     *entry_len, room);
    memset(m, 0, sizeof *m);
    m->index = z->index;
    m->cd_entry = z->next;
    *flags = (unsigned)le(c + 8, 2);
    m->method = (unsigned)le(c + 10, 2);
    m->crc = (uint32_t)le(c + 16, 4);
    m->csize = le(c + 20, 4);
    m->usize = le(c + 24, 4);
    m->local_off = le(c + 42, 4);
    m->name = c + CENTRAL_LEN;
    m->name_len = (size_t)nlen;
    if (le(c + 34, 2) != 0 && le(c + 34, 2) != 0xffff)
        return mfail(err, AFMT_E_UNSUPPORTED, "central", z->index, "disk", z->next + 34,
                     "member on disk %" PRIu64 "%.0" PRIu64 ": archives split over disks "
                     "are not supported", le(c + 34, 2), 0);
    if (widen(&m->usize, &m->csize, &m->local_off, c + CENTRAL_LEN + nlen, xlen) != 0)
        return mfail(err, AFMT_E_CONSTRAINT, "central", z->index, "zip64_extra",
                     z->next + CENTRAL_LEN + nlen, "a size or offset is 0x%" PRIx64
                     " but no zip64 extra field gives it%.0" PRIu64, (uint64_t)U32_FULL, 0);
    return 0;
}

/* The local header of m agrees with the central directory; m->data_off
 * := where its data begins. */
static int check_local(const afmt_cli_zip *z, afmt_cli_zip_member *m, unsigned flags,
                       afmt_error *err)
{
    const uint8_t *l;
    uint64_t at = m->local_off, nlen, xlen, usize, csize;

    if (at > z->cd_off || z->cd_off - at < LOCAL_LEN)
        return mfail(err, AFMT_E_CONSTRAINT, "central", m->index, "local_offset",
                     m->cd_entry + 42, "local header at %" PRIu64 ", but members end where "
                     "the central directory begins (%" PRIu64 ")", at, z->cd_off);
    l = z->buf + at;
    if (le(l, 4) != SIG_LOCAL)
        return mfail(err, AFMT_E_MAGIC, "local", m->index, "signature", at,
                     "expected PK\\x03\\x04, found 0x%08" PRIx64 "%.0" PRIu64, le(l, 4), 0);
    nlen = le(l + 26, 2);
    xlen = le(l + 28, 2);
    if (z->cd_off - at - LOCAL_LEN < nlen + xlen)
        return mfail(err, AFMT_E_TRUNCATED, "local", m->index, "name", at + 26,
                     "name and extra field (%" PRIu64 " bytes) reach past the member area "
                     "(%" PRIu64 " bytes left)", nlen + xlen, z->cd_off - at - LOCAL_LEN);
    if (nlen != m->name_len || memcmp(l + LOCAL_LEN, m->name, m->name_len) != 0)
        return mfail(err, AFMT_E_CONSTRAINT, "local", m->index, "name", at + LOCAL_LEN,
                     "the local header's name (%" PRIu64 " bytes) is not the central "
                     "directory's (%" PRIu64 " bytes)", nlen, (uint64_t)m->name_len);
    if (le(l + 8, 2) != m->method || le(l + 6, 2) != flags)
        return mfail(err, AFMT_E_CONSTRAINT, "local", m->index, "method", at + 8,
                     "method %" PRIu64 " here, %" PRIu64 " in the central directory (or "
                     "the flags differ)", le(l + 8, 2), m->method);
    m->data_off = at + LOCAL_LEN + nlen + xlen;
    if (flags & 8)
        return 0; /* sizes and CRC follow the data; the central directory has them */
    usize = le(l + 22, 4);
    csize = le(l + 18, 4);
    if (widen(&usize, &csize, NULL, l + LOCAL_LEN + nlen, xlen) != 0)
        return mfail(err, AFMT_E_CONSTRAINT, "local", m->index, "zip64_extra",
                     at + LOCAL_LEN + nlen, "a size is 0x%" PRIx64 " but no zip64 extra "
                     "field gives it%.0" PRIu64, (uint64_t)U32_FULL, 0);
    if (le(l + 14, 4) != m->crc)
        return mfail(err, AFMT_E_CONSTRAINT, "local", m->index, "crc32", at + 14,
                     "CRC-32 0x%08" PRIx64 " here, 0x%08" PRIx64 " in the central directory",
                     le(l + 14, 4), m->crc);
    if (csize != m->csize || usize != m->usize)
        return mfail(err, AFMT_E_SIZE, "local", m->index, "compressed_size", at + 18,
                     "%" PRIu64 " compressed bytes here, %" PRIu64 " in the central directory "
                     "(or the uncompressed sizes differ)", csize, m->csize);
    return 0;
}

static int check_member(const afmt_cli_zip *z, afmt_cli_zip_member *m, unsigned flags,
                        afmt_error *err)
{
    if (flags & 1)
        return mfail(err, AFMT_E_UNSUPPORTED, "central", m->index, "flags", m->cd_entry + 8,
                     "flags 0x%04" PRIx64 ": encrypted members are not supported%.0" PRIu64,
                     flags, 0);
    if (m->method != 0 && m->method != 8)
        return mfail(err, AFMT_E_UNSUPPORTED, "central", m->index, "method", m->cd_entry + 10,
                     "method %" PRIu64 ": only stored (0) and deflate (8) are supported%.0"
                     PRIu64, m->method, 0);
    if (m->method == 0 && m->csize != m->usize)
        return mfail(err, AFMT_E_SIZE, "central", m->index, "compressed_size",
                     m->cd_entry + 20, "a stored member of %" PRIu64 " bytes holds %" PRIu64,
                     m->usize, m->csize);
    if (check_local(z, m, flags, err) != 0)
        return -1;
    if (m->data_off > z->cd_off || m->csize > z->cd_off - m->data_off)
        return mfail(err, AFMT_E_TRUNCATED, "central", m->index, "compressed_size",
                     m->cd_entry + 20, "%" PRIu64 " bytes of data at offset %" PRIu64
                     " reach past the member area", m->csize, m->data_off);
    return 0;
}

int afmt_cli_zip_next(afmt_cli_zip *z, afmt_cli_zip_member *m, afmt_error *err)
{
    uint64_t entry_len = 0;
    unsigned flags = 0;

    if (z->index == z->count) {
        if (z->next != z->cd_end)
            return afmt_cli_fail(err, AFMT_E_SIZE, "central_directory",
                                 z->next, "%" PRIu64 " bytes after the %" PRIu64 " entries the "
                                 "end record counts", z->cd_end - z->next, z->count);
        return 0;
    }
    if (read_central(z, m, &entry_len, &flags, err) != 0 || check_member(z, m, flags, err) != 0)
        return -1;
    z->next += entry_len;
    z->index++;
    return 1;
}

typedef struct extent {
    uint64_t from, to;
} extent;

static int by_start(const void *a, const void *b)
{
    const extent *x = a, *y = b;
    return x->from < y->from ? -1 : x->from > y->from;
}

int afmt_cli_zip_check_extents(const afmt_cli_zip *z0, afmt_error *err)
{
    afmt_cli_zip z = *z0;
    afmt_cli_zip_member m;
    extent *ext = z.count ? calloc((size_t)z.count, sizeof *ext) : NULL;
    uint64_t i, n = 0;
    int r;

    if (z.count && !ext)
        return afmt_cli_fail(err, AFMT_E_NOMEM, NULL, AFMT_NO_OFFSET,
                             "no memory for %" PRIu64 " member extents", z.count);
    while ((r = afmt_cli_zip_next(&z, &m, err)) == 1) {
        ext[n].from = m.local_off;
        ext[n++].to = m.data_off + m.csize;
    }
    qsort(ext, (size_t)n, sizeof *ext, by_start);
    for (i = 1; r == 0 && i < n; i++)
        if (ext[i].from < ext[i - 1].to)
            r = afmt_cli_fail(err, AFMT_E_CONSTRAINT, "local", ext[i].from,
                              "a member's local header at %" PRIu64 " lies inside another "
                              "member (%" PRIu64 "..%" PRIu64 "): members overlap",
                              ext[i].from, ext[i - 1].from, ext[i - 1].to);
    free(ext);
    return r;
}

uint32_t afmt_cli_crc32(uint32_t crc, const uint8_t *p, size_t n)
{
    /* four bits at a time: a 64-byte table, no state to initialise */
    static const uint32_t t[16] = {
        0x00000000, 0x1db71064, 0x3b6e20c8, 0x26d930ac, 0x76dc4190, 0x6b6b51f4,
        0x4db26158, 0x5005713c, 0xedb88320, 0xf00f9344, 0xd6d6a3e8, 0xcb61b38c,
        0x9b64c2b0, 0x86d3d2d4, 0xa00ae278, 0xbdbdf21c
    };
    size_t i;

    crc = ~crc;
    for (i = 0; i < n; i++) {
        crc ^= p[i];
        crc = (crc >> 4) ^ t[crc & 15];
        crc = (crc >> 4) ^ t[crc & 15];
    }
    return ~crc;
}
