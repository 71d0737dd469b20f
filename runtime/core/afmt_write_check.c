/* afmt runtime (internal): checks generated writers make of their arrays
 * (afmt_write_check.h). */
#include "afmt_write_check.h"

#include <inttypes.h>

int afmt_write_need_plain(const afmt_array *a, afmt_order order, const char *field, size_t index,
                          afmt_error *err)
{
    if (a->encoding == AFMT_ENC_PLAIN && !a->strided && a->endian == AFMT_LITTLE && a->stride == a->elsize &&
        (a->rank <= 1 || a->order == order))
        return 0;
    return afmt_fail(err, AFMT_E_USAGE, NULL, field, AFMT_NO_INDEX, AFMT_NO_OFFSET,
                     "array %u must be plain, little-endian and %s (see afmt_array_to_plain)",
                     (unsigned)index, order == AFMT_COL_MAJOR ? "column-major" : "row-major");
}

int afmt_write_fail_rank(const afmt_array *a, const char *field, const char *holds,
                         afmt_error *err)
{
    char desc[96];
    afmt_array_describe(a, desc, sizeof desc);
    return afmt_fail(err, AFMT_E_TYPE, NULL, field, AFMT_NO_INDEX, AFMT_NO_OFFSET, "%s; this array is %u-d: %s",
                     holds, (unsigned)a->rank, desc);
}

int afmt_write_need_signed_dims(const afmt_array *a, const char *field, afmt_error *err)
{
    unsigned k;
    for (k = 0; k < a->rank; k++)
        if (a->dims[k] > (uint64_t)INT64_MAX)
            return afmt_fail(err, AFMT_E_TYPE, NULL, field, k, 0,
                             "dimension %" PRIu64 " does not fit a signed field", a->dims[k]);
    return 0;
}

int afmt_write_region_end(afmt_sink *sink, uint64_t start, uint64_t size, int exact, const char *field,
                          afmt_error *err)
{
    const uint64_t used = sink->written - start;
    if (used > size || (exact && used < size))
        return afmt_fail(err, AFMT_E_SIZE, NULL, field, AFMT_NO_INDEX, AFMT_NO_OFFSET,
                         "the region's content takes %" PRIu64 " bytes, its size is %" PRIu64, used, size);
    return afmt_sink_zeros(sink, size - used, err);
}

int afmt_write_pad_to(afmt_sink *sink, uint64_t len, uint64_t align, const char *field,
                      afmt_error *err)
{
    const uint64_t rest = len % align;
    if (rest != 0 && len > UINT64_MAX - (align - rest))
        return afmt_fail(err, AFMT_E_OVERFLOW, NULL, field, AFMT_NO_INDEX, AFMT_NO_OFFSET,
                         "padding %" PRIu64 " bytes to a multiple of %" PRIu64
                         " overflows 64 bits", len, align);
    return afmt_sink_zeros(sink, rest ? align - rest : 0, err);
}
