/* afmt-gen: the "csr" and "csc" layouts (spec/LANGUAGE.md, "Layouts"): a
 * sparse matrix as compressed sparse rows (or columns).  Only "nnz"
 * values are stored; two array fields defined before hold the row offsets
 * and column indices (csc: the column offsets and row indices, in the
 * payload's byte order; the view's csc member tells them apart).
 * See gen/layout.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "layout.h"

static int csr_resolve(emitter *m, item *it, layout_emit *le)
{
    sym *ro = sym_find(m, it->array.row_offsets), *ci = sym_find(m, it->array.col_indices);
    if (!ro || ro->kind != SY_ARRF || !ci || ci->kind != SY_ARRF) {
        gen_unchecked(m, it->jpath, "csr index fields not array fields"); /* check_array */
        return 1;
    }
    if (it->array.layout == LAYOUT_CSR &&
        (ro->width != ci->width || ro->big || ci->big || ro->is_signed || ci->is_signed))
        gen_error(m, it->jpath, "csr index arrays must be unsigned little-endian of one width");
    le->ref[0] = ro;
    le->ref[1] = ci;
    return 0;
}

/* The index arrays hold rows + 1 offsets and nnz column indices, checked
 * when the file is read: their counts are the spec's expressions, and
 * reading the matrix (afmt_densify) trusts these two. */
static void csr_index_counts(emitter *m, item *it, layout_emit *le)
{
    const sym *ro = le->ref[0], *ci = le->ref[1];
    decl_use(m, ro->off_decl);
    decl_use(m, ci->off_decl);
    const int csc = it->array.layout == LAYOUT_CSC;
    line(m, "if (afmt_%s_counts(c, \"%s\", %s, %s, \"%s\", %s, %s, %s, stored_%s)) return -1;", csc ? "csc" : "csr",
         ro->name, ro->off, ro->count, ci->name, ci->off, ci->count, le->dims[csc ? 1 : 0], it->name);
}

/* only the nnz stored values follow; n_ stays the logical count */
static void csr_stored(emitter *m, item *it, layout_emit *le)
{
    const blame bl = blame_at(it->name, NULL, NULL);
    char *nz;
    (void)le;
    m->jpath = it->jpath;
    nz = emit_u64(m, &bl, it->array.nnz, it->array.nnz_text);
    line(m, "const uint64_t stored_%s = %s;", it->name, nz);
    free(nz);
    csr_index_counts(m, it, le);
}

static void csr_view(emitter *m, item *it, layout_emit *le)
{
    const sym *ro = le->ref[0], *ci = le->ref[1];
    line(m, "a_%s.encoding = AFMT_ENC_CSR;", it->name);
    line(m, "a_%s.nnz = stored_%s;", it->name, it->name);
    line(m, "a_%s.csr_row_offsets = afmt_src_ptr(c->src, %s, %s * %d);", it->name, ro->off, ro->count, ro->width);
    line(m, "a_%s.csr_col_indices = afmt_src_ptr(c->src, %s, %s * %d);", it->name, ci->off, ci->count, ci->width);
    line(m, "a_%s.csr_index_size = %d;", it->name, ro->width);
    if (it->array.layout == LAYOUT_CSC) line(m, "a_%s.csc = 1;", it->name);
}

/* read, never written: afmt writes the dense or CSR form instead */
static void csc_write_check(emitter *m, item *a)
{
    const blame bl = blame_at(a->name, "AFMT_NO_INDEX", "0");
    char *fmt = xprintf("\"%s: afmt does not write compressed sparse columns\"", m->s->format);
    emit_fail(m, &bl, "unsupported", LEN_NONE, fmt, NULL);
    free(fmt);
}

/* Writer: a CSR view of rank 2, alone. */
static void csr_write_check(emitter *m, item *a)
{
    const blame bl = blame_at(a->name, "AFMT_NO_INDEX", "0");
    char *cond = xprintf("A_%s->encoding != AFMT_ENC_CSR || A_%s->rank != 2", a->name, a->name);
    writer_need_one(m, a);
    emit_fail_if(m, cond, &bl, "usage", LEN_NONE, "\"array %u must be a CSR view of rank 2\"", "(unsigned)ai");
    free(cond);
}

enum { CSR_OFFSETS = 1, CSR_COLS, CSR_NNZ };

/* The fields the view gives: its row offsets, column indices and nnz. */
static int csr_write_role(const item *a, const item *f)
{
    if (a->array.row_offsets && strcmp(a->array.row_offsets, f->name) == 0 && f->field.count) return CSR_OFFSETS;
    if (a->array.col_indices && strcmp(a->array.col_indices, f->name) == 0 && f->field.count) return CSR_COLS;
    if (a->array.nnz && a->array.nnz->kind == E_NAME && strcmp(a->array.nnz->sval, f->name) == 0) return CSR_NNZ;
    return 0;
}

static void csr_write_field(emitter *m, item *a, item *f, int role)
{
    const char *member = role == CSR_OFFSETS ? "csr_row_offsets" : "csr_col_indices";
    sym *y;
    if (role == CSR_NNZ) {
        writer_int(m, f, xprintf("A_%s->nnz", a->name), VT_U);
        return;
    }
    if (role == CSR_OFFSETS) line(m, "const uint64_t n_%s = A_%s->dims[0] + 1;", f->name, a->name);
    else line(m, "const uint64_t n_%s = A_%s->nnz;", f->name, a->name);
    y = sym_push(m, SY_ARRF, f->name, f);
    y->t = VT_U;
    str_printf(&y->c, "A_%s->%s", a->name, member);
    str_printf(&y->count, "n_%s", f->name);
    str_printf(&y->off, "0");
    str_printf(&y->elem, "afmt_field_get(A_%s->%s, %%s, A_%s->csr_index_size, 0)", a->name, member, a->name);
    y->width = f->field.width;
}

/* The values only, declared where nbytes() reads them; afmt_sink_csr_values
 * checks them. */
/* Whether table tb (NULL: unknown) has a bit-packed entry. */
static int has_bits(const table *tb)
{
    int i;
    for (i = 0; tb && i < tb->nentries; i++)
        if (tb->entries[i].encoding && strcmp(tb->entries[i].encoding, "bits-lsb") == 0) return 1;
    return !tb;
}

static void csr_write_size(emitter *m, item *a, sym *lk)
{
    sym *pay = sym_peek(m, a->name);
    int nbytes_decl;
    if (!lk) {
        gen_error(m, a->jpath, "the writer cannot find lookup '%s'", a->array.dtype_from ? a->array.dtype_from : "");
        return;
    }
    /* the validator reads the values of a bits-lsb type bit-packed, the
     * writer writes bytes: refused rather than written unreadable */
    if (has_bits(lk->tb)) {
        line(m, "if (%s.enc != AFMT_ENC_PLAIN) {", lk->c);
        line(m, "    return afmt_fail(err, AFMT_E_UNSUPPORTED, NULL, \"%s\", AFMT_NO_INDEX, AFMT_NO_OFFSET,", a->name);
        line(m, "            \"writing %s: the CSR values of a bit-packed type are not supported\");", m->s->format);
        line(m, "}");
        decl_use(m, lk->enc_decl);
    }
    nbytes_decl = decl_defer(m, "uint64_t nbytes_%s;", a->name);
    if (pay) pay->nbytes_decl = nbytes_decl;
    decl_needs(m, nbytes_decl, lk->decl);
    decl_line(m, nbytes_decl, "nbytes_%s = A_%s->nnz * %s.size;", a->name, a->name, lk->c);
}

static void csr_write_payload(emitter *m, item *a, sym *lk, const char *endian)
{
    (void)lk;
    line(m, "if (afmt_sink_csr_values(sink, A_%s, %s, err) != 0) return -1;", a->name, endian);
}

const layout_module layout_csr = {
    .name = "csr", .id = LAYOUT_CSR,
    .stored_by_rows = 1,
    .resolve = csr_resolve, .stored = csr_stored, .view_after_tiles = csr_view,
    .write_check = csr_write_check, .write_role = csr_write_role, .write_field = csr_write_field,
    .write_size = csr_write_size, .write_payload = csr_write_payload,
};

const layout_module layout_csc = {
    .name = "csc", .id = LAYOUT_CSC,
    .resolve = csr_resolve, .stored = csr_stored, .view_after_tiles = csr_view,
    .write_check = csc_write_check, .write_refuses = 1,
};
