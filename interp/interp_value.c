/* afmt reference interpreter: a repeat's "metadata" (typed key-values,
 * spec/LANGUAGE.md), as gen/emit_value.c's validator does it.
 *
 * At load, each metadata repeat's value structure is described by the
 * generator's own value_grammar_of (gen/value_grammar.c, a question of
 * the model asked without an emitter: the same rules, so the same cases,
 * widths and byte order) and turned into the runtime's afmt_value_grammar
 * the generated code holds statically.  A run ends each repetition of such
 * a repeat with afmt_kv_visit, passing what the generated call passes: the
 * key's bytes after its length prefix, the type field's value, the value's
 * position just after the type field, the key field's offset.
 */
#include <stdlib.h>
#include <string.h>
#include "interp.h"
#include "core/afmt_value.h"

/* value_case's kind (the generated code's enumerator name) as the enum. */
static afmt_value_kind kind_of(const char *name)
{
    static const struct {
        const char *name;
        afmt_value_kind kind;
    } kinds[] = {{"AFMT_VALUE_UINT", AFMT_VALUE_UINT},   {"AFMT_VALUE_INT", AFMT_VALUE_INT},
                 {"AFMT_VALUE_FLOAT", AFMT_VALUE_FLOAT}, {"AFMT_VALUE_BOOL", AFMT_VALUE_BOOL},
                 {"AFMT_VALUE_STRING", AFMT_VALUE_STRING}, {"AFMT_VALUE_LIST", AFMT_VALUE_LIST}};
    size_t i;
    for (i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strcmp(kinds[i].name, name) == 0) return kinds[i].kind;
    abort(); /* a kind value_grammar_of gives that this table lacks: a bug */
}

/* The grammar of repeat's value structure (the spec passed afmt-gen's
 * checks at load, so value_grammar_of succeeds). */
static void describe(const afmt_interp *in, const item *repeat, ikv *k)
{
    diag quiet;
    value_grammar g;
    afmt_value_case *cases;
    int i;
    memset(&quiet, 0, sizeof quiet);
    quiet.quiet = 1;
    if (value_grammar_of(in->s, &quiet, repeat, &g) != 0) abort();
    cases = calloc((size_t)g.ncases + 1, sizeof *cases);
    if (!cases) abort();
    for (i = 0; i < g.ncases; i++) {
        cases[i].code = g.cases[i].code;
        cases[i].kind = kind_of(g.cases[i].kind);
        cases[i].width = (unsigned)g.cases[i].width;
    }
    k->repeat = repeat;
    k->type_field = g.type_field;
    memset(&k->g, 0, sizeof k->g);
    k->g.name = g.ns->name;
    k->g.cases = cases;
    k->g.ncases = (size_t)g.ncases;
    k->g.len_width = (unsigned)g.len_width;
    k->g.elem_width = (unsigned)g.elem_width;
    k->g.count_width = (unsigned)g.count_width;
    k->g.big = g.big == ORDER_RUN ? AFMT_ORDER_RUN : g.big ? 1 : 0;
    k->g.write_big = in->s->big_endian ? 1 : 0;
}

void ikv_collect(afmt_interp *in, const item_list *b)
{
    int i, j;
    for (i = 0; i < b->n; i++) {
        const item *it = b->v[i];
        if (it->kind == IT_REPEAT && it->repeat.meta_value) {
            ikv *k = realloc(in->kvs, sizeof *k * (size_t)(in->nkvs + 1));
            if (!k) abort();
            in->kvs = k;
            describe(in, it, &k[in->nkvs++]);
        }
        ikv_collect(in, &it->body);
        for (j = 0; j < it->ncases; j++) ikv_collect(in, &it->cases[j].body);
    }
}

void ikv_free(afmt_interp *in)
{
    int i;
    for (i = 0; i < in->nkvs; i++) free((void *)in->kvs[i].g.cases);
    free(in->kvs);
}

int irun_kv_visit(irun *r, const item *repeat)
{
    const ikv *k = NULL;
    const isym *key, *type;
    int i;
    for (i = 0; i < r->in->nkvs && !k; i++)
        if (r->in->kvs[i].repeat == repeat) k = &r->in->kvs[i];
    key = k ? isym_find(r, repeat->repeat.meta_key) : NULL;
    type = k ? isym_find(r, k->type_field) : NULL;
    if (!key || key->kind != IS_STR || !type || type->kind != IS_INT || !type->it || type->it->kind != IT_FIELD) {
        const iblame b = iblame_pos(repeat->name); /* afmt-gen refuses such a spec: a bug here */
        return ifail(r, &b, AFMT_E_UNSUPPORTED, LEN_NONE, "metadata of repeat '%s': no key or type field", repeat->name);
    }
    return afmt_kv_visit(r->c, &k->g, key->off + (uint64_t)key->width, key->count, type->v,
                         type->off + (uint64_t)type->it->field.width, key->off);
}
