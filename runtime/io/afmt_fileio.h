/* INTERNAL HEADER: for generated code and the runtime only, not an API (it
 * changes with AFMT_RUNTIME_ABI); programs include <afmt/afmt.h> and <afmt/<format>.h>. */
/* afmt runtime (internal): moving large runs of bytes between a file and
 * memory at the speed of the page cache.  Used by the file and stdio
 * sinks (afmt_sink.c) for payloads of a megabyte or more into a regular
 * file, and by afmt_file_read_array (afmt_file.c) to read a payload into
 * the caller's buffer; not part of the public API. */
#ifndef AFMT_FILEIO_H
#define AFMT_FILEIO_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Runs at least this long take afmt_fileio_write_bulk. */
#define AFMT_FILEIO_BULK ((uint64_t)1 << 20)

/* write(2), or a stand-in for tests: up to n bytes of buf to fd; returns
 * the number written (0 < r <= n; 0 is taken as EIO), -1 with errno. */
typedef int64_t (*afmt_fileio_write_fn)(int fd, const void *buf, uint64_t n);

/* Write all n bytes at p to fd at its current position, through short
 * writes and EINTR (write_fn NULL: write(2), at most 1 GiB a call).
 * Returns 0; or -1 with *errnum after a real error (ENOSPC, EIO, ...),
 * not retried.  *done: the bytes written, in every case. */
int afmt_fileio_write_all(int fd, const uint8_t *p, uint64_t n, afmt_fileio_write_fn write_fn,
                          uint64_t *done, int *errnum);

/* Write the n bytes at p to out_fd at its current position, in pieces of
 * 8 MiB.  When src_fd >= 0, the same bytes are also the file src_fd at
 * src_off (the caller's mapping of it), and the kernel copies them without
 * a pass through user memory (copy_file_range; where that is not possible,
 * plain write() from p).  Returns 0, or -1 with *errnum set (nothing is
 * retried after a real error). */
int afmt_fileio_write_bulk(int out_fd, const uint8_t *p, uint64_t n, int src_fd,
                           uint64_t src_off, int *errnum);

/* Reserve the disk blocks of [at, at + n) of fd before they are written,
 * without changing the file's size (Linux: fallocate FALLOC_FL_KEEP_SIZE,
 * what numpy's tofile does).  The writes that follow then find their
 * blocks allocated, in one extent, instead of allocating them page by page
 * as they go.  Best effort and silent: where the call is not available, or
 * fd is not a regular file, or the file system refuses (no space, not
 * supported), nothing happens and the writes report what they must. */
void afmt_fileio_reserve(int fd, uint64_t at, uint64_t n);

/* pread(2), or a stand-in for tests: up to n bytes of fd at offset at into
 * buf; returns the number read, 0 at the end of the file, -1 with errno. */
typedef int64_t (*afmt_fileio_pread_fn)(int fd, void *buf, uint64_t n, uint64_t at);

/* Read the n bytes of fd at offset at into dst, through short reads and
 * EINTR (read_at NULL: pread).  Returns 0 when all n were read; 1 when the
 * file ended first; -1 on an error, with *errnum (EOVERFLOW when at + n
 * does not fit off_t).  *got: the bytes read into dst, in every case. */
int afmt_fileio_read_at(int fd, uint8_t *dst, uint64_t n, uint64_t at,
                        afmt_fileio_pread_fn read_at, uint64_t *got, int *errnum);

#ifdef __cplusplus
}
#endif
#endif /* AFMT_FILEIO_H */
