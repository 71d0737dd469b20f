/* afmt fuzzing: the checks every fuzz target runs (see checks.h).
 *
 * Round trips and conversions work on logical arrays: one per view, except
 * that the tiles of a matrix (is_tile) are put together into that matrix
 * (afmt_tiles_assemble).  Crashes, leaks and undefined behaviour are left
 * to the sanitizers.  C11, no global state.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"
#include "afmt_agree.h"
#include "core/afmt_fields.h"

/* The checks' own element loops are not worth coverage feedback (and,
 * instrumented, they dominated the fuzzers' time on large arrays). */
#if defined(__clang__) && __clang_major__ >= 13
#define FZ_NO_COVERAGE __attribute__((no_sanitize("coverage"), noinline))
#else
#define FZ_NO_COVERAGE
#endif

#if defined(__GNUC__) || defined(__clang__)
#define FZ_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define FZ_PRINTF(a, b)
#endif

/* Views kept per file (more arrays than this: the file is only validated). */
#define FZ_MAX_VIEWS 64
/* Largest plain (decoded) array the checks allocate, and all of them. */
#define FZ_MAX_PLAIN ((uint64_t)1 << 20)
#define FZ_MAX_PLAIN_TOTAL ((uint64_t)8 << 20)
/* Stream windows: one that must slide; the other holds the whole input
 * (its length + FZ_BIG_WINDOW_EXTRA), so that the stream may not refuse. */
#define FZ_SMALL_WINDOW ((uint64_t)512)
#define FZ_BIG_WINDOW_EXTRA ((uint64_t)4096)
/* Arrays of one file tried in every other format by the convert check. */
#define FZ_MAX_CONVERT 8

void fz_ctx_init(fz_ctx *c, const char *target, int abort_on_bug)
{
    memset(c, 0, sizeof *c);
    c->target = target;
    c->abort_on_bug = abort_on_bug;
    c->streams = 1;
    c->max_decode = FZ_MAX_PLAIN;
}

static FZ_PRINTF(2, 3) void fz_bug(fz_ctx *c, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (c->ignore && c->ignore[0]) {
        const char *p = c->ignore, *bar;
        char pat[256];
        size_t n;
        for (;;) {
            bar = strchr(p, '|');
            n = bar ? (size_t)(bar - p) : strlen(p);
            if (n > 0 && n < sizeof pat) {
                memcpy(pat, p, n);
                pat[n] = '\0';
                if (strstr(msg, pat)) {
                    c->ignored++;
                    return;
                }
            }
            if (!bar)
                break;
            p = bar + 1;
        }
    }
    if (c->bugs++ == 0)
        snprintf(c->first, sizeof c->first, "%s", msg);
    if (!c->quiet || c->abort_on_bug)
        fprintf(stderr, "afmt-fuzz BUG [%s]%s%s: %s\n", c->target ? c->target : "?",
                c->input ? " " : "", c->input ? c->input : "", msg);
    if (c->abort_on_bug) {
        fflush(stderr);
        abort();
    }
}

/* "FIELD at offset N: MESSAGE" of an error, always NUL-terminated. */
const char *fz_describe(const afmt_error *e, char *out, size_t size)
{
    afmt_error_describe(e, out, size);
    return out;
}

/* ------------------------------------------------------------ options */

/* The small limits of the fuzz targets (a fuzz input is at most 64 KiB). */
void fz_options(afmt_options *o, afmt_mode mode)
{
    afmt_options_default(o);
    o->mode = mode;
    o->limits.max_total_bytes = (uint64_t)1 << 20;
    o->limits.max_header_bytes = (uint64_t)1 << 16;
    o->limits.max_items = (uint64_t)1 << 12;
    o->limits.max_decoded_bytes = (uint64_t)1 << 20;
}

/* Tiny limits and no value checks: exercises every limit path. */
static void fz_options_tiny(afmt_options *o)
{
    afmt_options_default(o);
    o->mode = AFMT_STRICT;
    o->limits.max_rank = 2; /* seeds reach 2; a mutation must pass it */
    o->limits.max_total_bytes = 4096;
    o->limits.max_header_bytes = 64;
    o->limits.max_items = 3;
    o->limits.max_decoded_bytes = 256;
    o->check_values = 0;
}

/* For what a writer produced: defaults (strict), but nothing huge. */
static void fz_options_output(afmt_options *o)
{
    afmt_options_default(o);
    o->limits.max_total_bytes = (uint64_t)1 << 30;
    o->limits.max_items = (uint64_t)1 << 20;
    o->limits.max_decoded_bytes = (uint64_t)1 << 30;
}

/* ------------------------------------------------------------ invariants */

/* Is [p, p + n) inside [buf, buf + len)?  (Compared as integers: the
 * pointers may belong to different objects when the check fails.) */
static int fz_inside(const uint8_t *buf, uint64_t len, const uint8_t *p, uint64_t n)
{
    uintptr_t b = (uintptr_t)buf, q = (uintptr_t)p;

    if (!p || !buf || q < b)
        return 0;
    return (uint64_t)(q - b) <= len && n <= len - (uint64_t)(q - b);
}

/* An error a validator or writer filled: a real code, terminated strings,
 * describable; from a validator also its format and an offset inside the
 * input (errors say where). */
static void fz_check_error(fz_ctx *c, const afmt_format *f, const afmt_error *e,
                              const char *what, int from_validator, uint64_t len)
{
    char text[1024];

    if (e->code <= AFMT_OK || e->code >= AFMT_CODE_COUNT_) {
        fz_bug(c, "%s %s: failed with error code %d", f->name, what, (int)e->code);
        return;
    }
    if (!memchr(e->message, 0, sizeof e->message) || !memchr(e->field, 0, sizeof e->field) ||
        !memchr(e->format, 0, sizeof e->format)) {
        fz_bug(c, "%s %s: error strings are not NUL-terminated", f->name, what);
        return;
    }
    if (!afmt_code_name(e->code)) {
        fz_bug(c, "%s %s: code %d has no name", f->name, what, (int)e->code);
        return;
    }
    fz_describe(e, text, sizeof text);
    if (!from_validator)
        return;
    if (strncmp(e->format, f->name, sizeof e->format - 1) != 0)
        fz_bug(c, "%s %s: error names format \"%s\" (%s)", f->name, what, e->format, text);
    else if (e->offset > len)
        fz_bug(c, "%s %s: error offset %" PRIu64 " is past the end of the %" PRIu64
               "-byte input (%s)", f->name, what, e->offset, len, text);
}

/* A view from a validator: a real dtype, count == prod(dims), a tile inside
 * its matrix, and its bytes (values, CSR indices) inside the input it was
 * validated from. */
static int fz_check_view(fz_ctx *c, const afmt_format *f, const char *mode,
                            const uint8_t *buf, uint64_t len, const afmt_array *a)
{
    uint64_t prod = 1, need;

    if (afmt_dtype_get(a->dtype)->dtype == AFMT_DTYPE_INVALID) {
        fz_bug(c, "%s %s: array %u has invalid dtype %d", f->name, mode, a->index, (int)a->dtype);
        return -1;
    }
    if (a->rank > AFMT_RANK_CAP) {
        fz_bug(c, "%s %s: array %u has rank %" PRIu32, f->name, mode, a->index, a->rank);
        return -1;
    }
    /* Zero-aware, as afmt_fields.h defines it: a zero dim makes the
     * product 0 even when other dims would overflow. */
    if (!afmt_u64s_prod(a->dims, a->rank, &prod)) {
        fz_bug(c, "%s %s: array %u: prod(dims) overflows", f->name, mode, a->index);
        return -1;
    }
    if (prod != a->count) {
        fz_bug(c, "%s %s: array %u: count %" PRIu64 " != prod(dims) %" PRIu64,
               f->name, mode, a->index, a->count, prod);
        return -1;
    }
    if (a->dtype == AFMT_OPAQUE && a->elsize == 0) {
        fz_bug(c, "%s %s: array %u: opaque elements of size 0", f->name, mode, a->index);
        return -1;
    }
    if (!memchr(a->name, 0, sizeof a->name)) {
        fz_bug(c, "%s %s: array %u: name not NUL-terminated", f->name, mode, a->index);
        return -1;
    }
    if (!memchr(a->opaque_name, 0, sizeof a->opaque_name) ||
        (a->opaque_name[0] && a->dtype != AFMT_OPAQUE)) {
        fz_bug(c, "%s %s: array %u: opaque_name not NUL-terminated or on a %s array", f->name,
               mode, a->index, afmt_dtype_name(a->dtype));
        return -1;
    }
    /* (New encodings are the runtime's business: afmt_array_to_plain
     * judges them, and refuses an unknown one with a usage error.) */
    if ((a->order != AFMT_ROW_MAJOR && a->order != AFMT_COL_MAJOR) ||
        (a->endian != AFMT_LITTLE && a->endian != AFMT_BIG)) {
        fz_bug(c, "%s %s: array %u: order %d / endian %d out of range",
               f->name, mode, a->index, (int)a->order, (int)a->endian);
        return -1;
    }
    if (a->is_tile) {
        uint64_t r_end, c_end;
        if (a->rank != 2 || afmt_checked_add_u64(a->tile_row, a->dims[0], &r_end) ||
            afmt_checked_add_u64(a->tile_col, a->dims[1], &c_end) || r_end > a->tile_rows ||
            c_end > a->tile_cols) {
            fz_bug(c, "%s %s: array %u: tile of rank %" PRIu32 " at (%" PRIu64 ", %" PRIu64
                   ") is not inside its %" PRIu64 " x %" PRIu64 " matrix", f->name, mode,
                   a->index, a->rank, a->tile_row, a->tile_col, a->tile_rows, a->tile_cols);
            return -1;
        }
    }
    if (a->data_transient != 0 && a->data_transient != 1) {
        fz_bug(c, "%s %s: array %u: data_transient is %d", f->name, mode, a->index, a->data_transient);
        return -1;
    }
    /* An inflated archive member's view: its bytes are the validator's
     * (afmt.h, data_transient), at the offset of the member's compressed
     * data; they are decoded below, during the call, and kept by
     * afmt_views_add as a copy. */
    if (a->data_transient) {
        if (a->offset > len) {
            fz_bug(c, "%s %s: array %u: offset %" PRIu64 " past the %" PRIu64 "-byte input",
                   f->name, mode, a->index, a->offset, len);
            return -1;
        }
        return 0;
    }
    if (a->nbytes > 0 && !fz_inside(buf, len, a->data, a->nbytes)) {
        fz_bug(c, "%s %s: array %u: data (%" PRIu64 " bytes) is not inside the %" PRIu64
               "-byte input", f->name, mode, a->index, a->nbytes, len);
        return -1;
    }
    if (a->nbytes > 0 && a->encoding != AFMT_ENC_CSR &&
        a->offset != (uint64_t)((uintptr_t)a->data - (uintptr_t)buf)) {
        fz_bug(c, "%s %s: array %u: offset %" PRIu64 " but data is at %" PRIu64,
               f->name, mode, a->index, a->offset,
               (uint64_t)((uintptr_t)a->data - (uintptr_t)buf));
        return -1;
    }
    if (a->encoding == AFMT_ENC_CSR) {
        unsigned isz = a->csr_index_size;
        if (a->rank != 2 || (isz != 1 && isz != 2 && isz != 4 && isz != 8)) {
            fz_bug(c, "%s %s: array %u: CSR of rank %" PRIu32 ", index size %u",
                   f->name, mode, a->index, a->rank, isz);
            return -1;
        }
        if (afmt_checked_add_u64(a->dims[0], 1, &need) || afmt_checked_mul_u64(need, isz, &need) ||
            !fz_inside(buf, len, a->csr_row_offsets, need)) {
            fz_bug(c, "%s %s: array %u: CSR row offsets are not inside the input",
                   f->name, mode, a->index);
            return -1;
        }
        if (a->nnz > 0 && (afmt_checked_mul_u64(a->nnz, isz, &need) ||
                           !fz_inside(buf, len, a->csr_col_indices, need))) {
            fz_bug(c, "%s %s: array %u: CSR column indices are not inside the input",
                   f->name, mode, a->index);
            return -1;
        }
    }
    return 0;
}

/* Codes with which decoding a valid view may legitimately fail. */
static int fz_decode_may_fail(afmt_code code)
{
    return code == AFMT_E_UNSUPPORTED || code == AFMT_E_NOMEM || code == AFMT_E_LIMIT;
}

/* Codes with which a writer may refuse arrays read from a valid file:
 * from a strictly valid file of its own format only a type or a feature it
 * does not write; from a leniently valid file (or another format) also
 * what its strict form cannot hold -- anything but a usage or I/O error,
 * which would mean the writer cannot take what the runtime hands it. */
static int fz_write_may_refuse(afmt_code code, int lenient_input)
{
    if (code == AFMT_E_TYPE || code == AFMT_E_UNSUPPORTED)
        return 1;
    return lenient_input && code != AFMT_E_USAGE && code != AFMT_E_IO;
}

/* Plain size of a view, or UINT64_MAX when it overflows. */
static uint64_t fz_plain_size(const afmt_array *a)
{
    afmt_error e;
    uint64_t n;
    return afmt_array_plain_size(a, &n, &e) == 0 ? n : UINT64_MAX;
}

static uint64_t fz_elsize(const afmt_array *a)
{
    return a->dtype == AFMT_OPAQUE ? a->elsize : afmt_dtype_get(a->dtype)->size;
}

/* Two elements of es bytes equal?  Fixed-size copies the compiler turns
 * into loads: a memcmp per element went through ASan's interceptor and
 * was most of the validate target's time on arrays of a million cells. */
static inline int fz_elem_eq(const uint8_t *x, const uint8_t *y, uint64_t es)
{
    uint64_t a, b, a2, b2;
    uint32_t c, d;
    uint16_t e, f;

    switch (es) {
    case 1:
        return *x == *y;
    case 2:
        memcpy(&e, x, 2);
        memcpy(&f, y, 2);
        return e == f;
    case 4:
        memcpy(&c, x, 4);
        memcpy(&d, y, 4);
        return c == d;
    case 8:
        memcpy(&a, x, 8);
        memcpy(&b, y, 8);
        return a == b;
    case 16:
        memcpy(&a, x, 8);
        memcpy(&b, y, 8);
        memcpy(&a2, x + 8, 8);
        memcpy(&b2, y + 8, 8);
        return a == b && a2 == b2;
    default:
        return memcmp(x, y, es) == 0;
    }
}

/* Compare a row-major and a column-major copy of the same logical array at
 * every logical index; returns the first row-major index that differs, or
 * count when all agree. */
static FZ_NO_COVERAGE uint64_t fz_first_transpose_mismatch(const afmt_array *a,
                                                              const uint8_t *row,
                                                              const uint8_t *col, uint64_t es)
{
    uint64_t idx[AFMT_RANK_CAP], cstride[AFMT_RANK_CAP];
    uint64_t k, coff = 0, s = 1;
    uint32_t t, rank = a->rank, big = 0;

    /* With fewer than two dims above 1 both orders are the same bytes. */
    for (t = 0; t < rank; t++)
        big += a->dims[t] > 1;
    if (big < 2) {
        if (a->count == 0 || memcmp(row, col, a->count * es) == 0)
            return a->count;
        for (k = 0; k < a->count; k++)
            if (!fz_elem_eq(row + k * es, col + k * es, es))
                return k;
    }
    for (t = 0; t < rank; t++) {
        idx[t] = 0;
        cstride[t] = s;
        s *= a->dims[t]; /* wraps only when count is 0: then no loop below */
    }
    for (k = 0; k < a->count; k++) {
        if (!fz_elem_eq(row + k * es, col + coff * es, es))
            return k;
        for (t = rank; t-- > 0;) {
            if (++idx[t] < a->dims[t]) {
                coff += cstride[t];
                break;
            }
            coff -= (a->dims[t] - 1) * cstride[t];
            idx[t] = 0;
        }
    }
    return a->count;
}

/* First element index at which two plain buffers differ (count if none). */
static FZ_NO_COVERAGE uint64_t fz_first_mismatch(const uint8_t *x, const uint8_t *y,
                                                    uint64_t count, uint64_t es)
{
    uint64_t k;

    if (es == 0 || memcmp(x, y, count * es) == 0)
        return count;
    for (k = 0; k < count; k++)
        if (memcmp(x + k * es, y + k * es, es) != 0)
            return k;
    return count;
}

/* Hex of up to 16 bytes, for messages. */
static const char *fz_hex(const uint8_t *p, uint64_t n, char *out, size_t size)
{
    static const char digits[] = "0123456789abcdef";
    size_t i, o = 0;

    for (i = 0; i < n && i < 16 && o + 3 < size; i++) {
        out[o++] = digits[p[i] >> 4];
        out[o++] = digits[p[i] & 15];
    }
    out[o] = '\0';
    return out;
}

/* Decode a view to plain in `order`.  0: *out holds *size bytes (free it);
 * 1: skipped (too big, or a legitimate refusal such as LZ4 without liblz4);
 * -1: decoding failed, err says why. */
static int fz_decode(const afmt_array *a, afmt_order order, uint8_t **out,
                        uint64_t *size, afmt_error *err)
{
    uint64_t total = fz_plain_size(a);

    *out = NULL;
    *size = 0;
    /* elements kept in blocks (GGUF's quantized types) are copied, never
     * decoded: afmt_array_to_plain refuses them by design */
    if (a->block > 1)
        return 1;
    if (total > FZ_MAX_PLAIN)
        return 1;
    *out = malloc(total ? total : 1);
    if (!*out)
        return 1;
    afmt_error_clear(err);
    if (afmt_array_to_plain(a, order, *out, total, err) != 0) {
        free(*out);
        *out = NULL;
        return fz_decode_may_fail(err->code) ? 1 : -1;
    }
    *size = total;
    return 0;
}

/* ------------------------------------------------------------ validate */

/* Views already decoded (in both orders, without a failure) in an earlier
 * mode of the same input and format.  The same view again -- lenient,
 * no value checks and tiny limits mostly hand over what strict did -- is
 * the same bytes decoded by the same code, so it is checked (fz_check_view,
 * limits) but not decoded again: that was half the time of a per-format
 * validate target. */
#define FZ_SEEN_MAX 4
typedef struct fz_seen {
    size_t n;
    afmt_array v[FZ_SEEN_MAX];
} fz_seen;

static const char *fz_view_diff(const afmt_array *x, const afmt_array *y);

static int fz_seen_has(const fz_seen *sn, const afmt_array *a)
{
    size_t i;

    for (i = 0; sn && i < sn->n; i++) {
        const afmt_array *b = &sn->v[i];
        if (b->data == a->data && b->csr_row_offsets == a->csr_row_offsets &&
            b->csr_col_indices == a->csr_col_indices && b->csr_index_size == a->csr_index_size &&
            b->coo_stride == a->coo_stride && b->coo_index_size == a->coo_index_size &&
            b->coo_has_col == a->coo_has_col && b->text_decode == a->text_decode &&
            fz_view_diff(b, a) == NULL)
            return 1;
    }
    return 0;
}

typedef struct fz_vstate {
    fz_ctx *c;
    fz_seen *seen;            /* views decoded in earlier modes, or NULL */
    const afmt_format *f;
    const char *mode;
    const uint8_t *buf;
    uint64_t len;
    unsigned long arrays;
    uint64_t max_rank;        /* the caller's limit: no view may exceed it */
    int decode_failed;        /* first decode failure, judged after validate */
    afmt_error decode_err;
    uint32_t decode_index;
} fz_vstate;

/* Whether a strided view's elements are anywhere but one after the other
 * in its order (strides 1, dims[last], ... row-major; axes of size 1 may
 * have any stride). */
static int fz_strided(const afmt_array *a)
{
    uint64_t want = 1;
    uint32_t k;

    if (!a->strided)
        return 0;
    for (k = 0; k < a->rank && k < AFMT_RANK_CAP; k++) {
        uint32_t axis = a->order == AFMT_ROW_MAJOR ? a->rank - 1 - k : k;
        if (a->dims[axis] == 0)
            return 0; /* no element */
        if (a->dims[axis] != 1 && a->strides[axis] != want)
            return 1;
        if (afmt_checked_mul_u64(want, a->dims[axis], &want))
            return 1;
    }
    return 0;
}

static int fz_visit_decode(void *ctx, const afmt_array *a)
{
    fz_vstate *s = ctx;
    fz_ctx *c = s->c;
    uint8_t *row = NULL, *col = NULL;
    uint64_t rsize, csize, es, k;
    afmt_error e;
    int rc;

    s->arrays++;
    if (fz_check_view(c, s->f, s->mode, s->buf, s->len, a) != 0)
        return 0;
    if (a->rank > s->max_rank) {
        fz_bug(c, "%s %s: array %u has rank %" PRIu32 ", above the caller's limit max_rank %"
               PRIu64, s->f->name, s->mode, a->index, a->rank, s->max_rank);
        return 0;
    }
    if (fz_plain_size(a) > c->max_decode)
        return 0; /* decoded by the targets with the larger cap */
    if (fz_seen_has(s->seen, a))
        return 0;
    rc = fz_decode(a, AFMT_ROW_MAJOR, &row, &rsize, &e);
    if (rc == 0)
        rc = fz_decode(a, AFMT_COL_MAJOR, &col, &csize, &e);
    if (rc < 0) {
        if (!s->decode_failed) {
            s->decode_failed = 1;
            s->decode_err = e;
            s->decode_index = a->index;
        }
    } else if (rc == 0) {
        c->decoded++;
        es = fz_elsize(a);
        /* Both orders hold the same element at every logical index. */
        k = fz_first_transpose_mismatch(a, row, col, es);
        if (k < a->count)
            fz_bug(c, "%s %s: array %u (rank %" PRIu32 "): row- and column-major "
                   "decodes differ at row-major element %" PRIu64,
                   s->f->name, s->mode, a->index, a->rank, k);
        /* A plain, native, contiguous view decodes to its own bytes (a
         * strided one's are gathered: a transpose, a slice, expand's
         * stride 0). */
        if (a->encoding == AFMT_ENC_PLAIN && a->endian == AFMT_LITTLE && !fz_strided(a) &&
            (a->stride == es || a->stride == 0) && rsize > 0 && a->nbytes >= rsize) {
            const uint8_t *own = a->order == AFMT_ROW_MAJOR ? row : col;
            k = fz_first_mismatch(own, a->data, a->count, es);
            if (k < a->count)
                fz_bug(c, "%s %s: array %u: plain decode differs from the stored "
                       "bytes at element %" PRIu64, s->f->name, s->mode, a->index, k);
        }
    }
    /* (a transient view's bytes die with the call: another run's at the
     * same address need not be the same) */
    if (rc == 0 && s->seen && s->seen->n < FZ_SEEN_MAX && !a->data_transient)
        s->seen->v[s->seen->n++] = *a;
    free(row);
    free(col);
    return 0;
}

static void fz_visit_warning(void *ctx, const afmt_error *w)
{
    fz_vstate *s = ctx;
    char text[1024];

    if (w->code < AFMT_OK || w->code >= AFMT_CODE_COUNT_ ||
        !memchr(w->message, 0, sizeof w->message) || !memchr(w->field, 0, sizeof w->field))
        fz_bug(s->c, "%s %s: malformed warning (code %d)", s->f->name, s->mode, (int)w->code);
    else
        fz_describe(w, text, sizeof text);
}

static void fz_visit_trailer(void *ctx, const uint8_t *data, uint64_t n, uint64_t offset)
{
    fz_vstate *s = ctx;

    if (n == 0 || !fz_inside(s->buf, s->len, data, n) ||
        offset != (uint64_t)((uintptr_t)data - (uintptr_t)s->buf) ||
        offset + n != s->len)
        fz_bug(s->c, "%s %s: trailer of %" PRIu64 " bytes at offset %" PRIu64
               " is not the end of the %" PRIu64 "-byte input",
               s->f->name, s->mode, n, offset, s->len);
}

/* Validate buf as f with opt; views are checked and decoded.  Returns the
 * validator's result. */
static int fz_validate_one(fz_ctx *c, const afmt_format *f, const char *mode,
                              const afmt_options *opt, const uint8_t *buf, uint64_t len,
                              fz_seen *seen)
{
    fz_vstate s;
    afmt_visitor vis;
    afmt_error err;
    char text[1024];
    int rc;

    memset(&s, 0, sizeof s);
    s.c = c;
    s.seen = seen;
    s.f = f;
    s.mode = mode;
    s.buf = buf;
    s.len = len;
    s.max_rank = opt->limits.max_rank;
    memset(&vis, 0, sizeof vis);
    vis.ctx = &s;
    vis.on_array = fz_visit_decode;
    vis.on_warning = fz_visit_warning;
    vis.on_trailer = fz_visit_trailer;
    rc = f->validate(buf, len, opt, &vis, &err);
    if (rc != 0 && rc != -1) {
        fz_bug(c, "%s %s: validate returned %d", f->name, mode, rc);
        return -1;
    }
    if (rc != 0) {
        fz_check_error(c, f, &err, mode, 1, len);
        return -1;
    }
    c->validated++;
    if (s.decode_failed && opt->check_values)
        fz_bug(c, "%s %s: valid file, but array %u does not decode: %s: %s", f->name, mode,
               s.decode_index, afmt_code_name(s.decode_err.code),
               fz_describe(&s.decode_err, text, sizeof text));
    return 0;
}

typedef afmt_views fz_views; /* at most FZ_MAX_VIEWS kept (afmt.h) */
static fz_views *fz_views_new(void);
static void fz_views_delete(fz_views *v);
static void fz_check_stream(fz_ctx *c, const afmt_format *f, const uint8_t *buf,
                               uint64_t len, const afmt_options *opt, uint64_t window,
                               int allow_limit, fz_views *bv, fz_views *sv);

/* The buffer checks of one format: detect, strict, lenient, tiny limits,
 * no value checks. */
static void fz_validate_format(fz_ctx *c, const afmt_format *f, const uint8_t *buf,
                               uint64_t len)
{
    afmt_options strict, lenient, tiny, novalues;
    fz_seen seen;
    int s, l;

    fz_options(&strict, AFMT_STRICT);
    fz_options(&lenient, AFMT_LENIENT);
    fz_options_tiny(&tiny);
    novalues = strict;
    novalues.check_values = 0;
    /* detect needs at most 64 bytes and must not read past len. */
    if (f->detect) {
        int d = f->detect(buf, len);
        if (d != 0 && d != 1)
            fz_bug(c, "%s: detect returned %d", f->name, d);
    }
    seen.n = 0;
    s = fz_validate_one(c, f, "strict", &strict, buf, len, &seen);
    l = fz_validate_one(c, f, "lenient", &lenient, buf, len, &seen);
    (void)fz_validate_one(c, f, "tiny-limits", &tiny, buf, len, &seen);
    if (s == 0 && l != 0)
        fz_bug(c, "%s: valid in strict mode but not in lenient mode", f->name);
    if (s == 0 && fz_validate_one(c, f, "no-value-checks", &novalues, buf, len, &seen) != 0)
        fz_bug(c, "%s: valid with value checks but not without them", f->name);
}

/* The stream checks of one format: the input as a stream, strict through
 * a window that holds it all, lenient through a small window that must
 * slide. */
static void fz_streams_format(fz_ctx *c, const afmt_format *f, const uint8_t *buf,
                              uint64_t len, fz_views **bv, fz_views **sv)
{
    afmt_options strict, lenient;

    if (!f->validate_src)
        return;
    if (!*bv && (*bv = fz_views_new()) != NULL)
        *sv = fz_views_new();
    if (!*sv)
        return;
    fz_options(&strict, AFMT_STRICT);
    fz_options(&lenient, AFMT_LENIENT);
    fz_check_stream(c, f, buf, len, &strict, len + FZ_BIG_WINDOW_EXTRA, 0, *bv, *sv);
    fz_check_stream(c, f, buf, len, &lenient, FZ_SMALL_WINDOW, 1, *bv, *sv);
}

/* Run fz_validate_format (buffers) and/or fz_streams_format on `only`, or
 * on every format of the registry. */
/* f's index in afmt_formats[] (the interpreters' index). */
static size_t fz_format_index(const afmt_format *f)
{
    size_t i;
    for (i = 0; i < afmt_format_count && afmt_formats[i] != f; i++) {}
    return i;
}

/* The interpreter of f's spec (if the context has one) against f's
 * generated validator: strict with a field visitor, lenient with small
 * limits and no value checks, a visitor that stops at the first array,
 * one that stops at the second key-value (typed metadata).
 * Any difference in what they report is a bug of one of them. */
static void fz_interp_agree(fz_ctx *c, size_t fi, const afmt_format *f, const uint8_t *buf,
                            uint64_t len)
{
    static const struct { afmt_mode mode; int check_values, small; afmt_agree_how how; } MODES[] = {
        {AFMT_STRICT, 1, 0, {1, 1, -1, 0}},
        {AFMT_LENIENT, 0, 1, {1, 0, -1, 0}},
        {AFMT_LENIENT, 1, 0, {1, 0, 0, 0}},
        {AFMT_STRICT, 1, 0, {1, 0, -1, 2}},
    };
    const afmt_interp *in = c->interps && fi < afmt_format_count ? c->interps[fi] : NULL;
    char why[768];
    size_t k;
    if (!in)
        return;
    for (k = 0; k < sizeof MODES / sizeof MODES[0]; k++) {
        afmt_options o;
        int rc;
        afmt_options_default(&o);
        o.mode = MODES[k].mode;
        o.check_values = MODES[k].check_values;
        if (MODES[k].small) {
            o.limits.max_rank = 2;
            o.limits.max_items = 3;
            o.limits.max_header_bytes = 16;
            o.limits.max_decoded_bytes = 64;
        }
        rc = afmt_agree(in, f, buf, len, &o, &MODES[k].how, why, sizeof why);
        if (rc > 0)
            fz_bug(c, "%s: the reference interpreter disagrees with the generated validator (mode %zu): %s",
                   f->name, k, why);
        else if (rc == 0)
            c->agreed++;
    }
}

static void fz_validate_run(fz_ctx *c, const afmt_format *only, const uint8_t *buf,
                            uint64_t len, int buffers, int streams)
{
    fz_views *bv = NULL, *sv = NULL;
    size_t i;

    for (i = 0; i < afmt_format_count; i++) {
        const afmt_format *f = only ? only : afmt_formats[i];
        if (f) {
            if (buffers) {
                fz_validate_format(c, f, buf, len);
                fz_interp_agree(c, only ? fz_format_index(f) : i, f, buf, len);
            }
            if (streams)
                fz_streams_format(c, f, buf, len, &bv, &sv);
        }
        if (only)
            break;
    }
    if (buffers && !only)
        (void)afmt_format_detect(buf, len, NULL);
    fz_views_delete(bv);
    fz_views_delete(sv);
}

void fz_check_validate(fz_ctx *c, const afmt_format *only, const uint8_t *buf, uint64_t len)
{
    fz_validate_run(c, only, buf, len, 1, c->streams);
}

void fz_check_streams(fz_ctx *c, const afmt_format *only, const uint8_t *buf, uint64_t len)
{
    fz_validate_run(c, only, buf, len, 0, 1);
}

/* ------------------------------------------------------------ collecting */

/* The views of one validation: an afmt_views keeping FZ_MAX_VIEWS (grown
 * as arrays come, most files holding one or two: a view is 2.3 KiB, and
 * under ASan an allocation of FZ_MAX_VIEWS of them per input was an mmap
 * and munmap each time, most of the round trip's time). */

/* All the views are there, and not too many of them. */
static int fz_views_usable(const fz_views *v)
{
    return !v->oom && v->n <= FZ_MAX_VIEWS;
}

static fz_views *fz_views_new(void)
{
    fz_views *v = malloc(sizeof *v);
    if (v)
        afmt_views_init(v, FZ_MAX_VIEWS);
    return v;
}

static void fz_views_delete(fz_views *v)
{
    if (v)
        afmt_views_free(v);
    free(v);
}

/* Validate and keep the views; 0 if valid. */
static int fz_collect(const afmt_format *f, const afmt_options *opt, const uint8_t *buf,
                         uint64_t len, fz_views *out, afmt_error *err)
{
    afmt_visitor vis;

    afmt_views_reset(out);
    afmt_views_visitor(out, &vis);
    return f->validate(buf, len, opt, &vis, err);
}

/* Valid in strict mode, else lenient: 0 strict, 1 lenient only, -1 not. */
static int fz_collect_any(const afmt_format *f, const uint8_t *buf, uint64_t len,
                             fz_views *out)
{
    afmt_options o;
    afmt_error err;

    fz_options(&o, AFMT_STRICT);
    if (fz_collect(f, &o, buf, len, out, &err) == 0)
        return 0;
    fz_options(&o, AFMT_LENIENT);
    if (fz_collect(f, &o, buf, len, out, &err) == 0)
        return 1;
    return -1;
}

/* ------------------------------------------------------------ streams */

/* A stream reader handing the input over in odd-sized pieces, so that
 * every window boundary case comes up. */
typedef struct fz_reader {
    const uint8_t *buf;
    uint64_t len, pos;
    unsigned step;
} fz_reader;

static int fz_read_piece(void *ctx, uint8_t *out, size_t n, size_t *got)
{
    static const size_t pieces[] = {1, 7, 64, 3, 4096, 511, 2, 65536};
    fz_reader *r = ctx;
    uint64_t want = pieces[r->step++ % (sizeof pieces / sizeof pieces[0])];

    if (want > n)
        want = n;
    if (want > r->len - r->pos)
        want = r->len - r->pos;
    if (want > 0)
        memcpy(out, r->buf + r->pos, (size_t)want);
    r->pos += want;
    *got = (size_t)want;
    return 0;
}

typedef struct fz_sstate {
    fz_views *views;
    const uint8_t *buf;
    uint64_t len;
    int stale;          /* a view's data differed from the input's bytes */
    uint32_t stale_index;
} fz_sstate;

/* Keep the view; its data, when a stream has it in memory, must be the
 * input's bytes at its offset (unless they are the validator's own:
 * data_transient, an inflated member or region). */
static int fz_stream_array(void *ctx, const afmt_array *a)
{
    fz_sstate *s = ctx;

    if (a->data && !a->data_transient && a->nbytes > 0 && a->encoding != AFMT_ENC_CSR && !s->stale &&
        (a->offset > s->len || a->nbytes > s->len - a->offset ||
         memcmp(a->data, s->buf + a->offset, (size_t)a->nbytes) != 0)) {
        s->stale = 1;
        s->stale_index = a->index;
    }
    return afmt_views_add(s->views, a);
}

/* Name of the first field in which two views differ, or NULL.  Data
 * pointers are not compared: a stream's views may carry none. */
static const char *fz_view_diff(const afmt_array *x, const afmt_array *y)
{
    if (x->dtype != y->dtype || x->elsize != y->elsize)
        return "dtype";
    if (x->rank != y->rank || memcmp(x->dims, y->dims, sizeof x->dims[0] * x->rank) != 0)
        return "dims";
    if (x->count != y->count)
        return "count";
    if (x->order != y->order || x->encoding != y->encoding || x->endian != y->endian)
        return "order/encoding/endian";
    if (x->nbytes != y->nbytes || x->offset != y->offset || x->stride != y->stride)
        return "nbytes/offset/stride";
    if (strcmp(x->name, y->name) != 0)
        return "name";
    if (x->index != y->index)
        return "index";
    if (x->nnz != y->nnz)
        return "nnz";
    if (x->is_tile != y->is_tile || x->tile_row != y->tile_row || x->tile_col != y->tile_col ||
        x->tile_rows != y->tile_rows || x->tile_cols != y->tile_cols)
        return "tile";
    return NULL;
}

/* Validating buf as a stream through a window of `window` bytes gives the
 * buffer's verdict, error and arrays -- or, allow_limit, an AFMT_E_LIMIT
 * (a structure larger than the window). */
static void fz_check_stream(fz_ctx *c, const afmt_format *f, const uint8_t *buf,
                               uint64_t len, const afmt_options *opt, uint64_t window,
                               int allow_limit, fz_views *bvp, fz_views *svp)
{
    fz_views *bv = bvp, *sv = svp; /* the caller's storage, reused */
    fz_sstate st;
    fz_reader rd;
    afmt_visitor vis;
    afmt_src src;
    afmt_error berr, serr;
    uint8_t *win = NULL;
    char bt[1024], stx[1024];
    const char *diff;
    const char *mode = opt->mode == AFMT_LENIENT ? "lenient" : "strict";
    int brc, src_rc;
    size_t i;

    if (!(win = malloc(window)))
        return;
    afmt_error_clear(&berr);
    brc = fz_collect(f, opt, buf, len, bv, &berr);

    memset(&rd, 0, sizeof rd);
    rd.buf = buf;
    rd.len = len;
    rd.step = len > 0 ? buf[0] : 0; /* vary the piece sizes with the input */
    memset(&st, 0, sizeof st);
    st.views = sv;
    afmt_views_reset(sv);
    st.buf = buf;
    st.len = len;
    memset(&vis, 0, sizeof vis);
    vis.ctx = &st;
    vis.on_array = fz_stream_array;
    afmt_src_stream(&src, win, window, fz_read_piece, &rd);
    afmt_error_clear(&serr);
    src_rc = f->validate_src(&src, opt, &vis, &serr);

    if (src_rc != 0) {
        fz_check_error(c, f, &serr, "stream", 1, len);
        if (allow_limit && serr.code == AFMT_E_LIMIT)
            goto done;
    }
    if (brc == 0 && src_rc != 0) {
        fz_bug(c, "%s %s: valid, but not as a stream (window %" PRIu64 "): %s: %s", f->name,
               mode, window, afmt_code_name(serr.code), fz_describe(&serr, stx, sizeof stx));
        goto done;
    }
    if (brc != 0 && src_rc == 0) {
        fz_bug(c, "%s %s: invalid (%s: %s), but valid as a stream (window %" PRIu64 ")",
               f->name, mode, afmt_code_name(berr.code), fz_describe(&berr, bt, sizeof bt),
               window);
        goto done;
    }
    if (brc != 0) {
        /* A stream learns its length only at its end: where the buffer
         * knows up front that a structure is cut short, the stream reads
         * on and may fail at a field inside it first (or notice the
         * truncation at a later field).  Otherwise code and offset agree. */
        if (berr.code != AFMT_E_TRUNCATED && serr.code != AFMT_E_TRUNCATED &&
            (berr.code != serr.code || berr.offset != serr.offset))
            fz_bug(c, "%s %s: the buffer and the stream (window %" PRIu64 ") fail differently: "
                   "%s: %s / %s: %s", f->name, mode, window, afmt_code_name(berr.code),
                   fz_describe(&berr, bt, sizeof bt), afmt_code_name(serr.code),
                   fz_describe(&serr, stx, sizeof stx));
        goto done;
    }
    if (bv->n != sv->n) {
        fz_bug(c, "%s %s: %zu arrays from the buffer, %zu from the stream (window %" PRIu64 ")",
               f->name, mode, bv->n, sv->n, window);
        goto done;
    }
    for (i = 0; i < bv->n && i < FZ_MAX_VIEWS && !bv->oom && !sv->oom; i++)
        if ((diff = fz_view_diff(&bv->v[i], &sv->v[i])) != NULL) {
            fz_bug(c, "%s %s: array %zu differs between the buffer and the stream "
                   "(window %" PRIu64 ") in %s", f->name, mode, i, window, diff);
            goto done;
        }
    if (st.stale)
        fz_bug(c, "%s %s: array %u of the stream (window %" PRIu64 ") points at bytes that "
               "are not the input's at its offset", f->name, mode, st.stale_index, window);
done:
    free(win);
}

/* ------------------------------------------------------------ logical arrays */

/* The arrays of a file as a user sees them, decoded: one per view, except
 * that the tiles of a matrix (views with is_tile, DAPHNE's blocks) are put
 * together into that one matrix.  Each is a plain, native view in the
 * requested order over a buffer of its own -- what writers take. */
typedef struct fz_logical {
    size_t n;
    afmt_array *a;                  /* cap plain views (grown, see fz_views) */
    size_t cap;
    uint8_t *buf[FZ_MAX_VIEWS];     /* their data, owned */
} fz_logical;

static int fz_logical_alloc(fz_logical *l)
{
    memset(l, 0, sizeof *l);
    return 0;
}

/* Room for n (at most FZ_MAX_VIEWS) views; -1 when it cannot be had. */
static int fz_logical_reserve(fz_logical *l, size_t n)
{
    afmt_array *na;

    if (n <= l->cap)
        return 0;
    if (n > FZ_MAX_VIEWS || !(na = realloc(l->a, sizeof *na * n)))
        return -1;
    l->a = na;
    l->cap = n;
    return 0;
}

static void fz_logical_clear(fz_logical *l)
{
    size_t i;
    for (i = 0; i < FZ_MAX_VIEWS; i++) {
        free(l->buf[i]);
        l->buf[i] = NULL;
    }
    l->n = 0;
}

static void fz_logical_free(fz_logical *l)
{
    fz_logical_clear(l);
    free(l->a);
    l->a = NULL;
}

/* Put the tiles views[0..n) (all is_tile) together into one matrix, in
 * `order`, as l->a[l->n] (afmt_tiles_assemble).  0 ok, 1 skip, -1 bug
 * reported: the tiles of a valid file are tiles of one matrix that they
 * cover without overlapping, and each decodes. */
static int fz_assemble_tiles(fz_ctx *c, const afmt_format *f, const afmt_array *views,
                             size_t n, afmt_order order, fz_logical *l)
{
    uint64_t total;
    uint8_t *mat;
    afmt_error e;
    char text[1024];

    afmt_error_clear(&e);
    if (afmt_tiles_plain_size(views, n, &total, &e) != 0) {
        if (e.code == AFMT_E_OVERFLOW)
            return 1;
        fz_bug(c, "%s: the tiles of a valid file: %s: %s", f->name, afmt_code_name(e.code),
               fz_describe(&e, text, sizeof text));
        return -1;
    }
    if (total > FZ_MAX_PLAIN || fz_logical_reserve(l, l->n + 1) != 0 ||
        !(mat = malloc(total ? total : 1)))
        return 1;
    if (afmt_tiles_assemble(views, n, order, mat, total, &l->a[l->n], &e) != 0) {
        free(mat);
        if (fz_decode_may_fail(e.code))
            return 1;
        fz_bug(c, "%s: the tiles of a valid file do not assemble: %s: %s", f->name,
               afmt_code_name(e.code), fz_describe(&e, text, sizeof text));
        return -1;
    }
    l->buf[l->n] = mat;
    l->n++;
    return 0;
}

/* The logical arrays of views[0..n) in `order`.  0 ok, 1 skip (too big, or
 * not decodable for a legitimate reason), -1 bug reported. */
static int fz_logical_build(fz_ctx *c, const afmt_format *f, const afmt_array *views,
                               size_t n, afmt_order order, fz_logical *l)
{
    uint64_t total = 0, size;
    afmt_error e;
    char text[1024];
    size_t i, tiles = 0;
    int rc;

    fz_logical_clear(l);
    if (n > FZ_MAX_VIEWS || fz_logical_reserve(l, n) != 0)
        return 1;
    for (i = 0; i < n; i++) {
        tiles += views[i].is_tile != 0;
        size = views[i].block > 1 ? views[i].nbytes : fz_plain_size(&views[i]);
        if (size > FZ_MAX_PLAIN || (total += size) > FZ_MAX_PLAIN_TOTAL)
            return 1;
    }
    if (tiles > 0) {
        if (tiles != n)
            return 1; /* tiles of a matrix beside other arrays: not handled */
        return fz_assemble_tiles(c, f, views, n, order, l);
    }
    for (i = 0; i < n; i++) {
        if (views[i].block > 1) { /* blocks are copied, byte for byte, as writers take them */
            if (order != AFMT_ROW_MAJOR && views[i].rank > 1)
                return 1; /* never transposed */
            if (!views[i].data || !(l->buf[i] = malloc(views[i].nbytes ? views[i].nbytes : 1)))
                return 1;
            if (views[i].nbytes)
                memcpy(l->buf[i], views[i].data, views[i].nbytes);
            l->a[i] = views[i];
            l->a[i].data = l->buf[i];
            l->n = i + 1;
            continue;
        }
        rc = fz_decode(&views[i], order, &l->buf[i], &size, &e);
        if (rc < 0)
            fz_bug(c, "%s: array %zu of a valid file does not decode: %s: %s", f->name, i,
                   afmt_code_name(e.code), fz_describe(&e, text, sizeof text));
        if (rc != 0)
            return rc;
        afmt_array_plain_view(&views[i], order, l->buf[i], &l->a[i]);
        l->n = i + 1;
    }
    return 0;
}

/* Write arrays with f into a buffer of exactly encoded_size bytes.
 * 0: *out holds *size bytes (free it); 1: the writer refused legitimately;
 * -1: bug reported.  may_refuse_values: the arrays come from a leniently
 * valid file or from another format, so a refusal of a value (or any
 * constraint of f's strict form) is legitimate. */
static int fz_write(fz_ctx *c, const afmt_format *f, const char *what,
                       const afmt_array *arrays, size_t n, const afmt_write_options *wopt,
                       int may_refuse_values, uint8_t **out, uint64_t *size)
{
    afmt_error err;
    afmt_sink sink;
    char text[1024];

    *out = NULL;
    *size = 0;
    afmt_error_clear(&err);
    if (f->encoded_size(arrays, n, wopt, size, &err) != 0) {
        fz_check_error(c, f, &err, "encoded_size", 0, 0);
        if (fz_write_may_refuse(err.code, may_refuse_values))
            return 1;
        fz_bug(c, "%s %s: encoded_size refuses: %s: %s", f->name, what,
               afmt_code_name(err.code), fz_describe(&err, text, sizeof text));
        return -1;
    }
    if (*size > FZ_MAX_PLAIN_TOTAL + ((uint64_t)1 << 20))
        return 1; /* header-heavy, e.g. a huge trailer: not worth the memory */
    *out = malloc(*size ? *size : 1);
    if (!*out)
        return 1;
    afmt_sink_buffer(&sink, *out, *size);
    afmt_error_clear(&err);
    if (f->write(arrays, n, wopt, &sink, &err) != 0) {
        free(*out);
        *out = NULL;
        fz_check_error(c, f, &err, "write", 0, 0);
        /* encoded_size and can_write count bytes without looking at the
         * values, so only a value may make write refuse after them. */
        if (may_refuse_values && err.code == AFMT_E_VALUE)
            return 1;
        fz_bug(c, "%s %s: encoded_size said %" PRIu64 " bytes, then write failed: %s: %s",
               f->name, what, *size, afmt_code_name(err.code),
               fz_describe(&err, text, sizeof text));
        return -1;
    }
    if (sink.written != *size) {
        fz_bug(c, "%s %s: encoded_size said %" PRIu64 " bytes, write wrote %" PRIu64,
               f->name, what, *size, sink.written);
        free(*out);
        *out = NULL;
        return -1;
    }
    return 0;
}

/* Same logical shape: equal dims, or (squeeze) equal once axes of size 1
 * are dropped, which keeps every row-major linear index. */
static int fz_same_shape(const afmt_array *a, const afmt_array *b, int squeeze)
{
    uint32_t i = 0, j = 0;

    if (a->count != b->count)
        return 0;
    if (!squeeze)
        return a->rank == b->rank &&
               memcmp(a->dims, b->dims, sizeof a->dims[0] * a->rank) == 0;
    for (;;) {
        while (i < a->rank && a->dims[i] == 1)
            i++;
        while (j < b->rank && b->dims[j] == 1)
            j++;
        if (i == a->rank || j == b->rank)
            return i == a->rank && j == b->rank;
        if (a->dims[i++] != b->dims[j++])
            return 0;
    }
}

/* Compare array x (from the input) with y (from what a writer made):
 * dtype, shape, and every value at the same logical index (row-major). */
static void fz_compare_values(fz_ctx *c, const char *what, size_t index,
                                 const afmt_array *x, const afmt_array *y, int squeeze)
{
    uint8_t *px = NULL, *py = NULL;
    uint64_t nx, ny, k, es;
    char dx[64], dy[64], hx[40], hy[40], text[1024];
    afmt_error e;
    int rx, ry;

    afmt_array_describe(x, dx, sizeof dx);
    afmt_array_describe(y, dy, sizeof dy);
    if (x->dtype != y->dtype || (x->dtype == AFMT_OPAQUE && x->elsize != y->elsize) || x->block != y->block ||
        strcmp(x->opaque_name, y->opaque_name) != 0) {
        fz_bug(c, "%s: array %zu: type changed: %s became %s", what, index, dx, dy);
        return;
    }
    if (x->block > 1) { /* blocks: the same shape and the same bytes */
        if (!fz_same_shape(x, y, 0) || x->nbytes != y->nbytes ||
            (x->nbytes && (!x->data || !y->data || memcmp(x->data, y->data, x->nbytes) != 0)))
            fz_bug(c, "%s: array %zu (%s): its blocks changed (shape or bytes): became %s", what, index, dx, dy);
        return;
    }
    if (!fz_same_shape(x, y, squeeze)) {
        fz_bug(c, "%s: array %zu: shape changed: %s became %s", what, index, dx, dy);
        return;
    }
    rx = fz_decode(x, AFMT_ROW_MAJOR, &px, &nx, &e);
    if (rx < 0)
        fz_bug(c, "%s: array %zu (%s) does not decode: %s", what, index, dx,
               fz_describe(&e, text, sizeof text));
    ry = fz_decode(y, AFMT_ROW_MAJOR, &py, &ny, &e);
    if (ry < 0)
        fz_bug(c, "%s: written array %zu (%s) does not decode: %s", what, index, dy,
               fz_describe(&e, text, sizeof text));
    if (rx == 0 && ry == 0) {
        es = fz_elsize(x);
        k = nx == ny ? fz_first_mismatch(px, py, x->count, es) : 0;
        if (k < x->count)
            fz_bug(c, "%s: array %zu (%s): element %" PRIu64 " (row-major) was %s, is %s",
                   what, index, dx, k, fz_hex(px + k * es, es, hx, sizeof hx),
                   fz_hex(py + k * es, es, hy, sizeof hy));
    }
    free(px);
    free(py);
}

/* ------------------------------------------------------------ roundtrip */

typedef struct fz_work {
    fz_views in, out;
    fz_logical l1, l2, l3;
} fz_work;

static int fz_work_alloc(fz_work *w)
{
    int bad = 0;
    afmt_views_init(&w->in, FZ_MAX_VIEWS);
    afmt_views_init(&w->out, FZ_MAX_VIEWS);
    bad |= fz_logical_alloc(&w->l1);
    bad |= fz_logical_alloc(&w->l2);
    bad |= fz_logical_alloc(&w->l3);
    return bad ? -1 : 0;
}

static void fz_work_free(fz_work *w)
{
    afmt_views_free(&w->in);
    afmt_views_free(&w->out);
    fz_logical_free(&w->l1);
    fz_logical_free(&w->l2);
    fz_logical_free(&w->l3);
}

/* The array of b that array i of a became: the one at the same index when
 * it has the same name, else (a writer may reorder named entries, as the
 * safetensors reference's order does) the only one of b with that name;
 * SIZE_MAX when there is none or several.  An array without a name (an
 * empty one) may come back as arr_<i>: the one naming rule
 * (afmt_array_key) of the formats whose arrays are all named.  Quadratic
 * only for a reordered file, whose arrays are few under fuzzing. */
static size_t fz_same_name(const fz_logical *a, size_t i, const fz_logical *b)
{
    size_t j, found = SIZE_MAX;
    char unnamed[32];
    const char *key = afmt_array_key(&a->a[i], i, unnamed, sizeof unnamed);
    if (i < b->n && (strcmp(a->a[i].name, b->a[i].name) == 0 || strcmp(key, b->a[i].name) == 0))
        return i;
    for (j = 0; j < b->n; j++)
        if (strcmp(key, b->a[j].name) == 0) {
            if (found != SIZE_MAX)
                return SIZE_MAX;
            found = j;
        }
    return found;
}

/* Does an unnamed array's arr_<i> (afmt_array_key) name another array
 * too?  A writer that names every array then refuses the set, as
 * np.savez refuses positional arrays beside a keyword arr_0: no bug. */
static int fz_unnamed_clash(const afmt_array *arrays, size_t n)
{
    size_t i, j;
    char key[32];
    for (i = 0; i < n && i < 4096; i++) {
        if (arrays[i].name[0])
            continue;
        afmt_array_key(&arrays[i], i, key, sizeof key);
        for (j = 0; j < n; j++)
            if (strcmp(arrays[j].name, key) == 0)
                return 1;
    }
    return 0;
}

/* Whether f writes a file of no array (a GGUF of metadata only). */
static int fz_writes_none(const afmt_format *f)
{
    uint64_t size;
    afmt_error e;
    return f->multi && f->encoded_size(NULL, 0, NULL, &size, &e) == 0;
}

static void fz_roundtrip_format(fz_ctx *c, const afmt_format *f, const uint8_t *buf,
                                   uint64_t len, fz_work *w)
{
    uint8_t *w1 = NULL, *w2 = NULL;
    uint64_t n1, n2;
    afmt_write_options wopt;
    afmt_options oo;
    afmt_error err;
    char text[1024], what[96];
    size_t i;
    int lenient;

    lenient = fz_collect_any(f, buf, len, &w->in);
    /* a file of no array round-trips too where the writer writes one */
    if (lenient < 0 || (w->in.n == 0 && !fz_writes_none(f)) || !fz_views_usable(&w->in))
        return;
    if (fz_logical_build(c, f, w->in.v, w->in.n, f->order, &w->l1) != 0 || (w->l1.n == 0 && w->in.n > 0) ||
        fz_unnamed_clash(w->l1.a, w->l1.n))
        goto done;
    memset(&wopt, 0, sizeof wopt);
    wopt.trailer = w->in.trailer;
    wopt.trailer_len = w->in.trailer_len;
    snprintf(what, sizeof what, "rewrite of a %s file", lenient ? "leniently valid" : "valid");
    if (fz_write(c, f, what, w->l1.a, w->l1.n, &wopt, lenient, &w1, &n1) != 0)
        goto done;

    /* Writers produce the strict form. */
    fz_options_output(&oo);
    afmt_error_clear(&err);
    if (fz_collect(f, &oo, w1, n1, &w->out, &err) != 0) {
        fz_bug(c, "%s %s: output does not validate (strict): %s: %s", f->name, what,
               afmt_code_name(err.code), fz_describe(&err, text, sizeof text));
        goto done;
    }
    if (!fz_views_usable(&w->out) ||
        fz_logical_build(c, f, w->out.v, w->out.n, f->order, &w->l2) != 0)
        goto done;
    if (w->l2.n != w->l1.n) {
        fz_bug(c, "%s %s: %zu arrays written, %zu read back", f->name, what, w->l1.n,
               w->l2.n);
        goto done;
    }
    c->roundtrips++;
    snprintf(what, sizeof what, "%s rewrite", f->name);
    for (i = 0; i < w->l1.n; i++) {
        size_t j = fz_same_name(&w->l1, i, &w->l2);
        if (j == SIZE_MAX) {
            fz_bug(c, "%s: array %zu: name \"%.64s\" became \"%.64s\"", what, i,
                   w->l1.a[i].name, w->l2.a[i].name);
            continue;
        }
        fz_compare_values(c, what, i, &w->l1.a[i], &w->l2.a[j], 0);
    }
    if (w->in.trailer_len != w->out.trailer_len ||
        (w->in.trailer_len > 0 &&
         memcmp(w->in.trailer, w->out.trailer, w->in.trailer_len) != 0))
        fz_bug(c, "%s: trailer of %" PRIu64 " bytes became %" PRIu64 " bytes (or changed)",
               what, w->in.trailer_len, w->out.trailer_len);

    /* The written form is canonical: rewriting it gives the same bytes. */
    wopt.trailer = w->out.trailer;
    wopt.trailer_len = w->out.trailer_len;
    if (fz_write(c, f, "second rewrite", w->l2.a, w->l2.n, &wopt, 0, &w2, &n2) != 0)
        goto done;
    if (n1 != n2 || memcmp(w1, w2, n1) != 0) {
        uint64_t k = 0;
        while (k < n1 && k < n2 && w1[k] == w2[k])
            k++;
        fz_bug(c, "%s: not a fixed point: the rewrite of the rewrite differs (%" PRIu64
               " vs %" PRIu64 " bytes, first difference at byte %" PRIu64 ")",
               what, n1, n2, k);
    }
done:
    fz_logical_clear(&w->l1);
    fz_logical_clear(&w->l2);
    free(w1);
    free(w2);
}

/* The roundtrip target: every format in which the input is valid. */
void fz_check_roundtrip(fz_ctx *c, const afmt_format *only, const uint8_t *buf, uint64_t len)
{
    fz_work w;
    size_t i;

    if (fz_work_alloc(&w) == 0) {
        if (only)
            fz_roundtrip_format(c, only, buf, len, &w);
        else
            for (i = 0; i < afmt_format_count; i++)
                if (afmt_formats[i])
                    fz_roundtrip_format(c, afmt_formats[i], buf, len, &w);
    }
    fz_work_free(&w);
}

/* ------------------------------------------------------------ convert */

/* Logical array x (row-major plain, from a valid file of format a) written
 * as format b. */
static void fz_convert_one(fz_ctx *c, const afmt_format *a, const afmt_format *b,
                              const afmt_array *x, size_t index, fz_work *w)
{
    uint8_t *out = NULL;
    uint64_t n;
    afmt_options oo;
    afmt_error err;
    char what[96], text[1024];

    snprintf(what, sizeof what, "%s array %zu -> %s", a->name, index, b->name);
    /* x in b's order */
    if (fz_logical_build(c, a, x, 1, b->order, &w->l2) != 0 || w->l2.n != 1)
        goto done;
    afmt_error_clear(&err);
    if (b->can_write(&w->l2.a[0], &err) != 0) {
        fz_check_error(c, b, &err, "can_write", 0, 0);
        if (err.code == AFMT_E_USAGE || err.code == AFMT_E_IO)
            fz_bug(c, "%s: can_write calls a plain view in the writer's order a usage "
                   "error: %s", what, fz_describe(&err, text, sizeof text));
        goto done;
    }
    /* can_write accepted: every later step must succeed (write may still
     * refuse a value: can_write looks at dtype, rank and dims only). */
    if (fz_write(c, b, what, w->l2.a, 1, NULL, 1, &out, &n) != 0)
        goto done;
    fz_options_output(&oo);
    afmt_error_clear(&err);
    if (fz_collect(b, &oo, out, n, &w->out, &err) != 0) {
        fz_bug(c, "%s: output does not validate (strict): %s: %s", what,
               afmt_code_name(err.code), fz_describe(&err, text, sizeof text));
        goto done;
    }
    if (!fz_views_usable(&w->out) ||
        fz_logical_build(c, b, w->out.v, w->out.n, AFMT_ROW_MAJOR, &w->l3) != 0)
        goto done;
    if (w->l3.n != 1) {
        fz_bug(c, "%s: one array written, %zu read back", what, w->l3.n);
        goto done;
    }
    c->conversions++;
    fz_compare_values(c, what, index, x, &w->l3.a[0], 1);
done:
    fz_logical_clear(&w->l2);
    fz_logical_clear(&w->l3);
    free(out);
}

/* The convert target: for every format A in which the input is valid, each
 * of its first logical arrays into every other format B that can hold it. */
void fz_check_convert(fz_ctx *c, const uint8_t *buf, uint64_t len)
{
    fz_work w;
    size_t i, j, k;

    if (fz_work_alloc(&w) != 0)
        goto done;
    for (i = 0; i < afmt_format_count; i++) {
        const afmt_format *a = afmt_formats[i];
        if (!a || fz_collect_any(a, buf, len, &w.in) < 0 || !fz_views_usable(&w.in))
            continue;
        if (fz_logical_build(c, a, w.in.v, w.in.n, AFMT_ROW_MAJOR, &w.l1) != 0)
            continue;
        for (k = 0; k < w.l1.n && k < FZ_MAX_CONVERT; k++)
            for (j = 0; j < afmt_format_count; j++)
                if (j != i && afmt_formats[j])
                    fz_convert_one(c, a, afmt_formats[j], &w.l1.a[k], k, &w);
        fz_logical_clear(&w.l1);
    }
done:
    fz_work_free(&w);
}

/* All three, as the regression test runs them. */
void fz_check_all(fz_ctx *c, const uint8_t *buf, uint64_t len)
{
    const char *target = c->target;

    c->target = "validate";
    fz_check_validate(c, NULL, buf, len);
    c->target = "roundtrip";
    fz_check_roundtrip(c, NULL, buf, len);
    c->target = "convert";
    fz_check_convert(c, buf, len);
    c->target = target;
}

