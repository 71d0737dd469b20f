/* afmt reference interpreter: names, one pointer per spelling.
 *
 * Every name a run defines or reads -- items' names, structures'
 * parameters, the names in expressions and the item members that name a
 * field -- is made, at load, to point at one string per spelling (the
 * first the model has).  A symbol lookup (isym_find) then compares
 * pointers, not strings: most of what a run does is reading names, and
 * a GGUF vocabulary reads 900,000 of them.
 *
 * The loader's model lives until exit (gen/load.h: a build tool's), so
 * replacing one of its pointers by another to an equal string frees
 * nothing and leaves nothing dangling.  A name this file does not reach
 * is still found, by spelling (isym_find's second pass); what must hold is
 * only that every name a symbol is pushed under is interned (item names,
 * parameters, `index`), so that a pointer found is the innermost of its
 * spelling. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "interp.h"

/* An open-addressing table of the distinct spellings (load time only). */
typedef struct names {
    char **slots;
    size_t mask;
    size_t used;
} names;

static uint64_t hash_of(const char *s)
{
    uint64_t h = 1469598103934665603u; /* FNV-1a */
    for (; *s; s++) h = (h ^ (uint8_t)*s) * 1099511628211u;
    return h;
}

static int names_grow(names *t)
{
    const size_t n = t->slots ? 2 * (t->mask + 1) : 256;
    char **slots = calloc(n, sizeof *slots);
    size_t i;
    if (!slots) return -1;
    for (i = 0; t->slots && i <= t->mask; i++)
        if (t->slots[i]) {
            size_t k = (size_t)hash_of(t->slots[i]) & (n - 1);
            while (slots[k]) k = (k + 1) & (n - 1);
            slots[k] = t->slots[i];
        }
    free(t->slots);
    t->slots = slots;
    t->mask = n - 1;
    return 0;
}

/* The pointer of s's spelling (s itself when it is the first). */
static char *names_intern(names *t, char *s)
{
    size_t k;
    if (2 * (t->used + 1) > (t->slots ? t->mask + 1 : 0) && names_grow(t)) abort(); /* load-time, as the loader */
    for (k = (size_t)hash_of(s) & t->mask; t->slots[k]; k = (k + 1) & t->mask)
        if (strcmp(t->slots[k], s) == 0) return t->slots[k];
    t->slots[k] = s;
    t->used++;
    return s;
}

static void intern(names *t, char **p)
{
    if (*p) *p = names_intern(t, *p);
}

/* The names of an expression (E_NAME, and the names E_INDEX, E_MEMBER and
 * calls hold as their operands, which are E_NAME expressions too). */
static void intern_expr(names *t, expr *e)
{
    int i;
    if (!e) return;
    if (e->kind == E_NAME) intern(t, &e->sval);
    intern_expr(t, e->a);
    intern_expr(t, e->b);
    intern_expr(t, e->c);
    for (i = 0; i < e->nargs; i++) intern_expr(t, e->args[i]);
}

static void intern_exprs(names *t, expr **v, int n)
{
    int i;
    for (i = 0; v && i < n; i++) intern_expr(t, v[i]);
}

static void intern_checks(names *t, check *cs, int n)
{
    int i;
    for (i = 0; i < n; i++) intern_expr(t, cs[i].e);
}

/* The members of each kind that name a value or hold an expression. */
static void intern_kind(names *t, item *it)
{
    switch (it->kind) {
    case IT_FIELD:
        intern_expr(t, it->field.count);
        intern_checks(t, it->field.each, it->field.neach);
        intern_expr(t, it->field.first);
        intern_expr(t, it->field.last);
        intern(t, &it->field.increasing_within);
        intern(t, &it->field.increasing_segments);
        break;
    case IT_LET: case IT_VAR: case IT_SET: intern_expr(t, it->let.value); break;
    case IT_LOOKUP: intern_exprs(t, it->lookup.key, it->lookup.nkey); break;
    case IT_ARRAY:
        intern(t, &it->array.dtype_from);
        intern(t, &it->array.shape_field);
        intern_expr(t, it->array.rank);
        intern_exprs(t, it->array.shape, it->array.nshape);
        intern(t, &it->array.name_from);
        intern(t, &it->array.logical_from);
        intern_expr(t, it->array.compressed);
        intern_expr(t, it->array.stored);
        intern_expr(t, it->array.nnz);
        intern(t, &it->array.row_offsets);
        intern(t, &it->array.col_indices);
        intern(t, &it->array.types_field);
        intern(t, &it->array.names_field);
        intern_expr(t, it->array.coo_with_cols);
        break;
    case IT_REPEAT:
        intern(t, &it->repeat.unique);
        intern(t, &it->repeat.meta_key);
        intern(t, &it->repeat.meta_value);
        intern(t, &it->repeat.tile_row);
        intern(t, &it->repeat.tile_col);
        intern(t, &it->repeat.tile_rows);
        intern(t, &it->repeat.tile_cols);
        intern_exprs(t, it->repeat.tile_within, 2);
        break;
    case IT_REGION: intern_expr(t, it->region.out_size); break;
    case IT_STRUCT:
        intern(t, &it->st.use);
        intern_exprs(t, it->st.args, it->st.nargs);
        break;
    case IT_DIRECTORY:
        intern(t, &it->dir.records);
        intern(t, &it->dir.dtype);
        intern(t, &it->dir.shape);
        intern(t, &it->dir.name);
        intern(t, &it->dir.offset);
        intern_expr(t, it->dir.rank);
        break;
    default: break;
    }
}

static void intern_body(names *t, item_list *b)
{
    int i, j;
    for (i = 0; i < b->n; i++) {
        item *it = b->v[i];
        intern(t, &it->name);
        intern(t, &it->attribute);
        intern_expr(t, it->arg);
        intern_checks(t, it->checks, it->nchecks);
        intern_kind(t, it);
        intern_body(t, &it->body);
        for (j = 0; j < it->ncases; j++) intern_body(t, &it->cases[j].body);
    }
}

const char *iintern_names(spec *s)
{
    static char index_name[] = "index"; /* "each" pushes its element's position under it */
    names t;
    const char *index;
    int i, j;
    memset(&t, 0, sizeof t);
    index = names_intern(&t, index_name);
    intern_body(&t, &s->body);
    for (i = 0; i < s->nstructs; i++) {
        intern(&t, &s->structs[i].name);
        for (j = 0; j < s->structs[i].nparams; j++) intern(&t, &s->structs[i].params[j]);
        intern_body(&t, &s->structs[i].body);
    }
    for (i = 0; i < s->ntables; i++) /* a "when" entry reads the lookup's scope */
        for (j = 0; j < s->tables[i].nentries; j++) {
            intern_expr(&t, s->tables[i].entries[j].when);
            intern_expr(&t, s->tables[i].entries[j].size);
        }
    free(t.slots);
    return index;
}
