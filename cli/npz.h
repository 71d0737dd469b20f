/* afmt CLI: NumPy .npz archives (zip files of .npy members).
 *
 * npz.c checks every member for afmt-validate (as tar.c does for tar
 * shards), npz_extract.c reads one member for afmt info, dump and convert
 * ("x.npz:weights", or "x.npz:weights.npy"), and npz_write.c writes an
 * archive of stored members for afmt convert --to npz.  The zip structure
 * itself is read by zip.h; zlib (for deflated members) is loaded on first
 * use (zlib_dl.h).
 */
#ifndef AFMT_CLI_NPZ_H
#define AFMT_CLI_NPZ_H

#include <stdint.h>
#include "afmt.h"
#include "buf.h"

/* deflate's largest expansion: a 258-byte match in about two bits.  A
 * member claiming more bytes per compressed byte is refused unread. */
#define AFMT_CLI_NPZ_MAX_RATIO 1032

/* Is path named like an .npz archive? */
int afmt_cli_is_npz_path(const char *path);

/* If path is "ARCHIVE.npz:MEMBER" and ARCHIVE.npz names a file while path
 * does not: 1 with *archive_len the length of ARCHIVE.npz; else 0. */
int afmt_cli_npz_split(const char *path, size_t *archive_len);

/* Member name (or name + ".npy") of the archive in buf[0..len), checked
 * (zip structure, size against limit and deflate's ratio, CRC-32), into
 * dst (reset first).  0, or -1 with err. */
int afmt_cli_npz_read_member(const uint8_t *buf, uint64_t len, const char *name,
                             uint64_t limit, afmt_cli_buf *dst, afmt_error *err);

/* Write views[0..n) (as afmt convert prepared them for npy: plain,
 * row-major) to out as an .npz of stored members NAME.npy (arr_I.npy
 * for an array without a name).  Refuses (AFMT_E_TYPE) two arrays that
 * would get one member name, and names that could escape a directory
 * when unzipped.  0, or -1 with err; out then holds a partial archive:
 * abort it. */
int afmt_cli_npz_write(const afmt_format *npy, const afmt_array *views, size_t n,
                       afmt_sink *out, afmt_error *err);

#endif /* AFMT_CLI_NPZ_H */
