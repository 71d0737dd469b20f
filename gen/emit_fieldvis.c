/* afmt-gen: telling a field visitor (afmt_options.fields) of each header
 * field a validator reads, for `afmt info`.  One call per field, after
 * the field's bytes are known to be there and before its checks, behind
 * a test of opt->fields so that validation without a visitor pays one
 * branch per field. */
#include "emit.h"

#include <stdlib.h>
#include <string.h>

/* The spec's doc as adjacent C literals of at most ~80 characters, each on
 * its own line indented by 8: a reviewer reads it without scrolling. */
static void put_doc(sbuf *b, const char *doc)
{
    size_t n = strlen(doc), at = 0;
    while (at < n) {
        size_t take = n - at, cut;
        char *q;
        if (take > 80) {
            /* cut after the last space in the first 80 characters */
            for (cut = 80; cut > 20 && doc[at + cut - 1] != ' '; cut--) {}
            take = cut > 20 ? cut : 80;
        }
        q = c_quote(doc + at, take);
        sb_printf(b, "\n        %s", q);
        free(q);
        at += take;
    }
}

/* The field's "names" as text: what tells two descriptors apart. */
static char *names_text(const item *it)
{
    sbuf b = {NULL, 0, 0};
    int k;
    sb_puts(&b, "");
    for (k = 0; k < it->field.nnames; k++)
        sb_printf(&b, "%llu=%s;", (unsigned long long)it->field.name_values[k], it->field.name_texts[k]);
    return b.s; /* the caller frees it */
}

/* static const afmt_value_name CNAME_names[] = {{8, "string"}, ...}; */
static void emit_names_table(emitter *m, const char *cname, const item *it)
{
    int k;
    sb_printf(m->descs, "static const afmt_value_name %s_names[%d] = {\n", cname, it->field.nnames);
    for (k = 0; k < it->field.nnames; k++) {
        char *q = c_quote(it->field.name_texts[k], strlen(it->field.name_texts[k]));
        sb_printf(m->descs, "    {%llu, %s},\n", (unsigned long long)it->field.name_values[k], q);
        free(q);
    }
    sb_puts(m->descs, "};\n");
}

/* "u8", "i32", "f64", "string", "bytes", "text": the field's type. */
static char *type_word(const item *it)
{
    if (it->kind != IT_FIELD) return xstrdup("array");
    switch (it->field.ftype) {
    case FT_INT: return xprintf("%c%d", it->field.is_signed ? 'i' : 'u', it->field.width * 8);
    case FT_FLOAT: return xprintf("f%d", it->field.width * 8);
    case FT_STRING: return xstrdup("string");
    case FT_TEXT: return xstrdup("text");
    case FT_BYTES: break;
    }
    return xstrdup("bytes");
}

static int desc_name_taken(const emitter *m, const char *cname)
{
    return strindex_get(&m->desc_name_index, cname) >= 0 || c_name_taken(m, cname);
}

/* field_<name>; for another descriptor of a field of the same name,
 * field_<name>_<type> (gguf's field_value_u8, field_value_string), else
 * field_<name>_<type>_<function> (the function reading it), else that
 * numbered from where the last search of it stopped. */
static char *desc_name(emitter *m, const item *it)
{
    char *type = type_word(it), *base = xprintf("field_%s", it->name);
    char *cname = xstrdup(base);
    const char *fn = m->nframes > 0 ? m->frame_names[m->nframes - 1] : NULL;
    int n;
    if (desc_name_taken(m, cname)) {
        free(cname);
        cname = xprintf("%s_%s", base, type);
    }
    if (desc_name_taken(m, cname) && fn) {
        free(cname);
        cname = xprintf("%s_%s_%s", base, type, fn);
    }
    free(base);
    if (desc_name_taken(m, cname)) {
        base = cname;
        n = name_number(m, base) > 2 ? name_number(m, base) : 2;
        cname = NULL;
        do {
            free(cname);
            m->tries++;
            cname = xprintf("%s_%d", base, n++);
        } while (desc_name_taken(m, cname));
        name_number_set(m, base, n);
        free(base);
    }
    free(type);
    return cname;
}

const char *field_desc(emitter *m, const item *it, const char *kind, int width, int is_array,
                       int big_endian)
{
    char *name_lit = c_quote(it->name, strlen(it->name));
    /* members that are 0 (is_array, big_endian) are left out */
    char *init = xprintf(".name = %s, .kind = %s, .width = %d%s%s", name_lit, kind, width,
                         is_array ? ", .is_array = 1" : "",
                         big_endian == ORDER_RUN ? ", .big_endian = AFMT_ORDER_RUN" : big_endian ? ", .big_endian = 1" : "");
    int named = it->kind == IT_FIELD && it->field.nnames > 0 && !is_array &&
                (strcmp(kind, "AFMT_FIELD_UINT") == 0 || strcmp(kind, "AFMT_FIELD_INT") == 0);
    char *names_key = named ? names_text(it) : xstrdup("");
    char *full = xprintf("%s|%s|%s", init, it->doc ? it->doc : "", names_key);
    char *cname;
    int i;
    free(name_lit);
    free(names_key);
    i = strindex_get(&m->desc_init_index, full);
    if (i >= 0) {
        free(init);
        free(full);
        return m->desc_names[i];
    }
    cname = desc_name(m, it);
    {
        char *what = xprintf("the descriptor %s", cname);
        c_name_claim(m, cname, what, NULL);
        free(what);
    }
    m->desc_names = realloc(m->desc_names, (size_t)(m->ndescs + 1) * sizeof *m->desc_names);
    m->desc_inits = realloc(m->desc_inits, (size_t)(m->ndescs + 1) * sizeof *m->desc_inits);
    if (!m->desc_names || !m->desc_inits) abort();
    m->desc_names[m->ndescs] = cname;
    m->desc_inits[m->ndescs] = full;
    strindex_put(&m->desc_name_index, cname, m->ndescs);
    strindex_put(&m->desc_init_index, full, m->ndescs);
    m->ndescs++;
    if (named) {
        /* the values' names, then the descriptor pointing at them */
        char *with = xprintf("%s, .names = %s_names, .n_names = %d", init, cname, it->field.nnames);
        emit_names_table(m, cname, it);
        free(init);
        init = with;
    }
    {
        char *head = xprintf("static const afmt_field_desc %s = {", cname);
        /* one line when it fits 100 columns, else the members on the next
         * and the doc (.doc, NULL when left out) on lines of its own */
        if (!it->doc && strlen(head) + strlen(init) + 2 <= 100)
            sb_printf(m->descs, "%s%s};\n", head, init);
        else if (!it->doc)
            sb_printf(m->descs, "%s\n    %s};\n", head, init);
        else if (strlen(it->doc) <= 80) { /* one literal: on the .doc line */
            char *q = c_quote(it->doc, strlen(it->doc));
            sb_printf(m->descs, "%s\n    %s,\n    .doc = %s};\n", head, init, q);
            free(q);
        } else {
            sb_printf(m->descs, "%s\n    %s,\n    .doc =", head, init);
            put_doc(m->descs, it->doc);
            sb_puts(m->descs, "};\n");
        }
        free(head);
    }
    free(init);
    return cname;
}
