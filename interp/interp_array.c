/* afmt reference interpreter: array items (spec/LANGUAGE.md, "array",
 * "Layouts", "Compressed payloads"): the element count, the stored bytes,
 * the view handed to the visitor, the payload taken -- in the order
 * gen/emit_validate.c's emit_array calls its steps, each layout's own
 * steps (gen/layout_*.c) one function here. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "core/afmt_gen_expr.h"
#include "interp.h"

/* What the steps of one array item share. */
typedef struct iarr {
    const item *it;
    const isym *lk;         /* the dtype lookup */
    const isym *shape;      /* the shape's array field, or NULL */
    uint64_t rank;          /* its entries that are the shape (all, or "rank") */
    uint64_t dims[AFMT_RANK_CAP + 1]; /* else the dimensions' values */
    uint64_t n;             /* elements */
    uint64_t stored;        /* elements stored */
    uint64_t nbytes;        /* bytes stored */
    int compressed;         /* one LZ4 block */
    int with_cols;          /* coo: records hold a column index */
    uint64_t record;        /* coo: bytes of a record */
    const isym *ref[2];     /* csr: row offsets, column indices */
} iarr;

/* ---- the element count */

static int count_shape_field(irun *r, iarr *a)
{
    const isym *y = isym_find(r, a->it->array.shape_field);
    const iblame b = iblame_at(y->name, AFMT_NO_INDEX, y->off);
    char text[256];
    a->shape = y;
    a->rank = y->count;
    if (a->it->array.rank) { /* the first `rank` entries (emit_validate.c, array_rank_prefix) */
        const expr *re = a->it->array.rank;
        const isym *ry = re->kind == E_NAME ? isym_find(r, re->sval) : NULL;
        const iblame rb = iblame_of(ry && ry->kind == IS_INT ? ry : NULL);
        const afmt_limits *l = &r->c->opt->limits;
        if (ieval_u64(r, &rb, re, a->it->array.rank_text, &a->rank)) return -1;
        if (a->rank > y->count)
            return ifail(r, &rb, AFMT_E_CONSTRAINT, LEN_NONE, "rank %" PRIu64 " exceeds the %" PRIu64 " entries of %s",
                         a->rank, y->count, y->name);
        if (a->rank > l->max_rank || a->rank > AFMT_RANK_CAP)
            return ifail(r, &rb, AFMT_E_LIMIT, LEN_NONE, "rank %" PRIu64 " exceeds the limit of %" PRIu64, a->rank,
                         l->max_rank < AFMT_RANK_CAP ? l->max_rank : (uint64_t)AFMT_RANK_CAP);
        snprintf(text, sizeof text, "prod(%s[0..%s))", y->name, a->it->array.rank_text);
    } else {
        snprintf(text, sizeof text, "prod(%s)", y->name);
    }
    return afmt_field_prod_c(r->c, y->name, y->off, a->rank, (unsigned)y->width, y->is_signed, y->big, b.field,
                             b.index, b.off, text, &a->n);
}

static int count_dims(irun *r, iarr *a)
{
    const array_item *ai = &a->it->array;
    afmt_count k = AFMT_COUNT_INIT;
    int i;
    for (i = 0; i < ai->nshape; i++) {
        const isym *ds = ai->shape[i]->kind == E_NAME ? isym_find(r, ai->shape[i]->sval) : NULL;
        const iblame b = iblame_of(ds && ds->kind == IS_INT ? ds : NULL);
        if (ieval_u64(r, &b, ai->shape[i], ai->shape_text[i], &a->dims[i])) return -1;
        afmt_count_dim(&k, a->dims[i], b.field, iblame_off(r, &b));
    }
    return afmt_count_end(r->c, &k, &a->n);
}

/* ---- what each layout stores (its "stored" hook) */

static int stored_csr(irun *r, iarr *a)
{
    const iblame b = iblame_pos(a->it->name);
    a->ref[0] = isym_find(r, a->it->array.row_offsets);
    a->ref[1] = isym_find(r, a->it->array.col_indices);
    if (ieval_u64(r, &b, a->it->array.nnz, a->it->array.nnz_text, &a->stored)) return -1;
    /* the index arrays fit the matrix (gen/layout_csr.c, csr_index_counts) */
    if (a->it->array.layout == LAYOUT_CSC)
        return afmt_csc_counts(r->c, a->ref[0]->name, a->ref[0]->off, a->ref[0]->count, a->ref[1]->name,
                               a->ref[1]->off, a->ref[1]->count, a->dims[1], a->stored);
    return afmt_csr_counts(r->c, a->ref[0]->name, a->ref[0]->off, a->ref[0]->count, a->ref[1]->name, a->ref[1]->off,
                           a->ref[1]->count, a->dims[0], a->stored);
}

static int stored_coo(irun *r, iarr *a)
{
    const iblame b = iblame_pos(a->it->name);
    if (ieval_u64(r, &b, a->it->array.nnz, a->it->array.nnz_text, &a->stored)) return -1;
    if (ieval_bool(r, &b, a->it->array.coo_with_cols, a->it->array.coo_with_cols_text, &a->with_cols)) return -1;
    a->record = (uint64_t)a->it->array.coo_index_width * (a->with_cols ? 2u : 1u) + a->lk->el.size;
    if (afmt_checked_mul_u64(a->stored, a->record, &a->nbytes))
        return ifail(r, &b, AFMT_E_OVERFLOW, LEN_NONE, "the records overflow 64 bits of bytes");
    return 0;
}

static int stored(irun *r, iarr *a)
{
    switch (a->it->array.layout) {
    case LAYOUT_CSR: case LAYOUT_CSC: return stored_csr(r, a);
    case LAYOUT_COO: return stored_coo(r, a);
    case LAYOUT_ZEROS: a->stored = 0; return 0;
    default: a->stored = a->n; return 0;
    }
}

/* ---- the stored bytes: an LZ4 block proved to decode, or the plain size */
static int payload_bytes(irun *r, iarr *a)
{
    const item *it = a->it;
    if (it->array.compressed) {
        const iblame b = iblame_pos(it->name);
        if (ieval_bool(r, &b, it->array.compressed, it->array.compressed_text, &a->compressed)) return -1;
        if (a->compressed) {
            if (ieval_u64(r, &b, it->array.stored, it->array.stored_text, &a->nbytes)) return -1;
            return afmt_lz4_prove(r->c, it->name, a->nbytes, a->n, a->lk->el.size);
        }
    }
    if (it->array.layout == LAYOUT_COO) return 0; /* its records' size, computed */
    return afmt_payload_bytes(r->c, it->name, a->stored, a->lk->el, &a->nbytes);
}

/* coo: every record inside the block, in strictly increasing row-major
 * order */
static int coo_records(irun *r, iarr *a)
{
    afmt_validation *c = r->c;
    const char *name = a->it->name;
    const unsigned w = (unsigned)a->it->array.coo_index_width;
    uint64_t k, prev_row = 0, prev_col = 0;
    if (!afmt_src_have(c->src, afmt_end(c), c->pos, a->nbytes))
        return afmt_src_short_ex(c->src, c->err, c->path, name, AFMT_NO_INDEX, c->pos, afmt_end(c), a->nbytes, 0,
                                 "the records", c->region);
    for (k = 0; k < a->stored; k++) {
        const uint8_t *rec = AFMT_B(c->src, c->pos + k * a->record);
        const uint64_t row = afmt_field_get(rec, 0, w, 0);
        const uint64_t col = a->with_cols ? afmt_field_get(rec + w, 0, w, 0) : 0;
        const iblame b = iblame_at(name, k, c->pos + k * a->record);
        if (row >= a->dims[0] || col >= a->dims[1])
            return ifail(r, &b, AFMT_E_CONSTRAINT, LEN_NONE,
                         "record (%" PRIu64 ", %" PRIu64 ") lies outside the %" PRIu64 " x %" PRIu64 " block", row, col,
                         a->dims[0], a->dims[1]);
        if (k > 0 && (row < prev_row || (row == prev_row && col <= prev_col)) &&
            ifail(r, &b, AFMT_E_CONSTRAINT, a->it->array.values_lenient,
                  "record (%" PRIu64 ", %" PRIu64 ") does not follow (%" PRIu64 ", %" PRIu64
                  ") in row-major order (a cell twice, or unsorted)",
                  row, col, prev_row, prev_col))
            return -1;
        prev_row = row;
        prev_col = col;
    }
    return 0;
}

/* ---- the view */

static void view_layout(irun *r, const iarr *a, afmt_array *v)
{
    if (a->compressed) v->encoding = AFMT_ENC_LZ4_BLOCK;
    if (a->it->array.layout == LAYOUT_COO) {
        v->encoding = AFMT_ENC_COO;
        v->nnz = a->stored;
        v->coo_stride = a->record;
        v->coo_index_size = (unsigned)a->it->array.coo_index_width;
        v->coo_has_col = a->with_cols;
    } else if (a->it->array.layout == LAYOUT_ZEROS) {
        v->encoding = AFMT_ENC_ZEROS;
    }
    /* an array in a block of a tiled repeat: its place in the matrix */
    if (r->tiles && a->it->array.nshape == 2) {
        const isym *row = isym_find(r, r->tiles->repeat->repeat.tile_row);
        const isym *col = isym_find(r, r->tiles->repeat->repeat.tile_col);
        if (row && col) afmt_view_tile(v, row->v, col->v, r->tiles->set);
    }
    if (a->it->array.layout == LAYOUT_CSR || a->it->array.layout == LAYOUT_CSC) {
        const isym *ro = a->ref[0], *ci = a->ref[1];
        v->csc = a->it->array.layout == LAYOUT_CSC;
        v->encoding = AFMT_ENC_CSR;
        v->nnz = a->stored;
        v->csr_row_offsets = afmt_src_ptr(r->c->src, ro->off, ro->count * (uint64_t)ro->width);
        v->csr_col_indices = afmt_src_ptr(r->c->src, ci->off, ci->count * (uint64_t)ci->width);
        v->csr_index_size = (unsigned)ro->width;
    }
}

static int view_describe(irun *r, const iarr *a, afmt_array *v)
{
    const array_item *ai = &a->it->array;
    int i;
    if (a->shape) {
        const isym *y = a->shape;
        afmt_field_desc d;
        d.name = y->name;
        d.kind = y->is_signed ? AFMT_FIELD_INT : AFMT_FIELD_UINT;
        d.width = (unsigned)y->width;
        d.is_array = 1;
        d.big_endian = y->big;
        d.doc = y->it->doc;
        if (afmt_view_dims(r->c, v, &d, y->off, a->rank)) return -1;
    } else {
        v->rank = (uint32_t)ai->nshape;
        for (i = 0; i < ai->nshape; i++) v->dims[i] = a->dims[i];
    }
    if (ai->logical_from) afmt_view_logical(v, isym_find(r, ai->logical_from)->el);
    view_layout(r, a, v);
    if (ai->name_from) {
        const isym *nm = isym_find(r, ai->name_from);
        afmt_copy_text(v->name, sizeof v->name, AFMT_B(r->c->src, nm->off),
                       nm->kind == IS_ARRF ? nm->count : (uint64_t)nm->size);
    }
    return 0;
}

/* ---- the payload: taken, its bool values scanned when asked */

static int take_checked(irun *r, const iarr *a, afmt_array *view)
{
    afmt_validation *c = r->c;
    const item *it = a->it;
    const afmt_elem el = a->lk->el;
    afmt_scan_fn scan = NULL;
    uint64_t bad, stored = a->stored;
    if (c->opt->check_values && el.dtype == AFMT_BOOL && !a->compressed)
        scan = el.enc == AFMT_ENC_BITS_LSB ? afmt_src_scan_pad_bits : afmt_src_scan_bool;
    if (afmt_take_payload(c, it->name, a->nbytes, scan, (void *)&stored, &bad)) return -1;
    if (bad < a->nbytes) {
        const iblame pb = iblame_at(it->name, AFMT_NO_INDEX, c->pos + bad), vb = iblame_at(it->name, bad, c->pos + bad);
        const int rc = el.enc == AFMT_ENC_BITS_LSB
                           ? ifail(r, &pb, AFMT_E_PADDING, it->array.values_lenient,
                                   "unused bits of the last byte (0x%02x) are not zero", c->src->bad_byte)
                           : ifail(r, &vb, AFMT_E_VALUE, it->array.values_lenient, "bool element is 0x%02x, not 0 or 1",
                                   c->src->bad_byte);
        if (rc) return -1;
    }
    if (view && afmt_view_hand(c, it->name, view, a->nbytes)) return -1;
    c->narrays++;
    c->pos += a->nbytes;
    return 0;
}

static int columns_array(irun *r, const item *it);

int irun_array(irun *r, const item *it)
{
    afmt_validation *c = r->c;
    iarr a;
    afmt_array v, *view;
    isym *y;
    if (it->array.layout == LAYOUT_COLUMNS) return columns_array(r, it);
    memset(&a, 0, sizeof a);
    a.it = it;
    a.lk = isym_find(r, it->array.dtype_from);
    if (it->array.shape_field ? count_shape_field(r, &a) : count_dims(r, &a)) return -1;
    if (stored(r, &a) || payload_bytes(r, &a)) return -1;
    if (it->array.layout == LAYOUT_COO && coo_records(r, &a)) return -1;
    view = afmt_view_begin(c, &v, a.lk->el, a.n, it->array.col_major ? AFMT_COL_MAJOR : AFMT_ROW_MAJOR,
                           afmt_order_of(c, it->array.payload_big) ? AFMT_BIG : AFMT_LITTLE, a.nbytes);
    if (view && view_describe(r, &a, view)) return -1;
    if (!it->array.check_values) {
        if (afmt_take_view(c, it->name, view, a.nbytes)) return -1;
    } else if (take_checked(r, &a, view)) {
        return -1;
    }
    y = isym_push(r, IS_PAYLOAD, it);
    (void)y;
    return 0;
}

/* ---- columns (gen/layout_columns.c): a table of columns of different
 * types stored row by row, one strided view per column */

static const table_entry *column_entry(const table *tb, uint64_t code)
{
    int i;
    for (i = 0; i < tb->nentries; i++)
        if (tb->entries[i].key[0]->ival == code) return &tb->entries[i];
    return NULL;
}

static int columns_width(irun *r, const item *it, const isym *types, const table *tb, uint64_t *width)
{
    uint64_t j;
    *width = 0;
    for (j = 0; j < types->count; j++) {
        const uint64_t code = iarrf_get(r, types, j);
        const table_entry *te = column_entry(tb, code);
        if (!te || (te->encoding && strcmp(te->encoding, "bits-lsb") == 0)) {
            const iblame b = iblame_at(types->name, j, types->off + (uint64_t)types->width * j);
            char *known = table_known_text(tb);
            const int rc = ifail(r, &b, AFMT_E_UNKNOWN_TYPE, LEN_NONE,
                                 "no entry of table %s matches (%" PRIu64 "): unknown type code%s", tb->name, code,
                                 known);
            free(known);
            return rc;
        }
        if (afmt_checked_add_u64(*width, afmt_dtype_get(afmt_dtype_from_name(te->dtype))->size, width)) {
            const iblame b = iblame_pos(it->name);
            return ifail(r, &b, AFMT_E_OVERFLOW, LEN_NONE, "the row width overflows 64 bits");
        }
    }
    return 0;
}

static int columns_views(irun *r, const item *it, const isym *types, const isym *names, const table *tb,
                         uint64_t rows, uint64_t width)
{
    afmt_validation *c = r->c;
    uint64_t j, column_offset = 0, label = names ? names->off : 0;
    for (j = 0; j < types->count; j++) {
        const afmt_dtype dtype = afmt_dtype_from_name(column_entry(tb, iarrf_get(r, types, j))->dtype);
        const uint64_t size = afmt_dtype_get(dtype)->size;
        afmt_array a;
        afmt_array_init(&a, dtype);
        a.elsize = size;
        a.rank = 1;
        a.dims[0] = rows;
        a.count = rows;
        a.order = AFMT_ROW_MAJOR;
        a.endian = afmt_order_of(c, it->array.payload_big) ? AFMT_BIG : AFMT_LITTLE;
        a.offset = rows == 0 ? c->pos : c->pos + column_offset;
        a.nbytes = rows == 0 ? 0 : (rows - 1) * width + size;
        a.data = afmt_src_ptr(c->src, a.offset, a.nbytes);
        a.stride = width;
        a.index = c->narrays++;
        if (names && j < names->count) {
            isym len = *names;
            uint64_t l;
            len.off = label;
            len.is_signed = 0;
            l = iarrf_get(r, &len, 0);
            afmt_copy_label(a.name, sizeof a.name, AFMT_B(c->src, label + (uint64_t)names->width), l);
            a.name_len = l;
            label += (uint64_t)names->width + l;
        }
        if (c->vis->on_array(c->vis->ctx, &a) != 0) {
            const iblame b = iblame_at(it->name, j, c->pos + column_offset);
            return ifail(r, &b, AFMT_E_CALLBACK, LEN_NONE, "stopped by the caller");
        }
        column_offset += size;
    }
    return 0;
}

static int columns_array(irun *r, const item *it)
{
    afmt_validation *c = r->c;
    const isym *types = isym_find(r, it->array.types_field);
    const isym *names = it->array.names_field ? isym_find(r, it->array.names_field) : NULL;
    const table *tb = find_table(r->in->s, it->array.col_table);
    const iblame b = iblame_pos(it->name);
    uint64_t rows, width, nbytes;
    isym *y;
    if (ieval_u64(r, &b, it->array.shape[0], it->array.shape_text[0], &rows)) return -1;
    if (columns_width(r, it, types, tb, &width)) return -1;
    if (afmt_checked_mul_u64(rows, width, &nbytes))
        return ifail(r, &b, AFMT_E_OVERFLOW, LEN_NONE, "rows times the row width overflows 64 bits");
    if (!afmt_src_have(c->src, afmt_end(c), c->pos, nbytes))
        return afmt_src_short_ex(c->src, c->err, c->path, it->name, AFMT_NO_INDEX, c->pos, afmt_end(c), nbytes, 0,
                                 "the rows of columns", c->region);
    if (c->vis && c->vis->on_array && columns_views(r, it, types, names, tb, rows, width)) return -1;
    c->pos += nbytes;
    y = isym_push(r, IS_PAYLOAD, it);
    (void)y;
    return 0;
}
