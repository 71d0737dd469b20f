/* afmt-gen: the "coo" layout (spec/LANGUAGE.md, "Layouts"): a sparse
 * block as "nnz" records of (row[, column], value), indices of
 * "index" bytes little-endian, in strictly increasing row-major order.
 * See gen/layout.h. */
#include <stdlib.h>
#include "layout.h"

static void coo_stored(emitter *m, item *it, layout_emit *le)
{
    /* the records' count and size are the array's */
    const blame bl = blame_at(it->name, NULL, NULL);
    char *nz, *wc;
    m->jpath = it->jpath;
    nz = emit_u64(m, &bl, it->array.nnz, it->array.nnz_text);
    line(m, "const uint64_t stored_%s = %s;", it->name, nz);
    wc = emit_bool(m, &bl, it->array.coo_with_cols, it->array.coo_with_cols_text);
    line(m, "const int with_cols_%s = %s;", it->name, wc);
    line(m, "const uint64_t record_%s = %d * (with_cols_%s ? 2u : 1u) + %s.size;", it->name, it->array.coo_index_width,
         it->name, le->lk->c);
    line(m, "uint64_t nbytes_%s;", it->name);
    {
        char *cond = xprintf("afmt_checked_mul_u64(stored_%s, record_%s, &nbytes_%s)", it->name, it->name, it->name);
        emit_fail_if(m, cond, &bl, "overflow", LEN_NONE, "\"the records overflow 64 bits of bytes\"", NULL);
        free(cond);
    }
    free(nz);
    free(wc);
}

/* every record inside the block, in strictly increasing row-major order
 * (so no cell is given twice) */
static void coo_records(emitter *m, item *it, layout_emit *le)
{
    const int w = it->array.coo_index_width;
    const char *ld = w == 1 ? "afmt_load_u8" : w == 2 ? "afmt_load_u16le" : w == 4 ? "afmt_load_u32le" : "afmt_load_u64le";
    char *nb = xprintf("nbytes_%s", it->name), *oc, *args;
    blame bl = blame_at(it->name, NULL, NULL);
    need_bytes(m, &bl, nb, "the records");
    free(nb);
    line(m, "for (uint64_t k = 0, prev_row = 0, prev_col = 0; k < stored_%s; k++) {", it->name);
    m->indent++;
    line(m, "const uint8_t *rec = AFMT_B(c->src, c->pos + k * record_%s);", it->name);
    line(m, "const uint64_t row = %s(rec);", ld);
    line(m, "const uint64_t col = with_cols_%s ? (uint64_t)%s(rec + %d) : 0;", it->name, ld, w);
    oc = xprintf("c->pos + k * record_%s", it->name);
    bl = blame_at(it->name, "k", oc); /* a record is blamed on its index */
    free(oc);
    line(m, "if (row >= %s || col >= %s) {", le->dims[0], le->dims[1]);
    m->indent++;
    args = xprintf("row, col, %s, %s", le->dims[0], le->dims[1]);
    emit_fail(m, &bl, "constraint", LEN_NONE,
              "\"record (%\" PRIu64 \", %\" PRIu64 \") lies outside the %\" PRIu64 \" x %\" PRIu64 \" block\"", args);
    free(args);
    m->indent--;
    line(m, "}");
    line(m, "if (k > 0 && (row < prev_row || (row == prev_row && col <= prev_col))) {");
    m->indent++;
    emit_fail(m, &bl, "constraint", it->array.values_lenient,
              "\"record (%\" PRIu64 \", %\" PRIu64 \") does not follow (%\" PRIu64 \", %\" PRIu64 \") in row-major order (a cell twice, or unsorted)\"",
              "row, col, prev_row, prev_col");
    m->indent--;
    line(m, "}");
    line(m, "prev_row = row;");
    line(m, "prev_col = col;");
    m->indent--;
    line(m, "}");
}

static void coo_view(emitter *m, item *it, layout_emit *le)
{
    (void)le;
    line(m, "a_%s.encoding = AFMT_ENC_COO;", it->name);
    line(m, "a_%s.nnz = stored_%s;", it->name, it->name);
    line(m, "a_%s.coo_stride = record_%s;", it->name, it->name);
    line(m, "a_%s.coo_index_size = %d;", it->name, it->array.coo_index_width);
    line(m, "a_%s.coo_has_col = with_cols_%s;", it->name, it->name);
}

/* read, never written: afmt writes the dense or CSR form instead */
static void coo_write_check(emitter *m, item *a)
{
    const blame bl = blame_at(a->name, "AFMT_NO_INDEX", "0");
    char *fmt = xprintf("\"%s: afmt does not write COO blocks\"", m->s->format);
    emit_fail(m, &bl, "unsupported", LEN_NONE, fmt, NULL);
    free(fmt);
}

const layout_module layout_coo = {
    .name = "coo", .id = LAYOUT_COO, .stored_by_rows = 1,
    .write_check = coo_write_check, .write_refuses = 1,
    .stored = coo_stored, .computes_nbytes = 1, .records = coo_records, .view = coo_view,
};
