/* afmt runtime: a zip archive's end records and central directory, read
 * from the end (PKWARE APPNOTE 6.3: 4.3.16 end of central directory,
 * 4.3.14-15 zip64 end record and locator, 4.3.12 central entries, 4.5.3
 * the zip64 extra field).  Every offset and size is checked against the
 * bytes there before it is used, the entry count against the directory's
 * size before anything is allocated. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "afmt_ar_run.h"
#include "../common/afmt_bytes.h"

#define SIG_CENTRAL 0x02014b50u
#define SIG_END 0x06054b50u
#define SIG_END64 0x06064b50u
#define SIG_LOC64 0x07064b50u
#define END_LEN 22u
#define LOC64_LEN 20u
#define END64_LEN 56u
#define CENTRAL_LEN 46u
#define ALL16 0xffffu
#define ALL32 0xffffffffu
/* general-purpose bits of encryption: 0 encrypted, 6 strong encryption,
 * 13 central directory encrypted */
#define FLAGS_ENCRYPTED 0x2041u

/* The byte at absolute offset off (inside the archive). */
static const uint8_t *at(const afmt_ar_run *r, uint64_t off)
{
    return r->bytes + (off - r->base);
}

/* What the end records say. */
typedef struct zip_end {
    uint64_t end_off;     /* the end record */
    uint64_t records;     /* where the end records begin (zip64 end record, or end record) */
    uint64_t count, cd_size, cd_off;
    const char *rec;      /* "end" or "zip64_end": whose fields count, cd_size, cd_off are */
    uint64_t count_at, cd_at; /* their offsets */
} zip_end;

int afmt_zip_find_end(afmt_ar_run *r, const uint8_t *held, uint64_t held_from, int local_first, uint64_t *end_off)
{
    const uint64_t size = r->end - r->base;
    const afmt_code none = local_first ? AFMT_E_TRUNCATED : AFMT_E_MAGIC;
    uint64_t lo, p, comment_at = UINT64_MAX, early = UINT64_MAX;

    if (size < END_LEN)
        return afmt_ar_fail(r, none, NULL, "end", r->end, "no end of central directory record: the archive has %"
                            PRIu64 " bytes, a zip at least 22", size);
    lo = size > END_LEN + 65535 ? size - END_LEN - 65535 : 0;
    if (lo < held_from)
        lo = held_from;
    for (p = size - END_LEN + 1; p-- > lo;) {
        const uint8_t *q = held + (p - held_from);
        uint64_t c;
        if (afmt_load_u32le(q) != SIG_END)
            continue;
        c = afmt_load_u16le(q + 20);
        if (p + END_LEN + c == size) {
            comment_at = p;
            break;
        }
        if (p + END_LEN + c < size && early == UINT64_MAX)
            early = p;
    }
    if (comment_at != UINT64_MAX) {
        *end_off = r->base + comment_at;
        if (comment_at + END_LEN != size && r->d->back_to_back)
            return afmt_ar_fail(r, AFMT_E_CONSTRAINT, NULL, "end.comment_length", *end_off + 20,
                                "an archive comment of %" PRIu64 " bytes: the format writes none",
                                size - comment_at - END_LEN);
        return 0;
    }
    if (early != UINT64_MAX) {
        uint64_t stop = early + END_LEN + afmt_load_u16le(held + (early - held_from) + 20);
        return afmt_ar_fail(r, AFMT_E_TRAILING, NULL, "end", r->base + stop,
                            "%" PRIu64 " bytes after the end of central directory record (at offset %" PRIu64 ")",
                            size - stop, r->base + early);
    }
    return afmt_ar_fail(r, none, NULL, "end", r->end, "no end of central directory record in the last %" PRIu64
                        " bytes (not a zip archive, or cut short)", size - lo);
}

/* The end record in the archive held whole. */
static int find_end(afmt_ar_run *r, zip_end *e)
{
    uint64_t size = r->end - r->base;
    return afmt_zip_find_end(r, r->bytes, 0, size >= 4 && afmt_load_u32le(r->bytes) == 0x04034b50u, &e->end_off);
}

/* One disk: a disk number field must be 0 (or, with zip64, all ones). */
static int one_disk(afmt_ar_run *r, const char *field, uint64_t off, uint64_t v, uint64_t all_ones)
{
    if (!r->d->one_disk || v == 0 || (all_ones && v == all_ones))
        return 0;
    return afmt_ar_fail(r, AFMT_E_UNSUPPORTED, NULL, field, off,
                        "disk %" PRIu64 ": archives split over several disks are not supported", v);
}

/* The zip64 locator before the end record and the record it points to. */
static int read_zip64(afmt_ar_run *r, zip_end *e, uint64_t loc)
{
    const uint8_t *l = at(r, loc);
    uint64_t rel = afmt_load_u64le(l + 8), z, size64, disks = afmt_load_u32le(l + 16);
    const uint8_t *q;

    if (one_disk(r, "zip64_locator.disk", loc + 4, afmt_load_u32le(l + 4), 0) != 0)
        return -1;
    if (r->d->one_disk && disks > 1)
        return afmt_ar_fail(r, AFMT_E_UNSUPPORTED, NULL, "zip64_locator.disks", loc + 16,
                            "%" PRIu64 " disks: archives split over several disks are not supported", disks);
    if (rel > loc - r->base || loc - r->base - rel < END64_LEN)
        return afmt_ar_fail(r, AFMT_E_CONSTRAINT, NULL, "zip64_locator.end_offset", loc + 8,
                            "the zip64 end record at offset %" PRIu64 " must lie before its locator (offset %"
                            PRIu64 ") with its 56 bytes", rel, loc - r->base);
    z = r->base + rel;
    q = at(r, z);
    if (afmt_load_u32le(q) != SIG_END64)
        return afmt_ar_fail(r, AFMT_E_MAGIC, NULL, "zip64_end.signature", z, "expected PK\\6\\6, found 0x%08" PRIx32,
                            afmt_load_u32le(q));
    size64 = afmt_load_u64le(q + 4);
    if (size64 < 44 || size64 != loc - z - 12 || (r->d->back_to_back && size64 != 44))
        return afmt_ar_fail(r, AFMT_E_SIZE, NULL, "zip64_end.size", z + 4,
                            "a zip64 end record of %" PRIu64 " bytes after its first 12; it must reach its locator "
                            "(%" PRIu64 ")%s", size64, loc - z - 12, r->d->back_to_back ? " and be 44" : "");
    if (one_disk(r, "zip64_end.disk", z + 16, afmt_load_u32le(q + 16), 0) != 0 ||
        one_disk(r, "zip64_end.cd_disk", z + 20, afmt_load_u32le(q + 20), 0) != 0)
        return -1;
    e->count = afmt_load_u64le(q + 32);
    if (afmt_load_u64le(q + 24) != e->count)
        return afmt_ar_fail(r, AFMT_E_CONSTRAINT, NULL, "zip64_end.entries_disk", z + 24,
                            "%" PRIu64 " entries on this disk, %" PRIu64 " in all: one disk holds them all",
                            afmt_load_u64le(q + 24), e->count);
    e->cd_size = afmt_load_u64le(q + 40);
    e->cd_off = afmt_load_u64le(q + 48);
    e->records = z;
    e->rec = "zip64_end";
    e->count_at = z + 32;
    e->cd_at = z + 48;
    return 0;
}

/* An end record field agrees with the zip64 one: equal, or all ones. */
static int agrees(afmt_ar_run *r, const char *field, uint64_t off, uint64_t v, uint64_t all_ones, uint64_t v64)
{
    if (v == v64 || v == all_ones)
        return 0;
    return afmt_ar_fail(r, AFMT_E_CONSTRAINT, NULL, field, off,
                        "%" PRIu64 " here, %" PRIu64 " in the zip64 end record", v, v64);
}

static int read_end(afmt_ar_run *r, zip_end *e)
{
    const uint8_t *p;
    uint64_t n_disk, n, cd_size, cd_off, loc;
    int zip64;

    if (find_end(r, e) != 0)
        return -1;
    p = at(r, e->end_off);
    n_disk = afmt_load_u16le(p + 8);
    n = afmt_load_u16le(p + 10);
    cd_size = afmt_load_u32le(p + 12);
    cd_off = afmt_load_u32le(p + 16);
    loc = e->end_off - LOC64_LEN;
    zip64 = e->end_off - r->base >= LOC64_LEN && afmt_load_u32le(at(r, loc)) == SIG_LOC64;
    if (one_disk(r, "end.disk", e->end_off + 4, afmt_load_u16le(p + 4), zip64 ? ALL16 : 0) != 0 ||
        one_disk(r, "end.cd_disk", e->end_off + 6, afmt_load_u16le(p + 6), zip64 ? ALL16 : 0) != 0)
        return -1;
    if (!zip64) {
        if (r->d->zip64_end)
            return afmt_ar_fail(r, AFMT_E_CONSTRAINT, NULL, "zip64_locator", e->end_off,
                                "no zip64 end record and locator before the end record: the format writes them");
        if (n_disk != n)
            return afmt_ar_fail(r, AFMT_E_CONSTRAINT, NULL, "end.entries_disk", e->end_off + 8,
                                "%" PRIu64 " entries on this disk, %" PRIu64 " in all: one disk holds them all",
                                n_disk, n);
        e->count = n;
        e->cd_size = cd_size;
        e->cd_off = cd_off;
        e->records = e->end_off;
        e->rec = "end";
        e->count_at = e->end_off + 10;
        e->cd_at = e->end_off + 16;
        return 0;
    }
    if (read_zip64(r, e, loc) != 0)
        return -1;
    return agrees(r, "end.entries_disk", e->end_off + 8, n_disk, ALL16, e->count) != 0 ||
                   agrees(r, "end.entries", e->end_off + 10, n, ALL16, e->count) != 0 ||
                   agrees(r, "end.cd_size", e->end_off + 12, cd_size, ALL32, e->cd_size) != 0 ||
                   agrees(r, "end.cd_offset", e->end_off + 16, cd_off, ALL32, e->cd_off) != 0
               ? -1
               : 0;
}

int afmt_zip_extras(afmt_ar_run *r, const afmt_ar_member *m, const char *sub, const uint8_t *extra, size_t n,
                    uint64_t off, afmt_zip64_field *z64)
{
    size_t p = 0, k;

    z64->data = NULL;
    z64->size = 0;
    while (p < n) {
        unsigned id, size;
        int known = 0;
        if (n - p < 4)
            return afmt_ar_fail(r, AFMT_E_TRUNCATED, m, sub, off + p,
                                "%zu bytes left in the extra area, an extra field's header needs 4", n - p);
        id = afmt_load_u16le(extra + p);
        size = afmt_load_u16le(extra + p + 2);
        if (size > n - p - 4)
            return afmt_ar_fail(r, AFMT_E_TRUNCATED, m, sub, off + p + 2,
                                "extra field 0x%04x of %u bytes, only %zu left in the extra area", id, size, n - p - 4);
        for (k = 0; k < r->d->nextra; k++)
            known |= r->d->extra_ids[k] == id;
        if (!known && afmt_ar_refuse(r, r->d->extra_lenient, AFMT_E_CONSTRAINT, m, sub, off + p,
                                     "extra field 0x%04x: the format writes none of that id", id))
            return -1;
        if (id == 1) {
            if (z64->data)
                return afmt_ar_fail(r, AFMT_E_CONSTRAINT, m, sub, off + p, "a second zip64 extra field");
            z64->data = extra + p + 4;
            z64->size = size;
            z64->off = off + p + 4;
        }
        p += 4 + (size_t)size;
    }
    return 0;
}

/* The sizes, offset and disk a central entry leaves to its zip64 field. */
static int widen(afmt_ar_run *r, afmt_ar_member *m, uint64_t *local, uint64_t disk, const afmt_zip64_field *z)
{
    uint64_t *v[3] = {&m->usize, &m->csize, local};
    size_t need = 0, k, p = 0;

    for (k = 0; k < 3; k++)
        need += *v[k] == ALL32 ? 8 : 0;
    need += disk == ALL16 ? 4 : 0;
    if (need == 0)
        return 0;
    if (!z->data || z->size < need)
        return afmt_ar_fail(r, AFMT_E_CONSTRAINT, m, "central.extra", m->entry_off + CENTRAL_LEN + m->name_len,
                            "%zu bytes of sizes, offset or disk are all ones, and %s zip64 extra field gives them",
                            need, z->data ? "a too short" : "no");
    for (k = 0; k < 3; k++)
        if (*v[k] == ALL32) {
            *v[k] = afmt_load_u64le(z->data + p);
            p += 8;
        }
    return disk == ALL16 ? one_disk(r, "central.disk", z->off + p, afmt_load_u32le(z->data + p), 0) : 0;
}

/* The entry's method, flags and sizes as the desc allows them. */
static int check_entry(afmt_ar_run *r, const afmt_ar_member *m, uint64_t version)
{
    const afmt_archive_desc *d = r->d;
    uint64_t e = m->entry_off;

    if (version > 45)
        return afmt_ar_fail(r, AFMT_E_UNSUPPORTED, m, "central.version_needed", e + 6,
                            "needs zip %" PRIu64 ".%" PRIu64 " to extract: afmt reads up to 4.5 (zip64)",
                            version / 10, version % 10);
    if (m->flags & FLAGS_ENCRYPTED)
        return afmt_ar_fail(r, AFMT_E_UNSUPPORTED, m, "central.flags", e + 8,
                            "flags 0x%04x: encrypted members are not supported", m->flags);
    if (m->flags & ~d->flags_allowed)
        return afmt_ar_fail(r, AFMT_E_CONSTRAINT, m, "central.flags", e + 8,
                            "flags 0x%04x: only bits 0x%04x are allowed", m->flags, d->flags_allowed);
    if (m->method != 0 && m->method != 8)
        return afmt_ar_fail(r, AFMT_E_UNSUPPORTED, m, "central.method", e + 10,
                            "method %u: afmt reads stored (0) and deflated (8) members only", m->method);
    if (m->method == 0 && m->csize != m->usize)
        return afmt_ar_fail(r, AFMT_E_SIZE, m, "central.compressed_size", e + 20,
                            "a stored member of %" PRIu64 " bytes holds %" PRIu64, m->usize, m->csize);
    return 0;
}

/* Central entry i at off (with room bytes left in the directory) into a
 * new member; *len its length. */
static int read_entry(afmt_ar_run *r, uint64_t i, uint64_t off, uint64_t room, uint64_t *len)
{
    const uint8_t *c = at(r, off);
    uint64_t nlen, xlen, clen, local, disk;
    afmt_zip64_field z;
    afmt_ar_member *m;
    char sub[48];

    snprintf(sub, sizeof sub, "central[%" PRIu64 "]", i);
    if (room < CENTRAL_LEN)
        return afmt_ar_fail(r, AFMT_E_TRUNCATED, NULL, sub, off, "the central directory ends %" PRIu64
                            " bytes into entry %" PRIu64 " (46 needed)", room, i);
    if (afmt_load_u32le(c) != SIG_CENTRAL)
        return afmt_ar_fail(r, AFMT_E_MAGIC, NULL, sub, off, "expected PK\\1\\2, found 0x%08" PRIx32,
                            afmt_load_u32le(c));
    nlen = afmt_load_u16le(c + 28);
    xlen = afmt_load_u16le(c + 30);
    clen = afmt_load_u16le(c + 32);
    *len = CENTRAL_LEN + nlen + xlen + clen;
    if (*len > room)
        return afmt_ar_fail(r, AFMT_E_TRUNCATED, NULL, sub, off + 28, "entry %" PRIu64 " needs %" PRIu64
                            " bytes with its name, extra field and comment; the central directory has %" PRIu64,
                            i, *len, room);
    if (!(m = afmt_ar_add_member(r, off)))
        return -1;
    m->name = c + CENTRAL_LEN;
    m->name_len = (uint32_t)nlen;
    m->entry_off = off;
    m->name_off = off + CENTRAL_LEN;
    m->flags = afmt_load_u16le(c + 8);
    m->method = afmt_load_u16le(c + 10);
    m->crc = afmt_load_u32le(c + 16);
    m->csize = afmt_load_u32le(c + 20);
    m->usize = afmt_load_u32le(c + 24);
    disk = afmt_load_u16le(c + 34);
    local = afmt_load_u32le(c + 42);
    /* "dir/" of no bytes: a directory entry, whose name is checked without its '/' */
    m->is_dir = nlen > 1 && m->name[nlen - 1] == '/' && m->usize == 0 && m->csize == 0;
    if (m->is_dir) {
        afmt_ar_member dir = *m;
        dir.name_len--;
        if (afmt_ar_check_name(r, &dir, (m->flags & 0x0800) != 0, "central.name") != 0)
            return -1;
    }
    if ((!m->is_dir && afmt_ar_check_name(r, m, (m->flags & 0x0800) != 0, "central.name") != 0) ||
        afmt_zip_extras(r, m, "central.extra", c + CENTRAL_LEN + nlen, (size_t)xlen, off + CENTRAL_LEN + nlen, &z) != 0 ||
        widen(r, m, &local, disk, &z) != 0 || one_disk(r, "central.disk", off + 34, disk, ALL16) != 0 ||
        check_entry(r, m, afmt_load_u16le(c + 6)) != 0)
        return -1;
    if (clen && r->d->back_to_back)
        return afmt_ar_fail(r, AFMT_E_CONSTRAINT, m, "central.comment_length", off + 32,
                            "a member comment of %" PRIu64 " bytes: the format writes none", clen);
    if (local > r->end - r->base)
        return afmt_ar_fail(r, AFMT_E_CONSTRAINT, m, "central.local_offset", off + 42,
                            "local header at offset %" PRIu64 ", past the archive's %" PRIu64 " bytes", local,
                            r->end - r->base);
    m->local_off = r->base + local;
    return 0;
}

/* The compression methods the format allows, once every member has its
 * rule: a member a rule refuses by name (a TorchScript archive's code) is
 * refused as that, whatever its method. */
int afmt_zip_check_methods(afmt_ar_run *r)
{
    const afmt_archive_desc *d = r->d;
    size_t i;
    for (i = 0; i < r->n; i++) {
        const afmt_ar_member *m = &r->m[i];
        if (!(d->methods >> m->method & 1u) &&
            afmt_ar_refuse(r, (d->methods_lenient >> m->method & 1u) != 0, AFMT_E_CONSTRAINT, m, "central.method",
                           m->entry_off + 10, "method %u (%s): the format writes %s", m->method,
                           m->method ? "deflated" : "stored", d->methods & 1u ? "stored members" : "deflated members"))
            return -1;
    }
    return 0;
}

int afmt_zip_read(afmt_ar_run *r)
{
    zip_end e;
    uint64_t i, p, cd;

    memset(&e, 0, sizeof e);
    if (read_end(r, &e) != 0)
        return -1;
    /* the central directory ends where the end records begin */
    if (e.cd_off > e.records - r->base || e.cd_size != e.records - r->base - e.cd_off)
        return afmt_ar_fail(r, AFMT_E_CONSTRAINT, NULL, strcmp(e.rec, "end") ? "zip64_end.cd_offset" : "end.cd_offset",
                            e.cd_at, "a central directory of %" PRIu64 " bytes at offset %" PRIu64 " does not end "
                            "where the end records begin (offset %" PRIu64 ")", e.cd_size, e.cd_off,
                            e.records - r->base);
    if (e.count > e.cd_size / CENTRAL_LEN)
        return afmt_ar_fail(r, AFMT_E_SIZE, NULL, strcmp(e.rec, "end") ? "zip64_end.entries" : "end.entries",
                            e.count_at, "%" PRIu64 " entries cannot fit in a central directory of %" PRIu64
                            " bytes (46 or more each)", e.count, e.cd_size);
    if (e.count > r->opt->limits.max_items)
        return afmt_ar_fail(r, AFMT_E_LIMIT, NULL, strcmp(e.rec, "end") ? "zip64_end.entries" : "end.entries",
                            e.count_at, "%" PRIu64 " members, more than the limit of %" PRIu64
                            " (limits.max_items)", e.count, r->opt->limits.max_items);
    r->m = e.count ? malloc((size_t)e.count * sizeof *r->m) : NULL;
    if (e.count && !r->m)
        return afmt_ar_fail(r, AFMT_E_NOMEM, NULL, NULL, e.cd_at, "no memory for %" PRIu64 " members", e.count);
    r->cap = (size_t)e.count;
    cd = r->base + e.cd_off;
    r->members_end = cd;
    for (i = 0, p = cd; i < e.count; i++) {
        uint64_t len = 0;
        if (read_entry(r, i, p, cd + e.cd_size - p, &len) != 0)
            return -1;
        p += len;
    }
    if (p != cd + e.cd_size)
        return afmt_ar_fail(r, AFMT_E_SIZE, NULL, "central", p, "%" PRIu64 " bytes after the %" PRIu64
                            " central entries the end record counts", cd + e.cd_size - p, e.count);
    return afmt_ar_sort_names(r);
}
