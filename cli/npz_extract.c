/* afmt CLI: one member of a .npz archive, read into memory for afmt info,
 * dump and convert (see npz.h). */
#include "npz.h"

#include <inttypes.h>
#include <string.h>
#include <sys/stat.h>

#include "fail.h"
#include "zip.h"
#include "zlib_dl.h"

/* The member called name, or name + ".npy" (np.load's keys drop it). */
static int find_member(afmt_cli_zip *z, const char *name, afmt_cli_zip_member *m,
                       afmt_error *err)
{
    size_t n = strlen(name);
    int r;

    while ((r = afmt_cli_zip_next(z, m, err)) == 1) {
        if ((m->name_len == n && memcmp(m->name, name, n) == 0) ||
            (m->name_len == n + 4 && memcmp(m->name, name, n) == 0 &&
             memcmp(m->name + n, ".npy", 4) == 0))
            return 0;
    }
    if (r == 0)
        afmt_cli_fail(err, AFMT_E_IO, NULL, AFMT_NO_OFFSET,
                      "no member '%s' (nor '%s.npy') in the archive", name, name);
    return -1;
}

static int inflate_into(const afmt_cli_zip *z, const afmt_cli_zip_member *m,
                        afmt_cli_buf *dst, afmt_error *err)
{
    const char *why = NULL;
    const afmt_cli_zlib *zl = afmt_cli_zlib_get(&why);
    afmt_z_stream zs;
    int rc;

    if (!zl)
        return afmt_cli_fail(err, AFMT_E_IO, NULL, AFMT_NO_OFFSET, "%s", why);
    memset(&zs, 0, sizeof zs);
    if (zl->inflate_init2_(&zs, -15, "1.2.13", (int)sizeof zs) != AFMT_Z_OK)
        return afmt_cli_fail(err, AFMT_E_NOMEM, NULL, AFMT_NO_OFFSET, "zlib: cannot start");
    /* sizes were checked against the limit (at most 1 GiB): they fit unsigned */
    zs.next_in = z->buf + m->data_off;
    zs.avail_in = (unsigned)m->csize;
    zs.next_out = (unsigned char *)dst->p;
    zs.avail_out = (unsigned)m->usize + 1; /* one more proves a size lie */
    rc = zl->inflate(&zs, AFMT_Z_NO_FLUSH);
    dst->len = (size_t)zs.total_out;
    zl->inflate_end(&zs);
    if (rc != AFMT_Z_STREAM_END || dst->len != m->usize || zs.total_in != m->csize)
        return afmt_cli_fail(err, AFMT_E_SIZE, "local.data", m->data_off,
                             "the member does not inflate to the %" PRIu64 " bytes the archive "
                             "declares (%s)", m->usize,
                             rc == AFMT_Z_STREAM_END ? "a size lie" : "corrupt or cut short");
    return 0;
}

int afmt_cli_npz_read_member(const uint8_t *buf, uint64_t len, const char *name,
                             uint64_t limit, afmt_cli_buf *dst, afmt_error *err)
{
    afmt_cli_zip z;
    afmt_cli_zip_member m;

    if (afmt_cli_zip_open(&z, buf, len, err) != 0 || afmt_cli_zip_check_extents(&z, err) != 0 ||
        find_member(&z, name, &m, err) != 0)
        return -1;
    if (m.usize > limit || (m.method == 8 && m.usize / AFMT_CLI_NPZ_MAX_RATIO > m.csize))
        return afmt_cli_fail(err, AFMT_E_LIMIT, "central.uncompressed_size",
                             m.cd_entry + 24, "member of %" PRIu64 " bytes (from %" PRIu64
                             " stored): more than the limit of %" PRIu64 " or than deflate can "
                             "give", m.usize, m.csize, limit);
    dst->len = 0;
    if (afmt_cli_buf_reserve(dst, (size_t)m.usize + 2) != 0)
        return afmt_cli_fail(err, AFMT_E_NOMEM, NULL, AFMT_NO_OFFSET,
                             "no memory for a member of %" PRIu64 " bytes", m.usize);
    if (m.method == 0) {
        memcpy(dst->p, buf + m.data_off, (size_t)m.usize);
        dst->len = (size_t)m.usize;
    } else if (inflate_into(&z, &m, dst, err) != 0) {
        return -1;
    }
    if (afmt_cli_crc32(0, (const uint8_t *)dst->p, dst->len) != m.crc)
        return afmt_cli_fail(err, AFMT_E_CONSTRAINT, "central.crc32",
                             m.cd_entry + 16, "the member's data does not match its CRC-32");
    return 0;
}

int afmt_cli_is_npz_path(const char *path)
{
    size_t n = strlen(path);
    const char *e = path + (n >= 4 ? n - 4 : 0);
    return n >= 4 && e[0] == '.' && (e[1] | 32) == 'n' && (e[2] | 32) == 'p' &&
           (e[3] | 32) == 'z';
}

int afmt_cli_npz_split(const char *path, size_t *archive_len)
{
    struct stat st;
    char prefix[4096];
    size_t i, n = strlen(path);

    if (stat(path, &st) == 0)
        return 0; /* a file of that name wins */
    for (i = n; i-- > 0;) {
        if (path[i] != ':' || i < 4 || i >= sizeof prefix)
            continue;
        memcpy(prefix, path, i);
        prefix[i] = '\0';
        if (afmt_cli_is_npz_path(prefix) && stat(prefix, &st) == 0 && S_ISREG(st.st_mode)) {
            *archive_len = i;
            return 1;
        }
    }
    return 0;
}
