/* afmt runtime: the steps of a generated validator that are the same for
 * every field (afmt_step.h).  The messages are the ones generated code
 * spelled out before these steps existed: tests/ hold them. */
#include "afmt_step.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "../array/afmt_array.h"
#include "../common/afmt_bytes.h"
#include "../common/afmt_dtype.h"
#include "afmt_fields.h"
#include "../compress/afmt_lz4.h"

/* The end a step was given, as it is now: the input's end (src->len) of a
 * stream is unknown until a read meets it, so one passed before the read
 * is looked up again. */
static uint64_t end_now(const afmt_src *src, uint64_t end)
{
    return end == AFMT_LEN_UNKNOWN ? src->len : end;
}

int afmt_fail_c(const afmt_validation *c, afmt_code code, const char *field, uint64_t index,
                uint64_t offset, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    afmt_failv(c->err, code, c->path, field, index, offset, fmt, ap);
    va_end(ap);
    return -1;
}

int afmt_tolerate_c(const afmt_validation *c, afmt_code code, const char *field, uint64_t index,
                    uint64_t offset, const char *fmt, ...)
{
    va_list ap;
    int rc;
    va_start(ap, fmt);
    rc = afmt_toleratev(c->opt, c->vis, c->err, code, c->path, field, index, offset, fmt, ap);
    va_end(ap);
    return rc;
}

int afmt_overflow_c(const afmt_validation *c, const char *field, uint64_t index, uint64_t offset,
                    const char *expr_text)
{
    return afmt_fail_overflow(c->err, c->path, field, index, offset, expr_text);
}

int afmt_take_field_short(afmt_validation *c, const afmt_field_desc *f, uint64_t count)
{
    afmt_src *src = c->src;
    afmt_error *err = c->err;
    const afmt_path *path = c->path;
    const afmt_region_ctx *region = c->region;
    const uint64_t pos = c->pos, end = end_now(src, afmt_end(c));
    /* an array field says its count and width, a scalar its byte count */
    if (f->is_array)
        return afmt_src_short_ex(src, err, path, f->name, AFMT_NO_INDEX, pos, end, count, f->width,
                                 f->name, region);
    return afmt_src_short_ex(src, err, path, f->name, AFMT_NO_INDEX, pos, end, f->width, 0,
                             f->name, region);
}

int afmt_take_string(afmt_validation *c, const afmt_field_desc *f, uint64_t *len)
{
    const uint64_t at = c->pos, end = afmt_end(c);
    const uint8_t *p;
    uint64_t n;
    if (!afmt_src_have(c->src, end, at, f->width))
        return afmt_src_short_ex(c->src, c->err, c->path, f->name, AFMT_NO_INDEX, at, end_now(c->src, end),
                                 f->width, 0, f->name, c->region);
    p = AFMT_B(c->src, at);
    n = afmt_field_get(p, 0, f->width, afmt_order_of(c, f->big_endian));
    /* a string the input cannot hold is truncated, whatever the limit (a
     * stream reads on to its end to tell: afmt_src_short_ex) */
    if (c->opt && n > c->opt->limits.max_header_bytes) {
        const uint64_t known = end_now(c->src, end);
        if ((known == AFMT_LEN_UNKNOWN && c->src->read) ||
            (known != AFMT_LEN_UNKNOWN && (known < at + f->width || known - (at + f->width) < n)))
            return afmt_src_short_ex(c->src, c->err, c->path, f->name, AFMT_NO_INDEX, at + f->width, known, n, 0,
                                     "a string", c->region);
        return afmt_fail_c(c, AFMT_E_LIMIT, f->name, AFMT_NO_INDEX, at,
                           "a string of %" PRIu64 " bytes exceeds the header limit of %" PRIu64
                           " bytes (limits.max_header_bytes)", n, c->opt->limits.max_header_bytes);
    }
    if (!afmt_src_have(c->src, end, at + f->width, n))
        return afmt_src_short_ex(c->src, c->err, c->path, f->name, AFMT_NO_INDEX, at + f->width,
                                 end_now(c->src, end), n, 0, "a string", c->region);
    c->pos = at + f->width + n;
    *len = n;
    if (c->opt && c->opt->fields)
        afmt_report_field(c->opt, c->path, f->name, AFMT_FIELD_BYTES, at + f->width, 0, 1,
                          n > UINT32_MAX ? UINT32_MAX : (unsigned)n, 0, AFMT_B(c->src, at + f->width), f->doc,
                          NULL);
    return 0;
}

const char *afmt_field_value_name(const afmt_field_desc *f, const uint8_t *p, int big)
{
    uint64_t v = 0;
    unsigned i, k;

    for (i = 0; i < f->width && i < 8; i++)
        v |= (uint64_t)p[big ? f->width - 1 - i : i] << (8 * i);
    if (f->kind == AFMT_FIELD_INT && f->width < 8 && (v >> (8 * f->width - 1)) & 1)
        return NULL; /* a negative value: no name is negative */
    for (k = 0; k < f->n_names; k++)
        if (f->names[k].value == v)
            return f->names[k].name;
    return NULL;
}

int afmt_text_slot_fail(const afmt_validation *c, const char *field, uint64_t offset, uint64_t bad)
{
    afmt_src *src = c->src;
    return afmt_fail(c->err, AFMT_E_VALUE, c->path, field, AFMT_NO_INDEX, offset + bad,
                     "byte %" PRIu64 " is 0x%02x: a text slot holds ASCII followed by NUL padding",
                     bad, *AFMT_B(src, offset + bad));
}

/* A stream that ended inside its regions: said as a buffer of the same
 * bytes says it when it opens the outermost region that reaches past the
 * input's end (afmt_region_open_fail), and as afmt_region_close_slow says
 * it for a stream. */
static int region_past_input(const afmt_validation *c, uint64_t input_end)
{
    const afmt_region_ctx *r = c->region;

    while (r->outer && r->outer->end > input_end)
        r = r->outer;
    return afmt_src_short(c->src, c->err, c->path, r->name, AFMT_NO_INDEX, r->end - r->size,
                          end_now(c->src, r->outer_end), r->size, r->name);
}

int afmt_padding_fail(afmt_validation *c, const char *field, int lenient, uint64_t len, int taken,
                      uint64_t nonzero)
{
    afmt_src *src = c->src;
    const afmt_options *opt = c->opt;
    const afmt_visitor *vis = c->vis;
    afmt_error *err = c->err;
    const afmt_path *path = c->path;
    uint64_t end = afmt_end(c);
    uint64_t *pos = &c->pos;
    const uint64_t at = *pos;
    if (!taken) {
        const uint64_t region_end = end;
        end = end_now(src, end);
        /* a stream must show that the bytes up to its region's end are
         * there before a padding cut by that end is tolerated: if the
         * input ends first, it is truncated, as a buffer of the same
         * bytes says when it opens the region */
        if (c->region && end > at && !afmt_src_have(src, region_end, at, end - at) && !src->io_error &&
            src->len != AFMT_LEN_UNKNOWN && src->len < region_end)
            return region_past_input(c, src->len);
        if (src->io_error)
            return afmt_src_short(src, err, path, field, AFMT_NO_INDEX, at, end, len, "padding");
        if (!lenient)
            return afmt_fail(err, AFMT_E_TRUNCATED, path, field, AFMT_NO_INDEX, at,
                             "needs %" PRIu64 " bytes of padding, only %" PRIu64 " left", len,
                             end - at);
        if (afmt_tolerate(opt, vis, err, AFMT_E_TRUNCATED, path, field, AFMT_NO_INDEX, at,
                          "needs %" PRIu64 " bytes of padding, only %" PRIu64 " left", len,
                          end - at))
            return -1;
        *pos = end;
        return 0;
    }
    /* a nonzero byte at at + nonzero */
    if (!lenient)
        return afmt_fail(err, AFMT_E_PADDING, path, field, AFMT_NO_INDEX, at + nonzero,
                         "padding byte is 0x%02x, not 0", src->bad_byte);
    if (afmt_tolerate(opt, vis, err, AFMT_E_PADDING, path, field, AFMT_NO_INDEX, at + nonzero,
                      "padding byte is 0x%02x, not 0", src->bad_byte))
        return -1;
    *pos = at + len;
    return 0;
}

int afmt_expect_end_slow(const afmt_validation *c, int lenient, int at_end)
{
    afmt_src *src = c->src;
    afmt_error *err = c->err;
    const afmt_path *path = c->path;
    const uint64_t pos = c->pos;
    if (at_end < 0) {
        /* a stream whose window is full of kept bytes cannot read the one
         * that tells the end; nothing before the trailer is read again, so
         * they may go (a valid file ending where the window did looked cut
         * short: stream_nifti1, libFuzzer) */
        afmt_src_keep_from(src, pos);
        at_end = afmt_src_at_end(src, src->len, pos);
        if (at_end > 0)
            return 0;
    }
    if (at_end < 0)
        return afmt_src_short(src, err, path, "trailer", AFMT_NO_INDEX, pos, src->len, 1,
                              "the end of the input");
    if (!lenient)
        return afmt_fail(err, AFMT_E_TRAILING, path, "trailer", AFMT_NO_INDEX, pos,
                         "%" PRIu64 " byte%s after the end of the data", afmt_src_rest(src, pos),
                         afmt_src_rest(src, pos) == 1 ? "" : "s");
    return afmt_tolerate(c->opt, c->vis, err, AFMT_E_TRAILING, path, "trailer", AFMT_NO_INDEX, pos,
                         "%" PRIu64 " byte%s after the end of the data", afmt_src_rest(src, pos),
                         afmt_src_rest(src, pos) == 1 ? "" : "s");
}

void afmt_keep_trailer(const afmt_validation *c)
{
    afmt_src *src = c->src;
    const afmt_visitor *vis = c->vis;
    if (afmt_src_at_end(src, src->len, c->pos) <= 0) {
        const uint64_t rest = afmt_src_rest(src, c->pos);
        const uint8_t *trailer = afmt_src_ptr(src, c->pos, rest);
        if (trailer && vis && vis->on_trailer)
            vis->on_trailer(vis->ctx, trailer, rest, c->pos);
    }
}

int afmt_tiles_place(const afmt_validation *c, afmt_tiles *t, const afmt_tile_fields *f, uint64_t row,
                     uint64_t col, uint64_t rows, uint64_t cols, uint64_t row_at, uint64_t col_at,
                     uint64_t rows_at, uint64_t cols_at)
{
    uint32_t other = 0;
    const int rc = afmt_tiles_add(t, row, col, rows, cols, &other);
    if (rc == AFMT_TILE_OK)
        return 0;
    if (rc == AFMT_TILE_OVERLAP)
        return afmt_fail(c->err, AFMT_E_CONSTRAINT, c->path, f->row, AFMT_NO_INDEX, row_at,
                         "block overlaps an earlier block (number %u among those with cells)",
                         (unsigned)other);
    if (rc == AFMT_TILE_TOO_MANY)
        return afmt_fail(c->err, AFMT_E_LIMIT, c->path, f->row, AFMT_NO_INDEX, row_at,
                         "more than %d blocks with cells", AFMT_TILES_CAP);
    /* outside: a block larger than the matrix blames its size; one that
     * would fit at (0, 0) its position */
    if (rows > t->rows)
        return afmt_fail(c->err, AFMT_E_CONSTRAINT, c->path, f->rows, AFMT_NO_INDEX, rows_at,
                         "block rows %" PRIu64 " + %" PRIu64 " exceed the %" PRIu64
                         " rows of the matrix", row, rows, t->rows);
    if (cols > t->cols)
        return afmt_fail(c->err, AFMT_E_CONSTRAINT, c->path, f->cols, AFMT_NO_INDEX, cols_at,
                         "block columns %" PRIu64 " + %" PRIu64 " exceed the %" PRIu64
                         " columns of the matrix", col, cols, t->cols);
    if (row > t->rows - rows)
        return afmt_fail(c->err, AFMT_E_CONSTRAINT, c->path, f->row, AFMT_NO_INDEX, row_at,
                         "block at row %" PRIu64 " with %" PRIu64 " rows ends past the %" PRIu64
                         " rows of the matrix", row, rows, t->rows);
    if (col > t->cols - cols)
        return afmt_fail(c->err, AFMT_E_CONSTRAINT, c->path, f->col, AFMT_NO_INDEX, col_at,
                         "block at column %" PRIu64 " with %" PRIu64 " columns ends past the %"
                         PRIu64 " columns of the matrix", col, cols, t->cols);
    return afmt_fail(c->err, AFMT_E_CONSTRAINT, c->path, f->row, AFMT_NO_INDEX, row_at,
                     "block lies outside the matrix");
}

const afmt_type_entry *afmt_lookup_text_fail(const afmt_validation *c, const char *table,
                                             const char *field, uint64_t index, uint64_t offset,
                                             const uint8_t *key, size_t len, const char *known)
{
    /* as the generated code it replaces: 4 characters a byte, quotes, NUL */
    char escaped[4 * 64 + 3];
    const size_t cap = len <= 64 ? len * 4 + 3 : sizeof escaped;
    afmt_escape_text(key, len, escaped, cap);
    afmt_fail(c->err, AFMT_E_UNKNOWN_TYPE, c->path, field, index, offset,
              "no entry of table %s matches (%s = %s): unknown type code%s", table, field, escaped,
              known);
    return NULL;
}

int afmt_count_overflow(const afmt_validation *c, const char *field, uint64_t offset)
{
    return afmt_fail(c->err, AFMT_E_OVERFLOW, c->path, field, AFMT_NO_INDEX, offset,
                     "the element count overflows 64 bits");
}

int afmt_csr_counts_fail(const afmt_validation *c, const char *ro_name, uint64_t ro_off, uint64_t ro_count,
                         const char *ci_name, uint64_t ci_off, uint64_t ci_count, uint64_t rows, uint64_t nnz)
{
    if (rows == UINT64_MAX || ro_count != rows + 1)
        return afmt_fail(c->err, AFMT_E_CONSTRAINT, c->path, ro_name, AFMT_NO_INDEX, ro_off,
                         "holds %" PRIu64 " row offsets, a csr array of %" PRIu64 " rows needs rows + 1",
                         ro_count, rows);
    return afmt_fail(c->err, AFMT_E_CONSTRAINT, c->path, ci_name, AFMT_NO_INDEX, ci_off,
                     "holds %" PRIu64 " column indices, a csr array of nnz = %" PRIu64 " values needs nnz",
                     ci_count, nnz);
}

int afmt_csc_counts(const afmt_validation *c, const char *co_name, uint64_t co_off, uint64_t co_count,
                    const char *ri_name, uint64_t ri_off, uint64_t ri_count, uint64_t cols, uint64_t nnz)
{
    if (cols == UINT64_MAX || co_count != cols + 1)
        return afmt_fail(c->err, AFMT_E_CONSTRAINT, c->path, co_name, AFMT_NO_INDEX, co_off,
                         "holds %" PRIu64 " column offsets, a csc array of %" PRIu64 " columns needs cols + 1",
                         co_count, cols);
    if (ri_count != nnz)
        return afmt_fail(c->err, AFMT_E_CONSTRAINT, c->path, ri_name, AFMT_NO_INDEX, ri_off,
                         "holds %" PRIu64 " row indices, a csc array of nnz = %" PRIu64 " values needs nnz",
                         ri_count, nnz);
    return 0;
}

int afmt_payload_blocks(const afmt_validation *c, const char *field, uint64_t stored, afmt_elem el, uint64_t *nbytes)
{
    const char *type = el.name ? el.name : "its type";
    *nbytes = 0;
    if (el.block == 0 || stored % el.block != 0)
        return afmt_fail_c(c, AFMT_E_CONSTRAINT, field, AFMT_NO_INDEX, c->pos,
                           "%" PRIu64 " elements are not a multiple of %" PRIu64 ", the block of %s", stored, el.block,
                           type);
    if (afmt_checked_mul_u64(stored / el.block, el.size, nbytes))
        return afmt_fail_c(c, AFMT_E_OVERFLOW, field, AFMT_NO_INDEX, c->pos,
                           "%" PRIu64 " blocks of %s (%" PRIu64 " bytes) overflow 64 bits of bytes", stored / el.block,
                           type, el.size);
    return 0;
}

int afmt_payload_bytes_overflow(const afmt_validation *c, const char *field, uint64_t stored,
                                afmt_dtype dtype)
{
    return afmt_fail(c->err, AFMT_E_OVERFLOW, c->path, field, AFMT_NO_INDEX, c->pos,
                     "%" PRIu64 " elements of %s overflow 64 bits of bytes", stored,
                     afmt_dtype_name(dtype));
}

int afmt_take_payload_short(afmt_validation *c, const char *field, uint64_t nbytes)
{
    return afmt_src_short_ex(c->src, c->err, c->path, field, AFMT_NO_INDEX, c->pos,
                             end_now(c->src, afmt_end(c)), nbytes, 0, "the payload", c->region);
}

void afmt_view_start(afmt_array *a, afmt_dtype dtype, uint64_t elsize, afmt_encoding enc,
                     uint64_t count, afmt_order order, afmt_endian endian, uint64_t nbytes,
                     uint64_t offset, uint32_t index)
{
    afmt_array_init(a, dtype);
    a->elsize = elsize;
    a->count = count;
    a->order = order;
    a->encoding = enc;
    a->endian = endian;
    a->nbytes = nbytes;
    a->offset = offset;
    a->stride = elsize;
    a->index = index;
}

/* Bits of an integer's magnitude a float holds exactly (its significand). */
static unsigned significand_bits(afmt_dtype t)
{
    switch (t) {
    case AFMT_F16: case AFMT_C32: return 11;
    case AFMT_BF16: return 8;
    case AFMT_F32: case AFMT_C64: return 24;
    case AFMT_F64: case AFMT_C128: return 53;
    default: return 0;
    }
}

/* 1 when every value of type `from` is exactly a value of type `to`:
 * a widening that no element can make fail (u8 -> f64, i16 -> f32,
 * f32 -> f64, i8 -> i32), 0 otherwise (i64 -> f64, i8 -> u16). */
static int widens_exactly(afmt_dtype from, afmt_dtype to)
{
    const afmt_dtype_info *f = afmt_dtype_get(from), *t = afmt_dtype_get(to);
    const unsigned fb = f->size * 8, tb = t->size * 8;

    if (f->kind == AFMT_KIND_OPAQUE || t->kind == AFMT_KIND_OPAQUE || t->kind == AFMT_KIND_BOOL)
        return 0;
    if (f->kind == AFMT_KIND_BOOL)
        return 1;
    if (f->kind == AFMT_KIND_SIGNED || f->kind == AFMT_KIND_UNSIGNED) {
        const unsigned mag = f->kind == AFMT_KIND_SIGNED ? fb - 1 : fb;
        if (t->kind == AFMT_KIND_SIGNED) return tb - 1 >= mag;
        if (t->kind == AFMT_KIND_UNSIGNED) return f->kind == AFMT_KIND_UNSIGNED && tb >= fb;
        return mag <= significand_bits(to);
    }
    if (f->kind == AFMT_KIND_FLOAT && (t->kind == AFMT_KIND_FLOAT || t->kind == AFMT_KIND_COMPLEX))
        return from == to || (from != AFMT_BF16 && significand_bits(to) > significand_bits(from)) ||
               (from == AFMT_BF16 && significand_bits(to) >= 24);
    if (f->kind == AFMT_KIND_COMPLEX && t->kind == AFMT_KIND_COMPLEX)
        return significand_bits(to) > significand_bits(from);
    return 0;
}

void afmt_view_logical(afmt_array *a, afmt_elem el)
{
    /* Only a widening every stored value survives: the view's values are
     * then exact and every view accepted decodes (docs/SECURITY.md, I11).
     * Another (a double class stored as miINT64) keeps the stored type,
     * whose values are the file's exactly. */
    a->logical = el.dtype != a->dtype && widens_exactly(a->dtype, el.dtype) ? el.dtype : AFMT_DTYPE_INVALID;
}

void afmt_view_type(afmt_array *a, afmt_elem el)
{
    a->block = el.block;
    if (el.name)
        snprintf(a->opaque_name, sizeof a->opaque_name, "%s", el.name);
}

int afmt_view_dims(const afmt_validation *c, afmt_array *a, const afmt_field_desc *f, uint64_t offset,
                   uint64_t n)
{
    const uint8_t *p;
    uint64_t k;
    /* the rank was held to the limits where it was read; this guard keeps
     * the copy inside a->dims whatever the spec says */
    if (n > AFMT_RANK_CAP)
        return afmt_fail(c->err, AFMT_E_LIMIT, c->path, f->name, AFMT_NO_INDEX, offset,
                         "rank %" PRIu64 " exceeds %d", n, AFMT_RANK_CAP);
    p = AFMT_B(c->src, offset);
    a->rank = (uint32_t)n;
    for (k = 0; k < n; k++) {
        const uint64_t v = afmt_field_get(p, k, f->width, afmt_order_of(c, f->big_endian));
        a->dims[k] = f->kind == AFMT_FIELD_INT ? (uint64_t)afmt_as_i64(v, f->width * 8) : v;
    }
    return 0;
}

int afmt_view_hand(const afmt_validation *c, const char *field, afmt_array *a, uint64_t nbytes)
{
    a->data = afmt_src_ptr(c->src, c->pos, nbytes);
    if (c->vis->on_array(c->vis->ctx, a) == 0)
        return 0;
    return afmt_fail(c->err, AFMT_E_CALLBACK, c->path, field, AFMT_NO_INDEX, c->pos,
                     "stopped by the caller");
}

const afmt_type_entry *afmt_type_by_dtype(const afmt_type_entry *table, size_t n, afmt_dtype dtype)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (table[i].writable && table[i].dtype == dtype)
            return &table[i];
    return NULL;
}

const afmt_type_entry2 *afmt_type_by_dtype2(const afmt_type_entry2 *table, size_t n,
                                            afmt_dtype dtype)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (table[i].writable && table[i].dtype == dtype)
            return &table[i];
    return NULL;
}

int afmt_region_open_fail(const afmt_validation *c, const afmt_region_ctx *r)
{
    const uint64_t pos = c->pos;
    return afmt_fail(c->err, AFMT_E_TRUNCATED, c->path, r->name, AFMT_NO_INDEX, pos,
                     "is %" PRIu64 " bytes long, only %" PRIu64 " left", r->size,
                     r->outer_end - pos);
}

int afmt_region_close_slow(afmt_validation *c, afmt_region_rest rest, uint64_t size_offset)
{
    afmt_src *src = c->src;
    const afmt_options *opt = c->opt;
    const afmt_visitor *vis = c->vis;
    afmt_error *err = c->err;
    const afmt_path *path = c->path;
    const afmt_region_ctx *r = c->region;
    uint64_t *pos = &c->pos;
    const uint64_t start = r->end - r->size, at = *pos;
    /* a stream learns only now whether the region it was promised is
     * there at all: if not, the input is truncated, as from a file */
    if (!afmt_src_skip_to(src, r->end))
        return afmt_src_short(src, err, path, r->name, AFMT_NO_INDEX, start,
                              end_now(src, r->outer_end), r->size, r->name);
    *pos = r->end;
    c->region = r->outer;
    if (rest == AFMT_REGION_SKIP)
        return 0;
    if (r->size_field) {
        /* the length field is what is wrong: name it, with the size the
         * content really takes */
        if (rest == AFMT_REGION_EXACT)
            return afmt_fail(err, AFMT_E_SIZE, path, r->size_field, AFMT_NO_INDEX, size_offset,
                             "%" PRIu64 " bytes of %s are not used: its content takes %" PRIu64
                             " of %s = %" PRIu64, r->end - at, r->name, at - start, r->size_field,
                             r->size);
        return afmt_tolerate(opt, vis, err, AFMT_E_SIZE, path, r->size_field, AFMT_NO_INDEX,
                             size_offset, "%" PRIu64 " bytes of %s are not used: its content takes %"
                             PRIu64 " of %s = %" PRIu64, r->end - at, r->name, at - start,
                             r->size_field, r->size) ? -1 : 0;
    }
    if (rest == AFMT_REGION_EXACT)
        return afmt_fail(err, AFMT_E_SIZE, path, r->name, AFMT_NO_INDEX, at,
                         "%" PRIu64 " bytes of the region are not used by its content",
                         r->end - at);
    return afmt_tolerate(opt, vis, err, AFMT_E_SIZE, path, r->name, AFMT_NO_INDEX, at,
                         "%" PRIu64 " bytes of the region are not used by its content",
                         r->end - at) ? -1 : 0;
}

int afmt_lz4_prove(afmt_validation *c, const char *field, uint64_t nbytes, uint64_t count,
                   uint64_t elsize)
{
    afmt_src *src = c->src;
    afmt_error *err = c->err;
    const afmt_path *path = c->path;
    const afmt_region_ctx *region = c->region;
    const uint64_t end = afmt_end(c), pos = c->pos;
    uint64_t plain, bad = 0;
    const char *why = "";
    int rc;
    if (afmt_checked_mul_u64(count, elsize, &plain))
        return afmt_fail(err, AFMT_E_OVERFLOW, path, field, AFMT_NO_INDEX, pos,
                         "the decompressed size overflows 64 bits");
    if (plain > c->opt->limits.max_decoded_bytes)
        return afmt_fail(err, AFMT_E_LIMIT, path, field, AFMT_NO_INDEX, pos,
                         "decompresses to %" PRIu64 " bytes, more than the limit of %" PRIu64 " (limits.max_decoded_bytes)",
                         plain, c->opt->limits.max_decoded_bytes);
    if (!afmt_src_have(src, end, pos, nbytes))
        return afmt_src_short_ex(src, err, path, field, AFMT_NO_INDEX, pos, end, nbytes, 0,
                                 "compressed data", region);
    rc = afmt_lz4_block_check(AFMT_B(src, pos), nbytes, plain, &bad, &why);
    if (rc == 0)
        return 0;
    if (rc == -2)
        return afmt_fail(err, AFMT_E_SIZE, path, field, AFMT_NO_INDEX, pos + bad,
                         "LZ4 block %s: it must decompress to %" PRIu64 " bytes", why, plain);
    return afmt_fail(err, AFMT_E_VALUE, path, field, AFMT_NO_INDEX, pos + bad,
                     "malformed LZ4 block: %s", why);
}

int afmt_pad_to_overflow(const afmt_validation *c, const char *field, const char *expr_text)
{
    return afmt_fail(c->err, AFMT_E_OVERFLOW, c->path, field, AFMT_NO_INDEX, c->pos,
                     "`%s` overflows 64 bits or divides by zero", expr_text);
}
