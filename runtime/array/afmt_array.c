/* afmt runtime: array views, decoding to plain, transposes, conversions.
 *
 * A view describes stored bytes; afmt_array_to_plain turns any view into a
 * contiguous native-order buffer in the order the caller wants, keeping the
 * logical index of every element.  Sizes are recomputed here with checked
 * arithmetic rather than trusted, because views can be built by hand.
 */
#include "afmt_array.h"
#include "../compress/afmt_lz4.h"

#include <float.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h> /* INFINITY only: no libm function is called */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/afmt_bytes.h"
#include "afmt_transpose.h"


/* Compilers fold this to a constant. */
static int host_is_big(void)
{
    const uint16_t one = 1;
    uint8_t first;
    memcpy(&first, &one, 1);
    return first == 0;
}

/* Bytes of one element in a plain copy: the dtype's, or the file's for
 * opaque elements. */
static uint64_t plain_elsize(const afmt_array *a)
{
    if (a->dtype == AFMT_OPAQUE)
        return a->elsize;
    return afmt_dtype_get(a->dtype)->size;
}

void afmt_array_init(afmt_array *a, afmt_dtype dtype)
{
    memset(a, 0, sizeof *a);
    a->dtype = dtype;
    a->elsize = afmt_dtype_get(dtype)->size;
    a->stride = a->elsize;
    /* rank 0 is a scalar: prod() of no dims is 1, and count keeps that
     * invariant so a caller that only sets rank and dims stays consistent
     * once it also sets count. */
    a->count = 1;
    a->order = AFMT_ROW_MAJOR;
    a->encoding = AFMT_ENC_PLAIN;
    a->endian = AFMT_LITTLE;
}

/* Append s to out, tracking the length that would have been written. */
static void put_str(char *out, size_t out_size, size_t *len, const char *s)
{
    size_t n = strlen(s);
    if (out && out_size > 0 && *len < out_size - 1) {
        size_t room = out_size - 1 - *len;
        memcpy(out + *len, s, n < room ? n : room);
        out[*len + (n < room ? n : room)] = '\0';
    }
    *len += n;
}

const char *afmt_array_type_name(const afmt_array *a)
{
    if (a->dtype == AFMT_OPAQUE && a->opaque_name[0] && memchr(a->opaque_name, 0, sizeof a->opaque_name))
        return a->opaque_name;
    return afmt_dtype_name(a->dtype);
}

int afmt_array_describe(const afmt_array *a, char *out, size_t out_size)
{
    size_t len = 0;
    uint32_t i, rank = a->rank <= AFMT_RANK_CAP ? a->rank : AFMT_RANK_CAP;
    char num[24];

    if (out && out_size > 0)
        out[0] = '\0';
    put_str(out, out_size, &len, afmt_dtype_name(afmt_array_value_dtype(a)));
    if (afmt_array_type_name(a) != afmt_dtype_name(a->dtype)) {
        /* opaque elements the format names: "opaque(F8_E4M3)[2]" */
        put_str(out, out_size, &len, "(");
        put_str(out, out_size, &len, afmt_array_type_name(a));
        put_str(out, out_size, &len, ")");
    }
    put_str(out, out_size, &len, "[");
    for (i = 0; i < rank; i++) {
        snprintf(num, sizeof num, "%s%" PRIu64, i ? "," : "", a->dims[i]);
        put_str(out, out_size, &len, num);
    }
    put_str(out, out_size, &len, "]");
    return len > INT_MAX ? INT_MAX : (int)len;
}

/* Bytes a plain copy of the stored elements takes (the transform aside). */
static int stored_plain_size(const afmt_array *a, uint64_t *out, afmt_error *err)
{
    uint64_t es;

    *out = 0;
    if (afmt_dtype_get(a->dtype)->dtype == AFMT_DTYPE_INVALID)
        return afmt_fail(err, AFMT_E_TYPE, NULL, NULL, AFMT_NO_INDEX, a->offset,
                         "invalid element type %d",
                         (int)a->dtype);
    es = plain_elsize(a);
    if (a->block > 1) {
        /* whole blocks: the validator checked that the count divides */
        if (afmt_checked_mul_u64(a->count / a->block, a->elsize, out))
            return afmt_fail(err, AFMT_E_OVERFLOW, NULL, NULL, AFMT_NO_INDEX, a->offset,
                             "%" PRIu64 " blocks of %" PRIu64 " bytes overflow 64 bits",
                             a->count / a->block, a->elsize);
        return 0;
    }
    if (afmt_checked_mul_u64(a->count, es, out))
        return afmt_fail(err, AFMT_E_OVERFLOW, NULL, NULL, AFMT_NO_INDEX, a->offset,
                         "%" PRIu64 " elements of %" PRIu64 " bytes overflow 64 bits",
                         a->count, es);
    return 0;
}

int afmt_array_plain_size(const afmt_array *a, uint64_t *out, afmt_error *err)
{
    const afmt_dtype_info *vi = afmt_dtype_get(afmt_array_value_dtype(a));

    if (!afmt_array_has_transform(a))
        return stored_plain_size(a, out, err);
    *out = 0;
    if (vi->dtype == AFMT_DTYPE_INVALID || vi->kind == AFMT_KIND_OPAQUE)
        return afmt_fail(err, AFMT_E_TYPE, NULL, NULL, AFMT_NO_INDEX, a->offset,
                         "invalid logical element type %d", (int)a->logical);
    if (afmt_checked_mul_u64(a->count, vi->size, out))
        return afmt_fail(err, AFMT_E_OVERFLOW, NULL, NULL, AFMT_NO_INDEX, a->offset,
                         "%" PRIu64 " elements of %u bytes overflow 64 bits", a->count,
                         (unsigned)vi->size);
    return 0;
}

void afmt_array_plain_view(const afmt_array *src, afmt_order order,
                           const void *bytes, afmt_array *dst)
{
    const uint8_t *buf = bytes;
    afmt_array v; /* src and dst may be the same view */
    uint64_t size;

    afmt_array_init(&v, afmt_array_value_dtype(src));
    if (!afmt_array_has_transform(src))
        v.elsize = plain_elsize(src);
    v.rank = src->rank <= AFMT_RANK_CAP ? src->rank : AFMT_RANK_CAP;
    memcpy(v.dims, src->dims, sizeof v.dims);
    v.count = src->count;
    memcpy(v.name, src->name, sizeof v.name);
    v.name[AFMT_NAME_MAX - 1] = '\0';
    memcpy(v.opaque_name, src->opaque_name, sizeof v.opaque_name);
    v.opaque_name[AFMT_OPAQUE_NAME_MAX - 1] = '\0';
    v.name_len = src->name_len;
    v.index = src->index;
    v.order = order;
    v.encoding = AFMT_ENC_PLAIN;
    v.endian = AFMT_LITTLE;
    v.stride = v.elsize;
    v.data = buf;
    /* The size cannot overflow for a view that to_plain accepted. */
    v.nbytes = afmt_checked_mul_u64(v.count, v.elsize, &size) == 0 ? size : 0;
    *dst = v;
}

static int transformed_to_plain(const afmt_array *src, afmt_order order, uint8_t *dst,
                                uint64_t dst_size, afmt_error *err);

/* ---------------------------------------------------------------- bytes */

/* ---------------------------------------------------------------- shape */

/* Check a view's shape and compute its element and total plain size. */
static int check_view(const afmt_array *a, uint64_t *esize, uint64_t *total,
                      afmt_error *err)
{
    uint64_t prod = 1;
    uint32_t i;

    if (a->block > 1)
        return afmt_fail(err, AFMT_E_TYPE, NULL, NULL, AFMT_NO_INDEX, a->offset,
                         "elements of %s are stored %" PRIu64 " to a block of %" PRIu64
                         " bytes: afmt copies them byte for byte but does not decode them",
                         afmt_array_type_name(a), a->block, a->elsize);
    if (stored_plain_size(a, total, err) != 0)
        return -1;
    *esize = plain_elsize(a);
    if (a->rank > AFMT_RANK_CAP)
        return afmt_fail(err, AFMT_E_USAGE, NULL, "rank", AFMT_NO_INDEX, a->offset,
                         "rank %" PRIu32 " exceeds %d", a->rank, AFMT_RANK_CAP);
    /* exact: a zero dim makes the product 0 whatever the others are */
    for (i = 0; i < a->rank; i++)
        if (a->dims[i] == 0)
            prod = 0;
    for (i = 0; prod != 0 && i < a->rank; i++)
        if (afmt_checked_mul_u64(prod, a->dims[i], &prod))
            return afmt_fail(err, AFMT_E_OVERFLOW, NULL, "dims", i, a->offset,
                             "product of dims overflows 64 bits");
    if (prod != a->count)
        return afmt_fail(err, AFMT_E_USAGE, NULL, "count", AFMT_NO_INDEX, a->offset,
                         "count %" PRIu64 " differs from prod(dims) = %" PRIu64,
                         a->count, prod);
    return 0;
}

/* Dims greater than 1, listed so that the last varies fastest in storage:
 * dims of size 1 do not move any element and are dropped. */
static uint32_t storage_shape(const afmt_array *a, uint64_t *s)
{
    uint32_t i, n = 0;

    for (i = 0; i < a->rank; i++) {
        uint64_t d = a->order == AFMT_COL_MAJOR ? a->dims[a->rank - 1 - i] : a->dims[i];
        if (d != 1)
            s[n++] = d;
    }
    return n;
}

/* ---------------------------------------------------------------- transpose */

/* Reverse the axes of a row-major array of shape s[0..n-1] (n >= 2): the
 * result is row-major with shape s[n-1..0], i.e. the same logical array in
 * the other order.  For each index of the middle axes this is a 2-d
 * transpose between the first and the last axis.  Only the destination
 * slabs k0 <= k < k1 of the first result axis (the source's last) are
 * written, to dst + (k - k0) * slab bytes, so the result can be produced in
 * pieces; comp byte-swaps on the way (see afmt_transpose2d). */
static void reverse_axes(const uint8_t *src, uint8_t *dst, const uint64_t *s,
                         uint32_t n, uint64_t es, unsigned comp, uint64_t k0,
                         uint64_t k1, int stream)
{
    uint64_t a = s[0], c = s[n - 1], mid = 1, m, dmid = 0;
    uint64_t idx[AFMT_RANK_CAP], colstride[AFMT_RANK_CAP];
    uint32_t t;

    /* Middle axes 1..n-2: in the source their row-major offset is simply
     * the loop counter m; in the destination they appear reversed, i.e. at
     * their column-major offset dmid, kept up to date like an odometer. */
    for (t = 1; t + 1 < n; t++) {
        colstride[t] = mid;
        idx[t] = 0;
        mid *= s[t];
    }
    for (m = 0; m < mid; m++) {
        afmt_transpose2d(src + (m * c + k0) * es, mid * c, dst + dmid * a * es, mid * a,
                         a, k1 - k0, es, comp, stream);
        for (t = n - 2; t >= 1; t--) {
            if (++idx[t] < s[t]) {
                dmid += colstride[t];
                break;
            }
            dmid -= (s[t] - 1) * colstride[t];
            idx[t] = 0;
        }
    }
}

/* Large results go out with non-temporal stores: they do not fit a cache,
 * and the caller reads them again only after the whole transpose. */
#define STREAM_FROM ((uint64_t)32 << 20)

/* Copy buf (src's storage order, plain, byte order comp) to dst in
 * `order`, native. */
static void reorder(const afmt_array *a, afmt_order order, const uint8_t *buf,
                    uint8_t *dst, uint64_t es, uint64_t total, unsigned comp)
{
    uint64_t s[AFMT_RANK_CAP];
    uint32_t n = storage_shape(a, s);

    if (n < 2 || a->order == order)
        afmt_swap_copy(dst, buf, total, comp);
    else
        reverse_axes(buf, dst, s, n, es, comp, 0, s[n - 1], total >= STREAM_FROM);
}

static int needs_reorder(const afmt_array *a, afmt_order order)
{
    uint64_t s[AFMT_RANK_CAP];
    return a->order != order && storage_shape(a, s) >= 2;
}

/* ---------------------------------------------------------------- decoders */

/* PLAIN (strided and/or foreign byte order) into out, storage order. */
static int decode_plain(const afmt_array *a, uint8_t *out, uint64_t es,
                        uint64_t total, unsigned comp, afmt_error *err)
{
    uint64_t stride = a->stride ? a->stride : es, need, k;
    const uint8_t *s = a->data;

    if (a->dtype != AFMT_OPAQUE && a->elsize != 0 && a->elsize != es)
        return afmt_fail(err, AFMT_E_USAGE, NULL, "elsize", AFMT_NO_INDEX, a->offset,
                         "stored element size %" PRIu64 " differs from %s (%" PRIu64 ")",
                         a->elsize, afmt_dtype_name(a->dtype), es);
    if (stride < es)
        return afmt_fail(err, AFMT_E_USAGE, NULL, "stride", AFMT_NO_INDEX, a->offset,
                         "stride %" PRIu64 " is smaller than the element (%" PRIu64 ")",
                         stride, es);
    /* Last element ends at (count-1)*stride + es. */
    if (afmt_checked_mul_u64(a->count - 1, stride, &need) || afmt_checked_add_u64(need, es, &need))
        return afmt_fail(err, AFMT_E_OVERFLOW, NULL, NULL, AFMT_NO_INDEX, a->offset,
                         "strided extent overflows 64 bits");
    if (a->nbytes < need)
        return afmt_fail(err, AFMT_E_SIZE, NULL, NULL, AFMT_NO_INDEX, a->offset,
                         "view holds %" PRIu64 " bytes, elements need %" PRIu64,
                         a->nbytes, need);
    if (stride == es) {
        afmt_swap_copy(out, s, total, comp);
        return 0;
    }
    for (k = 0; k < a->count; k++, s += stride, out += es) {
        if (comp > 1)
            afmt_swap_copy(out, s, es, comp);
        else if (es == 1)
            *out = *s;
        else
            memcpy(out, s, es);
    }
    return 0;
}

/* BITS_LSB: element k is bit k % 8 of byte k / 8. */
static int decode_bits(const afmt_array *a, uint8_t *out, afmt_error *err)
{
    uint64_t need = afmt_ceil_div_u64(a->count, 8), k, full = a->count / 8;
    const uint8_t *s = a->data;
    unsigned b;

    if (a->dtype != AFMT_BOOL)
        return afmt_fail(err, AFMT_E_USAGE, NULL, NULL, AFMT_NO_INDEX, a->offset,
                         "bit-packed view of %s; only bool is bit-packed",
                         afmt_dtype_name(a->dtype));
    if (a->nbytes < need)
        return afmt_fail(err, AFMT_E_SIZE, NULL, NULL, AFMT_NO_INDEX, a->offset,
                         "view holds %" PRIu64 " bytes, %" PRIu64 " bits need %" PRIu64,
                         a->nbytes, a->count, need);
    for (k = 0; k < full; k++, out += 8)
        for (b = 0; b < 8; b++)
            out[b] = (uint8_t)((s[k] >> b) & 1u);
    for (b = 0; b < a->count % 8; b++)
        out[b] = (uint8_t)((s[full] >> b) & 1u);
    return 0;
}

static int decode_lz4(const afmt_array *a, uint8_t *out, uint64_t es,
                      uint64_t total, unsigned comp, afmt_error *err)
{
    uint64_t bad = 0;
    const char *why = "";
    if (a->dtype != AFMT_OPAQUE && a->elsize != 0 && a->elsize != es)
        return afmt_fail(err, AFMT_E_USAGE, NULL, "elsize", AFMT_NO_INDEX, a->offset,
                         "stored element size %" PRIu64 " differs from %s (%" PRIu64 ")",
                         a->elsize, afmt_dtype_name(a->dtype), es);
    int rc = afmt_lz4_block_decode(a->data, a->nbytes, out, total, &bad, &why);
    if (rc != 0)
        return afmt_fail(err, rc == -2 ? AFMT_E_SIZE : AFMT_E_VALUE, NULL, NULL, AFMT_NO_INDEX,
                         a->offset + bad, "LZ4 block: %s", why);
    afmt_swap_copy(out, out, total, comp);
    return 0;
}

/* Decode any non-CSR view into out, in the view's storage order. */
static int decode_storage(const afmt_array *a, uint8_t *out, uint64_t es,
                          uint64_t total, unsigned comp, afmt_error *err)
{
    switch (a->encoding) {
    case AFMT_ENC_PLAIN:
        return decode_plain(a, out, es, total, comp, err);
    case AFMT_ENC_BITS_LSB:
        return decode_bits(a, out, err);
    case AFMT_ENC_LZ4_BLOCK:
        return decode_lz4(a, out, es, total, comp, err);
    case AFMT_ENC_TEXT:
        if (!a->text_decode)
            return afmt_fail(err, AFMT_E_USAGE, NULL, NULL, AFMT_NO_INDEX, a->offset, "text view without a parser");
        (void)comp;
        return a->text_decode(a, out, total, err);
    default:
        return afmt_fail(err, AFMT_E_USAGE, NULL, NULL, AFMT_NO_INDEX, a->offset,
                         "unknown encoding %d", (int)a->encoding);
    }
}

/* Index j of an index array of `size`-byte unsigned integers in the
 * view's byte order (MAT-files' ir and jc follow the file's). */
static uint64_t load_index(const uint8_t *p, uint64_t j, unsigned size, afmt_endian endian)
{
    p += j * size;
    switch (size) {
    case 1: return p[0];
    case 2: return endian == AFMT_BIG ? afmt_load_u16be(p) : afmt_load_u16le(p);
    case 4: return endian == AFMT_BIG ? afmt_load_u32be(p) : afmt_load_u32le(p);
    default: return endian == AFMT_BIG ? afmt_load_u64be(p) : afmt_load_u64le(p);
    }
}

/* CSR (or CSC): zero-fill, then scatter each stored value straight to
 * its place in the requested order (no transpose pass needed).  The
 * offsets run over the outer axis (rows; columns for CSC), the indices
 * name the inner one; both in the view's byte order. */
static int densify_csr(const afmt_array *a, afmt_order order, uint8_t *dst,
                       uint64_t es, uint64_t total, unsigned comp, afmt_error *err)
{
    uint64_t rows, cols, outer, inner, o, j, start, end, in, need, at;
    unsigned isz = a->csr_index_size;
    const char *what = a->csc ? "CSC" : "CSR";

    if (a->rank != 2)
        return afmt_fail(err, AFMT_E_USAGE, NULL, "rank", AFMT_NO_INDEX, a->offset,
                         "%s view of rank %" PRIu32 ", expected 2", what, a->rank);
    if (isz != 1 && isz != 2 && isz != 4 && isz != 8)
        return afmt_fail(err, AFMT_E_USAGE, NULL, "csr_index_size", AFMT_NO_INDEX,
                         a->offset, "%s index size %u is not 1, 2, 4 or 8", what, isz);
    rows = a->dims[0];
    cols = a->dims[1];
    outer = a->csc ? cols : rows;
    inner = a->csc ? rows : cols;
    if (afmt_checked_mul_u64(a->nnz, es, &need))
        return afmt_fail(err, AFMT_E_OVERFLOW, NULL, "nnz", AFMT_NO_INDEX, a->offset,
                         "%" PRIu64 " values of %" PRIu64 " bytes overflow 64 bits",
                         a->nnz, es);
    if (a->nbytes < need)
        return afmt_fail(err, AFMT_E_SIZE, NULL, "nnz", AFMT_NO_INDEX, a->offset,
                         "view holds %" PRIu64 " value bytes, %" PRIu64 " values need %" PRIu64,
                         a->nbytes, a->nnz, need);
    if (!a->csr_row_offsets || (a->nnz > 0 && (!a->csr_col_indices || !a->data)))
        return afmt_fail(err, AFMT_E_USAGE, NULL, NULL, AFMT_NO_INDEX, a->offset,
                         "%s view without index arrays", what);
    memset(dst, 0, total);
    for (o = 0; o < outer; o++) {
        start = load_index(a->csr_row_offsets, o, isz, a->endian);
        end = load_index(a->csr_row_offsets, o + 1, isz, a->endian);
        if (start > end || end > a->nnz)
            return afmt_fail(err, AFMT_E_CONSTRAINT, NULL, "csr_row_offsets", o + 1,
                             a->offset, "%s %" PRIu64 " spans [%" PRIu64 ", %" PRIu64
                             "), outside [0, nnz = %" PRIu64 "]",
                             a->csc ? "column" : "row", o, start, end, a->nnz);
        for (j = start; j < end; j++) {
            in = load_index(a->csr_col_indices, j, isz, a->endian);
            if (in >= inner)
                return afmt_fail(err, AFMT_E_CONSTRAINT, NULL, "csr_col_indices", j,
                                 a->offset, "%s %" PRIu64 " >= %s = %" PRIu64,
                                 a->csc ? "row" : "column", in, a->csc ? "rows" : "cols", inner);
            {
                uint64_t r = a->csc ? in : o, c = a->csc ? o : in;
                at = order == AFMT_COL_MAJOR ? c * rows + r : r * cols + c;
            }
            afmt_swap_copy(dst + at * es, a->data + j * es, es, comp);
        }
    }
    return 0;
}

/* COO: zero-fill, then scatter each record's value to its place; every
 * index is checked against the shape here too, so a hand-made view cannot
 * write out of bounds. */
static int densify_coo(const afmt_array *a, afmt_order order, uint8_t *dst,
                       uint64_t es, uint64_t total, unsigned comp, afmt_error *err)
{
    uint64_t rows, cols, k, need, vo;
    unsigned isz = a->coo_index_size;
    if (a->rank != 2 || (isz != 1 && isz != 2 && isz != 4 && isz != 8))
        return afmt_fail(err, AFMT_E_USAGE, NULL, NULL, AFMT_NO_INDEX, a->offset,
                         "COO view must be of rank 2 with index size 1, 2, 4 or 8");
    rows = a->dims[0];
    cols = a->dims[1];
    vo = isz * (a->coo_has_col ? 2u : 1u);
    if (a->coo_stride < vo + es || afmt_checked_mul_u64(a->nnz, a->coo_stride, &need) || a->nbytes < need)
        return afmt_fail(err, AFMT_E_SIZE, NULL, NULL, AFMT_NO_INDEX, a->offset,
                         "COO view of %" PRIu64 " records does not fit its %" PRIu64 " bytes", a->nnz, a->nbytes);
    memset(dst, 0, total);
    for (k = 0; k < a->nnz; k++) {
        const uint8_t *rec = a->data + k * a->coo_stride;
        uint64_t r = load_index(rec, 0, isz, AFMT_LITTLE),
                 c = a->coo_has_col ? load_index(rec + isz, 0, isz, AFMT_LITTLE) : 0, at;
        if (r >= rows || c >= cols)
            return afmt_fail(err, AFMT_E_CONSTRAINT, NULL, "coo", k, a->offset + k * a->coo_stride,
                             "record (%" PRIu64 ", %" PRIu64 ") outside %" PRIu64 " x %" PRIu64, r, c, rows, cols);
        at = order == AFMT_COL_MAJOR ? c * rows + r : r * cols + c;
        afmt_swap_copy(dst + at * es, rec + vo, es, comp);
    }
    return 0;
}

/* A strided view (afmt_array.strided): every element is looked up through
 * the strides, so first prove that the last one lies inside the payload
 * (a hand-made view may say anything), then walk the logical index in the
 * requested order with an odometer: no recursion, no allocation. */
static int strided_extent(const afmt_array *a, uint64_t es, afmt_error *err)
{
    uint64_t last = 0, step, need;
    uint32_t k;

    for (k = 0; k < a->rank; k++) {
        if (a->dims[k] == 0)
            return 0; /* no element: nothing is read */
        if (afmt_checked_mul_u64(a->dims[k] - 1, a->strides[k], &step) || afmt_checked_add_u64(last, step, &last))
            return afmt_fail(err, AFMT_E_OVERFLOW, NULL, "strides", k, a->offset,
                             "the last element's position overflows 64 bits");
    }
    if (afmt_checked_add_u64(last, 1, &need) || afmt_checked_mul_u64(need, es, &need) || need > a->nbytes)
        return afmt_fail(err, AFMT_E_SIZE, NULL, "strides", AFMT_NO_INDEX, a->offset,
                         "a strided view reaches element %" PRIu64 " of a payload of %" PRIu64
                         " bytes (%" PRIu64 " bytes each)", last, a->nbytes, es);
    return 0;
}

/* How many of the fastest axes (in order) a strided view lays out densely,
 * and the elements they hold: that many are copied in one run.  An axis
 * of one element has no stride that matters. */
static uint32_t dense_axes(const afmt_array *a, afmt_order order, uint64_t *run)
{
    uint32_t j, k;

    *run = 1;
    for (j = 0; j < a->rank; j++) {
        k = order == AFMT_COL_MAJOR ? j : a->rank - 1 - j;
        if (a->dims[k] != 1 && a->strides[k] != *run)
            break;
        *run *= a->dims[k]; /* within the count, which check_view bounded */
    }
    return j;
}

/* 1 when a strided view is its payload's first elements in one of the
 * two orders (*order: which): a contiguous tensor, or its transpose.  It
 * is then decoded as the plain view it is, not element by element. */
static int strided_is_dense(const afmt_array *a, afmt_order *order)
{
    uint64_t run;

    if (dense_axes(a, AFMT_ROW_MAJOR, &run) == a->rank) {
        *order = AFMT_ROW_MAJOR;
        return 1;
    }
    if (dense_axes(a, AFMT_COL_MAJOR, &run) == a->rank) {
        *order = AFMT_COL_MAJOR;
        return 1;
    }
    return 0;
}

static int gather_strided(const afmt_array *a, afmt_order order, uint8_t *dst, uint64_t es,
                          uint64_t total, unsigned comp, afmt_error *err)
{
    uint64_t idx[AFMT_RANK_CAP] = {0}, at = 0, n, done, run;
    uint32_t r = a->rank, inner, j, k;

    if (a->encoding != AFMT_ENC_PLAIN || (a->dtype != AFMT_OPAQUE && a->elsize != es && a->elsize != 0))
        return afmt_fail(err, AFMT_E_USAGE, NULL, NULL, AFMT_NO_INDEX, a->offset,
                         "a strided view must be plain, of unpacked elements");
    if (strided_extent(a, es, err) != 0)
        return -1;
    /* the fastest axes that are dense go in runs of `run` elements; the
     * odometer walks the others (a slice of rows: one run per row) */
    inner = dense_axes(a, order, &run);
    n = total / es;
    for (done = 0; done < n; done += run) {
        afmt_swap_copy(dst + done * es, a->data + at * es, run * es, comp);
        /* next logical index: the last axis fastest (row-major) or the first */
        for (j = inner; j < r; j++) {
            k = order == AFMT_COL_MAJOR ? j : r - 1 - j;
            if (++idx[k] < a->dims[k]) {
                at += a->strides[k];
                break;
            }
            at -= (a->dims[k] - 1) * a->strides[k];
            idx[k] = 0;
        }
    }
    return 0;
}

/* *plain: the strided view src, laid out densely in order, as the plain
 * view it is.  Its nbytes are its own elements' (a view's may run on to
 * its storage's end: a slice's does). */
static void dense_as_plain(const afmt_array *src, afmt_order order, uint64_t es, uint64_t total,
                           afmt_array *plain)
{
    *plain = *src;
    plain->strided = 0;
    plain->stride = es;
    plain->order = order;
    plain->nbytes = total;
}

/* A strided view laid out densely, as the plain view it is (in *plain);
 * NULL with err when its last element lies past its payload (refused as
 * gather_strided refuses it, naming the strides). */
static const afmt_array *as_plain_if_dense(const afmt_array *src, uint64_t es, uint64_t total,
                                           afmt_array *plain, afmt_error *err)
{
    afmt_order order;

    if (!src->strided || src->encoding != AFMT_ENC_PLAIN)
        return src;
    if (strided_extent(src, es, err) != 0)
        return NULL;
    if (!strided_is_dense(src, &order))
        return src;
    dense_as_plain(src, order, es, total, plain);
    return plain;
}

int afmt_array_dense_view(const afmt_array *src, afmt_array *plain)
{
    afmt_error err;
    afmt_order order;
    uint64_t es, total;

    afmt_error_clear(&err);
    if (!src || !plain || !src->strided || src->encoding != AFMT_ENC_PLAIN)
        return 0;
    if (check_view(src, &es, &total, &err) != 0 || strided_extent(src, es, &err) != 0 ||
        !strided_is_dense(src, &order))
        return 0;
    dense_as_plain(src, order, es, total, plain);
    return 1;
}

/* afmt_array_to_plain of the stored elements, the transform aside. */
static int stored_to_plain(const afmt_array *src, afmt_order order,
                           void *out, uint64_t dst_size, afmt_error *err)
{
    uint8_t *dst = out; /* void *: a float * or any buffer needs no cast */
    afmt_array dense;
    uint64_t es, total;
    unsigned comp;
    uint8_t *tmp;
    int rc;

    if (check_view(src, &es, &total, err) != 0)
        return -1;
    if (!(src = as_plain_if_dense(src, es, total, &dense, err)))
        return -1;
    if (dst_size < total || (!dst && total > 0))
        return afmt_fail(err, AFMT_E_USAGE, NULL, NULL, AFMT_NO_INDEX, src->offset,
                         "destination holds %" PRIu64 " bytes, %s needs %" PRIu64,
                         dst_size, afmt_dtype_name(src->dtype), total);
    if (total == 0)
        return 0;
    if (!src->data && !((src->encoding == AFMT_ENC_CSR || src->encoding == AFMT_ENC_COO) && src->nnz == 0) &&
        src->encoding != AFMT_ENC_ZEROS)
        return afmt_fail(err, AFMT_E_USAGE, NULL, NULL, AFMT_NO_INDEX, src->offset,
                         "view without data");
    /* Components to byte-swap; 1 (or 0, opaque) means none. */
    comp = afmt_dtype_get(src->dtype)->component;
    if ((src->endian == AFMT_BIG) == host_is_big())
        comp = 1;

    if (src->strided)
        return gather_strided(src, order, dst, es, total, comp, err);
    if (src->encoding == AFMT_ENC_CSR)
        return densify_csr(src, order, dst, es, total, comp, err);
    if (src->encoding == AFMT_ENC_ZEROS) {
        memset(dst, 0, total);
        return 0;
    }
    if (src->encoding == AFMT_ENC_COO)
        return densify_coo(src, order, dst, es, total, comp, err);
    if (!needs_reorder(src, order))
        return decode_storage(src, dst, es, total, comp, err);
    /* Already plain (either byte order): transpose straight from the
     * input, swapping bytes in the same pass. */
    if (src->encoding == AFMT_ENC_PLAIN &&
        (src->stride == es || src->stride == 0) &&
        (src->dtype == AFMT_OPAQUE || src->elsize == es || src->elsize == 0)) {
        if (src->nbytes < total)
            return afmt_fail(err, AFMT_E_SIZE, NULL, NULL, AFMT_NO_INDEX, src->offset,
                             "view holds %" PRIu64 " bytes, elements need %" PRIu64,
                             src->nbytes, total);
        reorder(src, order, src->data, dst, es, total, comp);
        return 0;
    }
    /* Otherwise decode in storage order first, then transpose. */
    tmp = malloc(total);
    if (!tmp)
        return afmt_fail(err, AFMT_E_NOMEM, NULL, NULL, AFMT_NO_INDEX, src->offset,
                         "cannot allocate %" PRIu64 " bytes to reorder", total);
    rc = decode_storage(src, tmp, es, total, comp, err);
    if (rc == 0)
        reorder(src, order, tmp, dst, es, total, 1);
    free(tmp);
    return rc;
}

int afmt_array_to_plain(const afmt_array *src, afmt_order order,
                        void *out, uint64_t dst_size, afmt_error *err)
{
    if (afmt_array_has_transform(src))
        return transformed_to_plain(src, order, out, dst_size, err);
    return stored_to_plain(src, order, out, dst_size, err);
}

/* The stored bytes are already the result when the view is plain,
 * contiguous, in the host's byte order (or of single-byte components) and
 * in `order` (or has fewer than two dims above 1): then afmt_file_read_array
 * may read them from the file straight into the caller's buffer. */
int afmt_array_plain_is_stored(const afmt_array *a, afmt_order order, uint64_t *total,
                               afmt_error *err)
{
    afmt_array dense;
    uint64_t es;
    unsigned comp;

    if (afmt_array_has_transform(a))
        return afmt_array_plain_size(a, total, err) != 0 ? -1 : 0;
    if (check_view(a, &es, total, err) != 0)
        return -1;
    if (!(a = as_plain_if_dense(a, es, *total, &dense, err)))
        return -1;
    comp = afmt_dtype_get(a->dtype)->component;
    if (a->encoding != AFMT_ENC_PLAIN || a->strided || (a->stride != es && a->stride != 0) ||
        (a->dtype != AFMT_OPAQUE && a->elsize != es && a->elsize != 0) ||
        (comp > 1 && (a->endian == AFMT_BIG) != host_is_big()) || needs_reorder(a, order) ||
        a->nbytes < *total || (!a->data && *total > 0))
        return 0;
    return 1;
}

/* ---------------------------------------------------------------- pieces */

/* A view that afmt_array_to_plain_part can cut: plain, contiguous, whole. */
static int part_view(const afmt_array *src, uint64_t *es, uint64_t *total,
                     afmt_error *err)
{
    if (check_view(src, es, total, err) != 0)
        return -1;
    if (afmt_array_has_transform(src))
        return afmt_fail(err, AFMT_E_UNSUPPORTED, NULL, NULL, AFMT_NO_INDEX, src->offset,
                         "arrays with a value transform are decoded whole");
    if (src->encoding != AFMT_ENC_PLAIN || src->strided || (src->stride != *es && src->stride != 0) ||
        (src->dtype != AFMT_OPAQUE && src->elsize != *es && src->elsize != 0))
        return afmt_fail(err, AFMT_E_UNSUPPORTED, NULL, NULL, AFMT_NO_INDEX, src->offset,
                         "only plain contiguous arrays are decoded in pieces");
    if (src->nbytes < *total || (*total > 0 && !src->data))
        return afmt_fail(err, AFMT_E_SIZE, NULL, NULL, AFMT_NO_INDEX, src->offset,
                         "view holds %" PRIu64 " bytes, elements need %" PRIu64,
                         src->nbytes, *total);
    return 0;
}

int afmt_array_part_unit(const afmt_array *src, afmt_order order, uint64_t *unit,
                         afmt_error *err)
{
    uint64_t es, total, s[AFMT_RANK_CAP];
    uint32_t n;

    *unit = 0;
    if (part_view(src, &es, &total, err) != 0)
        return -1;
    n = storage_shape(src, s);
    /* a transpose makes the result one slab of its first axis at a time:
     * total / s[n-1] bytes (storage_shape drops axes of 1, but an empty
     * array keeps its axis of 0: no division then) */
    *unit = n >= 2 && src->order != order && s[n - 1] > 0 ? total / s[n - 1] : es;
    if (*unit == 0)
        *unit = 1; /* an empty array: any cut will do */
    return 0;
}

int afmt_array_to_plain_part(const afmt_array *src, afmt_order order, uint64_t first,
                             void *out, uint64_t n, afmt_error *err)
{
    uint8_t *dst = out;
    uint64_t es, total, unit, end, s[AFMT_RANK_CAP];
    uint32_t rank;
    unsigned comp;

    if (afmt_array_part_unit(src, order, &unit, err) != 0 ||
        part_view(src, &es, &total, err) != 0)
        return -1;
    if (afmt_checked_add_u64(first, n, &end) || end > total || first % unit != 0 || n % unit != 0 ||
        (n > 0 && !dst))
        return afmt_fail(err, AFMT_E_USAGE, NULL, NULL, AFMT_NO_INDEX, src->offset,
                         "piece [%" PRIu64 ", +%" PRIu64 ") is not whole units of %" PRIu64
                         " bytes inside %" PRIu64, first, n, unit, total);
    if (n == 0)
        return 0;
    comp = afmt_dtype_get(src->dtype)->component;
    if ((src->endian == AFMT_BIG) == host_is_big())
        comp = 1;
    rank = storage_shape(src, s);
    if (rank < 2 || src->order == order)
        afmt_swap_copy(dst, src->data + first, n, comp);
    else
        reverse_axes(src->data, dst, s, rank, es, comp, first / unit, end / unit, 0);
    return 0;
}

/* ---------------------------------------------------------------- conversion */

/* One element as a value: an exact integer or a (complex) double.  Every
 * afmt dtype fits one of these without loss. */
typedef enum { V_INT, V_UINT, V_FLOAT } vkind;
typedef struct value {
    vkind kind;
    int64_t i;
    uint64_t u;
    double re, im;
} value;

static void read_value(afmt_dtype t, const uint8_t *p, value *v)
{
    int8_t i8; int16_t i16; int32_t i32; int64_t i64;
    uint16_t u16; uint32_t u32; uint64_t u64;
    float f[2]; double d[2];

    v->kind = V_INT;
    v->i = 0;
    v->u = 0;
    v->re = v->im = 0;
    switch (t) {
    case AFMT_BOOL: v->i = p[0]; break;
    case AFMT_I8: memcpy(&i8, p, 1); v->i = i8; break;
    case AFMT_I16: memcpy(&i16, p, 2); v->i = i16; break;
    case AFMT_I32: memcpy(&i32, p, 4); v->i = i32; break;
    case AFMT_I64: memcpy(&i64, p, 8); v->i = i64; break;
    case AFMT_U8: v->kind = V_UINT; v->u = p[0]; break;
    case AFMT_U16: v->kind = V_UINT; memcpy(&u16, p, 2); v->u = u16; break;
    case AFMT_U32: v->kind = V_UINT; memcpy(&u32, p, 4); v->u = u32; break;
    case AFMT_U64: v->kind = V_UINT; memcpy(&u64, p, 8); v->u = u64; break;
    case AFMT_F16: v->kind = V_FLOAT; memcpy(&u16, p, 2); v->re = afmt_f16_to_double(u16); break;
    case AFMT_BF16: v->kind = V_FLOAT; memcpy(&u16, p, 2); v->re = afmt_bf16_to_double(u16); break;
    case AFMT_F32: v->kind = V_FLOAT; memcpy(f, p, 4); v->re = f[0]; break;
    case AFMT_F64: v->kind = V_FLOAT; memcpy(d, p, 8); v->re = d[0]; break;
    case AFMT_C32:
        v->kind = V_FLOAT;
        memcpy(&u16, p, 2);
        v->re = afmt_f16_to_double(u16);
        memcpy(&u16, p + 2, 2);
        v->im = afmt_f16_to_double(u16);
        break;
    case AFMT_C64: v->kind = V_FLOAT; memcpy(f, p, 8); v->re = f[0]; v->im = f[1]; break;
    case AFMT_C128: v->kind = V_FLOAT; memcpy(d, p, 16); v->re = d[0]; v->im = d[1]; break;
    default: break;
    }
}

#define TWO63 9223372036854775808.0
#define TWO64 18446744073709551616.0

/* Integer value as a double, with exactness. */
static double int_to_double(const value *v, int *exact)
{
    double d;
    if (v->kind == V_INT) {
        d = (double)v->i;
        *exact = d < TWO63 && (int64_t)d == v->i;
    } else {
        d = (double)v->u;
        *exact = d < TWO64 && (uint64_t)d == v->u;
    }
    return d;
}

/* double -> float without the undefined out-of-range cast. */
static float double_to_float(double d, int *exact)
{
    /* Halfway between FLT_MAX and 2^128: from here on, round to nearest
     * even gives infinity (FLT_MAX has an odd significand). */
    const double inf_from = (double)FLT_MAX + 0x1p103;
    double mag = d < 0 ? -d : d;
    float f;

    if (d != d) {
        *exact = 1;
        return (float)d;
    }
    if (mag > FLT_MAX) {
        *exact = mag == (double)INFINITY;
        f = mag >= inf_from ? INFINITY : FLT_MAX;
        return d < 0 ? -f : f;
    }
    f = (float)d;
    *exact = (double)f == d;
    return f;
}

/* Integer range of an integer dtype. */
static void int_range(afmt_dtype t, int64_t *lo, uint64_t *hi)
{
    unsigned bits = afmt_dtype_get(t)->size * 8;
    if (afmt_dtype_get(t)->kind == AFMT_KIND_SIGNED) {
        *lo = bits == 64 ? INT64_MIN : -((int64_t)1 << (bits - 1));
        *hi = ((uint64_t)1 << (bits - 1)) - 1;
    } else if (t == AFMT_BOOL) {
        *lo = 0;
        *hi = 1;
    } else {
        *lo = 0;
        *hi = bits == 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1;
    }
}

/* Value -> integer in [lo, hi], as a two's complement bit pattern.
 * Lossy results saturate; NaN becomes 0; fractions truncate. */
static uint64_t to_int(const value *v, int64_t lo, uint64_t hi, int *exact)
{
    double d, dlo, dhi;
    int64_t t;
    uint64_t tu;

    if (v->kind == V_INT) {
        if (afmt_cmp_i64_u64(v->i, hi) > 0) { *exact = 0; return hi; }
        if (v->i < lo) { *exact = 0; return (uint64_t)lo; }
        *exact = 1;
        return (uint64_t)v->i;
    }
    if (v->kind == V_UINT) {
        *exact = v->u <= hi;
        return v->u <= hi ? v->u : hi;
    }
    d = v->re;
    *exact = v->im == 0;
    if (d != d) { *exact = 0; return 0; }
    /* hi + 1 is a power of two, so both bounds are exact doubles. */
    dlo = (double)lo;
    dhi = hi == UINT64_MAX ? TWO64 : (double)(hi / 2 + 1) * 2.0;
    if (d < dlo) { *exact = 0; return (uint64_t)lo; }
    if (d >= dhi) { *exact = 0; return hi; }
    if (lo < 0) {
        t = (int64_t)d; /* |d| < 2^63 here: defined truncation */
        if ((double)t != d) *exact = 0;
        return (uint64_t)t;
    }
    if (d <= -1.0) { *exact = 0; return 0; }
    tu = (uint64_t)d;
    if ((double)tu != d) *exact = 0;
    return tu;
}

/* Value -> real double (exactness of the integer step and of dropping an
 * imaginary part; the narrowing to the target is checked by the caller). */
static double to_real(const value *v, int *exact)
{
    if (v->kind != V_FLOAT)
        return int_to_double(v, exact);
    *exact = v->im == 0;
    return v->re;
}

static void store_int(afmt_dtype t, uint8_t *p, uint64_t bits)
{
    uint8_t u8 = (uint8_t)bits;
    uint16_t u16 = (uint16_t)bits;
    uint32_t u32 = (uint32_t)bits;
    switch (afmt_dtype_get(t)->size) {
    case 1: memcpy(p, &u8, 1); break;
    case 2: memcpy(p, &u16, 2); break;
    case 4: memcpy(p, &u32, 4); break;
    default: memcpy(p, &bits, 8); break;
    }
}

/* Write v as dtype t at p; *exact says whether the value survived. */
static void write_value(afmt_dtype t, uint8_t *p, const value *v, int *exact)
{
    int64_t lo;
    uint64_t hi;
    uint16_t h;
    float f[2];
    double d[2];
    int e1 = 1, e2 = 1, e3 = 1;

    switch (afmt_dtype_get(t)->kind) {
    case AFMT_KIND_BOOL:
    case AFMT_KIND_SIGNED:
    case AFMT_KIND_UNSIGNED:
        int_range(t, &lo, &hi);
        if (t == AFMT_BOOL && v->kind == V_FLOAT && !(v->re == 0 && v->im == 0) &&
            !(v->re == 1 && v->im == 0)) {
            /* C's notion of truth for the lossy result (NaN is true). */
            *exact = 0;
            p[0] = 1;
            return;
        }
        if (t == AFMT_BOOL && v->kind != V_FLOAT) {
            int nz = v->kind == V_INT ? v->i != 0 : v->u != 0;
            *exact = v->kind == V_INT ? (v->i == 0 || v->i == 1) : v->u <= 1;
            p[0] = (uint8_t)nz;
            return;
        }
        store_int(t, p, to_int(v, lo, hi, exact));
        return;
    case AFMT_KIND_FLOAT:
        d[0] = to_real(v, &e1);
        switch (t) {
        case AFMT_F16: e2 = afmt_double_to_f16(d[0], &h); memcpy(p, &h, 2); break;
        case AFMT_BF16: e2 = afmt_double_to_bf16(d[0], &h); memcpy(p, &h, 2); break;
        case AFMT_F32: f[0] = double_to_float(d[0], &e2); memcpy(p, f, 4); break;
        default: memcpy(p, d, 8); break;
        }
        *exact = e1 && e2;
        return;
    case AFMT_KIND_COMPLEX:
        if (v->kind == V_FLOAT) {
            d[0] = v->re;
            d[1] = v->im;
        } else {
            d[0] = int_to_double(v, &e1);
            d[1] = 0;
        }
        if (t == AFMT_C32) {
            e2 = afmt_double_to_f16(d[0], &h);
            memcpy(p, &h, 2);
            e3 = afmt_double_to_f16(d[1], &h);
            memcpy(p + 2, &h, 2);
        } else if (t == AFMT_C64) {
            f[0] = double_to_float(d[0], &e2);
            f[1] = double_to_float(d[1], &e3);
            memcpy(p, f, 8);
        } else {
            memcpy(p, d, 16);
        }
        *exact = e1 && e2 && e3;
        return;
    default:
        *exact = 0;
        return;
    }
}

static void format_value(const value *v, char *out, size_t size)
{
    if (v->kind == V_INT)
        snprintf(out, size, "%" PRId64, v->i);
    else if (v->kind == V_UINT)
        snprintf(out, size, "%" PRIu64, v->u);
    else if (v->im == 0)
        snprintf(out, size, "%.17g", v->re);
    else
        snprintf(out, size, "%.17g%+.17gi", v->re, v->im);
}

/* The general path: one element at a time through a value.  first is the
 * index of src[0] in the caller's array, for messages. */
static int convert_slow(afmt_dtype from, const uint8_t *src, afmt_dtype to,
                        uint8_t *dst, uint64_t count, uint64_t first,
                        int allow_lossy, afmt_error *err)
{
    const afmt_dtype_info *fi = afmt_dtype_get(from), *ti = afmt_dtype_get(to);
    uint64_t k;
    value v;
    int exact;
    char text[96];

    for (k = 0; k < count; k++, src += fi->size, dst += ti->size) {
        read_value(from, src, &v);
        write_value(to, dst, &v, &exact);
        if (from == AFMT_BOOL && v.i > 1) {
            /* Not a bool at all: convert as true, or refuse. */
            v.i = 1;
            write_value(to, dst, &v, &exact);
            if (!allow_lossy)
                return afmt_fail(err, AFMT_E_LOSSY, NULL, NULL, AFMT_NO_INDEX,
                                 (first + k) * fi->size, "element %" PRIu64
                                 ": byte %u is not a bool (0 or 1)",
                                 first + k, (unsigned)src[0]);
        }
        if (!exact && !allow_lossy) {
            format_value(&v, text, sizeof text);
            return afmt_fail(err, AFMT_E_LOSSY, NULL, NULL, AFMT_NO_INDEX,
                             (first + k) * fi->size, "element %" PRIu64
                             ": value %s does not fit %s", first + k, text, ti->name);
        }
    }
    return 0;
}

/* Fast path for the common integer conversions: a block is loaded into
 * int64, stored with a branch-free "inexact" flag, and only a flagged block
 * is redone by convert_slow (which finds the element and applies the lossy
 * rules).  Both loops are simple enough to vectorise. */
#define FAST_BLOCK 256

static int fast_source(afmt_dtype t)
{
    return t == AFMT_BOOL || (t >= AFMT_I8 && t <= AFMT_U64);
}

static int fast_target(afmt_dtype t)
{
    return fast_source(t) || t == AFMT_F32 || t == AFMT_F64;
}

#define LOAD_LOOP(T, CHECK)                                                    \
    for (i = 0; i < n; i++) {                                                  \
        T x;                                                                   \
        memcpy(&x, p + i * sizeof x, sizeof x);                                \
        CHECK;                                                                 \
        v[i] = (int64_t)x;                                                     \
    }

/* 0 when a value does not fit int64 (or a bool byte is not 0/1). */
static int load_ints(afmt_dtype t, const uint8_t *p, uint64_t n, int64_t *v)
{
    uint64_t i, big = 0;

    switch (t) {
    case AFMT_BOOL: LOAD_LOOP(uint8_t, big |= x > 1) break;
    case AFMT_I8: LOAD_LOOP(int8_t, (void)0) break;
    case AFMT_I16: LOAD_LOOP(int16_t, (void)0) break;
    case AFMT_I32: LOAD_LOOP(int32_t, (void)0) break;
    case AFMT_I64: LOAD_LOOP(int64_t, (void)0) break;
    case AFMT_U8: LOAD_LOOP(uint8_t, (void)0) break;
    case AFMT_U16: LOAD_LOOP(uint16_t, (void)0) break;
    case AFMT_U32: LOAD_LOOP(uint32_t, (void)0) break;
    case AFMT_U64:
        /* Mask before converting so the cast is always in range. */
        for (i = 0; i < n; i++) {
            uint64_t x;
            memcpy(&x, p + i * 8, 8);
            big |= x >> 63;
            v[i] = (int64_t)(x & (uint64_t)INT64_MAX);
        }
        break;
    default: return 0;
    }
    return big == 0;
}

/* Unsigned stores go through the unsigned type (well-defined wrap); the
 * flag says whether any value changed. */
#define STORE_LOOP(T, LO, HI)                                                  \
    for (i = 0; i < n; i++) {                                                  \
        T x = (T)v[i];                                                         \
        bad |= (v[i] < (LO)) | (v[i] > (HI));                                  \
        memcpy(p + i * sizeof x, &x, sizeof x);                                \
    }

/* 0 when some value is not exactly representable in t. */
static int store_ints(afmt_dtype t, uint8_t *p, uint64_t n, const int64_t *v)
{
    /* Integers up to 2^24 / 2^53 in magnitude are exact floats; anything
     * bigger is left to the slow path, which decides exactly. */
    const int64_t f32_max = (int64_t)1 << 24, f64_max = (int64_t)1 << 53;
    uint64_t i;
    int bad = 0;

    switch (t) {
    case AFMT_BOOL: STORE_LOOP(uint8_t, 0, 1) break;
    case AFMT_I8: STORE_LOOP(uint8_t, INT8_MIN, INT8_MAX) break;
    case AFMT_I16: STORE_LOOP(uint16_t, INT16_MIN, INT16_MAX) break;
    case AFMT_I32: STORE_LOOP(uint32_t, INT32_MIN, INT32_MAX) break;
    case AFMT_I64: STORE_LOOP(uint64_t, INT64_MIN, INT64_MAX) break;
    case AFMT_U8: STORE_LOOP(uint8_t, 0, UINT8_MAX) break;
    case AFMT_U16: STORE_LOOP(uint16_t, 0, UINT16_MAX) break;
    case AFMT_U32: STORE_LOOP(uint32_t, 0, (int64_t)UINT32_MAX) break;
    case AFMT_U64: STORE_LOOP(uint64_t, 0, INT64_MAX) break;
    case AFMT_F32: STORE_LOOP(float, -f32_max, f32_max) break;
    case AFMT_F64: STORE_LOOP(double, -f64_max, f64_max) break;
    default: return 0;
    }
    return bad == 0;
}

/* afmt_convert_elements for elements [base, base + count) of a larger
 * array: messages and offsets name the index in that array. */
static int convert_from(afmt_dtype from, const uint8_t *src, afmt_dtype to, uint8_t *dst,
                        uint64_t count, uint64_t base, int allow_lossy, afmt_error *err)
{
    const afmt_dtype_info *fi = afmt_dtype_get(from), *ti = afmt_dtype_get(to);
    uint64_t k, m, bytes;

    if (fi->dtype == AFMT_DTYPE_INVALID || ti->dtype == AFMT_DTYPE_INVALID)
        return afmt_fail(err, AFMT_E_USAGE, NULL, NULL, AFMT_NO_INDEX, 0,
                         "invalid element type (%d -> %d)", (int)from, (int)to);
    /* Opaque bytes have no value to convert, and their size is not known
     * here: the caller copies them (same size) itself. */
    if (from == AFMT_OPAQUE || to == AFMT_OPAQUE)
        return afmt_fail(err, AFMT_E_TYPE, NULL, NULL, AFMT_NO_INDEX, 0,
                         "cannot convert %s elements to %s", fi->name, ti->name);
    if (afmt_checked_mul_u64(count, fi->size > ti->size ? fi->size : ti->size, &bytes) ||
        bytes > SIZE_MAX)
        return afmt_fail(err, AFMT_E_OVERFLOW, NULL, NULL, AFMT_NO_INDEX, 0,
                         "%" PRIu64 " elements overflow the address space", count);
    if (from == to) {
        if (bytes)
            memmove(dst, src, (size_t)bytes);
        return 0;
    }
    if (from == AFMT_F32 && to == AFMT_F64) { /* widening: always exact */
        for (k = 0; k < count; k++) {
            float f;
            double d;
            memcpy(&f, src + 4 * k, 4);
            d = f;
            memcpy(dst + 8 * k, &d, 8);
        }
        return 0;
    }
    if (from == AFMT_F64 && to == AFMT_F32) {
        /* Cast only in-range values (the cast is undefined otherwise);
         * out-of-range, NaN and rounded blocks take the slow path. */
        for (k = 0; k < count; k += m) {
            const uint8_t *s = src + 8 * k;
            uint8_t *d = dst + 4 * k;
            uint64_t i;
            int bad = 0;
            m = count - k < FAST_BLOCK ? count - k : FAST_BLOCK;
            for (i = 0; i < m; i++) {
                double x;
                float f;
                int in;
                memcpy(&x, s + 8 * i, 8);
                in = (x <= FLT_MAX) & (x >= -FLT_MAX);
                f = (float)(in ? x : 0.0);
                bad |= !in | ((double)f != x);
                memcpy(d + 4 * i, &f, 4);
            }
            if (bad && convert_slow(from, s, to, d, m, base + k, allow_lossy, err) != 0)
                return -1;
        }
        return 0;
    }
    if (fast_source(from) && fast_target(to)) {
        int64_t tmp[FAST_BLOCK];
        for (k = 0; k < count; k += m) {
            const uint8_t *s = src + k * fi->size;
            uint8_t *d = dst + k * ti->size;
            m = count - k < FAST_BLOCK ? count - k : FAST_BLOCK;
            if (load_ints(from, s, m, tmp) && store_ints(to, d, m, tmp))
                continue;
            if (convert_slow(from, s, to, d, m, base + k, allow_lossy, err) != 0)
                return -1;
        }
        return 0;
    }
    return convert_slow(from, src, to, dst, count, base, allow_lossy, err);
}

int afmt_convert_elements(afmt_dtype from, const void *in,
                          afmt_dtype to, void *out, uint64_t count,
                          int allow_lossy, afmt_error *err)
{
    const uint8_t *src = in;
    uint8_t *dst = out;
    return convert_from(from, src, to, dst, count, 0, allow_lossy, err);
}

static int transformed_to_plain_as(const afmt_array *src, afmt_order order, afmt_dtype to,
                                   int allow_lossy, uint8_t *dst, uint64_t dst_size,
                                   afmt_error *err);

/* Pieces of afmt_array_to_plain_as go through a scratch buffer of about
 * this size: it stays in L2, so decode + transpose + cast read the input
 * and write the result once each. */
#define AS_PIECE ((uint64_t)256 << 10)

int afmt_array_to_plain_as(const afmt_array *src, afmt_order order, afmt_dtype to,
                           int allow_lossy, void *out, uint64_t dst_size, afmt_error *err)
{
    uint8_t *dst = out;
    const afmt_dtype_info *ti = afmt_dtype_get(to);
    uint64_t es, total, unit, need, first, n, piece;
    uint8_t *tmp;
    afmt_error perr;
    int rc = 0;

    if (to == AFMT_DTYPE_INVALID || to == afmt_array_value_dtype(src))
        return afmt_array_to_plain(src, order, dst, dst_size, err);
    if (afmt_array_has_transform(src))
        return transformed_to_plain_as(src, order, to, allow_lossy, dst, dst_size, err);
    if (check_view(src, &es, &total, err) != 0)
        return -1;
    if (ti->dtype == AFMT_DTYPE_INVALID || to == AFMT_OPAQUE || src->dtype == AFMT_OPAQUE)
        return afmt_fail(err, AFMT_E_TYPE, NULL, NULL, AFMT_NO_INDEX, src->offset,
                         "cannot convert %s elements to %s", afmt_dtype_name(src->dtype),
                         afmt_dtype_name(to));
    if (afmt_checked_mul_u64(src->count, ti->size, &need))
        return afmt_fail(err, AFMT_E_OVERFLOW, NULL, NULL, AFMT_NO_INDEX, src->offset,
                         "%" PRIu64 " elements of %u bytes overflow 64 bits", src->count,
                         (unsigned)ti->size);
    if (dst_size < need || (!dst && need > 0))
        return afmt_fail(err, AFMT_E_USAGE, NULL, NULL, AFMT_NO_INDEX, src->offset,
                         "destination holds %" PRIu64 " bytes, %s needs %" PRIu64,
                         dst_size, ti->name, need);
    if (total == 0)
        return 0;
    afmt_error_clear(&perr);
    if (afmt_array_part_unit(src, order, &unit, &perr) != 0) {
        /* not plain: decode it whole, then cast */
        tmp = malloc((size_t)total);
        if (!tmp)
            return afmt_fail(err, AFMT_E_NOMEM, NULL, NULL, AFMT_NO_INDEX, src->offset,
                             "cannot allocate %" PRIu64 " bytes to decode", total);
        rc = afmt_array_to_plain(src, order, tmp, total, err);
        if (rc == 0)
            rc = convert_from(src->dtype, tmp, to, dst, src->count, 0, allow_lossy, err);
        free(tmp);
        return rc;
    }
    /* whole units of the transpose, as many as fit the scratch (at least one) */
    piece = unit >= AS_PIECE ? unit : AS_PIECE / unit * unit;
    if (piece > total)
        piece = total;
    tmp = malloc((size_t)piece);
    if (!tmp)
        return afmt_fail(err, AFMT_E_NOMEM, NULL, NULL, AFMT_NO_INDEX, src->offset,
                         "cannot allocate %" PRIu64 " bytes to decode", piece);
    for (first = 0; first < total && rc == 0; first += n) {
        n = total - first < piece ? total - first : piece;
        rc = afmt_array_to_plain_part(src, order, first, tmp, n, err);
        if (rc == 0)
            rc = convert_from(src->dtype, tmp, to, dst + first / es * ti->size, n / es,
                              first / es, allow_lossy, err);
    }
    free(tmp);
    return rc;
}

/* ---------------------------------------------------------------- transforms */

/* The kinds of value transform a view can carry (afmt.h, "Value transforms"). */
typedef enum { XF_NONE, XF_WIDEN, XF_FLIP, XF_SCALE, XF_BAD } xf_kind;

/* An integer convention: stored and logical integers of one size and
 * opposite signedness, scale 1, zero +2^(bits-1) from signed storage or
 * -2^(bits-1) from unsigned (a power of two: exact in a double). */
static int is_flip(const afmt_array *a)
{
    const afmt_dtype_info *si = afmt_dtype_get(a->dtype), *li = afmt_dtype_get(a->logical);
    double half;
    int sign;

    if (!a->scaled || a->scale != 1.0 || si->size != li->size || si->size == 0 || si->size > 8)
        return 0;
    if (!((si->kind == AFMT_KIND_SIGNED && li->kind == AFMT_KIND_UNSIGNED) ||
          (si->kind == AFMT_KIND_UNSIGNED && li->kind == AFMT_KIND_SIGNED)))
        return 0;
    half = (double)((uint64_t)1 << (si->size * 8 - 1));
    sign = si->kind == AFMT_KIND_SIGNED ? 1 : -1;
    return a->zero == sign * half;
}

static xf_kind xf_of(const afmt_array *a)
{
    const afmt_dtype_info *si = afmt_dtype_get(a->dtype);

    if (!a->scaled)
        return a->logical == AFMT_DTYPE_INVALID || a->logical == a->dtype ? XF_NONE : XF_WIDEN;
    if (is_flip(a))
        return XF_FLIP;
    if ((a->logical == AFMT_F64 || a->logical == AFMT_DTYPE_INVALID) &&
        (si->kind == AFMT_KIND_SIGNED || si->kind == AFMT_KIND_UNSIGNED || si->kind == AFMT_KIND_FLOAT))
        return XF_SCALE;
    return XF_BAD;
}

afmt_dtype afmt_array_value_dtype(const afmt_array *a)
{
    if (a->scaled && a->logical == AFMT_DTYPE_INVALID)
        return AFMT_F64;
    return a->logical != AFMT_DTYPE_INVALID ? a->logical : a->dtype;
}

int afmt_array_has_transform(const afmt_array *a)
{
    return xf_of(a) != XF_NONE;
}

int afmt_array_general_scale(const afmt_array *a)
{
    return xf_of(a) == XF_SCALE;
}

int afmt_array_describe_transform(const afmt_array *a, char *out, size_t out_size)
{
    const char *stored = afmt_array_type_name(a);

    if (out && out_size)
        out[0] = '\0';
    switch (xf_of(a)) {
    case XF_NONE: return 0;
    case XF_WIDEN: return snprintf(out, out_size, "%s stored", stored);
    case XF_FLIP: return snprintf(out, out_size, "%s stored, zero %.17g", stored, a->zero);
    default: return snprintf(out, out_size, "%s stored, scale %.17g, zero %.17g", stored, a->scale, a->zero);
    }
}

/* The integer conventions in place: the top bit of each element flipped
 * (i16 + 32768 is u16 bit for bit but for that bit; exact for 2^63). */
static void flip_top_bits(uint8_t *p, uint64_t count, unsigned size)
{
    uint64_t k;
    for (k = 0; k < count; k++, p += size) {
        if (host_is_big())
            p[0] ^= 0x80;
        else
            p[size - 1] ^= 0x80;
    }
}

/* value = zero + scale * stored, each rounded once in a double (as
 * cfitsio and astropy compute it), from count plain native elements. */
static void scale_values(const afmt_array *a, const uint8_t *src, uint8_t *dst, uint64_t count)
{
    uint64_t k, es = afmt_dtype_get(a->dtype)->size;
    value v;
    double d;
    int exact;

    for (k = 0; k < count; k++) {
        read_value(a->dtype, src + k * es, &v);
        d = a->zero + a->scale * (v.kind == V_FLOAT ? v.re : int_to_double(&v, &exact));
        memcpy(dst + k * sizeof d, &d, sizeof d); /* dst: any alignment */
    }
}

/* The stored elements of a transformed view, decoded plain into a fresh
 * buffer (*out, freed by the caller) of *size bytes. */
static int stored_copy(const afmt_array *src, afmt_order order, uint8_t **out, uint64_t *size,
                       afmt_error *err)
{
    *out = NULL;
    if (stored_plain_size(src, size, err) != 0)
        return -1;
    if (*size > SIZE_MAX || !(*out = malloc(*size ? (size_t)*size : 1)))
        return afmt_fail(err, AFMT_E_NOMEM, NULL, NULL, AFMT_NO_INDEX, src->offset,
                         "cannot allocate %" PRIu64 " bytes to decode the stored elements", *size);
    if (stored_to_plain(src, order, *out, *size, err) != 0) {
        free(*out);
        *out = NULL;
        return -1;
    }
    return 0;
}

static int transformed_to_plain(const afmt_array *src, afmt_order order, uint8_t *dst,
                                uint64_t dst_size, afmt_error *err)
{
    const xf_kind k = xf_of(src);
    uint64_t total, ssize;
    uint8_t *tmp;
    int rc;

    if (k == XF_BAD)
        return afmt_fail(err, AFMT_E_USAGE, NULL, "logical", AFMT_NO_INDEX, src->offset,
                         "no value transform makes %s stored elements %s (scale %.17g, zero %.17g)",
                         afmt_dtype_name(src->dtype), afmt_dtype_name(afmt_array_value_dtype(src)),
                         src->scale, src->zero);
    if (src->imag)
        return afmt_fail(err, AFMT_E_UNSUPPORTED, NULL, "imag", AFMT_NO_INDEX, src->offset,
                         "planar complex views are not decoded yet");
    if (afmt_array_plain_size(src, &total, err) != 0)
        return -1;
    if (dst_size < total || (!dst && total > 0))
        return afmt_fail(err, AFMT_E_USAGE, NULL, NULL, AFMT_NO_INDEX, src->offset,
                         "destination holds %" PRIu64 " bytes, %s needs %" PRIu64, dst_size,
                         afmt_dtype_name(afmt_array_value_dtype(src)), total);
    if (k == XF_FLIP) {
        /* same size: decode in place, then flip */
        if (stored_to_plain(src, order, dst, dst_size, err) != 0)
            return -1;
        flip_top_bits(dst, src->count, afmt_dtype_get(src->dtype)->size);
        return 0;
    }
    if (stored_copy(src, order, &tmp, &ssize, err) != 0)
        return -1;
    rc = 0;
    if (k == XF_WIDEN)
        rc = convert_from(src->dtype, tmp, src->logical, dst, src->count, 0, 0, err);
    else
        scale_values(src, tmp, dst, src->count);
    free(tmp);
    return rc;
}

/* The values, then cast to `to`: decoded whole (a transform is not cut in
 * pieces), one buffer of the values' plain size. */
static int transformed_to_plain_as(const afmt_array *src, afmt_order order, afmt_dtype to,
                                   int allow_lossy, uint8_t *dst, uint64_t dst_size,
                                   afmt_error *err)
{
    const afmt_dtype_info *ti = afmt_dtype_get(to);
    uint64_t total, need;
    uint8_t *tmp;
    int rc;

    if (ti->dtype == AFMT_DTYPE_INVALID || to == AFMT_OPAQUE)
        return afmt_fail(err, AFMT_E_TYPE, NULL, NULL, AFMT_NO_INDEX, src->offset,
                         "cannot convert %s elements to %s",
                         afmt_dtype_name(afmt_array_value_dtype(src)), afmt_dtype_name(to));
    if (afmt_array_plain_size(src, &total, err) != 0)
        return -1;
    if (afmt_checked_mul_u64(src->count, ti->size, &need))
        return afmt_fail(err, AFMT_E_OVERFLOW, NULL, NULL, AFMT_NO_INDEX, src->offset,
                         "%" PRIu64 " elements of %u bytes overflow 64 bits", src->count,
                         (unsigned)ti->size);
    if (dst_size < need || (!dst && need > 0))
        return afmt_fail(err, AFMT_E_USAGE, NULL, NULL, AFMT_NO_INDEX, src->offset,
                         "destination holds %" PRIu64 " bytes, %s needs %" PRIu64,
                         dst_size, ti->name, need);
    if (total > SIZE_MAX || !(tmp = malloc(total ? (size_t)total : 1)))
        return afmt_fail(err, AFMT_E_NOMEM, NULL, NULL, AFMT_NO_INDEX, src->offset,
                         "cannot allocate %" PRIu64 " bytes to decode", total);
    rc = transformed_to_plain(src, order, tmp, total, err);
    if (rc == 0)
        rc = convert_from(afmt_array_value_dtype(src), tmp, to, dst, src->count, 0, allow_lossy, err);
    free(tmp);
    return rc;
}
