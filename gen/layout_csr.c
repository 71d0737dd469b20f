/* afmt-gen: the "csr" layout (spec/LANGUAGE.md, "Layouts"): a sparse
 * matrix as compressed sparse rows.  Only "nnz" values are stored; two
 * array fields defined before hold the row offsets and column indices.
 * See gen/layout.h. */
#include <stdlib.h>
#include "layout.h"

static int csr_resolve(emitter *m, item *it, layout_emit *le)
{
    sym *ro = sym_find(m, it->array.row_offsets), *ci = sym_find(m, it->array.col_indices);
    if (!ro || ro->kind != SY_ARRF || !ci || ci->kind != SY_ARRF) {
        gen_error(m, it->jpath, "\"row_offsets\" and \"col_indices\" must be array fields defined before");
        return 1;
    }
    if (ro->width != ci->width || ro->big || ci->big || ro->is_signed || ci->is_signed)
        gen_error(m, it->jpath, "csr index arrays must be unsigned little-endian of one width");
    le->ref[0] = ro;
    le->ref[1] = ci;
    return 0;
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
}

static void csr_view(emitter *m, item *it, layout_emit *le)
{
    const sym *ro = le->ref[0], *ci = le->ref[1];
    line(m, "a_%s.encoding = AFMT_ENC_CSR;", it->name);
    line(m, "a_%s.nnz = stored_%s;", it->name, it->name);
    line(m, "a_%s.csr_row_offsets = afmt_src_ptr(src, %s, %s * %d);", it->name, ro->off, ro->count, ro->width);
    line(m, "a_%s.csr_col_indices = afmt_src_ptr(src, %s, %s * %d);", it->name, ci->off, ci->count, ci->width);
    line(m, "a_%s.csr_index_size = %d;", it->name, ro->width);
}

const layout_module layout_csr = {
    .name = "csr", .id = LAYOUT_CSR,
    .resolve = csr_resolve, .stored = csr_stored, .view_after_tiles = csr_view,
};
