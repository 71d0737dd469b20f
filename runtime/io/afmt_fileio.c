/* afmt runtime: bulk file output and input (see afmt_fileio.h).
 *
 * copy_file_range is a Linux call (glibc declares it with _GNU_SOURCE,
 * hence this file of its own); elsewhere the same loop uses write() alone.
 * Measured on the bench machine (ext4, 1 GiB, fsync included, machine
 * shared, so ranges): one write() of the whole mmap'd payload 1.4-1.6 s,
 * 8 MiB copy_file_range()s 0.67-1.2 s, `cp` + `sync FILE` 0.6-0.9 s.
 * Starting the writeback early with sync_file_range after each piece was
 * tried and dropped: it made a transposing convert 2-3x slower.
 * Reserving the blocks first (afmt_fileio_reserve) took 256 MiB written
 * with write() from 57-89 ms to 41-67 ms, and with copy_file_range + fsync
 * from 250-340 ms to 210-290 ms (same process, rounds alternated).
 *
 * AFMT_NO_COPY_FILE_RANGE leaves the call out, write() doing it all: the
 * amalgamation (tools/amalgamate.py) sets it, its one translation unit
 * being unable to define _GNU_SOURCE for this part alone.
 */
#define _GNU_SOURCE
#include "afmt_fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#define PIECE ((uint64_t)8 << 20)

#if defined(__linux__) && !defined(AFMT_NO_COPY_FILE_RANGE)
#define HAVE_COPY_FILE_RANGE 1
#endif

/* One write() of at most a GiB (ssize_t must hold the result everywhere). */
static int64_t write_piece(int fd, const void *buf, uint64_t n)
{
    const uint64_t max = (uint64_t)1 << 30;
    return (int64_t)write(fd, buf, (size_t)(n < max ? n : max));
}

int afmt_fileio_write_all(int fd, const uint8_t *p, uint64_t n, afmt_fileio_write_fn write_fn,
                          uint64_t *done, int *errnum)
{
    uint64_t d = 0;

    if (!write_fn)
        write_fn = write_piece;
    while (d < n) {
        int64_t w = write_fn(fd, p + d, n - d);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0 || (uint64_t)w > n - d) {
            /* 0 bytes for a non-empty write is no progress: an error, not
             * a reason to loop for ever */
            *errnum = w < 0 ? errno : EIO;
            *done = d;
            return -1;
        }
        d += (uint64_t)w;
    }
    *done = d;
    return 0;
}

#ifdef HAVE_COPY_FILE_RANGE
/* Copy up to n bytes from src_fd at src_off; the bytes copied, 0 when the
 * kernel cannot do it for these files (then use write()), -1 on error. */
static int64_t copy_range(int src_fd, uint64_t src_off, int out_fd, uint64_t n, int *errnum)
{
    loff_t in = (loff_t)src_off;
    uint64_t done = 0;

    while (done < n) {
        ssize_t c = copy_file_range(src_fd, &in, out_fd, NULL, (size_t)(n - done), 0);
        if (c < 0 && errno == EINTR)
            continue;
        if (c < 0 && done == 0 &&
            (errno == EXDEV || errno == EINVAL || errno == ENOSYS || errno == EOPNOTSUPP ||
             errno == EBADF || errno == EPERM || errno == ETXTBSY))
            return 0;
        if (c < 0) {
            *errnum = errno;
            return -1;
        }
        if (c == 0)
            break; /* the source is shorter than its mapping said: write() the rest */
        done += (uint64_t)c;
    }
    return (int64_t)done;
}
#endif

int afmt_fileio_write_bulk(int out_fd, const uint8_t *p, uint64_t n, int src_fd,
                           uint64_t src_off, int *errnum)
{
    off_t at = lseek(out_fd, 0, SEEK_CUR);
    uint64_t piece, done, wrote;

    while (n > 0) {
        /* pieces end on multiples of PIECE in the file: whole pages */
        piece = at >= 0 ? PIECE - (uint64_t)at % PIECE : PIECE;
        if (piece > n)
            piece = n;
        done = 0;
#ifdef HAVE_COPY_FILE_RANGE
        if (src_fd >= 0) {
            int64_t c = copy_range(src_fd, src_off, out_fd, piece, errnum);
            if (c < 0)
                return -1;
            if (c == 0)
                src_fd = -1; /* not for these files: write() from now on */
            done = (uint64_t)c;
        }
#else
        (void)src_fd;
        (void)src_off;
#endif
        if (afmt_fileio_write_all(out_fd, p + done, piece - done, NULL, &wrote, errnum) != 0)
            return -1;
        if (at >= 0)
            at += (off_t)piece;
        p += piece;
        src_off += piece;
        n -= piece;
    }
    return 0;
}

void afmt_fileio_reserve(int fd, uint64_t at, uint64_t n)
{
#if defined(__linux__) && defined(FALLOC_FL_KEEP_SIZE)
    struct stat st;
    /* off_t is signed, and 32 bits in some builds: the end must fit it */
    const uint64_t off_max = sizeof(off_t) >= 8 ? (uint64_t)INT64_MAX : (uint64_t)INT32_MAX;

    if (fd < 0 || n == 0 || at > off_max || n > off_max - at)
        return;
    /* a device or a FIFO has no blocks to reserve (and a block device
     * would take fallocate as a request to zero or discard) */
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        return;
    (void)fallocate(fd, FALLOC_FL_KEEP_SIZE, (off_t)at, (off_t)n);
#else
    (void)fd;
    (void)at;
    (void)n;
#endif
}

/* One pread of at most a GiB (Linux does at most 2 GiB - 4 KiB per call;
 * ssize_t must hold the result on every system). */
static int64_t pread_piece(int fd, void *buf, uint64_t n, uint64_t at)
{
    const uint64_t max = (uint64_t)1 << 30;
    return (int64_t)pread(fd, buf, (size_t)(n < max ? n : max), (off_t)at);
}

int afmt_fileio_read_at(int fd, uint8_t *dst, uint64_t n, uint64_t at,
                        afmt_fileio_pread_fn read_at, uint64_t *got, int *errnum)
{
    const uint64_t off_max = sizeof(off_t) >= 8 ? (uint64_t)INT64_MAX : (uint64_t)INT32_MAX;
    uint64_t done = 0;

    *got = 0;
    if (at > off_max || n > off_max - at) {
        *errnum = EOVERFLOW;
        return -1;
    }
    if (!read_at)
        read_at = pread_piece;
    while (done < n) {
        int64_t r = read_at(fd, dst + done, n - done, at + done);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            *errnum = errno;
            *got = done;
            return -1;
        }
        if (r == 0) {
            *got = done;
            return 1;
        }
        done += (uint64_t)r > n - done ? n - done : (uint64_t)r;
    }
    *got = done;
    return 0;
}
