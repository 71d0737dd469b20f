/* INTERNAL HEADER: for generated code and the runtime only, not an API (it
 * changes with AFMT_RUNTIME_ABI); programs include <afmt/afmt.h> and <afmt/<format>.h>. */
/* afmt runtime: LZ4 block format (RawArray flags bit 1).
 *
 * Checking and decoding are written here, without liblz4, so that a
 * validator can prove a block decodes to exactly the size the header
 * implies without allocating anything, and so that vendored copies read
 * compressed files with no dependency.  Compressing needs liblz4
 * (AFMT_HAVE_LZ4).
 */
#ifndef AFMT_LZ4_H
#define AFMT_LZ4_H

#include <stdint.h>
#include "../common/afmt_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Walk the block's sequences without producing output.  Returns 0 when
 * src[0..n) is a well-formed block that decodes to exactly `expected`
 * bytes; -1 when it is malformed, -2 when it decodes to a different size;
 * *bad_offset (relative to src) and *why say where and why.
 * Stops as soon as the output would exceed `expected`, so hostile blocks
 * that claim huge matches cost no more than their own length. */
int afmt_lz4_block_check(const uint8_t *src, uint64_t n, uint64_t expected,
                         uint64_t *bad_offset, const char **why);

/* Decode into dst, which holds exactly `expected` bytes.  Same checks. */
int afmt_lz4_block_decode(const uint8_t *src, uint64_t n, uint8_t *dst, uint64_t expected,
                          uint64_t *bad_offset, const char **why);

/* Compress src into a new malloc'ed block (*out, *out_len); the caller
 * frees it.  AFMT_E_UNSUPPORTED without liblz4. */
AFMT_GEN_API int afmt_lz4_compress(const uint8_t *src, uint64_t n, uint8_t **out, uint64_t *out_len,
                                   afmt_error *err);

/* Compress the elements of the plain array a as an LZ4 payload holds them
 * (back to back, bool as bytes, in byte order endian: what the block must
 * decode to) into a new malloc'ed block (*out, *out_len); the caller frees
 * it.  Little-endian elements are compressed from a->data; big-endian
 * ones are first rendered into a temporary buffer of their size, freed
 * before returning. */
AFMT_GEN_API int afmt_lz4_compress_payload(const afmt_array *a, afmt_endian endian, uint8_t **out, uint64_t *out_len,
                                           afmt_error *err);

#ifdef __cplusplus
}
#endif
#endif
