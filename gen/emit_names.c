/* afmt-gen: the generated C's file-scope names, one thing each.
 *
 * Every file-scope name of a format's C is made from the spec's names:
 * <format>_<table>, <format>_<table>_known, <format>_validate_<repeat>,
 * <format>_validate_struct_<structure>, <format>_check_<field>,
 * field_<field>, <format>_dir_<directory>, <format>_<region>_scope, ...
 * So two spec names can make one C name (a table "x_known" and the list of
 * table "x"'s entries; a table "validate_body" and the validator's body;
 * a repeat "struct_s" and structure "s"'s function), and the C defined it
 * twice.  Each definition claims its name with what it is; the names an
 * emitter numbers (functions, check functions, field descriptors) step
 * over every name claimed; a name claimed for two different things is an
 * error naming both, so the C never defines one name twice. */
#include <stdlib.h>
#include <string.h>
#include "emit.h"

static int find(const emitter *m, const char *cname)
{
    return strindex_get(&m->cname_index, cname);
}

int c_name_taken(const emitter *m, const char *cname) { return find(m, cname) >= 0; }

int name_number(const emitter *m, const char *base)
{
    const int n = strindex_get(&m->number_next, base);
    return n < 0 ? 0 : n;
}

void name_number_set(emitter *m, const char *base, int next)
{
    if (strindex_get(&m->number_next, base) < 0) {
        m->number_keys = realloc(m->number_keys, sizeof *m->number_keys * (size_t)(m->nnumber_keys + 1));
        if (!m->number_keys) abort();
        m->number_keys[m->nnumber_keys++] = xstrdup(base);
        base = m->number_keys[m->nnumber_keys - 1];
    }
    strindex_put(&m->number_next, base, next);
}

int c_name_claim(emitter *m, const char *cname, const char *what, const char *jpath)
{
    int i = find(m, cname);
    if (i >= 0) {
        char *clash;
        int k;
        if (strcmp(m->cname_whats[i], what) == 0) return 0;
        /* a helper claims its name each time it is used: say it once */
        clash = xprintf("%s %s", cname, what);
        for (k = 0; k < m->nclashes; k++)
            if (strcmp(m->clashes[k], clash) == 0) break;
        if (k < m->nclashes) {
            free(clash);
            return -1;
        }
        m->clashes = realloc(m->clashes, sizeof *m->clashes * (size_t)(m->nclashes + 1));
        if (!m->clashes) abort();
        m->clashes[m->nclashes++] = clash;
        gen_error(m, jpath, "the C name %s of %s is also that of %s: rename one of them", cname, what,
                  m->cname_whats[i]);
        return -1;
    }
    m->cnames = realloc(m->cnames, sizeof *m->cnames * (size_t)(m->ncnames + 1));
    m->cname_whats = realloc(m->cname_whats, sizeof *m->cname_whats * (size_t)(m->ncnames + 1));
    if (!m->cnames || !m->cname_whats) abort();
    m->cnames[m->ncnames] = xstrdup(cname);
    strindex_put(&m->cname_index, m->cnames[m->ncnames], m->ncnames);
    m->cname_whats[m->ncnames++] = xstrdup(what);
    return 0;
}

void c_name_release(emitter *m, const char *cname)
{
    int i = find(m, cname);
    if (i < 0) return;
    strindex_del(&m->cname_index, m->cnames[i]);
    free(m->cnames[i]);
    free(m->cname_whats[i]);
    m->ncnames--;
    m->cnames[i] = m->cnames[m->ncnames];
    m->cname_whats[i] = m->cname_whats[m->ncnames];
    if (i < m->ncnames) strindex_put(&m->cname_index, m->cnames[i], i);
}

int helper_once(emitter *m, const char *cname, const char *what, const char *jpath, const char **out)
{
    int i;
    *out = NULL;
    if (c_name_claim(m, cname, what, jpath) < 0) return -1;
    i = strindex_get(&m->helper_index, cname);
    if (i >= 0) {
        *out = m->helpers[i];
        return 1;
    }
    m->helpers = realloc(m->helpers, sizeof *m->helpers * (size_t)(m->nhelpers + 1));
    if (!m->helpers) abort();
    m->helpers[m->nhelpers] = xstrdup(cname);
    strindex_put(&m->helper_index, m->helpers[m->nhelpers], m->nhelpers);
    *out = m->helpers[m->nhelpers++];
    return 0;
}

/* claim <format><suffix> for what */
static void claim_fixed(emitter *m, const char *suffix, const char *what, const char *jpath)
{
    char *cname = xprintf("%s%s", m->s->format, suffix);
    c_name_claim(m, cname, what, jpath);
    free(cname);
}

void c_names_reserve(emitter *m)
{
    const spec *s = m->s;
    int k;
    claim_fixed(m, "_validate_body", "the validator's body", "/body");
    claim_fixed(m, "_write_impl", "the writer", "/body");
    claim_fixed(m, "_extensions", "the format's extensions", "/extensions");
    claim_fixed(m, "_shared_extensions", "the format's shared extensions", "/shared_extensions");
    if (s->sidecar_suffix) claim_fixed(m, "_sidecar", "the sidecar's descriptor", "/sidecar");
    for (k = 0; k < s->ntables; k++) {
        char *suffix = xprintf("_%s", s->tables[k].name), *what = xprintf("table '%s'", s->tables[k].name);
        claim_fixed(m, suffix, what, s->tables[k].jpath);
        free(suffix);
        free(what);
    }
    for (k = 0; k < s->nstructs; k++) {
        char *suffix = xprintf("_validate_struct_%s", s->structs[k].name);
        char *what = xprintf("the function of structure '%s'", s->structs[k].name);
        claim_fixed(m, suffix, what, s->structs[k].jpath);
        free(suffix);
        free(what);
    }
}

void c_names_free(emitter *m)
{
    while (m->ncnames > 0) {
        m->ncnames--;
        free(m->cnames[m->ncnames]);
        free(m->cname_whats[m->ncnames]);
    }
    free(m->cnames);
    free(m->cname_whats);
    m->cnames = m->cname_whats = NULL;
    strindex_free(&m->cname_index);
    strindex_free(&m->number_next);
    while (m->nnumber_keys > 0) free(m->number_keys[--m->nnumber_keys]);
    free(m->number_keys);
    m->number_keys = NULL;
    strindex_free(&m->helper_index);
    while (m->nhelpers > 0) free(m->helpers[--m->nhelpers]);
    while (m->nclashes > 0) free(m->clashes[--m->nclashes]);
    free(m->clashes);
    m->clashes = NULL;
    free(m->helpers);
    m->helpers = NULL;
    free(m->last_error);
    m->last_error = NULL;
}
