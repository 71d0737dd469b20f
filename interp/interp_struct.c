/* afmt reference interpreter: named structures ("struct"), vars ("var",
 * "set"), a repeat's "unique" key and directories of arrays -- as
 * gen/emit_struct.c and gen/emit_directory.c emit them. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "interp.h"

/* ---- named structures: the body in a scope of its own, holding only its
 * parameters (unsigned), as the C function afmt-gen makes of it */

/* The body of ns with the values args, in a fresh symbol stack (the
 * nesting is bounded by limits.max_depth: afmt_struct_enter). */
static int struct_body(irun *r, const item *it, int index, const uint64_t *args, const uint64_t *at)
{
    const named_struct *ns = &r->in->s->structs[index];
    irun inner = *r;
    int i, rc;
    inner.cap = r->in->struct_syms[index];
    inner.nsyms = 0;
    inner.syms = isym_pool_stack(r->pool, r->c->depth, inner.cap);
    if (!inner.syms) return afmt_fail(r->c->err, AFMT_E_NOMEM, NULL, NULL, AFMT_NO_INDEX, 0, "out of memory");
    inner.comments = NULL;
    inner.tiles = NULL;
    inner.unique_repeat = NULL;
    inner.unique_keys = NULL;
    for (i = 0; i < ns->nparams; i++) {
        isym *y = isym_push(&inner, IS_INT, it);
        y->name = ns->params[i];
        y->t = VT_U;
        y->v = args[i];
        y->off = at[i]; /* where the argument was read (gen/emit_struct.c) */
    }
    rc = irun_items(&inner, &ns->body);
    r->dirs = inner.dirs; /* lists a directory inside the structure made */
    r->ndirs = inner.ndirs;
    return rc;
}

/* Arguments a use holds on the stack (more are allocated): GGUF's value
 * structure, used once per array element, has one. */
#define STRUCT_ARGS_LOCAL 8

int irun_struct(irun *r, const item *it)
{
    const iaux *aux = iaux_of(r->in, it);
    const int index = aux ? aux->struct_index : -1;
    const iblame b = iblame_pos(it->name);
    uint64_t local[2 * STRUCT_ARGS_LOCAL];
    uint64_t *args = it->st.nargs <= STRUCT_ARGS_LOCAL ? local : calloc(2 * (size_t)it->st.nargs, sizeof *args);
    uint64_t *at = args ? args + it->st.nargs : NULL;
    int i, rc = 0;
    if (!args) return afmt_fail(r->c->err, AFMT_E_NOMEM, NULL, NULL, AFMT_NO_INDEX, 0, "out of memory");
    for (i = 0; rc == 0 && i < it->st.nargs; i++) {
        const isym *y = iname_int(r, it->st.args[i]);
        rc = ieval_u64_of(r, &b, it->st.args[i], it->st.args_text[i], y, &args[i]);
        at[i] = y && !y->off_is_pos ? y->off : r->c->pos; /* where it was read, else the structure's start */
    }
    if (rc == 0) rc = afmt_struct_enter(r->c, it->name);
    if (rc == 0 && index < 0) rc = afmt_fail(r->c->err, AFMT_E_USAGE, NULL, NULL, AFMT_NO_INDEX, 0,
                                             "no structure %s (the loader's checks let it through: a bug)", it->st.use);
    if (rc == 0) rc = struct_body(r, it, index, args, at);
    if (args != local) free(args);
    if (rc) return -1;
    r->c->depth--;
    return 0;
}

/* ---- vars: an unsigned value that "set" changes */

int irun_var(irun *r, const item *it)
{
    const iblame b = iblame_pos(it->name);
    uint64_t v;
    isym *y;
    if (ieval_u64(r, &b, it->let.value, it->let.value_text, &v)) return -1;
    y = isym_push(r, IS_INT, it);
    y->t = VT_U;
    y->v = v;
    y->off_is_pos = 1;
    return 0;
}

int irun_set(irun *r, const item *it)
{
    const iblame b = iblame_pos(it->attribute);
    isym *y = isym_find(r, it->attribute);
    uint64_t v;
    if (ieval_u64(r, &b, it->let.value, it->let.value_text, &v)) return -1;
    y->v = v;
    return 0;
}

/* ---- a repeat's "unique" key */

int irun_unique_key(irun *r, const item *f, const isym *y)
{
    const item *rep = r->unique_repeat;
    afmt_validation *c = r->c;
    if (!rep || !f->name || strcmp(f->name, rep->repeat.unique) != 0 || f->field.count) return 0;
    if (f->field.ftype == FT_INT)
        return afmt_unique_keys_add_u64(c, r->unique_keys, rep->name, f->name, r->rep_index, y->off, y->v);
    if (f->field.ftype == FT_STRING)
        return afmt_unique_keys_add(c, r->unique_keys, rep->name, f->name, r->rep_index, y->off, y->off + (uint64_t)y->width,
                             y->count);
    return afmt_unique_keys_add(c, r->unique_keys, rep->name, f->name, r->rep_index, y->off, y->off, (uint64_t)y->size);
}

/* ---- directories */

/* The field named name in body (its cases and nested bodies too). */
static const item *find_field(const item_list *body, const char *name)
{
    int i, j;
    for (i = 0; i < body->n; i++) {
        const item *it = body->v[i], *f = NULL;
        if (it->kind == IT_FIELD && strcmp(it->name, name) == 0) return it;
        if (it->kind == IT_REGION) f = find_field(&it->body, name);
        for (j = 0; !f && j < it->ncases; j++) f = find_field(&it->cases[j].body, name);
        if (f) return f;
    }
    return NULL;
}

/* The descriptor of directory d, as gen/emit_directory.c's dir_desc. */
static afmt_dir_desc dir_desc(const irun *r, const item *d)
{
    const item *repeat = NULL;
    const item *shape;
    afmt_dir_desc desc;
    int i;
    for (i = 0; i < r->ndirs; i++)
        if (strcmp(r->dirs[i]->repeat->name, d->dir.records) == 0) repeat = r->dirs[i]->repeat;
    shape = repeat ? find_field(&repeat->body, d->dir.shape) : NULL;
    memset(&desc, 0, sizeof desc);
    desc.name = d->name;
    desc.records = d->dir.records;
    desc.offset_field = d->dir.offset;
    desc.shape_field = d->dir.shape;
    desc.dims_width = shape ? (unsigned)shape->field.width : 0;
    desc.dims_big = shape ? shape->field.big_endian : 0;
    desc.dims_signed = shape ? shape->field.is_signed : 0;
    desc.fastest_first = d->dir.fastest_first;
    desc.payload_big = d->dir.payload_big;
    desc.pad_lenient = d->dir.pad_lenient == LEN_WARN;
    return desc;
}

static idir *dir_of(const irun *r, const char *records)
{
    int i;
    for (i = r->ndirs - 1; i >= 0; i--)
        if (strcmp(r->dirs[i]->repeat->name, records) == 0) return r->dirs[i];
    return NULL;
}

afmt_dir_list *idir_begin(irun *r, const item *repeat)
{
    idir *d, **v;
    d = dir_of(r, repeat->name);
    if (!d) {
        v = realloc(r->dirs, sizeof *v * (size_t)(r->ndirs + 1));
        d = calloc(1, sizeof *d);
        if (v) r->dirs = v;
        if (!v || !d) {
            free(d);
            afmt_fail(r->c->err, AFMT_E_NOMEM, NULL, NULL, AFMT_NO_INDEX, 0, "out of memory");
            return NULL;
        }
        r->dirs[r->ndirs++] = d;
        d->repeat = repeat;
    }
    afmt_dir_list_init(&d->list);
    return &d->list;
}

/* "rank": the first `rank` entries of the shape field, at most its count
 * and within the rank limits (gen/emit_directory.c, dir_rank). */
static int dir_rank(irun *r, const item *d, const isym *shape, uint64_t *rank)
{
    const expr *re = d->dir.rank;
    const isym *ry = re->kind == E_NAME ? isym_find(r, re->sval) : NULL;
    const iblame rb = iblame_of(ry && ry->kind == IS_INT ? ry : NULL);
    const afmt_limits *lim = &r->c->opt->limits;
    if (ieval_u64(r, &rb, re, d->dir.rank_text, rank)) return -1;
    if (*rank > shape->count)
        return ifail(r, &rb, AFMT_E_CONSTRAINT, LEN_NONE, "rank %" PRIu64 " exceeds the %" PRIu64 " entries of %s", *rank,
                     shape->count, shape->name);
    if (*rank > lim->max_rank || *rank > AFMT_RANK_CAP)
        return ifail(r, &rb, AFMT_E_LIMIT, LEN_NONE, "rank %" PRIu64 " exceeds the limit of %" PRIu64, *rank,
                     lim->max_rank < AFMT_RANK_CAP ? lim->max_rank : (uint64_t)AFMT_RANK_CAP);
    return 0;
}

int idir_add(irun *r, const item *repeat, afmt_dir_list *l)
{
    const item *d = directory_of(r->in->s, repeat);
    const isym *el = isym_find(r, d->dir.dtype), *shape = isym_find(r, d->dir.shape);
    const isym *nm = d->dir.name ? isym_find(r, d->dir.name) : NULL, *off = isym_find(r, d->dir.offset);
    const afmt_dir_desc desc = dir_desc(r, d);
    uint64_t rank = shape->count;
    if (d->dir.rank && dir_rank(r, d, shape, &rank)) return -1;
    return afmt_dir_add(r->c, &desc, l, el->el, shape->off, rank, nm ? nm->off + (uint64_t)nm->width : 0,
                        nm ? nm->count : 0, off->v, off->off_is_pos ? r->c->pos : off->off);
}

int irun_directory(irun *r, const item *it)
{
    const iblame b = iblame_pos(it->name);
    const idir *d = dir_of(r, it->dir.records);
    afmt_dir_list none; /* the repeat has not run: no records */
    afmt_dir_desc desc;
    uint64_t align;
    afmt_dir_list_init(&none);
    if (ieval_u64(r, &b, it->arg, it->arg_text, &align)) return -1;
    desc = dir_desc(r, it);
    return afmt_dir_place(r->c, &desc, d ? &d->list : &none, align);
}
