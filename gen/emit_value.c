/* afmt-gen: typed metadata (a repeat's "metadata", spec/LANGUAGE.md).
 *
 * A repeat that declares "metadata": {"key": K, "value": V} holds
 * key-values: K a string field of its body, V the label of a use of a named
 * structure (somewhere in its body, a switch case's too) whose single
 * argument is a plain field name, the value's type field.  The structure
 * must be a typed-value grammar: one switch on its parameter, each case
 * holding one integer field (a number; the "bool" code's: a bool), one
 * bytes field of 4 or 8 (a float, until the language has float fields), one
 * string field, or a list: an integer field (its items' type code), an
 * integer field (their count) and a repeat of that count whose body is a
 * use of the same structure with the type code field as argument.
 *
 * Both directions are table-driven from the grammar (one static
 * afmt_value_grammar per structure, runtime/core/afmt_value.h): the validator
 * ends each repetition with afmt_kv_visit (values for the visitor's on_kv),
 * the writer writes afmt_write_options.kv (gen/emit_write.c binds the key,
 * the type code and the value).
 */
#include <stdlib.h>
#include <string.h>
#include "emit.h"

static const named_struct *struct_named(const spec *s, const char *name)
{
    int i;
    for (i = 0; i < s->nstructs; i++)
        if (strcmp(s->structs[i].name, name) == 0) return &s->structs[i];
    return NULL;
}

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
static int one_order(emitter *m, const named_struct *ns, const item *f, int width, value_grammar *g)
{
    if (width <= 1) return 0;
    if (g->big != ORDER_NONE && g->big != f->field.big_endian) {
        gen_error(m, f->jpath, "structure '%s' is a typed-value grammar, read in one byte order: '%s' is %s, an "
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
static int classify(emitter *m, const item *repeat, const named_struct *ns, const switch_case *sc, value_case *vc,
                    value_grammar *g)
{
    item *v[4];
    const int n = byte_items(&sc->body, v, 4);
    if (n == 1 && int_field(v[0])) {
        const int is_bool = repeat->repeat.meta_bool >= 0 && sc->nwhen == 1 &&
                            sc->when[0]->ival == (unsigned long long)repeat->repeat.meta_bool;
        if (is_bool && v[0]->field.width != 1) {
            gen_error(m, sc->jpath, "the bool case of '%s' holds a field of %d bytes, not 1", ns->name, v[0]->field.width);
            return -1;
        }
        vc->kind = is_bool ? "AFMT_VALUE_BOOL" : v[0]->field.is_signed ? "AFMT_VALUE_INT" : "AFMT_VALUE_UINT";
        vc->width = v[0]->field.width;
        return one_order(m, ns, v[0], v[0]->field.width, g);
    }
    if (n == 1 && v[0]->kind == IT_FIELD && v[0]->field.ftype == FT_FLOAT && !v[0]->field.count) {
        vc->kind = "AFMT_VALUE_FLOAT";
        vc->width = v[0]->field.width;
        return one_order(m, ns, v[0], v[0]->field.width, g);
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
        return one_order(m, ns, v[0], v[0]->field.len_width, g);
    }
    if (n == 3 && is_list(v, ns)) {
        vc->kind = "AFMT_VALUE_LIST";
        vc->width = 0;
        g->elem_width = v[0]->field.width;
        g->count_width = v[1]->field.width;
        return one_order(m, ns, v[0], v[0]->field.width, g) || one_order(m, ns, v[1], v[1]->field.width, g) ? -1 : 0;
    }
    gen_error(m, sc->jpath, "structure '%s' is not a typed-value grammar (\"metadata\" of repeat '%s'): a case holds one "
              "integer, float (f32, f64, or bytes of 4 or 8) or string field, or a list: an integer field (its items' type), an "
              "integer field (their count) and a repeat of that count of a use of '%s' with the type as argument",
              ns->name, repeat->name, ns->name);
    return -1;
}

int value_grammar_of(emitter *m, const item *repeat, value_grammar *g)
{
    const item *use = value_use(repeat);
    const named_struct *ns = use && use->st.use ? struct_named(m->s, use->st.use) : NULL;
    const item *sw;
    int i, j;
    memset(g, 0, sizeof *g);
    if (!use || !ns) {
        gen_error(m, repeat->jpath, "\"metadata\": '%s' is not a use of a named structure in the body of repeat '%s'",
                  repeat->repeat.meta_value ? repeat->repeat.meta_value : "", repeat->name);
        return -1;
    }
    if (use->st.nargs != 1 || use->st.args[0]->kind != E_NAME || ns->nparams != 1) {
        gen_error(m, use->jpath, "\"metadata\": the value's structure takes one argument, a plain field name (its type)");
        return -1;
    }
    sw = ns->body.n == 1 ? ns->body.v[0] : NULL;
    if (!sw || sw->kind != IT_SWITCH || !sw->arg || sw->arg->kind != E_NAME || strcmp(sw->arg->sval, ns->params[0]) != 0) {
        gen_error(m, ns->jpath, "structure '%s' is not a typed-value grammar: its body is one switch on its parameter '%s'",
                  ns->name, ns->params[0]);
        return -1;
    }
    g->ns = ns;
    g->type_field = use->st.args[0]->sval;
    g->big = ORDER_NONE;
    for (i = 0; i < sw->ncases; i++) {
        value_case vc;
        if (classify(m, repeat, ns, &sw->cases[i], &vc, g) != 0) return -1;
        for (j = 0; j < sw->cases[i].nwhen; j++) {
            if (g->ncases == (int)(sizeof g->cases / sizeof g->cases[0])) {
                gen_error(m, sw->cases[i].jpath, "structure '%s' is a typed-value grammar of at most %d type codes",
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

/* Whether items of body (their cases' and bodies' too) check anything. */
static int checks_any(const item_list *body)
{
    int i, j;
    for (i = 0; i < body->n; i++) {
        const item *it = body->v[i];
        if (it->kind == IT_CHECK || it->nchecks > 0 || (it->kind == IT_FIELD && it->field.neach > 0)) return 1;
        if (checks_any(&it->body)) return 1;
        for (j = 0; j < it->ncases; j++)
            if (checks_any(&it->cases[j].body)) return 1;
    }
    return 0;
}

void value_grammar_emit(emitter *m, const value_grammar *g, char *out, size_t size)
{
    char *name = xprintf("%s_%s_grammar", m->s->format, g->ns->name);
    char *def = xprintf("static const afmt_value_grammar %s = {", name);
    int i;
    {
        char *cases = xprintf("%s_%s_cases", m->s->format, g->ns->name);
        char *what = xprintf("the typed values of structure '%s'", g->ns->name);
        char *what2 = xprintf("the typed value cases of structure '%s'", g->ns->name);
        c_name_claim(m, name, what, g->ns->jpath);
        c_name_claim(m, cases, what2, g->ns->jpath);
        free(cases);
        free(what);
        free(what2);
    }
    if (!(m->prelude->s && strstr(m->prelude->s, def))) {
        if (checks_any(&g->ns->body)) {
            /* the structure's validator as afmt_value_grammar.validate
             * calls it: the type code's offset (a parameter's, for its
             * failures) is where the value read back starts */
            char *rb = xprintf("%s_%s_read_back", m->s->format, g->ns->name);
            char *what = xprintf("the read-back of structure '%s'", g->ns->name);
            c_name_claim(m, rb, what, g->ns->jpath);
            sb_printf(m->prelude, "/* structure %s read back by the writer (afmt_value_write) */\n"
                                  "static int %s(afmt_validation *c, uint64_t code)\n{\n"
                                  "    return %s_validate_struct_%s(c, code, c->pos);\n}\n\n",
                      g->ns->name, rb, m->s->format, g->ns->name);
            free(rb);
            free(what);
        }
        sb_printf(m->prelude, "/* The typed values of structure %s (%s %s): type code, kind, width. */\n", g->ns->name,
                  m->s->path, g->ns->jpath);
        sb_printf(m->prelude, "static const afmt_value_case %s_%s_cases[%d] = {\n", m->s->format, g->ns->name, g->ncases);
        for (i = 0; i < g->ncases; i++)
            sb_printf(m->prelude, "    {%llu, %s, %d},\n", g->cases[i].code, g->cases[i].kind, g->cases[i].width);
        sb_printf(m->prelude, "};\n%s\n    .name = \"%s\",\n    .cases = %s_%s_cases,\n    .ncases = %d,\n"
                  "    .len_width = %d,\n    .elem_width = %d,\n    .count_width = %d,\n    .big = %s,\n    .write_big = %d,\n",
                  def, g->ns->name, m->s->format, g->ns->name, g->ncases, g->len_width, g->elem_width, g->count_width,
                  g->big == ORDER_RUN ? "AFMT_ORDER_RUN" : g->big ? "1" : "0", m->s->big_endian ? 1 : 0);
        /* its cases check more than the table says: the writer reads each
         * value back through the structure's validator (emit_struct.c
         * declared it in the prelude, at its first use) */
        if (checks_any(&g->ns->body))
            sb_printf(m->prelude, "    .validate = %s_%s_read_back,\n", m->s->format, g->ns->name);
        sb_puts(m->prelude, "};\n\n");
    }
    free(def);
    fixed_printf(out, size, "%s", name);
    free(name);
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
static int value_follows_type(emitter *m, const item *repeat, const item *type)
{
    const item *use = value_use(repeat);
    int i;
    for (i = 0; i < repeat->body.n; i++)
        if (repeat->body.v[i] == type && first_bytes_at(&repeat->body, i + 1, use)) return 0;
    gen_error(m, repeat->jpath, "\"metadata\": the value '%s' does not follow its type field '%s' in the body of repeat "
              "'%s' (only lets, checks, vars and sets between them)", use->name, type->name, repeat->name);
    return -1;
}

void emit_kv_visit(emitter *m, item *repeat)
{
    value_grammar g;
    sym *key = repeat->repeat.meta_key ? sym_find(m, repeat->repeat.meta_key) : NULL;
    sym *type;
    char gname[192];
    if (value_grammar_of(m, repeat, &g) != 0) return;
    type = sym_find(m, g.type_field);
    if (!key || key->kind != SY_STR) {
        gen_error(m, repeat->jpath, "\"metadata\": '%s' is not a string field of the body of repeat '%s'",
                  repeat->repeat.meta_key ? repeat->repeat.meta_key : "", repeat->name);
        return;
    }
    if (!type || type->kind != SY_INT || !type->it || type->it->kind != IT_FIELD) {
        gen_error(m, repeat->jpath, "\"metadata\": the value's type '%s' is not an integer field of the body of repeat '%s'",
                  g.type_field, repeat->name);
        return;
    }
    if (value_follows_type(m, repeat, type->it) != 0) return;
    decl_use(m, key->off_decl);
    decl_use(m, type->off_decl);
    decl_use(m, type->decl);
    value_grammar_emit(m, &g, gname, sizeof gname);
    line(m, "/* the key-value, typed, for the visitor (its value follows its type field) */");
    line(m, "if (afmt_kv_visit(c, &%s, %s + %d, %s, %s, %s + %d, %s)) return -1;", gname, key->off, key->width, key->c,
         type->c, type->off, type->it->field.width, key->off);
}
