/* afmt-gen: the writer of counted repeats and directories
 * (spec/LANGUAGE.md, "Writing").
 *
 * A repeat with "count": FIELD whose records feed a directory is written
 * once per array given: its count field is the number of arrays, and each
 * repetition binds the record's fields to its array (the directory's
 * "name" to the array's name, "shape" to its dims, reversed when
 * "fastest-first", the lookup to its element type read backwards, block
 * types by their name and block, "offset" to where the layout puts it).
 * The directory item then writes the payloads in the same layout
 * (runtime/array/afmt_write_dir.h): the one its validator accepts in strict
 * mode.  A counted repeat nothing feeds is written with count 0.
 *
 * Vars and sets are written as the validator declares them (emit_var,
 * emit_set in emit_struct.c).
 */
#include <stdlib.h>
#include <string.h>
#include "emit.h"

/* The repeat of items[0..n) whose count is field f, or NULL. */
static const item *repeat_counted_by(item *const *items, int n, const item *f)
{
    int i;
    for (i = 0; i < n; i++) {
        const item *r = items[i];
        if (r->kind == IT_REPEAT && !r->repeat.until_end && r->arg && r->arg->kind == E_NAME && f->name &&
            strcmp(r->arg->sval, f->name) == 0)
            return r;
    }
    return NULL;
}

char *writer_count_value(const emitter *m, item *const *items, int n, const item *f)
{
    const item *r = repeat_counted_by(items, n, f);
    if (!r) return NULL;
    if (directory_of(m->s, r)) return xstrdup("(uint64_t)n"); /* a record per array */
    if (r->repeat.meta_value) return xstrdup("(uint64_t)(wopt ? wopt->n_kv : 0)"); /* the key-values given */
    return xstrdup("UINT64_C(0)");                            /* nothing to repeat */
}

/* The stand-in array of directory d's records (spec.h, dir_record). */
static item *record_array(const item *d)
{
    item *a = xcalloc(1, sizeof *a);
    a->kind = IT_ARRAY;
    a->name = d->name;
    a->jpath = d->jpath;
    a->array.dtype_from = d->dir.dtype;
    a->array.shape_field = d->dir.shape;
    a->array.name_from = d->dir.name;
    a->array.payload_big = d->dir.payload_big;
    a->array.layout = LAYOUT_DENSE;
    a->array.dir_record = 1;
    a->array.offset_from = d->dir.offset;
    a->array.dims_reversed = d->dir.fastest_first;
    a->array.rank = d->dir.rank;
    a->array.rank_text = d->dir.rank_text;
    a->array.fill = d->dir.fill;
    return a;
}

/* "unique" on a repeat the writer writes: the directory's names (the
 * arrays' names compared, prefix: the C local of the unnamed arrays'
 * prefix), else a generator error. */
static void records_unique(emitter *m, item *r, const item *d, const char *prefix)
{
    if (!r->repeat.unique) return;
    if (!d->dir.name || strcmp(r->repeat.unique, d->dir.name) != 0) {
        gen_error(m, r->jpath, "the writer keeps \"unique\" only on the directory's \"name\" field ('%s'), not on '%s'",
                  d->dir.name ? d->dir.name : "", r->repeat.unique);
        return;
    }
    /* names hold no NUL: compared as C strings and as bytes alike */
    line(m, "if (afmt_write_dir_unique_names(arrays, n, %s, \"%s\", err) != 0) return -1;", prefix, r->repeat.unique);
}

/* The records of directory d: one repetition of r per array, each at the
 * running offset of the layout.  Its alignment is evaluated here, once,
 * into a local the payloads are written with (writer_directory): the
 * offsets in the records and the payloads' places cannot differ. */
static void write_records(emitter *m, item *r, item *d)
{
    const blame bl = blame_at(d->name, "AFMT_NO_INDEX", "0");
    char *align = emit_u64(m, &bl, d->arg, d->arg_text);
    char *ab = xprintf("dir_%s_align", d->name);
    char *base = xprintf("dir_%s_end", d->name), *end = local_name(m, base);
    char *atb = xprintf("dir_%s_at", d->name), *at = local_name(m, atb);
    item *saved = m->wrecord;
    char *pb = xprintf("dir_%s_prefix", d->name), *prefix = d->dir.default_name ? local_name(m, pb) : xstrdup("NULL");
    free(d->dir.align_c);
    d->dir.align_c = local_name(m, ab);
    line(m, "/* repeat %s: a record per array, placed in directory %s */", r->name, d->name);
    line(m, "const uint64_t %s = %s; /* the records' offsets and the payloads' places */", d->dir.align_c, align);
    if (d->dir.default_name) {
        char *q = c_quote(d->dir.default_name, strlen(d->dir.default_name));
        line(m, "const char *%s = afmt_write_dir_prefix(arrays, n, %s); /* names of unnamed arrays */", prefix, q);
        free(q);
    }
    records_unique(m, r, d, prefix);
    line(m, "uint64_t %s = 0;", end);
    line(m, "for (size_t ai = 0; ai < n; ai++) {");
    m->indent++;
    line(m, "uint64_t %s;", at);
    line(m, "if (afmt_write_dir_next(&arrays[ai], \"%s\", ai, %s, &%s, &%s, err) != 0) return -1;", r->name, d->dir.align_c,
         end, at);
    m->wrecord = record_array(d);
    m->wrecord->array.offset_c = at; /* read by the record's function */
    m->wrecord->array.default_name = d->dir.default_name ? prefix : NULL;
    writer_scope_func(m, &r->body, r->name, "ai");
    free(m->wrecord);
    m->wrecord = saved;
    m->indent--;
    line(m, "}");
    free(align); free(ab); free(base); free(end); free(atb); free(at); free(pb); free(prefix);
}

/* The key-values of the write options: one repetition of metadata repeat
 * r each, in order, keys distinct when r says "unique" on its key. */
static void write_kvs(emitter *m, item *r)
{
    value_grammar g;
    item *saved = m->wkv;
    char *saved_c = m->wkv_c, *saved_g = m->wkv_grammar;
    const char *saved_type = m->wkv_type;
    if (emit_value_grammar(m, r, &g) != 0) return;
    line(m, "/* repeat %s: a key-value of the write options each */", r->name);
    if (r->repeat.unique) {
        if (!r->repeat.meta_key || strcmp(r->repeat.unique, r->repeat.meta_key) != 0) {
            gen_error(m, r->jpath, "the writer keeps \"unique\" of a metadata repeat only on its key ('%s'), not on '%s'",
                      r->repeat.meta_key ? r->repeat.meta_key : "", r->repeat.unique);
            return;
        }
        line(m, "if (wopt && afmt_kv_unique(wopt->kv, wopt->n_kv, %d, \"%s\", err) != 0) return -1;",
             r->repeat.unique_c_string, r->repeat.unique);
    }
    m->wkv_grammar = value_grammar_emit(m, &g);
    m->wkv_c = xprintf("kv_%s", r->name);
    m->wkv_type = g.type_field;
    m->wkv = r;
    line(m, "for (size_t ki = 0; wopt && ki < wopt->n_kv; ki++) {");
    m->indent++;
    line(m, "const afmt_kv *%s = &wopt->kv[ki];", m->wkv_c);
    writer_scope_func(m, &r->body, r->name, "ki");
    m->indent--;
    line(m, "}");
    m->wkv = saved;
    m->wkv_type = saved_type;
    free(m->wkv_c);
    free(m->wkv_grammar);
    m->wkv_c = saved_c;
    m->wkv_grammar = saved_g;
}

void writer_counted_repeat(emitter *m, item *r)
{
    /* the directory keeps the C name of its alignment (directory_item.align_c) */
    item *d = (item *)directory_of(m->s, r);
    if (d) {
        write_records(m, r, d);
        return;
    }
    if (r->repeat.meta_value) {
        write_kvs(m, r);
        return;
    }
    if (!r->arg || r->arg->kind != E_NAME) {
        const blame bl = blame_at(r->name, "AFMT_NO_INDEX", "0");
        char *fmt = xprintf("\"writing %s: repeated structure '%s' is not supported by the writer\"", m->s->format, r->name);
        emit_fail(m, &bl, "unsupported", LEN_NONE, fmt, NULL);
        free(fmt);
        return;
    }
    /* its count field was written as 0 (writer_count_value) */
    line(m, "/* repeat %s: none (%s is 0) */", r->name, r->arg->sval);
}

void writer_directory(emitter *m, item *d)
{
    /* the records, earlier in the same body (load_items), set align_c;
     * records the writer does not write (a repeat to the end) failed as
     * "unsupported" before this is reached */
    if (!d->dir.align_c) {
        line(m, "/* directory %s: not reached (its records are not written) */", d->name);
        return;
    }
    line(m, "/* directory %s: the payloads, each padded to the alignment */", d->name);
    line(m, "if (afmt_write_dir_write(sink, arrays, n, %s, %s, \"%s\", err) != 0) return -1;", d->dir.align_c,
         endian_c(m, d->dir.payload_big), d->name);
}
