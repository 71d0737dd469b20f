/* afmt-gen: emit the writer of one spec.
 *
 * A writer must compute every field itself.  For each scope (the top level,
 * one repetition, one switch case; regions belong to their enclosing scope)
 * the emitter first decides how each field gets its value:
 *   1. its "write" expression;
 *   2. its "equals" literal;
 *   3. a binding to the array being written: the array field named as a
 *      payload's "shape" (and its count field: the rank), the fields of a
 *      list shape (dims[k]), the keys of the type table the payload's dtype
 *      comes from (reverse lookup), the text field named as its "name";
 *   4. a check "F == E" (rawarray's size == elbyte * prod(dims)).
 * These definitions are emitted in dependency order (a cycle is a spec
 * error), then the scope's constraints are evaluated on the computed values
 * (so a writer refuses what its validator would reject), then the bytes are
 * written in layout order.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "emit.h"
#include "layout.h"

typedef enum def_kind {
    D_EXPR, D_CONST, D_SHAPE_ARRF, D_RANK, D_DIM, D_LOOKUP, D_NAME_TEXT, D_LET, D_PAYLOAD,
    D_LAYOUT, /* a field the array's layout module defines (dim: its role) */
    D_COUNT,    /* a repeat's count field (emit_write_dir.c) */
    D_NAME_STR, /* a string field that is an array's name */
    D_DIR_OFFSET, /* a directory record's offset field */
    D_KV_KEY,     /* a metadata repetition's key, its value's type code, its number */
    D_KV_CODE,
    D_KV_NUMBER
} def_kind;

typedef struct def {
    def_kind kind;
    item *it;          /* item defined */
    expr *e;
    const char *text;
    item *arr;         /* array item the binding comes from */
    int dim;
    const check *from; /* the check "F == E" this definition comes from */
    char *c;           /* D_COUNT: its C value */
    int state;         /* 0 new, 1 in progress, 2 emitted */
    int late;          /* reads a var (or a late definition): emitted where its item
                        * stands, after the sets before it (late_defs) */
} def;

typedef struct scope {
    item **items; int nitems;      /* flattened through regions */
    item **arrays; int narrays;    /* through regions and switch cases */
    int *direct;                   /* arrays[i] is in this scope, not in a case */
    int multi;                     /* the format repeats arrays at the top */
    def *defs; int ndefs;
} scope;

static void add_item(scope *sc, item *it)
{
    item **n = realloc(sc->items, sizeof *n * (size_t)(sc->nitems + 1));
    if (!n) exit(2);
    sc->items = n;
    sc->items[sc->nitems++] = it;
}

static void add_array(scope *sc, item *it, int direct)
{
    int i;
    item **n;
    int *d;
    for (i = 0; i < sc->narrays; i++)
        if (strcmp(sc->arrays[i]->name, it->name) == 0) {
            if (direct) { sc->arrays[i] = it; sc->direct[i] = 1; }
            return;
        }
    n = realloc(sc->arrays, sizeof *n * (size_t)(sc->narrays + 1));
    d = realloc(sc->direct, sizeof *d * (size_t)(sc->narrays + 1));
    if (!n || !d) exit(2);
    sc->arrays = n;
    sc->direct = d;
    sc->direct[sc->narrays] = direct;
    sc->arrays[sc->narrays++] = it;
}

static int has_arrays(item_list *body);

static void collect(scope *sc, item_list *body, int in_case)
{
    int i, j;
    for (i = 0; i < body->n; i++) {
        item *it = body->v[i];
        if (!in_case) add_item(sc, it);
        if (it->kind == IT_REGION) {
            if (!in_case) sc->nitems--; /* the region itself is not a definition */
            if (!in_case) add_item(sc, it);
            collect(sc, &it->body, in_case);
        } else if (it->kind == IT_SWITCH) {
            for (j = 0; j < it->ncases; j++) collect(sc, &it->cases[j].body, 1);
        } else if (it->kind == IT_REPEAT && it->repeat.until_end && !sc->multi && has_arrays(&it->body)) {
            /* written once with the same array: bind it out here too */
            collect(sc, &it->body, 1);
        } else if (it->kind == IT_ARRAY) {
            add_array(sc, it, !in_case);
        }
    }
}

static def *add_def(scope *sc, def_kind k, item *it)
{
    def *n = realloc(sc->defs, sizeof *n * (size_t)(sc->ndefs + 1));
    if (!n) exit(2);
    sc->defs = n;
    memset(&sc->defs[sc->ndefs], 0, sizeof *n);
    sc->defs[sc->ndefs].kind = k;
    sc->defs[sc->ndefs].it = it;
    return &sc->defs[sc->ndefs++];
}

static def *find_def(scope *sc, const char *name)
{
    int i;
    for (i = 0; i < sc->ndefs; i++)
        if (sc->defs[i].it->name && strcmp(sc->defs[i].it->name, name) == 0) return &sc->defs[i];
    return NULL;
}

static item *find_item(scope *sc, const char *name)
{
    int i;
    for (i = 0; i < sc->nitems; i++)
        if (sc->items[i]->name && strcmp(sc->items[i]->name, name) == 0) return sc->items[i];
    return NULL;
}

static int uses_input_position(expr *e)
{
    int i;
    if (!e) return 0;
    /* skipped_comments(): a writer writes no comments, so the check holds */
    if (e->kind == E_CALL && (strcmp(e->sval, "remaining") == 0 || strcmp(e->sval, "offset") == 0 ||
                              strcmp(e->sval, "skipped_comments") == 0))
        return 1;
    if (uses_input_position(e->a) || uses_input_position(e->b) || uses_input_position(e->c)) return 1;
    for (i = 0; i < e->nargs; i++)
        if (uses_input_position(e->args[i])) return 1;
    return 0;
}

/* Decide a definition for every field, let and lookup of the scope. */
/* Every "cannot derive" error ends so: a format meant only for reading says
 * so at the top of its spec instead (spec/LANGUAGE.md, "read_only"). */
#define NO_WRITER_HINT " (or, if the format is only read, say why at the top: \"read_only\": \"...\")"

/* The definition of field it by array a it is bound to (a CSR array's
 * offsets, indices or nnz, a table's column types or names, a shape, a
 * rank, a dimension, a name), or NULL. */
static def *plan_binding(scope *sc, item *a, item *it)
{
    int k, role;
    def *d = NULL;
    const layout_module *lm = layout_by_id(a->array.layout);
    if (lm && lm->write_role && (role = lm->write_role(a, it)) != 0) {
        d = add_def(sc, D_LAYOUT, it);
        d->dim = role;
    } else if (a->array.shape_field && strcmp(a->array.shape_field, it->name) == 0 && it->field.count)
        d = add_def(sc, D_SHAPE_ARRF, it);
    if (!d && a->array.shape_field && it->field.count == NULL) {
        item *sf = find_item(sc, a->array.shape_field);
        if (sf && sf->field.count && sf->field.count->kind == E_NAME && strcmp(sf->field.count->sval, it->name) == 0)
            d = add_def(sc, D_RANK, it);
        /* "rank": the field it names is the array's rank */
        if (!d && a->array.rank && a->array.rank->kind == E_NAME && strcmp(a->array.rank->sval, it->name) == 0)
            d = add_def(sc, D_RANK, it);
    }
    for (k = 0; !d && k < a->array.nshape; k++)
        if (a->array.shape[k]->kind == E_NAME && strcmp(a->array.shape[k]->sval, it->name) == 0) {
            d = add_def(sc, D_DIM, it);
            d->dim = k;
        }
    if (!d && a->array.name_from && strcmp(a->array.name_from, it->name) == 0)
        d = add_def(sc, it->field.ftype == FT_STRING ? D_NAME_STR : D_NAME_TEXT, it);
    if (!d && a->array.offset_from && strcmp(a->array.offset_from, it->name) == 0) d = add_def(sc, D_DIR_OFFSET, it);
    if (d) d->arr = a;
    return d;
}

/* Is field it a key of one of the scope's lookups (which defines it)? */
static int is_lookup_key(scope *sc, const item *it)
{
    int j, k;
    for (j = 0; j < sc->nitems; j++) {
        item *lk = sc->items[j];
        if (lk->kind != IT_LOOKUP) continue;
        for (k = 0; k < lk->lookup.nkey; k++)
            if (lk->lookup.key[k]->kind == E_NAME && strcmp(lk->lookup.key[k]->sval, it->name) == 0) return 1;
    }
    return 0;
}

/* A definition of field it from a check `it == E` of the scope (E not
 * about the input's position), or NULL. */
static def *plan_from_check(scope *sc, item *it)
{
    int j, k;
    for (j = 0; j < sc->nitems; j++) {
        item *c = sc->items[j];
        int n = c->kind == IT_CHECK || c->kind == IT_FIELD ? c->nchecks : 0;
        for (k = 0; k < n; k++) {
            expr *e = c->checks[k].e;
            if (e && e->kind == E_BINARY && e->op == TK_EQ && e->a->kind == E_NAME && strcmp(e->a->sval, it->name) == 0 &&
                !uses_input_position(e->b)) {
                def *d = add_def(sc, D_EXPR, it);
                d->e = e->b;
                d->text = c->checks[k].text;
                d->from = &c->checks[k];
                return d;
            }
        }
    }
    return NULL;
}

/* A field of a metadata repetition the key-value defines: its key, the
 * type code of its value (the value structure's argument), a number
 * field named like the value (GGUF's general.alignment). */
static int plan_kv(scope *sc, emitter *m, item *it)
{
    const repeat_item *r = &m->wkv->repeat;
    if (it->field.ftype == FT_STRING && strcmp(it->name, r->meta_key) == 0) return add_def(sc, D_KV_KEY, it) != NULL;
    if (it->field.ftype == FT_INT && m->wkv_type && strcmp(it->name, m->wkv_type) == 0)
        return add_def(sc, D_KV_CODE, it) != NULL;
    if (it->field.ftype == FT_INT && strcmp(it->name, r->meta_value) == 0) return add_def(sc, D_KV_NUMBER, it) != NULL;
    return 0;
}

/* Field it: "write", "equals", a binding to an array, a lookup's key, a
 * check that gives it, an enclosing scope, or a generator error. */
static void plan_field(emitter *m, scope *sc, item *it)
{
    int j;
    if (it->write) {
        def *d = add_def(sc, D_EXPR, it);
        d->e = it->write;
        d->text = it->write_text;
        return;
    }
    if (it->field.equals || it->field.has_fequals || it->field.write_literal) {
        add_def(sc, D_CONST, it);
        return;
    }
    for (j = 0; j < sc->narrays; j++)
        if (sc->direct[j] && plan_binding(sc, sc->arrays[j], it)) return;
    if (m->wkv && !it->field.count && plan_kv(sc, m, it)) return;
    if (it->field.ftype == FT_INT && !it->field.count) {
        char *count = writer_count_value(m, sc->items, sc->nitems, it);
        if (count) {
            add_def(sc, D_COUNT, it)->c = count;
            return;
        }
    }
    if (is_lookup_key(sc, it) || plan_from_check(sc, it)) return;
    if (sym_peek(m, it->name) != NULL) {
        /* defined by an enclosing scope */
    } else if (it->field.ftype == FT_INT && it->field.count == NULL) {
        /* no rule gives this field a value: the writer cannot exist */
        gen_error(m, it->jpath, "the writer cannot derive a value for '%s': add \"write\", \"equals\" or a check '%s == ...'" NO_WRITER_HINT,
                  it->name, it->name);
    } else if (it->field.count) {
        gen_error(m, it->jpath, "the writer cannot derive the elements of '%s': add \"write\" or use it as an array's shape" NO_WRITER_HINT, it->name);
    } else if (it->field.ftype == FT_STRING) {
        gen_error(m, it->jpath, "the writer cannot derive string field '%s': name it as an array's or a directory's \"name\""
                  NO_WRITER_HINT, it->name);
    } else if (it->field.ftype == FT_FLOAT) {
        gen_error(m, it->jpath, "the writer cannot derive a value for float field '%s': add \"write\" or \"equals\"" NO_WRITER_HINT, it->name);
    } else if (it->field.ftype != FT_INT) {
        gen_error(m, it->jpath, "the writer cannot derive %s field '%s': add \"equals\" or \"write\", or name it as an array's \"name\""
                  NO_WRITER_HINT, it->field.ftype == FT_BYTES ? "bytes" : "text", it->name);
    }
}

static void plan(emitter *m, scope *sc)
{
    int i;
    for (i = 0; i < sc->nitems; i++) {
        item *it = sc->items[i];
        if (it->kind == IT_LET) { def *d = add_def(sc, D_LET, it); d->e = it->let.value; d->text = it->let.value_text; }
        if (it->kind == IT_LOOKUP) add_def(sc, D_LOOKUP, it);
    }
    for (i = 0; i < sc->narrays; i++) {
        def *d;
        if (!sc->direct[i] || sc->arrays[i]->array.dir_record) continue; /* a record's payload is the directory's */
        d = add_def(sc, D_PAYLOAD, sc->arrays[i]);
        d->arr = sc->arrays[i];
    }
    for (i = 0; i < sc->nitems; i++)
        if (sc->items[i]->kind == IT_FIELD) plan_field(m, sc, sc->items[i]);
}

static void collect_names(expr *e, const char ***names, int *n)
{
    int i;
    if (!e) return;
    if (e->kind == E_NAME || (e->kind == E_INDEX && e->a->kind == E_NAME)) {
        const char *nm = e->kind == E_NAME ? e->sval : e->a->sval;
        const char **g = realloc(*names, sizeof *g * (size_t)(*n + 1));
        if (!g) exit(2);
        *names = g;
        (*names)[(*n)++] = nm;
    }
    collect_names(e->a, names, n);
    collect_names(e->b, names, n);
    collect_names(e->c, names, n);
    for (i = 0; i < e->nargs; i++) collect_names(e->args[i], names, n);
}

static void emit_def(emitter *m, scope *sc, def *d, const char *chain);

/* The lookup whose result an array item uses, and the arrays of a lookup. */
static item *array_of_lookup(scope *sc, const char *lookup)
{
    int i;
    for (i = 0; i < sc->narrays; i++)
        if (sc->arrays[i]->array.dtype_from && strcmp(sc->arrays[i]->array.dtype_from, lookup) == 0) return sc->arrays[i];
    return NULL;
}

static void require(emitter *m, scope *sc, const char *name, const char *chain)
{
    def *d = find_def(sc, name);
    if (d) emit_def(m, sc, d, chain);
}

/* The literal value of C text "UINT64_C(n)" or "INT64_C(n)" (n >= 0). */
static int c_literal(const char *c, unsigned long long *v)
{
    char *end;
    const char *p = strncmp(c, "UINT64_C(", 9) == 0 ? c + 9 : strncmp(c, "INT64_C(", 8) == 0 ? c + 8 : NULL;
    if (!p || *p < '0' || *p > '9') return 0;
    *v = strtoull(p, &end, 10);
    return strcmp(end, ")") == 0;
}

static void emit_int_value(emitter *m, const blame *bl, item *it, cexpr v)
{
    sym *y;
    char *c;
    unsigned long long lit;
    if (v.t == VT_BOOL) { /* a truth value written as 0 or 1 */
        char *one = xprintf("afmt_u64_of_truth(%s)", v.c);
        free(v.c);
        v.c = one;
        v.t = VT_U;
        v.bounded = 1;
        v.max = 1;
    }
    if (c_literal(v.c, &lit) && (!it->field.is_signed || lit <= 0x7fffffffffffffffULL)) {
        /* a constant: written as the literal, no local */
        y = sym_push(m, SY_INT, it->name, it);
        y->t = it->field.is_signed ? VT_S : VT_U;
        str_printf(&y->c, "%s(%llu)", it->field.is_signed ? "INT64_C" : "UINT64_C", lit);
        str_printf(&y->off, "0");
        y->width = it->field.width;
        y->is_signed = it->field.is_signed;
        return;
    }
    if (it->field.is_signed) {
        if (v.t == VT_S) c = v.c;
        else if (v.bounded && v.max <= 0x7fffffffffffffffULL) c = xprintf("(int64_t)%s", v.c);
        else {
            char *fmt = xprintf("\"value %%\" PRIu64 \" of %s does not fit a signed field\"", it->name);
            char *cond = xprintf("%s > (uint64_t)INT64_MAX", v.c);
            emit_fail_if(m, cond, bl, "type", LEN_NONE, fmt, v.c);
            c = xprintf("(int64_t)%s", v.c);
            free(fmt);
            free(cond);
        }
    } else {
        if (v.t == VT_S) {
            char *fmt = xprintf("\"value %%\" PRId64 \" of %s is negative\"", it->name);
            char *cond = xprintf("%s < 0", v.c);
            emit_fail_if(m, cond, bl, "type", LEN_NONE, fmt, v.c);
            c = xprintf("(uint64_t)%s", v.c);
            free(fmt);
            free(cond);
        } else {
            c = v.c;
        }
    }
    line(m, "const %s v_%s = %s;", int_c_type(it->field.is_signed), it->name, c);
    y = sym_push(m, SY_INT, it->name, it);
    y->t = it->field.is_signed ? VT_S : VT_U;
    str_printf(&y->c, "v_%s", it->name);
    str_printf(&y->off, "0");
    y->width = it->field.width;
    y->is_signed = it->field.is_signed;
    y->bounded = v.bounded && v.t == VT_U;
    y->max = v.max;
}

/* A float field's value: a float expression, or an integer written only
 * when the float holds it exactly (at most 2^24 in magnitude for f32,
 * 2^53 for f64: a conservative bound, every such integer is exact). */
static void emit_float_value(emitter *m, const blame *bl, item *it, cexpr v)
{
    sym *y;
    const int bits = it->field.width == 4 ? 24 : 53;
    if (v.t == VT_U || v.t == VT_S) {
        char *fmt = xprintf("\"value %%\" %s \" of %s is not exact as an f%d\"", v.t == VT_S ? "PRId64" : "PRIu64",
                            it->name, it->field.width * 8);
        char *cond = v.t == VT_S ? xprintf("%s < -(INT64_C(1) << %d) || %s > (INT64_C(1) << %d)", v.c, bits, v.c, bits)
                                 : xprintf("%s > (UINT64_C(1) << %d)", v.c, bits);
        if (!(v.t == VT_U && v.bounded && v.max <= (1ULL << bits))) emit_fail_if(m, cond, bl, "type", LEN_NONE, fmt, v.c);
        free(fmt);
        free(cond);
    } else if (v.t != VT_F) {
        if (v.t != VT_NONE) gen_error(m, it->jpath, "\"write\" of float field '%s' is a float or an integer", it->name);
        free(v.c);
        return;
    }
    line(m, "const double v_%s = (double)%s;", it->name, v.c);
    y = sym_push(m, SY_FLOAT, it->name, it);
    y->t = VT_F;
    str_printf(&y->c, "v_%s", it->name);
    str_printf(&y->off, "0");
    y->width = it->field.width;
    y->big = it->field.big_endian;
    free(v.c);
}

static sym *push_text(emitter *m, item *it)
{
    sym *y = sym_push(m, SY_TEXT, it->name, it);
    str_printf(&y->c, "w_%s", it->name);
    str_printf(&y->off, "0");
    y->size = it->field.size;
    return y;
}

/* The writer's failure when cond holds: the format has no type code for
 * the array's element type. */
static void reverse_lookup_fail(emitter *m, item *lk, item *arr, char *cond)
{
    char *fmt = xprintf("\"%s cannot hold elements of type %%s\"", m->s->format);
    char *args = xprintf("afmt_array_type_name(A_%s)", arr->name);
    /* name the field the type code goes to, as the validator would */
    blame bl = blame_at(lk->lookup.nkey > 0 && lk->lookup.key[0]->kind == E_NAME ? lk->lookup.key[0]->sval : lk->name,
                        "AFMT_NO_INDEX", "0");
    emit_fail_if(m, cond, &bl, "type", LEN_NONE, fmt, args);
    free(fmt);
    free(args);
    free(cond);
}

/* The key field of lookup lk's key k in scope sc, or NULL. */
static item *key_field(scope *sc, item *lk, int k)
{
    return lk->lookup.key[k]->kind == E_NAME ? find_item(sc, lk->lookup.key[k]->sval) : NULL;
}

/* Declare the fields lookup lk's keys go to (0 when one cannot be). */
static int reverse_keys(emitter *m, scope *sc, item *lk)
{
    int k;
    for (k = 0; k < lk->lookup.nkey; k++) {
        item *kf = key_field(sc, lk, k);
        if (!kf || kf->kind != IT_FIELD) {
            if (lk->lookup.key[k]->kind == E_NAME && sym_peek(m, lk->lookup.key[k]->sval)) continue; /* defined outside: checked below */
            gen_error(m, lk->jpath, "the writer needs lookup key %d to be a field of the same scope", k);
            return 0;
        }
        if (kf->field.ftype == FT_INT) line(m, "%s v_%s = 0;", int_c_type(kf->field.is_signed), kf->name);
        else line(m, "uint8_t w_%s[%d] = {0};", kf->name, kf->field.size);
    }
    return 1;
}

/* A table of one literal key per entry: the validator's table, read
 * backwards (size and enc declared where used).  0 when not that simple. */
static int reverse_by_table(emitter *m, scope *sc, item *lk, item *arr, const table *tb, int *size_decl, int *enc_decl)
{
    item *kf = lk->lookup.nkey == 1 ? key_field(sc, lk, 0) : NULL;
    const char *tname = kf && kf->kind == IT_FIELD ? type_table(m, tb, kf->field.ftype == FT_INT ? 0 : kf->field.size) : NULL;
    if (!tname) return 0;
    line(m, "const afmt_type_entry *%s_entry = afmt_type_by_dtype(%s, %d, A_%s->dtype);", lk->lookup.cname, tname, tb->nentries,
         arr->name);
    reverse_lookup_fail(m, lk, arr, xprintf("!%s_entry", lk->lookup.cname));
    if (kf->field.ftype == FT_INT)
        line(m, "const %s v_%s = (%s)%s_entry->code;", int_c_type(kf->field.is_signed), kf->name,
             int_c_type(kf->field.is_signed), lk->lookup.cname);
    else /* NUL-padded to the field's size in the table */
        line(m, "const char *w_%s = %s_entry->text;", kf->name, lk->lookup.cname);
    /* declared where read: sizeof(), the payload */
    *size_decl = *enc_decl = decl_defer(m, "const afmt_elem %s_type = afmt_elem_of(%s_entry);", lk->lookup.cname, lk->lookup.cname);
    return 1;
}

/* A "when" entry with the key values to write ("elsize": the element
 * size): opaque elements go back as they came, when they have no type
 * name this format could not keep. */
static void reverse_when_entry(emitter *m, scope *sc, item *lk, item *arr, const table_entry *te, const char *dt, int first)
{
    int k;
    line(m, "%sif (A_%s->dtype == %s && A_%s->elsize > 0 && !A_%s->opaque_name[0]) {", first ? "" : "} else ", arr->name, dt,
         arr->name, arr->name);
    m->indent++;
    for (k = 0; k < lk->lookup.nkey && k < te->nwrite_key; k++) {
        item *kf = key_field(sc, lk, k);
        const expr *wk = te->write_key[k];
        if (!kf || kf->field.ftype != FT_INT) continue;
        if (wk->kind == E_INT)
            line(m, "v_%s = %llu;", kf->name, (unsigned long long)wk->ival);
        else
            line(m, "v_%s = A_%s->elsize;", kf->name, arr->name);
    }
    line(m, "%s_type.dtype = %s;", lk->lookup.cname, dt);
    line(m, "%s_type.size = %s;", lk->lookup.cname,
         strcmp(te->dtype, "opaque") == 0 ? xprintf("A_%s->elsize", arr->name) : xprintf("afmt_dtype_get(%s)->size", dt));
    m->indent--;
}

/* A keyed entry: its element type chosen, its keys written (a key known
 * from an outer scope must agree). */
static void reverse_entry(emitter *m, scope *sc, item *lk, item *arr, const table_entry *te, const char *dt, int first)
{
    sbuf cond = {0};
    int k;
    sb_printf(&cond, "A_%s->dtype == %s", arr->name, dt);
    for (k = 0; k < lk->lookup.nkey && k < te->nkey; k++) {
        item *kf = key_field(sc, lk, k);
        sym *ky = !kf && lk->lookup.key[k]->kind == E_NAME ? sym_find(m, lk->lookup.key[k]->sval) : NULL;
        if (ky && ky->kind == SY_INT && te->key[k]->kind == E_INT)
            sb_printf(&cond, " && %s == %llu", ky->c, (unsigned long long)te->key[k]->ival);
    }
    emit_if_open(m, first ? "" : "} else ", cond.s);
    sb_free(&cond);
    m->indent++;
    for (k = 0; k < lk->lookup.nkey && k < te->nkey; k++) {
        item *kf = key_field(sc, lk, k);
        if (!kf) continue;
        if (kf->field.ftype == FT_INT) {
            if (te->key[k]->kind == E_INT) line(m, "v_%s = %llu;", kf->name, (unsigned long long)te->key[k]->ival);
        } else if (te->key[k]->kind == E_STR) {
            char *q = c_quote(te->key[k]->sval, strlen(te->key[k]->sval));
            line(m, "memcpy(w_%s, %s, %zu);", kf->name, q, strlen(te->key[k]->sval));
            free(q);
        }
    }
    line(m, "%s_type.dtype = %s;", lk->lookup.cname, dt);
    line(m, "%s_type.size = afmt_dtype_get(%s)->size;", lk->lookup.cname, dt);
    if (te->encoding && strcmp(te->encoding, "bits-lsb") == 0) line(m, "%s_type.enc = AFMT_ENC_BITS_LSB;", lk->lookup.cname);
    m->indent--;
}

/* The block entries of tb in the chain: an opaque array of one of their
 * names and blocks (copied from a file of a format that holds it) takes
 * that entry's code.  0 when tb has none. */
static int reverse_blocks(emitter *m, scope *sc, item *lk, item *arr, const table *tb, int first)
{
    int nb = 0;
    const char *bt = lk->lookup.nkey == 1 ? block_table(m, tb, &nb) : NULL;
    item *kf = bt ? key_field(sc, lk, 0) : NULL;
    if (!bt) return 0;
    if (!kf || kf->field.ftype != FT_INT) {
        gen_error(m, lk->jpath, "the writer needs the key of a block type to be an integer field of the same scope");
        return 0;
    }
    line(m, "%sif (afmt_block_of(%s, %d, A_%s) != NULL) {", first ? "" : "} else ", bt, nb, arr->name);
    m->indent++;
    line(m, "const afmt_block_entry *blk = afmt_block_of(%s, %d, A_%s);", bt, nb, arr->name);
    line(m, "v_%s = blk->code;", kf->name);
    line(m, "%s_type = afmt_elem_of_block(blk);", lk->lookup.cname);
    m->indent--;
    return 1;
}

/* A table of two keys, both unsigned integer fields of this scope, whose
 * plain entries come first (table2_plain_count): the validator's
 * afmt_type_entry2 table read backwards, one runtime call; the number of
 * entries it covers (the chain goes on with the rest), or 0. */
static int reverse_by_table2(emitter *m, scope *sc, item *lk, item *arr, const table *tb)
{
    const int nplain = lk->lookup.nkey == 2 ? table2_plain_count(tb) : 0;
    const char *tname;
    int k;
    for (k = 0; k < lk->lookup.nkey; k++) {
        item *kf = key_field(sc, lk, k);
        if (!kf || kf->kind != IT_FIELD || kf->field.ftype != FT_INT || kf->field.is_signed) return 0;
    }
    if (nplain == 0 || !(tname = type_table2(m, tb, nplain))) return 0;
    line(m, "const afmt_type_entry2 *%s_entry = afmt_type_by_dtype2(%s, %d, A_%s->dtype);", lk->lookup.cname, tname, nplain,
         arr->name);
    line(m, "if (%s_entry) {", lk->lookup.cname);
    m->indent++;
    for (k = 0; k < 2; k++) line(m, "v_%s = %s_entry->key[%d];", key_field(sc, lk, k)->name, lk->lookup.cname, k);
    line(m, "%s_type = afmt_elem_of2(%s_entry);", lk->lookup.cname, lk->lookup.cname);
    m->indent--;
    return nplain;
}

/* A table of plain types and block types (type_block_tables: gguf's
 * ggml), its key a field of this scope: the validator's two tables read
 * backwards, the array's dtype among the plain entries, else its block
 * type among the blocks.  0 when the table is not like that. */
static int reverse_by_block_tables(emitter *m, scope *sc, item *lk, item *arr, const table *tb)
{
    item *kf = lk->lookup.nkey == 1 ? key_field(sc, lk, 0) : NULL;
    const char *tname, *blocks = NULL, *t;
    int nplain = 0, nblocks = 0;
    if (!kf || kf->kind != IT_FIELD || kf->field.ftype != FT_INT) return 0;
    tname = type_block_tables(m, tb, &nplain, &blocks, &nblocks);
    if (!tname) return 0;
    t = int_c_type(kf->field.is_signed);
    line(m, "const afmt_type_entry *%s_entry = afmt_type_by_dtype(%s, %d, A_%s->dtype);", lk->lookup.cname, tname, nplain,
         arr->name);
    line(m, "if (%s_entry) {", lk->lookup.cname);
    line(m, "    v_%s = (%s)%s_entry->code;", kf->name, t, lk->lookup.cname);
    line(m, "    %s_type = afmt_elem_of(%s_entry);", lk->lookup.cname, lk->lookup.cname);
    reverse_blocks(m, sc, lk, arr, tb, 0);
    line(m, "}");
    return 1;
}

/* A chain over the table's writable entries, in its order (a table of two
 * keys: its plain entries by reverse_by_table2, then the rest). */
static void reverse_chain(emitter *m, scope *sc, item *lk, item *arr, const table *tb, int *size_decl, int *enc_decl)
{
    int i, first, nplain, blocks_done = 0;
    line(m, "afmt_elem %s_type = AFMT_ELEM_NONE;", lk->lookup.cname);
    *size_decl = *enc_decl = 0; /* always declared */
    if (reverse_by_block_tables(m, sc, lk, arr, tb)) {
        reverse_lookup_fail(m, lk, arr, xprintf("%s_type.dtype == AFMT_DTYPE_INVALID", lk->lookup.cname));
        return;
    }
    nplain = reverse_by_table2(m, sc, lk, arr, tb);
    first = nplain == 0;
    for (i = nplain; i < tb->nentries; i++) {
        const table_entry *te = &tb->entries[i];
        const char *dt = dtype_enum(te->dtype ? te->dtype : "");
        if (!te->key && te->write_key && te->writable && dt) {
            reverse_when_entry(m, sc, lk, arr, te, dt, first);
            first = 0;
            continue;
        }
        if (te->block_elems > 0) {
            if (!blocks_done && reverse_blocks(m, sc, lk, arr, tb, first)) first = 0;
            blocks_done = 1;
            continue;
        }
        if (!te->key || !te->writable || !dt || strcmp(te->dtype, "opaque") == 0) continue;
        reverse_entry(m, sc, lk, arr, te, dt, first);
        first = 0;
    }
    if (!first) line(m, "}");
    reverse_lookup_fail(m, lk, arr, xprintf("%s_type.dtype == AFMT_DTYPE_INVALID", lk->lookup.cname));
}

/* Whether key k of every entry a writer may choose from tb is a literal:
 * then *max is the largest. */
static int key_bound(const table *tb, int k, unsigned long long *max)
{
    int i;
    *max = 0;
    for (i = 0; i < tb->nentries; i++) {
        const table_entry *te = &tb->entries[i];
        const expr *key = te->key && k < te->nkey ? te->key[k] : te->write_key && k < te->nwrite_key ? te->write_key[k] : NULL;
        if (!te->writable) continue;
        if (!key || key->kind != E_INT) return 0;
        if (key->ival > *max) *max = key->ival;
    }
    return 1;
}

/* Whether a writer may choose a bit-packed entry of table tb. */
static int writes_bits(const table *tb)
{
    int i;
    for (i = 0; i < tb->nentries; i++)
        if (tb->entries[i].writable && tb->entries[i].encoding && strcmp(tb->entries[i].encoding, "bits-lsb") == 0)
            return 1;
    return 0;
}

static void emit_reverse_lookup(emitter *m, scope *sc, item *lk)
{
    const table *tb = find_table(m->s, lk->lookup.table ? lk->lookup.table : "");
    item *arr = array_of_lookup(sc, lk->name);
    int k;
    int size_decl, enc_decl; /* declared where used: sizeof(), the payload */
    sym *y;
    if (!tb) return;
    if (!arr) {
        gen_error(m, lk->jpath, "the writer needs an array item whose \"dtype\" is '%s'", lk->name);
        return;
    }
    /* a table read backwards declares its key; else declare the key
     * fields, then choose the first writable entry */
    if (!reverse_by_table(m, sc, lk, arr, tb, &size_decl, &enc_decl)) {
        if (!reverse_keys(m, sc, lk)) return;
        reverse_chain(m, sc, lk, arr, tb, &size_decl, &enc_decl);
    }
    if (arr->array.dir_record && writes_bits(tb)) {
        /* a directory's payloads are written as they are (afmt_write_dir_write),
         * not bit-packed as its validator reads such an entry */
        char *fmt = xprintf("\"%s cannot write bit-packed elements (%%s) in a directory\"", m->s->format);
        char *args = xprintf("afmt_array_type_name(A_%s)", arr->name);
        blame bl = blame_at(lk->lookup.nkey > 0 && lk->lookup.key[0]->kind == E_NAME ? lk->lookup.key[0]->sval : lk->name,
                            "AFMT_NO_INDEX", "0");
        char *cond = xprintf("%s_type.enc == AFMT_ENC_BITS_LSB", lk->lookup.cname);
        decl_use(m, enc_decl);
        emit_fail_if(m, cond, &bl, "type", LEN_NONE, fmt, args);
        free(cond);
        free(fmt);
        free(args);
    }
    for (k = 0; k < lk->lookup.nkey; k++) {
        item *kf = key_field(sc, lk, k);
        def *kd;
        if (!kf) continue;
        if (kf->field.ftype == FT_INT) {
            sym *ky = sym_push(m, SY_INT, kf->name, kf);
            ky->t = kf->field.is_signed ? VT_S : VT_U;
            str_printf(&ky->c, "v_%s", kf->name);
            str_printf(&ky->off, "0");
            /* a code from the table: stored with no range check when they all fit */
            ky->bounded = !kf->field.is_signed && key_bound(tb, k, &ky->max);
        } else {
            push_text(m, kf);
        }
        kd = find_def(sc, kf->name);
        if (kd) kd->state = 2;
    }
    y = sym_push(m, SY_LOOKUP, lk->name, lk);
    str_printf(&y->c, "%s_type", lk->lookup.cname);
    y->tb = tb;
    y->decl = size_decl;
    y->enc_decl = enc_decl;
}

/* A let, or a field written as an expression ("write", or `F == E` among the checks). */
static void def_value(emitter *m, def *d, const blame *bl)
{
    item *it = d->it;
    cexpr v = emit_expr(m, bl, d->e, d->text);
    if (d->kind == D_LET) {
        sym *y;
        line(m, "const %s v_%s = %s;", v.t == VT_S ? "int64_t" : "uint64_t", it->name, v.c);
        y = sym_push(m, SY_INT, it->name, it);
        y->decl = decl_new(m); /* as the validator's (emit_let) */
        decl_unless_used(m, y->decl, "(void)v_%s; /* not read */", it->name);
        y->t = v.t == VT_S ? VT_S : VT_U;
        str_printf(&y->c, "v_%s", it->name);
        str_printf(&y->off, "0");
    } else if (it->field.ftype == FT_INT && !it->field.count) {
        emit_int_value(m, bl, it, v);
    } else if (it->field.ftype == FT_FLOAT) {
        emit_float_value(m, bl, it, v);
    } else {
        gen_error(m, it->jpath, "\"write\" of a text or array field is not supported");
    }
}

/* A field that "equals" a literal: the literal itself. */
static void def_const(emitter *m, def *d, const blame *bl)
{
    item *it = d->it;
    if (it->field.ftype == FT_FLOAT) { /* the literal, exact in the field's type (load_item.c) */
        sym *y = sym_push(m, SY_FLOAT, it->name, it);
        (void)bl;
        y->t = VT_F;
        str_printf(&y->c, "%.17g", it->field.fequals);
        if (!strpbrk(y->c, ".eEni")) str_printf(&y->c, "%.17g.0", it->field.fequals);
        str_printf(&y->off, "0");
        y->width = it->field.width;
        y->big = it->field.big_endian;
    } else if (it->field.ftype == FT_INT) {
        cexpr v;
        memset(&v, 0, sizeof v); /* range-checked as any value (it was uninitialised) */
        v.c = xprintf("UINT64_C(%llu)", (unsigned long long)it->field.equals->ival);
        v.t = VT_U;
        emit_int_value(m, bl, it, v);
    } else {
        /* the literal itself ("equals", else "write"), NUL-padded to the field's size */
        const char *lit = it->field.equals ? it->field.equals->sval : it->field.write_literal;
        size_t len = strlen(lit);
        char *padded = calloc(1, (size_t)it->field.size + len + 1);
        char *q;
        if (!padded) exit(2);
        memcpy(padded, lit, len);
        q = c_quote(padded, len > (size_t)it->field.size ? len : (size_t)it->field.size);
        /* a short literal is written where it is used; a long one (255
         * characters of C or more: the threshold the generated code has
         * always had) from an array of its own, declared once */
        if (strlen(q) < 256) {
            str_printf(&push_text(m, it)->c, "%s", q);
        } else {
            line(m, "uint8_t w_%s[%d] = {0};", it->name, it->field.size);
            line(m, "memcpy(w_%s, %s, %zu);", it->name, q, len);
            push_text(m, it);
        }
        free(q);
        free(padded);
    }
}

static char *rank_holds(emitter *m, int rank);

/* An array field that is an array's shape: the array's dims. */
/* An array field whose first "rank" entries are the shape: its fixed
 * count, the array's dims, then the spec's "fill". */
static void def_shape_prefix(emitter *m, def *d)
{
    item *it = d->it;
    const char *a = d->arr->name;
    const expr *cnt = it->field.count;
    unsigned long long k;
    char *at;
    if (!cnt || cnt->kind != E_INT || cnt->ival == 0 || cnt->ival > 255) {
        gen_error(m, it->jpath, "the writer writes '%s' (the first \"rank\" entries of which are %s's shape) only with a "
                                "literal \"count\" from 1 to 255 (AFMT_RANK_CAP)" NO_WRITER_HINT, it->name, a);
        return;
    }
    k = (unsigned long long)cnt->ival;
    line(m, "if (A_%s->rank > %llu)", a, k);
    m->indent++;
    line(m, "return afmt_write_fail_rank(A_%s, \"%s\", \"%s holds at most %llu dimensions (%s)\", err);", a, a,
         m->s->format, k, it->name);
    m->indent--;
    line(m, "uint64_t w_%s[%llu];", it->name, k);
    /* a directory's "fastest-first": the rank entries are the dims reversed */
    at = d->arr->array.dims_reversed ? xprintf("A_%s->rank - 1 - k", a) : xstrdup("k");
    line(m, "for (uint64_t k = 0; k < %llu; k++) w_%s[k] = k < A_%s->rank ? A_%s->dims[%s] : UINT64_C(%llu);", k,
         it->name, a, a, at, (unsigned long long)d->arr->array.fill);
    free(at);
    line(m, "const uint64_t n_%s = %llu;", it->name, k);
}

static void def_shape_arrf(emitter *m, def *d)
{
    item *it = d->it;
    sym *y;
    if (d->arr->array.rank) {
        def_shape_prefix(m, d);
    } else {
        if (it->field.count && it->field.count->kind == E_INT) {
            /* a fixed number of dims: arrays of that rank only (they were
             * written whole, into the bytes of the fields after it) */
            char *holds = rank_holds(m, (int)it->field.count->ival);
            line(m, "if (A_%s->rank != %llu)", d->arr->name, (unsigned long long)it->field.count->ival);
            m->indent++;
            line(m, "return afmt_write_fail_rank(A_%s, \"%s\", %s, err);", d->arr->name, d->arr->name, holds);
            m->indent--;
            free(holds);
        }
        line(m, "const uint64_t *w_%s = A_%s->dims;", it->name, d->arr->name);
        line(m, "const uint64_t n_%s = A_%s->rank;", it->name, d->arr->name);
    }
    if (it->field.is_signed)
        line(m, "if (afmt_write_need_signed_dims(A_%s, \"%s\", err)) return -1;", d->arr->name, it->name);
    y = sym_push(m, SY_ARRF, it->name, it);
    y->t = it->field.is_signed ? VT_S : VT_U;
    str_printf(&y->c, "w_%s", it->name);
    str_printf(&y->count, "n_%s", it->name);
    str_printf(&y->off, "0");
    if (d->arr->array.dims_reversed && !d->arr->array.rank) /* the view's dims, fastest first (else w_ is) */
        str_printf(&y->elem, it->field.is_signed ? "(int64_t)w_%s[n_%s - 1 - (%%s)]" : "w_%s[n_%s - 1 - (%%s)]",
                     it->name, it->name);
    else
        str_printf(&y->elem, it->field.is_signed ? "(int64_t)w_%s[%%s]" : "w_%s[%%s]", it->name);
    y->width = it->field.width;
    y->is_signed = it->field.is_signed;
}

/* A text field that is an array's name. */
static void def_name_text(emitter *m, def *d, const blame *bl)
{
    item *it = d->it;
    line(m, "uint8_t w_%s[%d] = {0};", it->name, it->field.size);
    {
        char *fmt = xprintf("\"array name \\\"%%s\\\" does not fit %d bytes of printable ASCII\"", it->field.size);
        char *args = xprintf("A_%s->name", d->arr->name);
        char *cond = xprintf("afmt_text_fill(w_%s, %d, A_%s->name) != 0", it->name, it->field.size, d->arr->name);
        emit_fail_if(m, cond, bl, "type", LEN_NONE, fmt, args);
        free(fmt); free(args); free(cond);
    }
    push_text(m, it);
}

/* A string field that is an array's name: its bytes, as a C string. */
static void def_name_str(emitter *m, def *d)
{
    item *it = d->it;
    sym *y;
    const char *prefix = d->arr->array.default_name ? d->arr->array.default_name : "NULL";
    line(m, "char s_%s[AFMT_NAME_MAX];", it->name);
    line(m, "if (afmt_write_dir_name(A_%s, ai, %s, s_%s, err) != 0) return -1;", d->arr->name, prefix, it->name);
    line(m, "const uint64_t len_%s = strlen(s_%s);", it->name, it->name);
    y = sym_push(m, SY_STR, it->name, it);
    y->t = VT_U;
    str_printf(&y->c, "len_%s", it->name);
    str_printf(&y->elem, "s_%s", it->name);
    str_printf(&y->off, "0");
    y->width = it->field.len_width;
}

/* A metadata repetition's key (a string), its value's type code, the
 * value as a number. */
static void def_kv(emitter *m, def *d, const blame *bl)
{
    item *it = d->it;
    const char *kv = m->wkv_c;
    if (d->kind == D_KV_KEY) {
        sym *y;
        line(m, "const uint64_t len_%s = %s->key_len;", it->name, kv);
        y = sym_push(m, SY_STR, it->name, it);
        y->t = VT_U;
        str_printf(&y->c, "len_%s", it->name);
        str_printf(&y->elem, "%s->key", kv);
        str_printf(&y->off, "0");
        y->width = it->field.len_width;
    } else if (d->kind == D_KV_CODE) {
        char *cond = xprintf("afmt_value_code(&%s, &%s->value, &code_%s) != 0", m->wkv_grammar, kv, it->name);
        char *fmt = xprintf("\"%s has no metadata value of kind %%d and %%u bytes (key %%.*s)\"", m->s->format);
        char *args = xprintf("(int)%s->value.kind, %s->value.width, (int)(%s->key_len < 63 ? %s->key_len : 63), "
                             "(const char *)%s->key", kv, kv, kv, kv, kv);
        blame b2 = blame_at(it->name, "ki", "0");
        line(m, "uint64_t code_%s;", it->name);
        emit_fail_if(m, cond, &b2, "type", LEN_NONE, fmt, args);
        free(cond); free(fmt); free(args);
        writer_int(m, it, xprintf("code_%s", it->name), VT_U);
    } else {
        line(m, "uint64_t num_%s;", it->name);
        line(m, "if (afmt_value_u64(&%s->value, \"%s\", AFMT_NO_INDEX, &num_%s, err) != 0) return -1;", kv, it->name, it->name);
        (void)bl;
        writer_int(m, it, xprintf("num_%s", it->name), VT_U);
    }
}

/* The payload's size (nbytes_<name>). */
static void def_payload(emitter *m, def *d)
{
    item *it = d->it;
    sym *lk = sym_peek(m, it->array.dtype_from ? it->array.dtype_from : "");
    const layout_module *lm = layout_by_id(it->array.layout);
    if (lm && lm->write_size) {
        lm->write_size(m, it, lk && lk->kind == SY_LOOKUP ? lk : NULL);
        return;
    }
    if (!lk || lk->kind != SY_LOOKUP) {
        gen_error(m, it->jpath, "the writer cannot find lookup '%s'", it->array.dtype_from ? it->array.dtype_from : "");
        return;
    }
    {
        /* the size of the payload: declared where read (nbytes(), the
         * compressed copy) or where a call fills it (which checks) */
        sym *pay = sym_peek(m, it->name);
        int nbytes_decl = decl_defer(m, "uint64_t nbytes_%s;", it->name);
        if (pay) pay->nbytes_decl = nbytes_decl;
        decl_use(m, nbytes_decl);
        decl_use(m, lk->enc_decl);
    }
    if (encoding_of(it) && encoding_of(it)->write_size) {
        encoding_of(it)->write_size(m, it, lk);
    } else {
        line(m, "if (afmt_payload_size(A_%s, %s.enc, &nbytes_%s, err) != 0) return -1;", it->name, lk->c, it->name);
    }
}
/* A field whose value is the C expression c (of type t) the array gives
 * (its rank, a dimension, its nnz). */
static void def_from_array(emitter *m, def *d, const blame *bl, char *c, vtype t)
{
    cexpr v;
    memset(&v, 0, sizeof v); /* not bounded: an array's dims and rank are checked against the field */
    v.c = c;
    v.t = t;
    emit_int_value(m, bl, d->it, v);
}

/* The definitions d reads, first (chain: the definitions that led here,
 * for the message of a cycle); 0 when d is done or in a cycle. */
static int def_requires(emitter *m, scope *sc, def *d, const char *chain)
{
    const char **names = NULL;
    int n = 0, i;
    item *it = d->it;
    char *mychain;
    if (d->state == 2) return 0;
    mychain = xprintf("%s%s%s", chain, *chain ? " -> " : "", it->name);
    if (d->state == 1) {
        gen_error(m, it->jpath, "the writer's definitions form a cycle: %s", mychain);
        free(mychain);
        return 0;
    }
    d->state = 1;
    collect_names(d->e, &names, &n);
    if (d->kind == D_PAYLOAD && it->array.dtype_from) {
        collect_names(it->array.compressed, &names, &n);
        names = realloc(names, sizeof *names * (size_t)(n + 1));
        names[n++] = it->array.dtype_from;
    }
    for (i = 0; i < n; i++) require(m, sc, names[i], mychain);
    free(names);
    free(mychain);
    return 1;
}

static void emit_def(emitter *m, scope *sc, def *d, const char *chain)
{
    item *it = d->it;
    blame bl;
    if (!def_requires(m, sc, d, chain)) return;
    m->jpath = it->jpath;
    bl = blame_at(it->name, "AFMT_NO_INDEX", "0");
    switch (d->kind) {
    case D_LET: case D_EXPR: def_value(m, d, &bl); break;
    case D_CONST: def_const(m, d, &bl); break;
    case D_SHAPE_ARRF: def_shape_arrf(m, d); break;
    case D_RANK:
        /* a rank is at most AFMT_RANK_CAP: it fits either signedness */
        def_from_array(m, d, &bl, xprintf("(%s)A_%s->rank", it->field.is_signed ? "int64_t" : "uint64_t", d->arr->name),
                       it->field.is_signed ? VT_S : VT_U);
        break;
    case D_DIM: def_from_array(m, d, &bl, xprintf("A_%s->dims[%d]", d->arr->name, d->dim), VT_U); break;
    case D_NAME_TEXT: def_name_text(m, d, &bl); break;
    case D_NAME_STR: def_name_str(m, d); break;
    case D_COUNT: writer_int(m, it, d->c, VT_U); d->c = NULL; break;
    case D_DIR_OFFSET: def_from_array(m, d, &bl, xstrdup(d->arr->array.offset_c), VT_U); break;
    case D_KV_KEY: case D_KV_CODE: case D_KV_NUMBER: def_kv(m, d, &bl); break;
    case D_LOOKUP: emit_reverse_lookup(m, sc, it); break;
    case D_LAYOUT: layout_by_id(d->arr->array.layout)->write_field(m, d->arr, it, d->dim); break;
    case D_PAYLOAD: def_payload(m, d); break;
    }
    d->state = 2;
}

/* Whether the items of b (nested ones too) declare a var named name. */
static int declares_var(const item_list *b, const char *name)
{
    int i, j;
    for (i = 0; i < b->n; i++) {
        const item *it = b->v[i];
        if (it->kind == IT_VAR && it->name && strcmp(it->name, name) == 0) return 1;
        if (declares_var(&it->body, name)) return 1;
        for (j = 0; j < it->ncases; j++)
            if (declares_var(&it->cases[j].body, name)) return 1;
    }
    return 0;
}

/* Whether e reads a var the writer has not declared yet where the scope's
 * checks are evaluated (before its items are written: a var set while
 * they are, `count == seen` after a repeat; spec fuzzer seed 300009). */
static int reads_later_var(emitter *m, const expr *e)
{
    int i;
    if (!e) return 0;
    if (e->kind == E_NAME && declares_var(&m->s->body, e->sval) && !sym_peek(m, e->sval)) return 1;
    if (reads_later_var(m, e->a) || reads_later_var(m, e->b) || reads_later_var(m, e->c)) return 1;
    for (i = 0; i < e->nargs; i++)
        if (reads_later_var(m, e->args[i])) return 1;
    return 0;
}

/* Whether e names a late definition of sc not emitted yet. */
static int reads_late(const scope *sc, const expr *e)
{
    const char **names = NULL;
    int n = 0, i, k, late = 0;
    collect_names((expr *)e, &names, &n);
    for (i = 0; i < n && !late; i++)
        for (k = 0; k < sc->ndefs && !late; k++)
            late = sc->defs[k].late && sc->defs[k].state != 2 && sc->defs[k].it->name &&
                   strcmp(sc->defs[k].it->name, names[i]) == 0;
    free(names);
    return late;
}

/* Whether the writer evaluates check c: not one about the input's
 * position or reading a var not declared yet or a late definition (the
 * scope's checks are evaluated before its items are written), nor one
 * that defined its field (it holds by construction). */
static int write_checks(emitter *m, const scope *sc, const check *c)
{
    int k;
    if (uses_input_position(c->e) || reads_later_var(m, c->e) || reads_late(sc, c->e)) return 0;
    for (k = 0; k < sc->ndefs; k++)
        if (sc->defs[k].from == c) return 0;
    return 1;
}

/* A "byte_order" item: the writer writes the spec's "endian", so the
 * values it writes must choose that order (else its file would be read in
 * the other one): checked like a constraint. */
static void write_byte_order_check(emitter *m, item *it)
{
    blame bl = blame_at("", "AFMT_NO_INDEX", "0");
    char *big = emit_bool(m, &bl, it->arg, it->arg_text);
    char *cond = xprintf(m->s->big_endian ? "!%s" : "%s", big);
    char *mt = c_format_body(it->arg_text ? it->arg_text : "?");
    char *fmt = xprintf("\"the values written make `%s` %s, but the writer writes %s-endian (the spec's endian)\"", mt,
                        m->s->big_endian ? "false" : "true", m->s->big_endian ? "big" : "little");
    m->jpath = it->jpath;
    emit_fail_if(m, cond, &bl, "constraint", LEN_NONE, fmt, NULL);
    free(big); free(cond); free(mt); free(fmt);
}

/* Constraints of the scope, evaluated on the values computed. */
static void emit_scope_checks(emitter *m, scope *sc)
{
    blame bl;
    int i, j;
    for (i = 0; i < sc->nitems; i++) {
        item *it = sc->items[i];
        if (it->kind == IT_BYTE_ORDER) write_byte_order_check(m, it);
        if (it->kind != IT_FIELD && it->kind != IT_CHECK) continue;
        {
            /* peeked: the value it names is read only if a check is
             * evaluated (a let whose one check is about the input's
             * position is not: spec fuzzer seed 21015) */
            sym *attr = it->kind == IT_FIELD ? sym_peek(m, it->name) : it->attribute ? sym_peek(m, it->attribute) : NULL;
            int skipped = 0;
            for (j = 0; j < it->nchecks; j++) skipped += !write_checks(m, sc, &it->checks[j]);
            if (attr && skipped < it->nchecks) attr = sym_find(m, attr->name);
            bl = blame_at(attr ? attr->name : "", "AFMT_NO_INDEX", "0");
            if (attr && attr->kind != SY_INT) attr = NULL;
            if (skipped == 0 && it->nchecks > 0) {
                /* all of them: the function the validator calls, if it has one */
                emit_checks(m, &bl, it->checks, it->nchecks, attr);
            } else {
                for (j = 0; j < it->nchecks; j++)
                    if (write_checks(m, sc, &it->checks[j])) {
                        m->jpath = it->checks[j].jpath;
                        emit_check_body(m, &bl, &it->checks[j], attr);
                    }
            }
        }
        if (it->kind == IT_FIELD && it->field.count && it->field.neach) {
            sym *arr = sym_find(m, it->name);
            int mark;
            if (!arr || arr->kind != SY_ARRF) continue;
            line(m, "for (uint64_t i_%s = 0; i_%s < n_%s; i_%s++) {", it->name, it->name, it->name, it->name);
            m->indent++;
            {
                char *el = xprintf(arr->elem, xprintf("i_%s", it->name));
                line(m, "const %s e_%s = %s;", int_c_type(it->field.is_signed), it->name, el);
                free(el);
            }
            mark = sym_mark(m);
            {
                sym *e = sym_push(m, SY_INT, it->name, it);
                sym *ix = sym_push(m, SY_BUILTIN, "index", it);
                char *ic = xprintf("i_%s", it->name);
                e->t = arr->t;
                str_printf(&e->c, "e_%s", it->name);
                ix->t = VT_U;
                str_printf(&ix->c, "i_%s", it->name);
                bl = blame_at(it->name, ic, "0");
                emit_checks(m, &bl, it->field.each, it->field.neach, e);
                free(ic);
            }
            sym_pop_to(m, mark);
            m->indent--;
            line(m, "}");
        }
    }
}

/* Whether dimension k of array a is a field the writer takes from it. */
static int dim_is_defined(const scope *sc, const item *a, int k)
{
    int i;
    for (i = 0; i < sc->ndefs; i++)
        if (sc->defs[i].kind == D_DIM && sc->defs[i].arr == a && sc->defs[i].dim == k) return 1;
    return 0;
}

/* A list shape's entries that are no field the writer takes from the
 * array (a literal, `rows - rows`, a let): the values written must make
 * each the array's dimension, else the file would say another shape than
 * the payload written holds and fail its own validator (spec fuzzer
 * seeds 31222 and 31229: a shape ["n", "n - n"]).  Checked as the
 * scope's constraints are, before anything is written. */
static void emit_shape_checks(emitter *m, scope *sc)
{
    int i, k;
    for (i = 0; i < sc->narrays; i++) {
        item *a = sc->arrays[i];
        if (!sc->direct[i] || a->array.shape_field || a->array.dir_record) continue;
        for (k = 0; k < a->array.nshape; k++) {
            expr *e = a->array.shape[k];
            const char *text = a->array.shape_text ? a->array.shape_text[k] : "?";
            blame bl = blame_at(a->name, "AFMT_NO_INDEX", "0");
            char *v, *cond, *fmt, *args, *body;
            if (dim_is_defined(sc, a, k) || uses_input_position(e) || reads_later_var(m, e) || reads_late(sc, e))
                continue;
            v = emit_u64(m, &bl, e, text);
            cond = xprintf("A_%s->rank > %d && (%s) != A_%s->dims[%d]", a->name, k, v, a->name, k);
            body = c_format_body(text);
            fmt = xprintf("\"dimension %d of '%s' is %%llu, but the values written make its shape's `%s` %%llu\"",
                          k, a->name, body);
            args = xprintf("(unsigned long long)A_%s->dims[%d], (unsigned long long)(%s)", a->name, k, v);
            m->jpath = a->jpath;
            emit_fail_if(m, cond, &bl, "usage", LEN_NONE, fmt, args);
            free(v); free(cond); free(body); free(fmt); free(args);
        }
    }
}

static void write_items(emitter *m, item_list *body);

/* Whether item it (or one nested in it) sets var name. */
static int sets_var(const item *it, const char *name)
{
    int i, j;
    if (it->kind == IT_SET && it->attribute && strcmp(it->attribute, name) == 0) return 1;
    for (i = 0; i < it->body.n; i++)
        if (sets_var(it->body.v[i], name)) return 1;
    for (j = 0; j < it->ncases; j++)
        for (i = 0; i < it->cases[j].body.n; i++)
            if (sets_var(it->cases[j].body.v[i], name)) return 1;
    return 0;
}

/* Mark the definitions that read a var, directly or through others: a
 * var's value is the one where the item stands, after the sets before it
 * (a running sum: `total == running` after the repeat that adds to it),
 * so they are emitted there (late_def), not with the scope's others. */
static void late_defs(emitter *m, scope *sc)
{
    int i, j, changed = 1;
    while (changed) {
        changed = 0;
        for (i = 0; i < sc->ndefs; i++) {
            def *d = &sc->defs[i];
            const char **names = NULL;
            int n = 0;
            if (d->late || (d->kind != D_EXPR && d->kind != D_LET)) continue;
            collect_names(d->e, &names, &n);
            for (j = 0; j < n && !d->late; j++) {
                def *o = find_def(sc, names[j]);
                d->late = declares_var(&m->s->body, names[j]) || (o && o->late);
            }
            changed |= d->late;
            free(names);
        }
    }
}

/* The index in sc->items of the item holding check c, or -1. */
static int check_owner(const scope *sc, const check *c)
{
    int i;
    for (i = 0; i < sc->nitems; i++)
        if (sc->items[i]->nchecks > 0 && c >= sc->items[i]->checks && c < sc->items[i]->checks + sc->items[i]->nchecks)
            return i;
    return -1;
}

/* The late definition of item it, emitted where it stands: every var it
 * reads is declared by now, and none is set between it and the check
 * `it == E` it comes from (that check sees a value the writer has not
 * reached: it would write what the validator then refuses). */
static void late_def(emitter *m, item *it)
{
    scope *sc = m->wscope;
    def *d = sc && it->name ? find_def(sc, it->name) : NULL;
    const char **names = NULL;
    int n = 0, i, k, at, owner;
    if (!d || !d->late || d->state == 2 || d->it != it) return;
    collect_names(d->e, &names, &n);
    for (at = 0; at < sc->nitems && sc->items[at] != it; at++) {}
    owner = d->from ? check_owner(sc, d->from) : -1;
    for (i = 0; i < n; i++) {
        if (!declares_var(&m->s->body, names[i])) continue;
        if (!sym_peek(m, names[i])) {
            gen_error(m, it->jpath, "the writer writes '%s' before var '%s' is declared, and `%s` reads it: put '%s' after "
                      "the var and what sets it, or give it \"write\"" NO_WRITER_HINT, it->name, names[i],
                      d->text ? d->text : "", it->name);
            free(names);
            return;
        }
        for (k = at + 1; k < owner; k++)
            if (sets_var(sc->items[k], names[i])) {
                gen_error(m, it->jpath, "the writer writes '%s' before %s sets var '%s', which `%s` reads: put '%s' after "
                          "it (the validator checks it there), or give it \"write\"" NO_WRITER_HINT, it->name,
                          sc->items[k]->name ? sc->items[k]->name : "an item", names[i], d->text ? d->text : "", it->name);
                k = owner;
                i = n;
            }
    }
    free(names);
    emit_def(m, sc, d, "");
}

/* Write the integer value (C text) to field it: its range checked unless
 * it is a literal (checked here) or an unsigned value known to be at most
 * bound (bound: ~0 when nothing is known). */
static void write_int(emitter *m, const blame *bl, item *it, const char *value, int is_signed, unsigned long long bound)
{
    int bits = it->field.width * 8;
    char *v;
    unsigned long long lit;
    int literal = c_literal(value, &lit);
    const int fits = bits < 64 && !is_signed && bound >> bits == 0;
    if (bits < 64 && literal && lit >> (bits - (is_signed ? 1 : 0)) != 0)
        gen_error(m, it->jpath, "the value %llu written to '%s' does not fit %d bits", lit, it->name, bits);
    if (bits < 64 && !literal && !fits) {
        char *fmt, *cond;
        if (is_signed) {
            fmt = xprintf("\"value %%\" PRId64 \" does not fit i%d\"", bits);
            cond = xprintf("%s < -(INT64_C(1) << %d) || %s >= (INT64_C(1) << %d)", value, bits - 1, value, bits - 1);
        } else {
            fmt = xprintf("\"value %%\" PRIu64 \" does not fit u%d\"", bits);
            cond = xprintf("%s > UINT64_C(0x%llx)", value, (unsigned long long)((1ULL << bits) - 1));
        }
        emit_fail_if(m, cond, bl, "type", LEN_NONE, fmt, value);
        free(fmt);
        free(cond);
    }
    if (literal) {
        v = xprintf("UINT64_C(%llu)", lit);
    } else if (is_signed) {
        if (bits < 64) v = xprintf("((uint64_t)%s & UINT64_C(0x%llx))", value, (unsigned long long)((1ULL << bits) - 1));
        else if (strncmp(value, "(int64_t)", 9) == 0) v = xstrdup(value + 9); /* the same 64 bits */
        else v = xprintf("(uint64_t)%s", value);
    } else {
        v = xstrdup(value);
    }
    if (bits == 8) line(m, "if (afmt_sink_u8(sink, %s, err) != 0) return -1;", v);
    else line(m, "if (afmt_sink_u%d(sink, %s, %s, err) != 0) return -1;", bits, v, big_c(m, it->field.big_endian));
    free(v);
}

/* What the format holds, for a refusal of an array's rank: a C string
 * literal (malloc'd). */
static char *rank_holds(emitter *m, int rank)
{
    char *h = m->s->holds && *m->s->holds ? xprintf("%s holds %s", m->s->format, m->s->holds)
                                          : xprintf("%s holds arrays of rank %d here", m->s->format, rank);
    char *q = c_quote(h, strlen(h));
    free(h);
    return q;
}

void writer_need_one(emitter *m, item *a)
{
    const blame bl = blame_at(a->name, "AFMT_NO_INDEX", "0");
    if (!m->multi) {
        char *fmt = xprintf("\"%s holds one array here, not %%zu\"", m->s->format);
        emit_fail_if(m, "n != 1", &bl, "usage", LEN_NONE, fmt, "n");
        free(fmt);
    }
}

void writer_int(emitter *m, item *f, char *c, vtype t)
{
    const blame bl = blame_at(f->name, "AFMT_NO_INDEX", "0");
    cexpr v;
    memset(&v, 0, sizeof v); /* not bounded: range-checked against the field */
    v.c = c;
    v.t = t;
    emit_int_value(m, &bl, f, v);
}

/* What array a must be: its layout's check, else a dense one's. */
static void layout_check(emitter *m, item *a)
{
    const layout_module *lm = layout_by_id(a->array.layout);
    if (lm && lm->write_check) {
        lm->write_check(m, a);
        return;
    }
    writer_need_one(m, a);
    line(m, "if (afmt_write_need_plain(A_%s, %s, \"%s\", ai, err)) return -1;", a->name,
         a->array.col_major ? "AFMT_COL_MAJOR" : "AFMT_ROW_MAJOR", a->name);
    if (!a->array.shape_field) {
        char *cond = xprintf("A_%s->rank != %d", a->name, a->array.nshape);
        char *holds = rank_holds(m, a->array.nshape);
        char *stmt = xprintf("return afmt_write_fail_rank(A_%s, \"%s\", %s, err);", a->name, a->name, holds);
        free(holds);
        line(m, "if (%s)", cond);
        m->indent++;
        line(m, "%s", stmt);
        m->indent--;
        free(cond);
        free(stmt);
    }
}

/* Whether the text out->s[from..] names the C identifier id. */
static int names_ident(const sbuf *out, size_t from, const char *id)
{
    size_t n = strlen(id);
    const char *p = out->s ? out->s + from : NULL;
    if (!p || from > out->len) return 0;
    while ((p = strstr(p, id)) != NULL) {
        int before = p > out->s + from && (isalnum((unsigned char)p[-1]) || p[-1] == '_');
        int after = isalnum((unsigned char)p[n]) || p[n] == '_';
        if (!before && !after) return 1;
        p += n;
    }
    return 0;
}

/* Whether C code names the identifier id outside string and character
 * literals and comments. */
static int code_names(const char *code, const char *id)
{
    size_t n = strlen(id);
    const char *p = code;
    while (*p) {
        if (*p == '"' || *p == '\'') {
            char q = *p++;
            while (*p && *p != q) p += p[0] == '\\' && p[1] ? 2 : 1;
            if (*p) p++;
        } else if (p[0] == '/' && p[1] == '*') {
            const char *e = strstr(p + 2, "*/");
            p = e ? e + 2 : p + strlen(p);
        } else if (isalpha((unsigned char)*p) || *p == '_') {
            const char *w = p;
            while (isalnum((unsigned char)*p) || *p == '_') p++;
            if ((size_t)(p - w) == n && memcmp(w, id, n) == 0) return 1;
        } else {
            p++;
        }
    }
    return 0;
}

static void write_scope(emitter *m, item_list *body, const char *array_expr)
{
    scope sc;
    int i, mark = sym_mark(m);
    size_t from = m->out->len;
    int *outer = NULL; /* the declarations of the arrays of nested structures */
    void *saved_scope;
    memset(&sc, 0, sizeof sc);
    sc.multi = m->multi;
    collect(&sc, body, 0);
    if (m->wrecord) { /* a directory's record: bound to the array it describes */
        add_array(&sc, m->wrecord, 1);
        m->wrecord = NULL;
    }
    for (i = 0; i < sc.narrays; i++)
        if (sc.direct[i] && layout_by_id(sc.arrays[i]->array.layout) && layout_by_id(sc.arrays[i]->array.layout)->write_refuses) {
            /* a form afmt reads but never writes: the whole scope refuses */
            layout_check(m, sc.arrays[i]);
            m->returned = 1; /* its function needs no `return 0;` */
            free(sc.items);
            free(sc.arrays);
            free(sc.direct);
            return;
        }
    outer = xcalloc((size_t)sc.narrays + 1, sizeof *outer);
    for (i = 0; i < sc.narrays; i++) {
        item *a = sc.arrays[i];
        sym *bound = sym_peek(m, a->name);
        /* the writer reads a table of columns as the arrays themselves:
         * A_<columns> is declared only if an expression names it */
        int lazy = layout_by_id(a->array.layout) && layout_by_id(a->array.layout)->write_lazy;
        if (!bound || bound->kind != SY_PAYLOAD) {
            sym *y = sym_push(m, SY_PAYLOAD, a->name, a);
            str_printf(&y->c, "A_%s", a->name);
            y->decl = decl_defer(m, "const afmt_array *A_%s = %s;", a->name, array_expr);
            /* an array of a nested case or repetition is declared when
             * that structure is written (a switch afmt-gen resolves
             * writes one case) or this scope's code names it (below:
             * a lazy one too, when a field is bound to it) */
            if (!lazy && sc.direct[i]) decl_use(m, y->decl);
            else outer[i] = y->decl;
        } else if (!lazy && sc.direct[i]) {
            decl_use(m, bound->decl);
        }
        if (sc.direct[i] && !a->array.dir_record) layout_check(m, a); /* a record's: afmt_write_dir_next */
    }
    plan(m, &sc);
    late_defs(m, &sc);
    for (i = 0; i < sc.ndefs; i++)
        if (!sc.defs[i].late) emit_def(m, &sc, &sc.defs[i], "");
    emit_scope_checks(m, &sc);
    emit_shape_checks(m, &sc);
    saved_scope = m->wscope;
    m->wscope = &sc;
    write_items(m, body);
    m->wscope = saved_scope;
    for (i = 0; i < sc.narrays; i++)
        if (outer[i]) {
            char *id = xprintf("A_%s", sc.arrays[i]->name);
            if (names_ident(m->out, from, id)) decl_use(m, outer[i]);
            free(id);
        }
    free(outer);
    sym_pop_to(m, mark);
    free(sc.items);
    free(sc.arrays);
    free(sc.direct);
    free(sc.defs);
}

/* A structure's scope (a repetition, a switch case) as a function of its
 * own, <format>_write_<name> (emit_func.c), for the array arrays[ai]. */
void writer_scope_func(emitter *m, item_list *body, const char *name, const char *index_c)
{
    func_frame fr;
    func_begin(m, &fr, name);
    if (index_c) fr.on_fail = xprintf("return afmt_error_within(err, \"%s\", %s);", name, index_c);
    write_scope(m, body, "&arrays[ai]");
    func_end(m, &fr, NULL);
}

static int has_arrays(item_list *body)
{
    int i, j;
    for (i = 0; i < body->n; i++) {
        item *it = body->v[i];
        if (it->kind == IT_ARRAY) return 1;
        if (it->kind == IT_REGION && has_arrays(&it->body)) return 1;
        if (it->kind == IT_SWITCH)
            for (j = 0; j < it->ncases; j++)
                if (has_arrays(&it->cases[j].body)) return 1;
    }
    return 0;
}

/* Whether pad expression e is `roundup(x, k) - x` with x a name and k a
 * literal > 0: afmt_write_pad_to writes it in one call. */
static int pad_to(const expr *e)
{
    const expr *r = e && e->kind == E_BINARY && e->op == TK_MINUS ? e->a : NULL;
    return r && r->kind == E_CALL && strcmp(r->sval, "roundup") == 0 && r->nargs == 2 &&
           r->args[0]->kind == E_NAME && r->args[1]->kind == E_INT && r->args[1]->ival > 0 &&
           e->b->kind == E_NAME && strcmp(e->b->sval, r->args[0]->sval) == 0;
}

/* One length-prefixed string (y: SY_STR, its length and bytes): a length
 * its prefix cannot hold is refused. */
static void write_string(emitter *m, item *it, sym *y)
{
    const blame bl = blame_at(it->name, "AFMT_NO_INDEX", "0");
    if (y->kind != SY_STR) {
        gen_error(m, it->jpath, "the writer has no string for '%s'", it->name);
        return;
    }
    if (it->field.len_width < 8) {
        char *cond = xprintf("%s > UINT64_C(%llu)", y->c, (1ULL << (8 * it->field.len_width)) - 1);
        emit_fail_if(m, cond, &bl, "type", LEN_NONE, "\"a string of %\" PRIu64 \" bytes is too long for its length field\"", y->c);
        free(cond);
    }
    if (it->field.len_width == 1) line(m, "if (afmt_sink_u8(sink, %s, err) != 0) return -1;", y->c);
    else line(m, "if (afmt_sink_u%d(sink, %s, %s, err) != 0) return -1;", it->field.len_width * 8, y->c, big_c(m, it->field.big_endian));
    line(m, "if (afmt_sink_put(sink, %s, %s, err) != 0) return -1;", y->elem, y->c);
}

/* The bytes of field it: its value, each element of an array field, or
 * a length-prefixed string per array (a table's labels). */
static void write_field(emitter *m, item *it)
{
    sym *y = sym_find(m, it->name);
    blame bl = blame_at(it->name, "AFMT_NO_INDEX", "0");
    if (!y) { /* said already when its definition failed */
        if (!m->errors) gen_error(m, it->jpath, "the writer has no value for '%s'", it->name);
        return;
    }
    line(m, "/* %s */", it->name);
    if (it->field.ftype == FT_STRING && !it->field.count) {
        write_string(m, it, y);
    } else if (it->field.ftype == FT_STRING) {
        unsigned long long maxlen = it->field.len_width >= 8 ? ~0ULL : (1ULL << (8 * it->field.len_width)) - 1;
        char *cond = xprintf("len_k > UINT64_C(%llu)", maxlen);
        line(m, "for (size_t k = 0; k < n; k++) {");
        m->indent++;
        line(m, "if (afmt_name_whole(&arrays[k], k, err) != 0) return -1;");
        line(m, "const uint64_t len_k = strlen(arrays[k].name);");
        bl = blame_at(it->name, "k", "0");
        emit_fail_if(m, cond, &bl, "type", LEN_NONE, "\"name of %\" PRIu64 \" bytes is too long\"", "len_k");
        free(cond);
        if (it->field.len_width == 1) line(m, "if (afmt_sink_u8(sink, len_k, err) != 0) return -1;");
        else line(m, "if (afmt_sink_u%d(sink, len_k, %s, err) != 0) return -1;", it->field.len_width * 8, big_c(m, it->field.big_endian));
        line(m, "if (afmt_sink_put(sink, arrays[k].name, len_k, err) != 0) return -1;");
        m->indent--;
        line(m, "}");
    } else if (it->field.ftype == FT_FLOAT && it->field.count) {
        /* a float array field: its "write" (or "equals") in every element */
        char *cnt = emit_u64(m, &bl, it->field.count, it->field.count_text);
        line(m, "for (uint64_t k = 0; k < %s; k++)", cnt);
        m->indent++;
        line(m, "if (afmt_sink_u%d(sink, afmt_float_bits(%s, %d), %s, err) != 0) return -1;", it->field.width * 8, y->c,
             it->field.width, big_c(m, it->field.big_endian));
        m->indent--;
        free(cnt);
    } else if (it->field.ftype == FT_FLOAT) {
        line(m, "if (afmt_sink_u%d(sink, afmt_float_bits(%s, %d), %s, err) != 0) return -1;", it->field.width * 8, y->c,
             it->field.width, big_c(m, it->field.big_endian));
    } else if (it->field.ftype != FT_INT) {
        line(m, "if (afmt_sink_put(sink, %s, %d, err) != 0) return -1;", y->c, it->field.size);
    } else if (!it->field.count) {
        write_int(m, &bl, it, y->c, it->field.is_signed, y->bounded ? y->max : ~0ULL);
    } else {
        char *el;
        line(m, "for (uint64_t k = 0; k < %s; k++) {", y->count);
        m->indent++;
        el = xprintf(y->elem, "k");
        bl = blame_at(it->name, "k", "0");
        write_int(m, &bl, it, el, it->field.is_signed, y->bounded ? y->max : ~0ULL);
        free(el);
        m->indent--;
        line(m, "}");
    }
}

/* The payload of array item it: its layout's, its encoding's, or as its
 * dtype says. */
static void write_array(emitter *m, item *it)
{
    sym *lk = it->array.dtype_from ? sym_peek(m, it->array.dtype_from) : NULL;
    const char *endian = endian_c(m, it->array.payload_big);
    const layout_module *lm = layout_by_id(it->array.layout);
    line(m, "/* %s */", it->name);
    if (lm && lm->write_payload) {
        lm->write_payload(m, it, lk, endian);
        return;
    }
    if (lk) decl_use(m, lk->enc_decl);
    if (lk && encoding_of(it) && encoding_of(it)->write_payload)
        encoding_of(it)->write_payload(m, it, lk, endian);
    else if (lk)
        line(m, "if (afmt_sink_payload(sink, A_%s, %s, %s.enc, err) != 0) return -1;", it->name, endian, lk->c);
}

/* The zeros of pad item it. */
static void write_pad(emitter *m, item *it)
{
    const blame bl = blame_at(it->name, "AFMT_NO_INDEX", "0");
    char *sz;
    line(m, "/* %s */", it->name);
    if (pad_to(it->arg)) {
        /* roundup(x, k) - x: the zeros to the next multiple of k */
        sz = emit_u64(m, &bl, it->arg->a->args[0], it->arg_text);
        line(m, "if (afmt_write_pad_to(sink, %s, UINT64_C(%llu), \"%s\", err) != 0) return -1;", sz,
             (unsigned long long)it->arg->a->args[1]->ival, it->name);
    } else {
        sz = emit_u64(m, &bl, it->arg, it->arg_text);
        line(m, "if (afmt_sink_zeros(sink, %s, err) != 0) return -1;", sz);
    }
    free(sz);
}

/* Region it: its content, then what its size asks for beyond it (zeros
 * when it is not exact) or a refusal (content longer than the size, or
 * shorter in an exact region): so every file written has every byte its
 * validator reads (afmt_write_region_end). */
static void write_region(emitter *m, item *it)
{
    if (it->region.inflate) { /* gen/inflated.c */
        gen_error(m, it->jpath, "the writer cannot write inflated region '%s' (it compresses nothing)" NO_WRITER_HINT, it->name);
        return;
    }
    const char *field = it->arg->kind == E_NAME ? it->arg->sval : it->name;
    const blame bl = blame_at(field, "AFMT_NO_INDEX", "0");
    char *start = xprintf("%s_start", it->name), *size;
    char *st = local_name(m, start), *sz_base = xprintf("%s_size", it->name), *sz_local;
    line(m, "/* region %s: %s bytes%s */", it->name, it->arg_text ? it->arg_text : "?", it->region.exact ? ", exact" : "");
    size = emit_u64(m, &bl, it->arg, it->arg_text);
    sz_local = local_name(m, sz_base);
    line(m, "const uint64_t %s = %s;", sz_local, size);
    line(m, "const uint64_t %s = sink->written;", st);
    write_items(m, &it->body);
    line(m, "if (afmt_write_region_end(sink, %s, %s, %d, \"%s\", err) != 0) return -1;", st, sz_local,
         it->region.exact ? 1 : 0, field);
    free(start); free(st); free(size); free(sz_base); free(sz_local);
}

/* The case of switch it whose values include lit, or -1. */
static int case_of(const item *it, unsigned long long lit)
{
    int i, j;
    for (i = 0; i < it->ncases; i++)
        for (j = 0; j < it->cases[i].nwhen; j++)
            if (it->cases[i].when[j]->ival == lit) return i;
    return -1;
}

/* Whether e reads the input itself (peek(), remaining()): a selector the
 * writer cannot compute, which a switch's "write" stands for. */
static int reads_input(const expr *e)
{
    int i;
    if (!e) return 0;
    if (e->kind == E_CALL && e->sval && (strcmp(e->sval, "peek") == 0 || strcmp(e->sval, "remaining") == 0)) return 1;
    for (i = 0; i < e->nargs; i++)
        if (reads_input(e->args[i])) return 1;
    return reads_input(e->a) || reads_input(e->b) || reads_input(e->c);
}

/* A switch's "write" (the case written, sel) and its selector computed
 * from the fields written must agree, else the validator reads another
 * case than the one written: refused here when both are constants (as a
 * text header's writer does, gen/texthdr.c), else when the file is
 * written. */
static void write_switch_agrees(emitter *m, item *it, const blame *bl, const cexpr *sel)
{
    cexpr on = emit_expr(m, bl, it->arg, it->arg_text);
    unsigned long long lit_sel, lit_on;
    if (c_literal(sel->c, &lit_sel) && c_literal(on.c, &lit_on)) {
        if (lit_sel != lit_on)
            gen_error(m, it->jpath, "the writer writes case %llu of switch '%s', but its selector `%s` is %llu in what "
                      "it writes: the validator would read another case", lit_sel, it->name,
                      it->arg_text ? it->arg_text : "?", lit_on);
    } else {
        char *cond = xprintf("(uint64_t)(%s) != (uint64_t)(%s)", on.c, sel->c);
        char *fmt = xprintf("\"writing %s: switch '%s' writes case %%\" PRIu64 \", but its selector is %%\" PRIu64 "
                            "\" in what it writes\"", m->s->format, it->name);
        char *args = xprintf("(uint64_t)(%s), (uint64_t)(%s)", sel->c, on.c);
        emit_fail_if(m, cond, bl, "usage", LEN_NONE, fmt, args);
        free(cond); free(fmt); free(args);
    }
    free(on.c);
}

/* Switch it: the case the values written select (a function each), or
 * the one case a constant selector names, in place. */
static void write_switch(emitter *m, item *it)
{
    const blame bl = blame_at(it->arg->kind == E_NAME ? it->arg->sval : it->name, "AFMT_NO_INDEX", "0");
    /* the case written: the switch's own "write", else its selector
     * computed from the fields written */
    cexpr sel = it->write ? emit_expr(m, &bl, it->write, it->write_text) : emit_expr(m, &bl, it->arg, it->arg_text);
    unsigned long long lit;
    int i, j;
    if (it->write && !reads_input(it->arg)) write_switch_agrees(m, it, &bl, &sel);
    if (c_literal(sel.c, &lit)) {
        i = case_of(it, lit);
        if (i < 0) {
            gen_error(m, it->jpath, "the writer's value %llu of '%s' matches no case", lit, it->name);
        } else {
            line(m, "/* switch %s: case %llu */", it->name, lit);
            write_scope(m, &it->cases[i].body, "&arrays[ai]");
        }
        free(sel.c);
        return;
    }
    line(m, "/* switch %s */", it->name);
    for (i = 0; i < it->ncases; i++) {
        sbuf cond = {0};
        const char *name = switch_case_name(m->s, it, i);
        for (j = 0; j < it->cases[i].nwhen; j++)
            sb_printf(&cond, "%s%s == %llu", j ? " || " : "", sel.c, (unsigned long long)it->cases[i].when[j]->ival);
        emit_if_open(m, i ? "} else " : "", cond.s);
        sb_free(&cond);
        m->indent++;
        writer_scope_func(m, &it->cases[i].body, name, NULL);
        m->indent--;
    }
    line(m, "} else {");
    m->indent++;
    emit_fail(m, &bl, "type", LEN_NONE, "\"no case of the format describes this array\"", NULL);
    m->indent--;
    line(m, "}");
    free(sel.c);
}

/* Repeat it: once per array written, or once for the one array. */
static void write_repeat(emitter *m, item *it)
{
    if (it->repeat.until_end && has_arrays(&it->body) && !m->multi) {
        /* the arrays are not repeated at the top: one repetition, for
         * the array being written (a DAPHNE matrix as one block) */
        line(m, "/* repeat %s: written once */", it->name);
        writer_scope_func(m, &it->body, it->name, "0");
    } else if (it->repeat.until_end && has_arrays(&it->body)) {
        line(m, "/* repeat %s: one per array */", it->name);
        line(m, "for (size_t ai = 0; ai < n; ai++) {");
        m->indent++;
        writer_scope_func(m, &it->body, it->name, "ai");
        m->indent--;
        line(m, "}");
    } else if (it->arg && !it->repeat.until_end && !it->repeat.until_tiled) {
        writer_counted_repeat(m, it);
    } else {
        const blame bl = blame_at(it->name, "AFMT_NO_INDEX", "0");
        char *fmt = xprintf("\"writing %s: repeated structure '%s' is not supported by the writer\"", m->s->format, it->name);
        emit_fail(m, &bl, "unsupported", LEN_NONE, fmt, NULL);
        free(fmt);
    }
}

static void write_item(emitter *m, item *it)
{
    m->jpath = it->jpath;
    switch (it->kind) {
    case IT_FIELD: late_def(m, it); write_field(m, it); break;
    case IT_LET: late_def(m, it); break;
    case IT_ARRAY: write_array(m, it); break;
    case IT_REGION: write_region(m, it); break;
    case IT_PAD: write_pad(m, it); break;
    case IT_SWITCH: write_switch(m, it); break;
    case IT_REPEAT: write_repeat(m, it); break;
    case IT_VAR: emit_var(m, it, "0"); break;
    case IT_SET: emit_set(m, it, "0"); break;
    case IT_DIRECTORY: writer_directory(m, it); break;
    case IT_STRUCT:
        if (m->wkv && it->name && strcmp(it->name, m->wkv->repeat.meta_value) == 0) {
            line(m, "/* %s: the key-value's value */", it->name);
            line(m, "if (afmt_value_write(sink, &%s, &%s->value, \"%s\", AFMT_NO_INDEX, err) != 0) return -1;", m->wkv_grammar,
                 m->wkv_c, it->name);
            break;
        }
        gen_error(m, it->jpath, "the writer cannot write structure '%s' here" NO_WRITER_HINT, it->st.use ? it->st.use : "");
        break;
    default: break;
    }
}

static void write_items(emitter *m, item_list *body)
{
    int i;
    for (i = 0; i < body->n; i++) write_item(m, body->v[i]);
}

/* Does it repeat the format's arrays at the top (a repetition until the
 * end that holds arrays, or a directory)? */
static int repeats_arrays(const item *it)
{
    return (it->kind == IT_REPEAT && it->repeat.until_end && has_arrays((item_list *)&it->body)) ||
           it->kind == IT_DIRECTORY;
}

static int top_repeats_arrays(const spec *s)
{
    int i;
    for (i = 0; i < s->body.n; i++)
        if (repeats_arrays(s->body.v[i])) return 1;
    return 0;
}

/* Whether body (or a structure in it) has an item that holds arrays. */
static int holds_arrays(const item_list *body)
{
    int i, j;
    for (i = 0; i < body->n; i++) {
        const item *it = body->v[i];
        if (it->kind == IT_ARRAY || it->kind == IT_TEXTHDR || it->kind == IT_TEXTVAL || it->kind == IT_DIRECTORY ||
            it->kind == IT_ARCHIVE)
            return 1;
        if ((it->kind == IT_REGION || it->kind == IT_REPEAT) && holds_arrays(&it->body)) return 1;
        if (it->kind == IT_SWITCH)
            for (j = 0; j < it->ncases; j++)
                if (holds_arrays(&it->cases[j].body)) return 1;
    }
    return 0;
}

/* A writer of many arrays hands every array it is given to the one item
 * at the top that repeats them (a repetition until the end that holds
 * arrays, or a directory): an item holding an array anywhere else at the
 * top, or a second such item, would have no array of its own (the C
 * named an index it does not have: spec fuzzer seed 1400028).  0, or -1
 * with a generator error at each such item. */
static int check_multi_top(emitter *m, const spec *s)
{
    const item *holder = NULL;
    int i, bad = 0;
    for (i = 0; i < s->body.n && !holder; i++)
        if (repeats_arrays(s->body.v[i])) holder = s->body.v[i];
    for (i = 0; holder && i < s->body.n; i++) {
        const item *it = s->body.v[i];
        item_list one = {.v = (item **)&s->body.v[i], .n = 1};
        if (it == holder || !(repeats_arrays(it) || holds_arrays(&one))) continue;
        gen_error(m, it->jpath, "'%s' holds arrays beside '%s' (%s), which the writer hands every array it is "
                  "given: it would have none of its own; put it inside '%s', or say why the format is not written: "
                  "\"read_only\": \"...\"", it->name ? it->name : "this item", holder->name, holder->jpath,
                  holder->name);
        bad = 1;
    }
    return bad ? -1 : 0;
}

void emit_writer(emitter *m)
{
    blame bl;
    const spec *s = m->s;
    int multi = top_repeats_arrays(s);
    if (multi && check_multi_top(m, s) != 0) return;
    if (cards_in_spec(s)) {
        cards_emit_writer(m);
        return;
    }
    if (!holds_arrays(&s->body)) {
        /* its writer would write the fields and drop the array given */
        gen_error(m, "/body", "no item holds an array (array, text_header, text_value): the writer would have nowhere "
                              "to put one; add one, or say why the format is not written: \"read_only\": \"...\"");
        return;
    }
    if (texthdr_in_spec(s)) {
        texthdr_emit_writer(m);
        return;
    }
    if (archive_in_spec(s)) {
        archive_emit_writer(m);
        return;
    }
    sbuf *out = m->out, main_fn = {0}, funcs = {0};
    int owned_unused, arrays_unused, sink_unused, ai_unused;
    size_t body_from, ai_from = 0;
    m->writer = 1;
    m->end = "len";
    m->out = &main_fn;
    m->funcs = &funcs;
    func_root_frame(m, &main_fn, "impl");
    line(m, "static int %s_write_impl(const afmt_array *arrays, size_t n, const afmt_write_options *wopt,", s->format);
    line(m, "                         afmt_sink *sink, afmt_error *err, uint8_t **owned)");
    line(m, "{");
    m->indent++;
    body_from = main_fn.len;
    owned_unused = decl_new(m); /* kept when no layout fills *owned */
    decl_line(m, owned_unused, "(void)owned;");
    /* a spec without arrays reads neither arrays nor ai (kept when unread) */
    arrays_unused = decl_new(m);
    decl_line(m, arrays_unused, "(void)arrays;");
    sink_unused = decl_new(m); /* a writer that can only refuse */
    decl_line(m, sink_unused, "(void)sink;");
    ai_unused = decl_new(m);
    m->writer_owns = 0;
    m->multi = multi;
    if (!multi) {
        line(m, "const size_t ai = 0;");
        decl_line(m, ai_unused, "(void)ai;");
        ai_from = main_fn.len;
        line(m, "if (n == 0) {");
        m->indent++;
        bl = blame_at("", "AFMT_NO_INDEX", "0");
        {
            char *fmt = xprintf("\"%s needs an array to write\"", s->format);
            emit_fail(m, &bl, "usage", LEN_NONE, fmt, NULL);
            free(fmt);
        }
        m->indent--;
        line(m, "}");
        write_scope(m, (item_list *)&s->body, "&arrays[ai]");
    } else {
        write_scope(m, (item_list *)&s->body, "NULL");
    }
    line(m, "if (wopt && wopt->trailer_len > 0) {");
    m->indent++;
    if (s->trailer_keep) {
        line(m, "if (afmt_sink_put(sink, wopt->trailer, wopt->trailer_len, err) != 0) return -1;");
    } else {
        bl = blame_at("", "AFMT_NO_INDEX", "0");
        {
            char *fmt = xprintf("\"%s does not allow data after the arrays\"", s->format);
            emit_fail(m, &bl, "usage", LEN_NONE, fmt, NULL);
            free(fmt);
        }
    }
    m->indent--;
    line(m, "}");
    line(m, "return 0;");
    m->indent--;
    line(m, "}");
    if (!m->writer_owns) decl_use(m, owned_unused);
    {
        /* the function's code as it will be, after its opening brace */
        char *text = decls_resolve(m, main_fn.s + body_from);
        if (!code_names(text, "arrays")) decl_use(m, arrays_unused);
        if (!code_names(text, "sink")) decl_use(m, sink_unused);
        free(text);
        text = decls_resolve(m, main_fn.s + ai_from); /* after ai's declaration */
        if (!multi && !code_names(text, "ai")) decl_use(m, ai_unused);
        free(text);
    }
    /* the functions of the structures, each before its first caller */
    if (funcs.s) sb_puts(out, funcs.s);
    if (main_fn.s) sb_puts(out, main_fn.s);
    m->out = out;
    m->nframes = 0;
    m->funcs = NULL;
    sb_free(&funcs);
    sb_free(&main_fn);
}
