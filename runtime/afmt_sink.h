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
#include "afmt.h"
#include "afmt_array.h"
#include "afmt_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A payload made on demand, piece by piece, instead of read from a view's
 * data: afmt_sink_payload of a view whose data pointer is `key` calls
 * fill(ctx, first, buf, n, err) for consecutive pieces [first, first + n)
 * of the payload (plain, native byte order; n and first multiples of unit,
 * pieces of a few MiB) and writes each, so that a large result never needs
 * a buffer of its own size.  key must still point at `size` readable bytes
 * (code that reads a view's data directly then reads those, not garbage).
 * `produced` counts the bytes made, so the caller can check that the
 * writer really went through afmt_sink_payload.  Not for bool (whose
 * values afmt_sink_payload checks in place). */
typedef int (*afmt_sink_fill_fn)(void *ctx, uint64_t first, uint8_t *buf, uint64_t n,
                                 afmt_error *err);
typedef struct afmt_sink_producer {
    const void *key;
    uint64_t size;
    uint64_t unit;
    afmt_sink_fill_fn fill;
    void *ctx;
    uint64_t produced;
} afmt_sink_producer;

/* Optional speed-ups of a file sink, set after opening it.  set_source:
 * [base, base + len) is a read-only mapping of the whole file fd (which
 * the caller keeps open and unchanged until the commit); large writes of
 * bytes inside it are then copied file to file by the kernel.
 * set_producer: see afmt_sink_producer; p must outlive the writes. */
void afmt_sink_set_source(afmt_sink *s, const void *base, uint64_t len, int fd);
void afmt_sink_set_producer(afmt_sink *s, afmt_sink_producer *p);

AFMT_GEN_API int afmt_sink_zeros(afmt_sink *s, uint64_t n, afmt_error *err);
AFMT_GEN_API int afmt_sink_u8(afmt_sink *s, uint64_t v, afmt_error *err);
AFMT_GEN_API int afmt_sink_u16(afmt_sink *s, uint64_t v, int big_endian, afmt_error *err);
AFMT_GEN_API int afmt_sink_u32(afmt_sink *s, uint64_t v, int big_endian, afmt_error *err);
AFMT_GEN_API int afmt_sink_u64(afmt_sink *s, uint64_t v, int big_endian, afmt_error *err);
/* A fixed-size text slot, NUL-padded; fails if text is longer. */
int afmt_sink_text(afmt_sink *s, const char *text, uint64_t size, afmt_error *err);

/* Write the elements of a plain, native-order array in the given byte order
 * and encoding (PLAIN or BITS_LSB, with zero pad bits). The array must be
 * PLAIN with stride == elsize. */
AFMT_GEN_API int afmt_sink_payload(afmt_sink *s, const afmt_array *a, afmt_endian endian,
                                   afmt_encoding encoding, afmt_error *err);
/* The nnz stored values of a CSR view, in the given byte order. */
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
