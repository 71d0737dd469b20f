/* afmt runtime: where writers put bytes.
 *
 * A sink is a buffer, a FILE*, or a file written under a temporary name and
 * renamed into place on commit, so that a failed or interrupted write never
 * leaves a half-written file where a good one was.
 */
#ifndef AFMT_SINK_H
#define AFMT_SINK_H

#include <stdint.h>
#include <stdio.h>
#include "afmt_array.h"
#include "afmt_error.h"

typedef struct afmt_sink {
    int (*write)(struct afmt_sink *s, const void *p, uint64_t n);
    uint64_t written;
    /* buffer sink */
    uint8_t *buf;
    uint64_t cap;
    /* FILE sink */
    FILE *fp;
    /* file sink: final path and temporary path */
    char path[4096];
    char tmp_path[4096 + 16];
    int failed;
    /* set by size-only sinks (encoded_size, can_write): payload bytes are
     * counted, not encoded */
    int counting;
} afmt_sink;

void afmt_sink_buffer(afmt_sink *s, uint8_t *buf, uint64_t cap);
void afmt_sink_stdio(afmt_sink *s, FILE *fp);
/* Open PATH.XXXXXX beside path; afmt_sink_commit renames it to path,
 * afmt_sink_abort removes it. */
int afmt_sink_file_open(afmt_sink *s, const char *path, afmt_error *err);
int afmt_sink_commit(afmt_sink *s, afmt_error *err);
void afmt_sink_abort(afmt_sink *s);

/* Write bytes; -1 with AFMT_E_IO on failure (the sink then stays failed). */
int afmt_sink_put(afmt_sink *s, const void *p, uint64_t n, afmt_error *err);
int afmt_sink_zeros(afmt_sink *s, uint64_t n, afmt_error *err);
int afmt_sink_u8(afmt_sink *s, uint64_t v, afmt_error *err);
int afmt_sink_u16(afmt_sink *s, uint64_t v, int big_endian, afmt_error *err);
int afmt_sink_u32(afmt_sink *s, uint64_t v, int big_endian, afmt_error *err);
int afmt_sink_u64(afmt_sink *s, uint64_t v, int big_endian, afmt_error *err);
/* A fixed-size text slot, NUL-padded; fails if text is longer. */
int afmt_sink_text(afmt_sink *s, const char *text, uint64_t size, afmt_error *err);

/* Write the elements of a plain, native-order array in the given byte order
 * and encoding (PLAIN or BITS_LSB, with zero pad bits). The array must be
 * PLAIN with stride == elsize. */
int afmt_sink_payload(afmt_sink *s, const afmt_array *a, afmt_endian endian,
                      afmt_encoding encoding, afmt_error *err);
/* The nnz stored values of a CSR view, in the given byte order. */
int afmt_sink_csr_values(afmt_sink *s, const afmt_array *a, afmt_endian endian, afmt_error *err);
/* Plain 1-d columns of equal length, written row by row (one value of each
 * column per row): DAPHNE frames. */
int afmt_sink_columns(afmt_sink *s, const afmt_array *cols, size_t ncols, afmt_endian endian,
                      afmt_error *err);
/* Bytes afmt_sink_payload writes. */
int afmt_payload_size(const afmt_array *a, afmt_encoding encoding,
                      uint64_t *out, afmt_error *err);

#endif /* AFMT_SINK_H */
