/* afmt CLI: the members of a NumPy .npz archive (np.savez,
 * np.savez_compressed): a zip of .npy files, stored or deflated.
 *
 * The archive is mapped (or read, from a pipe) and its structure checked
 * first, whole (zip.h): end records, central directory against local
 * headers, no overlapping members.  Then each member whose name has a
 * known extension is checked like a tar member, shown as "x.npz:w.npy":
 *
 *   stored    its CRC-32, then its bytes in place (no copy);
 *   deflated  refused before inflating when it claims more than deflate
 *             can give (NPZ_MAX_RATIO bytes per compressed byte) or more
 *             than the member limit; inflated into memory up to
 *             NPZ_MEMORY_ABOVE bytes, else inflated twice through a fixed
 *             buffer: once for its real size and CRC-32, once through the
 *             stream window for the validator.  Inflating stops at the
 *             declared size, so a size lie costs no more than the truth.
 *
 * Nothing is extracted to disk.  zlib is loaded only for deflated members
 * (zlib_dl.h).
 */
#include "report.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "fail.h"
#include "npz.h"
#include "render.h"
#include "sigbus.h"
#include "zip.h"
#include "zlib_dl.h"

#define NPZ_MEMORY_ABOVE ((uint64_t)16 << 20)
#define NPZ_MAX_RATIO AFMT_CLI_NPZ_MAX_RATIO
#define NPZ_SCRATCH ((size_t)256 << 10)

/* Verdicts about the archive itself (not a member's content) name this
 * format: "x.npz: invalid npz: central[2].crc32 at offset ...". */
static const afmt_format npz_container = { .name = "npz" };

typedef struct npz_run {
    afmt_cli_worker *w;
    const char *path;
    afmt_cli_zip z;
    const afmt_cli_zip_member *m;
    const afmt_cli_zlib *zl;
    afmt_z_stream zs;
    int zs_live;
    uint64_t total;   /* bytes inflated so far */
    uint32_t crc;
    int failed;       /* inflate_some reported the member invalid */
} npz_run;

static void member_invalid(npz_run *r, const char *field, uint64_t offset,
                           afmt_code code, const char *msg)
{
    afmt_error err;
    uint64_t base = r->w->member_base;
    afmt_error_clear(&err);
    afmt_cli_fail(&err, code, field, offset, "%s", msg);
    afmt_cli_error_set_format(&err, "npz");
    r->w->member_base = 0; /* offset is the archive's own */
    afmt_cli_report_invalid(r->w, r->w->name.p, &npz_container, &err);
    r->w->member_base = base;
}

static void inflate_stop(npz_run *r)
{
    if (r->zs_live)
        r->zl->inflate_end(&r->zs);
    r->zs_live = 0;
}

/* Start inflating r->m; 0, or -1 (reported). */
static int inflate_start(npz_run *r)
{
    const char *why = NULL;
    const afmt_cli_zip_member *m = r->m;

    r->zl = afmt_cli_zlib_get(&why);
    if (!r->zl) {
        afmt_cli_report_message(r->w, r->w->name.p, why);
        return -1;
    }
    memset(&r->zs, 0, sizeof r->zs);
    if (r->zl->inflate_init2_(&r->zs, -15, "1.2.13", (int)sizeof r->zs) != AFMT_Z_OK) {
        afmt_cli_report_message(r->w, r->w->name.p, "zlib: cannot start inflating");
        return -1;
    }
    r->zs_live = 1;
    r->zs.next_in = r->z.buf + m->data_off;
    r->total = 0;
    r->crc = 0;
    r->failed = 0;
    return 0;
}

static void inflate_fail(npz_run *r, const char *why)
{
    char field[64], msg[256];
    snprintf(field, sizeof field, "local[%" PRIu64 "].data", r->m->index);
    snprintf(msg, sizeof msg, "%s", why);
    member_invalid(r, field, r->m->data_off + (uint64_t)(r->zs.next_in - (r->z.buf + r->m->data_off)),
                   AFMT_E_SIZE, msg);
    r->failed = 1;
}

/* Up to n inflated bytes into buf; *got 0 at the end of the member.  An
 * archive that lies (more or fewer bytes than declared, corrupt data) is
 * reported, and then 0 bytes are given. */
static int inflate_some(npz_run *r, uint8_t *buf, size_t n, size_t *got)
{
    const afmt_cli_zip_member *m = r->m;
    uint64_t used = (uint64_t)(r->zs.next_in - (r->z.buf + m->data_off));
    int rc;

    *got = 0;
    if (r->failed || !r->zs_live)
        return 0;
    if ((uint64_t)n > m->usize - r->total + 1)
        n = (size_t)(m->usize - r->total + 1); /* one more proves a lie */
    r->zs.avail_in = m->csize - used > 0x40000000u ? 0x40000000u : (unsigned)(m->csize - used);
    r->zs.next_out = buf;
    r->zs.avail_out = n > 0x40000000u ? 0x40000000u : (unsigned)n;
    rc = r->zl->inflate(&r->zs, AFMT_Z_NO_FLUSH);
    *got = (size_t)(r->zs.next_out - buf);
    r->total += *got;
    r->crc = afmt_cli_crc32(r->crc, buf, *got);
    if (r->total > m->usize) {
        inflate_fail(r, "the member inflates to more bytes than the archive declares "
                        "(a size lie)");
    } else if (rc == AFMT_Z_STREAM_END) {
        inflate_stop(r);
        if (r->total != m->usize || (uint64_t)(r->zs.next_in - (r->z.buf + m->data_off)) != m->csize)
            inflate_fail(r, r->total != m->usize
                ? "the member inflates to fewer bytes than the archive declares (a size lie)"
                : "the deflate stream ends before the member's compressed size");
    } else if (rc != AFMT_Z_OK && !(rc == AFMT_Z_BUF_ERROR && *got > 0)) {
        inflate_fail(r, rc == AFMT_Z_BUF_ERROR ? "the deflate stream is cut short"
                                               : "the deflate data is corrupt");
    }
    if (r->failed)
        *got = 0;
    return 0;
}

/* Inflate the whole member through buf (n bytes each time, kept in dst
 * when dst is not NULL); 0 when it holds exactly what the archive says,
 * -1 when that was reported otherwise. */
static int inflate_all(npz_run *r, uint8_t *buf, size_t n, afmt_cli_buf *dst)
{
    size_t got;
    char field[64], msg[160];

    if (inflate_start(r) != 0)
        return -1;
    do {
        uint8_t *to = dst ? (uint8_t *)dst->p + dst->len : buf;
        if (dst)
            n = dst->cap - dst->len - 1;
        inflate_some(r, to, n, &got);
        if (dst)
            dst->len += got;
    } while (got > 0 && r->zs_live);
    inflate_stop(r);
    if (r->failed)
        return -1;
    if (r->total != r->m->usize) { /* the data stopped short of its end */
        inflate_fail(r, "the deflate stream is cut short");
        return -1;
    }
    if (r->crc != r->m->crc) {
        snprintf(field, sizeof field, "central[%" PRIu64 "].crc32", r->m->index);
        snprintf(msg, sizeof msg, "the inflated data's CRC-32 is 0x%08" PRIx32
                 ", the archive says 0x%08" PRIx32, r->crc, r->m->crc);
        member_invalid(r, field, r->m->cd_entry + 16, AFMT_E_CONSTRAINT, msg);
        return -1;
    }
    return 0;
}

static int stream_more(void *ctx, uint8_t *buf, size_t n, size_t *got)
{
    return inflate_some(ctx, buf, n, got);
}

/* A large deflated member: checked once for size and CRC, then inflated
 * again through the validator's stream window. */
static void large_member(npz_run *r, const char *ext_name)
{
    afmt_cli_input in;
    uint8_t *scratch = malloc(NPZ_SCRATCH);

    if (!scratch) {
        afmt_cli_report_message(r->w, r->w->name.p, "out of memory");
        return;
    }
    if (inflate_all(r, scratch, NPZ_SCRATCH, NULL) != 0 || inflate_start(r) != 0) {
        free(scratch);
        return;
    }
    free(scratch);
    memset(&in, 0, sizeof in);
    in.fd = -1;
    in.is_stream = 1;
    in.limit = r->w->cfg->stream_limit;
    while (in.len < sizeof in.head) {
        size_t got;
        inflate_some(r, in.head + in.len, (size_t)(sizeof in.head - in.len), &got);
        if (got == 0)
            break;
        in.len += got;
    }
    in.data = in.head;
    in.size = in.len;
    in.read_more = stream_more;
    in.read_ctx = r;
    afmt_cli_check_input(r->w, r->w->name.p, ext_name, &in);
    inflate_stop(r);
}

/* Refused before any inflating: more than the member limit, or more than
 * deflate can give from the compressed bytes.  1 when refused. */
static int refused_size(npz_run *r)
{
    const afmt_cli_zip_member *m = r->m;
    uint64_t limit = r->w->cfg->stream_limit;
    char field[64], msg[256];

    snprintf(field, sizeof field, "central[%" PRIu64 "].uncompressed_size", m->index);
    if (m->usize > limit) {
        snprintf(msg, sizeof msg, "member of %" PRIu64 " bytes, more than the limit of %"
                 PRIu64 " (--max-bytes)", m->usize, limit);
        member_invalid(r, field, m->cd_entry + 24, AFMT_E_LIMIT, msg);
        return 1;
    }
    if (m->method == 8 && m->usize / NPZ_MAX_RATIO > m->csize) {
        snprintf(msg, sizeof msg, "%" PRIu64 " bytes claimed from %" PRIu64 " compressed: "
                 "more than deflate's largest ratio (%d:1), a size lie or a zip bomb",
                 m->usize, m->csize, NPZ_MAX_RATIO);
        member_invalid(r, field, m->cd_entry + 24, AFMT_E_LIMIT, msg);
        return 1;
    }
    return 0;
}

static void check_member(npz_run *r, const char *ext_name)
{
    const afmt_cli_zip_member *m = r->m;
    afmt_cli_worker *w = r->w;
    const uint8_t *data = r->z.buf + m->data_off;
    char field[64], msg[160];
    uint32_t crc;

    if (refused_size(r))
        return;
    if (m->method == 0) {
        crc = afmt_cli_crc32(0, data, (size_t)m->csize);
        if (crc == m->crc) {
            afmt_cli_check_bytes(w, w->name.p, ext_name, data, m->csize);
            return;
        }
        snprintf(field, sizeof field, "central[%" PRIu64 "].crc32", m->index);
        snprintf(msg, sizeof msg, "the data's CRC-32 is 0x%08" PRIx32 ", the archive says "
                 "0x%08" PRIx32, crc, m->crc);
        member_invalid(r, field, m->cd_entry + 16, AFMT_E_CONSTRAINT, msg);
        return;
    }
    if (m->usize > NPZ_MEMORY_ABOVE) {
        large_member(r, ext_name);
        return;
    }
    w->member.len = 0;
    if (afmt_cli_buf_reserve(&w->member, (size_t)m->usize + 1) != 0) {
        afmt_cli_report_message(w, w->name.p, "out of memory for a member");
        return;
    }
    if (inflate_all(r, NULL, 0, &w->member) == 0)
        afmt_cli_check_bytes(w, w->name.p, ext_name, (const uint8_t *)w->member.p,
                             w->member.len);
}

/* Named like a file of some format (even if two formats share the
 * extension)? */
static int has_format_extension(const char *name)
{
    const afmt_format *tie = NULL;
    return afmt_format_by_extension(name, &tie) != NULL || tie != NULL;
}

static void archive_invalid(npz_run *r, afmt_error *err)
{
    afmt_cli_error_set_format(err, "npz");
    afmt_cli_report_invalid(r->w, r->path, &npz_container, err);
}

/* Every member with a known extension; 0 when there was none. */
static uint64_t check_members(npz_run *r, uint64_t *seen)
{
    afmt_cli_worker *w = r->w;
    afmt_cli_zip_member m;
    afmt_error err;
    uint64_t checked = 0;
    size_t prefix = strlen(r->path) + 1;

    afmt_error_clear(&err);
    while (afmt_cli_zip_next(&r->z, &m, &err) == 1) {
        (*seen)++;
        afmt_cli_buf_reset(&w->name, (size_t)1 << 16);
        afmt_cli_buf_printf(&w->name, "%s:%.*s", r->path, (int)m.name_len,
                            (const char *)m.name);
        if (!has_format_extension(w->name.p + prefix))
            continue;
        checked++;
        r->m = &m;
        w->archive = r->path;
        /* a stored member's bytes lie in the archive as they are */
        w->member_base = m.method == 0 ? m.data_off : AFMT_NO_OFFSET;
        w->member_at = m.data_off;
        w->member_len = m.csize;
        check_member(r, w->name.p + prefix);
        w->archive = NULL;
        afmt_cli_member_where_unknown(w);
    }
    return checked;
}

static void check_archive(void *ctx)
{
    npz_run *r = ctx;
    afmt_error err;
    uint64_t seen = 0;

    afmt_error_clear(&err);
    if (afmt_cli_zip_open(&r->z, r->z.buf, r->z.len, &err) != 0 ||
        afmt_cli_zip_check_extents(&r->z, &err) != 0) {
        archive_invalid(r, &err);
        return;
    }
    if (check_members(r, &seen) == 0) {
        afmt_error_clear(&err);
        afmt_cli_fail(&err, AFMT_E_DETECT, NULL, AFMT_NO_OFFSET,
                      "no member with the extension of a known format (%" PRIu64 " member%s)",
                      seen, seen == 1 ? "" : "s");
        afmt_cli_report_invalid(r->w, r->path, NULL, &err);
    }
}

void afmt_cli_check_npz(afmt_cli_worker *w, const char *path)
{
    afmt_cli_input in;
    afmt_error err;
    npz_run r;

    afmt_error_clear(&err);
    if (afmt_cli_input_open(&in, path, w->cfg->file_limit, w->cfg->stream_limit, &w->data,
                            &err) != 0) {
        afmt_cli_report_error(w, path, &err);
        return;
    }
    if (in.over_limit) {
        afmt_cli_limit_error(&err, in.size, in.limit, in.is_stream);
        afmt_cli_report_invalid(w, path, &npz_container, &err);
    } else {
        memset(&r, 0, sizeof r);
        r.w = w;
        r.path = path;
        r.z.buf = in.data;
        r.z.len = in.len;
        uintptr_t at = 0;
        if (afmt_cli_sigbus_guard(check_archive, &r, &at) != 0) {
            char msg[AFMT_MESSAGE_MAX];
            uint64_t offset = afmt_cli_sigbus_describe(at, in.data, in.len, msg, sizeof msg);
            inflate_stop(&r);
            w->archive = NULL;
            afmt_cli_member_where_unknown(w);
            afmt_error_clear(&err);
            afmt_cli_fail(&err, AFMT_E_IO, NULL, offset, "%s; try again", msg);
            afmt_cli_report_error(w, path, &err);
        }
    }
    afmt_cli_input_close(&in);
    afmt_cli_buf_reset(&w->data, (size_t)64 << 20);
    afmt_cli_buf_reset(&w->member, (size_t)64 << 20);
}
