/* afmt CLI: a regular file through a window by offset (see window_file.h). */
#include "window_file.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <sys/mman.h>

#include "fail.h"
#include "spec.h"

/* The state of one validation's reads. */
typedef struct file_reader {
    int fd;
    int errnum;       /* a read failed: its errno */
    int cut;          /* nothing where the file had bytes when opened */
    uint64_t cut_at;  /* the first offset found missing */
} file_reader;

/* afmt_src_seekable's pread: up to n bytes at off.  The runtime asks only
 * for bytes before the size the file had when opened, so none is a file
 * cut short meanwhile: recorded for the message, given back as 0 bytes
 * (which the runtime takes for an error). */
static int file_pread(void *ctx, uint8_t *buf, size_t n, uint64_t off, size_t *got)
{
    file_reader *r = ctx;
    if (off > (uint64_t)INT64_MAX || afmt_cli_read_full(r->fd, buf, n, (int64_t)off, got) != 0) {
        r->errnum = off > (uint64_t)INT64_MAX ? EOVERFLOW : errno;
        return -1;
    }
    if (*got == 0 && !r->cut) {
        r->cut = 1;
        r->cut_at = off;
    }
    return 0;
}

int afmt_cli_windowed_validate(const struct afmt_interp *interp, const afmt_format *fmt,
                               afmt_cli_input *in, uint8_t *window, const afmt_options *opt,
                               const afmt_visitor *vis, afmt_error *err)
{
    afmt_src src;
    file_reader r;
    int rc;

    memset(&r, 0, sizeof r);
    r.fd = in->fd;
    afmt_src_seekable(&src, window, AFMT_CLI_STREAM_WINDOW, in->size, file_pread, &r);
    rc = afmt_cli_validate_src(interp, fmt, &src, opt, vis, err);
    in->window_short = rc != 0 && src.window_short && !src.io_error;
    if (rc != 0 && r.cut) {
        afmt_error_clear(err);
        afmt_cli_fail(err, AFMT_E_IO, NULL, r.cut_at,
                      "the file was cut short while it was read: no byte at offset %" PRIu64
                      " any more (it was %" PRIu64 " bytes when opened)", r.cut_at, in->size);
        afmt_cli_error_set_format(err, fmt->name);
    } else if (rc != 0 && r.errnum) {
        afmt_cli_errno_error(err, r.errnum);
        afmt_cli_error_set_format(err, fmt->name);
    }
    return rc;
}

int afmt_cli_input_map(afmt_cli_input *in, afmt_error *err)
{
    void *map;
    if (in->map)
        return 0;
    if (in->size == 0 || in->size > (uint64_t)SIZE_MAX) {
        afmt_cli_fail(err, AFMT_E_IO, NULL, AFMT_NO_OFFSET, "cannot map %" PRIu64 " bytes", in->size);
        return -1;
    }
    map = mmap(NULL, (size_t)in->size, PROT_READ, MAP_PRIVATE, in->fd, 0);
    if (map == MAP_FAILED) {
        afmt_cli_errno_error(err, errno);
        return -1;
    }
    in->map = map;
    in->map_len = (size_t)in->size;
    in->data = map;
    in->len = in->size;
#ifdef MADV_SEQUENTIAL
    (void)madvise(map, in->map_len, MADV_SEQUENTIAL);
#endif
    return 0;
}
