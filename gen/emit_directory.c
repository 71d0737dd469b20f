/* afmt-gen: the validator of a "directory" item (spec/LANGUAGE.md,
 * "Directories of arrays"): the arrays that a repeat's records describe,
 * placed in a data area that starts where the directory stands.
 *
 * The repeat keeps its records: before its loop a list
 * (afmt_dir_list, runtime/array/afmt_dir_records.h), and at the end of each
 * repetition's function one afmt_dir_add call with the record's values
 * (its lookup, shape, name and offset), which computes the array's size
 * and blames its overflow or block on the record's fields.  The directory
 * item itself is one afmt_dir_place call: placement, padding and views. */
#include <stdlib.h>
#include <string.h>
#include "emit.h"

/* The descriptor of directory d, in the prelude once. */
static void dir_desc(emitter *m, const item *d, const sym *shape)
{
    char *name = xprintf("%s_dir_%s", m->s->format, d->name), *def = xprintf("afmt_dir_desc %s = {", name);
    const int done = m->prelude->s && strstr(m->prelude->s, def);
    char *what = xprintf("the descriptor of directory '%s'", d->name);
    free(def);
    c_name_claim(m, name, what, d->jpath);
    free(what);
    if (done) { free(name); return; }
    sb_printf(m->prelude,
              "/* directory %s: the arrays of %s's records */\n"
              "static const afmt_dir_desc %s = {\n"
              "    .name = \"%s\",\n    .records = \"%s\",\n    .offset_field = \"%s\",\n    .shape_field = \"%s\",\n"
              "    .dims_width = %d,\n    .dims_big = %s,\n    .dims_signed = %d,\n    .fastest_first = %d,\n"
              "    .payload_big = %s,\n    .pad_lenient = %d,\n};\n\n",
              d->name, d->dir.records, name, d->name, d->dir.records, d->dir.offset, d->dir.shape, shape->width,
              shape->big == ORDER_RUN ? "AFMT_ORDER_RUN" : shape->big ? "1" : "0", shape->is_signed, d->dir.fastest_first,
              d->dir.payload_big == ORDER_RUN ? "AFMT_ORDER_RUN" : d->dir.payload_big ? "1" : "0", d->dir.pad_lenient == LEN_WARN);
    free(name);
}

void emit_dir_setup(emitter *m, item *repeat)
{
    line(m, "afmt_dir_list dl_%s;", repeat->name);
    line(m, "afmt_dir_list_init(&dl_%s);", repeat->name);
    line(m, "afmt_dir_list *const dir_%s = &dl_%s;", repeat->name, repeat->name);
}

/* A name of the record's values, of kind want (check_record), or NULL. */
static sym *record_value(emitter *m, const item *d, const char *name, sym_kind want)
{
    sym *y = name ? sym_find(m, name) : NULL;
    if (!y || y->kind != want) {
        gen_unchecked(m, d->jpath, "a directory's record value of the wrong kind");
        return NULL;
    }
    return y;
}

/* "rank": the record's array takes the first `rank` entries of its shape
 * field; the rank is evaluated at the end of the repetition, at most the
 * field's count (`constraint`) and within the rank limits (`limit`), both
 * blamed on the rank's field when it is a plain name, as an array item's
 * "rank" is (emit_validate.c, array_rank_prefix).  Returns the C local
 * holding it. */
static char *dir_rank(emitter *m, const item *d, const sym *shape)
{
    sym *ry = d->dir.rank->kind == E_NAME ? sym_peek(m, d->dir.rank->sval) : NULL;
    blame rb = blame_of(ry && ry->kind == SY_INT ? ry : NULL);
    char *r = emit_u64(m, &rb, d->dir.rank, d->dir.rank_text), *local = xprintf("dir_rank_%s", d->name), *cond, *fmt,
         *args;
    line(m, "const uint64_t %s = %s;", local, r);
    cond = xprintf("%s > %s", local, shape->count);
    fmt = xprintf("\"rank %%\" PRIu64 \" exceeds the %%\" PRIu64 \" entries of %s\"", shape->name);
    args = xprintf("%s, %s", local, shape->count);
    emit_fail_if(m, cond, &rb, "constraint", LEN_NONE, fmt, args);
    free(cond); free(fmt); free(args);
    cond = xprintf("%s > c->opt->limits.max_rank || %s > AFMT_RANK_CAP", local, local);
    args = xprintf("%s, c->opt->limits.max_rank < AFMT_RANK_CAP ? c->opt->limits.max_rank : (uint64_t)AFMT_RANK_CAP", local);
    emit_fail_if(m, cond, &rb, "limit", LEN_NONE, "\"rank %\" PRIu64 \" exceeds the limit of %\" PRIu64 \"\"", args);
    free(cond); free(args); free(r);
    return local;
}

void emit_dir_add(emitter *m, item *repeat, const item *d)
{
    char *rank;
    sym *el = record_value(m, d, d->dir.dtype, SY_LOOKUP);
    sym *shape = record_value(m, d, d->dir.shape, SY_ARRF);
    sym *nm = d->dir.name ? record_value(m, d, d->dir.name, SY_STR) : NULL;
    sym *off = record_value(m, d, d->dir.offset, SY_INT);
    if (!el || !shape || (d->dir.name && !nm) || !off) return;
    decl_use(m, shape->off_decl);
    decl_use(m, off->off_decl);
    decl_use(m, off->decl);
    if (nm) decl_use(m, nm->off_decl);
    dir_desc(m, d, shape);
    line(m, "/* the record of directory %s */", d->name);
    rank = d->dir.rank ? dir_rank(m, d, shape) : xstrdup(shape->count);
    line(m, "if (afmt_dir_add(c, &%s_dir_%s, dir_%s, %s, %s, %s, %s%s%s, %s, %s, %s)) return -1;", m->s->format, d->name,
         repeat->name, el->c, shape->off, rank, nm ? nm->off : "0", nm ? " + " : "",
         nm ? xprintf("%d", nm->width) : "", nm ? nm->c : "0", off->c, off->off);
    free(rank);
}

void emit_directory(emitter *m, item *d)
{
    blame bl = blame_at(d->name, "AFMT_NO_INDEX", "c->pos");
    char *align = emit_u64(m, &bl, d->arg, d->arg_text);
    line(m, "if (afmt_dir_place(c, &%s_dir_%s, dir_%s, %s)) return -1;", m->s->format, d->name, d->dir.records, align);
    free(align);
}
