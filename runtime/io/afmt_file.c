/* afmt runtime: reading a regular file (afmt_file_open, afmt_file_read_array,
 * afmt_file_close; afmt.h documents them).
 *
 * Why not mmap + afmt_array_to_plain, as a caller would do by hand: copying
 * a 1 GiB payload out of a mapping first maps it (MAP_POPULATE or one fault
 * per page: 262,144 page-table entries set and torn down again), which on
 * the bench machine cost a quarter of the read on top of the copy itself
 * (perf: populate, follow_page_pte, unmap_page_range).  pread() copies from
 * the page cache into the caller's buffer without mapping anything, and a
 * header-only validator touches only the header's pages of the mapping.
 *
 * A file that changes under the reader: a pread that ends early (the file
 * was shortened) is an error naming the offset, never a SIGBUS; a size or
 * modification time different from the one at open is an error after the
 * read, so bytes that were not the validated ones are not passed off as
 * valid.  A change inside the file system's timestamp granularity with the
 * same size cannot be seen; afmt.h says so.
 */
/* POSIX (open, fstat, mmap, pread, strerror_r): said here, so that the
 * runtime builds with plain `cc -std=c11` (as afmt_sink.c does). */
#if !defined(_POSIX_C_SOURCE) || _POSIX_C_SOURCE < 200809L
#undef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "../afmt.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../array/afmt_array.h"
#include "../common/afmt_error.h"
#include "afmt_fileio.h"

/* What an empty file's data points at: validators get a valid pointer. */
static const uint8_t no_bytes[1];

static int file_io_fail(afmt_error *err, uint64_t offset, const char *what,
                        const char *path, int errnum)
{
    char msg[128];

    if (strerror_r(errnum, msg, sizeof msg) != 0)
        snprintf(msg, sizeof msg, "error %d", errnum);
    return afmt_fail(err, AFMT_E_IO, NULL, NULL, AFMT_NO_INDEX, offset, "%s %s: %s", what, path,
                     msg);
}

static void closed(afmt_file *f)
{
    f->data = NULL;
    f->len = 0;
    f->fd = -1;
}

int afmt_file_open(afmt_file *f, const char *path, afmt_error *err)
{
    struct stat st;
    size_t n;
    void *m;
    int fd, e;

    memset(f, 0, sizeof *f);
    closed(f);
    if (!path || !*path)
        return afmt_fail(err, AFMT_E_USAGE, NULL, NULL, AFMT_NO_INDEX, AFMT_NO_OFFSET, "input path is empty");
    n = strlen(path);
    if (n >= sizeof f->path)
        return afmt_fail(err, AFMT_E_USAGE, NULL, NULL, AFMT_NO_INDEX, AFMT_NO_OFFSET,
                         "input path is longer than %zu bytes", sizeof f->path - 1);
    memcpy(f->path, path, n + 1);
    fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return file_io_fail(err, AFMT_NO_OFFSET, "cannot open", path, errno);
    if (fstat(fd, &st) != 0) {
        e = errno;
        close(fd);
        return file_io_fail(err, AFMT_NO_OFFSET, "cannot examine", path, e);
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return afmt_fail(err, AFMT_E_IO, NULL, NULL, AFMT_NO_INDEX, AFMT_NO_OFFSET,
                         "%s is not a regular file (read pipes and devices through "
                         "afmt_src_stream)", path);
    }
    if (st.st_size < 0 || (uint64_t)st.st_size > SIZE_MAX) {
        close(fd);
        return afmt_fail(err, AFMT_E_LIMIT, NULL, NULL, AFMT_NO_INDEX, AFMT_NO_OFFSET,
                         "%s: %" PRId64 " bytes do not fit this process's address space", path,
                         (int64_t)st.st_size);
    }
    f->len = (uint64_t)st.st_size;
    f->mtime_sec = (int64_t)st.st_mtim.tv_sec;
    f->mtime_nsec = (int64_t)st.st_mtim.tv_nsec;
    if (f->len == 0) {
        f->data = no_bytes;
    } else {
        /* not populated: a validator faults in only the pages it reads */
        m = mmap(NULL, (size_t)f->len, PROT_READ, MAP_PRIVATE, fd, 0);
        if (m == MAP_FAILED) {
            e = errno;
            close(fd);
            f->len = 0;
            return file_io_fail(err, AFMT_NO_OFFSET, "cannot map", path, e);
        }
        f->data = m;
    }
    f->fd = fd;
    return 0;
}

/* 0 when f's file still has the size and modification time it had at
 * open, else -1 with err naming it (offset: where it now ends, if
 * shorter). */
static int check_unchanged(const afmt_file *f, afmt_error *err)
{
    struct stat st;

    if (fstat(f->fd, &st) != 0)
        return file_io_fail(err, AFMT_NO_OFFSET, "cannot examine", f->path, errno);
    if ((uint64_t)st.st_size < f->len)
        return afmt_fail(err, AFMT_E_IO, NULL, NULL, AFMT_NO_INDEX, (uint64_t)st.st_size,
                         "%s was shortened from %" PRIu64 " to %" PRId64
                         " bytes after it was opened; not reading it", f->path, f->len,
                         (int64_t)st.st_size);
    if ((uint64_t)st.st_size != f->len || (int64_t)st.st_mtim.tv_sec != f->mtime_sec ||
        (int64_t)st.st_mtim.tv_nsec != f->mtime_nsec)
        return afmt_fail(err, AFMT_E_IO, NULL, NULL, AFMT_NO_INDEX, AFMT_NO_OFFSET,
                         "%s was modified after it was opened (size %" PRIu64 " -> %" PRId64
                         ", or its modification time); what was read may not be what was "
                         "validated: open and validate it again", f->path, f->len,
                         (int64_t)st.st_size);
    return 0;
}

int afmt_file_read_array(const afmt_file *f, const afmt_array *view, afmt_order order,
                         void *out, uint64_t dst_size, afmt_error *err)
{
    uint8_t *dst = out; /* void *: a float * or any buffer needs no cast */
    uint64_t total, at, got;
    uintptr_t base, p;
    int stored, e = 0, r;

    if (!f || f->fd < 0 || !f->data)
        return afmt_fail(err, AFMT_E_USAGE, NULL, NULL, AFMT_NO_INDEX, AFMT_NO_OFFSET,
                         "afmt_file_read_array on a file that is not open");
    stored = afmt_array_plain_is_stored(view, order, &total, err);
    if (stored < 0)
        return -1;
    base = (uintptr_t)f->data;
    p = (uintptr_t)view->data;
    if (stored && (!view->data || p < base || p - base > f->len || total > f->len - (p - base)))
        return afmt_fail(err, AFMT_E_USAGE, NULL, NULL, AFMT_NO_INDEX, view->offset,
                         "the view's data is not inside the mapping of %s", f->path);
    if (!stored || total == 0 || dst_size < total || !dst) {
        /* decode from the mapping (afmt_array_to_plain says what is wrong
         * with dst); a shortened file would fault there: look first */
        if (check_unchanged(f, err) != 0)
            return -1;
        if (afmt_array_to_plain(view, order, dst, dst_size, err) != 0)
            return -1;
        return check_unchanged(f, err);
    }
    at = (uint64_t)(p - base);
    r = afmt_fileio_read_at(f->fd, dst, total, at, NULL, &got, &e);
    if (r < 0)
        return file_io_fail(err, at + got, "cannot read", f->path, e);
    if (r > 0)
        return afmt_fail(err, AFMT_E_IO, NULL, NULL, AFMT_NO_INDEX, at + got,
                         "%s ends at offset %" PRIu64 ", inside the payload of %" PRIu64
                         " bytes at offset %" PRIu64 " that was validated: the file was "
                         "shortened after it was opened", f->path, at + got, total, at);
    return check_unchanged(f, err);
}

void afmt_file_close(afmt_file *f)
{
    if (!f || f->fd < 0)
        return;
    if (f->data && f->data != no_bytes && f->len > 0)
        munmap((void *)(uintptr_t)f->data, (size_t)f->len);
    close(f->fd);
    closed(f);
}
