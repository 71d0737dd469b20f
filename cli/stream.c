/* afmt CLI: reading a non-seekable input (pipe, terminal, "-") whole.
 *
 * Pipes are read one way, through afmt_cli_read_full, and held two ways
 * by what the command needs.  afmt-validate and afmt info need each byte
 * once and no array's data after the validator has passed it: they read a
 * pipe through a window (afmt_cli_input_open_lazy, afmt_cli_stream_validate;
 * memory bounded by AFMT_CLI_STREAM_WINDOW, whatever the stream's length).
 * afmt dump validates twice (nothing is printed from an invalid file) and
 * afmt convert writes every array after checking all of them, so they hold
 * the whole stream, here: at most the limit (1 GiB,
 * AFMT_CLI_STREAM_DEFAULT_LIMIT), a stream beyond it refused after
 * limit + 1 bytes.
 */
#include "input.h"

#include <errno.h>

#include "fail.h"

int afmt_cli_read_stream(int fd, afmt_cli_buf *dst, uint64_t limit,
                         int *over_limit, afmt_error *err)
{
    /* Read at most limit + 1 bytes: one more than allowed proves the
     * stream is too large without reading the rest of it. */
    uint64_t want = limit == UINT64_MAX ? UINT64_MAX : limit + 1;

    *over_limit = 0;
    dst->len = 0;
    dst->oom = 0;
    for (;;) {
        size_t chunk = 1 << 16;
        size_t got;

        if ((uint64_t)dst->len >= want)
            break;
        if ((uint64_t)chunk > want - dst->len)
            chunk = (size_t)(want - dst->len);
        if (afmt_cli_buf_reserve(dst, chunk) != 0)
            return afmt_cli_fail(err, AFMT_E_NOMEM, NULL,
                                 dst->len, "cannot hold more than %zu bytes of input",
                                 dst->len);
        /* Grow geometrically but read into all the free space. */
        chunk = dst->cap - dst->len - 1;
        if ((uint64_t)chunk > want - dst->len)
            chunk = (size_t)(want - dst->len);
        if (afmt_cli_read_full(fd, dst->p + dst->len, chunk, -1, &got) != 0) {
            afmt_cli_errno_error(err, errno);
            return -1;
        }
        dst->len += got;
        if (got < chunk)
            break; /* the end of the stream */
    }
    if ((uint64_t)dst->len > limit)
        *over_limit = 1;
    return 0;
}
