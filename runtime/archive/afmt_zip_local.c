/* afmt runtime: a zip archive's members as they lie before the central
 * directory: each local header against its central entry (APPNOTE 4.3.7),
 * its extra fields, its data descriptor (4.3.9: 32-bit sizes, 64-bit when
 * the local header has a zip64 field), the alignment of its data, the
 * layout between members, and the CRC-32 of stored members. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "afmt_ar_run.h"
#include "../common/afmt_bytes.h"

#define SIG_LOCAL 0x04034b50u
#define SIG_DESCRIPTOR 0x08074b50u
#define LOCAL_LEN 30u
#define ALL32 0xffffffffu

static const uint8_t *at(const afmt_ar_run *r, uint64_t off)
{
    return r->bytes + (off - r->base);
}

/* A local value that may be 0 behind a data descriptor, else must equal
 * the central one. */
static int local_agrees(afmt_ar_run *r, const afmt_ar_member *m, const char *sub, uint64_t off, uint64_t local,
                        uint64_t central, const char *what)
{
    if (local == central || (local == 0 && (m->flags & 8)))
        return 0;
    return afmt_ar_fail(r, AFMT_E_CONSTRAINT, m, sub, off,
                        "central entry %" PRIu32 ": the local header says %s %" PRIu64 ", the central directory %"
                        PRIu64 "%s", m->index, what, local, central, (m->flags & 8) ? " (or 0 behind a descriptor)" : "");
}

/* The local CRC-32 and sizes (from its zip64 field when they say so). */
static int local_sizes(afmt_ar_run *r, const afmt_ar_member *m, const uint8_t *l, const afmt_zip64_field *z)
{
    uint64_t usize = afmt_load_u32le(l + 22), csize = afmt_load_u32le(l + 18), off = m->local_off;

    if (usize == ALL32 || csize == ALL32 || z->data) {
        if (!z->data || z->size < 16) {
            if (usize == ALL32 || csize == ALL32 || !z->data)
                return afmt_ar_fail(r, AFMT_E_CONSTRAINT, m, "local.extra", off + LOCAL_LEN + m->name_len,
                                    "central entry %" PRIu32 ": the local sizes are all ones and %s zip64 extra "
                                    "field (16 bytes) gives them", m->index, z->data ? "a too short" : "no");
        } else {
            uint64_t zu = afmt_load_u64le(z->data), zc = afmt_load_u64le(z->data + 8);
            if (local_agrees(r, m, "local.extra", z->off, zu, m->usize, "(zip64) uncompressed size") != 0 ||
                local_agrees(r, m, "local.extra", z->off + 8, zc, m->csize, "(zip64) compressed size") != 0)
                return -1;
        }
    }
    if (local_agrees(r, m, "local.crc32", off + 14, afmt_load_u32le(l + 14), m->crc, "CRC-32") != 0 ||
        (csize != ALL32 && local_agrees(r, m, "local.compressed_size", off + 18, csize, m->csize, "compressed size") != 0) ||
        (usize != ALL32 && local_agrees(r, m, "local.uncompressed_size", off + 22, usize, m->usize, "uncompressed size") != 0))
        return -1;
    return 0;
}

/* The data descriptor after m's data, at off: its signature, CRC-32 and
 * sizes; *len its length. */
static int descriptor(afmt_ar_run *r, const afmt_ar_member *m, uint64_t off, uint64_t *len)
{
    const uint8_t *q;
    uint64_t c, u;

    *len = m->zip64_local ? 24 : 16;
    if (off > r->members_end || r->members_end - off < *len)
        return afmt_ar_fail(r, AFMT_E_TRUNCATED, m, "descriptor", off, "a data descriptor of %" PRIu64 " bytes "
                            "needs room before the central directory (offset %" PRIu64 ")", *len, r->members_end);
    q = at(r, off);
    if (afmt_load_u32le(q) != SIG_DESCRIPTOR)
        return afmt_ar_fail(r, AFMT_E_MAGIC, m, "descriptor.signature", off,
                            "expected the data descriptor's PK\\7\\8 after the data, found 0x%08" PRIx32,
                            afmt_load_u32le(q));
    c = m->zip64_local ? afmt_load_u64le(q + 8) : afmt_load_u32le(q + 8);
    u = m->zip64_local ? afmt_load_u64le(q + 16) : afmt_load_u32le(q + 12);
    if (afmt_load_u32le(q + 4) != m->crc)
        return afmt_ar_fail(r, AFMT_E_CONSTRAINT, m, "descriptor.crc32", off + 4, "central entry %" PRIu32
                            ": the descriptor says CRC-32 0x%08" PRIx32 ", the central directory 0x%08" PRIx32,
                            m->index, afmt_load_u32le(q + 4), m->crc);
    if (c != m->csize || u != m->usize)
        return afmt_ar_fail(r, AFMT_E_CONSTRAINT, m, c != m->csize ? "descriptor.compressed_size" : "descriptor.uncompressed_size",
                            off + 8 + (c != m->csize ? 0 : (m->zip64_local ? 8 : 4)),
                            "central entry %" PRIu32 ": the descriptor says %" PRIu64 " bytes, the central directory %"
                            PRIu64 " (%s sizes, as %s)", m->index, c != m->csize ? c : u,
                            c != m->csize ? m->csize : m->usize, m->zip64_local ? "64-bit" : "32-bit",
                            m->zip64_local ? "the local zip64 field says" : "without a local zip64 field");
    return 0;
}

/* Member m's local header; *end: where the member (descriptor included)
 * ends. */
static int check_member(afmt_ar_run *r, afmt_ar_member *m, uint64_t *end)
{
    const uint64_t L = m->local_off;
    const uint8_t *l;
    uint64_t nlen, xlen, v, dlen = 0;
    afmt_zip64_field z;

    if (L > r->members_end || r->members_end - L < LOCAL_LEN)
        return afmt_ar_fail(r, AFMT_E_CONSTRAINT, m, "central.local_offset", m->entry_off + 42,
                            "central entry %" PRIu32 ": a local header at offset %" PRIu64 " does not fit before the "
                            "central directory (offset %" PRIu64 ")", m->index, L - r->base, r->members_end - r->base);
    l = at(r, L);
    if (afmt_load_u32le(l) != SIG_LOCAL)
        return afmt_ar_fail(r, AFMT_E_MAGIC, m, "local.signature", L, "central entry %" PRIu32 ": expected a local "
                            "header (PK\\3\\4) at offset %" PRIu64 ", found 0x%08" PRIx32, m->index, L - r->base,
                            afmt_load_u32le(l));
    if ((v = afmt_load_u16le(l + 4)) > 45)
        return afmt_ar_fail(r, AFMT_E_UNSUPPORTED, m, "local.version_needed", L + 4,
                            "needs zip %" PRIu64 ".%" PRIu64 " to extract: afmt reads up to 4.5 (zip64)", v / 10, v % 10);
    if ((v = afmt_load_u16le(l + 6)) != m->flags)
        return afmt_ar_fail(r, AFMT_E_CONSTRAINT, m, "local.flags", L + 6, "central entry %" PRIu32 ": the local "
                            "header at offset %" PRIu64 " says flags 0x%04" PRIx64 ", the central directory 0x%04x",
                            m->index, L - r->base, v, m->flags);
    if ((v = afmt_load_u16le(l + 8)) != m->method)
        return afmt_ar_fail(r, AFMT_E_CONSTRAINT, m, "local.method", L + 8, "central entry %" PRIu32 ": the local "
                            "header at offset %" PRIu64 " says method %" PRIu64 ", the central directory %u",
                            m->index, L - r->base, v, m->method);
    nlen = afmt_load_u16le(l + 26);
    xlen = afmt_load_u16le(l + 28);
    if (r->members_end - L - LOCAL_LEN < nlen + xlen)
        return afmt_ar_fail(r, AFMT_E_TRUNCATED, m, "local.name_length", L + 26, "a name and extra field of %" PRIu64
                            " bytes pass the central directory (%" PRIu64 " bytes left)", nlen + xlen,
                            r->members_end - L - LOCAL_LEN);
    if (nlen != m->name_len || memcmp(l + LOCAL_LEN, m->name, (size_t)nlen) != 0) {
        char theirs[112];
        afmt_ar_quote(l + LOCAL_LEN, (size_t)nlen, 80, theirs, sizeof theirs);
        return afmt_ar_fail(r, AFMT_E_CONSTRAINT, m, "local.name", L + LOCAL_LEN, "central entry %" PRIu32
                            ": the local header names it \"%s\" (%" PRIu64 " bytes)", m->index, theirs, nlen);
    }
    if (afmt_zip_extras(r, m, "local.extra", l + LOCAL_LEN + nlen, (size_t)xlen, L + LOCAL_LEN + nlen, &z) != 0)
        return -1;
    m->zip64_local = z.data != NULL;
    if (local_sizes(r, m, l, &z) != 0)
        return -1;
    m->data_off = L + LOCAL_LEN + nlen + xlen;
    if (m->csize > r->members_end - m->data_off)
        return afmt_ar_fail(r, AFMT_E_TRUNCATED, m, "data", m->data_off, "%" PRIu64 " bytes of data at offset %"
                            PRIu64 " pass the central directory (offset %" PRIu64 ")", m->csize,
                            m->data_off - r->base, r->members_end - r->base);
    if (r->d->align > 1 && (m->data_off - r->base) % r->d->align != 0 &&
        afmt_ar_refuse(r, r->d->align_lenient, AFMT_E_CONSTRAINT, m, "data", m->data_off,
                       "data at offset %" PRIu64 ", not a multiple of %" PRIu64, m->data_off - r->base, r->d->align))
        return -1;
    if ((m->flags & 8) && descriptor(r, m, m->data_off + m->csize, &dlen) != 0)
        return -1;
    *end = m->data_off + m->csize + dlen;
    return 0;
}

/* back_to_back: member m's local header at expect (the end of the one
 * before it, or the archive's start). */
static int in_place(afmt_ar_run *r, const afmt_ar_member *m, uint64_t expect)
{
    if (m->local_off == expect)
        return 0;
    if (m->index == 0)
        return afmt_ar_fail(r, AFMT_E_CONSTRAINT, m, "central.local_offset", m->entry_off + 42,
                            "the first local header is at offset %" PRIu64 ": %" PRIu64 " bytes before it, the "
                            "format has none", m->local_off - r->base, m->local_off - r->base);
    if (m->local_off > expect)
        return afmt_ar_fail(r, AFMT_E_CONSTRAINT, m, "central.local_offset", m->entry_off + 42,
                            "%" PRIu64 " bytes between member %" PRIu32 " (which ends at offset %" PRIu64 ") and "
                            "this local header: members are back to back", m->local_off - expect, m->index - 1,
                            expect - r->base);
    return afmt_ar_fail(r, AFMT_E_CONSTRAINT, m, "central.local_offset", m->entry_off + 42,
                        "a local header at offset %" PRIu64 " inside member %" PRIu32 " (which ends at offset %"
                        PRIu64 "): members in central order, back to back", m->local_off - r->base, m->index - 1,
                        expect - r->base);
}

typedef struct extent {
    uint64_t from, to;
    uint32_t member;
} extent;

static int by_start(const void *pa, const void *pb)
{
    const extent *a = pa, *b = pb;
    return a->from < b->from ? -1 : a->from > b->from;
}

/* Not back to back: members may lie anywhere before the central
 * directory, but not over each other. */
static int no_overlap(afmt_ar_run *r, extent *x)
{
    size_t i;

    if (r->n > 1)
        qsort(x, r->n, sizeof *x, by_start);
    for (i = 1; i < r->n; i++)
        if (x[i].from < x[i - 1].to) {
            const afmt_ar_member *m = &r->m[x[i].member];
            return afmt_ar_fail(r, AFMT_E_CONSTRAINT, m, "central.local_offset", m->entry_off + 42,
                                "a local header at offset %" PRIu64 " inside member %" PRIu32 " (offsets %" PRIu64
                                " to %" PRIu64 "): members overlap", m->local_off - r->base,
                                r->m[x[i - 1].member].index, x[i - 1].from - r->base, x[i - 1].to - r->base);
        }
    return 0;
}

int afmt_zip_check_local(afmt_ar_run *r)
{
    extent *x = NULL;
    uint64_t expect = r->base, end = 0;
    size_t i;
    int rc = 0;

    if (!r->d->back_to_back && r->n && !(x = malloc(r->n * sizeof *x)))
        return afmt_ar_fail(r, AFMT_E_NOMEM, NULL, NULL, r->members_end, "no memory for %zu member extents", r->n);
    for (i = 0; rc == 0 && i < r->n; i++) {
        afmt_ar_member *m = &r->m[i];
        if (r->d->back_to_back && in_place(r, m, expect) != 0) {
            rc = -1;
            break;
        }
        rc = check_member(r, m, &end);
        if (rc == 0 && x) {
            x[i].from = m->local_off;
            x[i].to = end;
            x[i].member = (uint32_t)i;
        }
        expect = end;
        /* a deflated member a rule parses is checked as it is inflated */
        if (rc == 0 && m->method == 0)
            rc = afmt_ar_check_stored(r, m);
        else if (rc == 0 && !afmt_ar_parsed(r, m))
            rc = afmt_ar_check_deflated(r, m);
    }
    if (rc == 0 && r->d->back_to_back && expect != r->members_end)
        rc = afmt_ar_fail(r, AFMT_E_CONSTRAINT, NULL, "central", r->members_end,
                          "%" PRIu64 " bytes between the last member (which ends at offset %" PRIu64 ") and the central "
                          "directory: they are back to back", r->members_end - expect, expect - r->base);
    if (rc == 0 && x)
        rc = no_overlap(r, x);
    free(x);
    return rc;
}
