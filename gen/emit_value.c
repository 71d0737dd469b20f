/* afmt-gen: typed metadata (a repeat's "metadata", spec/LANGUAGE.md),
 * rendered: the grammar of its value structure is the model's
 * (value_grammar.c, checked by check.c).
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

char *value_grammar_emit(emitter *m, const value_grammar *g)
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
    return name;
}

int emit_value_grammar(emitter *m, const item *repeat, value_grammar *g)
{
    diag d;
    memset(&d, 0, sizeof d);
    d.path = m->s->path;
    d.quiet = 1;
    if (value_grammar_of(m->s, &d, repeat, g) == 0) return 0;
    gen_unchecked(m, repeat->jpath, "a \"metadata\" value structure that is no typed-value grammar"); /* check_metadata */
    return -1;
}

void emit_kv_visit(emitter *m, item *repeat)
{
    value_grammar g;
    sym *key = repeat->repeat.meta_key ? sym_find(m, repeat->repeat.meta_key) : NULL;
    sym *type;
    char *gname;
    diag quiet;
    memset(&quiet, 0, sizeof quiet);
    quiet.quiet = 1;
    if (emit_value_grammar(m, repeat, &g) != 0) return;
    type = sym_find(m, g.type_field);
    if (!key || key->kind != SY_STR || !type || type->kind != SY_INT || !type->it || type->it->kind != IT_FIELD ||
        value_follows_type(&quiet, repeat, type->it) != 0) { /* check_metadata */
        gen_unchecked(m, repeat->jpath, "a \"metadata\" key or type field of the wrong kind or place");
        return;
    }
    decl_use(m, key->off_decl);
    decl_use(m, type->off_decl);
    decl_use(m, type->decl);
    gname = value_grammar_emit(m, &g);
    line(m, "/* the key-value, typed, for the visitor (its value follows its type field) */");
    line(m, "if (afmt_kv_visit(c, &%s, %s + %d, %s, %s, %s + %d, %s)) return -1;", gname, key->off, key->width, key->c,
         type->c, type->off, type->it->field.width, key->off);
    free(gname);
}
