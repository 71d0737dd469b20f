/* INTERNAL HEADER: for generated code and the runtime only, not an API (it
 * changes with AFMT_RUNTIME_ABI); programs include <afmt/afmt.h> and <afmt/<format>.h>. */
/* afmt runtime (internal): what generated writers check of the arrays they
 * are given, and the padding they write, one call each, so that each is a
 * line of generated code and its message is written once here.
 *
 * Each returns 0 when the array is fit, else fills err (field and index
 * name the spec's array item; no path and offset 0, as every writer
 * failure) and returns -1.  Thread-safe: no state.
 */
#ifndef AFMT_WRITE_CHECK_H
#define AFMT_WRITE_CHECK_H

#include <stddef.h>
#include "../afmt.h"
#include "../common/afmt_error.h"
#include "../io/afmt_sink.h"

#ifdef __cplusplus
extern "C" {
#endif

/* a must be plain (no encoding), little-endian, packed (stride == elsize)
 * and, when of rank 2 or more, in `order`; index is the array's place in
 * the caller's list (for the message "array <index> must be ..."). */
AFMT_GEN_API int afmt_write_need_plain(const afmt_array *a, afmt_order order, const char *field, size_t index,
                                       afmt_error *err);

/* Every dimension of a must fit a signed 64-bit field (a format whose
 * dims are i64): else "dimension <d> does not fit a signed field",
 * blamed on field[k]. */
AFMT_GEN_API int afmt_write_need_signed_dims(const afmt_array *a, const char *field, afmt_error *err);

/* Write the zeros that pad len bytes to a multiple of align (> 0): the
 * writer's `pad` of `roundup(len, align) - len`.  A len so large that the
 * multiple overflows 64 bits fails, blamed on field. */
AFMT_GEN_API int afmt_write_pad_to(afmt_sink *sink, uint64_t len, uint64_t align, const char *field,
                                   afmt_error *err);

/* The end of a region the writer wrote from byte start of sink on: its
 * content took sink->written - start bytes and its spec's size is size.
 * More than size fails, and so does less when exact (the validator
 * would refuse either file: AFMT_E_SIZE, blamed on field, the region's
 * size field or the region); less when not exact is filled with zeros, so
 * that the file has the region's every byte. */
AFMT_GEN_API int afmt_write_region_end(afmt_sink *sink, uint64_t start, uint64_t size, int exact, const char *field,
                          afmt_error *err);

/* The failure of an array whose rank the format cannot hold: "<holds>;
 * this array is <rank>-d: <type[dims]>" (AFMT_E_TYPE).  Always -1; the
 * caller tests the rank. */
AFMT_GEN_API int afmt_write_fail_rank(const afmt_array *a, const char *field, const char *holds,
                                      afmt_error *err);

#ifdef __cplusplus
}
#endif

#endif /* AFMT_WRITE_CHECK_H */
