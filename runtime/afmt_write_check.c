/* afmt runtime (internal): checks generated writers make of their arrays
 * (afmt_write_check.h). */
#include "afmt_write_check.h"

int afmt_write_need_plain(const afmt_array *a, afmt_order order, const char *field, size_t index,
                          afmt_error *err)
{
    if (a->encoding == AFMT_ENC_PLAIN && a->endian == AFMT_LITTLE && a->stride == a->elsize &&
        (a->rank <= 1 || a->order == order))
        return 0;
    return afmt_fail(err, AFMT_E_USAGE, NULL, field, AFMT_NO_INDEX, 0,
                     "array %u must be plain, little-endian and %s (see afmt_array_to_plain)",
                     (unsigned)index, order == AFMT_COL_MAJOR ? "column-major" : "row-major");
}

int afmt_write_fail_rank(const afmt_array *a, const char *field, const char *holds,
                         afmt_error *err)
{
    char desc[96];
    afmt_array_describe(a, desc, sizeof desc);
    return afmt_fail(err, AFMT_E_TYPE, NULL, field, AFMT_NO_INDEX, 0, "%s; this array is %u-d: %s",
                     holds, (unsigned)a->rank, desc);
}
