/* afmt CLI: getting the bytes of an input.
 *
 * Regular files are mmap'ed read-only (never read into memory); pipes,
 * terminals and "-" are either read through a window as they are
 * validated (afmt_cli_input_open_lazy: afmt-validate, afmt info) or read
 * whole through afmt_cli_read_stream() into a buffer the caller owns and
 * reuses (afmt dump, afmt convert: see stream.c).  An input larger than
 * its limit is not mapped or kept: only its first bytes are, so the
 * format can still be named in the report.
 */
#ifndef AFMT_CLI_INPUT_H
#define AFMT_CLI_INPUT_H

#include <stddef.h>
#include <stdint.h>
#include "afmt.h"
#include "buf.h"

/* Bytes read from the start of an input for detection: as many as any
 * format's detect rule may look at (AFMT_DETECT_MAX, runtime/afmt.h), so
 * a rule far into the file sees its bytes from a pipe as from a path; a
 * tar header's "ustar" magic (offset 257) too. */
#define AFMT_CLI_HEAD_BYTES AFMT_DETECT_MAX

/* Default limit for input from a pipe when --max-bytes is not given. */
#define AFMT_CLI_STREAM_DEFAULT_LIMIT ((uint64_t)1 << 30)

typedef struct afmt_cli_input {
    const uint8_t *data; /* the bytes (or, when over_limit, the first ones) */
    uint64_t len;        /* bytes at data */
    uint64_t size;       /* size of the input: file size, or bytes read */
    int over_limit;      /* size > limit: data holds at most the head */
    uint64_t limit;      /* the limit that applied */
    int is_stream;       /* read from a pipe rather than mapped */
    void *map;           /* mmap'ed region, or NULL */
    int fd;              /* lazy streams: read on from here after the head (-1: none) */
    /* lazy streams without a descriptor (archive members): read on with this */
    int (*read_more)(void *ctx, uint8_t *buf, size_t n, size_t *got);
    void *read_ctx;
    int close_fd;        /* the descriptor is ours to close */
    /* a regular file read through the window by offset (window_file.h):
     * opened so by afmt_cli_input_open_windowed, or by open_lazy when it
     * cannot be mapped (ENOMEM: ulimit -v below its size); fd is open,
     * size is its size when opened, is_stream is 0 */
    int windowed_file;
    /* the last windowed validation failed for want of window room: the
     * bytes may validate from memory (afmt_cli_input_map) */
    int window_short;
    size_t map_len;
    /* the mapped file (st_dev, st_ino): while the mapping lives, no other
     * file can have them, so a descriptor opened again can be checked */
    uint64_t map_dev, map_ino;
    /* last: input_reset clears every field before it, not its 64 KiB */
    uint8_t head[AFMT_CLI_HEAD_BYTES];
} afmt_cli_input;
_Static_assert(offsetof(afmt_cli_input, head) + AFMT_CLI_HEAD_BYTES == sizeof(afmt_cli_input),
               "head is the last field of afmt_cli_input");

/* Open path ("-" is standard input).  file_limit applies to regular files,
 * stream_limit to everything read as a stream; stream_buf receives stream
 * input and must stay alive (and untouched) until afmt_cli_input_close.
 * Returns 0, or -1 with err->code AFMT_E_IO and err->message the reason
 * ("No such file or directory", "is a directory"). */
int afmt_cli_input_open(afmt_cli_input *in, const char *path,
                        uint64_t file_limit, uint64_t stream_limit,
                        afmt_cli_buf *stream_buf, afmt_error *err);
/* The same for an already open descriptor (not closed by this call). */
int afmt_cli_input_open_fd(afmt_cli_input *in, int fd, uint64_t file_limit,
                           uint64_t stream_limit, afmt_cli_buf *stream_buf,
                           afmt_error *err);
void afmt_cli_input_close(afmt_cli_input *in);

/* Like afmt_cli_input_open, but a stream is not read into memory: only its
 * first bytes (head, for detection) are, and in->fd is left to read the
 * rest from, so that it can be validated through a fixed window.  A
 * regular file that cannot be mapped for want of address space is opened
 * the same way (in->windowed_file), so that it is checked in the memory a
 * pipe of the same bytes takes. */
int afmt_cli_input_open_lazy(afmt_cli_input *in, const char *path, uint64_t file_limit,
                             afmt_cli_buf *small, afmt_error *err);

/* Like afmt_cli_input_open_lazy, but a regular file larger than
 * AFMT_CLI_STREAM_WINDOW (and within file_limit) is not mapped: it is opened
 * to be read through the window by offset (in->windowed_file, its first
 * bytes in head for detection), so that its check takes the window's
 * memory and address space whatever its size (afmt-validate). */
int afmt_cli_input_open_windowed(afmt_cli_input *in, const char *path, uint64_t file_limit,
                                 afmt_cli_buf *small, afmt_error *err);

/* Regular files up to this size are read into a reused buffer (`small`)
 * rather than mapped: cheaper for the many-small-files case. */
#define AFMT_CLI_SMALL_FILE ((uint64_t)256 << 10)

/* Is in a lazily opened stream (validated through a window)? */
static inline int afmt_cli_input_is_lazy(const afmt_cli_input *in)
{
    return in->fd >= 0 || in->read_more != NULL;
}

/* Window of afmt_cli_stream_validate (resident memory of a stream check). */
#define AFMT_CLI_STREAM_WINDOW ((uint64_t)32 << 20)

/* afmt-validate's limits.max_held_bytes: a deflated archive member
 * larger than this is validated through the library's window rather than
 * inflated into memory (afmt info, dump and convert hold any: they need
 * the data). */
#define AFMT_CLI_HELD_BYTES ((uint64_t)16 << 20)

/* Validate a lazily opened stream through window (AFMT_CLI_STREAM_WINDOW
 * bytes): memory stays bounded whatever the stream's length.  limit is
 * --max-bytes (UINT64_MAX for none).  interp: --spec's (cli/spec.h), or
 * NULL.  A windowed file is read by offset instead (window_file.h; limit
 * was applied when it was opened). */
struct afmt_interp;
int afmt_cli_stream_validate(const struct afmt_interp *interp, const afmt_format *fmt,
                             afmt_cli_input *in, uint8_t *window,
                             uint64_t limit, const afmt_options *opt, const afmt_visitor *vis,
                             afmt_error *err);

/* Read all of fd into dst (reset first), at most limit bytes.  When the
 * stream holds more, stops after limit + 1 bytes and sets *over_limit.
 * 0, or -1 with err (AFMT_E_IO / AFMT_E_NOMEM).  See stream.c. */
int afmt_cli_read_stream(int fd, afmt_cli_buf *dst, uint64_t limit,
                         int *over_limit, afmt_error *err);

/* The one read loop: read fd until n bytes are in buf or the input ends,
 * retrying reads a signal interrupted.  at >= 0 reads from that offset
 * (pread, the file position is not moved); at < 0 reads on from the
 * current position (pipes).  Returns 0 with *got the bytes read (less than
 * n only at the end of the input), or -1 with errno set and *got the
 * bytes read before the error. */
int afmt_cli_read_full(int fd, void *buf, size_t n, int64_t at, size_t *got);

/* err := AFMT_E_IO with strerror(errnum) (thread-safe) as the message. */
void afmt_cli_errno_error(afmt_error *err, int errnum);

/* The limit error for an input of size bytes above limit. */
void afmt_cli_limit_error(afmt_error *err, uint64_t size, uint64_t limit,
                          int is_stream);

#endif /* AFMT_CLI_INPUT_H */
