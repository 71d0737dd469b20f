/* afmt-gen: the validator of named structures ("structs" and the "struct"
 * item), of vars ("var", "set") and of a repeat's "unique" key
 * (spec/LANGUAGE.md, "Named structures", "Vars", "repeat").
 *
 * A named structure is one C function, <format>_validate_struct_<name>,
 * defined once (before its first caller; a prototype in the prelude lets
 * it call itself), taking the run's context and its parameters.  Its body
 * sees nothing of its callers: the emitter's symbols are set aside while
 * it is emitted.  Each use enters it through afmt_struct_enter, which
 * holds the nesting to limits.max_depth.
 *
 * A var is a local of the function that declares it, read and written
 * through a pointer `p_<name>`, so the functions of the structures nested
 * in it (which take what they read as parameters, emit_func.c) change the
 * one value.
 */
#include <stdlib.h>
#include <string.h>
#include "emit.h"

static const named_struct *find_struct(const spec *s, const char *name)
{
    int i;
    for (i = 0; i < s->nstructs; i++)
        if (strcmp(s->structs[i].name, name) == 0) return &s->structs[i];
    return NULL;
}

static int struct_done(const emitter *m, const named_struct *ns)
{
    int i;
    for (i = 0; i < m->nstructs_done; i++)
        if (m->structs_done[i] == ns) return 1;
    return 0;
}

/* The C parameters of ns after the context: its values, unsigned, each
 * with the offset of what it was read from (a failure blamed on it is
 * there: the type code of a value, not the value after it).  The body
 * copies both into locals (bind_params): a switch case's function, or a
 * use of another structure, inside it captures what the body declared
 * (emit_func.c), never the function's parameters. */
static char *struct_params(const named_struct *ns)
{
    sbuf b = {0};
    int i;
    for (i = 0; i < ns->nparams; i++)
        sb_printf(&b, ", uint64_t arg_%s, uint64_t arg_at_%s", ns->params[i], ns->params[i]);
    return b.s ? b.s : xstrdup("");
}

/* Define ns's function (once), with every emitter state that belongs to
 * the function being emitted set aside. */
static void define_struct(emitter *m, const named_struct *ns, const char *fname)
{
    func_frame fr;
    int saved_nframes, i, saved_nsyms = m->nsyms;
    sym **saved_syms = xcalloc((size_t)m->nsyms + 1, sizeof *saved_syms);
    const item *saved_region = m->region;
    item *saved_tiles = m->tiles, *saved_uniq = m->uniq;
    const char *saved_comments = m->comments_var, *saved_jpath = m->jpath;
    const int saved_sole = m->sole_item, saved_uniq_found = m->uniq_found;
    const local_set saved_locals = m->locals;
    char *params = struct_params(ns), *proto = xprintf("static int %s(afmt_validation *c%s);\n", fname, params);
    m->structs_done = realloc(m->structs_done, sizeof *m->structs_done * (size_t)(m->nstructs_done + 1));
    if (!m->structs_done) { fputs("afmt-gen: out of memory\n", stderr); exit(2); }
    m->structs_done[m->nstructs_done++] = ns;
    sb_puts(m->prelude, proto);
    memcpy(saved_syms, m->syms, sizeof *saved_syms * (size_t)m->nsyms);
    m->nsyms = 0;
    m->region = NULL;
    m->tiles = NULL;
    m->uniq = NULL;
    m->comments_var = NULL;
    memset(&m->locals, 0, sizeof m->locals);
    func_begin_root(m, &fr, &saved_nframes);
    for (i = 0; i < ns->nparams; i++) {
        sym *y = sym_push(m, SY_INT, ns->params[i], NULL);
        line(m, "const uint64_t v_%s = arg_%s;", ns->params[i], ns->params[i]);
        line(m, "const uint64_t at_%s = arg_at_%s;", ns->params[i], ns->params[i]);
        line(m, "(void)at_%s; /* read if a failure is blamed on %s */", ns->params[i], ns->params[i]);
        /* a parameter the body does not read (a spec may pass one along
         * only some of the time): marked, for -Werror */
        y->decl = decl_new(m);
        decl_unless_used(m, y->decl, "(void)v_%s; /* not read */", ns->params[i]);
        y->t = VT_U;
        str_printf(&y->c, "v_%s", ns->params[i]);
        str_printf(&y->off, "at_%s", ns->params[i]);
    }
    m->sole_item = 0;
    emit_body_items(m, (item_list *)&ns->body);
    sym_pop_to(m, 0);
    {
        char *doc = xprintf("structure %s (%s %s)%s%s", ns->name, m->s->path, ns->jpath, ns->doc ? ": " : "",
                            ns->doc ? ns->doc : "");
        func_end_root(m, &fr, saved_nframes, fname, params, doc);
        free(doc);
    }
    local_set_free(&m->locals);
    m->locals = saved_locals;
    memcpy(m->syms, saved_syms, sizeof *saved_syms * (size_t)saved_nsyms);
    m->nsyms = saved_nsyms;
    m->region = saved_region;
    m->tiles = saved_tiles;
    m->uniq = saved_uniq;
    m->uniq_found = saved_uniq_found;
    m->comments_var = saved_comments;
    m->sole_item = saved_sole;
    m->jpath = saved_jpath;
    free(saved_syms);
    free(params);
    free(proto);
}

void emit_struct_use(emitter *m, item *it)
{
    const named_struct *ns = find_struct(m->s, it->st.use ? it->st.use : "");
    char *fname;
    sbuf args = {0};
    int i;
    if (!ns || ns->nparams != it->st.nargs) { /* check_struct_use */
        gen_unchecked(m, it->jpath, "an unknown structure, or the wrong number of arguments");
        return;
    }
    fname = xprintf("%s_validate_struct_%s", m->s->format, ns->name);
    for (i = 0; i < it->st.nargs; i++) {
        blame bl = blame_at(it->name, "AFMT_NO_INDEX", "c->pos");
        char *v = emit_u64(m, &bl, it->st.args[i], it->st.args_text[i]);
        /* where the argument was read: a plain name's offset, else the
         * structure's start (as the interpreter: interp_struct.c) */
        const sym *y = it->st.args[i]->kind == E_NAME ? sym_peek(m, it->st.args[i]->sval) : NULL;
        if (y && y->kind != SY_INT) y = NULL;
        if (y && y->off[0]) decl_use(m, y->off_decl);
        sb_printf(&args, ", %s, %s", v, y && y->off[0] ? y->off : "c->pos");
        free(v);
    }
    line(m, "if (afmt_struct_enter(c, \"%s\")) return -1;", it->name);
    line(m, "if (%s(c%s)) return -1;", fname, args.s ? args.s : "");
    line(m, "c->depth--;");
    /* defined after the call is written: its text goes to m->funcs,
     * before the function of the caller, which is finished later */
    if (!struct_done(m, ns)) define_struct(m, ns, fname);
    sb_free(&args);
    free(fname);
}

void emit_var(emitter *m, item *it, const char *off)
{
    const blame bl = blame_at(it->name, "AFMT_NO_INDEX", off);
    char *v;
    sym *y;
    if (m->region) { /* check_var */
        gen_unchecked(m, it->jpath, "a var inside a region");
        return;
    }
    v = emit_u64(m, &bl, it->let.value, it->let.value_text);
    line(m, "uint64_t var_%s = %s;", it->name, v);
    line(m, "uint64_t *const p_%s = &var_%s;", it->name, it->name);
    y = sym_push(m, SY_INT, it->name, it);
    /* a var nothing reads or sets (the writer's, set only in a repeat it
     * writes no repetition of): marked, for -Werror */
    y->decl = decl_new(m);
    decl_unless_used(m, y->decl, "(void)p_%s; /* not read */", it->name);
    y->t = VT_U;
    str_printf(&y->c, "(*p_%s)", it->name);
    str_printf(&y->off, "%s", off);
    free(v);
}

void emit_set(emitter *m, item *it, const char *off)
{
    sym *y = it->attribute ? sym_peek(m, it->attribute) : NULL;
    const blame bl = blame_at(it->attribute ? it->attribute : "", "AFMT_NO_INDEX", off);
    char *v;
    if (!y || !y->it || y->it->kind != IT_VAR) { /* check_set */
        gen_unchecked(m, it->jpath, "\"set\" of what is not a var");
        return;
    }
    v = emit_u64(m, &bl, it->let.value, it->let.value_text);
    sym_find(m, it->attribute); /* a use: the pointer is read */
    line(m, "*p_%s = %s;", it->attribute, v);
    free(v);
}

void emit_unique_setup(emitter *m, item *repeat)
{
    const int is_int = unique_key_kind(repeat);
    if (is_int < 0) { /* check_unique */
        gen_unchecked(m, repeat->jpath, "a \"unique\" key that is no integer, bytes or string field of the body");
        return;
    }
    line(m, "afmt_unique_keys uniq_%s;", repeat->name);
    line(m, "afmt_unique_keys_init(&uniq_%s, %d, %d);", repeat->name, is_int, repeat->repeat.unique_c_string);
    line(m, "afmt_unique_keys *const uq_%s = &uniq_%s;", repeat->name, repeat->name);
}

void emit_unique_key(emitter *m, item *f)
{
    const item *r = m->uniq;
    if (!r || !f->name || strcmp(f->name, r->repeat.unique) != 0 || f->field.count) return;
    m->uniq_found = 1;
    if (f->field.ftype == FT_INT) {
        sym *y = sym_find(m, f->name);
        line(m, "if (afmt_unique_keys_add_u64(c, uq_%s, \"%s\", \"%s\", r_%s, o_%s, (uint64_t)%s)) return -1;", r->name, r->name,
             f->name, r->name, f->name, y ? y->c : "0");
        if (y) decl_use(m, y->off_decl);
    } else if (f->field.ftype == FT_STRING) {
        sym *y = sym_find(m, f->name);
        line(m, "if (afmt_unique_keys_add(c, uq_%s, \"%s\", \"%s\", r_%s, o_%s, o_%s + %d, len_%s)) return -1;",
             r->name, r->name, f->name, r->name, f->name, f->name, f->field.len_width, f->name);
        (void)y;
    } else {
        sym *y = sym_find(m, f->name);
        line(m, "if (afmt_unique_keys_add(c, uq_%s, \"%s\", \"%s\", r_%s, o_%s, o_%s, %d)) return -1;", r->name,
             r->name, f->name, r->name, f->name, f->name, f->field.size);
        if (y) decl_use(m, y->off_decl);
    }
}
