/* afmt CLI: compressed tar shards (.tar.gz, .tgz, .tar.bz2, .tbz2,
 * .tar.xz, .txz, .tar.zst, .tar.lz4, or such a stream on standard input).
 *
 * libarchive (loaded on first use, libarchive.h) only decompresses: its
 * "raw" format behind its filters gives the tar's bytes, which become a
 * stream input checked like any other (check.c): the webdataset format
 * (spec/webdataset.json) reads the tar through the stream window, each
 * member another format parses reported as ARCHIVE:MEMBER (members.h).
 * A plain .tar is a file like any other and never comes here.
 */
#include "report.h"

#include <stdlib.h>
#include <string.h>

#include "fail.h"
#include "libarchive.h"

#define SHARD_READ_BLOCK ((size_t)64 << 10)

/* Decompression suffixes a shard may have after its ".tar" (or instead
 * of it). */
static const char *const compressed_ext[] = {
    ".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tar.xz", ".txz", ".tar.zst", ".tar.lz4", NULL
};

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

int afmt_cli_is_compressed_tar_path(const char *path)
{
    const char *const *e;

    for (e = compressed_ext; *e; e++)
        if (ends_with_nocase(path, *e))
            return 1;
    return 0;
}

int afmt_cli_looks_compressed(const uint8_t *h, uint64_t len)
{
    /* gzip, bzip2, xz, zstd: no afmt format is a compressed stream, so
     * such an input can only be a compressed shard (or nothing) */
    return (len >= 2 && h[0] == 0x1f && h[1] == 0x8b) ||
           (len >= 3 && memcmp(h, "BZh", 3) == 0) ||
           (len >= 6 && memcmp(h, "\xfd" "7zXZ\0", 6) == 0) ||
           (len >= 4 && memcmp(h, "\x28\xb5\x2f\xfd", 4) == 0);
}

typedef struct shard_run {
    afmt_cli_worker *w;
    const char *path;
    const afmt_cli_libarchive *la;
    struct archive *ar;
    /* standard input: the head already read, then the descriptor */
    afmt_cli_input *in;
    uint64_t head_at;
    uint8_t *block;
    int said; /* a read failure was said */
} shard_run;

/* libarchive's read callback for standard input. */
static ssize_t stdin_read(struct archive *ar, void *client, const void **buffer)
{
    shard_run *s = client;
    size_t got;
    (void)ar;
    if (s->head_at < s->in->len) {
        size_t k = (size_t)(s->in->len - s->head_at);
        *buffer = s->in->head + s->head_at;
        s->head_at += k;
        return (ssize_t)k;
    }
    *buffer = s->block;
    if (afmt_cli_read_full(s->in->fd, s->block, SHARD_READ_BLOCK, -1, &got) != 0)
        return -1;
    return (ssize_t)got;
}

/* The stream input's read function: the decompressed bytes.  A failure
 * (a corrupt or cut gzip) ends the stream as an I/O error, said once. */
static int shard_read(void *ctx, uint8_t *buf, size_t n, size_t *got)
{
    shard_run *s = ctx;
    ssize_t k = s->la->read_data(s->ar, buf, n);

    *got = 0;
    if (k < 0) {
        const char *why = s->la->error_string(s->ar);
        if (!s->said)
            afmt_cli_out_stderr(&s->w->out, "%s: error: decompressing: %s\n", s->path, why ? why : "cannot read");
        s->said = 1;
        return -1;
    }
    *got = (size_t)k;
    return 0;
}

static int open_raw(shard_run *s)
{
    struct archive_entry *entry;
    int rc;

    s->la->read_support_filter_all(s->ar);
    s->la->read_support_format_raw(s->ar);
    if (!s->in) {
        rc = s->la->read_open_filename(s->ar, s->path, SHARD_READ_BLOCK);
    } else {
        s->block = malloc(SHARD_READ_BLOCK);
        rc = s->block ? s->la->read_open(s->ar, s, NULL, stdin_read, NULL) : AFMT_LA_FATAL;
    }
    /* the raw format's one entry: the decompressed stream */
    return rc == AFMT_LA_OK ? s->la->read_next_header(s->ar, &entry) : rc;
}

/* The decompressed bytes as a stream input, checked. */
static void check_stream(shard_run *s)
{
    afmt_cli_input in;
    size_t got;

    memset(&in, 0, sizeof in);
    in.fd = -1;
    in.is_stream = 1;
    in.limit = s->w->cfg->stream_limit;
    while (in.len < sizeof in.head) {
        if (shard_read(s, in.head + in.len, (size_t)(sizeof in.head - in.len), &got) != 0 || got == 0)
            break;
        in.len += got;
    }
    in.data = in.head;
    in.size = in.len;
    in.read_more = shard_read;
    in.read_ctx = s;
    /* detected by the tar's magic, else named as the tar it holds */
    afmt_cli_check_input(s->w, s->path, "shard.tar", &in);
}

void afmt_cli_check_compressed(afmt_cli_worker *w, const char *path, afmt_cli_input *in)
{
    shard_run s;
    const char *why = NULL;

    memset(&s, 0, sizeof s);
    s.w = w;
    s.path = path;
    s.in = in;
    s.la = afmt_cli_libarchive_get(&why);
    if (!s.la) {
        afmt_cli_report_message(w, path, why);
        return;
    }
    s.ar = s.la->read_new();
    if (!s.ar) {
        afmt_cli_report_message(w, path, "decompressing: out of memory");
        return;
    }
    if (open_raw(&s) != AFMT_LA_OK) {
        const char *msg = s.la->error_string(s.ar);
        afmt_error err;
        afmt_error_clear(&err);
        afmt_cli_fail(&err, AFMT_E_IO, NULL, AFMT_NO_OFFSET, "decompressing: %s", msg ? msg : "cannot read");
        afmt_cli_report_error(w, path, &err);
    } else {
        check_stream(&s);
    }
    s.la->read_free(s.ar);
    free(s.block);
    afmt_cli_buf_reset(&w->data, (size_t)64 << 20);
}
