/* afmt-gen: a field's constraints written once, as a function the validator
 * and the writer both call.
 *
 * The validator reaches a field's checks first: when every name they read
 * is a plain integer value (a field, a let, an element of an "each", its
 * index), their code goes into `static int <format>_check_<field>()` in
 * the prelude, taking those values as parameters, plus `at` (the offset a
 * failure names) and `at_index` (the element, for an "each").  The failure
 * is the validator's, through its context `c` (afmt_validation: a lenient
 * check tolerates through its options and visitor, every check names its
 * path).  The writer calls the same function with AFMT_VCTX_STRICT(err)
 * (no options: strict; no path) and at AFMT_NO_OFFSET (where the field
 * will lie is not known yet: no offset rather than a false one), so both
 * say the same thing with
 * one copy of the text.
 * Checks that read anything else (text, arrays, payloads, functions of the
 * input) stay inline where they are.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "emit.h"
#include "texthdr.h"

/* The spec names a check reads (with duplicates). */
static void check_names(const expr *e, const char ***names, int *n, int *plain)
{
    int i;
    if (!e) return;
    if (e->kind == E_CALL || e->kind == E_MEMBER || e->kind == E_INDEX || e->kind == E_STR) *plain = 0;
    if (e->kind == E_NAME) {
        const char **g = realloc(*names, sizeof *g * (size_t)(*n + 1));
        if (!g) exit(2);
        *names = g;
        (*names)[(*n)++] = e->sval;
    }
    check_names(e->a, names, n, plain);
    check_names(e->b, names, n, plain);
    check_names(e->c, names, n, plain);
    for (i = 0; i < e->nargs; i++) check_names(e->args[i], names, n, plain);
}

/* A C identifier (a value's local, not a literal or an expression). */
static int c_ident(const char *c)
{
    if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || *c == '_')) return 0;
    for (; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_')) return 0;
    return 1;
}

/* The values the checks read, as the validator names them: 0 when one is
 * not a plain integer (the checks then stay inline). */
static int check_params(emitter *m, const check *cs, int n, const sym *attr, check_fn *f)
{
    const char **names = NULL;
    int nn = 0, plain = 1, i, k;
    for (i = 0; i < n; i++) check_names(cs[i].e, &names, &nn, &plain);
    if (attr) {
        const char **g = realloc(names, sizeof *g * (size_t)(nn + 1));
        if (!g) exit(2);
        names = g;
        names[nn++] = attr->name;
    }
    for (i = 0; plain && i < nn; i++) {
        sym *y = sym_peek(m, names[i]);
        if (!y || (y->kind != SY_INT && y->kind != SY_BUILTIN) || !c_ident(y->c) ||
            (y->t != VT_S && y->t != VT_U)) {
            plain = 0;
            break;
        }
        for (k = 0; k < f->nparams; k++)
            if (strcmp(f->params[k].name, names[i]) == 0) break;
        if (k < f->nparams) continue;
        f->params = realloc(f->params, sizeof *f->params * (size_t)(f->nparams + 1));
        if (!f->params) exit(2);
        f->params[f->nparams].name = names[i];
        f->params[f->nparams].c = xstrdup(y->c);
        f->params[f->nparams].t = y->t;
        f->nparams++;
    }
    free(names);
    return plain;
}

static check_fn *find_check_fn(emitter *m, const check *cs, int n, const char *field)
{
    int i;
    for (i = 0; i < m->ncheck_fns; i++)
        if (m->check_fns[i].cs == cs && m->check_fns[i].n == n && strcmp(m->check_fns[i].field, field) == 0)
            return &m->check_fns[i];
    return NULL;
}

/* another check function's name, or any claimed (gen/emit_names.c) */
static int check_name_taken(const emitter *m, const char *fn)
{
    int i;
    for (i = 0; i < m->ncheck_fns; i++)
        if (strcmp(m->check_fns[i].name, fn) == 0) return 1;
    return c_name_taken(m, fn);
}

/* What check e says beyond the field it concerns: `value <= 1` of field
 * value is "le_1"; NULL when that is long. */
static char *check_words(const check *cs, const char *field)
{
    char *w = expr_words(cs->e, 64), *r = NULL;
    const size_t n = strlen(field);
    if (!w) return NULL;
    if (strncmp(w, field, n) == 0 && w[n] == '_') r = xstrdup(w + n + 1);
    else r = xstrdup(w);
    free(w);
    if (strlen(r) > 32) {
        free(r);
        return NULL;
    }
    return r;
}

/* <fmt>_check_<field>; for other checks of a field of that name,
 * <fmt>_check_<field>_<what they check> (gguf's check_value_le_1), else
 * _<their code> (torch's check_first_byte_magic), else numbered. */
static char *check_fn_name(emitter *m, const char *field, const check *cs)
{
    const char *f = *field ? field : "value";
    char *fn = xprintf("%s_check_%s", m->s->format, f), *what, *words;
    int k = 2;
    if (check_name_taken(m, fn) && (words = check_words(cs, f)) != NULL) {
        free(fn);
        fn = xprintf("%s_check_%s_%s", m->s->format, f, words);
        free(words);
    }
    if (check_name_taken(m, fn) && cs->code) {
        char *code = c_ident_part(cs->code);
        free(fn);
        fn = xprintf("%s_check_%s_%s", m->s->format, f, code);
        free(code);
    }
    while (check_name_taken(m, fn)) {
        free(fn);
        fn = xprintf("%s_check_%s_%d", m->s->format, f, k++);
    }
    what = xprintf("the function %s", fn);
    c_name_claim(m, fn, what, NULL);
    free(what);
    return fn;
}

/* The JSON path of the item a check belongs to: the check's without its
 * last "/check..." or "/each..." (a new string). */
static char *field_jpath(const char *jpath)
{
    const char *cut = NULL, *p;
    if (!jpath) return xstrdup("");
    for (p = jpath; (p = strchr(p, '/')) != NULL; p++)
        if (strncmp(p, "/check", 6) == 0 || strncmp(p, "/each", 5) == 0) cut = p;
    return cut ? xprintf("%.*s", (int)(cut - jpath), jpath) : xstrdup(jpath);
}

/* Emit the function of checks cs[0..n) into the prelude (the validator's
 * failures, blamed on `at` and `at_index`). */
static void define_check_fn(emitter *m, check_fn *f, check *cs, int n, const blame *bl, sym *attr)
{
    sbuf body = {0}, params = {0};
    sbuf *saved_out = m->out;
    const int saved_indent = m->indent, saved_nnonneg = m->nnonneg, saved_floor = m->nonneg_floor;
    blame inner = blame_at(bl->field, f->indexed ? "at_index" : "AFMT_NO_INDEX", "at");
    char *text;
    int i;
    m->out = &body;
    m->indent = 1;
    /* the caller's proofs and derived values are not in scope, and stay
     * as they are (the body's are added above them) */
    m->nonneg_floor = m->nnonneg;
    for (i = 0; i < n; i++) {
        m->jpath = cs[i].jpath;
        emit_check_body(m, &inner, &cs[i], attr);
    }
    m->out = saved_out;
    m->indent = saved_indent;
    m->nnonneg = saved_nnonneg;
    m->nonneg_floor = saved_floor;
    text = decls_resolve(m, body.s ? body.s : "");
    sb_puts(&params, "const afmt_validation *c, uint64_t at");
    if (f->indexed) sb_puts(&params, ", uint64_t at_index");
    for (i = 0; i < f->nparams; i++)
        sb_printf(&params, ", %s %s", f->params[i].t == VT_S ? "int64_t" : "uint64_t", f->params[i].c);
    f->text = xprintf("%s\n%s", params.s, text);
    for (i = 0; i < m->ncheck_fns; i++)
        if (&m->check_fns[i] != f && m->check_fns[i].text && strcmp(m->check_fns[i].text, f->text) == 0) {
            /* the same checks of a field of the same name elsewhere (another
             * case): one function */
            c_name_release(m, f->name);
            free(f->name);
            f->name = xstrdup(m->check_fns[i].name);
            break;
        }
    if (i == m->ncheck_fns) {
        sbuf *saved = m->out;
        char *where = field_jpath(cs[0].jpath), *path = c_comment(m->s->path);
        c_comment_fix(where);
        m->out = m->prelude;
        m->indent = 0;
        m->nnonneg = 0; /* line() at indent 0 would forget the caller's proofs */
        {
            char *c = xprintf("/* %s (%s %s): %s, for the validator and the writer */",
                              *bl->field ? bl->field : "value", path, where, n == 1 ? "its check" : "its checks");
            if (strlen(c) <= 100) {
                line(m, "%s", c);
            } else {
                line(m, "/* %s: %s, for the validator and the writer", *bl->field ? bl->field : "value",
                     n == 1 ? "its check" : "its checks");
                line(m, " * (%s %s) */", path, where);
            }
            free(c);
        }
        line(m, "static int %s(%s)", f->name, params.s);
        line(m, "{");
        sb_puts(m->prelude, text);
        line(m, "    return 0;");
        line(m, "}");
        line(m, "%s", "");
        m->out = saved;
        m->indent = saved_indent;
        m->nnonneg = saved_nnonneg;
        free(where);
        free(path);
    }
    free(text);
    sb_free(&body);
    sb_free(&params);
}

/* The call of f where the checks stand: the validator's values and blame,
 * or the writer's (NULL options and path, no offset).  0 when the writer
 * has no plain value of the same type for a parameter. */
static int call_check_fn(emitter *m, const check_fn *f, const blame *bl)
{
    sbuf args = {0};
    int i;
    /* the writer's: strict, no input, no path (afmt_step.h) */
    sb_printf(&args, "%s, %s", m->writer ? "AFMT_VCTX_STRICT(err)" : "c", m->writer ? "AFMT_NO_OFFSET" : bl->offset);
    if (f->indexed) sb_printf(&args, ", %s", bl->index);
    for (i = 0; i < f->nparams; i++) {
        sym *y = sym_find(m, f->params[i].name);
        if (!y || (y->kind != SY_INT && y->kind != SY_BUILTIN) || y->t != f->params[i].t) {
            sb_free(&args);
            return 0;
        }
        sb_printf(&args, ", %s", y->c);
    }
    if (!m->writer) decl_use(m, bl->off_decl);
    line(m, "if (%s(%s)) return -1;", f->name, args.s);
    sb_free(&args);
    return 1;
}

int emit_shared_checks(emitter *m, const blame *bl, check *cs, int n, sym *attr)
{
    check_fn *f = find_check_fn(m, cs, n, bl->field);
    int i;
    /* a writer that evaluates no field's checks: nothing to share */
    if (n <= 0 || m->s->read_only || texthdr_in_spec(m->s)) return 0;
    for (i = 0; i < n; i++)
        if (!cs[i].e || cs[i].lenient == LEN_NOTE) return 0; /* a note is the validator's alone */
    if (!f) {
        check_fn nf;
        if (m->writer) return 0; /* only what the validator defined is shared */
        memset(&nf, 0, sizeof nf);
        if (!check_params(m, cs, n, attr, &nf)) {
            for (i = 0; i < nf.nparams; i++) free(nf.params[i].c);
            free(nf.params);
            return 0;
        }
        nf.cs = cs;
        nf.n = n;
        nf.field = xstrdup(bl->field);
        nf.name = check_fn_name(m, bl->field, &cs[0]);
        nf.indexed = strcmp(bl->index, "AFMT_NO_INDEX") != 0;
        for (i = 0; i < n; i++)
            if (cs[i].lenient == LEN_WARN) nf.lenient = 1;
        m->check_fns = realloc(m->check_fns, sizeof *m->check_fns * (size_t)(m->ncheck_fns + 1));
        if (!m->check_fns) exit(2);
        m->check_fns[m->ncheck_fns++] = nf;
        f = &m->check_fns[m->ncheck_fns - 1];
        define_check_fn(m, f, cs, n, bl, attr);
    }
    return call_check_fn(m, f, bl);
}
