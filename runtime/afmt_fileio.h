/* afmt runtime (internal): writing large runs of bytes to a file at the
 * speed of the disk.  Used by the file sink (afmt_sink.c) for payloads of a
 * megabyte or more; not part of the public API. */
#ifndef AFMT_FILEIO_H
#define AFMT_FILEIO_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Runs at least this long take afmt_fileio_write_bulk. */
#define AFMT_FILEIO_BULK ((uint64_t)1 << 20)

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

#ifdef __cplusplus
}
#endif
#endif /* AFMT_FILEIO_H */
