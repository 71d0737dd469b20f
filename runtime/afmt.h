/* afmt.h: the public API of the afmt runtime.
 *
 * afmt validates, reads (zero-copy) and writes array file formats.  Each
 * format is generated from a JSON spec by afmt-gen into <format>.c and
 * <format>.h (generated/ for the shipped formats); this header is what those
 * and your program share.  Everything a caller needs is here: errors,
 * options and limits, the visitor, array views, decoding a view to plain
 * memory, writer options, sinks and (optionally) format lookup.
 *
 * Other runtime headers (afmt_internal.h and the afmt_*.h it includes) are
 * for generated code and the runtime itself: they change without notice.
 * See docs/API.md for an overview and docs/VENDORING.md for copying afmt
 * into your tree.
 *
 * ---- Conventions (hold for every function below unless it says otherwise)
 *
 * Return values: 0 on success, -1 on failure with *err filled.
 * err: may be NULL everywhere; the details of a failure are then lost but
 *   the return value is the same.  An afmt_error is plain data (fixed-size
 *   strings, no pointers): copy it, keep it, print it with
 *   afmt_error_describe.  Nothing in afmt prints or exits.
 * Memory: afmt never keeps a pointer you passed beyond the call, except
 *   where a struct says it does (a sink or stream source keeps its buffer
 *   and callbacks until you stop using it).  The few functions that
 *   allocate say so, and free before returning (but afmt_sidecar_parse's
 *   block, for afmt_sidecar_free, and an afmt_views' list, for
 *   afmt_views_free).
 * Threads: there is no global or static mutable state.  Every function is
 *   reentrant; different threads may validate, decode and write at the same
 *   time as long as each afmt_src, afmt_sink and afmt_error is used by one
 *   thread at a time.  Format descriptors (afmt_format) are immutable.
 * Untrusted input: validators accept any bytes and give a verdict in time
 *   linear in the input, with memory bounded by afmt_limits; they never
 *   read outside [buf, buf + len).
 *
 * ---- Usage, one example per task (rawarray stands for any format)
 *
 * Validate a file held in memory (mmap or read):
 *
 *     #include <afmt/rawarray.h>   // installed; vendored: "afmt/rawarray.h"
 *     afmt_error err;
 *     if (afmt_rawarray_validate(buf, len, NULL, NULL, &err) != 0) {
 *         char msg[512];
 *         afmt_error_describe(&err, msg, sizeof msg);
 *         fprintf(stderr, "bad file: %s\n", msg);   // "dims[1] at offset 40: ..."
 *     }
 *
 * (afmt_file_open maps a file for this, and afmt_file_read_array then
 * reads an array of it into your buffer: see "Files" below.)
 *
 * Read zero-copy: the visitor gets a view of each array, pointing into buf:
 *
 *     static int on_array(void *ctx, const afmt_array *a)
 *     {
 *         char shape[64];
 *         afmt_array_describe(a, shape, sizeof shape);   // "f32[3,4]"
 *         printf("array %u: %s, %llu bytes at offset %llu\n", a->index, shape,
 *                (unsigned long long)a->nbytes, (unsigned long long)a->offset);
 *         (void)ctx;
 *         return 0;                                       // non-zero stops
 *     }
 *     afmt_visitor vis = {0};
 *     vis.on_array = on_array;
 *     afmt_rawarray_validate(buf, len, NULL, &vis, &err);
 *
 * Decode to row-major plain memory (inside on_array, or on a kept copy of
 * the view while buf is still mapped):
 *
 *     uint64_t size;
 *     if (afmt_array_plain_size(a, &size, &err) != 0) return -1;
 *     uint8_t *dst = malloc(size ? size : 1);
 *     if (afmt_array_to_plain(a, AFMT_ROW_MAJOR, dst, size, &err) != 0) ...
 *     // dst now holds a->count elements of a->dtype, native byte order,
 *     // element (i, j) of a 2-d array at dst[(i * a->dims[1] + j) * elsize]
 *
 * Write: describe plain data with a view, write it through a file sink
 * (a temporary file renamed into place only on commit):
 *
 *     double values[6] = {1, 2, 3, 4, 5, 6};
 *     afmt_array a;
 *     afmt_array_init(&a, AFMT_F64);
 *     a.rank = 2; a.dims[0] = 2; a.dims[1] = 3; a.count = 6;
 *     a.order = afmt_rawarray_format.order;       // the order the format stores
 *     a.data = (const uint8_t *)values; a.nbytes = sizeof values;
 *     afmt_sink sink;
 *     if (afmt_sink_file_open(&sink, "out.ra", &err) != 0) ...
 *     if (afmt_rawarray_write(&a, 1, NULL, &sink, &err) != 0) afmt_sink_abort(&sink);
 *     else if (afmt_sink_commit(&sink, &err) != 0) ...
 *
 *   (values are read in the order a.order says: with a column-major format
 *   pass column-major data, or convert with afmt_array_to_plain first.)
 *
 * Convert: validate with format A, decode each view to plain memory in the
 * order format B stores (B->order), make a plain view of it with
 * afmt_array_plain_view, check B->can_write, then B->write.  Element types
 * change only through afmt_convert_elements, which refuses a lossy change.
 */
#ifndef AFMT_H
#define AFMT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ==================================================================
 * Versions
 * ================================================================== */

/* Release of this runtime (and of the afmt-gen built with it). */
#define AFMT_VERSION_MAJOR 0
#define AFMT_VERSION_MINOR 1
#define AFMT_VERSION_PATCH 0
#define AFMT_VERSION_STRING "0.1.0"

/* The binary interface between generated code and this runtime: the layout
 * of the structs below and the internal functions generated code calls.
 * Every generated file checks it (#if AFMT_RUNTIME_ABI != N / #error
 * regenerate ...), so code generated for another runtime does not compile
 * rather than misbehave.  Bumped on any change generated code would notice;
 * when bumped, run afmt-gen again on your specs. */
#define AFMT_RUNTIME_ABI 19


/* ==================================================================
 * Export macros (zstd.h's ZSTDLIB_API are the model)
 * ================================================================== */

/* AFMT_API marks the public API: what this header and a format's
 * <format>.h declare.  AFMT_GEN_API marks the interface generated code
 * calls (declared in the internal headers afmt_internal.h includes): it is
 * exported too, so that a format generated out of tree links against an
 * installed libafmt.so, but it is no API (it changes with AFMT_RUNTIME_ABI).
 * libafmt.so is built with -fvisibility=hidden and a version script
 * (AFMT_<ABI>): these two marks are all it exports.  Everywhere else
 * (a vendored copy, libafmt.a) they only restate the default visibility,
 * so no flag is needed; define AFMT_VISIBLE (e.g. empty, or to
 * __declspec(dllexport)) before including afmt.h to change that. */
#ifndef AFMT_VISIBLE
#  if defined(__GNUC__) && __GNUC__ >= 4 && !defined(__MINGW32__) && !defined(__CYGWIN__)
#    define AFMT_VISIBLE __attribute__((visibility("default")))
#  else
#    define AFMT_VISIBLE
#  endif
#endif
#ifndef AFMT_API
#  define AFMT_API AFMT_VISIBLE
#endif
#ifndef AFMT_GEN_API
#  define AFMT_GEN_API AFMT_VISIBLE
#endif
/* ==================================================================
 * Errors
 * ================================================================== */

/* What went wrong.  Values are stable: new codes are appended, existing
 * ones never change.  Validation failures are 1-12 and 20; the rest come
 * from the caller's side (I/O, usage, memory, conversions, callbacks). */
typedef enum afmt_code {
    AFMT_OK = 0,
    AFMT_E_TRUNCATED = 1,     /* input ends inside a field or payload */
    AFMT_E_MAGIC = 2,         /* magic bytes or a fixed value differ */
    AFMT_E_CONSTRAINT = 3,    /* a field breaks a constraint of the spec */
    AFMT_E_UNKNOWN_TYPE = 4,  /* no entry of a type-code table matches */
    AFMT_E_OVERFLOW = 5,      /* a derived size does not fit in 64 bits */
    AFMT_E_LIMIT = 6,         /* a caller limit (rank, bytes, items) is exceeded */
    AFMT_E_TRAILING = 7,      /* bytes after the end of the structure */
    AFMT_E_PADDING = 8,       /* padding or pad bits are not zero */
    AFMT_E_VALUE = 9,         /* a payload element is not a valid value */
    AFMT_E_SIZE = 10,         /* a length field disagrees with its content */
    AFMT_E_NEGATIVE = 11,     /* a signed value used as a size is negative */
    AFMT_E_UNSUPPORTED = 12,  /* valid in the format, not supported by afmt */
    AFMT_E_IO = 13,           /* read/write/open failed */
    AFMT_E_USAGE = 14,        /* bad arguments from the caller */
    AFMT_E_NOMEM = 15,        /* allocation failed */
    AFMT_E_TYPE = 16,         /* target cannot hold this element type */
    AFMT_E_LOSSY = 17,        /* a value would change in conversion */
    AFMT_E_DETECT = 18,       /* input matches no known format */
    AFMT_E_CALLBACK = 19,     /* a visitor callback asked to stop */
    AFMT_E_DIVZERO = 20,      /* division by zero in a spec expression */
    AFMT_CODE_COUNT_
} afmt_code;

#define AFMT_FIELD_MAX 160
#define AFMT_MESSAGE_MAX 320
#define AFMT_FORMAT_NAME_MAX 24

/* One failure: what (code), where (offset, field path) and why (message,
 * with the expected and found values).  Strings are always NUL-terminated
 * and truncated to their slots.  Filled by afmt, never printed by it. */
typedef struct afmt_error {
    afmt_code code;
    uint64_t offset;                    /* byte offset the problem is at, or
                                           AFMT_NO_OFFSET */
    char format[AFMT_FORMAT_NAME_MAX];  /* "rawarray", "" if none */
    char field[AFMT_FIELD_MAX];         /* "dims[2]", "array[1].dlen", "" */
    char message[AFMT_MESSAGE_MAX];     /* "expected 96 = ..., found 800" */
} afmt_error;

/* afmt_error.offset of an error that is about no byte of an input: a file
 * that cannot be opened, an output that cannot be created, a call that
 * misuses the API, a value an output format cannot hold.
 * afmt_error_describe then names no offset.  (Such errors used to have
 * offset 0; the struct is unchanged.  Code that prints err.offset itself
 * should test for this value; afmt-validate --json prints null.) */
#define AFMT_NO_OFFSET UINT64_MAX

/* Stable lower-case name of a code ("truncated", "overflow", ...);
 * "invalid" for a value out of range.  Static storage; never NULL. */
AFMT_API const char *afmt_code_name(afmt_code code);

/* Reset *err to AFMT_OK with empty strings.  err may be NULL. */
AFMT_API void afmt_error_clear(afmt_error *err);

/* "FIELD at offset N: MESSAGE" into out ("offset N: MESSAGE" without a
 * field; with offset AFMT_NO_OFFSET, "FIELD: MESSAGE" or "MESSAGE"),
 * always NUL-terminated when out_size > 0, truncated if needed.  Returns the length that would have
 * been written, like snprintf.  Does not allocate. */
AFMT_API int afmt_error_describe(const afmt_error *err, char *out, size_t out_size);

/* ==================================================================
 * Element types
 * ================================================================== */

typedef enum afmt_dtype {
    AFMT_DTYPE_INVALID = 0,
    AFMT_BOOL, AFMT_I8, AFMT_I16, AFMT_I32, AFMT_I64,
    AFMT_U8, AFMT_U16, AFMT_U32, AFMT_U64,
    AFMT_F16, AFMT_BF16, AFMT_F32, AFMT_F64,
    AFMT_C64,  /* complex of two f32 */
    AFMT_C128, /* complex of two f64 */
    AFMT_OPAQUE, /* bytes of a size the file gives, meaning unknown (RawArray) */
    AFMT_C32,  /* complex of two f16 (RawArray eltype 4, elbyte 4); after
                  AFMT_OPAQUE so that earlier values keep their numbers */
    AFMT_DTYPE_COUNT_
} afmt_dtype;

typedef enum afmt_dtype_kind {
    AFMT_KIND_BOOL, AFMT_KIND_SIGNED, AFMT_KIND_UNSIGNED,
    AFMT_KIND_FLOAT, AFMT_KIND_COMPLEX, AFMT_KIND_OPAQUE
} afmt_dtype_kind;

typedef struct afmt_dtype_info {
    afmt_dtype dtype;
    const char *name;      /* "i32": the names spec files use */
    unsigned size;         /* bytes of one element, 0 for opaque */
    afmt_dtype_kind kind;
    unsigned component;    /* bytes of one scalar component: c64 -> 4 */
} afmt_dtype_info;

/* Static description of a dtype (the INVALID entry for out-of-range
 * values); never NULL. */
AFMT_API const afmt_dtype_info *afmt_dtype_get(afmt_dtype dtype);
/* "i32", ...; static storage. */
AFMT_API const char *afmt_dtype_name(afmt_dtype dtype);
/* Parse "i32", "c64", ...; AFMT_DTYPE_INVALID if unknown or NULL. */
AFMT_API afmt_dtype afmt_dtype_from_name(const char *name);

/* IEEE half and bfloat16 to double: exact. */
AFMT_API double afmt_f16_to_double(uint16_t h);
AFMT_API double afmt_bf16_to_double(uint16_t h);
/* Narrowing: returns 1 when the value is exactly representable (NaN payload
 * aside), 0 otherwise; *out receives the round-to-nearest-even result. */
AFMT_API int afmt_double_to_f16(double d, uint16_t *out);
AFMT_API int afmt_double_to_bf16(double d, uint16_t *out);

/* ==================================================================
 * Array views
 * ================================================================== */

#define AFMT_RANK_CAP 255   /* most dimensions any view can hold */
#define AFMT_NAME_MAX 256
#define AFMT_OPAQUE_NAME_MAX 64 /* bytes of afmt_array.opaque_name, NUL included */

/* Logical index: dims[] is the logical shape.  With AFMT_ROW_MAJOR the
 * last dimension varies fastest in storage, with AFMT_COL_MAJOR the first.
 * Decoding and conversion keep every element at its logical index. */
typedef enum afmt_order { AFMT_ROW_MAJOR = 0, AFMT_COL_MAJOR = 1 } afmt_order;
typedef enum afmt_endian { AFMT_LITTLE = 0, AFMT_BIG = 1 } afmt_endian;

/* How the stored bytes encode the elements.  You do not need to handle
 * these yourself: afmt_array_to_plain decodes every one. */
typedef enum afmt_encoding {
    AFMT_ENC_PLAIN = 0,     /* elements back to back (or every `stride` bytes) */
    AFMT_ENC_BITS_LSB = 1,  /* bool, one bit each, least significant bit first */
    AFMT_ENC_LZ4_BLOCK = 2, /* one LZ4 block that decompresses to PLAIN */
    AFMT_ENC_CSR = 3,       /* sparse: see the csr_* members */
    AFMT_ENC_ZEROS = 4,     /* every element is zero; no data stored */
    AFMT_ENC_COO = 5,       /* sparse records: see the coo_* members */
    AFMT_ENC_TEXT = 6       /* a text rendering (futhark): text_decode parses it */
} afmt_encoding;

/* One array found in a file, or about to be written to one.
 *
 * A view does not own anything: `data` (and the csr_* pointers) point into
 * the buffer that was validated, so reading is zero-copy and a view is
 * valid as long as that buffer is.  The struct itself is about 2.5 KiB;
 * copy it when you want to keep it past the callback that received it.
 * Views from a stream source (afmt_src_stream) or a file read by offset
 * (afmt_src_seekable) carry data == NULL: their payload was read through
 * the window, or skipped, and is not in memory. */
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
     * [tile_col, tile_col + dims[1]) of a tile_rows x tile_cols matrix.
     * afmt_tiles_assemble puts such blocks back together. */
    int is_tile;
    uint64_t tile_row, tile_col, tile_rows, tile_cols;
    /* TEXT: the parser of the text (count elements, row-major, native). */
    int (*text_decode)(const struct afmt_array *view, uint8_t *dst, uint64_t dst_size, afmt_error *err);
    /* OPAQUE: the format's name of the element type when it names one
     * ("F8_E4M3" in safetensors), NUL-terminated, so that a writer of a
     * format with a type of that name writes it back; "" when the format
     * only knows the size (RawArray's eltype 0).  A writer without that
     * type refuses such an array (AFMT_E_TYPE) rather than lose what its
     * bytes mean.  Copied with the view (afmt_array_to_plain keeps it). */
    char opaque_name[AFMT_OPAQUE_NAME_MAX];
    /* The name's length in the file, in bytes, as a validator read it
     * (0 in a view made by hand, whose name is all of `name`).  When it is
     * more than `name` holds (AFMT_NAME_MAX - 1 bytes: a safetensors key
     * or a DAPHNE label may be longer), `name` holds only its first bytes,
     * and a writer of a format that stores names refuses the view
     * (AFMT_E_TYPE) rather than write another name; formats without names
     * write it.  Copied with the view. */
    uint64_t name_len;
    /* OPAQUE elements stored in blocks (GGUF's quantized types: Q4_0 keeps
     * 32 elements in 18 bytes): elements per block of elsize bytes, the
     * innermost (fastest-varying) dimension a multiple of it, nbytes =
     * count / block * elsize; 0 for elements stored one by one.  Such a
     * view keeps its logical shape and its type's name (opaque_name); it
     * is copied byte for byte, never decoded (afmt_array_to_plain refuses
     * it, naming the type). */
    uint64_t block;
    /* A strided view (PLAIN only; strided != 0): the element at logical
     * index (i_0, ..., i_{rank-1}) lies at data + elsize * sum(i_k *
     * strides[k]), strides counted in elements, whatever `order` says.
     * Several views may share one payload (PyTorch's tied weights, slices
     * and expand's stride 0); each was checked to lie inside it:
     * elsize * (1 + sum((dims[k] - 1) * strides[k])) <= nbytes, in 64
     * bits, for a view with no zero dimension.  data points at the view's
     * first element (its storage offset applied) and nbytes counts from
     * there to the payload's end.  afmt_array_to_plain gathers such a
     * view into a contiguous copy.  Added in runtime ABI 15. */
    int strided;
    uint64_t strides[AFMT_RANK_CAP];
    /* 1: data (and csr_row_offsets, csr_col_indices) are not the input's
     * bytes but the validator's own, which live only during the on_array
     * call: an archive member stored deflated (np.savez_compressed's
     * members, a deflated torch record in lenient mode) is inflated into
     * the run's memory, freed before validate returns.  offset is then
     * that of the member's compressed data in the input.  Decode such a
     * view inside on_array, or keep it with afmt_views_add, which copies
     * its bytes; a copy of the struct alone would dangle.  0 for every
     * view whose data points into the validated buffer.  Added in
     * runtime ABI 15. */
    int data_transient;
    /* Value transforms: the values are not the stored elements themselves
     * (spec/LANGUAGE.md, "Value transforms").  All zero (as afmt_array_init
     * and a zero-initialised view leave them): no transform, the values are
     * the stored elements.  Everything that decodes (afmt_array_to_plain,
     * afmt_array_plain_size, afmt_array_to_plain_as, afmt dump, afmt
     * convert) gives the values, of type `logical`; `dtype`, `elsize`,
     * `data` and `nbytes` stay the stored ones.  Added in runtime ABI 19.
     *
     * logical: the values' type, or AFMT_DTYPE_INVALID (0) when it is
     *   dtype.  Without `scaled`, a widening: each stored element converted
     *   exactly to `logical` (a MAT double class stored as miUINT8: dtype
     *   u8, logical f64); a value that would change is AFMT_E_LOSSY.
     * scaled, scale, zero: 1 when value = zero + scale * stored (FITS
     *   BZERO / BSCALE).  Two kinds:
     *   - an integer convention: `logical` an integer type of dtype's size
     *     and the other signedness, scale 1 and zero 2^(bits-1) (signed
     *     stored: i16 + 32768 is u16, i64 + 2^63 is u64) or -2^(bits-1)
     *     (unsigned stored: u8 - 128 is i8): exact, in integer arithmetic
     *     (the top bit flipped), never through a double;
     *   - a general scale: `logical` AFMT_F64, each value zero + scale *
     *     (double)stored, rounded once as every FITS reader does.  A writer
     *     of a format that cannot keep the scale with the stored values
     *     refuses such a view (AFMT_E_TYPE, naming the array, its stored
     *     type and the scale); `afmt convert --apply-scale` writes the f64
     *     values instead.
     * imag: planar complex (not yet made by any shipped spec; reserved
     *   here so the layout stays): NULL.
     * csc: 1 with encoding AFMT_ENC_CSR: the index arrays are those of
     *   compressed sparse *columns*: csr_row_offsets holds dims[1] + 1
     *   column offsets and csr_col_indices nnz row indices (MAT sparse's jc
     *   and ir).  0: rows, as before. */
    afmt_dtype logical;
    int scaled;
    double scale, zero;
    const uint8_t *imag;
    int csc;
} afmt_array;

/* The type of the array's values: a->logical when set, else a->dtype.
 * Thread-safe; reads the view only.  Added in runtime ABI 19. */
AFMT_API afmt_dtype afmt_array_value_dtype(const afmt_array *a);

/* 1 when the view carries a value transform (logical, scaled), 0 when its
 * values are its stored elements.  Added in runtime ABI 19. */
AFMT_API int afmt_array_has_transform(const afmt_array *a);

/* 1 when the view's transform is a general scale (scaled, and not one of
 * the exact integer conventions): the values are computed doubles, which
 * a target that cannot keep the scale must refuse unless asked for f64
 * values.  Added in runtime ABI 19. */
AFMT_API int afmt_array_general_scale(const afmt_array *a);

/* "i16 stored, scale 0.5, zero 10" (or "u8 stored" for a widening) into
 * out, for messages and afmt info; returns what snprintf would.  "" for a
 * view without a transform.  Added in runtime ABI 19. */
AFMT_API int afmt_array_describe_transform(const afmt_array *a, char *out, size_t out_size);

/* Reset *a to a scalar (rank 0, count 1, no data) row-major, plain,
 * little-endian view of the given dtype; elsize and stride are the dtype's
 * size.  Set rank, dims, count, order, data and nbytes after. */
AFMT_API void afmt_array_init(afmt_array *a, afmt_dtype dtype);

/* The element type's name for messages: opaque_name for opaque elements
 * that have one ("F8_E4M3"), else afmt_dtype_name(a->dtype).  The string
 * lives as long as *a (or is static). */
AFMT_API const char *afmt_array_type_name(const afmt_array *a);

/* "c64[3,4]" ("opaque(F8_E4M3)[2]" for opaque elements with a name) into out (NUL-terminated when out_size > 0, truncated if
 * needed); returns what snprintf would. */
AFMT_API int afmt_array_describe(const afmt_array *a, char *out, size_t out_size);

/* Bytes a plain, contiguous copy of the array takes (count * element
 * size) into *out; AFMT_E_OVERFLOW if it does not fit in 64 bits. */
AFMT_API int afmt_array_plain_size(const afmt_array *a, uint64_t *out, afmt_error *err);

/* Decode the whole array into dst: plain, native byte order, in the
 * requested order, each element at its logical index.  dst must hold
 * afmt_array_plain_size bytes (dst_size is checked, AFMT_E_USAGE).
 * Handles bit packing, strides, big-endian, sparse (densified), text and
 * LZ4 (AFMT_E_UNSUPPORTED when built without it).  A view with no data
 * (from a stream) is AFMT_E_USAGE.
 * Allocation: a transpose between orders uses a scratch buffer of at most
 * a few hundred KiB, freed before returning; an LZ4 payload decoded into
 * another order needs one buffer of the plain size (AFMT_E_NOMEM).
 * Reads src's data only during the call. */
AFMT_API int afmt_array_to_plain(const afmt_array *src, afmt_order order,
                                 void *dst, uint64_t dst_size, afmt_error *err);

/* 1 when src is a strided view whose elements lie densely in one of the
 * two orders, as a contiguous tensor or its transpose does: then *plain
 * is the plain view src is (dtype, shape, name, data and byte order
 * kept; stride the element size; order the one its elements lie in;
 * nbytes its own elements', where a view's nbytes may run on to its
 * storage's end, as a slice's does).  Its bytes can be used as stored.
 * 0, with *plain untouched, for any other view: plain ones, other
 * strides, and a strided view whose last element would lie past its
 * payload.  Reads the view only, never its data; allocates nothing;
 * thread-safe.  Added in runtime ABI 17. */
AFMT_API int afmt_array_dense_view(const afmt_array *src, afmt_array *plain);

/* Make *dst a plain, native, contiguous view over buf (which holds
 * afmt_array_plain_size bytes in `order`) of src's logical array: same
 * dtype, shape, name and index.  Typically after afmt_array_to_plain, to
 * hand the result to a writer.  dst->data points into buf. */
AFMT_API void afmt_array_plain_view(const afmt_array *src, afmt_order order,
                                    const void *buf, afmt_array *dst);

/* Convert count element values between dtypes (plain, native order).
 * Refuses with AFMT_E_LOSSY, naming the first element index whose value
 * would change, unless allow_lossy is set; AFMT_E_TYPE when no conversion
 * exists (opaque).  dst must hold count * size of `to`. */
AFMT_API int afmt_convert_elements(afmt_dtype from, const void *src,
                                   afmt_dtype to, void *dst, uint64_t count,
                                   int allow_lossy, afmt_error *err);

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
AFMT_API int afmt_array_part_unit(const afmt_array *src, afmt_order order, uint64_t *unit,
                                  afmt_error *err);
AFMT_API int afmt_array_to_plain_part(const afmt_array *src, afmt_order order, uint64_t first,
                                      void *dst, uint64_t n, afmt_error *err);

/* afmt_array_to_plain and afmt_convert_elements in one pass: decode src
 * into dst in `order`, each element cast to `to` (dst holds count elements
 * of `to`).  Plain views are decoded, transposed and cast a few hundred KiB
 * at a time through a scratch buffer, so the input is read and dst written
 * once, without a temporary of the array's size (other encodings are
 * decoded whole first: one buffer of the plain size, AFMT_E_NOMEM).  A
 * refused cast names the element by its position in dst, exactly as
 * afmt_convert_elements on the whole decoded array would; dst is then
 * partly written.  `to` equal to src's type (or AFMT_DTYPE_INVALID) is
 * afmt_array_to_plain.  Thread-safe; reads src's data only during the
 * call. */
AFMT_API int afmt_array_to_plain_as(const afmt_array *src, afmt_order order, afmt_dtype to,
                                    int allow_lossy, void *dst, uint64_t dst_size, afmt_error *err);

/* Bytes the whole matrix of the tiles tiles[0..n) (views with is_tile
 * set, rank 2, of one matrix: same tile_rows, tile_cols, dtype, element
 * size; else AFMT_E_USAGE) takes as a plain array; AFMT_E_OVERFLOW when it
 * does not fit in 64 bits.  Allocates nothing. */
AFMT_API int afmt_tiles_plain_size(const afmt_array *tiles, size_t n, uint64_t *out, afmt_error *err);

/* Decode tiles[0..n) into their places in dst (the whole matrix, plain,
 * native, in `order`; dst_size at least afmt_tiles_plain_size) and make
 * *whole a plain view of it over dst (dims {tile_rows, tile_cols}, name
 * and index of tiles[0]).  The tiles must lie inside the matrix, not
 * overlap and cover every cell (AFMT_E_USAGE naming the tile or cell); at
 * most 1024 non-empty tiles (AFMT_E_LIMIT).  On failure dst is partly
 * written.  Allocation: one temporary buffer of the largest tile's plain
 * size, freed before returning, and about 32 KiB of stack.  *whole lives
 * as long as dst. */
AFMT_API int afmt_tiles_assemble(const afmt_array *tiles, size_t n, afmt_order order, void *dst,
                                 uint64_t dst_size, afmt_array *whole, afmt_error *err);

/* ==================================================================
 * Options, limits and the visitor
 * ================================================================== */

typedef enum afmt_mode {
    AFMT_STRICT = 0,  /* accept exactly what a conforming writer produces */
    AFMT_LENIENT = 1  /* also accept what reference readers tolerate, warning */
} afmt_mode;

/* Bounds on what one validation may cost; a file beyond them fails with
 * AFMT_E_LIMIT naming the field, before anything is allocated or read.
 * Validators allocate nothing themselves; these bound work and what a
 * caller might allocate from the views. */
/* The default of limits.max_header_bytes: the largest header the formats'
 * own readers accept (safetensors: 100,000,000 bytes; a GGUF vocabulary
 * of 150,000 tokens is about 3 MB).  A header is read where it lies in
 * the input: validators need no memory for it beyond a list of a map
 * header's entries (docs/SECURITY.md, I3). */
#define AFMT_DEFAULT_MAX_HEADER_BYTES 100000000u

/* The default of limits.max_kept_bytes: 256 MiB in all for what one
 * validation keeps of what it has read (a GGUF file's records of 100,000
 * tensors take about 12 MB; a key-value's decoded list at most
 * max_header_bytes, about 100 MB). */
#define AFMT_DEFAULT_MAX_KEPT_BYTES ((uint64_t)256 << 20)

typedef struct afmt_limits {
    uint64_t max_rank;          /* most dimensions of one array (<= AFMT_RANK_CAP) */
    uint64_t max_header_bytes;  /* most bytes of one list of strings (frame labels);
                                 * dims are held to max_rank */
    uint64_t max_total_bytes;   /* most bytes of input */
    uint64_t max_items;         /* most repetitions of one repeated structure */
    uint64_t max_decoded_bytes; /* most bytes a compressed payload may expand to */
    uint64_t max_depth;         /* most nesting of a text header's values (.npy,
                                 * safetensors: 3 are needed); at most 32, and 0
                                 * means 32, since an error's key path is kept on
                                 * the stack */
    uint64_t max_held_bytes;    /* most bytes of one compressed archive member
                                 * inflated into memory to be parsed, its views
                                 * pointing there during on_array; a larger one
                                 * (whose format can read a stream) is parsed
                                 * as a stream inflated through a window of
                                 * AFMT_MEMBER_WINDOW bytes, and its views carry
                                 * no data.  Default: no bound of its own
                                 * (max_decoded_bytes still holds).  Added in
                                 * runtime ABI 15. */
    uint64_t max_kept_bytes;    /* most bytes of memory one validation holds in
                                 * all, at any one time, of what it has read: a
                                 * "unique" check's table of keys (and, for a
                                 * stream, copies of the keys, which leave its
                                 * window), a directory's records, a key-value's
                                 * decoded lists.  0 means
                                 * AFMT_DEFAULT_MAX_KEPT_BYTES.  Added in
                                 * runtime ABI 16. */
} afmt_limits;

/* The window a compressed archive member larger than
 * limits.max_held_bytes is parsed through: its format's headers must fit
 * in it (AFMT_E_LIMIT otherwise). */
#define AFMT_MEMBER_WINDOW ((uint64_t)1 << 20)

/* Callbacks a validator calls while it reads.  Any member may be NULL, and
 * a NULL visitor is allowed: the validator then only gives its verdict.
 * Callbacks run on the caller's thread, during the validate call, in file
 * order; they must not call back into the same validation. */
/* ==================================================================
 * Typed metadata (GGUF's key-values)
 * ================================================================== */

/* What a metadata value is.  A format's spec says which kinds and widths
 * it has (GGUF: u8..u64, i8..i64, f32, f64, bool, string, lists). */
typedef enum afmt_value_kind {
    AFMT_VALUE_UINT = 1,   /* u: an unsigned number of width bytes */
    AFMT_VALUE_INT = 2,    /* i: a signed number of width bytes */
    AFMT_VALUE_FLOAT = 3,  /* f: an IEEE float of width 4 or 8 bytes (a width-4 value is an f32 exactly) */
    AFMT_VALUE_BOOL = 4,   /* u: 0 or 1 (width 1) */
    AFMT_VALUE_STRING = 5, /* str, len: bytes (not NUL-terminated, may hold any byte) */
    AFMT_VALUE_LIST = 6    /* items, count: values all of kind item_kind and width item_width */
} afmt_value_kind;

/* One typed value.  Nothing is owned: str and items point at memory of
 * whoever made the value (the run's scratch in on_kv; the caller's for
 * afmt_write_options.kv).  A list's items are all of item_kind and
 * item_width (lists of lists too: item_kind AFMT_VALUE_LIST, item_width
 * 0), which it says even when it is empty. */
typedef struct afmt_value {
    afmt_value_kind kind;
    unsigned width;               /* bytes of a number or bool; 0 for strings and lists */
    uint64_t u;                   /* UINT, BOOL */
    int64_t i;                    /* INT */
    double f;                     /* FLOAT */
    const uint8_t *str;           /* STRING */
    uint64_t len;
    const struct afmt_value *items; /* LIST */
    uint64_t count;
    afmt_value_kind item_kind;    /* LIST: the kind and width of its items */
    unsigned item_width;
} afmt_value;

/* One key-value: key bytes (len bytes, not NUL-terminated) and its value. */
typedef struct afmt_kv {
    const uint8_t *key;
    uint64_t key_len;
    afmt_value value;
} afmt_kv;

/* A deep copy of kv[0..n) in one malloc'd block (*out, free() it once):
 * keys, strings and lists are copied into it, so the copy outlives the
 * validator's run.  0, or -1 with err filled: AFMT_E_NOMEM,
 * AFMT_E_OVERFLOW, AFMT_E_LIMIT (values nested 32 deep or deeper, which
 * no validator hands over and no writer writes; index: the key-value).
 * Thread-safe. */
AFMT_API int afmt_kv_copy(const afmt_kv *kv, size_t n, afmt_kv **out, afmt_error *err);

/* A member of an archive (a zip's or a tar's named entry) that another
 * format parses: npz's "weights.npy" (npy), a WebDataset shard's
 * "000001.ten" (tenbin).  Given to afmt_visitor.on_member; valid only
 * during the call.  Nothing is owned: name points at the archive's bytes
 * or the validator's copy. */
typedef struct afmt_member {
    const uint8_t *name;   /* name_len bytes, not NUL-terminated, as the archive
                            * stores it (checked: relative, no "." or ".."
                            * component, no NUL) */
    uint64_t name_len;
    uint32_t index;        /* its place in the archive (zip: the central
                            * directory's order; tar: the headers') */
    const struct afmt_format *format; /* what parses it */
    uint64_t offset;       /* absolute offset of its data as stored */
    uint64_t size;         /* bytes of its content (inflated, when compressed) */
    uint64_t stored_size;  /* bytes its data takes in the archive */
    int compressed;        /* deflated: its views' offsets are `offset`, their
                            * data (if any) lives only during on_array */
    int done;              /* 0: its parse begins; 1: it ended */
    const struct afmt_error *error; /* done: NULL when the member is valid, else
                            * why it is not (its format's verdict, a size or
                            * CRC-32 lie of its compressed bytes) */
} afmt_member;

typedef struct afmt_visitor {
    void *ctx;  /* passed back unchanged to every callback */
    /* Called once per array found, in file order.  `array` is valid only
     * during the call (copy the struct to keep it); its data points into
     * the validated buffer and stays valid as long as that buffer, except
     * when array->data_transient says the bytes are the validator's own
     * (an inflated archive member): those live only during the call.  It is
     * called as soon as the array's structure is checked; the file may
     * still fail later (a bad second array, trailing bytes), so trust what
     * you collected only once validate returns 0.  Return non-zero to stop:
     * the validator then fails with AFMT_E_CALLBACK. */
    int (*on_array)(void *ctx, const afmt_array *array);
    /* Lenient-mode tolerances, and notes such as an ambiguous type code.
     * `warning` is valid only during the call. */
    void (*on_warning)(void *ctx, const afmt_error *warning);
    /* Trailing bytes a format allows and keeps (RawArray metadata); data
     * points into the validated buffer. */
    void (*on_trailer)(void *ctx, const uint8_t *data, uint64_t len, uint64_t offset);
    /* A file's metadata where the format has it (safetensors'
     * "__metadata__", a spec's text_header "metadata" key): the validated
     * JSON object of strings, len bytes of header text at offset, valid
     * only during the call (copy it to keep it).  Called before any
     * array; afmt_write_options.metadata writes it back. */
    void (*on_metadata)(void *ctx, const uint8_t *json, uint64_t len, uint64_t offset);
    /* A typed key-value of a binary format's metadata (GGUF's), in file
     * order, the key field at offset: where a spec's repeat declares
     * "metadata".  kv (its key bytes, strings and lists) is valid only
     * during the call: lists are built in the run's scratch memory (a
     * list's items take 72 bytes each on 64-bit systems, its own input
     * at least one; all of one key-value's lists together at most
     * limits.max_header_bytes, else AFMT_E_LIMIT) and freed when the
     * call returns; copy what you keep
     * (afmt_kv_copy).  NULL: not built at all (no cost).  Return non-zero
     * to stop: the validator then fails with AFMT_E_CALLBACK.  Added in
     * runtime ABI 14, last so that zero-initialised visitors keep working. */
    int (*on_kv)(void *ctx, const struct afmt_kv *kv, uint64_t offset);
    /* An archive member that another format parses (afmt_member), told
     * twice: before its bytes are read (inflated) and parsed (done 0), and
     * when it ended (done 1, error NULL when it is valid, else its error):
     * the views, warnings and fields given between the two calls are the
     * member's.  Members no format parses (exact texts, raw records, a
     * pickle, ignored ones) are not told.  Return non-zero to stop: the
     * validator then fails with AFMT_E_CALLBACK (or, after an invalid
     * member, with its error).  Return 0 after an invalid member to go on
     * to the next ones (a shard of many samples, each its own verdict):
     * the validator then fails at the end with that member's error (the
     * first such), or with what stops it later.  NULL: not told, and the
     * first invalid member ends the validation.  Added in runtime ABI 15. */
    int (*on_member)(void *ctx, const struct afmt_member *member);
} afmt_visitor;

/* A header field as a validator reads it (what `afmt info` lists, a
 * semantic od): where it is, how wide, its bytes and what the spec says of
 * it.  Valid only during the callback. */
typedef enum afmt_field_kind {
    AFMT_FIELD_UINT,  /* unsigned integer(s) */
    AFMT_FIELD_INT,   /* signed integer(s) */
    AFMT_FIELD_BYTES, /* raw bytes or a text slot */
    AFMT_FIELD_TEXT,  /* a value of a text header (npy's dict, safetensors'
                       * JSON): bytes are its text as written there, width
                       * bytes of it (a string with its quotes: "F32",
                       * '<f8'; a list [2, 3]; True), offset that of its
                       * first byte; count 1.  The name is its key path as
                       * errors give it: header["w"].dtype, header.shape */
    AFMT_FIELD_FLOAT  /* an IEEE-754 float of width 4 (f32) or 8 (f64) bytes */
} afmt_field_kind;

typedef struct afmt_field_info {
    const char *field;     /* its name with its path: "value[1].dims" */
    afmt_field_kind kind;
    uint64_t offset;       /* of its first byte in the input */
    int is_array;          /* an integer array field ("count" in the spec) */
    uint64_t count;        /* integers in an array field; 1 otherwise */
    unsigned width;        /* bytes of one integer or float, or of the bytes field */
    int big_endian;        /* integers (floats) stored big-endian */
    const uint8_t *bytes;  /* count * width bytes (width for BYTES) */
    const char *doc;       /* the spec's "doc" for it, or NULL */
    /* What the spec calls this integer value, when its "names" say
     * (GGUF: value type 8 is "string", ggml type 1 "f16"), or NULL.
     * Static storage.  Added in runtime ABI 15. */
    const char *value_name;
} afmt_field_info;

/* A float field's value (kind AFMT_FIELD_FLOAT): the IEEE-754 float of
 * `width` bytes (4: binary32, 8: binary64) at p, in either byte order
 * (big: f->big_endian), as a double (exact): afmt_float_get(f->bytes,
 * f->width, f->big_endian). */
AFMT_API double afmt_float_get(const uint8_t *p, unsigned width, int big);

/* The shortest text that reads back (strtof for width 4, strtod for 8)
 * to v: "0.1", "1e+30", "-0"; "nan", "inf", "-inf" for the others (what
 * afmt info shows, and error messages say).  A value, not a pointer:
 * `afmt_float_text(v, 8).s` lives to the end of the full expression that
 * computes it (C11), long enough for a printf. */
typedef struct afmt_float_txt {
    char s[32];
} afmt_float_txt;
AFMT_API afmt_float_txt afmt_float_text(double v, unsigned width);

/* Told of each header field a validator reads, in file order, before the
 * field's checks (so an invalid file shows its fields up to the bad one).
 * Runs on the caller's thread during the validate call. */
typedef struct afmt_field_visitor {
    void *ctx;
    void (*on_field)(void *ctx, const afmt_field_info *field);
} afmt_field_visitor;

typedef struct afmt_options {
    afmt_mode mode;
    afmt_limits limits;
    /* 0: skip payload value checks (bool bytes, pad bits, the CRC-32s of
     * archive members no rule parses or that are stored) when only the
     * structure is wanted.  Validators default to 1. */
    int check_values;
    /* NULL (the default): no field is reported, and a validator pays one
     * test per field. */
    const afmt_field_visitor *fields;
} afmt_options;

/* Fill *opt with the defaults every validator uses when given NULL:
 * strict, values checked, rank 255, 100 MB (10^8 bytes) of headers, 2^62 bytes of
 * input, 2^32 items, 64 GiB decoded (and compressed archive members of any
 * size held in memory), text headers nested 32 deep, 256 MiB kept in all.
 * Start from these and tighten. */
AFMT_API void afmt_options_default(afmt_options *opt);

/* What a writer is asked to do beyond the arrays; NULL means all zero. */
typedef struct afmt_write_options {
    /* Bytes appended after the structure where the format allows them
     * (RawArray metadata), so a rewrite keeps them.  Read during the call. */
    const uint8_t *trailer;
    uint64_t trailer_len;
    /* Compress payloads where the format can (RawArray: one LZ4 block). */
    int compress;
    /* File metadata for a format that has it (safetensors): a JSON object
     * whose values are all strings, as on_metadata gives it; written
     * compactly, first in the header, keys in the given order.  Formats
     * without metadata ignore it.  Read during the call. */
    const uint8_t *metadata;
    uint64_t metadata_len;
    /* Typed key-values for a format whose spec has a "metadata" repeat
     * (GGUF), written in the given order; keys must be distinct and each
     * value of a type the format has (else AFMT_E_TYPE naming the key).
     * Formats without typed metadata ignore them.  Read during the call.
     * Added in runtime ABI 14. */
    const struct afmt_kv *kv;
    size_t n_kv;
} afmt_write_options;

/* ---- Finding an array by name
 *
 *     afmt_array bias;
 *     float b[3];
 *     if (afmt_find_array(f.data, f.len, &afmt_safetensors_format, "bias", NULL, &bias, &err) == 0 &&
 *         afmt_array_plain_size(&bias, &size, &err) == 0 && size == sizeof b &&
 *         afmt_file_read_array(&f, &bias, AFMT_ROW_MAJOR, b, sizeof b, &err) == 0) ...
 *
 * Validate buf[0..len) as fmt (opt: NULL for the defaults) and fill *out
 * with the view of the first array whose name is name, byte for byte (a
 * name longer than a view holds, afmt_array.name_len, matches nothing).
 * The whole file is validated first: a view of an invalid file is never
 * given (-1 with the validator's error).  No such array: -1 with
 * AFMT_E_USAGE, field "name", offset AFMT_NO_OFFSET, the message saying
 * how many arrays the file has.  *out points into buf, as any view does,
 * and lives as long as it; *out is written only on success.  Allocates
 * nothing beyond what the validator does; keeps no pointer to name;
 * thread-safe (reentrant).  Added in runtime ABI 15. */
struct afmt_format; /* below: "Formats" */
AFMT_API int afmt_find_array(const void *buf, uint64_t len, const struct afmt_format *fmt, const char *name,
                             const afmt_options *opt, afmt_array *out, afmt_error *err);

/* ---- The one naming rule for arrays without a name
 *
 * A format whose arrays are keys of a map (safetensors, GGUF, npz, torch)
 * writes an array with no name (an empty one) as AFMT_UNNAMED_PREFIX and
 * its index among the arrays written: "arr_0", as np.savez names
 * positional arrays (docs/FORMATS.md).  afmt_array_key gives the name
 * array a (index `index` of the list) is written under: a->name, or
 * "arr_<index>" put in buf (size bytes; 32 are enough) when a has none;
 * it returns a->name or buf, and allocates nothing.  Pure: thread-safe.
 * Added in runtime ABI 16. */
#define AFMT_UNNAMED_PREFIX "arr_"
AFMT_API const char *afmt_array_key(const afmt_array *a, size_t index, char *buf, size_t size);

/* ---- Collecting the views of one validation
 *
 * A visitor that keeps a copy of every array's view (and the trailer),
 * for work that needs all of a file's arrays at once, as converting does:
 *
 *     afmt_views vs;
 *     afmt_visitor vis;
 *     afmt_views_init(&vs, 1024);            // keep at most 1024 views
 *     afmt_views_visitor(&vs, &vis);
 *     if (afmt_npy_validate(buf, len, NULL, &vis, &err) == 0 && !vs.oom && vs.n <= vs.max)
 *         ... vs.v[0 .. vs.n) ...             // views into buf
 *     afmt_views_free(&vs);
 *
 * The views point into the validated buffer and live as long as it (a
 * stream source's views have no data), except those handed over with
 * data_transient (an inflated archive member's): afmt_views_add copies
 * their bytes into memory vs owns, and the kept view points there (its
 * data_transient then 0), valid until afmt_views_reset or _free.
 * Memory: vs.v grows by doubling, to at most max views (each
 * sizeof(afmt_array), about 2.3 KiB), plus those copies (each as large as
 * the view's bytes, which the validator bounded by
 * limits.max_decoded_bytes); the owner frees it with afmt_views_free.
 * Not thread-safe for one vs. */
typedef struct afmt_views {
    afmt_array *v;           /* the first min(n, max) views (allocated) */
    size_t n;                /* arrays seen; may exceed max (not kept) */
    size_t cap, max;         /* entries allocated; most kept */
    int oom;                 /* v (or a copy) could not be had: views are missing */
    uint8_t **copies;        /* cap entries: the bytes copied for v[i], or NULL (added in runtime ABI 15) */
    const uint8_t *trailer;  /* on_trailer's bytes (RawArray), or NULL */
    uint64_t trailer_len;
} afmt_views;

/* An empty collection keeping at most max views; allocates nothing. */
AFMT_API void afmt_views_init(afmt_views *vs, size_t max);
/* Keep a copy of *a (counted in vs->n even when not kept: past max, or
 * vs->oom after an allocation failed), and of its bytes when
 * a->data_transient.  Returns 0: a visitor's on_array may call it and
 * return its result. */
AFMT_API int afmt_views_add(afmt_views *vs, const afmt_array *a);
/* *vis := a visitor (others callbacks NULL) whose on_array and
 * on_trailer collect into vs. */
AFMT_API void afmt_views_visitor(afmt_views *vs, afmt_visitor *vis);
/* Forget what was collected, keeping the memory for the next validation
 * (but for the copied bytes of transient views, which are freed). */
AFMT_API void afmt_views_reset(afmt_views *vs);
/* Free the views' memory; vs is then empty (init state, same max). */
AFMT_API void afmt_views_free(afmt_views *vs);

/* ==================================================================
 * Sources: where a validator reads from
 * ================================================================== */

#define AFMT_LEN_UNKNOWN UINT64_MAX

/* A whole buffer, or a stream read through a fixed window, or a file read
 * through one by offset.  Initialise it with afmt_src_buffer,
 * afmt_src_stream or afmt_src_seekable and do not touch the members (but
 * window_short, which may be read after a validation); they are public
 * only so that a source can live on your stack. */
typedef struct afmt_src {
    const uint8_t *data;  /* input bytes [data_off, data_off + data_len) */
    uint64_t data_off, data_len;
    uint64_t len;         /* input length; AFMT_LEN_UNKNOWN until a stream ends */
    /* streams only */
    int (*read)(void *ctx, uint8_t *buf, size_t n, size_t *got); /* 0 ok (got 0: end), -1 error */
    void *ctx;
    uint8_t *win;         /* the window buffer, cap bytes, caller-owned */
    uint64_t cap;
    uint64_t keep_from;   /* bytes before this offset may be dropped */
    int io_error;         /* the read function failed */
    uint8_t bad_byte;     /* the byte a payload scan stopped at (messages) */
    /* seekable sources only (added in runtime ABI 16): read n bytes at an
     * absolute offset (read is NULL then) */
    int (*pread)(void *ctx, uint8_t *buf, size_t n, uint64_t offset, size_t *got);
    /* set when a validation failed (AFMT_E_LIMIT) because what it had to
     * hold did not fit the window: the same bytes in memory (a map of the
     * file) might validate */
    int window_short;
} afmt_src;

/* A source over buf[0..len) (an mmap, a file read whole).  buf must stay
 * valid and unchanged while the source is used. */
AFMT_API void afmt_src_buffer(afmt_src *s, const void *buf, uint64_t len);

/* A stream (a pipe, a socket) read with read(ctx, buf, n, &got): return 0
 * with *got bytes (0 at the end) or -1 on error (AFMT_E_IO).  win is a
 * caller-owned window of cap bytes (64 KiB at least), the only memory the
 * validation uses: a header larger than the window is AFMT_E_LIMIT.
 * Payloads are checked as they stream past; views handed to on_array then
 * have data == NULL.  A stream source is read once: use a new one for each
 * validation. */
AFMT_API void afmt_src_stream(afmt_src *s, uint8_t *win, uint64_t cap,
                              int (*read)(void *ctx, uint8_t *buf, size_t n, size_t *got), void *ctx);

/* A file of len bytes (or anything read by offset), read through a
 * caller-owned window of cap bytes (64 KiB at least) as a stream is, but
 * by offset: pread(ctx, buf, n, offset, &got) reads up to n bytes at the
 * absolute offset, returning 0 with *got bytes (0 only where the input
 * ended before len: a file cut short meanwhile) or -1 on error (both
 * AFMT_E_IO).  Memory and address space are the window's whatever len:
 * the length is known at once (truncation is told without reading to the
 * end), a payload no check reads is skipped unread, a far item is reached
 * by seeking; what a validation must hold at once (a header) must fit the
 * window, else AFMT_E_LIMIT with s->window_short set, and the caller may
 * validate the bytes from memory instead (an mmap).  Views handed to
 * on_array have data == NULL, as from a stream.  pread is called on the
 * caller's thread during the validation only.  Use a new source for each
 * validation.  Added in runtime ABI 16. */
AFMT_API void afmt_src_seekable(afmt_src *s, uint8_t *win, uint64_t cap, uint64_t len,
                                int (*pread)(void *ctx, uint8_t *buf, size_t n, uint64_t offset, size_t *got),
                                void *ctx);

/* ==================================================================
 * Files: reading an array from disk into your buffer
 * ================================================================== */

/* A regular file opened for reading: its bytes mapped read-only (data,
 * len) for a validator, and its descriptor, through which
 * afmt_file_read_array reads a payload that needs no decoding straight
 * into your buffer.  Initialise it with afmt_file_open; the members are
 * public only so that it can live on your stack.
 *
 *     afmt_file f;
 *     afmt_array view;                       // kept by your on_array
 *     if (afmt_file_open(&f, "x.npy", &err) != 0) ...   // "cannot open x.npy: ..."
 *     if (afmt_npy_validate(f.data, f.len, NULL, &vis, &err) == 0 &&
 *         afmt_array_plain_size(&view, &size, &err) == 0 && (dst = malloc(size)) &&
 *         afmt_file_read_array(&f, &view, AFMT_ROW_MAJOR, dst, size, &err) == 0) ...
 *     afmt_file_close(&f);
 */
typedef struct afmt_file {
    const uint8_t *data; /* the file's bytes, mapped read-only (never NULL when open) */
    uint64_t len;        /* its length at open */
    int fd;              /* -1 when not open */
    char path[4096];     /* as given, for messages */
    int64_t mtime_sec, mtime_nsec; /* modification time at open */
} afmt_file;

/* Open path, a regular file (anything else: AFMT_E_IO naming it; read
 * pipes and devices through afmt_src_stream), and map it read-only without
 * reading it: a validator given f->data, f->len faults in only the pages
 * it reads (a header, or every byte of a payload it checks).  AFMT_E_LIMIT
 * when the file does not fit the address space; AFMT_E_USAGE for an empty
 * path or one of 4096 bytes or more.  On failure *f is closed (fd -1).
 * Holds one descriptor and one mapping until afmt_file_close; allocates
 * nothing.  As with any mapping, the file must not be shortened while a
 * validator or afmt_array_to_plain reads f->data (the process would get
 * SIGBUS); afmt_file_read_array checks that itself. */
AFMT_API int afmt_file_open(afmt_file *f, const char *path, afmt_error *err);

/* afmt_array_to_plain(view, order, dst, dst_size, err), same checks, same
 * result, for a view a validator found in f->data; dst may have any
 * alignment.  When the stored bytes are the result (plain, contiguous, the
 * host's byte order, already in `order`, as a dense f32 .npy, tenbin or
 * RawArray read in its own order is) they are read from the file with
 * pread straight into dst: the mapping is not touched and there is no
 * second copy.  Such a view must lie inside f->data (else AFMT_E_USAGE).
 * The file is looked at again after the read: shortened (the read ended
 * early) or with another size or modification time than at
 * afmt_file_open, it fails with AFMT_E_IO naming f->path and the offset
 * where the payload was cut (dst then holds bytes that were not
 * validated: do not use them).  A rewrite that keeps the size within the
 * file system's timestamp granularity cannot be seen: do not modify a
 * file while it is read.  Every error names f->path and a byte offset of
 * the file.  Reads f only: several threads may read views of one open
 * file into different buffers at once. */
AFMT_API int afmt_file_read_array(const afmt_file *f, const afmt_array *view, afmt_order order,
                                  void *dst, uint64_t dst_size, afmt_error *err);

/* Unmap and close (nothing when f is not open); views into f->data are
 * then invalid. */
AFMT_API void afmt_file_close(afmt_file *f);

/* ==================================================================
 * Sinks: where a writer puts bytes
 * ================================================================== */

/* A buffer, a FILE*, or an output path.  An output path that is a regular
 * file or a new name is written under a temporary name and renamed into
 * place on commit, so that a failed or interrupted write never leaves a
 * half-written file where a good one was; a symlink is followed and its
 * final target treated so (the link stays, as with cp); a character device
 * or a FIFO is written through, since renaming over it would replace the
 * node, not write into it.  Initialise it with one of the
 * functions below; members are public only so it can live on your stack.
 * After a failed write the sink stays failed and refuses further writes. */
struct afmt_sink_producer;

typedef struct afmt_sink {
    int (*write)(struct afmt_sink *s, const void *p, uint64_t n);
    uint64_t written;       /* bytes written so far */
    /* buffer sink */
    uint8_t *buf;
    uint64_t cap;
    /* FILE sink */
    FILE *fp;
    /* file sink: final path (a symlink's target) and temporary path */
    char path[4096];
    char tmp_path[4096 + 16];
    int failed;
    /* set by size-only sinks (encoded_size, can_write): payload bytes are
     * counted, not encoded */
    int counting;
    /* afmt_sink_set_source (below): a mapping of the file src_fd
     * (src_len 0: none) */
    const uint8_t *src_base;
    uint64_t src_len;
    int src_fd;
    /* afmt_sink_set_producer (below) */
    struct afmt_sink_producer *producer;
    /* file sink written straight into a character device or FIFO: no
     * temporary file, no rename; commit flushes and closes */
    int through;
} afmt_sink;

/* Write into buf[0..cap); writing past cap fails with AFMT_E_IO (size the
 * buffer with the format's encoded_size).  buf is caller-owned. */
AFMT_API void afmt_sink_buffer(afmt_sink *s, void *buf, uint64_t cap);
/* Write to an open FILE*; the caller flushes and closes it.  When fp is a
 * regular file's stream (fileno and fstat say so), a run of 1 MiB or more
 * (a payload) is flushed past stdio's buffer: fflush, then write() on
 * fileno(fp) straight from the caller's memory, then an absolute fseeko
 * to where the descriptor ended, so ftello and later writes through fp
 * stay right.  Any other stream (a pipe, a terminal, fmemopen) gets
 * fwrite() only.  Either way the bytes land at fp's position, in order. */
AFMT_API void afmt_sink_stdio(afmt_sink *s, FILE *fp);
/* Open an output path.  path is followed through symlinks (at most 32; a
 * dangling link is refused, as cp refuses it) to its target T:
 * - T is a regular file or does not exist: T.XXXXXX is created beside T
 *   (mode and, best effort, owner of the file it will replace; 0644 for a
 *   new name); then exactly one of afmt_sink_commit (flush, fsync, rename
 *   over T, after checking T is still a regular file or absent) or
 *   afmt_sink_abort (remove the temporary file);
 * - T is a character device or a FIFO: T is opened for writing (a FIFO
 *   blocks until it has a reader) and written through (s->through is set);
 *   commit flushes and closes it, abort closes it (bytes already written
 *   cannot be taken back: refuse what you can before opening);
 * - anything else (a directory, a block device, a socket): AFMT_E_IO.
 * path and T are at most 4095 bytes, else AFMT_E_USAGE.  Uses POSIX;
 * opens one descriptor; the process umask is not consulted. */
AFMT_API int afmt_sink_file_open(afmt_sink *s, const char *path, afmt_error *err);
AFMT_API int afmt_sink_commit(afmt_sink *s, afmt_error *err);
AFMT_API void afmt_sink_abort(afmt_sink *s);

/* Write n bytes; -1 with AFMT_E_IO on failure (the sink then stays failed). */
AFMT_API int afmt_sink_put(afmt_sink *s, const void *p, uint64_t n, afmt_error *err);

/* Optional speed-ups of a file sink, set after afmt_sink_file_open (the
 * CLI's afmt convert uses both; a writer's output is the same without).
 *
 * afmt_sink_set_source: [base, base + len) is a read-only mapping of the
 * whole regular file fd (an input the arrays being written point into,
 * such as afmt_file's data and fd), which the caller keeps open, mapped
 * and unchanged until the commit; large writes of bytes inside it are
 * then copied file to file by the kernel (copy_file_range) instead of
 * through memory.
 *
 * afmt_sink_set_producer: a payload made on demand, piece by piece,
 * instead of read from a view's data.  When a writer writes the payload
 * of a view whose data pointer is p->key, the sink calls p->fill(p->ctx,
 * first, buf, n, err) for consecutive pieces [first, first + n) of it
 * (plain, native byte order; first and n multiples of p->unit; pieces of
 * a few MiB) and writes each, so that a large result (a transpose, a byte
 * swap: afmt_array_to_plain_part) never needs a buffer of its own size.
 * key must still point at p->size readable bytes (a writer that reads a
 * view's data itself then reads those).  p->produced counts the bytes
 * made, so the caller can check that the writer took the payload from
 * the producer (p->produced == p->size after writing).  Not for bool
 * (whose values are checked in place).  p must outlive the writes; fill
 * returns 0, or -1 with err (the write then fails with it). */
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

AFMT_API void afmt_sink_set_source(afmt_sink *s, const void *base, uint64_t len, int fd);
AFMT_API void afmt_sink_set_producer(afmt_sink *s, afmt_sink_producer *p);

/* ==================================================================
 * Futhark text values (what `futhark dataset --text` prints)
 * ================================================================== */

/* Can Futhark text hold elements of this type?  1 for bool, i8..i64,
 * u8..u64, f16, f32, f64; 0 for bf16, complex and opaque. */
AFMT_API int afmt_futhark_text_can_write(afmt_dtype dtype);

/* Write one array as one Futhark text value (no newline after it) to
 * sink: nested brackets `[[1i32, 2i32], [3i32, 4i32]]`, a scalar for rank
 * 0, `empty([2][0]i16)` when a dimension is 0; every number with its type
 * suffix; floats in the fewest significant digits that afmt's reader of
 * the futhark format (correctly rounded) reads back to the same bits,
 * with a '.0' on integral values; `f32.nan` (every NaN, whatever its sign
 * and payload: Futhark text has one NaN), `f32.inf`, `-f32.inf`.
 * Locale-independent.  a must be plain, row-major, little-endian,
 * contiguous (afmt_array_to_plain gives that).  Returns 0, or -1 with
 * err: AFMT_E_TYPE for a type Futhark text lacks, AFMT_E_USAGE for
 * another layout, AFMT_E_NOMEM, or the sink's error.  Allocates a 64 KiB
 * buffer for the call; thread-safe for distinct sinks. */
AFMT_API int afmt_futhark_text_write(const afmt_array *a, afmt_sink *sink, afmt_error *err);

/* ==================================================================
 * Formats
 * ================================================================== */

struct afmt_meta_desc; /* a metadata sidecar's description (afmt_meta.h) */

/* What every generated format exports as `afmt_<name>_format` (declared in
 * <name>.h).  The function members are the same as the afmt_<name>_*
 * functions declared there.  Descriptors are immutable and static. */
/* The most bytes from the start of an input any format's detection looks
 * at (a spec's detect rule may not reach further: afmt-gen refuses it). */
#define AFMT_DETECT_MAX 65536

typedef struct afmt_format {
    const char *name;                 /* "rawarray" */
    const char *spec;                 /* "spec/rawarray.json" */
    const char *const *extensions;    /* {".ra", NULL} */
    afmt_order order;                 /* payload order the writer expects */
    int multi;                        /* 1 if a file may hold several arrays */
    /* 1 if the bytes start like this format (magic at fixed offsets, after
     * any allowed leading whitespace); looks at most at the first
     * AFMT_DETECT_MAX bytes, and a buffer shorter than a rule needs does
     * not match it. */
    int (*detect)(const uint8_t *buf, uint64_t len);
    /* 0 if buf[0..len) is valid, -1 with err filled.  Arrays go to
     * vis->on_array.  opt and vis may be NULL (defaults, no callbacks). */
    int (*validate)(const uint8_t *buf, uint64_t len, const afmt_options *opt,
                    const afmt_visitor *vis, afmt_error *err);
    /* The same over a source (memory bounded by a stream's window). */
    int (*validate_src)(afmt_src *src, const afmt_options *opt, const afmt_visitor *vis,
                        afmt_error *err);
    /* Can this format hold the array as given (dtype, rank, dims)?  0 yes,
     * -1 with err saying why not.  A format whose spec is read-only always
     * says no, and why. */
    int (*can_write)(const afmt_array *array, afmt_error *err);
    /* Exact number of bytes write produces for these arrays. */
    int (*encoded_size)(const afmt_array *arrays, size_t n,
                        const afmt_write_options *wopt, uint64_t *size,
                        afmt_error *err);
    /* Write arrays[0..n) (plain, native byte order, stride == elsize, in
     * `order`) to sink, computing every derived field.  wopt may be NULL.
     * May allocate one buffer for a compressed payload, freed before
     * returning.  On failure the sink holds a partial file: abort it. */
    int (*write)(const afmt_array *arrays, size_t n,
                 const afmt_write_options *wopt, afmt_sink *sink,
                 afmt_error *err);
    /* A metadata file written and checked beside the data (DAPHNE's
     * x.dbdf.meta), or NULL. */
    const struct afmt_meta_desc *sidecar;
    /* 1 if write honours wopt->compress (a payload can be stored as one
     * LZ4 block: RawArray), else 0. */
    int compresses;
    /* 1 if write takes wopt->kv, typed key-values (GGUF); 1 if it takes
     * wopt->metadata, a JSON object of strings (safetensors).  Added in
     * runtime ABI 14. */
    int kv_metadata;
    int json_metadata;
    /* {".bin", NULL}: suffixes this format's files are often named by but
     * other kinds of file share (pytorch_model.bin beside Futhark data and
     * raw dumps).  Unlike `extensions` they never choose the format for an
     * input (afmt_format_detect: the content must); an output so named is
     * written in it unless asked otherwise (afmt random, afmt convert).
     * Never NULL in a generated format.  Added in runtime ABI 17. */
    const char *const *shared_extensions;
} afmt_format;

/* ---- Format lookup (optional)
 *
 * Defined in registry/afmt_registry.c over the table in
 * generated/afmt_formats.c (which afmt-gen writes for the specs it is
 * given, and which includes every listed <format>.h).  Link those two
 * files only if you want detection or lookup by name; a program that uses
 * one format calls its afmt_<name>_* functions directly and needs neither. */

/* NULL-terminated table of every registered format, in name order. */
AFMT_API extern const afmt_format *const afmt_formats[];
AFMT_API extern const size_t afmt_format_count;

/* The format called name ("rawarray"), or NULL. */
AFMT_API const afmt_format *afmt_format_by_name(const char *name);
/* The format whose extension is the longest suffix of path, ignoring
 * ASCII case (".RA" is ".ra"); NULL if none, or when two formats claim
 * that same suffix: then *tie (if tie is not NULL) is one of them. */
AFMT_API const afmt_format *afmt_format_by_extension(const char *path, const afmt_format **tie);
/* The same over the formats' shared_extensions (".bin"): the format an
 * output so named is written in when nothing else says (afmt random -o
 * x.bin).  Detection never uses it.  Added in runtime ABI 17. */
AFMT_API const afmt_format *afmt_format_by_shared_extension(const char *path,
                                                            const afmt_format **tie);
/* Magic first (buf may be NULL; at most AFMT_DETECT_MAX bytes are looked
 * at: give the first AFMT_DETECT_MAX bytes, or the whole input when it is
 * shorter, so that a rule far into the file is seen); then
 * afmt_format_by_extension(path) (path may be NULL); NULL if none.
 * Detection only guesses: validate with the result before trusting it. */
AFMT_API const afmt_format *afmt_format_detect(const uint8_t *buf, uint64_t len, const char *path);

/* ==================================================================
 * Sidecars: a metadata file beside the data (DAPHNE's x.dbdf.meta)
 * ================================================================== */

/* A format whose spec describes a sidecar (fmt->sidecar not NULL) keeps
 * part of what describes its arrays in a JSON file named after the data
 * file plus a suffix.  A writer writes the data only: write the sidecar
 * with afmt_sidecar_json (as afmt convert does), and check one with
 * afmt_sidecar_parse, then afmt_sidecar_check_array for each array the
 * validator gives and afmt_sidecar_check_end after a valid file (as
 * afmt-validate does: a sidecar that disagrees makes the file invalid).
 * Errors name the sidecar's field (its JSON key) and its byte offset.
 * (Names: a format's own functions are afmt_<format>_validate, _write,
 * ...; none of these ends so, so a format may be called "sidecar".) */

/* The largest sidecar read or written: 1 MiB. */
#define AFMT_SIDECAR_MAX_BYTES (1u << 20)

/* The suffix fmt's sidecar has (".meta"), or NULL when it has none. */
AFMT_API const char *afmt_sidecar_suffix(const afmt_format *fmt);

/* The sidecar of arrays[0..n) (as fmt->write is given them) as JSON text
 * into out[0..out_size), NUL-terminated; *len its length without the NUL.
 * 0, or -1 with err: AFMT_E_TYPE for an element type the sidecar has no
 * name for, AFMT_E_USAGE when fmt has no sidecar, n is 0 or out is too
 * small (AFMT_SIDECAR_MAX_BYTES holds any sidecar a reader accepts).
 * Allocates nothing. */
AFMT_API int afmt_sidecar_json(const afmt_format *fmt, const afmt_array *arrays, size_t n,
                               char *out, size_t out_size, size_t *len, afmt_error *err);

/* A parsed sidecar (opaque). */
typedef struct afmt_sidecar afmt_sidecar;

/* Parse json[0..len) (at most AFMT_SIDECAR_MAX_BYTES) as fmt's sidecar.
 * Returns it, to free with afmt_sidecar_free; NULL with err when the text
 * is not one (or fmt has none: AFMT_E_USAGE), or out of memory
 * (AFMT_E_NOMEM).  Allocates one block of about 1.1 MiB (the parsed
 * keys, up to 4096 columns); keeps no pointer into json. */
AFMT_API afmt_sidecar *afmt_sidecar_parse(const afmt_format *fmt, const char *json, size_t len,
                                          afmt_error *err);

/* Does the sidecar agree with array a, the index-th of the data file (in
 * the order on_array gives them)?  0, or -1 with err naming the key. */
AFMT_API int afmt_sidecar_check_array(const afmt_sidecar *sc, const afmt_array *a, size_t index,
                                      afmt_error *err);

/* After the last array of a valid data file, n arrays in all: does the
 * sidecar say as many?  0, or -1 with err. */
AFMT_API int afmt_sidecar_check_end(const afmt_sidecar *sc, size_t n, afmt_error *err);

/* Free a parsed sidecar (NULL: nothing). */
AFMT_API void afmt_sidecar_free(afmt_sidecar *sc);

/* ==================================================================
 * Model sets: one model stored as several files (shards)
 * ================================================================== */

/* A model on a hub is a folder: its tensors spread over shards that are
 * each a valid file of their own.  An afmt_model checks that the shards
 * make one model, given what their validators found:
 *
 *  - a safetensors index (model.safetensors.index.json: {"metadata":
 *    {"total_size": N, ...}, "weight_map": {"tensor": "shard file", ...}})
 *    names the shard of every tensor: every shard it names is there and
 *    valid, every tensor is in the shard it names, once across shards, no
 *    shard holds a tensor it does not list, and total_size is the sum of
 *    the tensors' stored bytes;
 *  - a GGUF split (gguf-split's PREFIX-00001-of-00003.gguf ...): file k
 *    of n says split.no = k - 1 and split.count = n, every file the same
 *    split.tensors.count, which is the number of tensors of all files, and
 *    no tensor name is in two files.
 *
 * The caller opens and validates each shard (any format) with a visitor
 * whose on_array calls afmt_model_add_array (and, for a split, whose
 * on_kv calls afmt_model_add_kv), then afmt_model_shard_done; after the
 * last shard, afmt_model_next_fault gives the faults of the set as a
 * whole, one per call:
 *
 *     afmt_model *m;
 *     if (afmt_model_index_open(&m, json, json_len, NULL, &err) != 0) ...
 *     for (size_t s = 0; s < afmt_model_shards(m); s++) {
 *         // open afmt_model_shard_name(m, s) beside the index, validate
 *         // it; its on_array: afmt_model_add_array(m, s, array, &fault)
 *         afmt_model_shard_done(m, s, valid, &fault);
 *     }
 *     size_t where;                     // a shard, or AFMT_MODEL_INDEX_FILE
 *     while (afmt_model_next_fault(m, &where, &fault)) ... // report it
 *     afmt_model_free(m);
 *
 * Every fault is an afmt_error naming the tensor or key and an absolute
 * byte offset of the file `where` says: the index (weight_map["x"] at the
 * entry's key, metadata.total_size at its value) or the shard (tensor["x"]
 * at the offset of its data, split.no at its key-value).  A shard that was
 * missing or invalid (shard_done with usable 0) is not blamed a second
 * time for each tensor it should have held, and the sizes are then not
 * added up.
 *
 * Memory: an afmt_model allocates its tensors (about 64 bytes each and
 * their names) and shards as they come: from an index, at most about ten
 * times the index's bytes; for a split, what the validated shards held.
 * Time: O(n log n) in the tensors.  Thread-safety: an afmt_model belongs
 * to one thread at a time; different models are independent.  Nothing
 * keeps a pointer into the caller's buffers.  Added in runtime ABI 15. */
typedef struct afmt_model afmt_model;

/* afmt_model_next_fault's `where` for a fault of the index file itself. */
#define AFMT_MODEL_INDEX_FILE ((size_t)-1)

/* Read a safetensors index from json[0..len) (a whole file: one JSON
 * object, nothing after it but whitespace).  weight_map is required, an
 * object of strings, each a relative file name without a ".." component
 * or a backslash; metadata is optional, and total_size in it a
 * non-negative integer.  opt (NULL: defaults) bounds the text
 * (limits.max_header_bytes), its nesting and entries.  0 with *out, to
 * free with afmt_model_free; -1 with err naming the key path and offset
 * in the index (AFMT_E_NOMEM, AFMT_E_LIMIT, AFMT_E_VALUE, ...).
 * Shards are numbered in the order the weight_map first names them. */
AFMT_API int afmt_model_index_open(afmt_model **out, const uint8_t *json, uint64_t len,
                                   const afmt_options *opt, afmt_error *err);

/* A GGUF split of count files (1 to 65535, split.count being a u16),
 * shard k - 1 being the file numbered k.  0 with *out, or -1 with err. */
AFMT_API int afmt_model_split_open(afmt_model **out, uint64_t count, afmt_error *err);

/* Does file name `name` (a base name) follow gguf-split's naming, PREFIX
 * "-" NNNNN "-of-" MMMMM ".gguf" (at least five digits each, 1 <= NNNNN
 * <= MMMMM <= 65535)?  1 with *prefix_len, *number and *count, else 0. */
AFMT_API int afmt_model_split_name(const char *name, size_t *prefix_len, uint64_t *number,
                                   uint64_t *count);

/* Free m and everything it holds (NULL: nothing). */
AFMT_API void afmt_model_free(afmt_model *m);

/* How many shards the set has. */
AFMT_API size_t afmt_model_shards(const afmt_model *m);

/* An index's file name of shard s, NUL-terminated, living as long as m;
 * NULL for a split (its files are named by the caller) or s out of range. */
AFMT_API const char *afmt_model_shard_name(const afmt_model *m, size_t s);

/* The absolute offset in the index of the first weight_map value naming
 * shard s (where a missing shard is blamed), or AFMT_NO_OFFSET for a
 * split or s out of range. */
AFMT_API uint64_t afmt_model_shard_offset(const afmt_model *m, size_t s);

/* Tensors the index lists, or (a split) found so far; and the stored
 * bytes of the tensors found, each counted once. */
AFMT_API uint64_t afmt_model_tensors(const afmt_model *m);
AFMT_API uint64_t afmt_model_found_bytes(const afmt_model *m);

/* A tensor (a->name, a->nbytes, a->offset) that shard s holds, as its
 * validator's on_array gives it.  0, or -1 with err when it is a fault of
 * shard s: not in the index, in another shard than the index says, found
 * a second time, or a name longer than a view holds (AFMT_E_LIMIT); or
 * AFMT_E_NOMEM, AFMT_E_USAGE (s out of range).  Either way the caller
 * may go on with the next tensor. */
AFMT_API int afmt_model_add_array(afmt_model *m, size_t s, const afmt_array *a, afmt_error *err);

/* A key-value of split file s, at offset (on_kv's arguments): split.no,
 * split.count and split.tensors.count are checked (an integer, equal to
 * what the file's number, the set's count and the other files say);
 * other keys are ignored.  0, or -1 with err (a fault of shard s).  An
 * index set ignores key-values. */
AFMT_API int afmt_model_add_kv(afmt_model *m, size_t s, const afmt_kv *kv, uint64_t offset,
                               afmt_error *err);

/* Shard s is done: usable 1 when it was read whole and valid, 0 when it
 * is missing or invalid (reported by the caller).  -1 with err for a
 * fault of a usable shard seen only now (a split file without the
 * split.* keys), else 0. */
AFMT_API int afmt_model_shard_done(afmt_model *m, size_t s, int usable, afmt_error *err);

/* After every shard is done: the next fault of the set, 1 with *where
 * (the shard, or AFMT_MODEL_INDEX_FILE) and err, or 0 when there are no
 * more (then 0 on every later call).  Faults: a tensor the index lists
 * that its shard lacks, total_size not the sum, a tensor name in two
 * split files, split.tensors.count not the number found; AFMT_E_NOMEM
 * when sorting a split's names needs memory it cannot get. */
AFMT_API int afmt_model_next_fault(afmt_model *m, size_t *where, afmt_error *err);

#ifdef __cplusplus
}
#endif
#endif /* AFMT_H */
