/* afmt CLI: validating the members of a tar shard (WebDataset style).
 *
 * The archive is streamed with libarchive (loaded on first use, see
 * libarchive.h): every regular member whose name ends with an extension of
 * a known format is read into the worker's reusable buffer (at most the
 * stream limit, --max-bytes or 1 GiB) and checked, reported as
 * "shard.tar:000123.ten".  Members above TAR_STREAM_ABOVE are validated
 * through the stream window instead.  Other members are skipped; a shard
 * with no member of a known format is invalid.  A member the archive cuts
 * short is reported as that member, truncated.
 */
#include "report.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fail.h"
#include "libarchive.h"

/* Members larger than this are validated as streams through the worker's
 * window instead of being read into memory. */
#define TAR_STREAM_ABOVE ((int64_t)16 << 20)
#define TAR_READ_BLOCK ((size_t)64 << 10)

typedef struct tar_run {
    afmt_cli_worker *w;
    const afmt_cli_libarchive *la;
    struct archive *ar;
    const char *path;
    /* standard input: the head already read, then the descriptor */
    afmt_cli_input *in;
    uint64_t head_at;
    uint8_t *block;
    int cut; /* the archive ended inside a streamed member */
} tar_run;

static int ends_with_nocase(const char *name, const char *ext)
{
    size_t n = strlen(name), e = strlen(ext), i;

    if (e == 0 || e > n)
        return 0;
    for (i = 0; i < e; i++) {
        int a = (unsigned char)name[n - e + i], b = (unsigned char)ext[i];
        if (a >= 'A' && a <= 'Z') a += 'a' - 'A';
        if (b >= 'A' && b <= 'Z') b += 'a' - 'A';
        if (a != b)
            return 0;
    }
    return 1;
}

int afmt_cli_is_tar_path(const char *path)
{
    static const char *const tar_ext[] = {
        ".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tar.xz", ".txz",
        ".tar.zst", ".tar.lz4", NULL
    };
    const char *const *e;

    for (e = tar_ext; *e; e++)
        if (ends_with_nocase(path, *e))
            return 1;
    return 0;
}

int afmt_cli_looks_like_tar(const uint8_t *h, uint64_t len)
{
    /* POSIX ustar and GNU tar put "ustar" at offset 257. */
    if (len >= 262 && memcmp(h + 257, "ustar", 5) == 0)
        return 1;
    /* gzip, bzip2, xz, zstd: no afmt format is a compressed stream, so
     * such an input can only be a compressed shard (or nothing). */
    return (len >= 2 && h[0] == 0x1f && h[1] == 0x8b) ||
           (len >= 3 && memcmp(h, "BZh", 3) == 0) ||
           (len >= 6 && memcmp(h, "\xfd" "7zXZ\0", 6) == 0) ||
           (len >= 4 && memcmp(h, "\x28\xb5\x2f\xfd", 4) == 0);
}

/* Named like a file of some format (even if two formats share the
 * extension)? */
static int has_format_extension(const char *name)
{
    const afmt_format *tie = NULL;
    return afmt_format_by_extension(name, &tie) != NULL || tie != NULL;
}

static void archive_failure(tar_run *t)
{
    const char *msg = t->la->error_string(t->ar);
    afmt_error err;

    afmt_error_clear(&err);
    afmt_cli_fail(&err, AFMT_E_IO, NULL, AFMT_NO_OFFSET, "archive: %s",
                  msg ? msg : "cannot read");
    afmt_cli_report_error(t->w, t->path, &err);
}

/* Read the current member into dst, keeping at most limit + 1 bytes.
 * Returns 0 (with *over set when the member is larger than limit), -1 on
 * a read error (the archive ends inside the member), -2 when memory runs
 * out. */
static int read_member(tar_run *t, afmt_cli_buf *dst, uint64_t limit,
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
        ssize_t n;

        if ((uint64_t)dst->len >= want)
            break;
        if (afmt_cli_buf_reserve(dst, size >= 0 ? (size_t)(want - dst->len)
                                                : (size_t)1 << 16) != 0)
            return -2;
        room = dst->cap - dst->len - 1;
        if ((uint64_t)room > want - dst->len)
            room = (size_t)(want - dst->len);
        n = t->la->read_data(t->ar, dst->p + dst->len, room);
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

/* The rest of a large member.  An archive that ends inside it ends the
 * member: the validator then says which field is cut short. */
static int member_read(void *ctx, uint8_t *buf, size_t n, size_t *got)
{
    tar_run *t = ctx;
    ssize_t k = t->la->read_data(t->ar, buf, n);
    if (k < 0)
        t->cut = 1;
    *got = k < 0 ? 0 : (size_t)k;
    return 0;
}

/* A large member: its first bytes for detection, the rest read through. */
static void stream_member(tar_run *t, const char *name)
{
    afmt_cli_input in;
    memset(&in, 0, sizeof in);
    in.fd = -1;
    in.is_stream = 1;
    in.limit = t->w->cfg->file_limit;
    while (in.len < sizeof in.head) {
        ssize_t k = t->la->read_data(t->ar, in.head + in.len, (size_t)(sizeof in.head - in.len));
        if (k <= 0)
            break;
        in.len += (uint64_t)k;
    }
    in.data = in.head;
    in.size = in.len;
    in.read_more = member_read;
    in.read_ctx = t;
    afmt_cli_check_input(t->w, t->w->name.p, name, &in);
}

/* One member of at most TAR_STREAM_ABOVE bytes (or of unknown size). */
static int memory_member(tar_run *t, const char *name, int64_t size)
{
    afmt_cli_worker *w = t->w;
    uint64_t limit = w->cfg->stream_limit;
    int over, r = read_member(t, &w->data, limit, size, &over);
    const uint8_t *bytes = (const uint8_t *)(w->data.len ? w->data.p : "");

    if (r == -2) {
        afmt_cli_report_message(w, t->path, "out of memory reading a member");
        return -1;
    }
    if (r == -1) {
        /* The archive ends inside this member. */
        const char *why = t->la->error_string(t->ar);
        afmt_cli_check_cut(w, w->name.p, name, bytes, w->data.len,
                           size >= 0 ? (uint64_t)size : UINT64_MAX,
                           why ? why : "archive: cannot read");
        return -1;
    }
    if (over) {
        afmt_cli_input in;

        memset(&in, 0, sizeof in);
        in.fd = -1;
        in.len = w->data.len < sizeof in.head ? w->data.len : sizeof in.head;
        memcpy(in.head, w->data.p, (size_t)in.len);
        in.data = in.head;
        in.size = size >= 0 ? (uint64_t)size : w->data.len;
        in.over_limit = 1;
        in.limit = limit;
        in.is_stream = size < 0;
        afmt_cli_check_input(w, w->name.p, name, &in);
    } else {
        afmt_cli_check_bytes(w, w->name.p, name, bytes, w->data.len);
    }
    return 0;
}

/* libarchive's read callback for standard input: the head already read
 * for detection, then the descriptor. */
static ssize_t stdin_read(struct archive *ar, void *client, const void **buffer)
{
    tar_run *t = client;
    size_t got;
    (void)ar;
    if (t->head_at < t->in->len) {
        size_t k = (size_t)(t->in->len - t->head_at);
        *buffer = t->in->head + t->head_at;
        t->head_at += k;
        return (ssize_t)k;
    }
    *buffer = t->block;
    if (afmt_cli_read_full(t->in->fd, t->block, TAR_READ_BLOCK, -1, &got) != 0)
        return -1;
    return (ssize_t)got;
}

static int open_archive(tar_run *t)
{
    const afmt_cli_libarchive *la = t->la;

    la->read_support_filter_all(t->ar);
    la->read_support_format_tar(t->ar);
    la->read_support_format_gnutar(t->ar);
    if (!t->in)
        return la->read_open_filename(t->ar, t->path, TAR_READ_BLOCK);
    if (!afmt_cli_input_is_lazy(t->in))
        return la->read_open_memory(t->ar, t->in->data, (size_t)t->in->len);
    t->block = malloc(TAR_READ_BLOCK);
    if (!t->block)
        return AFMT_LA_FATAL;
    return la->read_open(t->ar, t, NULL, stdin_read, NULL);
}

static void no_member(tar_run *t, uint64_t seen)
{
    afmt_error err;

    afmt_error_clear(&err);
    afmt_cli_fail(&err, AFMT_E_DETECT, NULL, AFMT_NO_OFFSET,
                  "no member with the extension of a known format (%" PRIu64
                  " member%s)", seen, seen == 1 ? "" : "s");
    afmt_cli_report_invalid(t->w, t->path, NULL, &err);
}

/* Check the members of an open archive with a format's extension, each
 * as a file of its own; *members counts them, *seen every regular file.
 * 0 at the archive's end, -1 after a failure (said). */
static int check_members(tar_run *t, uint64_t *members, uint64_t *seen)
{
    afmt_cli_worker *w = t->w;
    struct archive_entry *ent;
    int r, failed = 0;

    while (!failed && (r = t->la->read_next_header(t->ar, &ent)) != AFMT_LA_EOF) {
        const char *name;
        int64_t size;

        if (r < AFMT_LA_WARN) {
            archive_failure(t);
            return -1;
        }
        if (t->la->entry_filetype(ent) != AFMT_LA_IFREG)
            continue;
        (*seen)++;
        name = t->la->entry_pathname(ent);
        if (!name || !has_format_extension(name))
            continue;
        size = t->la->entry_size_is_set(ent) ? t->la->entry_size(ent) : -1;
        afmt_cli_buf_reset(&w->name, (size_t)1 << 16);
        afmt_cli_buf_printf(&w->name, "%s:%s", t->path, name);
        (*members)++;
        w->archive = t->path; /* the verdicts name a member of path */
        if (size < 0 || size > TAR_STREAM_ABOVE)
            stream_member(t, name);
        else if (memory_member(t, name, size) != 0)
            failed = 1;
        w->archive = NULL;
        failed |= t->cut;
    }
    return failed ? -1 : 0;
}

void afmt_cli_check_tar(afmt_cli_worker *w, const char *path, afmt_cli_input *in)
{
    tar_run t;
    const char *why = NULL;
    uint64_t members = 0, seen = 0;
    int failed;

    memset(&t, 0, sizeof t);
    t.w = w;
    t.path = path;
    t.in = in;
    t.la = afmt_cli_libarchive_get(&why);
    if (!t.la) {
        afmt_cli_report_message(w, path, why);
        return;
    }
    t.ar = t.la->read_new();
    if (!t.ar) {
        afmt_cli_report_message(w, path, "archive: out of memory");
        return;
    }
    if (open_archive(&t) != AFMT_LA_OK) {
        archive_failure(&t);
        t.la->read_free(t.ar);
        free(t.block);
        return;
    }
    failed = check_members(&t, &members, &seen) != 0;
    t.la->read_free(t.ar);
    free(t.block);
    if (members == 0 && !failed)
        no_member(&t, seen);
    afmt_cli_buf_reset(&w->data, (size_t)64 << 20);
}
