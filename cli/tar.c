/* afmt CLI: validating the members of a tar shard (WebDataset style).
 *
 * The archive is streamed with libarchive: every regular member whose name
 * ends with an extension of a known format is read into the worker's
 * reusable buffer (at most the stream limit, --max-bytes or 1 GiB) and
 * checked, reported as "shard.tar:000123.ten".  Other members are skipped.
 */
#include "report.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "formats.h"

#ifdef AFMT_HAVE_ARCHIVE
#include <archive.h>
#include <archive_entry.h>

static void archive_failure(afmt_cli_worker *w, const char *path,
                            struct archive *ar)
{
    const char *msg = archive_error_string(ar);
    afmt_error err;

    afmt_error_clear(&err);
    afmt_fail(&err, AFMT_E_IO, NULL, NULL, AFMT_NO_INDEX, 0, "archive: %s",
              msg ? msg : "cannot read");
    afmt_cli_report_error(w, path, &err);
}

/* Read the current member into w->data, keeping at most limit + 1 bytes.
 * Returns 0 (with *over set when the member is larger than limit), -1 on
 * a read error, -2 when memory runs out. */
static int read_member(struct archive *ar, afmt_cli_buf *dst, uint64_t limit,
                       int64_t size, int *over)
{
    uint64_t want = limit == UINT64_MAX ? UINT64_MAX : limit + 1;

    *over = 0;
    dst->len = 0;
    dst->oom = 0;
    if (size >= 0 && (uint64_t)size > limit) {
        /* Known to be too large: keep the head for detection only. */
        want = AFMT_CLI_HEAD_BYTES;
        *over = 1;
    } else if (size >= 0) {
        want = (uint64_t)size;
    }
    for (;;) {
        size_t room;
        la_ssize_t n;

        if ((uint64_t)dst->len >= want)
            break;
        if (afmt_cli_buf_reserve(dst, size >= 0 ? (size_t)(want - dst->len)
                                                : (size_t)1 << 16) != 0)
            return -2;
        room = dst->cap - dst->len - 1;
        if ((uint64_t)room > want - dst->len)
            room = (size_t)(want - dst->len);
        n = archive_read_data(ar, dst->p + dst->len, room);
        if (n < 0)
            return -1;
        if (n == 0)
            break;
        dst->len += (size_t)n;
    }
    if ((uint64_t)dst->len > limit)
        *over = 1;
    return 0;
}

/* Members larger than this are validated as streams through the worker's
 * window instead of being read into memory. */
#define TAR_STREAM_ABOVE ((int64_t)16 << 20)

static int member_read(void *ctx, uint8_t *buf, size_t n, size_t *got)
{
    la_ssize_t k = archive_read_data((struct archive *)ctx, buf, n);
    if (k < 0)
        return -1;
    *got = (size_t)k;
    return 0;
}

/* A large member: its first bytes for detection, the rest read through. */
static int stream_member(afmt_cli_worker *w, struct archive *ar, const char *name)
{
    afmt_cli_input in;
    memset(&in, 0, sizeof in);
    in.fd = -1;
    in.is_stream = 1;
    in.limit = w->cfg->file_limit;
    while (in.len < sizeof in.head) {
        la_ssize_t k = archive_read_data(ar, in.head + in.len, (size_t)(sizeof in.head - in.len));
        if (k < 0)
            return -1;
        if (k == 0)
            break;
        in.len += (uint64_t)k;
    }
    in.data = in.head;
    in.size = in.len;
    in.read_more = member_read;
    in.read_ctx = ar;
    afmt_cli_check_input(w, w->name.p, name, &in);
    return 0;
}

void afmt_cli_check_tar(afmt_cli_worker *w, const char *path)
{
    struct archive *ar = archive_read_new();
    struct archive_entry *ent;
    uint64_t members = 0;
    uint64_t limit = w->cfg->stream_limit;
    int r, over;

    if (!ar) {
        afmt_cli_report_message(w, path, "archive: out of memory");
        return;
    }
    archive_read_support_filter_all(ar);
    archive_read_support_format_tar(ar);
    archive_read_support_format_gnutar(ar);
    if (archive_read_open_filename(ar, path, (size_t)1 << 16) != ARCHIVE_OK) {
        archive_failure(w, path, ar);
        archive_read_free(ar);
        return;
    }
    for (;;) {
        const char *name;
        int64_t size;

        r = archive_read_next_header(ar, &ent);
        if (r == ARCHIVE_EOF)
            break;
        if (r < ARCHIVE_WARN) {
            archive_failure(w, path, ar);
            break;
        }
        if (archive_entry_filetype(ent) != AE_IFREG)
            continue;
        name = archive_entry_pathname(ent);
        if (!name || !afmt_cli_has_known_ext(name))
            continue;
        size = archive_entry_size_is_set(ent) ? archive_entry_size(ent) : -1;
        afmt_cli_buf_reset(&w->name, (size_t)1 << 16);
        afmt_cli_buf_printf(&w->name, "%s:%s", path, name);
        if (size < 0 || size > TAR_STREAM_ABOVE) {
            if (stream_member(w, ar, name) != 0) {
                archive_failure(w, path, ar);
                break;
            }
            members++;
            continue;
        }
        r = read_member(ar, &w->data, limit, size, &over);
        if (r == -2) {
            afmt_cli_report_message(w, path, "out of memory reading a member");
            break;
        }
        if (r != 0) {
            archive_failure(w, path, ar);
            break;
        }
        if (over) {
            afmt_cli_input in;

            memset(&in, 0, sizeof in);
            in.len = w->data.len < sizeof in.head ? w->data.len : sizeof in.head;
            memcpy(in.head, w->data.p, (size_t)in.len);
            in.data = in.head;
            in.size = size >= 0 ? (uint64_t)size : w->data.len;
            in.over_limit = 1;
            in.limit = limit;
            in.is_stream = size < 0;
            afmt_cli_check_input(w, w->name.p, name, &in);
        } else {
            afmt_cli_check_bytes(w, w->name.p, name,
                                 (const uint8_t *)(w->data.len ? w->data.p : ""),
                                 w->data.len);
        }
        members++;
    }
    archive_read_free(ar);
    if (members == 0 && !w->cfg->quiet && !w->cfg->json)
        afmt_cli_out_stderr(&w->out, "%s: note: no member with a known extension\n",
                            path);
    afmt_cli_buf_reset(&w->data, (size_t)64 << 20);
}

#else /* !AFMT_HAVE_ARCHIVE */

/* Members larger than this are validated as streams through the worker's
 * window instead of being read into memory. */
#define TAR_STREAM_ABOVE ((int64_t)16 << 20)

static int member_read(void *ctx, uint8_t *buf, size_t n, size_t *got)
{
    la_ssize_t k = archive_read_data((struct archive *)ctx, buf, n);
    if (k < 0)
        return -1;
    *got = (size_t)k;
    return 0;
}

/* A large member: its first bytes for detection, the rest read through. */
static int stream_member(afmt_cli_worker *w, struct archive *ar, const char *name)
{
    afmt_cli_input in;
    memset(&in, 0, sizeof in);
    in.fd = -1;
    in.is_stream = 1;
    in.limit = w->cfg->file_limit;
    while (in.len < sizeof in.head) {
        la_ssize_t k = archive_read_data(ar, in.head + in.len, (size_t)(sizeof in.head - in.len));
        if (k < 0)
            return -1;
        if (k == 0)
            break;
        in.len += (uint64_t)k;
    }
    in.data = in.head;
    in.size = in.len;
    in.read_more = member_read;
    in.read_ctx = ar;
    afmt_cli_check_input(w, w->name.p, name, &in);
    return 0;
}

void afmt_cli_check_tar(afmt_cli_worker *w, const char *path)
{
    afmt_cli_report_message(w, path, "built without libarchive");
}

#endif
