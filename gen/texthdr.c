/* afmt-gen: the "text_header" item: loading (structure and meaning of its
 * keys) and emission (a constant afmt_header_arrays_desc, the validator's call,
 * and the writer of a spec holding one).  See texthdr.h. */
#include "texthdr.h"

#include <ctype.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "common/afmt_dtype.h"
#include "emit.h"
#include "load.h"
#include "spec.h"
#include "util.h"

/* Values of runtime/text/afmt_header_arrays.h's afmt_header_arrays_bind. */
enum { BIND_DTYPE = 1, BIND_ORDER = 2, BIND_SHAPE = 3, BIND_RANGE = 4 };

static const char *const TH_KEYS[] = {"text_header", "syntax", "length", "max_length", "pad", "terminator", "align",
                                      "write_align", "write_min_pad", "write_spare", "entries", "metadata", "keys",
                                      "types", "default_name", "lenient", "write_sort", "doc", NULL};
static const char *const KEY_KEYS[] = {"key", "bind", "kind", "doc", NULL};
static const char *const TYPE_KEYS[] = {"name", "prefix", "dtype", "refuse", "endian", "size", "write", "doc", NULL};

static const char *str_of(loader *L, json_t *o, const char *key, const char *jp)
{
    json_t *v = json_object_get(o, key);
    if (!v) return NULL;
    if (!json_is_string(v)) {
        char *p = xprintf("%s/%s", jp, key);
        LERR(L, p, "must be a string");
        free(p);
        return NULL;
    }
    return json_string_value(v);
}

static uint64_t uint_of(loader *L, json_t *o, const char *key, const char *jp, uint64_t dflt)
{
    json_t *v = json_object_get(o, key);
    if (!v) return dflt;
    if (!json_is_integer(v) || json_integer_value(v) < 0) {
        char *p = xprintf("%s/%s", jp, key);
        LERR(L, p, "must be a non-negative integer");
        free(p);
        return dflt;
    }
    return (uint64_t)json_integer_value(v);
}

static int byte_of(loader *L, json_t *o, const char *key, const char *jp)
{
    const char *s = str_of(L, o, key, jp);
    if (!s) return -1;
    if (strlen(s) != 1 || (unsigned char)s[0] >= 0x80) {
        char *p = xprintf("%s/%s", jp, key);
        LERR(L, p, "must be one ASCII character");
        free(p);
        return -1;
    }
    return (unsigned char)s[0];
}

static void load_keys(loader *L, texthdr *h, json_t *keys, const char *jp)
{
    size_t i;
    int seen[5] = {0};
    static const char *const binds[] = {"", "dtype", "order", "shape", "range"};
    if (!json_is_array(keys) || json_array_size(keys) == 0) {
        LERR(L, jp, "\"keys\" is a non-empty list of {\"key\", \"bind\"}");
        return;
    }
    h->keys = xcalloc(json_array_size(keys), sizeof *h->keys);
    for (i = 0; i < json_array_size(keys); i++) {
        json_t *k = json_array_get(keys, i);
        char *p = xprintf("%s/%zu", jp, i);
        th_key *tk = &h->keys[h->nkeys];
        const char *name, *bind, *kind;
        int b, j;
        if (!json_is_object(k)) { LERR(L, p, "a key is an object"); free(p); continue; }
        check_keys(L, k, p, KEY_KEYS);
        name = str_of(L, k, "key", p);
        bind = str_of(L, k, "bind", p);
        kind = str_of(L, k, "kind", p);
        if (!name || !bind) { LERR(L, p, "a key needs \"key\" and \"bind\""); free(p); continue; }
        for (b = 1; b <= 4; b++)
            if (strcmp(bind, binds[b]) == 0) break;
        if (b > 4) { LERR(L, p, "unknown bind '%s' (expected dtype, order, shape, range)", bind); free(p); continue; }
        if (seen[b]) LERR(L, p, "'%s' binds %s again: each binding names one key", name, bind);
        seen[b] = 1;
        for (j = 0; j < h->nkeys; j++)
            if (strcmp(h->keys[j].key, name) == 0) LERR(L, p, "key '%s' is listed twice", name);
        if (kind && b != BIND_SHAPE) LERR(L, p, "\"kind\" is for the shape's key");
        if (kind && strcmp(kind, "tuple") != 0 && strcmp(kind, "list") != 0)
            LERR(L, p, "unknown kind '%s' (expected list, tuple)", kind);
        if (kind && strcmp(kind, "tuple") == 0 && !h->python)
            LERR(L, p, "JSON has no tuples");
        tk->key = xstrdup(name);
        tk->bind = b;
        tk->tuple = kind && strcmp(kind, "tuple") == 0;
        h->nkeys++;
        free(p);
    }
    if (!seen[BIND_DTYPE] || !seen[BIND_SHAPE])
        LERR(L, jp, "an entry needs a key bound to \"dtype\" and one bound to \"shape\"");
    if (h->map && !seen[BIND_RANGE])
        LERR(L, jp, "the entries of a map need a key bound to \"range\" (where each array's bytes are)");
    if (!h->map && seen[BIND_RANGE])
        LERR(L, jp, "one entry's payload follows the header: \"range\" is for the entries of a map");
}

/* "write_sort": the writer's order of a map's entries, a list of sort keys
 * ("type": the position of the entry's type in "types", "name": the name's
 * bytes), each with "-" in front for descending; ties keep the arrays'
 * order.  Values of runtime/text/afmt_header_arrays.h's afmt_header_arrays_sort. */
static void load_write_sort(loader *L, texthdr *h, json_t *ws, const char *jp)
{
    static const char *const words[] = {"", "type", "name"};
    size_t i;
    int n = 0, w;
    if (!json_is_array(ws) || json_array_size(ws) == 0 || json_array_size(ws) > 4) {
        LERR(L, jp, "\"write_sort\" is a list of sort keys: \"type\", \"name\" (\"-\" in front: descending)");
        return;
    }
    if (!h->map) LERR(L, jp, "\"write_sort\" orders the entries of a map: give \"entries\": \"map\"");
    for (i = 0; i < json_array_size(ws); i++) {
        json_t *x = json_array_get(ws, i);
        char *p = xprintf("%s/%zu", jp, i);
        const char *t = json_is_string(x) ? json_string_value(x) : NULL;
        int desc = t && t[0] == '-';
        int j;
        if (!t) { LERR(L, p, "a sort key is a string"); free(p); continue; }
        for (w = 1; w <= 2; w++)
            if (strcmp(t + desc, words[w]) == 0) break;
        if (w > 2) { LERR(L, p, "unknown sort key '%s' (expected type, name, -type, -name)", t); free(p); continue; }
        for (j = 0; j < n; j++)
            if (h->write_sort[j] == w || h->write_sort[j] == -w) break;
        if (j < n) { LERR(L, p, "sort key '%s' is given twice", words[w]); free(p); continue; }
        h->write_sort[n++] = desc ? -w : w;
        free(p);
    }
}

static void load_types(loader *L, texthdr *h, json_t *types, const char *jp)
{
    size_t i;
    if (!json_is_array(types) || json_array_size(types) == 0) {
        LERR(L, jp, "\"types\" is a non-empty list of {\"name\", \"dtype\"} or {\"name\", \"refuse\"}");
        return;
    }
    h->types = xcalloc(json_array_size(types), sizeof *h->types);
    for (i = 0; i < json_array_size(types); i++) {
        json_t *t = json_array_get(types, i), *w;
        char *p = xprintf("%s/%zu", jp, i);
        th_type *tt = &h->types[h->ntypes];
        const char *name, *prefix, *dtype, *refuse, *endian;
        if (!json_is_object(t)) { LERR(L, p, "a type is an object"); free(p); continue; }
        check_keys(L, t, p, TYPE_KEYS);
        name = str_of(L, t, "name", p);
        prefix = str_of(L, t, "prefix", p);
        dtype = str_of(L, t, "dtype", p);
        refuse = str_of(L, t, "refuse", p);
        endian = str_of(L, t, "endian", p);
        if (!name == !prefix) LERR(L, p, "a type has \"name\" or \"prefix\", one of them");
        if (!dtype == !refuse) LERR(L, p, "a type has \"dtype\" or \"refuse\", one of them");
        tt->text = xstrdup(name ? name : prefix ? prefix : "");
        tt->prefix = prefix != NULL;
        if (strlen(tt->text) > 60) LERR(L, p, "a type name has at most 60 bytes");
        if (dtype) {
            /* the runtime's dtype table (runtime/common/afmt_dtype.c), but c32 */
            afmt_dtype d = afmt_dtype_from_name(dtype);
            if (d == AFMT_DTYPE_INVALID || d == AFMT_C32) {
                char *pd = xprintf("%s/dtype", p);
                LERR(L, pd, "unknown dtype '%s' (known: bool i8 i16 i32 i64 u8 u16 u32 u64 f16 bf16 f32 f64 c64 c128 opaque)",
                     dtype);
                free(pd);
            } else {
                tt->dtype = xstrdup(dtype);
                tt->size = (int)uint_of(L, t, "size", p, (uint64_t)afmt_dtype_get(d)->size);
                if (afmt_dtype_get(d)->size == 0 && (!json_object_get(t, "size") || tt->size <= 0 || tt->size > 4096))
                    LERR(L, p, "an opaque type needs \"size\" (1..4096 bytes)");
                if (afmt_dtype_get(d)->size != 0 && json_object_get(t, "size"))
                    LERR(L, p, "\"size\" is given exactly for opaque types");
            }
        }
        if (refuse) tt->refuse = xstrdup(refuse);
        tt->big = endian && strcmp(endian, "big") == 0;
        if (endian && strcmp(endian, "big") != 0 && strcmp(endian, "little") != 0)
            LERR(L, p, "\"endian\" is little or big");
        w = json_object_get(t, "write");
        tt->writable = dtype && !tt->big && !tt->prefix && !(w && json_is_false(w));
        if (w && !json_is_boolean(w)) LERR(L, p, "\"write\" is true or false");
        h->ntypes++;
        free(p);
    }
}

/* "syntax" and "length": how the header is written and its length prefix. */
static void th_load_syntax(loader *L, texthdr *h, json_t *o, const char *jp)
{
    static const struct { const char *t; int w, big; } LT[] = {
        {"u16le", 2, 0}, {"u16be", 2, 1}, {"u32le", 4, 0}, {"u32be", 4, 1}, {"u64le", 8, 0}, {"u64be", 8, 1}};
    const char *syn = str_of(L, o, "syntax", jp), *len;
    char *p;
    size_t i;
    if (!syn) LERR(L, jp, "a text header needs \"syntax\": json or python-dict");
    else if (strcmp(syn, "python-dict") == 0) h->python = 1;
    else if (strcmp(syn, "json") != 0) {
        p = xprintf("%s/syntax", jp);
        LERR(L, p, "unknown syntax '%s' (expected json, python-dict)", syn);
        free(p);
    }
    len = str_of(L, o, "length", jp);
    if (!len) {
        LERR(L, jp, "a text header needs \"length\": the type of its length prefix");
        return;
    }
    for (i = 0; i < sizeof LT / sizeof LT[0]; i++)
        if (strcmp(LT[i].t, len) == 0) { h->length_width = LT[i].w; h->length_big = LT[i].big; }
    if (!h->length_width) {
        p = xprintf("%s/length", jp);
        LERR(L, p, "unknown length type '%s' (expected u16, u32 or u64 with le or be)", len);
        free(p);
    }
}

/* What follows the text: "pad", "terminator", "align", the writer's
 * "write_*", and "lenient" (which relaxes them). */
static void th_load_padding(loader *L, texthdr *h, json_t *o, const char *jp)
{
    const char *len_mode;
    h->max_length = uint_of(L, o, "max_length", jp, 0);
    h->pad = byte_of(L, o, "pad", jp);
    h->terminator = byte_of(L, o, "terminator", jp);
    h->align = uint_of(L, o, "align", jp, 0);
    h->write_align = uint_of(L, o, "write_align", jp, 0);
    h->write_min_pad = uint_of(L, o, "write_min_pad", jp, 0);
    h->write_spare = uint_of(L, o, "write_spare", jp, 0);
    if ((h->write_align > 1 || h->write_min_pad || h->write_spare) && h->pad < 0)
        LERR(L, jp, "\"write_align\", \"write_min_pad\" and \"write_spare\" pad with \"pad\": give it");
    if (h->write_align && h->align && h->write_align % h->align != 0)
        LERR(L, jp, "\"write_align\" %llu is not a multiple of \"align\" %llu: the writer's files would be refused",
             (unsigned long long)h->write_align, (unsigned long long)h->align);
    len_mode = str_of(L, o, "lenient", jp);
    if (len_mode && strcmp(len_mode, "warn") == 0) h->lenient = 1;
    else if (len_mode && strcmp(len_mode, "reject") != 0) {
        char *p = xprintf("%s/lenient", jp);
        LERR(L, p, "unknown lenient mode '%s' (expected warn or reject)", len_mode);
        free(p);
    }
    if (h->lenient && h->pad < 0 && h->terminator < 0 && !h->align)
        LERR(L, jp, "\"lenient\": \"warn\" relaxes \"pad\", \"terminator\" and \"align\": give one");
}

/* "entries" (one array or a map of them), "metadata", "default_name". */
static void th_load_entries(loader *L, texthdr *h, json_t *o, const char *jp)
{
    const char *entries = str_of(L, o, "entries", jp);
    if (!entries || strcmp(entries, "one") == 0) h->map = 0;
    else if (strcmp(entries, "map") == 0) h->map = 1;
    else {
        char *p = xprintf("%s/entries", jp);
        LERR(L, p, "unknown entries '%s' (expected one, map)", entries);
        free(p);
    }
    if (str_of(L, o, "metadata", jp)) {
        h->metadata_key = xstrdup(str_of(L, o, "metadata", jp));
        if (!h->map) LERR(L, jp, "\"metadata\" names a key of a map: give \"entries\": \"map\"");
    }
    if (str_of(L, o, "default_name", jp)) h->default_name = xstrdup(str_of(L, o, "default_name", jp));
}

texthdr *texthdr_load(const char *path, void *obj, const char *jp, int *errors)
{
    loader L = {path, 0};
    json_t *o = obj;
    texthdr *h = xcalloc(1, sizeof *h);
    char *p;

    check_keys(&L, o, jp, TH_KEYS);
    th_load_syntax(&L, h, o, jp);
    th_load_padding(&L, h, o, jp);
    th_load_entries(&L, h, o, jp);
    p = xprintf("%s/keys", jp);
    if (!json_object_get(o, "keys")) LERR(&L, jp, "a text header needs \"keys\"");
    else load_keys(&L, h, json_object_get(o, "keys"), p);
    free(p);
    p = xprintf("%s/types", jp);
    if (!json_object_get(o, "types")) LERR(&L, jp, "a text header needs \"types\"");
    else load_types(&L, h, json_object_get(o, "types"), p);
    free(p);
    if (json_object_get(o, "write_sort")) {
        p = xprintf("%s/write_sort", jp);
        load_write_sort(&L, h, json_object_get(o, "write_sort"), p);
        free(p);
    }
    *errors += L.errors;
    return h;
}

/* ------------------------------------------------------------ emission */

/* The name of the table `<type> <name>[] = {<body>};` in the prelude: one
 * emitted before with this type and body (an equal text header in
 * another case), else a new one named <format>_<header>_<what>, or after
 * the item's path (cname) when that name is taken. */
static const char *shared_table(emitter *m, const item *it, const char *type, const char *what, const char *body)
{
    char *text = xprintf("%s\n%s", type, body), *name;
    int i, taken = 0;
    for (i = 0; i < m->nth_tables; i++) {
        if (strcmp(m->th_table_texts[i], text) == 0) {
            free(text);
            return m->th_table_names[i];
        }
    }
    name = xprintf("%s_%s_%s", m->s->format, it->name, what);
    for (i = 0; i < m->nth_tables; i++) taken |= strcmp(m->th_table_names[i], name) == 0;
    if (taken || c_name_taken(m, name)) {
        free(name);
        name = xprintf("%s_%s", it->th->cname, what);
    }
    {
        char *owner = xprintf("the %s of the text header at %s", what, it->jpath);
        c_name_claim(m, name, owner, it->jpath);
        free(owner);
    }
    m->th_table_names = realloc(m->th_table_names, sizeof *m->th_table_names * (size_t)(m->nth_tables + 1));
    m->th_table_texts = realloc(m->th_table_texts, sizeof *m->th_table_texts * (size_t)(m->nth_tables + 1));
    if (!m->th_table_names || !m->th_table_texts) exit(2);
    m->th_table_names[m->nth_tables] = name;
    m->th_table_texts[m->nth_tables++] = text;
    sb_printf(m->prelude, "static const %s %s[] = {\n%s};\n", type, name, body);
    return name;
}

/* "    .<member> = <c>,": a byte value as C reads it best, ' ' or '\\n',
 * else the number (-1: none). */
static void put_byte_member(sbuf *o, const char *member, int c)
{
    if (c == '\n') sb_printf(o, "    .%s = '\\n',\n", member);
    else if (c >= 0x20 && c < 0x7f && c != '\'' && c != '\\') sb_printf(o, "    .%s = '%c',\n", member, c);
    else sb_printf(o, "    .%s = %d,\n", member, c);
}

/* The C names of a spec's text header descriptors, from the spec's own
 * names: <format>_<header>, with the case's name (switch_case_name) for
 * each switch case the header lies in (npy_header_version_1: the case of
 * "version" taken for 1), and _2, _3, ... after a later header of the same name in the
 * same place (spec order).  Every pass of the generator finds the same. */
typedef struct th_naming {
    const item *target;
    char want[256];   /* the target's name without the count */
    int before;       /* headers of that name before the target */
    int found;
} th_naming;

static void th_base(const spec *s, const item *it, const char *cases, char *out, size_t cap)
{
    fixed_printf(out, cap, "%s_%s%s", s->format, it->name, cases);
}

/* Walk body (cases: the names of the cases around it): pass 1
 * finds the target's base name, pass 2 counts the headers of that base
 * name before it. */
static void th_walk(const spec *s, const item_list *body, const char *cases, th_naming *n, int pass)
{
    int i, j;
    for (i = 0; i < body->n && !(pass == 2 && n->found); i++) {
        const item *it = body->v[i];
        if (it->kind == IT_TEXTHDR) {
            char base[256];
            th_base(s, it, cases, base, sizeof base);
            if (it == n->target) {
                if (pass == 1) fixed_printf(n->want, sizeof n->want, "%s", base);
                n->found = pass == 2;
                if (pass == 2) return;
            } else if (pass == 2 && strcmp(base, n->want) == 0) {
                n->before++;
            }
        }
        th_walk(s, &it->body, cases, n, pass);
        for (j = 0; j < it->ncases; j++) {
            const switch_case *sc = &it->cases[j];
            char inner[256];
            fixed_printf(inner, sizeof inner, "%s_%s", cases, switch_case_name(s, it, j));
            th_walk(s, &sc->body, inner, n, pass);
        }
    }
}

/* The body, then each named structure's (a text header in a structure
 * was named by none: C that did not compile). */
static void th_walk_all(const spec *s, th_naming *n, int pass)
{
    int k;
    th_walk(s, &s->body, "", n, pass);
    for (k = 0; k < s->nstructs && !(pass == 2 && n->found); k++) th_walk(s, &s->structs[k].body, "", n, pass);
}

static void th_cname(const spec *s, const item *it, char *out, size_t cap)
{
    th_naming n;
    memset(&n, 0, sizeof n);
    n.target = it;
    th_walk_all(s, &n, 1);
    th_walk_all(s, &n, 2);
    if (n.before) fixed_printf(out, cap, "%s_%d", n.want, n.before + 1);
    else fixed_printf(out, cap, "%s", n.want);
}

static void emit_desc(emitter *m, item *it)
{
    texthdr *h = it->th;
    sbuf *o = m->prelude;
    const char *bind_names[] = {"0", "AFMT_BIND_DTYPE", "AFMT_BIND_ORDER", "AFMT_BIND_SHAPE", "AFMT_BIND_RANGE"};
    char *q;
    const char *keys_name, *types_name;
    sbuf keys = {0}, types = {0};
    int i;
    th_cname(m->s, it, h->cname, sizeof h->cname);
    /* once per emitter (the validator's first pass has one of its own) */
    {
        char *what = xprintf("the text header at %s", it->jpath);
        const char *stored;
        int rc = helper_once(m, h->cname, what, it->jpath, &stored);
        free(what);
        if (rc != 0) return;
    }
    sb_printf(o, "/* %s: the text header at %s */\n", it->name, it->jpath);
    for (i = 0; i < h->nkeys; i++) {
        q = c_quote(h->keys[i].key, strlen(h->keys[i].key));
        sb_printf(&keys, "    {.key = %s, .bind = %s, .kind = %s},\n", q, bind_names[h->keys[i].bind],
                  h->keys[i].tuple ? "AFMT_TV_TUPLE" : "AFMT_TV_LIST");
        free(q);
    }
    for (i = 0; i < h->ntypes; i++) {
        th_type *t = &h->types[i];
        char *r = t->refuse ? c_quote(t->refuse, strlen(t->refuse)) : xstrdup("NULL");
        q = c_quote(t->text, strlen(t->text));
        /* fields left 0 or NULL unsaid; a refusal's reason on a line of
         * its own (lines of ~100 columns) */
        sb_printf(&types, "    {.text = %s,%s .dtype = %s, .size = %d, .endian = %s%s%s%s},\n", q,
                  t->prefix ? " .prefix = 1," : "", t->dtype ? dtype_enum(t->dtype) : "AFMT_DTYPE_INVALID", t->size,
                  t->big ? "AFMT_BIG" : "AFMT_LITTLE", t->writable ? ", .writable = 1" : "",
                  t->refuse ? ",\n     .refuse = " : "", t->refuse ? r : "");
        free(q);
        free(r);
    }
    keys_name = shared_table(m, it, "afmt_header_arrays_key", "keys", keys.s ? keys.s : "");
    types_name = shared_table(m, it, "afmt_header_arrays_type", "types", types.s ? types.s : "");
    sb_free(&keys);
    sb_free(&types);
    q = c_quote(it->name, strlen(it->name));
    sb_printf(o, "static const afmt_header_arrays_desc %s = {\n", h->cname);
    sb_printf(o, "    .format = \"%s\",\n    .name = %s,\n", m->s->format, q);
    free(q);
    sb_printf(o, "    .syntax = %s,\n", h->python ? "AFMT_TEXTHDR_PYDICT" : "AFMT_TEXTHDR_JSON");
    sb_printf(o, "    .length_width = %d,\n    .length_big = %d,\n", h->length_width, h->length_big);
    sb_printf(o, "    .max_length = UINT64_C(%llu),\n", (unsigned long long)h->max_length);
    put_byte_member(o, "pad", h->pad);
    put_byte_member(o, "terminator", h->terminator);
    sb_printf(o, "    .align = UINT64_C(%llu),\n", (unsigned long long)h->align);
    sb_printf(o, "    .write_align = UINT64_C(%llu),\n", (unsigned long long)h->write_align);
    sb_printf(o, "    .write_min_pad = UINT64_C(%llu),\n", (unsigned long long)h->write_min_pad);
    sb_printf(o, "    .write_spare = UINT64_C(%llu),\n", (unsigned long long)h->write_spare);
    sb_printf(o, "    .map = %d,\n", h->map);
    q = h->metadata_key ? c_quote(h->metadata_key, strlen(h->metadata_key)) : xstrdup("NULL");
    sb_printf(o, "    .metadata_key = %s,\n", q);
    free(q);
    sb_printf(o, "    .keys = %s,\n    .nkeys = %d,\n", keys_name, h->nkeys);
    sb_printf(o, "    .types = %s,\n    .ntypes = %d,\n", types_name, h->ntypes);
    q = c_quote(h->default_name ? h->default_name : "", strlen(h->default_name ? h->default_name : ""));
    sb_printf(o, "    .default_name = %s,\n", q);
    free(q);
    sb_printf(o, "    .lenient = %d,\n", h->lenient);
    sb_printf(o, "    .write_sort = {%d, %d, %d, %d},\n};\n\n", h->write_sort[0], h->write_sort[1], h->write_sort[2],
              h->write_sort[3]);
}

void texthdr_emit_validate(emitter *m, item *it)
{
    if (!it->th) return;
    emit_desc(m, it);
    line(m, "if (afmt_header_arrays_validate(&%s, c->src, %s, &c->pos, &c->narrays, c->opt, c->vis, c->path,", it->th->cname,
         m->end);
    line(m, "        c->err) != 0)");
    line(m, "    return -1;");
}

static int find_th(const item_list *b, int map_only)
{
    int i, j;
    for (i = 0; i < b->n; i++) {
        const item *it = b->v[i];
        if (it->kind == IT_TEXTHDR && it->th && (!map_only || it->th->map)) return 1;
        if ((it->kind == IT_REPEAT || it->kind == IT_REGION) && find_th(&it->body, map_only)) return 1;
        if (it->kind == IT_SWITCH)
            for (j = 0; j < it->ncases; j++)
                if (find_th(&it->cases[j].body, map_only)) return 1;
    }
    return 0;
}

int texthdr_in_spec(const spec *s) { return find_th(&s->body, 0); }
int texthdr_multi(const spec *s) { return find_th(&s->body, 1); }

/* The value of e if it follows from literals and the literal values of
 * the integer fields b->v[0..upto] (what a text header spec's writer
 * writes): 1 and *out; 0 when it does not (any other name or function,
 * unsigned overflow or a value below zero). */
static int lit_eval(const expr *e, const item_list *b, int upto, uint64_t *out)
{
    uint64_t x, y;
    int i;
    if (e->kind == E_INT) { *out = e->ival; return 1; }
    if (e->kind == E_NAME) {
        for (i = 0; i <= upto && i < b->n; i++) {
            const item *f = b->v[i];
            const expr *v = f->kind == IT_FIELD && f->field.ftype == FT_INT && !f->field.count
                                ? (f->field.equals ? f->field.equals : f->write) : NULL;
            if (f->name && strcmp(f->name, e->sval) == 0 && v && v->kind == E_INT) { *out = v->ival; return 1; }
        }
        return 0;
    }
    if (e->kind == E_UNARY && e->op == TK_BANG && lit_eval(e->a, b, upto, &x)) { *out = !x; return 1; }
    if (e->kind == E_UNARY && e->op == TK_TILDE && lit_eval(e->a, b, upto, &x)) { *out = ~x; return 1; }
    if (e->kind != E_BINARY || !lit_eval(e->a, b, upto, &x) || !lit_eval(e->b, b, upto, &y)) return 0;
    switch (e->op) {
    case TK_PLUS: *out = x + y; return *out >= x;
    case TK_MINUS: *out = x - y; return x >= y;
    case TK_STAR: *out = x * y; return x == 0 || *out / x == y;
    case TK_AMP: *out = x & y; return 1;
    case TK_PIPE: *out = x | y; return 1;
    case TK_CARET: *out = x ^ y; return 1;
    case TK_EQ: *out = x == y; return 1;
    case TK_NE: *out = x != y; return 1;
    case TK_LT: *out = x < y; return 1;
    case TK_LE: *out = x <= y; return 1;
    case TK_GT: *out = x > y; return 1;
    case TK_GE: *out = x >= y; return 1;
    case TK_ANDAND: *out = x && y; return 1;
    case TK_OROR: *out = x || y; return 1;
    default: return 0;
    }
}

/* The values before a text header are literals (the writer writes fields
 * from "equals" or a literal "write"), so every check on them is a
 * constant: it must be known to hold, else every file written would be
 * refused by its own validator (spec fuzzer seeds 5022, 5077).  A check
 * lit_eval cannot evaluate exactly (a function, a unary minus, a value
 * below zero, a division) is refused too: the writer does not evaluate
 * checks at run time, and skipping it wrote files the validator refused
 * (`roundup(-(1_000), 0) >= 0`, seed 982522).  upto: the last field the
 * check may read; what: "field = value" for a field's own checks, NULL
 * for a check item. */
static void check_th_constant(emitter *m, const item_list *b, int upto, const check *c, const char *jpath,
                              const char *what)
{
    uint64_t ok;
    const char *text = c->text ? c->text : "?";
    if (!c->e) return;
    if (!lit_eval(c->e, b, upto, &ok))
        gen_error(m, jpath,
                  "the writer of a spec with a text header cannot evaluate `%s` from the literals it writes (it "
                  "takes literals, the integer fields before, + - * & | ^ ! ~ and comparisons, with no value "
                  "below zero): write the check so, or say why the format is not written: \"read_only\"", text);
    else if (!ok && what)
        gen_error(m, jpath, "the writer writes %s, which fails its check `%s`: the validator "
                  "would refuse every file it writes", what, text);
    else if (!ok)
        gen_error(m, jpath, "the literals the writer writes fail the check `%s`: the validator would refuse every "
                  "file it writes", text);
}

/* A lookup before a text header: its keys are literals too, so an entry
 * must be known to match them (else the validator refuses every file
 * written: "no entry of table t matches").  Keys lit_eval cannot evaluate
 * (a text key, a "when" entry) are refused as for checks. */
static void check_th_lookup(emitter *m, const item_list *b, int upto, const item *it)
{
    const table *tb = find_table(m->s, it->lookup.table ? it->lookup.table : "");
    uint64_t key[8];
    int e, k, known = it->lookup.nkey <= 8;
    if (!tb) return;
    for (k = 0; known && k < it->lookup.nkey; k++) known = lit_eval(it->lookup.key[k], b, upto, &key[k]);
    for (e = 0; known && e < tb->nentries; e++) {
        const table_entry *te = &tb->entries[e];
        int match = te->when == NULL && te->nkey == it->lookup.nkey;
        if (te->when) known = 0; /* a condition: not evaluated here */
        for (k = 0; match && k < te->nkey; k++)
            if (te->key[k]) {
                if (te->key[k]->kind != E_INT) known = 0;
                match = te->key[k]->kind == E_INT && te->key[k]->ival == key[k];
            }
        if (known && match) return;
    }
    if (!known)
        gen_error(m, it->jpath, "the writer of a spec with a text header cannot tell which entry of table %s lookup "
                  "'%s' takes (its keys must follow from the literals it writes, and the table's entries be integer "
                  "keys): say why the format is not written: \"read_only\"", tb->name, it->name);
    else
        gen_error(m, it->jpath, "no entry of table %s matches the keys the writer writes for lookup '%s': the "
                  "validator would refuse every file it writes", tb->name, it->name);
}

static void check_th_literal(emitter *m, const item_list *b, int i, uint64_t value)
{
    const item *it = b->v[i];
    char *what = xprintf("%s = %llu", it->name, (unsigned long long)value);
    int k;
    for (k = 0; k < it->nchecks; k++) check_th_constant(m, b, i, &it->checks[k], it->jpath, what);
    free(what);
}

static void write_th_items(emitter *m, const item_list *b)
{
    int i, j, k;
    for (i = 0; i < b->n; i++) {
        item *it = b->v[i];
        m->jpath = it->jpath;
        switch (it->kind) {
        case IT_FIELD:
            if (it->field.ftype == FT_INT && !it->field.count) {
                const expr *v = it->field.equals ? it->field.equals : it->write;
                if (!v || v->kind != E_INT) {
                    gen_error(m, it->jpath, "a spec with a text header writes integer fields from \"equals\" or a literal \"write\"");
                    break;
                }
                check_th_literal(m, b, i, v->ival);
                line(m, "/* %s */", it->name);
                if (it->field.width == 1) line(m, "if (afmt_sink_u8(sink, UINT64_C(%llu), err) != 0) return -1;", (unsigned long long)v->ival);
                else line(m, "if (afmt_sink_u%d(sink, UINT64_C(%llu), %s, err) != 0) return -1;", it->field.width * 8,
                          (unsigned long long)v->ival, big_c(m, it->field.big_endian));
            } else if ((it->field.ftype == FT_BYTES || it->field.ftype == FT_TEXT) && it->field.equals && it->field.equals->kind == E_STR) {
                char *q = c_quote(it->field.equals->sval, strlen(it->field.equals->sval));
                line(m, "/* %s */", it->name);
                line(m, "{");
                line(m, "    static const char v_%s[%d + 1] = %s;", it->name, it->field.size, q);
                line(m, "    if (afmt_sink_put(sink, v_%s, %d, err) != 0) return -1;", it->name, it->field.size);
                line(m, "}");
                free(q);
            } else {
                gen_error(m, it->jpath, "a spec with a text header writes bytes fields from \"equals\"");
            }
            break;
        case IT_SWITCH: {
            int done = 0;
            if (!it->write || it->write->kind != E_INT) {
                gen_error(m, it->jpath, "a switch before a text header needs a literal \"write\" (the case written)");
                break;
            }
            {
                /* the validator takes the case its selector chooses: it must be the one written */
                uint64_t sel;
                if (!it->arg || !lit_eval(it->arg, b, i - 1, &sel))
                    gen_error(m, it->jpath, "the writer of a spec with a text header cannot tell the value of switch "
                              "'%s''s selector `%s` from the literals it writes", it->name,
                              it->arg_text ? it->arg_text : "?");
                else if (sel != it->write->ival)
                    gen_error(m, it->jpath, "the writer writes case %llu of switch '%s', but its selector `%s` is %llu "
                              "in what it writes: the validator would read another case",
                              (unsigned long long)it->write->ival, it->name, it->arg_text ? it->arg_text : "?",
                              (unsigned long long)sel);
            }
            for (j = 0; j < it->ncases && !done; j++)
                for (k = 0; k < it->cases[j].nwhen && !done; k++)
                    if (it->cases[j].when[k]->ival == it->write->ival) {
                        write_th_items(m, &it->cases[j].body);
                        done = 1;
                    }
            if (!done) gen_error(m, it->jpath, "no case of this switch has the value of its \"write\"");
            break;
        }
        case IT_TEXTHDR:
            emit_desc(m, it);
            line(m, "if (afmt_header_arrays_write(&%s, arrays, n, wopt, sink, err) != 0) return -1;", it->th->cname);
            break;
        case IT_CHECK:
            for (k = 0; k < it->nchecks; k++) check_th_constant(m, b, i - 1, &it->checks[k], it->jpath, NULL);
            break;
        case IT_LOOKUP:
            check_th_lookup(m, b, i - 1, it);
            break;
        case IT_LET:
            break; /* read only by checks, which cannot name it (lit_eval) */
        default:
            gen_error(m, it->jpath, "a spec with a text header writes fields, switches and the header only");
            break;
        }
    }
}

void texthdr_emit_writer(emitter *m)
{
    const spec *s = m->s;
    m->writer = 1;
    line(m, "static int %s_write_impl(const afmt_array *arrays, size_t n, const afmt_write_options *wopt,", s->format);
    line(m, "                         afmt_sink *sink, afmt_error *err, uint8_t **owned)");
    line(m, "{");
    m->indent++;
    line(m, "(void)owned;");
    write_th_items(m, &s->body);
    line(m, "if (wopt && wopt->trailer_len > 0) {");
    m->indent++;
    if (s->trailer_keep)
        line(m, "if (afmt_sink_put(sink, wopt->trailer, wopt->trailer_len, err) != 0) return -1;");
    else
        line(m, "return afmt_fail(err, AFMT_E_USAGE, NULL, \"\", AFMT_NO_INDEX, AFMT_NO_OFFSET, \"%s does not allow data after the arrays\");",
             s->format);
    m->indent--;
    line(m, "}");
    line(m, "return 0;");
    m->indent--;
    line(m, "}");
}
