/* INTERNAL HEADER: for generated code and the runtime only, not an API (it
 * changes with AFMT_RUNTIME_ABI); programs include <afmt/afmt.h> and <afmt/<format>.h>. */
/* afmt runtime (internal): the transpose kernel behind afmt_array_to_plain.
 *
 * Not part of the public API: afmt_array.c and afmt_array_to_plain_part
 * are its only callers.  No globals, thread-safe: afmt_transpose2d
 * mallocs its scratch (a few hundred KiB, under 700) for the call and
 * frees it; without that memory it still works, an element at a time.
 */
#ifndef AFMT_TRANSPOSE_H
#define AFMT_TRANSPOSE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* dst[k * drs + i] = src[i * srs + k] for i < rows, k < cols: strides and
 * counts in elements of es bytes.  With comp 2, 4 or 8 every comp-byte
 * component of each element is byte-reversed on the way (a big-endian
 * payload read on a little-endian host); 0 or 1 copies bytes unchanged.
 * stream != 0 allows non-temporal stores for the destination: use it when
 * dst is large and will not be read again soon.  src and dst must not
 * overlap.  Any es >= 1 works; 1, 2, 4, 8 and 16 have fast kernels. */
void afmt_transpose2d(const uint8_t *src, uint64_t srs, uint8_t *dst, uint64_t drs,
                      uint64_t rows, uint64_t cols, uint64_t es, unsigned comp,
                      int stream);

/* Copy n bytes, reversing each comp-byte component (comp 2, 4, 8; any
 * other value copies unchanged).  d may equal s; otherwise they must not
 * overlap. */
void afmt_swap_copy(uint8_t *d, const uint8_t *s, uint64_t n, unsigned comp);

#ifdef __cplusplus
}
#endif
#endif /* AFMT_TRANSPOSE_H */
