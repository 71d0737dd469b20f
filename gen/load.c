/* afmt-gen: read a spec file (jansson) into the model of spec.h: its
 * top level, tables, detection rules and sidecar here; items in
 * load_item.c; JSON values in load_json.c (the interface is gen/load.h).
 *
 * This pass checks structure: known keys, value kinds, type names,
 * expression syntax.  Name resolution and typing happen while emitting
 * (emit_*.c), which reports unknown names with the JSON path of the use.  Every
 * problem is reported as "spec/x.json: /json/path: message"; loading goes
 * on after an error so one run shows them all.
 */
#include <stdlib.h>
#include <string.h>
#include "common/afmt_dtype.h"
#include "afmt.h" /* AFMT_DETECT_MAX */
#include "load.h"
#include "util.h"

static const char *const TABLE_KEYS[] = {"entries", "doc", NULL};
static const char *const ENTRY_KEYS[] = {"key", "when", "dtype", "size", "block", "name", "encoding", "warn", "write", "write_key", "doc", NULL};

/* "block": [N, B], N elements stored in B bytes (quantized types), and
 * "name", what the format calls an opaque type: both for opaque entries. */
static void load_entry_block(loader *L, json_t *e, const char *pi, table_entry *te)
{
    json_t *b = json_object_get(e, "block"), *n = json_object_get(e, "name");
    int opaque = te->dtype && strcmp(te->dtype, "opaque") == 0;
    if ((n || b) && !opaque) {
        LERR(L, pi, "\"%s\" is for \"dtype\": \"opaque\" entries (a type afmt does not decode)", n ? "name" : "block");
        return;
    }
    if (n) {
        if (!json_is_string(n) || !*json_string_value(n) || strlen(json_string_value(n)) > 63)
            LERR(L, pi, "\"name\" names an opaque entry's type: a text of 1 to 63 bytes");
        else
            te->type_name = xstrdup(json_string_value(n));
    }
    if (!b) return;
    if (!json_is_array(b) || json_array_size(b) != 2 || !json_is_integer(json_array_get(b, 0)) ||
        !json_is_integer(json_array_get(b, 1)) || json_integer_value(json_array_get(b, 0)) <= 0 ||
        json_integer_value(json_array_get(b, 1)) <= 0) {
        LERR(L, pi, "\"block\" is [elements, bytes]: two positive integers");
        return;
    }
    if (!opaque || te->size || !te->type_name)
        LERR(L, pi, "a \"block\" entry is an opaque type with a \"name\" and no \"size\" (the block gives it)");
    te->block_elems = (uint64_t)json_integer_value(json_array_get(b, 0));
    te->block_bytes = (uint64_t)json_integer_value(json_array_get(b, 1));
}

/* An entry's "key": one literal per key of the table (all entries alike). */
static void load_entry_key(loader *L, json_t *k, const char *pi, table *tb, table_entry *te)
{
    size_t j;
    char *pk = jp_key(pi, "key");
    if (!json_is_array(k) || json_array_size(k) == 0) {
        LERR(L, pk, "\"key\" is a non-empty list of literals");
    } else {
        te->key = xcalloc(json_array_size(k), sizeof *te->key);
        for (j = 0; j < json_array_size(k); j++) {
            char *pj = jp_idx(pk, j);
            te->key[te->nkey++] = literal(L, json_array_get(k, j), pj);
            free(pj);
        }
        if (tb->nkeys >= 0 && tb->nkeys != te->nkey)
            LERR(L, pk, "this key has %d values but earlier keys have %d", te->nkey, tb->nkeys);
        tb->nkeys = te->nkey;
    }
    free(pk);
}

/* What a writer stores in the key fields for a "when" entry: integers, or
 * "elsize" (the array's element size in bytes). */
static void load_write_key(loader *L, json_t *w, const char *pi, const table *tb, table_entry *te)
{
    char *pw = jp_key(pi, "write_key");
    size_t j;
    if (!te->when || !json_is_array(w) || json_array_size(w) == 0 ||
        (tb->nkeys >= 0 && json_array_size(w) != (size_t)tb->nkeys)) {
        LERR(L, pw, "\"write_key\" belongs to a \"when\" entry: a list with one value per key");
    } else {
        te->write_key = xcalloc(json_array_size(w), sizeof *te->write_key);
        for (j = 0; j < json_array_size(w); j++) {
            json_t *x = json_array_get(w, j);
            char *pj = jp_idx(pw, j);
            if (!json_is_integer(x) && !(json_is_string(x) && strcmp(json_string_value(x), "elsize") == 0))
                LERR(L, pj, "a \"write_key\" value is an integer or \"elsize\"");
            else
                te->write_key[te->nwrite_key++] = literal(L, x, pj);
            free(pj);
        }
    }
    free(pw);
}

static void load_entry(loader *L, json_t *e, const char *pi, table *tb, table_entry *te)
{
    json_t *k, *w;
    te->jpath = xstrdup(pi);
    te->writable = 1;
    if (!json_is_object(e)) { LERR(L, pi, "an entry is an object"); return; }
    check_keys(L, e, pi, ENTRY_KEYS);
    k = json_object_get(e, "key");
    if (k) load_entry_key(L, k, pi, tb, te);
    te->when = get_expr(L, e, "when", pi, &te->when_text);
    if (!!te->key == !!te->when) LERR(L, pi, "an entry has either \"key\" or \"when\"");
    te->dtype = get_str(L, e, "dtype", pi, 1);
    /* the runtime's dtype table (runtime/common/afmt_dtype.c) says which names exist */
    if (te->dtype && afmt_dtype_from_name(te->dtype) == AFMT_DTYPE_INVALID) {
        char *pd = jp_key(pi, "dtype");
        LERR(L, pd, "unknown dtype '%s' (known: bool i8 i16 i32 i64 u8 u16 u32 u64 f16 bf16 f32 f64 c32 c64 c128 opaque)", te->dtype);
        free(pd);
    }
    te->size = get_expr(L, e, "size", pi, NULL);
    load_entry_block(L, e, pi, te);
    te->encoding = get_str(L, e, "encoding", pi, 0);
    if (te->encoding && strcmp(te->encoding, "plain") != 0 && strcmp(te->encoding, "bits-lsb") != 0)
        LERR(L, pi, "\"encoding\" is \"plain\" or \"bits-lsb\"");
    te->warn = get_str(L, e, "warn", pi, 0);
    w = json_object_get(e, "write");
    if (w) te->writable = json_is_true(w);
    w = json_object_get(e, "write_key");
    if (w) load_write_key(L, w, pi, tb, te);
}

static void load_table(loader *L, const char *name, json_t *t, const char *jp, table *tb)
{
    json_t *entries;
    size_t i;
    char *pe;
    tb->name = xstrdup(name);
    tb->jpath = xstrdup(jp);
    tb->nkeys = -1;
    if (!json_is_object(t)) { LERR(L, jp, "a table is an object"); return; }
    check_keys(L, t, jp, TABLE_KEYS);
    entries = json_object_get(t, "entries");
    if (!json_is_array(entries) || json_array_size(entries) == 0) { LERR(L, jp, "\"entries\" is a non-empty list"); return; }
    pe = jp_key(jp, "entries");
    tb->entries = xcalloc(json_array_size(entries), sizeof *tb->entries);
    for (i = 0; i < json_array_size(entries); i++) {
        char *pi = jp_idx(pe, i);
        load_entry(L, json_array_get(entries, i), pi, tb, &tb->entries[tb->nentries++]);
        free(pi);
    }
    free(pe);
}

static const char *const TOP_KEYS[] = {
    "format", "title", "holds", "doc", "extensions", "shared_extensions", "endian", "detect", "tables", "body", "trailer", "sidecar", "read_only", "structs", "$schema", NULL};

static void load_detect(loader *L, spec *s, json_t *d, const char *jp)
{
    size_t i, n = json_is_array(d) ? json_array_size(d) : 1;
    s->detect = xcalloc(n, sizeof *s->detect);
    for (i = 0; i < n; i++) {
        json_t *r = json_is_array(d) ? json_array_get(d, i) : d;
        char *pi = json_is_array(d) ? jp_idx(jp, i) : xstrdup(jp);
        detect_rule *dr = &s->detect[s->ndetect++];
        json_t *at = json_object_get(r, "at"), *bytes = json_object_get(r, "bytes"), *skip = json_object_get(r, "skip");
        static const char *const DETECT_KEYS[] = {"at", "bytes", "hex", "skip", "first_member", NULL};
        if (!json_is_object(r)) { LERR(L, pi, "a detect rule is an object"); free(pi); continue; }
        check_keys(L, r, pi, DETECT_KEYS);
        dr->at = at && json_is_integer(at) ? (uint64_t)json_integer_value(at) : 0;
        if (skip) {
            dr->skip_ws = json_is_string(skip) && strcmp(json_string_value(skip), "whitespace") == 0;
            if (!dr->skip_ws) LERR(L, pi, "a detect rule's \"skip\" is \"whitespace\"");
        }
        if (at && !json_is_integer(at)) LERR(L, pi, "\"at\" is an integer");
        if (bytes && json_is_string(bytes)) {
            dr->nbytes = (int)json_string_length(bytes);
            dr->bytes = xcalloc((size_t)dr->nbytes + 1, 1);
            memcpy(dr->bytes, json_string_value(bytes), (size_t)dr->nbytes);
        } else if (json_object_get(r, "hex")) {
            const char *h = json_string_value(json_object_get(r, "hex"));
            size_t hl = h ? strlen(h) : 1, j;
            if (!h || hl % 2) { LERR(L, pi, "\"hex\" is an even-length hex string"); free(pi); continue; }
            dr->nbytes = (int)(hl / 2);
            dr->bytes = xcalloc(hl / 2 + 1, 1);
            for (j = 0; j < hl / 2; j++) {
                unsigned b;
                if (sscanf(h + 2 * j, "%2x", &b) != 1) LERR(L, pi, "bad hex digit");
                dr->bytes[j] = (unsigned char)b;
            }
        } else {
            LERR(L, pi, "a detect rule needs \"bytes\" or \"hex\"");
        }
        if (json_object_get(r, "first_member")) {
            char why[300];
            dr->first_member = get_str(L, r, "first_member", pi, 1);
            if (dr->first_member && !archive_pattern_ok(dr->first_member, why, sizeof why)) LERR(L, pi, "%s", why);
        }
        if (at && json_is_integer(at) && json_integer_value(at) < 0) LERR(L, pi, "\"at\" is a byte offset, not negative");
        else if (dr->at > AFMT_DETECT_MAX || dr->at + (uint64_t)dr->nbytes > AFMT_DETECT_MAX)
            LERR(L, pi, "detection looks at the first %d bytes only (AFMT_DETECT_MAX): this rule needs %llu", AFMT_DETECT_MAX,
                 (unsigned long long)dr->at + (unsigned long long)dr->nbytes);
        free(pi);
    }
}

/* Fields and payloads that name no byte order, in b (and its nested
 * bodies): the one chosen at run time from now on. */
static void order_at_run_time(item_list *b)
{
    int i, j;
    for (i = 0; i < b->n; i++) {
        item *it = b->v[i];
        /* (a byte has no order: a u8 keeps the spec's, as its report shows) */
        if (it->kind == IT_FIELD && !it->field.order_explicit &&
            (((it->field.ftype == FT_INT || it->field.ftype == FT_FLOAT) && it->field.width > 1) ||
             (it->field.ftype == FT_STRING && it->field.len_width > 1)))
            it->field.big_endian = ORDER_RUN;
        if (it->kind == IT_ARRAY && !it->array.payload_explicit) it->array.payload_big = ORDER_RUN;
        if (it->kind == IT_DIRECTORY && !it->dir.payload_explicit) it->dir.payload_big = ORDER_RUN;
        if (it->kind == IT_REGION && it->region.size_width > 1 && !it->region.size_order_explicit)
            it->region.size_big = ORDER_RUN;
        order_at_run_time(&it->body);
        for (j = 0; j < it->ncases; j++) order_at_run_time(&it->cases[j].body);
    }
}

/* Any "byte_order" item in b (nested bodies included); where: its path. */
static const item *find_byte_order(const item_list *b)
{
    int i, j;
    for (i = 0; i < b->n; i++) {
        const item *it = b->v[i], *in;
        if (it->kind == IT_BYTE_ORDER) return it;
        if ((in = find_byte_order(&it->body)) != NULL) return in;
        for (j = 0; j < it->ncases; j++)
            if ((in = find_byte_order(&it->cases[j].body)) != NULL) return in;
    }
    return NULL;
}

/* The "byte_order" item: one, in the top-level body; what follows it (and
 * every named structure, which may be used after it) reads the order it
 * chose.  What comes before it keeps the spec's "endian". */
static void load_byte_order_scope(loader *L, spec *s)
{
    int i, j;
    const item *nested;
    for (i = 0; i < s->body.n; i++) {
        item *it = s->body.v[i];
        if ((nested = find_byte_order(&it->body)) != NULL) LERR(L, nested->jpath, "\"byte_order\" is an item of the top-level body");
        for (j = 0; j < it->ncases; j++)
            if ((nested = find_byte_order(&it->cases[j].body)) != NULL)
                LERR(L, nested->jpath, "\"byte_order\" is an item of the top-level body");
        if (it->kind != IT_BYTE_ORDER) continue;
        if (s->byte_order) {
            LERR(L, it->jpath, "a spec has one \"byte_order\" item (the first is %s)", s->byte_order->jpath);
            continue;
        }
        s->byte_order = it;
        for (j = i + 1; j < s->body.n; j++) {
            item_list one = {&s->body.v[j], 1};
            order_at_run_time(&one);
        }
    }
    for (i = 0; i < s->nstructs; i++)
        if ((nested = find_byte_order(&s->structs[i].body)) != NULL)
            LERR(L, nested->jpath, "\"byte_order\" is an item of the top-level body");
        else if (s->byte_order)
            order_at_run_time(&s->structs[i].body);
}

static void load_format_name(loader *L, spec *s, json_t *root)
{
    const char *c;
    s->format = get_str(L, root, "format", "", 1);
    if (!s->format) return;
    for (c = s->format; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_') || (c == s->format && *c >= '0' && *c <= '9')) {
            LERR(L, "/format", "a format name is lower-case letters, digits and '_', starting with a letter");
            break;
        }
    if (strlen(s->format) >= 24) LERR(L, "/format", "a format name has at most 23 characters");
}

/* A list of extensions ("extensions" or "shared_extensions", at key) into
 * *out, counted in *n. */
static void load_extension_list(loader *L, const char *key, json_t *v, char ***out, int *n)
{
    size_t i;
    char *where = xprintf("/%s", key);
    if (!json_is_array(v)) { LERR(L, where, "a list of strings such as \".ra\""); free(where); return; }
    *out = xcalloc(json_array_size(v) + 1, sizeof **out);
    for (i = 0; i < json_array_size(v); i++) {
        json_t *e = json_array_get(v, i);
        if (!json_is_string(e) || json_string_value(e)[0] != '.' || json_string_value(e)[1] == '\0') {
            char *p = jp_idx(where, i);
            LERR(L, p, "an extension is a '.' and at least one more character (\".ra\")");
            free(p);
        } else {
            (*out)[(*n)++] = xstrdup(json_string_value(e));
        }
    }
    free(where);
}

static int same_extension(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if ((*a >= 'A' && *a <= 'Z' ? *a + 32 : *a) != (*b >= 'A' && *b <= 'Z' ? *b + 32 : *b)) return 0;
    return *a == *b;
}

static void load_extensions(loader *L, spec *s, json_t *root)
{
    json_t *v;
    int i, k;
    if ((v = json_object_get(root, "extensions")) != NULL)
        load_extension_list(L, "extensions", v, &s->extensions, &s->nextensions);
    if ((v = json_object_get(root, "shared_extensions")) != NULL)
        load_extension_list(L, "shared_extensions", v, &s->shared_extensions, &s->nshared_extensions);
    /* one meaning per suffix: a name either chooses the format or does not */
    for (i = 0; i < s->nshared_extensions; i++)
        for (k = 0; k < s->nextensions; k++)
            if (same_extension(s->shared_extensions[i], s->extensions[k])) {
                char *p = jp_idx("/shared_extensions", (size_t)i);
                LERR(L, p, "'%s' is in \"extensions\" too: an extension either names the format "
                     "(\"extensions\") or is shared with other kinds of file (\"shared_extensions\")",
                     s->shared_extensions[i]);
                free(p);
            }
}

static void load_tables(loader *L, spec *s, json_t *v)
{
    const char *k;
    json_t *t;
    if (!json_is_object(v)) { LERR(L, "/tables", "an object of named tables"); return; }
    s->tables = xcalloc(json_object_size(v) + 1, sizeof *s->tables);
    json_object_foreach(v, k, t) {
        char *p = jp_key("/tables", k);
        if (!valid_name(k)) LERR(L, p, "'%s' is not a valid table name", k);
        else if (strlen(k) > SPEC_NAME_MAX)
            LERR(L, p, "a table name has at most %d characters (this one has %zu)", SPEC_NAME_MAX, strlen(k));
        load_table(L, k, t, p, &s->tables[s->ntables++]);
        free(p);
    }
}

/* "value_names": how the sidecar spells each dtype. */
static void load_sidecar_names(loader *L, spec *s, json_t *names)
{
    const char *dk;
    json_t *dv;
    json_object_foreach(names, dk, dv) {
        char *pk = jp_key("/sidecar/value_names", dk);
        afmt_dtype d = afmt_dtype_from_name(dk);
        /* the runtime's dtypes with a fixed size, but c32 (no sidecar spells it) */
        if (d == AFMT_DTYPE_INVALID || d == AFMT_OPAQUE || d == AFMT_C32) LERR(L, pk, "unknown dtype '%s'", dk);
        else if (!json_is_string(dv) || json_string_length(dv) >= 16) LERR(L, pk, "a spelling of at most 15 characters");
        else if (s->nsidecar_names < 32) {
            s->sidecar_names[s->nsidecar_names][0] = xstrdup(dk);
            s->sidecar_names[s->nsidecar_names][1] = xstrdup(json_string_value(dv));
            s->nsidecar_names++;
        }
        free(pk);
    }
}

static void load_sidecar(loader *L, spec *s, json_t *v)
{
    static const char *const SIDECAR_KEYS[] = {"suffix", "keys", "value_names", "doc", NULL};
    static const char *const KEY_NAMES[] = {"rows", "cols", "value_type", "nnz", "schema", "label", NULL};
    json_t *keys = json_object_get(v, "keys"), *names = json_object_get(v, "value_names");
    int k;
    check_keys(L, v, "/sidecar", SIDECAR_KEYS);
    s->sidecar_suffix = get_str(L, v, "suffix", "/sidecar", 1);
    if (!json_is_object(keys)) LERR(L, "/sidecar/keys", "an object naming the JSON keys: rows, cols, value_type, nnz, schema, label");
    else {
        check_keys(L, keys, "/sidecar/keys", KEY_NAMES);
        for (k = 0; KEY_NAMES[k]; k++) s->sidecar_keys[k] = get_str(L, keys, KEY_NAMES[k], "/sidecar/keys", 1);
    }
    if (!json_is_object(names)) LERR(L, "/sidecar/value_names", "an object mapping dtypes to their spelling");
    else load_sidecar_names(L, s, names);
}

static const char *const STRUCT_KEYS[] = {"params", "body", "doc", NULL};

/* "structs": { NAME: { "params": [names], "body": [items] } }: named
 * structures that items use by name ("struct"), recursively if they like. */
static void load_structs(loader *L, spec *s, json_t *v)
{
    const char *k;
    json_t *t;
    if (!json_is_object(v)) { LERR(L, "/structs", "\"structs\" is an object of named structures"); return; }
    s->structs = xcalloc(json_object_size(v) + 1, sizeof *s->structs);
    json_object_foreach(v, k, t) {
        named_struct *ns = &s->structs[s->nstructs++];
        char *p = jp_key("/structs", k), *pb = jp_key(p, "body");
        json_t *ps;
        ns->name = xstrdup(k);
        ns->jpath = xstrdup(p);
        if (!valid_name(k)) LERR(L, p, "'%s' is not a valid name", k);
        if (!json_is_object(t)) { LERR(L, p, "a structure is an object with \"body\""); free(p); free(pb); continue; }
        check_keys(L, t, p, STRUCT_KEYS);
        ns->doc = get_str(L, t, "doc", p, 0);
        ps = json_object_get(t, "params");
        if (ps && !json_is_array(ps)) LERR(L, p, "\"params\" is a list of names");
        if (json_is_array(ps)) {
            size_t i;
            ns->params = xcalloc(json_array_size(ps) + 1, sizeof *ns->params);
            for (i = 0; i < json_array_size(ps); i++) {
                json_t *pi = json_array_get(ps, i);
                if (!json_is_string(pi) || !valid_name(json_string_value(pi))) {
                    char *pl = xprintf("%s/params", p), *pp = jp_idx(pl, i);
                    free(pl);
                    LERR(L, pp, "a parameter is a name");
                    free(pp);
                    continue;
                }
                {
                    /* each parameter is a name in the body: two of one
                     * name would make two C parameters of one name */
                    int j, twice = 0;
                    for (j = 0; j < ns->nparams; j++) twice |= strcmp(ns->params[j], json_string_value(pi)) == 0;
                    if (twice) {
                        char *pl = xprintf("%s/params", p), *pp = jp_idx(pl, i);
                        free(pl);
                        LERR(L, pp, "parameter '%s' is named twice", json_string_value(pi));
                        free(pp);
                        continue;
                    }
                }
                ns->params[ns->nparams++] = xstrdup(json_string_value(pi));
            }
        }
        if (!json_object_get(t, "body")) LERR(L, p, "a structure needs \"body\"");
        else load_items(L, s, json_object_get(t, "body"), pb, &ns->body);
        free(p);
        free(pb);
    }
}

static void load_trailer(loader *L, spec *s, json_t *v)
{
    if (!v || (json_is_string(v) && strcmp(json_string_value(v), "forbid") == 0)) {
        s->trailer_lenient = LEN_WARN;
    } else if (json_is_string(v) && strcmp(json_string_value(v), "forbid-always") == 0) {
        s->trailer_lenient = LEN_NONE;
    } else if (json_is_string(v) && strcmp(json_string_value(v), "keep") == 0) {
        int i;
        s->trailer_keep = 1;
        /* the validator would read a writer's trailer as more repetitions */
        for (i = 0; i < s->body.n; i++)
            if (s->body.v[i]->kind == IT_REPEAT && s->body.v[i]->repeat.until_end)
                LERR(L, "/trailer", "\"keep\": nothing can follow the repeat until the end at %s (it reads to the "
                                    "end of the input): there is never a trailer", s->body.v[i]->jpath);
    } else {
        LERR(L, "/trailer", "\"trailer\" is \"forbid\", \"forbid-always\" or \"keep\"");
    }
}

/* Add the directory items of body (in its repeats, regions and cases
 * too) to s->directories, in order. */
static void list_directories(spec *s, const item_list *body)
{
    int i, j;
    for (i = 0; i < body->n; i++) {
        const item *it = body->v[i];
        if (it->kind == IT_DIRECTORY) {
            s->directories = realloc(s->directories, sizeof *s->directories * (size_t)(s->ndirectories + 1));
            if (!s->directories) { fputs("afmt-gen: out of memory\n", stderr); exit(2); }
            s->directories[s->ndirectories++] = it;
        }
        if (it->kind == IT_REPEAT || it->kind == IT_REGION) list_directories(s, &it->body);
        for (j = 0; j < it->ncases; j++) list_directories(s, &it->cases[j].body);
    }
}

static spec *spec_from_json(const char *path, json_t *root, const json_error_t *jerr);

spec *spec_load(const char *path)
{
    json_error_t jerr;
    return spec_from_json(path, json_load_file(path, JSON_REJECT_DUPLICATES, &jerr), &jerr);
}

spec *spec_load_text(const char *path, const char *text)
{
    json_error_t jerr;
    return spec_from_json(path, json_loads(text, JSON_REJECT_DUPLICATES, &jerr), &jerr);
}

/* The spec of root (taken; NULL: it did not parse, jerr says why). */
static spec *spec_from_json(const char *path, json_t *root, const json_error_t *jerr)
{
    loader L;
    spec *s;
    json_t *v;
    int i;
    L.path = path;
    L.errors = 0;
    if (!root) {
        fprintf(stderr, "%s:%d:%d: invalid JSON: %s\n", path, jerr->line, jerr->column, jerr->text);
        return NULL;
    }
    if (!json_is_object(root)) {
        LERR(&L, "/", "a spec is a JSON object");
        json_decref(root);
        return NULL;
    }
    s = xcalloc(1, sizeof *s);
    s->path = xstrdup(path);
    check_keys(&L, root, "", TOP_KEYS);
    load_format_name(&L, s, root);
    s->title = get_str(&L, root, "title", "", 0);
    s->holds = get_str(&L, root, "holds", "", 0);
    s->read_only = get_str(&L, root, "read_only", "", 0);
    if (s->read_only && !*s->read_only) LERR(&L, "/read_only", "\"read_only\" says why the format cannot be written (a non-empty text)");
    v = json_object_get(root, "endian");
    if (v) {
        if (json_is_string(v) && strcmp(json_string_value(v), "big") == 0) s->big_endian = 1;
        else if (!(json_is_string(v) && strcmp(json_string_value(v), "little") == 0))
            LERR(&L, "/endian", "\"endian\" is \"little\" or \"big\"");
    }
    load_extensions(&L, s, root);
    if ((v = json_object_get(root, "detect")) != NULL) load_detect(&L, s, v, "/detect");
    if ((v = json_object_get(root, "tables")) != NULL) load_tables(&L, s, v);
    if ((v = json_object_get(root, "structs")) != NULL) load_structs(&L, s, v);
    load_items(&L, s, json_object_get(root, "body"), "/body", &s->body);
    load_byte_order_scope(&L, s);
    if ((v = json_object_get(root, "sidecar")) != NULL) load_sidecar(&L, s, v);
    load_trailer(&L, s, json_object_get(root, "trailer"));
    json_decref(root);
    if (L.errors) return NULL;
    list_directories(s, &s->body);
    for (i = 0; i < s->nstructs; i++) list_directories(s, &s->structs[i].body);
    scope_resolve(s);
    return s;
}
