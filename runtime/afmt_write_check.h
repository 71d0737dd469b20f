/* afmt runtime (internal): what generated writers check of the arrays they
 * are given, one call each, so that each check is a line of generated code
 * and its message is written once here.
 *
 * Each returns 0 when the array is fit, else fills err (field and index
 * name the spec's array item; no path and offset 0, as every writer
 * failure) and returns -1.  Thread-safe: no state.
 */
#ifndef AFMT_WRITE_CHECK_H
#define AFMT_WRITE_CHECK_H

#include <stddef.h>
#include "afmt.h"
#include "afmt_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* a must be plain (no encoding), little-endian, packed (stride == elsize)
 * and, when of rank 2 or more, in `order`; index is the array's place in
 * the caller's list (for the message "array <index> must be ..."). */
int afmt_write_need_plain(const afmt_array *a, afmt_order order, const char *field, size_t index,
                          afmt_error *err);

/* The failure of an array whose rank the format cannot hold: "<holds>;
 * this array is <rank>-d: <type[dims]>" (AFMT_E_TYPE).  Always -1; the
 * caller tests the rank. */
int afmt_write_fail_rank(const afmt_array *a, const char *field, const char *holds,
                         afmt_error *err);

#ifdef __cplusplus
}
#endif

#endif /* AFMT_WRITE_CHECK_H */
