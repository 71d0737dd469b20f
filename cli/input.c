/* afmt CLI: opening inputs (see input.h). */
#include "input.h"
#include "spec.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fail.h"
#include "window_file.h"

void afmt_cli_errno_error(afmt_error *err, int errnum)
{
    char msg[256];

    /* The XSI strerror_r (we never define _GNU_SOURCE): thread-safe. */
    if (strerror_r(errnum, msg, sizeof msg) != 0)
        snprintf(msg, sizeof msg, "error %d", errnum);
    afmt_cli_fail(err, AFMT_E_IO, NULL, AFMT_NO_OFFSET, "%s", msg);
}

void afmt_cli_limit_error(afmt_error *err, uint64_t size, uint64_t limit,
                          int is_stream)
{
    if (is_stream)
        afmt_cli_fail(err, AFMT_E_LIMIT, NULL, limit,
                      "input from a stream is more than %" PRIu64
                      " bytes (--max-bytes)", limit);
    else
        afmt_cli_fail(err, AFMT_E_LIMIT, NULL, limit,
                      "input is %" PRIu64 " bytes, more than the limit of %" PRIu64
                      " (--max-bytes)", size, limit);
}

/* Every field but head: head is 64 KiB and only its first len bytes are
 * ever read, and zeroing it twice per input was a third of the time of
 * validating many small files (perf, bench row 4). */
static void input_reset(afmt_cli_input *in)
{
    memset(in, 0, offsetof(afmt_cli_input, head));
    in->data = in->head; /* never NULL, even for an empty input */
    in->fd = -1;
}

int afmt_cli_read_full(int fd, void *buf, size_t n, int64_t at, size_t *got)
{
    uint8_t *p = buf;
    size_t done = 0;

    while (done < n) {
        ssize_t k = at >= 0 ? pread(fd, p + done, n - done, (off_t)(at + (int64_t)done))
                            : read(fd, p + done, n - done);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0) {
            *got = done;
            return -1;
        }
        if (k == 0)
            break;
        done += (size_t)k;
    }
    *got = done;
    return 0;
}

/* Read up to sizeof head bytes from the start of a regular file. */
static int read_head(afmt_cli_input *in, int fd, afmt_error *err)
{
    size_t got;

    if (afmt_cli_read_full(fd, in->head, sizeof in->head, 0, &got) != 0) {
        afmt_cli_errno_error(err, errno);
        return -1;
    }
    in->data = in->head;
    in->len = got;
    return 0;
}

/* A regular file of st->st_size bytes (in->size, within the limit):
 * read into stream_buf when small, else mapped read-only. */
static int open_regular(afmt_cli_input *in, int fd, const struct stat *st, afmt_cli_buf *stream_buf,
                        afmt_error *err)
{
    if (in->size <= AFMT_CLI_SMALL_FILE && stream_buf && afmt_cli_buf_reserve(stream_buf, (size_t)in->size) == 0) {
        /* a small file: one read into a reused buffer costs a fraction
         * of setting up and tearing down a mapping */
        size_t got;
        /* a file that shrank meanwhile: judge what is there */
        if (afmt_cli_read_full(fd, stream_buf->p, (size_t)in->size, 0, &got) != 0) {
            afmt_cli_errno_error(err, errno);
            return -1;
        }
        in->data = (const uint8_t *)stream_buf->p;
        in->len = got;
        in->size = got;
        return 0;
    }
    in->map = mmap(NULL, (size_t)in->size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (in->map == MAP_FAILED) {
        int e = errno;
        in->map = NULL;
        afmt_cli_errno_error(err, e);
        /* ENOMEM: no room for the mapping (ulimit -v below the file's
         * size): a lazy open reads it through a window instead */
        return e == ENOMEM ? -2 : -1;
    }
    in->map_len = (size_t)in->size;
    in->map_dev = (uint64_t)st->st_dev;
    in->map_ino = (uint64_t)st->st_ino;
    in->data = in->map;
    in->len = in->size;
#ifdef MADV_SEQUENTIAL
    (void)madvise(in->map, in->map_len, MADV_SEQUENTIAL);
#endif
    return 0;
}

/* A pipe, socket, terminal or device: read whole into stream_buf, up to
 * stream_limit (beyond it only the head is kept, for the report). */
static int open_stream(afmt_cli_input *in, int fd, uint64_t stream_limit, afmt_cli_buf *stream_buf,
                       afmt_error *err)
{
    int over;

    in->is_stream = 1;
    in->limit = stream_limit;
    if (afmt_cli_read_stream(fd, stream_buf, stream_limit, &over, err) != 0)
        return -1;
    in->size = stream_buf->len;
    if (over) {
        in->over_limit = 1;
        in->len = stream_buf->len < sizeof in->head ? stream_buf->len : sizeof in->head;
        memcpy(in->head, stream_buf->p, (size_t)in->len);
        in->data = in->head;
        return 0;
    }
    if (stream_buf->len > 0) {
        in->data = (const uint8_t *)stream_buf->p;
        in->len = stream_buf->len;
    }
    return 0;
}

/* afmt_cli_input_open_fd once fd's fstat is known: each input is opened
 * and stat'ed once (open, fstat, read or mmap, close). */
static int open_statted(afmt_cli_input *in, int fd, const struct stat *stp, uint64_t file_limit,
                        uint64_t stream_limit, afmt_cli_buf *stream_buf, afmt_error *err)
{
    const struct stat st = *stp;

    if (S_ISDIR(st.st_mode)) {
        afmt_cli_fail(err, AFMT_E_IO, NULL, AFMT_NO_OFFSET, "is a directory");
        return -1;
    }
    if (!S_ISREG(st.st_mode))
        return open_stream(in, fd, stream_limit, stream_buf, err);
    in->size = (uint64_t)st.st_size;
    in->limit = file_limit;
    if (in->size > file_limit || in->size > (uint64_t)SIZE_MAX) {
        in->over_limit = 1;
        return read_head(in, fd, err);
    }
    if (in->size == 0)
        return 0;
    return open_regular(in, fd, &st, stream_buf, err);
}

int afmt_cli_input_open_fd(afmt_cli_input *in, int fd, uint64_t file_limit,
                           uint64_t stream_limit, afmt_cli_buf *stream_buf,
                           afmt_error *err)
{
    struct stat st;

    input_reset(in);
    if (fstat(fd, &st) != 0) {
        afmt_cli_errno_error(err, errno);
        return -1;
    }
    return open_statted(in, fd, &st, file_limit, stream_limit, stream_buf, err) < 0 ? -1 : 0;
}

int afmt_cli_input_open(afmt_cli_input *in, const char *path,
                        uint64_t file_limit, uint64_t stream_limit,
                        afmt_cli_buf *stream_buf, afmt_error *err)
{
    int fd, rc;

    if (strcmp(path, "-") == 0)
        return afmt_cli_input_open_fd(in, STDIN_FILENO, file_limit, stream_limit,
                                      stream_buf, err);
    input_reset(in);
    /* Like cat, opening a FIFO waits for its writer. */
    fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        afmt_cli_errno_error(err, errno);
        return -1;
    }
    rc = afmt_cli_input_open_fd(in, fd, file_limit, stream_limit, stream_buf, err);
    close(fd);
    return rc;
}

void afmt_cli_input_close(afmt_cli_input *in)
{
    if (in->map)
        munmap(in->map, in->map_len);
    if (in->close_fd && in->fd >= 0)
        close(in->fd);
    input_reset(in);
}

/* A regular file of st's size (within file_limit) opened to be read
 * through the window by offset: its head read for detection, fd kept. */
static int open_window(afmt_cli_input *in, int fd, int own, const struct stat *st, uint64_t file_limit,
                       afmt_error *err)
{
    size_t got;
    input_reset(in);
    in->windowed_file = 1;
    in->fd = fd;
    in->close_fd = own;
    in->limit = file_limit;
    in->size = (uint64_t)st->st_size;
    in->map_dev = (uint64_t)st->st_dev;
    in->map_ino = (uint64_t)st->st_ino;
    if (afmt_cli_read_full(fd, in->head, sizeof in->head, 0, &got) != 0) {
        afmt_cli_errno_error(err, errno);
        afmt_cli_input_close(in);
        return -1;
    }
    if (got < (in->size < sizeof in->head ? in->size : sizeof in->head)) {
        /* shorter than fstat said a moment ago: cut meanwhile, and said
         * so as a map's fault is (sigbus.h) */
        afmt_cli_fail(err, AFMT_E_IO, NULL, got,
                      "the file was cut short while it was read: no byte at offset %" PRIu64
                      " any more (it was %" PRIu64 " bytes when opened)", (uint64_t)got, in->size);
        afmt_cli_input_close(in);
        return -1;
    }
    in->data = in->head;
    in->len = got;
    return 0;
}

/* open_lazy and open_windowed: window_files says whether a regular file
 * larger than the window is read through it rather than mapped.  One that
 * fits is mapped: its pages touched are at most the window's, the address
 * space too, and a check that needs it whole (a zip, which is read by
 * random access) reads only the pages it looks at instead of copying all
 * of them into the window (5 MB of torch checkpoint: 4.6 of its 5.4 ms
 * were that copy, in the kernel). */
static int open_lazy(afmt_cli_input *in, const char *path, uint64_t file_limit, afmt_cli_buf *small,
                     int window_files, afmt_error *err)
{
    struct stat st;
    int fd, own = 0;
    input_reset(in);
    if (strcmp(path, "-") == 0) {
        fd = STDIN_FILENO;
    } else {
        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0) {
            afmt_cli_errno_error(err, errno);
            return -1;
        }
        own = 1;
    }
    if (fstat(fd, &st) != 0) {
        afmt_cli_errno_error(err, errno);
        if (own)
            close(fd);
        return -1;
    }
    if (window_files && S_ISREG(st.st_mode) && (uint64_t)st.st_size > AFMT_CLI_STREAM_WINDOW &&
        (uint64_t)st.st_size <= file_limit)
        return open_window(in, fd, own, &st, file_limit, err);
    if (S_ISDIR(st.st_mode) || S_ISREG(st.st_mode)) {
        /* regular files and directories: the usual way (read or mmap),
         * on the descriptor already open */
        int rc = open_statted(in, fd, &st, file_limit, file_limit, small, err);
        if (rc != -2) {
            if (own)
                close(fd);
            return rc < 0 ? -1 : rc;
        }
        /* too large to map here: read through a window by offset, in
         * memory bounded by the window whatever the file's size */
        afmt_error_clear(err);
        return open_window(in, fd, own, &st, file_limit, err);
    }
    /* a pipe, socket, terminal or device: read the head only */
    in->is_stream = 1;
    in->limit = file_limit;
    in->fd = fd;
    in->close_fd = own;
    {
        size_t got;
        if (afmt_cli_read_full(fd, in->head, sizeof in->head, -1, &got) != 0) {
            afmt_cli_errno_error(err, errno);
            afmt_cli_input_close(in);
            return -1;
        }
        in->len = got;
    }
    in->data = in->head;
    in->size = in->len;
    return 0;
}

typedef struct stream_reader {
    afmt_cli_input *in;
    uint64_t head_at, total, limit;
    int over_limit, errnum;
} stream_reader;

/* The head first (it was read for detection), then the descriptor. */
static int stream_read(void *ctx, uint8_t *buf, size_t n, size_t *got)
{
    stream_reader *r = ctx;
    *got = 0;
    if (r->head_at < r->in->len) {
        size_t k = (size_t)(r->in->len - r->head_at);
        if (k > n) k = n;
        memcpy(buf, r->in->head + r->head_at, k);
        r->head_at += k;
        *got = k;
    } else if (r->in->read_more) {
        if (r->in->read_more(r->in->read_ctx, buf, n, got) != 0) {
            r->errnum = EIO;
            return -1;
        }
    } else if (afmt_cli_read_full(r->in->fd, buf, n, -1, got) != 0) {
        r->errnum = errno;
        return -1;
    }
    r->total += *got;
    if (r->total > r->limit) {
        r->over_limit = 1;
        return -1;
    }
    return 0;
}

int afmt_cli_input_open_lazy(afmt_cli_input *in, const char *path, uint64_t file_limit,
                             afmt_cli_buf *small, afmt_error *err)
{
    return open_lazy(in, path, file_limit, small, 0, err);
}

int afmt_cli_input_open_windowed(afmt_cli_input *in, const char *path, uint64_t file_limit,
                                 afmt_cli_buf *small, afmt_error *err)
{
    return open_lazy(in, path, file_limit, small, 1, err);
}

int afmt_cli_stream_validate(const afmt_interp *interp, const afmt_format *fmt,
                             afmt_cli_input *in, uint8_t *window,
                             uint64_t limit, const afmt_options *opt, const afmt_visitor *vis,
                             afmt_error *err)
{
    afmt_src src;
    stream_reader r;
    int rc;
    if (in->windowed_file)
        return afmt_cli_windowed_validate(interp, fmt, in, window, opt, vis, err);
    memset(&r, 0, sizeof r);
    r.in = in;
    r.limit = limit;
    afmt_src_stream(&src, window, AFMT_CLI_STREAM_WINDOW, stream_read, &r);
    rc = afmt_cli_validate_src(interp, fmt, &src, opt, vis, err);
    in->size = r.total;
    if (rc != 0 && r.over_limit) {
        afmt_error_clear(err);
        afmt_cli_limit_error(err, r.total, limit, 1);
        afmt_cli_error_set_format(err, fmt->name);
    } else if (rc != 0 && r.errnum) {
        afmt_cli_errno_error(err, r.errnum);
        afmt_cli_error_set_format(err, fmt->name);
    }
    return rc;
}
