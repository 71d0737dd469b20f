/* afmt-gen: the "columns" layout (spec/LANGUAGE.md, "Layouts"): a table
 * of columns of different types stored row by row, each column's type
 * code in an array field ("types") mapped through a table ("table"), with
 * optional labels ("names").  The validator hands one strided view per
 * column.  See gen/layout.h. */
#include <stdlib.h>
#include <string.h>
#include "layout.h"
#include "util.h"

/* The row width width_<name>: the sum of the columns' element sizes, each
 * column's type code checked against the table (tname). */
static void columns_width(emitter *m, item *it, const sym *types, const table *tb, const char *tname, const char *code)
{
    char *oc = xprintf("%s + %d * j", types->off, types->width);
    char *fmt = xprintf("\"no entry of table %s matches (%%\" PRIu64 \"): unknown type code%%s\"", tb->name);
    char *args = xprintf("code_j, %s", known_table(m, tb));
    blame bl = blame_at(types->name, "j", oc);
    line(m, "uint64_t width_%s = 0;", it->name);
    line(m, "for (uint64_t j = 0; j < %s; j++) {", types->count);
    m->indent++;
    line(m, "const uint64_t code_j = %s;", code);
    line(m, "const afmt_type_entry *type_j = afmt_type_by_code(%s, %d, code_j);", tname, tb->nentries);
    emit_fail_if(m, "!type_j || type_j->enc != AFMT_ENC_PLAIN", &bl, "unknown-type", LEN_NONE, fmt, args);
    line(m, "const uint64_t size_j = afmt_dtype_get(type_j->dtype)->size;");
    bl = blame_at(it->name, "AFMT_NO_INDEX", "c->pos");
    {
        char *cond = xprintf("afmt_checked_add_u64(width_%s, size_j, &width_%s)", it->name, it->name);
        emit_fail_if(m, cond, &bl, "overflow", LEN_NONE, "\"the row width overflows 64 bits\"", NULL);
        free(cond);
    }
    m->indent--;
    line(m, "}");
    free(oc);
    free(args);
    free(fmt);
}

/* Column j's label, from the length-prefixed strings names, into a.name. */
static void columns_label(emitter *m, const sym *names)
{
    char *ld = load_c(names->width, 0, names->big, "AFMT_B(c->src, label)");
    line(m, "if (j < %s) {", names->count);
    m->indent++;
    line(m, "const uint64_t label_len = %s;", ld);
    line(m, "afmt_copy_label(a.name, sizeof a.name, AFMT_B(c->src, label + %d), label_len);", names->width);
    line(m, "a.name_len = label_len; /* a writer refuses a name cut short */");
    line(m, "label += %d + label_len;", names->width);
    m->indent--;
    line(m, "}");
    free(ld);
}

/* One strided view per column, handed to the visitor. */
static void columns_views(emitter *m, item *it, const sym *types, const sym *names, const table *tb, const char *tname,
                          const char *code)
{
    blame bl = blame_at(it->name, "j", "c->pos + column_offset");
    line(m, "if (c->vis && c->vis->on_array) {");
    m->indent++;
    line(m, "uint64_t column_offset = 0;");
    if (names) line(m, "uint64_t label = %s;", names->off);
    line(m, "for (uint64_t j = 0; j < %s; j++) {", types->count);
    m->indent++;
    line(m, "afmt_array a;");
    line(m, "const uint64_t code_j = %s;", code);
    /* a known code: the loop above has checked every one */
    line(m, "const afmt_dtype dtype_j = afmt_type_by_code(%s, %d, code_j)->dtype;", tname, tb->nentries);
    line(m, "const uint64_t size_j = afmt_dtype_get(dtype_j)->size;");
    line(m, "afmt_array_init(&a, dtype_j);");
    line(m, "a.elsize = size_j;");
    line(m, "a.rank = 1;");
    line(m, "a.dims[0] = rows_%s;", it->name);
    line(m, "a.count = rows_%s;", it->name);
    line(m, "a.order = AFMT_ROW_MAJOR;");
    line(m, "a.endian = %s;", endian_c(m, it->array.payload_big));
    /* an empty column points at the start of the (empty) data, never past
     * the input */
    line(m, "a.offset = rows_%s == 0 ? c->pos : c->pos + column_offset;", it->name);
    line(m, "a.nbytes = rows_%s == 0 ? 0 : (rows_%s - 1) * width_%s + size_j;", it->name, it->name, it->name);
    line(m, "a.data = afmt_src_ptr(c->src, a.offset, a.nbytes);");
    line(m, "a.stride = width_%s;", it->name);
    line(m, "a.index = c->narrays++;");
    if (names) columns_label(m, names);
    emit_fail_if(m, "c->vis->on_array(c->vis->ctx, &a) != 0", &bl, "callback", LEN_NONE, "\"stopped by the caller\"", NULL);
    line(m, "column_offset += size_j;");
    m->indent--;
    line(m, "}");
    m->indent--;
    line(m, "}");
}

/* A table of columns of different types, stored row by row (an array of
 * records): one strided view per column. */
static void columns_validate(emitter *m, item *it)
{
    blame bl;
    sym *types = sym_find(m, it->array.types_field ? it->array.types_field : "");
    sym *names = it->array.names_field ? sym_find(m, it->array.names_field) : NULL;
    const table *tb = find_table(m->s, it->array.col_table ? it->array.col_table : "");
    const char *tname;
    char *rows, *el, *code, *nb;
    m->jpath = it->jpath;
    if (!types || types->kind != SY_ARRF || (it->array.names_field && (!names || names->kind != SY_STRINGS)) || !tb) {
        gen_unchecked(m, it->jpath, "a table of columns' fields or table"); /* check_columns */
        return;
    }
    /* the column types go through the table the writer uses too */
    tname = type_table(m, tb, 0);
    if (!tname) {
        gen_error(m, it->jpath, "table '%s' must have one integer key and a plain dtype per entry to map a list of codes",
                  tb->name);
        return;
    }
    bl = blame_at(it->name, "AFMT_NO_INDEX", "c->pos");
    rows = emit_u64(m, &bl, it->array.shape[0], it->array.shape_text[0]);
    line(m, "const uint64_t rows_%s = %s;", it->name, rows);
    free(rows);
    el = xprintf(types->elem, "j");
    /* the element is signed (an int64_t) or unsigned: the key is its bits */
    code = xprintf("%s%s", types->is_signed ? "(uint64_t)" : "", el);
    columns_width(m, it, types, tb, tname, code);
    line(m, "uint64_t nbytes_%s;", it->name);
    {
        char *cond = xprintf("afmt_checked_mul_u64(rows_%s, width_%s, &nbytes_%s)", it->name, it->name, it->name);
        emit_fail_if(m, cond, &bl, "overflow", LEN_NONE, "\"rows times the row width overflows 64 bits\"", NULL);
        free(cond);
    }
    nb = xprintf("nbytes_%s", it->name);
    need_bytes(m, &bl, nb, "the rows of columns");
    free(nb);
    columns_views(m, it, types, names, tb, tname, code);
    line(m, "c->pos += nbytes_%s;", it->name);
    free(el);
    free(code);
    {
        sym *y = sym_push(m, SY_PAYLOAD, it->name, it);
        str_printf(&y->c, "%s", it->name);
    }
}

/* Writer: the arrays are the columns, plain 1-d ones of one length. */
static void columns_write_check(emitter *m, item *a)
{
    const blame bl = blame_at(a->name, "k", "0");
    line(m, "for (size_t k = 0; k < n; k++) {");
    m->indent++;
    emit_fail_if(m, "arrays[k].encoding != AFMT_ENC_PLAIN || arrays[k].endian != AFMT_LITTLE || "
                    "arrays[k].stride != arrays[k].elsize || arrays[k].rank != 1 || arrays[k].dims[0] != arrays[0].dims[0]",
                 &bl, "usage", LEN_NONE, "\"column %zu must be a plain, little-endian 1-d array as long as the first\"", "k");
    m->indent--;
    line(m, "}");
}

enum { COLUMN_TYPES = 1, COLUMN_NAMES };

/* The fields the arrays give: a type code and a label per column. */
static int columns_write_role(const item *a, const item *f)
{
    if (a->array.types_field && strcmp(a->array.types_field, f->name) == 0 && f->field.count) return COLUMN_TYPES;
    if (a->array.names_field && strcmp(a->array.names_field, f->name) == 0) return COLUMN_NAMES;
    return 0;
}

/* The type codes, one per array, from the table the validator reads. */
static void column_types(emitter *m, item *a, item *f)
{
    const table *tb = find_table(m->s, a->array.col_table ? a->array.col_table : "");
    const char *tname = tb ? type_table(m, tb, 0) : NULL;
    const blame bl = blame_at(f->name, "k", "0");
    sym *y;
    char *cond, *fmt;
    int i;
    if (!tname) {
        gen_error(m, f->jpath, "table '%s' must have one integer key and a plain dtype per entry to write a list of codes",
                  tb ? tb->name : "");
        return;
    }
    line(m, "const uint64_t n_%s = (uint64_t)n;", f->name);
    line(m, "for (size_t k = 0; k < n; k++) {");
    m->indent++;
    cond = xprintf("!afmt_type_by_dtype(%s, %d, arrays[k].dtype)", tname, tb->nentries);
    fmt = xprintf("\"%s cannot hold a column of type %%s\"", m->s->format);
    emit_fail_if(m, cond, &bl, "type", LEN_NONE, fmt, "afmt_dtype_name(arrays[k].dtype)");
    free(cond);
    free(fmt);
    m->indent--;
    line(m, "}");
    y = sym_push(m, SY_ARRF, f->name, f);
    y->t = VT_U;
    str_printf(&y->c, "arrays");
    str_printf(&y->count, "n_%s", f->name);
    str_printf(&y->off, "0");
    str_printf(&y->elem, "afmt_type_by_dtype(%s, %d, arrays[%%s].dtype)->code", tname, tb->nentries);
    y->width = f->field.width;
    /* a code is one of the table's: no range check where they all fit */
    y->bounded = 1;
    for (i = 0; i < tb->nentries; i++)
        if (tb->entries[i].key[0]->ival > y->max) y->max = tb->entries[i].key[0]->ival;
}

static void columns_write_field(emitter *m, item *a, item *f, int role)
{
    sym *y;
    if (role == COLUMN_TYPES) {
        column_types(m, a, f);
        return;
    }
    y = sym_push(m, SY_STRINGS, f->name, f);
    str_printf(&y->count, "(uint64_t)n"); /* a label per array */
    y->width = f->field.len_width;
}

/* the columns are written as they are: no size to compute */
static void columns_write_size(emitter *m, item *a, sym *lk)
{
    (void)m; (void)a; (void)lk;
}

static void columns_write_payload(emitter *m, item *a, sym *lk, const char *endian)
{
    (void)a; (void)lk;
    line(m, "if (afmt_sink_columns(sink, arrays, n, %s, err) != 0) return -1;", endian);
}

const layout_module layout_columns = {
    .name = "columns", .id = LAYOUT_COLUMNS,
    .validate = columns_validate,
    .write_check = columns_write_check, .write_role = columns_write_role, .write_field = columns_write_field,
    .write_size = columns_write_size, .write_payload = columns_write_payload, .write_lazy = 1,
};
