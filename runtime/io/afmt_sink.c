/* afmt runtime: sinks (buffer, FILE*, atomically replaced file).
 *
 * Each kind sets s->write; afmt_sink_put is the only caller and keeps
 * s->written and s->failed, so a failed sink refuses every later write and
 * a writer cannot half-succeed.  A file sink writes PATH.XXXXXX and only a
 * commit (flush, fsync, close, rename) makes it PATH; a character device
 * or FIFO is written through instead (afmt_sink.h says why).
 */
/* One of the three runtime files that need POSIX (with afmt_file.c and
 * afmt_fileio.c; here mkstemp, fdopen, fchmod, fsync, strerror_r,
 * O_DIRECTORY): it says so itself, so the runtime builds with plain
 * `cc -std=c11` and no -D flag.  Must come before any #include. */
#if !defined(_POSIX_C_SOURCE) || _POSIX_C_SOURCE < 200809L
#undef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "afmt_sink.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/afmt_bytes.h"
#include "afmt_fileio.h"

/* Transformed payloads go out through a stack buffer of this size: small
 * enough for any thread stack, large enough to amortise each write. */
#define SINK_CHUNK 16384

static const uint8_t zero_block[4096];

/* ---------------------------------------------------------------- kinds */

static int buffer_write(afmt_sink *s, const void *p, uint64_t n)
{
    if (n > s->cap - s->written)
        return -1;
    memcpy(s->buf + s->written, p, (size_t)n);
    return 0;
}

/* A large run into a stream on a regular file (a file sink's temporary
 * file, or a caller's FILE*): straight from p to the descriptor with
 * write() (see afmt_fileio.h), after what stdio still holds.  Through
 * stdio, fwrite() would first top up its 4 KiB buffer and write that,
 * then the rest: two write()s per piece and the payload's pages split
 * from the file's.  Returns 1 when the stream is not a regular file's
 * (fwrite() it then), 0 when written, -1 on error with errno. */
static int stream_write_bulk(afmt_sink *s, const uint8_t *p, uint64_t n)
{
    int fd = fileno(s->fp), src_fd = -1, e = 0;
    uint64_t src_off = 0;
    struct stat st;
    off_t end;

    /* a pipe, a terminal, a device or a stream without a descriptor
     * (fmemopen, fopencookie) keeps going through stdio */
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        return 1;
    /* stdio's buffer first: after fflush the descriptor is at the stream's
     * position */
    if (fflush(s->fp) != 0)
        return -1;
    if (s->src_len > 0 && p >= s->src_base && (uint64_t)(p - s->src_base) <= s->src_len &&
        n <= s->src_len - (uint64_t)(p - s->src_base)) {
        src_fd = s->src_fd;
        src_off = (uint64_t)(p - s->src_base);
    }
    if (afmt_fileio_write_bulk(fd, p, n, src_fd, src_off, &e) != 0) {
        errno = e;
        return -1;
    }
    /* The stream has not seen these bytes: a stream may keep its position
     * to itself (glibc does), and then ftello, a relative fseeko and the
     * next payload's reservation would start from where it was before.
     * An absolute seek to where the descriptor now is tells it. */
    end = lseek(fd, 0, SEEK_CUR);
    if (end < 0 || fseeko(s->fp, end, SEEK_SET) != 0)
        return -1;
    return 0;
}

static int stdio_write(afmt_sink *s, const void *p, uint64_t n)
{
    const uint8_t *q = p;
    size_t part;

    if (!s->fp)
        return -1;
    if (n >= AFMT_FILEIO_BULK) {
        int rc = stream_write_bulk(s, p, n);
        if (rc <= 0)
            return rc;
    }
    /* Small runs, and any run into a pipe or a device: through stdio, in
     * pieces of 8 MiB (stdio hands each large one to write()). */
    while (n > 0) {
        part = n > ((uint64_t)8 << 20) ? (size_t)8 << 20 : (size_t)n;
        if (fwrite(q, 1, part, s->fp) != part)
            return -1;
        q += part;
        n -= part;
    }
    return 0;
}

void afmt_sink_buffer(afmt_sink *s, void *buf, uint64_t cap)
{
    memset(s, 0, sizeof *s);
    s->write = buffer_write;
    s->buf = buf;
    s->cap = buf ? cap : 0;
}

void afmt_sink_stdio(afmt_sink *s, FILE *fp)
{
    memset(s, 0, sizeof *s);
    s->write = stdio_write;
    s->fp = fp;
}

static int io_fail(afmt_error *err, uint64_t offset, const char *what,
                   const char *path, int errnum)
{
    char msg[128];

    /* The XSI strerror_r (we do not define _GNU_SOURCE) is thread-safe. */
    if (strerror_r(errnum, msg, sizeof msg) != 0)
        snprintf(msg, sizeof msg, "error %d", errnum);
    return afmt_fail(err, AFMT_E_IO, NULL, NULL, AFMT_NO_INDEX, offset,
                     "%s %s: %s", what, path, msg);
}

/* The folder an output was to go in is missing (or is not a folder): say
 * so, naming it, rather than the temporary file that could not be made. */
static int missing_folder(afmt_error *err, const char *path, int errnum)
{
    const char *slash = strrchr(path, '/');
    int n = slash ? (int)(slash - path) : 1;

    if (slash == path)
        n = 1; /* "/x": the root */
    if (n > 200)
        n = 200;
    return afmt_fail(err, AFMT_E_IO, NULL, NULL, AFMT_NO_INDEX, AFMT_NO_OFFSET,
                     "cannot write %s: the folder %.*s %s", path, n, slash ? path : ".",
                     errnum == ENOENT ? "does not exist" : "is not a folder");
}

/* Follow path through symlinks to the file it names, into out (size cap).
 * Returns 0 with *st filled (or *exists 0 for a new name), -1 with err. */
static int resolve_target(const char *path, char *out, size_t cap, struct stat *st,
                          int *exists, afmt_error *err)
{
    char link[4096];
    unsigned hops;
    size_t len = strlen(path);

    if (len >= cap)
        return afmt_fail(err, AFMT_E_USAGE, NULL, NULL, AFMT_NO_INDEX, AFMT_NO_OFFSET,
                         "output path is longer than %zu bytes", cap - 1);
    memcpy(out, path, len + 1);
    for (hops = 0;; hops++) {
        ssize_t n;
        const char *slash;
        size_t dir_len;

        if (lstat(out, st) != 0) {
            int e = errno;
            if (e == ENOTDIR)
                return missing_folder(err, out, e);
            if (e != ENOENT)
                return io_fail(err, AFMT_NO_OFFSET, "cannot examine", out, e);
            if (hops > 0)
                return afmt_fail(err, AFMT_E_IO, NULL, NULL, AFMT_NO_INDEX, AFMT_NO_OFFSET,
                                 "%s is a dangling symlink (its target %s does not exist); "
                                 "not writing through it", path, out);
            *exists = 0;
            return 0;
        }
        if (!S_ISLNK(st->st_mode)) {
            *exists = 1;
            return 0;
        }
        if (hops >= 32)
            return io_fail(err, AFMT_NO_OFFSET, "cannot follow the symlinks of", path, ELOOP);
        n = readlink(out, link, sizeof link - 1);
        if (n < 0)
            return io_fail(err, AFMT_NO_OFFSET, "cannot read the symlink", out, errno);
        link[n] = '\0';
        /* a relative target is relative to the link's own directory */
        slash = strrchr(out, '/');
        dir_len = link[0] == '/' || !slash ? 0 : (size_t)(slash - out) + 1;
        if (dir_len + (size_t)n >= cap)
            return afmt_fail(err, AFMT_E_USAGE, NULL, NULL, AFMT_NO_INDEX, AFMT_NO_OFFSET,
                             "the target of symlink %s is longer than %zu bytes", path, cap - 1);
        memmove(out + dir_len, link, (size_t)n + 1);
    }
}

/* A character device or FIFO: open it and write straight into it. */
static int open_through(afmt_sink *s, afmt_error *err)
{
    int fd = open(s->path, O_WRONLY | O_NOCTTY | O_CLOEXEC);

    if (fd < 0)
        return io_fail(err, AFMT_NO_OFFSET, "cannot open", s->path, errno);
    s->fp = fdopen(fd, "wb");
    if (!s->fp) {
        int e = errno;
        close(fd);
        return io_fail(err, AFMT_NO_OFFSET, "cannot open a stream on", s->path, e);
    }
    s->through = 1;
    s->failed = 0;
    return 0;
}

/* A regular file or a new name: write PATH.XXXXXX beside it, renamed on
 * commit.  old is the file replaced (NULL for a new name). */
static int open_temporary(afmt_sink *s, const struct stat *old, afmt_error *err)
{
    size_t len = strlen(s->path);
    int fd, e;

    if (len + 8 > sizeof s->tmp_path)
        return afmt_fail(err, AFMT_E_USAGE, NULL, NULL, AFMT_NO_INDEX, AFMT_NO_OFFSET,
                         "output path is longer than %zu bytes", sizeof s->tmp_path - 8);
    memcpy(s->tmp_path, s->path, len);
    memcpy(s->tmp_path + len, ".XXXXXX", 8);
    /* Beside the target, so the final rename stays in one file system. */
    fd = mkstemp(s->tmp_path);
    if (fd < 0) {
        e = errno;
        s->tmp_path[0] = '\0';
        if (e == ENOENT || e == ENOTDIR)
            return missing_folder(err, s->path, e);
        return io_fail(err, AFMT_NO_OFFSET, "cannot create a temporary file beside", s->path, e);
    }
    /* mkstemp makes 0600; replacing a file keeps its mode and (where we may)
     * its owner, as writing into it would; a new file gets the usual 0644
     * (umask cannot be read without changing it). */
    if (old) {
        (void)fchown(fd, old->st_uid, old->st_gid);
        (void)fchmod(fd, old->st_mode & 07777);
    } else {
        (void)fchmod(fd, 0644);
    }
    s->fp = fdopen(fd, "wb");
    if (!s->fp) {
        e = errno;
        close(fd);
        unlink(s->tmp_path);
        s->tmp_path[0] = '\0';
        return io_fail(err, AFMT_NO_OFFSET, "cannot open a stream on", s->path, e);
    }
    s->failed = 0;
    return 0;
}

int afmt_sink_file_open(afmt_sink *s, const char *path, afmt_error *err)
{
    struct stat st;
    int exists = 0;

    memset(s, 0, sizeof *s);
    s->write = stdio_write;
    s->failed = 1; /* until the file is really open */
    if (!path || !*path)
        return afmt_fail(err, AFMT_E_USAGE, NULL, NULL, AFMT_NO_INDEX, AFMT_NO_OFFSET, "output path is empty");
    if (resolve_target(path, s->path, sizeof s->path, &st, &exists, err) != 0)
        return -1;
    if (!exists || S_ISREG(st.st_mode))
        return open_temporary(s, exists ? &st : NULL, err);
    if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))
        return open_through(s, err);
    return afmt_fail(err, AFMT_E_IO, NULL, NULL, AFMT_NO_INDEX, AFMT_NO_OFFSET,
                     "%s is %s; afmt writes regular files (replaced whole), character devices "
                     "and FIFOs (written through)", s->path,
                     S_ISDIR(st.st_mode) ? "a directory" : S_ISBLK(st.st_mode) ? "a block device"
                                                                          : "not a file");
}

/* Make the rename itself durable; best effort, the data is already safe. */
static void sync_parent_dir(const char *path)
{
    char dir[4096];
    const char *slash = strrchr(path, '/');
    size_t n;
    int fd;

    if (!slash) {
        dir[0] = '.';
        dir[1] = '\0';
    } else {
        n = slash == path ? 1 : (size_t)(slash - path);
        if (n >= sizeof dir)
            return;
        memcpy(dir, path, n);
        dir[n] = '\0';
    }
    fd = open(dir, O_RDONLY | O_DIRECTORY);
    if (fd >= 0) {
        (void)fsync(fd);
        close(fd);
    }
}

/* Rename only over a regular file or nothing (the target may have been
 * replaced by something else since the sink was opened). */
static int still_replaceable(const char *path)
{
    struct stat st;

    if (lstat(path, &st) != 0)
        return errno == ENOENT;
    return S_ISREG(st.st_mode);
}

/* A write-through sink: flush and close; there is nothing to rename. */
static int commit_through(afmt_sink *s, afmt_error *err)
{
    FILE *fp = s->fp;
    int failed = s->failed, e = 0;

    s->fp = NULL;
    s->through = 0;
    s->failed = 1; /* the sink is finished either way */
    if (!fp)
        return afmt_fail(err, AFMT_E_IO, NULL, NULL, AFMT_NO_INDEX, s->written,
                         "%s is not open", s->path);
    if (fflush(fp) != 0)
        e = errno;
    if (fclose(fp) != 0 && e == 0)
        e = errno;
    if (failed)
        return afmt_fail(err, AFMT_E_IO, NULL, NULL, AFMT_NO_INDEX, s->written,
                         "an earlier write to %s failed", s->path);
    if (e != 0)
        return io_fail(err, s->written, "cannot write", s->path, e);
    return 0;
}

int afmt_sink_commit(afmt_sink *s, afmt_error *err)
{
    FILE *fp;
    int e = 0;

    if (s->through)
        return commit_through(s, err);
    if (s->tmp_path[0] == '\0') {
        /* Buffer or caller's FILE*: nothing to rename, only to flush. */
        if (s->failed)
            return afmt_fail(err, AFMT_E_IO, NULL, NULL, AFMT_NO_INDEX, s->written,
                             "an earlier write failed");
        if (s->fp && fflush(s->fp) != 0)
            return io_fail(err, s->written, "cannot flush", "output", errno);
        return 0;
    }
    if (s->failed) {
        afmt_sink_abort(s);
        return afmt_fail(err, AFMT_E_IO, NULL, NULL, AFMT_NO_INDEX, s->written,
                         "an earlier write failed; %s left unchanged", s->path);
    }
    fp = s->fp;
    s->fp = NULL;
    s->failed = 1; /* the sink is finished either way */
    if (fflush(fp) != 0 || fsync(fileno(fp)) != 0)
        e = errno;
    if (fclose(fp) != 0 && e == 0)
        e = errno;
    if (e == 0 && !still_replaceable(s->path))
        e = EEXIST; /* something not a regular file took the name meanwhile */
    if (e == 0 && rename(s->tmp_path, s->path) != 0)
        e = errno;
    if (e != 0) {
        unlink(s->tmp_path);
        s->tmp_path[0] = '\0';
        return io_fail(err, s->written, "cannot write", s->path, e);
    }
    s->tmp_path[0] = '\0';
    sync_parent_dir(s->path);
    return 0;
}

void afmt_sink_abort(afmt_sink *s)
{
    s->failed = 1;
    if (s->through) {
        if (s->fp)
            fclose(s->fp);
        s->fp = NULL;
        s->through = 0;
        return;
    }
    if (s->tmp_path[0] == '\0')
        return; /* the caller's FILE* or buffer is theirs */
    if (s->fp)
        fclose(s->fp);
    s->fp = NULL;
    unlink(s->tmp_path);
    s->tmp_path[0] = '\0';
}

void afmt_sink_set_source(afmt_sink *s, const void *base, uint64_t len, int fd)
{
    s->src_base = base;
    s->src_len = base && fd >= 0 ? len : 0;
    s->src_fd = fd;
}

void afmt_sink_set_producer(afmt_sink *s, afmt_sink_producer *p)
{
    s->producer = p;
}

/* ---------------------------------------------------------------- puts */

int afmt_sink_put(afmt_sink *s, const void *p, uint64_t n, afmt_error *err)
{
    uint64_t end;

    if (s->failed)
        return afmt_fail(err, AFMT_E_IO, NULL, NULL, AFMT_NO_INDEX, s->written,
                         "sink is closed or an earlier write failed");
    if (n == 0)
        return 0;
    if (!p || !s->write)
        return afmt_fail(err, AFMT_E_USAGE, NULL, NULL, AFMT_NO_INDEX, s->written,
                         "write of %" PRIu64 " bytes from NULL or to a sink without a writer", n);
    if (afmt_checked_add_u64(s->written, n, &end) || s->write(s, p, n) != 0) {
        int e = errno;
        s->failed = 1;
        if (s->write == buffer_write)
            return afmt_fail(err, AFMT_E_IO, NULL, NULL, AFMT_NO_INDEX, s->written,
                             "buffer full: %" PRIu64 " bytes written, %" PRIu64
                             " more do not fit a capacity of %" PRIu64,
                             s->written, n, s->cap);
        if (s->write == stdio_write && s->fp)
            return io_fail(err, s->written, "cannot write to",
                           s->path[0] ? s->path : "output", e);
        return afmt_fail(err, AFMT_E_IO, NULL, NULL, AFMT_NO_INDEX, s->written,
                         "write of %" PRIu64 " bytes failed", n);
    }
    s->written = end;
    return 0;
}

int afmt_sink_zeros(afmt_sink *s, uint64_t n, afmt_error *err)
{
    uint64_t part;

    while (n > 0) {
        part = n < sizeof zero_block ? n : sizeof zero_block;
        if (afmt_sink_put(s, zero_block, part, err) != 0)
            return -1;
        n -= part;
    }
    return 0;
}

static int put_uint(afmt_sink *s, uint64_t v, unsigned bytes, int big_endian,
                    afmt_error *err)
{
    uint8_t b[8];

    if (bytes < 8 && v >> (bytes * 8) != 0)
        return afmt_fail(err, AFMT_E_OVERFLOW, NULL, NULL, AFMT_NO_INDEX, s->written,
                         "value %" PRIu64 " does not fit %u bytes", v, bytes);
    switch (bytes) {
    case 1: b[0] = (uint8_t)v; break;
    case 2: big_endian ? afmt_store_u16be(b, (uint16_t)v) : afmt_store_u16le(b, (uint16_t)v); break;
    case 4: big_endian ? afmt_store_u32be(b, (uint32_t)v) : afmt_store_u32le(b, (uint32_t)v); break;
    default: big_endian ? afmt_store_u64be(b, v) : afmt_store_u64le(b, v); break;
    }
    return afmt_sink_put(s, b, bytes, err);
}

int afmt_sink_u8(afmt_sink *s, uint64_t v, afmt_error *err)
{
    return put_uint(s, v, 1, 0, err);
}
int afmt_sink_u16(afmt_sink *s, uint64_t v, int big_endian, afmt_error *err)
{
    return put_uint(s, v, 2, big_endian, err);
}
int afmt_sink_u32(afmt_sink *s, uint64_t v, int big_endian, afmt_error *err)
{
    return put_uint(s, v, 4, big_endian, err);
}
int afmt_sink_u64(afmt_sink *s, uint64_t v, int big_endian, afmt_error *err)
{
    return put_uint(s, v, 8, big_endian, err);
}

int afmt_sink_text(afmt_sink *s, const char *text, uint64_t size, afmt_error *err)
{
    uint64_t len = text ? strlen(text) : 0;

    if (len > size)
        return afmt_fail(err, AFMT_E_USAGE, NULL, NULL, AFMT_NO_INDEX, s->written,
                         "text \"%.40s\" of %" PRIu64 " bytes does not fit a %" PRIu64
                         "-byte slot", text, len, size);
    if (afmt_sink_put(s, text, len, err) != 0)
        return -1;
    return afmt_sink_zeros(s, size - len, err);
}

/* ---------------------------------------------------------------- payloads */

static int host_is_big(void)
{
    const uint16_t one = 1;
    uint8_t first;
    memcpy(&first, &one, 1);
    return first == 0;
}

static uint64_t plain_elsize(const afmt_array *a)
{
    return a->dtype == AFMT_OPAQUE ? a->elsize : afmt_dtype_get(a->dtype)->size;
}

int afmt_payload_size(const afmt_array *a, afmt_encoding encoding,
                      uint64_t *out, afmt_error *err)
{
    *out = 0;
    if (encoding == AFMT_ENC_BITS_LSB) {
        if (a->dtype != AFMT_BOOL)
            return afmt_fail(err, AFMT_E_TYPE, NULL, NULL, AFMT_NO_INDEX, AFMT_NO_OFFSET,
                             "only bool is bit-packed, not %s", afmt_dtype_name(a->dtype));
        *out = afmt_ceil_div_u64(a->count, 8);
        return 0;
    }
    if (encoding != AFMT_ENC_PLAIN)
        return afmt_fail(err, AFMT_E_UNSUPPORTED, NULL, NULL, AFMT_NO_INDEX, AFMT_NO_OFFSET,
                         "payload encoding %d is not written by afmt", (int)encoding);
    if (afmt_dtype_get(a->dtype)->dtype == AFMT_DTYPE_INVALID)
        return afmt_fail(err, AFMT_E_TYPE, NULL, NULL, AFMT_NO_INDEX, AFMT_NO_OFFSET,
                         "invalid element type %d", (int)a->dtype);
    if (afmt_checked_mul_u64(a->count, plain_elsize(a), out))
        return afmt_fail(err, AFMT_E_OVERFLOW, NULL, NULL, AFMT_NO_INDEX, AFMT_NO_OFFSET,
                         "%" PRIu64 " elements of %" PRIu64 " bytes overflow 64 bits",
                         a->count, plain_elsize(a));
    return 0;
}

/* Byte-swapped copy of whole elements through the stack buffer. */
static int put_swapped(afmt_sink *s, const uint8_t *p, uint64_t n, unsigned comp,
                       afmt_error *err)
{
    uint8_t buf[SINK_CHUNK]; /* a multiple of every component size */
    uint64_t part, i;

    while (n > 0) {
        part = n < sizeof buf ? n : sizeof buf;
        switch (comp) {
        case 2:
            for (i = 0; i + 2 <= part; i += 2)
                afmt_store_u16be(buf + i, afmt_load_u16le(p + i));
            break;
        case 4:
            for (i = 0; i + 4 <= part; i += 4)
                afmt_store_u32be(buf + i, afmt_load_u32le(p + i));
            break;
        default:
            for (i = 0; i + 8 <= part; i += 8)
                afmt_store_u64be(buf + i, afmt_load_u64le(p + i));
            break;
        }
        if (afmt_sink_put(s, buf, part, err) != 0)
            return -1;
        p += part;
        n -= part;
    }
    return 0;
}

/* Pack bools LSB first; pad bits of the last byte are zero. */
static int put_bits(afmt_sink *s, const uint8_t *p, uint64_t count, afmt_error *err)
{
    uint8_t buf[SINK_CHUNK / 8]; /* fills from 8x as many input bytes */
    uint64_t k = 0, k0, nb, i;
    unsigned b;
    uint8_t bad, byte;

    while (k < count) {
        k0 = k;
        nb = 0;
        bad = 0;
        for (; k < count && nb < sizeof buf; nb++) {
            byte = 0;
            for (b = 0; b < 8 && k < count; b++, k++) {
                bad |= (uint8_t)(p[k] & 0xFE);
                byte |= (uint8_t)((p[k] & 1u) << b);
            }
            buf[nb] = byte;
        }
        if (bad) {
            /* Rare: find which element it was, for the message. */
            for (i = k0; i < k; i++)
                if (p[i] > 1)
                    return afmt_fail(err, AFMT_E_VALUE, NULL, "data", i, AFMT_NO_OFFSET,
                                     "bool element is %u, not 0 or 1", (unsigned)p[i]);
        }
        if (afmt_sink_put(s, buf, nb, err) != 0)
            return -1;
    }
    return 0;
}

/* Pieces of a produced payload go through a buffer of about this size. */
#define PRODUCE_PIECE ((uint64_t)8 << 20)

/* A payload from s->producer (see afmt_sink_producer). */
static int put_produced(afmt_sink *s, const afmt_array *a, uint64_t plain,
                        afmt_endian endian, afmt_encoding encoding, afmt_error *err)
{
    afmt_sink_producer *pr = s->producer;
    uint64_t piece, first, n;
    unsigned comp = afmt_dtype_get(a->dtype)->component;
    uint8_t *buf;
    int rc = 0;

    if (encoding != AFMT_ENC_PLAIN || a->dtype == AFMT_BOOL || plain != pr->size ||
        pr->unit == 0 || pr->unit > ((uint64_t)1 << 30) || pr->produced != 0)
        return afmt_fail(err, AFMT_E_USAGE, NULL, NULL, AFMT_NO_INDEX, s->written,
                         "a produced payload must be plain, not bool, %" PRIu64
                         " bytes, made once", pr->size);
    piece = PRODUCE_PIECE < pr->unit ? pr->unit : PRODUCE_PIECE / pr->unit * pr->unit;
    if (piece > plain)
        piece = plain;
    buf = malloc(piece ? (size_t)piece : 1);
    if (!buf)
        return afmt_fail(err, AFMT_E_NOMEM, NULL, NULL, AFMT_NO_INDEX, s->written,
                         "cannot allocate %" PRIu64 " bytes to write through", piece);
    for (first = 0; first < plain && rc == 0; first += n) {
        n = plain - first < piece ? plain - first : piece;
        rc = pr->fill(pr->ctx, first, buf, n, err);
        if (rc != 0)
            break;
        pr->produced += n;
        if (comp <= 1 || (endian == AFMT_BIG) == host_is_big())
            rc = afmt_sink_put(s, buf, n, err);
        else
            rc = put_swapped(s, buf, n, comp, err);
    }
    free(buf);
    return rc == 0 ? 0 : -1;
}

/* A large payload into a file: reserve its blocks first (see
 * afmt_fileio_reserve; np.tofile does the same), at the stream's position,
 * which counts what stdio still holds.  Not for buffers, pipes (ftello
 * fails) or streams without a descriptor (fileno fails). */
static void reserve_payload(afmt_sink *s, uint64_t size)
{
    off_t at;
    int fd;

    if (s->write != stdio_write || !s->fp || size < AFMT_FILEIO_BULK)
        return;
    fd = fileno(s->fp);
    at = fd >= 0 ? ftello(s->fp) : -1;
    if (at >= 0)
        afmt_fileio_reserve(fd, (uint64_t)at, size);
}

int afmt_sink_refuse_transform(const afmt_array *a, afmt_error *err)
{
    char how[160];

    afmt_array_describe_transform(a, how, sizeof how);
    return afmt_fail(err, AFMT_E_TYPE, NULL, a->name, AFMT_NO_INDEX, AFMT_NO_OFFSET,
                     "array '%s' holds %s values (%s): this format cannot keep the transform "
                     "with the stored elements; write the values (afmt_array_to_plain%s)",
                     a->name, afmt_dtype_name(afmt_array_value_dtype(a)), how,
                     afmt_array_general_scale(a) ? ": f64, afmt convert --apply-scale" : "");
}

int afmt_sink_payload(afmt_sink *s, const afmt_array *a, afmt_endian endian,
                      afmt_encoding encoding, afmt_error *err)
{
    uint64_t es = plain_elsize(a), plain, size;
    unsigned comp;

    if (afmt_payload_size(a, encoding, &size, err) != 0)
        return -1;
    if (afmt_array_has_transform(a))
        return afmt_sink_refuse_transform(a, err);
    if (a->encoding != AFMT_ENC_PLAIN || a->strided || (a->stride != es && a->stride != 0) ||
        (a->dtype != AFMT_OPAQUE && a->elsize != es && a->elsize != 0))
        return afmt_fail(err, AFMT_E_USAGE, NULL, NULL, AFMT_NO_INDEX, s->written,
                         "payload source must be plain and contiguous (a strided view: afmt_array_to_plain first)");
    if (afmt_checked_mul_u64(a->count, es, &plain))
        return afmt_fail(err, AFMT_E_OVERFLOW, NULL, NULL, AFMT_NO_INDEX, s->written,
                         "payload size overflows 64 bits");
    if (s->counting) {
        /* a size-only pass (encoded_size, can_write): the bytes are not
         * needed, only their number, so a view without data will do */
        s->written += size;
        return 0;
    }
    if (a->nbytes < plain || (plain > 0 && !a->data))
        return afmt_fail(err, AFMT_E_USAGE, NULL, NULL, AFMT_NO_INDEX, s->written,
                         "view holds %" PRIu64 " bytes, elements need %" PRIu64,
                         a->nbytes, plain);
    reserve_payload(s, size);
    if (s->producer && a->data == s->producer->key)
        return put_produced(s, a, plain, endian, encoding, err);
    if (encoding == AFMT_ENC_BITS_LSB)
        return put_bits(s, a->data, a->count, err);
    if (a->dtype == AFMT_BOOL) {
        /* a writer produces only what its validator accepts */
        uint64_t bad = afmt_scan_not_bool(a->data, a->count);
        if (bad < a->count)
            return afmt_fail(err, AFMT_E_VALUE, NULL, "data", bad, AFMT_NO_OFFSET,
                             "bool element is %u, not 0 or 1", (unsigned)a->data[bad]);
    }
    comp = afmt_dtype_get(a->dtype)->component;
    if (comp <= 1 || (endian == AFMT_BIG) == host_is_big())
        return afmt_sink_put(s, a->data, plain, err);
    return put_swapped(s, a->data, plain, comp, err);
}

int afmt_sink_csr_values(afmt_sink *s, const afmt_array *a, afmt_endian endian, afmt_error *err)
{
    uint64_t es = plain_elsize(a), size;
    unsigned comp;
    if (afmt_array_has_transform(a))
        return afmt_sink_refuse_transform(a, err);
    if (a->encoding != AFMT_ENC_CSR || a->endian != AFMT_LITTLE || a->csc)
        return afmt_fail(err, AFMT_E_USAGE, NULL, NULL, AFMT_NO_INDEX, s->written,
                         "CSR values must come from a little-endian CSR view (not CSC)");
    if (afmt_checked_mul_u64(a->nnz, es, &size))
        return afmt_fail(err, AFMT_E_OVERFLOW, NULL, NULL, AFMT_NO_INDEX, s->written,
                         "%" PRIu64 " values overflow 64 bits of bytes", a->nnz);
    if (a->nbytes < size || (size > 0 && !a->data))
        return afmt_fail(err, AFMT_E_USAGE, NULL, NULL, AFMT_NO_INDEX, s->written,
                         "view holds %" PRIu64 " value bytes, nnz needs %" PRIu64, a->nbytes, size);
    if (s->counting) {
        s->written += size;
        return 0;
    }
    comp = afmt_dtype_get(a->dtype)->component;
    if (comp <= 1 || (endian == AFMT_BIG) == host_is_big())
        return afmt_sink_put(s, a->data, size, err);
    return put_swapped(s, a->data, size, comp, err);
}

int afmt_sink_columns(afmt_sink *s, const afmt_array *cols, size_t ncols, afmt_endian endian,
                      afmt_error *err)
{
    uint8_t buf[SINK_CHUNK];
    uint64_t rows, r, width = 0, used = 0;
    size_t j;
    if (ncols == 0)
        return 0;
    rows = cols[0].dims[0];
    for (j = 0; j < ncols; j++) {
        uint64_t es = plain_elsize(&cols[j]), need;
        if (cols[j].encoding != AFMT_ENC_PLAIN || cols[j].rank != 1 || cols[j].dims[0] != rows ||
            es == 0 || es > 16 || afmt_checked_mul_u64(rows, es, &need) || cols[j].nbytes < need || (need && !cols[j].data))
            return afmt_fail(err, AFMT_E_USAGE, NULL, NULL, j, s->written,
                             "column %zu is not a plain 1-d array of %" PRIu64 " rows", j, rows);
        width += es;
    }
    if (s->counting) {
        uint64_t size;
        if (afmt_checked_mul_u64(rows, width, &size))
            return afmt_fail(err, AFMT_E_OVERFLOW, NULL, NULL, AFMT_NO_INDEX, s->written, "frame size overflows 64 bits");
        s->written += size;
        return 0;
    }
    /* interleave row by row through a stack buffer: one value per column */
    for (r = 0; r < rows; r++) {
        for (j = 0; j < ncols; j++) {
            uint64_t es = plain_elsize(&cols[j]);
            unsigned comp = afmt_dtype_get(cols[j].dtype)->component;
            const uint8_t *src = cols[j].data + r * es;
            if (used + es > sizeof buf) {
                if (afmt_sink_put(s, buf, used, err) != 0) return -1;
                used = 0;
            }
            if (comp <= 1 || (endian == AFMT_BIG) == host_is_big()) {
                memcpy(buf + used, src, es);
            } else {
                uint64_t k, c;
                for (c = 0; c < es; c += comp)
                    for (k = 0; k < comp; k++) buf[used + c + k] = src[c + comp - 1 - k];
            }
            used += es;
        }
    }
    return used ? afmt_sink_put(s, buf, used, err) : 0;
}
