/* afmt runtime: array views.
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
#include "afmt_dtype.h"
#include "afmt_error.h"

#define AFMT_RANK_CAP 255
#define AFMT_NAME_MAX 256

typedef enum afmt_order { AFMT_ROW_MAJOR = 0, AFMT_COL_MAJOR = 1 } afmt_order;
typedef enum afmt_endian { AFMT_LITTLE = 0, AFMT_BIG = 1 } afmt_endian;

typedef enum afmt_encoding {
    AFMT_ENC_PLAIN = 0,     /* elements back to back (or every `stride` bytes) */
    AFMT_ENC_BITS_LSB = 1,  /* bool, one bit each, least significant bit first */
    AFMT_ENC_LZ4_BLOCK = 2, /* one LZ4 block that decompresses to PLAIN */
    AFMT_ENC_CSR = 3,       /* sparse: see the csr_* members */
    AFMT_ENC_ZEROS = 4,     /* every element is zero; no data stored */
    AFMT_ENC_COO = 5,       /* sparse records: see the coo_* members */
    AFMT_ENC_TEXT = 6       /* a text rendering (futhark): text_decode parses it */
} afmt_encoding;

typedef struct afmt_array {
    afmt_dtype dtype;
    uint64_t elsize;          /* bytes per element as stored (opaque: from file) */
    uint32_t rank;
    uint64_t dims[AFMT_RANK_CAP];
    uint64_t count;           /* prod(dims), checked by the validator */
    afmt_order order;
    afmt_encoding encoding;
    afmt_endian endian;
    const uint8_t *data;      /* stored bytes (values for CSR) */
    uint64_t nbytes;          /* stored length of data */
    uint64_t offset;          /* byte offset of data in the input */
    uint64_t stride;          /* bytes from one element to the next (PLAIN) */
    char name[AFMT_NAME_MAX]; /* info / label; may be empty */
    uint32_t index;           /* ordinal of this array in its file */
    /* CSR (encoding == AFMT_ENC_CSR): rank 2, rows = dims[0]. */
    uint64_t nnz;
    const uint8_t *csr_row_offsets; /* dims[0] + 1 indices */
    const uint8_t *csr_col_indices; /* nnz indices */
    unsigned csr_index_size;        /* bytes per index, little-endian unsigned */
    /* COO (encoding == AFMT_ENC_COO): rank 2, nnz records of coo_stride
     * bytes at data: a row index, a column index when coo_has_col (else
     * column 0), then the value; indices little-endian of coo_index_size. */
    uint64_t coo_stride;
    unsigned coo_index_size;
    int coo_has_col;
    /* A block of a larger matrix (DAPHNE files of several blocks): this
     * view holds rows [tile_row, tile_row + dims[0]) and columns
     * [tile_col, tile_col + dims[1]) of a tile_rows x tile_cols matrix. */
    int is_tile;
    uint64_t tile_row, tile_col, tile_rows, tile_cols;
    /* TEXT: the parser of the text (count elements, row-major, native). */
    int (*text_decode)(const struct afmt_array *view, uint8_t *dst, uint64_t dst_size, afmt_error *err);
} afmt_array;

/* Reset a view to an empty row-major plain array of the given dtype. */
void afmt_array_init(afmt_array *a, afmt_dtype dtype);

/* Format "c64[3,4]" into out (NUL-terminated, truncated if needed). */
int afmt_array_describe(const afmt_array *a, char *out, size_t out_size);

/* Bytes a PLAIN contiguous copy of the array needs; 0 and an error on
 * overflow. */
int afmt_array_plain_size(const afmt_array *a, uint64_t *out, afmt_error *err);

/* Decode the whole array into dst as PLAIN, native (little-endian host)
 * byte order, in the requested order, keeping each element's logical
 * index.  dst must hold afmt_array_plain_size bytes.  Handles bit packing,
 * strides, big-endian, CSR (densified) and LZ4 (when built with it). */
int afmt_array_to_plain(const afmt_array *src, afmt_order order,
                        uint8_t *dst, uint64_t dst_size, afmt_error *err);

/* The same result in pieces, for writing a large array out without a
 * buffer for all of it: afmt_array_part_unit says how the result of
 * afmt_array_to_plain(src, order) can be cut (every piece starts and ends
 * at a multiple of *unit bytes; for a transpose, one slab of the result's
 * first axis), and afmt_array_to_plain_part writes the bytes
 * [first, first + n) of that result into dst (n bytes, not overlapping
 * src's data).  Only PLAIN contiguous views (stride == element size), in
 * either byte order, can be cut: others get AFMT_E_UNSUPPORTED (decode them
 * whole).  Both check the view as afmt_array_to_plain does; thread-safe,
 * no allocation beyond the transpose's scratch. */
int afmt_array_part_unit(const afmt_array *src, afmt_order order, uint64_t *unit,
                         afmt_error *err);
int afmt_array_to_plain_part(const afmt_array *src, afmt_order order, uint64_t first,
                             uint8_t *dst, uint64_t n, afmt_error *err);

/* Make dst a view of plain data in buf describing src's logical array. */
void afmt_array_plain_view(const afmt_array *src, afmt_order order,
                           const uint8_t *buf, afmt_array *dst);

/* Convert element values between dtypes (same count, plain, native order).
 * Refuses with AFMT_E_LOSSY, naming the first element index that would
 * change, unless allow_lossy is set. */
int afmt_convert_elements(afmt_dtype from, const uint8_t *src,
                          afmt_dtype to, uint8_t *dst, uint64_t count,
                          int allow_lossy, afmt_error *err);

/* Scan helpers used by generated validators: they return the index of the
 * first offending byte, or n when all are fine.  Written as simple loops so
 * that compilers vectorise them. */
uint64_t afmt_scan_not_bool(const uint8_t *p, uint64_t n);
uint64_t afmt_scan_nonzero(const uint8_t *p, uint64_t n);
/* Strided bool scan (frames): element k at p[k * stride]. */
uint64_t afmt_scan_not_bool_strided(const uint8_t *p, uint64_t n, uint64_t stride);

#endif /* AFMT_ARRAY_H */
