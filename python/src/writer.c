/* afmt Python extension: writing arrays out (see writer.h). */
#include "writer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* path + the sidecar's suffix: the sidecar written beside the data. */
static int write_sidecar(const afmt_format *fmt, const afmt_array *arrays, size_t n,
                         const char *path, afmt_error *err)
{
    char side[4096 + 64];
    char *json;
    size_t len;
    afmt_sink sink;
    int rc = -1;

    if (!afmt_sidecar_suffix(fmt))
        return 0;
    snprintf(side, sizeof side, "%s%s", path, afmt_sidecar_suffix(fmt));
    if (!(json = malloc(AFMT_SIDECAR_MAX_BYTES))) {
        err->code = AFMT_E_NOMEM;
        return -1;
    }
    if (afmt_sidecar_json(fmt, arrays, n, json, AFMT_SIDECAR_MAX_BYTES, &len, err) == 0 &&
        afmt_sink_file_open(&sink, side, err) == 0) {
        if (afmt_sink_put(&sink, json, len, err) != 0)
            afmt_sink_abort(&sink);
        else
            rc = afmt_sink_commit(&sink, err);
    }
    free(json);
    return rc;
}

int afmt_py_write_file(const afmt_format *fmt, const afmt_array *arrays, size_t n,
                       const afmt_write_options *wopt, const char *path, afmt_py_refusal *why)
{
    afmt_sink sink;
    uint64_t size;
    size_t i;

    afmt_error_clear(&why->err);
    why->array = (size_t)-1;
    for (i = 0; i < n; i++)
        if (fmt->can_write(&arrays[i], &why->err) != 0) {
            why->array = i;
            return -1;
        }
    /* the sizes are checked before a byte is written (a file too large
     * for its own fields is refused here, not half-written) */
    if (fmt->encoded_size(arrays, n, wopt, &size, &why->err) != 0)
        return -1;
    if (afmt_sink_file_open(&sink, path, &why->err) != 0)
        return -1;
    if (fmt->write(arrays, n, wopt, &sink, &why->err) != 0) {
        afmt_sink_abort(&sink);
        return -1;
    }
    if (afmt_sink_commit(&sink, &why->err) != 0)
        return -1;
    return write_sidecar(fmt, arrays, n, path, &why->err);
}
