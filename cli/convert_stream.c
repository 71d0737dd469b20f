/* afmt CLI: afmt convert's streamed arrays (convert.h).
 *
 * An array that needs only a transpose and/or a byte swap is not decoded
 * into a buffer of its size (fresh memory costs 0.5-5 s per GiB to touch
 * on these machines): the sink asks for it piece by piece, a few MiB at a
 * time, as it writes (afmt_sink_producer, afmt_array_to_plain_part). */
#include <string.h>

#include "convert.h"

static int fill_piece(void *ctx, uint64_t first, uint8_t *buf, uint64_t n, afmt_error *err)
{
    const afmt_cli_convert_streamed *st = ctx;
    return afmt_array_to_plain_part(st->src, st->order, first, buf, n, err);
}

/* Set st up for array a when it can be streamed, and make *view the view
 * the writer sees (its data: a's own bytes, which the sink never writes as
 * they are: it sees the key and asks st for the real ones).  Bools are
 * left out: their values are checked in place by the writers. */
int afmt_cli_convert_stream(afmt_cli_convert_streamed *st, const afmt_array *a,
                            const afmt_format *target, afmt_dtype dtype, afmt_array *view)
{
    uint64_t size, unit;
    afmt_error err;

    afmt_error_clear(&err);
    if ((dtype != AFMT_DTYPE_INVALID && dtype != a->dtype) || a->dtype == AFMT_BOOL ||
        afmt_array_plain_size(a, &size, &err) != 0 ||
        afmt_array_part_unit(a, target->order, &unit, &err) != 0)
        return 0;
    memset(st, 0, sizeof *st);
    st->src = a;
    st->order = target->order;
    st->producer.key = a->data;
    st->producer.size = size;
    st->producer.unit = unit;
    st->producer.fill = fill_piece;
    st->producer.ctx = st;
    afmt_array_plain_view(a, target->order, a->data, view);
    return 1;
}

