/* afmt-gen: a repeat's "metadata" value structure as a typed-value
 * grammar (spec/LANGUAGE.md, "metadata"), worked out from the model.
 *
 * A repeat that declares "metadata": {"key": K, "value": V} holds
 * key-values: K a string field of its body, V the label of a use of a
 * named structure (somewhere in its body, a switch case's too) whose
 * single argument is a plain field name, the value's type field.  The
 * structure must be one switch on its parameter, each case holding one
 * integer field (a number; the "bool" code's: a bool), one float field
 * (or bytes of 4 or 8), one string field, or a list: an integer field
 * (its items' type code), an integer field (their count) and a repeat of
 * that count whose body is a use of the same structure with the type
 * code field as argument.
 *
 * The checker (check.c) asks with diagnostics; the emitters
 * (emit_value.c, emit_write_dir.c) and the interpreter (interp_value.c)
 * ask of a checked spec, quietly: no emitter is needed to know a grammar. */
#include <string.h>
#include "scope.h"
#include "value_grammar.h"

/* The use of the value's structure in body (a case's too), or NULL. */
static item *find_use(const item_list *body, const char *label)
{
    int i, j;
    for (i = 0; i < body->n; i++) {
        item *it = body->v[i], *u = NULL;
        if (it->kind == IT_STRUCT && it->name && strcmp(it->name, label) == 0) return it;
        if (it->kind == IT_REGION) u = find_use(&it->body, label);
        for (j = 0; !u && j < it->ncases; j++) u = find_use(&it->cases[j].body, label);
        if (u) return u;
    }
    return NULL;
}

item *value_use(const item *repeat)
{
    return repeat->repeat.meta_value ? find_use(&repeat->body, repeat->repeat.meta_value) : NULL;
}

/* The body's items that hold bytes (lets and checks left out). */
static int byte_items(const item_list *b, item **out, int max)
{
    int i, n = 0;
    for (i = 0; i < b->n; i++) {
        if (b->v[i]->kind == IT_LET || b->v[i]->kind == IT_CHECK) continue;
        if (n < max) out[n] = b->v[i];
        n++;
    }
    return n;
}

static int int_field(const item *f)
{
    return f->kind == IT_FIELD && f->field.ftype == FT_INT && !f->field.count;
}

/* No field of more than a byte seen yet (value_grammar.big). */
#define ORDER_NONE (-2)

static const char *order_name(int big)
{
    return big == ORDER_RUN ? "in the order \"byte_order\" chose" : big ? "big-endian" : "little-endian";
}

/* The runtime reads every field of a grammar wider than a byte (numbers,
 * floats, a string's length, a list's type code and count) in the one
 * order g->big: field f, of width bytes, must be in it, else a generator
 * error (-1). */
static int one_order(diag *d, const named_struct *ns, const item *f, int width, value_grammar *g)
{
    if (width <= 1) return 0;
    if (g->big != ORDER_NONE && g->big != f->field.big_endian) {
        diag_error(d, f->jpath, "structure '%s' is a typed-value grammar, read in one byte order: '%s' is %s, an "
                  "earlier field %s", ns->name, f->name, order_name(f->field.big_endian), order_name(g->big));
        return -1;
    }
    g->big = f->field.big_endian;
    return 0;
}

/* Whether the byte items v[0..3) of a case of ns are a list: its items'
 * type code, their count, and a repeat of that count of a use of ns with
 * the type code as argument. */
static int is_list(item *const *v, const named_struct *ns)
{
    const item *use = v[2]->kind == IT_REPEAT && v[2]->body.n == 1 ? v[2]->body.v[0] : NULL;
    return int_field(v[0]) && int_field(v[1]) && v[2]->arg && v[2]->arg->kind == E_NAME &&
           strcmp(v[2]->arg->sval, v[1]->name) == 0 && use && use->kind == IT_STRUCT && use->st.use &&
           strcmp(use->st.use, ns->name) == 0 && use->st.nargs == 1 && use->st.args[0]->kind == E_NAME &&
           strcmp(use->st.args[0]->sval, v[0]->name) == 0;
}

/* Classify case sc of ns into vc (0), or say why it is not a case of a
 * typed-value grammar (-1). */
static int classify(diag *d, const item *repeat, const named_struct *ns, const switch_case *sc, value_case *vc,
                    value_grammar *g)
{
    item *v[4];
    const int n = byte_items(&sc->body, v, 4);
    if (n == 1 && int_field(v[0])) {
        const int is_bool = repeat->repeat.meta_bool >= 0 && sc->nwhen == 1 &&
                            sc->when[0]->ival == (unsigned long long)repeat->repeat.meta_bool;
        if (is_bool && v[0]->field.width != 1) {
            diag_error(d, sc->jpath, "the bool case of '%s' holds a field of %d bytes, not 1", ns->name, v[0]->field.width);
            return -1;
        }
        vc->kind = is_bool ? "AFMT_VALUE_BOOL" : v[0]->field.is_signed ? "AFMT_VALUE_INT" : "AFMT_VALUE_UINT";
        vc->width = v[0]->field.width;
        return one_order(d, ns, v[0], v[0]->field.width, g);
    }
    if (n == 1 && v[0]->kind == IT_FIELD && v[0]->field.ftype == FT_FLOAT && !v[0]->field.count) {
        vc->kind = "AFMT_VALUE_FLOAT";
        vc->width = v[0]->field.width;
        return one_order(d, ns, v[0], v[0]->field.width, g);
    }
    if (n == 1 && v[0]->kind == IT_FIELD && v[0]->field.ftype == FT_BYTES && !v[0]->field.count &&
        (v[0]->field.size == 4 || v[0]->field.size == 8)) {
        vc->kind = "AFMT_VALUE_FLOAT";
        vc->width = v[0]->field.size;
        return 0;
    }
    if (n == 1 && v[0]->kind == IT_FIELD && v[0]->field.ftype == FT_STRING && !v[0]->field.count) {
        vc->kind = "AFMT_VALUE_STRING";
        vc->width = 0;
        g->len_width = v[0]->field.len_width;
        return one_order(d, ns, v[0], v[0]->field.len_width, g);
    }
    if (n == 3 && is_list(v, ns)) {
        vc->kind = "AFMT_VALUE_LIST";
        vc->width = 0;
        g->elem_width = v[0]->field.width;
        g->count_width = v[1]->field.width;
        return one_order(d, ns, v[0], v[0]->field.width, g) || one_order(d, ns, v[1], v[1]->field.width, g) ? -1 : 0;
    }
    diag_error(d, sc->jpath, "structure '%s' is not a typed-value grammar (\"metadata\" of repeat '%s'): a case holds one "
              "integer, float (f32, f64, or bytes of 4 or 8) or string field, or a list: an integer field (its items' type), an "
              "integer field (their count) and a repeat of that count of a use of '%s' with the type as argument",
              ns->name, repeat->name, ns->name);
    return -1;
}

int value_grammar_of(const spec *s, diag *d, const item *repeat, value_grammar *g)
{
    const item *use = value_use(repeat);
    const named_struct *ns = use && use->st.use ? scope_struct_named(s, use->st.use) : NULL;
    const item *sw;
    int i, j;
    memset(g, 0, sizeof *g);
    if (!use || !ns) {
        diag_error(d, repeat->jpath, "\"metadata\": '%s' is not a use of a named structure in the body of repeat '%s'",
                  repeat->repeat.meta_value ? repeat->repeat.meta_value : "", repeat->name);
        return -1;
    }
    if (use->st.nargs != 1 || use->st.args[0]->kind != E_NAME || ns->nparams != 1) {
        diag_error(d, use->jpath, "\"metadata\": the value's structure takes one argument, a plain field name (its type)");
        return -1;
    }
    sw = ns->body.n == 1 ? ns->body.v[0] : NULL;
    if (!sw || sw->kind != IT_SWITCH || !sw->arg || sw->arg->kind != E_NAME || strcmp(sw->arg->sval, ns->params[0]) != 0) {
        diag_error(d, ns->jpath, "structure '%s' is not a typed-value grammar: its body is one switch on its parameter '%s'",
                  ns->name, ns->params[0]);
        return -1;
    }
    g->ns = ns;
    g->type_field = use->st.args[0]->sval;
    g->big = ORDER_NONE;
    for (i = 0; i < sw->ncases; i++) {
        value_case vc;
        if (classify(d, repeat, ns, &sw->cases[i], &vc, g) != 0) return -1;
        for (j = 0; j < sw->cases[i].nwhen; j++) {
            if (g->ncases == (int)(sizeof g->cases / sizeof g->cases[0])) {
                diag_error(d, sw->cases[i].jpath, "structure '%s' is a typed-value grammar of at most %d type codes",
                          ns->name, g->ncases);
                return -1;
            }
            g->cases[g->ncases] = vc;
            g->cases[g->ncases++].code = sw->cases[i].when[j]->ival;
        }
    }
    if (g->big == ORDER_NONE) g->big = 0; /* no field of more than a byte */
    if (g->elem_width == 0) g->elem_width = 1, g->count_width = 1; /* no list case: unused */
    if (g->len_width == 0) g->len_width = 1;                      /* no string case: unused */
    return 0;
}

/* Whether use stands first in body from index from on, but for items that
 * hold no bytes (lets, checks, vars, sets), maybe first in a switch case
 * or region there. */
static int first_bytes_at(const item_list *body, int from, const item *use)
{
    int i, j;
    for (i = from; i < body->n; i++) {
        const item *it = body->v[i];
        if (it == use) return 1;
        if (it->kind == IT_REGION && find_use(&it->body, use->name) == use) return first_bytes_at(&it->body, 0, use);
        for (j = 0; j < it->ncases; j++)
            if (find_use(&it->cases[j].body, use->name) == use) return first_bytes_at(&it->cases[j].body, 0, use);
        if (it->kind != IT_LET && it->kind != IT_CHECK && it->kind != IT_VAR && it->kind != IT_SET) return 0;
    }
    return 0;
}

/* The validator hands afmt_kv_visit the value's bytes where the type
 * field ends: they must be there (LANGUAGE.md), else a generator error. */
int value_follows_type(diag *d, const item *repeat, const item *type)
{
    const item *use = value_use(repeat);
    int i;
    for (i = 0; i < repeat->body.n; i++)
        if (repeat->body.v[i] == type && first_bytes_at(&repeat->body, i + 1, use)) return 0;
    diag_error(d, repeat->jpath, "\"metadata\": the value '%s' does not follow its type field '%s' in the body of repeat "
              "'%s' (only lets, checks, vars and sets between them)", use->name, type->name, repeat->name);
    return -1;
}

