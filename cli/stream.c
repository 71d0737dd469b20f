/* afmt CLI: reading a non-seekable input (pipe, terminal, "-").
 *
 * TODO: this reads the whole stream into one growing buffer (refusing
 * beyond the limit).  It becomes a bounded windowed stream validator later:
 * a refillable cursor window fed from the descriptor, so that memory stays
 * bounded by the window and not by the input, as DESIGN.md asks for pipes.
 * Callers only see afmt_cli_read_stream(), so that change stays local.
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
