/* afmt-gen: the checker, the language's diagnostics raised on the model
 * before anything is emitted (the pipeline: scope.h).
 *
 * `afmt-gen --check`, afmt-gen before it writes, and the reference
 * interpreter (interp/interp_load.c) call spec_check on every spec they
 * load; the emitters are given only specs it passed, so what it reports
 * is, in them, a case that cannot happen.  It walks the spec as the
 * validator does (a structure's body at its first use, as its function
 * is defined there), so its diagnostics come in the order the emitters
 * raised them, each with the JSON path of the item at fault.
 *
 * What it checks so far: the definitions of names (a value defined twice
 * in scope, a repeat, region, switch or pad named as another), the uses
 * of structures (known, given as many arguments as they take), vars
 * (declared outside regions, "set" only on a var), lookups (a known
 * table, as many keys as its entries have, a known "field"), a check's
 * "field", switch cases' values (integers), a repeat's "unique" key;
 * a repeat's "metadata" (value_grammar.c), a directory's record;
 * the members that name another value and need a value of one kind (an
 * array's lookup, shape and name, a sparse matrix's index fields, a
 * table of columns' fields and table, an array field's segments).  The types of
 * expressions are still checked by the emitters (emit_expr.c) as they
 * render them. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "scope.h"
#include "value_grammar.h"

typedef struct checker {
    const spec *s;
    scope sc;
    diag d;                       /* its diagnostics */
    const named_struct **done;    /* the structures whose bodies were walked */
    int ndone;
    const item **structural;      /* the body's repeats, regions, switches, pads and
                                   * directories, sorted by name (name_clash) */
    int nstructural;
} checker;

/* "PATH: /json/path: message", as the loader's and the emitters' are. */
#define check_error(ck, ...) diag_error(&(ck)->d, __VA_ARGS__)

static int is_structural(const item *o)
{
    return o->name && (o->kind == IT_REPEAT || o->kind == IT_REGION || o->kind == IT_SWITCH || o->kind == IT_PAD ||
                       o->kind == IT_DIRECTORY);
}

/* The structural items of b (in its repeats, regions and cases too). */
static void list_structural(checker *ck, const item_list *b)
{
    int i, j;
    for (i = 0; i < b->n; i++) {
        const item *o = b->v[i];
        if (is_structural(o)) {
            const item **g = realloc(ck->structural, sizeof *g * (size_t)(ck->nstructural + 1));
            if (!g) { fputs("afmt-gen: out of memory\n", stderr); exit(2); }
            ck->structural = g;
            ck->structural[ck->nstructural++] = o;
        }
        if (o->kind == IT_REPEAT || o->kind == IT_REGION) list_structural(ck, &o->body);
        for (j = 0; j < o->ncases; j++) list_structural(ck, &o->cases[j].body);
    }
}

static int by_item_name(const void *a, const void *b)
{
    return strcmp((*(const item *const *)a)->name, (*(const item *const *)b)->name);
}

/* Is another structural item of the spec's body named like it?  They
 * name C variables of one function's scope, so each name once per spec.
 * Searched by halves in the sorted list: n log n for a spec of n. */
static int name_clash(const checker *ck, const item *it)
{
    int lo = 0, hi = ck->nstructural, k;
    while (lo < hi) { /* the first named it->name or after */
        const int mid = lo + (hi - lo) / 2;
        if (strcmp(ck->structural[mid]->name, it->name) < 0) lo = mid + 1;
        else hi = mid;
    }
    for (k = lo; k < ck->nstructural && strcmp(ck->structural[k]->name, it->name) == 0; k++)
        if (ck->structural[k] != it) return 1;
    return 0;
}

/* A name is defined once: a field, let, lookup or array not twice in
 * scope; a repeat, region, switch or pad (they name C variables too) once
 * per spec.  (A text header's, an archive's, cards' or a structure use's
 * name only names it in errors: switch cases may each have one.) */
static void check_definition(checker *ck, const item *it)
{
    if (!it->name || it->kind == IT_TEXTHDR || it->kind == IT_ARCHIVE || it->kind == IT_CARDS ||
        it->kind == IT_STRUCT)
        return;
    if (!is_structural(it) && it->kind != IT_TEXTVAL) {
        const scope_binding *prev = scope_find(&ck->sc, it->name);
        if (prev)
            check_error(ck, it->jpath, "'%s' is already defined %s%s", it->name, prev->it ? "at " : "",
                        prev->it ? prev->it->jpath : "(a parameter of the structure, or a name the language defines)");
    } else if (name_clash(ck, it)) { /* a text value's too: it names C locals */
        check_error(ck, it->jpath, "'%s' names another repeat, region, switch or pad of this spec", it->name);
    }
}

/* A lookup: its table, the arity of its keys, its "field".  0 when the
 * lookup binds its name (an unknown table: it does not). */
static int check_lookup(checker *ck, const item *it)
{
    const table *tb = scope_table_named(ck->s, it->lookup.table ? it->lookup.table : "");
    if (!tb) {
        check_error(ck, it->jpath, "unknown table '%s'", it->lookup.table ? it->lookup.table : "");
        return -1;
    }
    if (it->attribute && !scope_find(&ck->sc, it->attribute))
        check_error(ck, it->jpath, "unknown name '%s' in \"field\"", it->attribute);
    if (tb->nkeys >= 0 && tb->nkeys != it->lookup.nkey)
        check_error(ck, it->jpath, "table '%s' has keys of %d values, the lookup gives %d", tb->name, tb->nkeys,
                    it->lookup.nkey);
    return 0;
}

/* A var: a local of the function that declares it, so not of a region's
 * (the items after the region could not set it).  0 when it binds. */
static int check_var(checker *ck, const item *it)
{
    if (!ck->sc.region) return 0;
    check_error(ck, it->jpath, "var '%s' is declared inside region '%s': declare it before the region", it->name,
                ck->sc.region->name);
    return -1;
}

static void check_set(checker *ck, const item *it)
{
    const scope_binding *b = scope_find(&ck->sc, it->attribute);
    if (!b || !b->it || b->it->kind != IT_VAR)
        check_error(ck, it->jpath, "'%s' is not a var defined before (\"set\" changes a var)",
                    it->attribute ? it->attribute : "");
}

/* Whether name is bound, to a value of kind k. */
static int is_kind(const checker *ck, const char *name, value_kind k)
{
    const scope_binding *b = scope_find(&ck->sc, name);
    return b && scope_kind(b) == k;
}

/* An array field's element loop ("each", a float's "equals"), whose
 * position is `index`; its members naming another array field. */
static void check_array_field(checker *ck, const item *it)
{
    const field_item *f = &it->field;
    const int loops = f->ftype == FT_INT ? f->neach > 0 : f->ftype == FT_FLOAT && (f->neach > 0 || f->has_fequals);
    if (loops && strcmp(it->name, "index") == 0)
        check_error(ck, it->jpath, "an array field with \"each\" cannot be named 'index': inside \"each\", `index` "
                                   "is the element's position and the field's name the element");
    if (f->ftype != FT_INT) return;
    if (f->increasing_within && !is_kind(ck, f->increasing_within, VK_ARRAY_FIELD))
        check_error(ck, it->jpath, "increasing_within: '%s' is not an array field defined before", f->increasing_within);
    if (f->increasing_segments && !is_kind(ck, f->increasing_segments, VK_ARRAY_FIELD))
        check_error(ck, it->jpath, "increasing_segments: '%s' is not an array field defined before",
                    f->increasing_segments);
}

/* A table of columns: its fields of types and labels, its table
 * (layout_columns.c renders it).  0 when the array binds its name. */
static int check_columns(checker *ck, const item *it)
{
    const array_item *a = &it->array;
    if (!is_kind(ck, a->types_field ? a->types_field : "", VK_ARRAY_FIELD)) {
        check_error(ck, it->jpath, "\"types\": '%s' is not an array field defined before",
                    a->types_field ? a->types_field : "(null)");
        return -1;
    }
    if (a->names_field && !is_kind(ck, a->names_field, VK_STRINGS)) {
        check_error(ck, it->jpath, "\"names\": '%s' is not a string field defined before", a->names_field);
        return -1;
    }
    if (!scope_table_named(ck->s, a->col_table ? a->col_table : "")) {
        check_error(ck, it->jpath, "unknown table '%s'", a->col_table ? a->col_table : "");
        return -1;
    }
    return 0;
}

/* An array item's members naming values: a sparse matrix's index
 * fields, its lookup, its shape field, its name's field, in the order
 * the validator reads them.  0 when the array binds its name (the
 * validator renders no array whose lookup or shape is wrong). */
/* A csc array's index fields: array fields defined before, of one width,
 * in the payload's byte order (the view reads both in it). */
static int check_csc(checker *ck, const item *it)
{
    const array_item *a = &it->array;
    const scope_binding *o, *i;
    if (!(is_kind(ck, a->row_offsets, VK_ARRAY_FIELD) && is_kind(ck, a->col_indices, VK_ARRAY_FIELD))) {
        check_error(ck, it->jpath, "\"col_offsets\" and \"row_indices\" must be array fields defined before");
        return -1;
    }
    o = scope_find(&ck->sc, a->row_offsets);
    i = scope_find(&ck->sc, a->col_indices);
    if (o->it->field.width != i->it->field.width || o->it->field.big_endian != i->it->field.big_endian ||
        o->it->field.big_endian != a->payload_big) {
        check_error(ck, it->jpath, "\"col_offsets\" and \"row_indices\" must be of one width and of the payload's "
                                   "byte order");
        return -1;
    }
    return 0;
}

static int check_array(checker *ck, const item *it)
{
    const array_item *a = &it->array;
    if (a->layout == LAYOUT_COLUMNS) return check_columns(ck, it);
    if (a->layout == LAYOUT_CSR &&
        !(is_kind(ck, a->row_offsets, VK_ARRAY_FIELD) && is_kind(ck, a->col_indices, VK_ARRAY_FIELD))) {
        check_error(ck, it->jpath, "\"row_offsets\" and \"col_indices\" must be array fields defined before");
        return -1;
    }
    if (a->layout == LAYOUT_CSC && check_csc(ck, it) != 0) return -1;
    if (!is_kind(ck, a->dtype_from ? a->dtype_from : "", VK_LOOKUP)) {
        check_error(ck, it->jpath, "\"dtype\": '%s' is not a lookup defined before", a->dtype_from ? a->dtype_from : "");
        return -1;
    }
    if (a->shape_field && !is_kind(ck, a->shape_field, VK_ARRAY_FIELD)) {
        check_error(ck, it->jpath, "\"shape\": '%s' is not an array field defined before", a->shape_field);
        return -1;
    }
    if (a->logical_from && !is_kind(ck, a->logical_from, VK_LOOKUP)) {
        check_error(ck, it->jpath, "\"logical\": '%s' is not a lookup defined before", a->logical_from);
        return -1;
    }
    if (a->logical_from && !ck->s->read_only) {
        check_error(ck, it->jpath, "\"logical\": the writer does not choose a stored type for a logical one yet: "
                                   "say why the format is not written: \"read_only\": \"...\"");
        return -1;
    }
    if (a->logical_from && a->layout != LAYOUT_DENSE && a->layout != LAYOUT_CSR && a->layout != LAYOUT_CSC) {
        check_error(ck, it->jpath, "\"logical\" applies to a dense, csr or csc array");
        return -1;
    }
    if (a->name_from) {
        const scope_binding *b = scope_find(&ck->sc, a->name_from);
        const int bytes = b && scope_kind(b) == VK_ARRAY_FIELD && b->it->field.width == 1;
        if (!bytes && !(b && scope_kind(b) == VK_TEXT))
            check_error(ck, it->jpath, "\"name\": '%s' is not a text field or an array field of bytes (u8, i8) defined "
                                       "before", a->name_from);
    }
    return 0;
}

int unique_key_kind(const item *repeat)
{
    int i, is_int = -1;
    for (i = 0; i < repeat->body.n; i++) {
        const item *f = repeat->body.v[i];
        if (f->kind == IT_FIELD && f->name && strcmp(f->name, repeat->repeat.unique) == 0 && !f->field.count)
            is_int = f->field.ftype == FT_FLOAT ? -2 : f->field.ftype == FT_INT;
    }
    return is_int;
}

/* A repeat's "unique" key: a field of its body, not a float. */
static void check_unique(checker *ck, const item *repeat)
{
    const int kind = unique_key_kind(repeat);
    if (kind == -2)
        check_error(ck, repeat->jpath, "\"unique\": '%s' is a float field, and floats are no keys (0 equals -0, NaN "
                                       "equals nothing)", repeat->repeat.unique);
    else if (kind < 0)
        check_error(ck, repeat->jpath, "\"unique\": '%s' is not a field (without \"count\") of the repeat's body",
                    repeat->repeat.unique);
}

/* A repeat's "metadata", at the end of its body as the validator hands
 * the key-value over there: its value structure a typed-value grammar,
 * its key a string field, the value's type an integer field that the
 * value follows. */
static void check_metadata(checker *ck, const item *repeat)
{
    value_grammar g;
    const scope_binding *key = scope_find(&ck->sc, repeat->repeat.meta_key), *type;
    if (value_grammar_of(ck->s, &ck->d, repeat, &g) != 0) return;
    type = scope_find(&ck->sc, g.type_field);
    if (!key || scope_kind(key) != VK_STRING)
        check_error(ck, repeat->jpath, "\"metadata\": '%s' is not a string field of the body of repeat '%s'",
                    repeat->repeat.meta_key ? repeat->repeat.meta_key : "", repeat->name);
    else if (!type || scope_kind(type) != VK_INT || !type->it || type->it->kind != IT_FIELD)
        check_error(ck, repeat->jpath, "\"metadata\": the value's type '%s' is not an integer field of the body of "
                                       "repeat '%s'", g.type_field, repeat->name);
    else
        value_follows_type(&ck->d, repeat, type->it);
}

/* A value of the repetition that a directory's record takes. */
static void record_value(checker *ck, const item *d, const char *name, value_kind want, const char *what)
{
    const scope_binding *b = name ? scope_find(&ck->sc, name) : NULL;
    if (!b || scope_kind(b) != want)
        check_error(ck, d->jpath, "directory '%s': '%s' is not %s of the body of repeat '%s'", d->name, name ? name : "",
                    what, d->dir.records);
}

/* A directory's record, at the end of each repetition of its repeat:
 * the element type, the shape, the name and the offset it names. */
static void check_record(checker *ck, const item *d)
{
    record_value(ck, d, d->dir.dtype, VK_LOOKUP, "a lookup");
    record_value(ck, d, d->dir.shape, VK_ARRAY_FIELD, "an integer field with \"count\"");
    if (d->dir.name) record_value(ck, d, d->dir.name, VK_STRING, "a string field");
    record_value(ck, d, d->dir.offset, VK_INT, "an integer field or let");
}

static void check_items(checker *ck, const item_list *body);

static int struct_done(const checker *ck, const named_struct *ns)
{
    int i;
    for (i = 0; i < ck->ndone; i++)
        if (ck->done[i] == ns) return 1;
    return 0;
}

/* A structure's body, in a scope of its own: its parameters only. */
static void check_struct_body(checker *ck, const named_struct *ns)
{
    scope outer = ck->sc;
    const named_struct **g = realloc(ck->done, sizeof *g * (size_t)(ck->ndone + 1));
    int i;
    if (!g) { fputs("afmt-gen: out of memory\n", stderr); exit(2); }
    ck->done = g;
    ck->done[ck->ndone++] = ns;
    memset(&ck->sc, 0, sizeof ck->sc);
    for (i = 0; i < ns->nparams; i++) scope_bind(&ck->sc, ns->params[i], NULL);
    check_items(ck, &ns->body);
    scope_free(&ck->sc);
    ck->sc = outer;
}

static void check_struct_use(checker *ck, const item *it)
{
    const named_struct *ns = scope_struct_named(ck->s, it->st.use ? it->st.use : "");
    if (!ns) {
        check_error(ck, it->jpath, "no structure named '%s' in \"structs\"", it->st.use ? it->st.use : "");
        return;
    }
    if (ns->nparams != it->st.nargs) {
        check_error(ck, it->jpath, "structure '%s' takes %d argument%s, not %d", ns->name, ns->nparams,
                    ns->nparams == 1 ? "" : "s", it->st.nargs);
        return;
    }
    if (!struct_done(ck, ns)) check_struct_body(ck, ns);
}

static void check_switch(checker *ck, const item *it)
{
    int i, j;
    for (i = 0; i < it->ncases; i++) {
        const switch_case *sc = &it->cases[i];
        const int mark = scope_mark(&ck->sc);
        for (j = 0; j < sc->nwhen; j++)
            if (sc->when[j]->kind != E_INT) check_error(ck, sc->jpath, "case values are integers");
        check_items(ck, &sc->body);
        scope_pop_to(&ck->sc, mark);
    }
}

static void check_region(checker *ck, item *it)
{
    const item *outer = ck->sc.region;
    ck->sc.region = it;
    check_items(ck, &it->body);
    ck->sc.region = outer;
}

static void check_item(checker *ck, item *it)
{
    int binds = scope_binds_value(it), mark;
    check_definition(ck, it);
    if (it->kind == IT_FIELD && it->field.count) { /* it names itself in its own members */
        scope_bind(&ck->sc, it->name, it);
        binds = 0;
        check_array_field(ck, it);
    }
    switch (it->kind) {
    case IT_ARRAY: if (check_array(ck, it) != 0) binds = 0; break;
    case IT_LOOKUP: if (check_lookup(ck, it) != 0) binds = 0; break;
    case IT_VAR: if (check_var(ck, it) != 0) binds = 0; break;
    case IT_SET: check_set(ck, it); break;
    case IT_CHECK:
        if (it->attribute && !scope_find(&ck->sc, it->attribute))
            check_error(ck, it->jpath, "unknown name '%s' in \"field\"", it->attribute);
        break;
    case IT_STRUCT: check_struct_use(ck, it); break;
    case IT_REGION: check_region(ck, it); break;
    case IT_REPEAT:
        if (it->repeat.unique) check_unique(ck, it);
        mark = scope_mark(&ck->sc);
        check_items(ck, &it->body);
        if (directory_of(ck->s, it)) check_record(ck, directory_of(ck->s, it));
        if (it->repeat.meta_value) check_metadata(ck, it);
        scope_pop_to(&ck->sc, mark);
        break;
    case IT_SWITCH: check_switch(ck, it); break;
    default: break;
    }
    if (binds) scope_bind(&ck->sc, it->name, it);
}

static void check_items(checker *ck, const item_list *body)
{
    int i;
    for (i = 0; i < body->n; i++) check_item(ck, body->v[i]);
}

int spec_check(const spec *s)
{
    checker ck;
    int errors;
    memset(&ck, 0, sizeof ck);
    ck.s = s;
    ck.d.path = s->path;
    list_structural(&ck, &s->body);
    if (ck.nstructural > 1) qsort(ck.structural, (size_t)ck.nstructural, sizeof *ck.structural, by_item_name);
    check_items(&ck, &s->body);
    errors = ck.d.errors;
    scope_free(&ck.sc);
    free(ck.done);
    free(ck.structural);
    diag_free(&ck.d);
    return errors ? -1 : 0;
}
