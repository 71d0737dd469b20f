/* afmt-gen: the C name of a switch case, from what the spec says of it.
 *
 * A case's function (and its writer's) is <format>_<verb>_<switch>_<label>,
 * the label being the first of these that no other case of the switch
 * shares:
 *   1. the names of its values: the "names" the selector's field gives
 *      them (gguf's value_kind_string; for a structure's parameter, the
 *      fields its uses pass, which must agree);
 *   2. the layout of its one array (daphne's block_kind_zeros,
 *      block_kind_dense, block_kind_csr, block_kind_coo);
 *   3. the first item of its body that no other case has (futhark's
 *      kind_binary_mark and kind_text);
 *   4. the condition that chooses it, when the selector is `cond ? v :
 *      ...` (gguf's kv_value_is_alignment, kv_value_not_is_alignment);
 *   5. its first value (content_4): the last resort, as before.
 * The spec alone decides it, so the validator and the writer name a case
 * alike and the output stays deterministic; emit_func.c's unique_name
 * still settles a clash with another function's name.  Every switch of a
 * spec is named in one walk of it, at the first ask: the work grows with
 * the spec, not with its cases times its items. */
#include <stdlib.h>
#include <string.h>
#include "emit.h"
#include "layout.h"

/* Labels longer than this make names nobody reads: the next rule then. */
#define LABEL_MAX 32
#define NRULES 4

char *c_ident_part(const char *s)
{
    char *r = xstrdup(s), *p;
    for (p = r; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9'))) *p = '_';
    return r;
}

/* ---- the walk: what each selector and structure argument reads ---- */

/* Where an item stands: the items before it in its list, then those
 * before the list's container, out to the body or structure. */
typedef struct scope {
    const item_list *v;
    int upto;
    const struct scope *up;
} scope;

/* What a name read somewhere is: a field, or a parameter of the
 * structure it is read in (param >= 0), or neither (field NULL, param -1). */
typedef struct source {
    const item *field;
    const named_struct *st;
    int param;
} source;

/* A use of a structure passing a name for parameter k. */
typedef struct arg_site {
    const char *use;
    int k;
    source from;
} arg_site;

typedef struct case_walk {
    const spec *s;
    const named_struct *root; /* the structure being walked, or NULL */
    arg_site *args;
    int nargs;
    item **switches; /* each switch, its selector's source beside it */
    source *selectors;
    int nswitches;
} case_walk;

static source resolve(const case_walk *w, const scope *sc, const char *name)
{
    source r = {NULL, NULL, -1};
    int i;
    for (; sc; sc = sc->up)
        for (i = sc->upto - 1; i >= 0; i--)
            if (sc->v->v[i]->name && strcmp(sc->v->v[i]->name, name) == 0) {
                if (sc->v->v[i]->kind == IT_FIELD) r.field = sc->v->v[i];
                return r;
            }
    for (i = 0; w->root && i < w->root->nparams; i++)
        if (strcmp(w->root->params[i], name) == 0) {
            r.st = w->root;
            r.param = i;
        }
    return r;
}

static void visit(case_walk *w, item *it, const scope *sc)
{
    int k;
    if (it->kind == IT_SWITCH) {
        w->switches = realloc(w->switches, sizeof *w->switches * (size_t)(w->nswitches + 1));
        w->selectors = realloc(w->selectors, sizeof *w->selectors * (size_t)(w->nswitches + 1));
        if (!w->switches || !w->selectors) abort();
        w->switches[w->nswitches] = it;
        w->selectors[w->nswitches] = (source){NULL, NULL, -1};
        if (it->arg && it->arg->kind == E_NAME) w->selectors[w->nswitches] = resolve(w, sc, it->arg->sval);
        w->nswitches++;
    }
    for (k = 0; it->kind == IT_STRUCT && k < it->st.nargs; k++) {
        if (it->st.args[k]->kind != E_NAME) continue;
        w->args = realloc(w->args, sizeof *w->args * (size_t)(w->nargs + 1));
        if (!w->args) abort();
        w->args[w->nargs].use = it->st.use;
        w->args[w->nargs].k = k;
        w->args[w->nargs++].from = resolve(w, sc, it->st.args[k]->sval);
    }
}

static void walk(case_walk *w, const item_list *v, const scope *up)
{
    int i, j;
    for (i = 0; i < v->n; i++) {
        const scope here = {v, i, up};
        visit(w, v->v[i], &here);
        walk(w, &v->v[i]->body, &here);
        for (j = 0; j < v->v[i]->ncases; j++) walk(w, &v->v[i]->cases[j].body, &here);
    }
}

/* ---- rule 1: the names of the values ---- */

typedef struct value_name {
    const char *found; /* the name of the value so far */
    int conflict;      /* two fields name it differently */
} value_name;

static void name_from(const case_walk *w, source from, uint64_t value, int depth, value_name *vn)
{
    int j;
    if (from.field) {
        for (j = 0; j < from.field->field.nnames; j++) {
            if (from.field->field.name_values[j] != value) continue;
            if (vn->found && strcmp(vn->found, from.field->field.name_texts[j]) != 0) vn->conflict = 1;
            vn->found = from.field->field.name_texts[j];
        }
        return;
    }
    /* a parameter: what every use of its structure passes */
    for (j = 0; from.st && depth < 4 && j < w->nargs; j++)
        if (w->args[j].k == from.param && strcmp(w->args[j].use, from.st->name) == 0)
            name_from(w, w->args[j].from, value, depth + 1, vn);
}

/* "string", "struct_or_object": the names of the case's values. */
static char *label_by_value_names(const case_walk *w, source selector, const switch_case *sc)
{
    sbuf b = {0};
    int j;
    if (sc->nwhen == 0 || sc->nwhen > 3) return NULL;
    for (j = 0; j < sc->nwhen; j++) {
        value_name vn = {NULL, 0};
        if (sc->when[j]->kind == E_INT) name_from(w, selector, sc->when[j]->ival, 0, &vn);
        if (!vn.found || vn.conflict) {
            sb_free(&b);
            return NULL;
        }
        sb_printf(&b, "%s%s", j ? "_or_" : "", vn.found);
    }
    return b.s;
}

/* ---- rule 2: how its array is stored ---- */

/* "csr", "zeros", "dense": the layout of the case's one array, or NULL. */
static char *label_by_layout(const switch_case *sc)
{
    const item *array = NULL;
    const layout_module *lm;
    int i;
    for (i = 0; i < sc->body.n; i++) {
        if (sc->body.v[i]->kind != IT_ARRAY) continue;
        if (array) return NULL;
        array = sc->body.v[i];
    }
    if (!array) return NULL;
    lm = layout_by_id(array->array.layout);
    return xstrdup(lm ? lm->name : array->array.layout == LAYOUT_DENSE ? "dense" : "array");
}

/* ---- rule 3: an item only this case has ---- */

static int holds_data(const item *it)
{
    return it->name && it->kind != IT_CHECK && it->kind != IT_SET && it->kind != IT_VAR && it->kind != IT_LET;
}

/* holders: for each item name, how many cases have an item of that name
 * (last: the last case counted, so that a case counts once) */
static void count_holders(const item *sw, strindex *holders, strindex *last)
{
    int ci, i;
    for (ci = 0; ci < sw->ncases; ci++)
        for (i = 0; i < sw->cases[ci].body.n; i++) {
            const char *name = sw->cases[ci].body.v[i]->name;
            int n;
            if (!name || strindex_get(last, name) == ci + 1) continue;
            strindex_put(last, name, ci + 1);
            n = strindex_get(holders, name);
            strindex_put(holders, name, n < 0 ? 1 : n + 1);
        }
}

static char *label_by_own_item(const switch_case *sc, const strindex *holders)
{
    int i;
    for (i = 0; i < sc->body.n; i++)
        if (holds_data(sc->body.v[i]) && strindex_get(holders, sc->body.v[i]->name) == 1)
            return xstrdup(sc->body.v[i]->name);
    return NULL;
}

/* ---- rule 4: the condition that chooses the case ---- */

/* `a ? 2 : b ? 1 : 0`: value 2 is a, 1 is b; of `a ? 1 : 0` value 0 is
 * not_a too. */
static char *label_by_condition(const item *sw, const switch_case *sc)
{
    const expr *e = sw->arg;
    const expr *only = e && e->kind == E_COND ? e->a : NULL;
    uint64_t v;
    if (sc->nwhen != 1 || sc->when[0]->kind != E_INT) return NULL;
    v = sc->when[0]->ival;
    for (; e && e->kind == E_COND; e = e->c) {
        if (e->c && e->c->kind == E_COND) only = NULL;
        if (e->b->kind == E_INT && e->b->ival == v) return expr_words(e->a, LABEL_MAX);
    }
    if (only && e && e->kind == E_INT && e->ival == v) {
        char *words = expr_words(only, LABEL_MAX - 4), *r = words ? xprintf("not_%s", words) : NULL;
        free(words);
        return r;
    }
    return NULL;
}

/* ---- the names of one switch's cases ---- */

/* labels[rule][case]: each rule's label of each case, as part of a C
 * name, or NULL (none, or too long) */
static void label_cases(const case_walk *w, const item *sw, source selector, char **labels[NRULES])
{
    strindex holders = {0}, last = {0};
    int ci, r;
    count_holders(sw, &holders, &last);
    for (r = 0; r < NRULES; r++) labels[r] = xcalloc((size_t)sw->ncases, sizeof *labels[r]);
    for (ci = 0; ci < sw->ncases; ci++) {
        const switch_case *sc = &sw->cases[ci];
        char *l[NRULES];
        l[0] = label_by_value_names(w, selector, sc);
        l[1] = label_by_layout(sc);
        l[2] = label_by_own_item(sc, &holders);
        l[3] = label_by_condition(sw, sc);
        for (r = 0; r < NRULES; r++) {
            labels[r][ci] = l[r] && strlen(l[r]) <= LABEL_MAX ? c_ident_part(l[r]) : NULL;
            free(l[r]);
        }
    }
    strindex_free(&holders);
    strindex_free(&last);
}

/* Drop the labels of a rule that two cases share: they tell neither. */
static void drop_shared(char **labels, int n)
{
    strindex seen = {0};
    int *shared = xcalloc((size_t)n, sizeof *shared);
    int ci;
    for (ci = 0; ci < n; ci++)
        if (labels[ci]) strindex_put(&seen, labels[ci], strindex_get(&seen, labels[ci]) < 0 ? 1 : 2);
    for (ci = 0; ci < n; ci++) shared[ci] = labels[ci] && strindex_get(&seen, labels[ci]) == 2;
    strindex_free(&seen); /* it holds the labels' strings: freed after it */
    for (ci = 0; ci < n; ci++)
        if (shared[ci]) {
            free(labels[ci]);
            labels[ci] = NULL;
        }
    free(shared);
}

static void name_cases(const case_walk *w, item *sw, source selector)
{
    char **labels[NRULES];
    int ci, r;
    label_cases(w, sw, selector, labels);
    for (r = 0; r < NRULES; r++) drop_shared(labels[r], sw->ncases);
    sw->sw.case_names = xcalloc((size_t)sw->ncases, sizeof *sw->sw.case_names);
    for (ci = 0; ci < sw->ncases; ci++) {
        const switch_case *sc = &sw->cases[ci];
        const char *l = NULL;
        for (r = 0; r < NRULES && !l; r++) l = labels[r][ci];
        sw->sw.case_names[ci] = l ? xprintf("%s_%s", sw->name, l)
                                  : xprintf("%s_%llu", sw->name, sc->nwhen ? (unsigned long long)sc->when[0]->ival : 0ULL);
    }
    for (r = 0; r < NRULES; r++) {
        for (ci = 0; ci < sw->ncases; ci++) free(labels[r][ci]);
        free(labels[r]);
    }
}

/* Every switch of the spec: one walk, then each switch's cases. */
static void name_all_cases(const spec *s)
{
    case_walk w;
    int i;
    memset(&w, 0, sizeof w);
    w.s = s;
    walk(&w, &s->body, NULL);
    for (i = 0; i < s->nstructs; i++) {
        w.root = &s->structs[i];
        walk(&w, &s->structs[i].body, NULL);
    }
    for (i = 0; i < w.nswitches; i++) name_cases(&w, w.switches[i], w.selectors[i]);
    free(w.switches);
    free(w.selectors);
    free(w.args);
}

const char *switch_case_name(const spec *s, const item *sw, int ci)
{
    if (!sw->sw.case_names) name_all_cases(s);
    if (!sw->sw.case_names) {
        /* a switch the walk does not reach: its cases' own items alone */
        case_walk none;
        const source no_selector = {NULL, NULL, -1};
        memset(&none, 0, sizeof none);
        none.s = s;
        name_cases(&none, (item *)sw, no_selector);
    }
    return sw->sw.case_names[ci];
}
