/* INTERNAL HEADER: for generated code and the runtime only, not an API (it
 * changes with AFMT_RUNTIME_ABI); programs include <afmt/afmt.h> and <afmt/<format>.h>. */
/* afmt runtime (internal): the typed writes generated writers make.
 * Sinks themselves (afmt_sink, buffer/stdio/file sinks) are public, in
 * afmt.h.
 *
 * A sink is a buffer, a FILE*, or a file written under a temporary name and
 * renamed into place on commit, so that a failed or interrupted write never
 * leaves a half-written file where a good one was.
 */
#ifndef AFMT_SINK_H
#define AFMT_SINK_H

#include <stdint.h>
#include <stdio.h>
#include "../afmt.h"
#include "../array/afmt_array.h"
#include "../common/afmt_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The producer of a payload made on demand (afmt_sink_producer) and a
 * file sink's source mapping are public: afmt.h. */

AFMT_GEN_API int afmt_sink_zeros(afmt_sink *s, uint64_t n, afmt_error *err);
AFMT_GEN_API int afmt_sink_u8(afmt_sink *s, uint64_t v, afmt_error *err);
AFMT_GEN_API int afmt_sink_u16(afmt_sink *s, uint64_t v, int big_endian, afmt_error *err);
AFMT_GEN_API int afmt_sink_u32(afmt_sink *s, uint64_t v, int big_endian, afmt_error *err);
AFMT_GEN_API int afmt_sink_u64(afmt_sink *s, uint64_t v, int big_endian, afmt_error *err);
/* A fixed-size text slot, NUL-padded; fails if text is longer. */
int afmt_sink_text(afmt_sink *s, const char *text, uint64_t size, afmt_error *err);

/* Write the elements of a plain, native-order array in the given byte order
 * and encoding (PLAIN or BITS_LSB, with zero pad bits). The array must be
 * PLAIN with stride == elsize, and carry no value transform (a writer
 * that keeps one, FITS's BSCALE, hands over the stored elements without
 * it): afmt_sink_refuse_transform's AFMT_E_TYPE otherwise. */
/* AFMT_E_TYPE naming array a, its stored type and its transform: what a
 * writer says of a view whose values it cannot keep as stored (afmt.h,
 * "Value transforms").  Always -1. */
int afmt_sink_refuse_transform(const afmt_array *a, afmt_error *err);
AFMT_GEN_API int afmt_sink_payload(afmt_sink *s, const afmt_array *a, afmt_endian endian,
                                   afmt_encoding encoding, afmt_error *err);
/* The nnz stored values of a CSR view (not CSC, no transform), in the given byte order. */
AFMT_GEN_API int afmt_sink_csr_values(afmt_sink *s, const afmt_array *a, afmt_endian endian, afmt_error *err);
/* Plain 1-d columns of equal length, written row by row (one value of each
 * column per row): DAPHNE frames. */
AFMT_GEN_API int afmt_sink_columns(afmt_sink *s, const afmt_array *cols, size_t ncols, afmt_endian endian,
                                   afmt_error *err);
/* Bytes afmt_sink_payload writes. */
AFMT_GEN_API int afmt_payload_size(const afmt_array *a, afmt_encoding encoding,
                                   uint64_t *out, afmt_error *err);

#ifdef __cplusplus
}
#endif
#endif /* AFMT_SINK_H */
