/* INTERNAL HEADER: for generated code and the runtime only, not an API (it
 * changes with AFMT_RUNTIME_ABI); programs include <afmt/afmt.h> and <afmt/<format>.h>. */
/* afmt runtime (internal): array views: the helpers generated code uses.
 * The view itself (afmt_array) and decoding are public, in afmt.h.
 *
 * An afmt_array describes one array found in (or about to be written to) a
 * file.  It does not own its data: `data` points into the caller's buffer
 * (usually an mmap), so reading is zero-copy.  The view records how the
 * elements are stored (plain, bit-packed, strided inside interleaved rows,
 * LZ4-compressed, sparse CSR) and in which byte order, and the runtime
 * decodes element k of the logical array from that.
 *
 * Logical index: dims[] is the logical shape.  With AFMT_ROW_MAJOR the last
 * dimension varies fastest in storage, with AFMT_COL_MAJOR the first.  A
 * conversion keeps every element at the same logical index (i0, i1, ...).
 */
#ifndef AFMT_ARRAY_H
#define AFMT_ARRAY_H

#include <stddef.h>
#include <stdint.h>
#include "../afmt.h"
#include "../common/afmt_dtype.h"
#include "../common/afmt_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Scan helpers used by generated validators: they return the index of the
 * first offending byte, or n when all are fine.  Written as simple loops so
 * that compilers vectorise them. */
uint64_t afmt_scan_not_bool(const uint8_t *p, uint64_t n);
uint64_t afmt_scan_nonzero(const uint8_t *p, uint64_t n);
/* The first byte that is not b (a fill of spaces), or n. */
uint64_t afmt_scan_not_byte(const uint8_t *p, uint64_t n, uint8_t b);
/* Strided bool scan (frames): element k at p[k * stride]. */
uint64_t afmt_scan_not_bool_strided(const uint8_t *p, uint64_t n, uint64_t stride);

/* 1 when afmt_array_to_plain(a, order, ...) would copy the view's stored
 * bytes a->data[0..*total) unchanged (plain, contiguous, host byte order,
 * already in `order`), 0 when it decodes, -1 with err when the view is
 * invalid (as afmt_array_to_plain says).  *total: the plain size. */
int afmt_array_plain_is_stored(const afmt_array *a, afmt_order order, uint64_t *total,
                               afmt_error *err);

#ifdef __cplusplus
}
#endif
#endif /* AFMT_ARRAY_H */
