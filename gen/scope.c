/* afmt-gen: names resolved over the model, before anything is emitted.
 *
 * The walk binds names as the emitters do (a field, let, var, lookup,
 * array or text value binds its name where it stands; a repeat's body
 * and a switch case forget what they bound at their end; a named
 * structure's body sees only its parameters) and resolves every name an
 * item reads to the innermost binding of that spelling.  What it learns
 * is written on the model, as data:
 *
 *  - a region's escapes (region_item.escapes): the names its items bind
 *    that an item after the region reads.  The validator puts each
 *    region's items in a function of their own (gen/emit_func.c), which
 *    hands exactly those values out to its caller; before this pass the
 *    validator was emitted twice to learn them and the first text thrown
 *    away.
 *
 * A name that resolves to nothing is left to the emitters' diagnostics
 * (unknown names are reported with the path of the use there).  The
 * walk reads each item once and finds a name through a hash: linear in
 * the spec (tests/specs/linear.sh). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "scope.h"

static void *grown(void *p, size_t n, size_t size)
{
    p = realloc(p, n * size);
    if (!p) {
        fputs("afmt-gen: out of memory\n", stderr);
        exit(2);
    }
    return p;
}

/* ---- the scope stack (scope.h) */

int scope_binds_value(const item *it)
{
    switch (it->kind) {
    case IT_FIELD: case IT_LET: case IT_VAR: case IT_LOOKUP: case IT_ARRAY: case IT_TEXTVAL: return it->name != NULL;
    default: return 0;
    }
}

static value_kind field_kind(const field_item *f)
{
    switch (f->ftype) {
    case FT_INT: return f->count ? VK_ARRAY_FIELD : VK_INT;
    case FT_FLOAT: return f->count ? VK_FLOAT_ARRAY : VK_FLOAT;
    case FT_STRING: return f->count ? VK_STRINGS : VK_STRING;
    default: return VK_TEXT;
    }
}

value_kind scope_kind(const scope_binding *b)
{
    if (!b->it) return VK_INT; /* a parameter: unsigned */
    switch (b->it->kind) {
    case IT_FIELD: return field_kind(&b->it->field);
    case IT_LOOKUP: return VK_LOOKUP;
    case IT_ARRAY: case IT_TEXTVAL: return VK_PAYLOAD;
    default: return VK_INT; /* let, var */
    }
}

void scope_bind(scope *sc, const char *name, const item *it)
{
    scope_binding *b;
    if (!name) return;
    if (sc->n == sc->cap) {
        sc->cap = sc->cap ? sc->cap * 2 : 64;
        sc->v = grown(sc->v, (size_t)sc->cap, sizeof *sc->v);
    }
    b = &sc->v[sc->n];
    memset(b, 0, sizeof *b);
    b->name = name;
    b->it = it;
    b->region = sc->region;
    b->shadowed = strindex_get(&sc->top, name);
    strindex_put(&sc->top, name, sc->n++);
}

scope_binding *scope_find(const scope *sc, const char *name)
{
    const int i = name ? strindex_get(&sc->top, name) : -1;
    return i >= 0 ? &sc->v[i] : NULL;
}

int scope_mark(const scope *sc) { return sc->n; }

void scope_pop_to(scope *sc, int mark)
{
    while (sc->n > mark) {
        scope_binding *b = &sc->v[--sc->n];
        free(b->left);
        if (b->shadowed >= 0) strindex_put(&sc->top, b->name, b->shadowed);
        else strindex_del(&sc->top, b->name);
    }
}

void scope_free(scope *sc)
{
    scope_pop_to(sc, 0);
    free(sc->v);
    strindex_free(&sc->top);
    memset(sc, 0, sizeof *sc);
}

const named_struct *scope_struct_named(const spec *s, const char *name)
{
    int i;
    for (i = 0; name && i < s->nstructs; i++)
        if (strcmp(s->structs[i].name, name) == 0) return &s->structs[i];
    return NULL;
}

const table *scope_table_named(const spec *s, const char *name)
{
    int i;
    for (i = 0; name && i < s->ntables; i++)
        if (strcmp(s->tables[i].name, name) == 0) return &s->tables[i];
    return NULL;
}

const item *directory_of(const spec *s, const item *repeat)
{
    int k;
    for (k = 0; k < s->ndirectories; k++)
        if (s->directories[k]->dir.records && repeat->name && strcmp(s->directories[k]->dir.records, repeat->name) == 0)
            return s->directories[k];
    return NULL;
}

/* ---- the escapes of regions */

typedef struct walk {
    const spec *s;
    scope sc;
} walk;

int region_escapes(const item *region, const char *name)
{
    int i;
    for (i = 0; i < region->region.nescapes; i++)
        if (strcmp(region->region.escapes[i], name) == 0) return 1;
    return 0;
}

/* A read of name: an escape from each region its binding has left. */
static void read_name(walk *w, const char *name)
{
    const scope_binding *b = scope_find(&w->sc, name);
    int k;
    for (k = 0; b && k < b->nleft; k++) {
        region_item *r = &b->left[k]->region;
        if (region_escapes(b->left[k], name)) continue;
        r->escapes = grown(r->escapes, (size_t)r->nescapes + 1, sizeof *r->escapes);
        r->escapes[r->nescapes++] = name;
    }
}

/* The names an expression reads (E_NAME, also as the operand of an
 * index, a member or a call). */
static void read_expr(walk *w, const expr *e)
{
    int i;
    if (!e) return;
    if (e->kind == E_NAME) read_name(w, e->sval);
    read_expr(w, e->a);
    read_expr(w, e->b);
    read_expr(w, e->c);
    for (i = 0; i < e->nargs; i++) read_expr(w, e->args[i]);
}

static void read_exprs(walk *w, expr *const *v, int n)
{
    int i;
    for (i = 0; v && i < n; i++) read_expr(w, v[i]);
}

static void read_checks(walk *w, const check *cs, int n)
{
    int i;
    for (i = 0; i < n; i++) read_expr(w, cs[i].e);
}

/* A lookup reads its keys, and its table's "when" entries and opaque
 * sizes read the lookup's scope. */
static void read_lookup(walk *w, const item *it)
{
    const table *tb = scope_table_named(w->s, it->lookup.table);
    int i;
    read_exprs(w, it->lookup.key, it->lookup.nkey);
    for (i = 0; tb && i < tb->nentries; i++) {
        read_expr(w, tb->entries[i].when);
        read_expr(w, tb->entries[i].size);
    }
}

static void read_array(walk *w, const item *it)
{
    const array_item *a = &it->array;
    read_name(w, a->dtype_from);
    read_name(w, a->shape_field);
    read_expr(w, a->rank);
    read_exprs(w, a->shape, a->nshape);
    read_name(w, a->name_from);
    read_expr(w, a->compressed);
    read_expr(w, a->stored);
    read_expr(w, a->nnz);
    read_name(w, a->row_offsets);
    read_name(w, a->col_indices);
    read_name(w, a->types_field);
    read_name(w, a->names_field);
    read_expr(w, a->coo_with_cols);
}

/* What an item reads before it binds anything (the validator's; a
 * field's "write" is the writer's alone). */
static void read_item(walk *w, const item *it)
{
    read_name(w, it->attribute);
    read_expr(w, it->arg);
    read_checks(w, it->checks, it->nchecks);
    switch (it->kind) {
    case IT_FIELD:
        read_expr(w, it->field.count);
        read_checks(w, it->field.each, it->field.neach);
        read_expr(w, it->field.first);
        read_expr(w, it->field.last);
        read_name(w, it->field.increasing_within);
        read_name(w, it->field.increasing_segments);
        break;
    case IT_LET: case IT_VAR: case IT_SET: read_expr(w, it->let.value); break;
    case IT_LOOKUP: read_lookup(w, it); break;
    case IT_ARRAY: read_array(w, it); break;
    case IT_REGION: read_expr(w, it->region.out_size); break;
    case IT_STRUCT: read_exprs(w, it->st.args, it->st.nargs); break;
    default: break;
    }
}

/* What a repetition reads at its end: its metadata's key, the records a
 * directory keeps of it, its tiles' fields. */
static void read_repetition_end(walk *w, const item *rep)
{
    int i;
    read_name(w, rep->repeat.meta_key);
    read_name(w, rep->repeat.tile_row);
    read_name(w, rep->repeat.tile_col);
    read_name(w, rep->repeat.tile_rows);
    read_name(w, rep->repeat.tile_cols);
    read_exprs(w, rep->repeat.tile_within, 2);
    read_name(w, rep->repeat.unique);
    for (i = 0; i < w->s->ndirectories; i++) {
        const item *d = w->s->directories[i];
        if (!d->dir.records || !rep->name || strcmp(d->dir.records, rep->name) != 0) continue;
        read_name(w, d->dir.dtype);
        read_name(w, d->dir.shape);
        read_name(w, d->dir.name);
        read_name(w, d->dir.offset);
        read_expr(w, d->dir.rank);
    }
}

static void walk_items(walk *w, const item_list *body);

/* A region's items, then every binding it made has left it. */
static void walk_region(walk *w, item *it)
{
    const item *outer = w->sc.region;
    int i;
    w->sc.region = it;
    walk_items(w, &it->body);
    for (i = 0; i < w->sc.n; i++) {
        scope_binding *b = &w->sc.v[i];
        if (b->region != it) continue;
        b->left = grown(b->left, (size_t)b->nleft + 1, sizeof *b->left);
        b->left[b->nleft++] = it;
        b->region = outer;
    }
    w->sc.region = outer;
}

static void walk_item(walk *w, item *it)
{
    int mark, j;
    read_item(w, it);
    switch (it->kind) {
    case IT_REGION: walk_region(w, it); break;
    case IT_REPEAT:
        mark = scope_mark(&w->sc);
        walk_items(w, &it->body);
        read_repetition_end(w, it);
        scope_pop_to(&w->sc, mark);
        break;
    case IT_SWITCH:
        for (j = 0; j < it->ncases; j++) {
            mark = scope_mark(&w->sc);
            walk_items(w, &it->cases[j].body);
            scope_pop_to(&w->sc, mark);
        }
        break;
    default:
        if (scope_binds_value(it)) scope_bind(&w->sc, it->name, it);
        break;
    }
}

static void walk_items(walk *w, const item_list *body)
{
    int i;
    for (i = 0; i < body->n; i++) walk_item(w, body->v[i]);
}

void scope_resolve(spec *s)
{
    walk w;
    int i, j;
    memset(&w, 0, sizeof w);
    w.s = s;
    walk_items(&w, &s->body);
    for (i = 0; i < s->nstructs; i++) { /* a fresh scope: its parameters only */
        scope_pop_to(&w.sc, 0);
        for (j = 0; j < s->structs[i].nparams; j++) scope_bind(&w.sc, s->structs[i].params[j], NULL);
        walk_items(&w, &s->structs[i].body);
    }
    scope_free(&w.sc);
}
