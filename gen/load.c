/* afmt-gen: read a spec file (jansson) into the model of spec.h.
 *
 * This pass checks structure: known keys, value kinds, type names,
 * expression syntax.  Name resolution and typing happen while emitting
 * (emit_*.c), which reports unknown names with the JSON path of the use.  Every
 * problem is reported as "spec/x.json: /json/path: message"; loading goes
 * on after an error so one run shows them all.
 */
#include <jansson.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "spec.h"
#include "util.h"

typedef struct loader {
    const char *path;
    int errors;
} loader;

void spec_error(const char *path, const char *jpath, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: %s: ", path, jpath && *jpath ? jpath : "/");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

#define LERR(L, jp, ...) do { spec_error((L)->path, (jp), __VA_ARGS__); (L)->errors++; } while (0)

static char *jp_key(const char *base, const char *key) { return xprintf("%s/%s", base, key); }
static char *jp_idx(const char *base, size_t i) { return xprintf("%s/%zu", base, i); }

/* Reject keys the language does not define: a typo must not be ignored. */
static void check_keys(loader *L, json_t *obj, const char *jp, const char *const *allowed)
{
    const char *k;
    json_t *v;
    json_object_foreach(obj, k, v) {
        const char *const *a;
        int ok = 0;
        (void)v;
        for (a = allowed; *a; a++)
            if (strcmp(*a, k) == 0) { ok = 1; break; }
        if (!ok) {
            char *p = jp_key(jp, k);
            LERR(L, p, "unknown key '%s'", k);
            free(p);
        }
    }
}

static char *get_str(loader *L, json_t *obj, const char *key, const char *jp, int required)
{
    json_t *v = json_object_get(obj, key);
    if (!v) {
        if (required) LERR(L, jp, "missing \"%s\"", key);
        return NULL;
    }
    if (!json_is_string(v)) {
        char *p = jp_key(jp, key);
        LERR(L, p, "must be a string");
        free(p);
        return NULL;
    }
    return xstrdup(json_string_value(v));
}

static expr *parse_text(loader *L, const char *text, const char *jp)
{
    char msg[256];
    expr *e = expr_parse(text, msg, sizeof msg);
    if (!e) LERR(L, jp, "bad expression \"%s\": %s", text, msg);
    return e;
}

/* An expression may be written as a JSON string, or as a plain integer. */
static expr *get_expr(loader *L, json_t *obj, const char *key, const char *jp, char **text_out)
{
    json_t *v = json_object_get(obj, key);
    char *p, *text;
    expr *e;
    if (text_out) *text_out = NULL;
    if (!v) return NULL;
    p = jp_key(jp, key);
    if (json_is_integer(v)) {
        if (json_integer_value(v) < 0) { LERR(L, p, "negative integers must be written as expressions"); free(p); return NULL; }
        text = xprintf("%" JSON_INTEGER_FORMAT, json_integer_value(v));
    } else if (json_is_string(v)) {
        text = xstrdup(json_string_value(v));
    } else {
        LERR(L, p, "must be an expression string or an integer");
        free(p);
        return NULL;
    }
    e = parse_text(L, text, p);
    free(p);
    if (text_out) *text_out = text; else free(text);
    return e;
}

/* A literal: integer or string (used by equals, table keys, case values). */
static expr *literal(loader *L, json_t *v, const char *jp)
{
    expr *e = xcalloc(1, sizeof *e);
    if (json_is_integer(v) && json_integer_value(v) >= 0) {
        e->kind = E_INT;
        e->ival = (uint64_t)json_integer_value(v);
    } else if (json_is_string(v)) {
        const char *s = json_string_value(v);
        /* "0x..." strings are integers too: JSON cannot hold 2^64-1. */
        if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && s[2]) {
            char *end;
            e->kind = E_INT;
            e->ival = strtoull(s, &end, 16);
            if (*end) LERR(L, jp, "bad hexadecimal literal \"%s\"", s);
        } else {
            e->kind = E_STR;
            e->sval = xstrdup(s);
        }
    } else {
        LERR(L, jp, "must be a non-negative integer or a string");
    }
    return e;
}

static leniency get_lenient(loader *L, json_t *obj, const char *key, const char *jp)
{
    json_t *v = json_object_get(obj, key);
    if (!v) return LEN_NONE;
    if (json_is_string(v) && strcmp(json_string_value(v), "warn") == 0) return LEN_WARN;
    if (json_is_string(v) && strcmp(json_string_value(v), "reject") == 0) return LEN_NONE;
    {
        char *p = jp_key(jp, key);
        LERR(L, p, "must be \"warn\" or \"reject\"");
        free(p);
    }
    return LEN_NONE;
}

static const char *const CHECK_KEYS[] = {"expr", "message", "code", "lenient", NULL};

/* The error codes a spec may name (runtime/afmt_error.h). */
static void check_code(loader *L, const char *code, const char *jp)
{
    static const char *const CODES[] = {"truncated", "magic", "constraint", "unknown-type", "overflow", "limit",
                                        "trailing", "padding", "value", "size", "negative", "unsupported", NULL};
    int i;
    if (!code) return;
    for (i = 0; CODES[i]; i++)
        if (strcmp(CODES[i], code) == 0) return;
    LERR(L, jp, "unknown error code '%s' (truncated, magic, constraint, unknown-type, overflow, limit, trailing, padding, value, size, negative, unsupported)", code);
}

static void load_check(loader *L, json_t *v, const char *jp, check *c)
{
    memset(c, 0, sizeof *c);
    c->jpath = xstrdup(jp);
    if (json_is_string(v)) {
        c->text = xstrdup(json_string_value(v));
        c->e = parse_text(L, c->text, jp);
        return;
    }
    if (!json_is_object(v)) { LERR(L, jp, "a check is an expression string or an object"); return; }
    check_keys(L, v, jp, CHECK_KEYS);
    c->text = get_str(L, v, "expr", jp, 1);
    if (c->text) {
        char *p = jp_key(jp, "expr");
        c->e = parse_text(L, c->text, p);
        free(p);
    }
    c->message = get_str(L, v, "message", jp, 0);
    c->code = get_str(L, v, "code", jp, 0);
    check_code(L, c->code, jp);
    c->lenient = get_lenient(L, v, "lenient", jp);
}

/* "check": "expr" | {...} | [ "expr" | {...}, ... ] */
static void load_checks(loader *L, json_t *obj, const char *key, const char *jp, check **out, int *n)
{
    json_t *v = json_object_get(obj, key);
    char *p;
    *out = NULL;
    *n = 0;
    if (!v) return;
    p = jp_key(jp, key);
    if (json_is_array(v)) {
        size_t i;
        *out = xcalloc(json_array_size(v) + 1, sizeof **out);
        for (i = 0; i < json_array_size(v); i++) {
            char *pi = jp_idx(p, i);
            load_check(L, json_array_get(v, i), pi, &(*out)[(*n)++]);
            free(pi);
        }
    } else {
        *out = xcalloc(1, sizeof **out);
        load_check(L, v, p, &(*out)[(*n)++]);
    }
    free(p);
}

static int parse_int_type(const char *t, item *it, int default_big)
{
    size_t n = strlen(t);
    int bits;
    char *end;
    if (n < 2 || (t[0] != 'u' && t[0] != 'i')) return 0;
    it->field.is_signed = t[0] == 'i';
    bits = (int)strtol(t + 1, &end, 10);
    if (bits != 8 && bits != 16 && bits != 32 && bits != 64) return 0;
    it->field.width = bits / 8;
    it->field.big_endian = default_big;
    if (*end == 0) return 1;
    if (strcmp(end, "le") == 0) { it->field.big_endian = 0; return 1; }
    if (strcmp(end, "be") == 0) { it->field.big_endian = 1; return 1; }
    return 0;
}

static void load_items(loader *L, spec *s, json_t *arr, const char *jp, item_list *out);

/* "in": [a, b, ...] and "range": [lo, hi] on an integer field are checks
 * written for the reader: they become the expressions
 * "f == a || f == b" and "f >= lo && f <= hi" (negative bounds as "-n"). */
static void add_check_text(loader *L, item *it, const char *jp, char *text, char *message)
{
    check *grown = realloc(it->checks, sizeof *grown * (size_t)(it->nchecks + 1));
    check *c;
    if (!grown) { fputs("afmt-gen: out of memory\n", stderr); exit(2); }
    it->checks = grown;
    c = &it->checks[it->nchecks++];
    memset(c, 0, sizeof *c);
    c->text = text;
    c->message = message;
    c->jpath = xstrdup(jp);
    c->e = parse_text(L, text, jp);
    c->lenient = it->field.equals_lenient;
}

static char *int_text(json_t *v)
{
    return xprintf("%" JSON_INTEGER_FORMAT, json_integer_value(v));
}

static void load_membership(loader *L, json_t *o, const char *jp, item *it)
{
    json_t *in = json_object_get(o, "in"), *range = json_object_get(o, "range");
    if (in) {
        char *p = jp_key(jp, "in");
        size_t i;
        if (it->field.ftype != FT_INT || it->field.count || !json_is_array(in) || json_array_size(in) == 0) {
            LERR(L, p, "\"in\" is a non-empty list of integers, for an integer field");
        } else {
            sbuf t = {0}, msg = {0};
            sb_puts(&msg, "not one of");
            for (i = 0; i < json_array_size(in); i++) {
                json_t *v = json_array_get(in, i);
                char *n;
                if (!json_is_integer(v)) { LERR(L, p, "\"in\" holds integers"); break; }
                n = int_text(v);
                sb_printf(&t, "%s%s == %s", i ? " || " : "", it->name, n);
                sb_printf(&msg, "%s %s", i ? "," : "", n);
                free(n);
            }
            if (t.s) add_check_text(L, it, p, t.s, msg.s);
        }
        free(p);
    }
    if (range) {
        char *p = jp_key(jp, "range");
        if (it->field.ftype != FT_INT || it->field.count || !json_is_array(range) || json_array_size(range) != 2 ||
            !json_is_integer(json_array_get(range, 0)) || !json_is_integer(json_array_get(range, 1))) {
            LERR(L, p, "\"range\" is [lowest, highest], two integers, for an integer field");
        } else {
            char *lo = int_text(json_array_get(range, 0)), *hi = int_text(json_array_get(range, 1));
            add_check_text(L, it, p, xprintf("%s >= %s && %s <= %s", it->name, lo, it->name, hi),
                           xprintf("not in [%s, %s]", lo, hi));
            free(lo);
            free(hi);
        }
        free(p);
    }
}

static const char *const FIELD_KEYS[] = {
    "field", "type", "size", "count", "length", "equals", "in", "range", "lenient", "code", "check", "each", "order",
    "first", "last", "increasing_within", "text", "write", "doc", NULL};
static const char *const LET_KEYS[] = {"let", "value", "doc", NULL};
static const char *const LOOKUP_KEYS[] = {"lookup", "table", "key", "field", "doc", NULL};
static const char *const CHECKITEM_KEYS[] = {"check", "field", "message", "code", "lenient", "doc", NULL};
static const char *const ARRAY_KEYS[] = {
    "array", "dtype", "shape", "order", "endian", "name", "values", "lenient", "doc",
    "layout", "nnz", "row_offsets", "col_indices", "types", "table", "names", "compressed", "stored_bytes",
    "index", "with_columns", NULL};
static const char *const REPEAT_KEYS[] = {"repeat", "until", "count", "skip", "min", "tiles", "body", "doc", NULL};
static const char *const REGION_KEYS[] = {"region", "size", "exact", "lenient", "body", "doc", NULL};
static const char *const SWITCH_KEYS[] = {"switch", "on", "cases", "else", "write", "doc", NULL};
static const char *const TEXTVAL_KEYS[] = {"text_value", "grammar", "doc", NULL};
static const char *const CASE_KEYS[] = {"when", "body", "doc", NULL};
static const char *const PAD_KEYS[] = {"pad", "size", "fill", "lenient", "doc", NULL};

static int valid_name(const char *n)
{
    const char *c;
    if (!n || !*n || !((*n >= 'a' && *n <= 'z') || (*n >= 'A' && *n <= 'Z') || *n == '_')) return 0;
    for (c = n; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_'))
            return 0;
    return 1;
}

static void load_field(loader *L, spec *s, json_t *o, const char *jp, item *it)
{
    char *type;
    json_t *v;
    check_keys(L, o, jp, FIELD_KEYS);
    it->kind = IT_FIELD;
    type = get_str(L, o, "type", jp, 1);
    if (type) {
        if (strcmp(type, "bytes") == 0) it->field.ftype = FT_BYTES;
        else if (strcmp(type, "text") == 0) it->field.ftype = FT_TEXT;
        else if (strcmp(type, "string") == 0) {
            item lt;
            char *lw = get_str(L, o, "length", jp, 1);
            it->field.ftype = FT_STRING;
            memset(&lt, 0, sizeof lt);
            if (lw && parse_int_type(lw, &lt, s->big_endian) && !lt.field.is_signed) {
                it->field.len_width = lt.field.width;
                it->field.big_endian = lt.field.big_endian;
            } else {
                LERR(L, jp, "a string needs \"length\": the unsigned type of its length prefix (u8, u16, u32, u64)");
            }
            free(lw);
        }
        else if (parse_int_type(type, it, s->big_endian)) it->field.ftype = FT_INT;
        else {
            char *p = jp_key(jp, "type");
            LERR(L, p, "unknown field type '%s' (expected u8..u64, i8..i64 with optional le/be, bytes, text, string)", type);
            free(p);
        }
        free(type);
    }
    if (it->field.ftype == FT_STRING) {
        if (json_object_get(o, "size")) LERR(L, jp, "a string's size is its length prefix, not \"size\"");
    } else if (it->field.ftype != FT_INT) {
        v = json_object_get(o, "size");
        if (!json_is_integer(v) || json_integer_value(v) <= 0 || json_integer_value(v) > 4096)
            LERR(L, jp, "a bytes/text field needs \"size\": an integer from 1 to 4096");
        else
            it->field.size = (int)json_integer_value(v);
    } else if (json_object_get(o, "size")) {
        LERR(L, jp, "\"size\" is only for bytes/text fields (an integer's size is its type)");
    }
    it->field.count = get_expr(L, o, "count", jp, &it->field.count_text);
    if (it->field.count && it->field.ftype != FT_INT && it->field.ftype != FT_STRING)
        LERR(L, jp, "only integer and string fields can be repeated with \"count\"");
    if (json_object_get(o, "length") && it->field.ftype != FT_STRING) LERR(L, jp, "\"length\" is for string fields");
    v = json_object_get(o, "equals");
    if (v) {
        char *p = jp_key(jp, "equals");
        it->field.equals = literal(L, v, p);
        it->field.equals_text = json_is_string(v) ? xstrdup(json_string_value(v))
                                            : xprintf("%" JSON_INTEGER_FORMAT, json_integer_value(v));
        if (it->field.equals->kind == E_STR && it->field.ftype == FT_INT) LERR(L, p, "an integer field equals an integer");
        if (it->field.equals->kind == E_INT && it->field.ftype != FT_INT) LERR(L, p, "a bytes/text field equals a string");
        if (it->field.equals->kind == E_STR && it->field.ftype != FT_INT && (int)strlen(it->field.equals->sval) > it->field.size)
            LERR(L, p, "\"%s\" is longer than the field (%d bytes)", it->field.equals->sval, it->field.size);
        if (it->field.equals->kind == E_STR && it->field.ftype == FT_BYTES && (int)strlen(it->field.equals->sval) != it->field.size)
            LERR(L, p, "a bytes field's \"equals\" must have exactly %d bytes", it->field.size);
        free(p);
    }
    it->field.equals_lenient = get_lenient(L, o, "lenient", jp);
    it->field.equals_code = get_str(L, o, "code", jp, 0);
    check_code(L, it->field.equals_code, jp);
    load_checks(L, o, "check", jp, &it->checks, &it->nchecks);
    load_membership(L, o, jp, it);
    load_checks(L, o, "each", jp, &it->field.each, &it->field.neach);
    it->field.order = get_str(L, o, "order", jp, 0);
    if (it->field.order && strcmp(it->field.order, "nondecreasing") != 0 && strcmp(it->field.order, "increasing") != 0)
        LERR(L, jp, "\"order\" is \"nondecreasing\" or \"increasing\"");
    it->field.first = get_expr(L, o, "first", jp, &it->field.first_text);
    it->field.last = get_expr(L, o, "last", jp, &it->field.last_text);
    it->field.increasing_within = get_str(L, o, "increasing_within", jp, 0);
    if ((it->field.neach || it->field.order || it->field.first || it->field.last || it->field.increasing_within) && !it->field.count)
        LERR(L, jp, "\"each\", \"order\", \"first\", \"last\" and \"increasing_within\" need \"count\"");
    v = json_object_get(o, "text");
    if (v) {
        if (it->field.ftype != FT_TEXT || !json_is_string(v) || strcmp(json_string_value(v), "nul-padded") != 0)
            LERR(L, jp, "\"text\": \"nul-padded\" is for text fields");
        else
            it->field.text_nul_padded = 1;
    }
    it->write = get_expr(L, o, "write", jp, &it->write_text);
}

static void load_item(loader *L, spec *s, json_t *o, const char *jp, item *it)
{
    it->jpath = xstrdup(jp);
    it->doc = NULL;
    if (!json_is_object(o)) { LERR(L, jp, "an item is an object"); return; }
    {
        json_t *d = json_object_get(o, "doc");
        if (d && json_is_string(d)) it->doc = xstrdup(json_string_value(d));
    }
    /* "field" also names the field a lookup or check concerns: test the
     * other item kinds first */
    if (json_object_get(o, "text_header")) {
        /* first: a text header has keys ("pad", "types") of other kinds */
        it->kind = IT_TEXTHDR;
        it->name = get_str(L, o, "text_header", jp, 1);
        it->th = texthdr_load(L->path, o, jp, &L->errors);
    } else if (json_object_get(o, "field") && json_object_get(o, "type")) {
        it->name = get_str(L, o, "field", jp, 1);
        load_field(L, s, o, jp, it);
    } else if (json_object_get(o, "let")) {
        check_keys(L, o, jp, LET_KEYS);
        it->kind = IT_LET;
        it->name = get_str(L, o, "let", jp, 1);
        it->let.value = get_expr(L, o, "value", jp, &it->let.value_text);
        if (!it->let.value) LERR(L, jp, "\"let\" needs \"value\"");
    } else if (json_object_get(o, "lookup")) {
        json_t *k;
        check_keys(L, o, jp, LOOKUP_KEYS);
        it->kind = IT_LOOKUP;
        it->name = get_str(L, o, "lookup", jp, 1);
        it->lookup.table = get_str(L, o, "table", jp, 1);
        it->attribute = get_str(L, o, "field", jp, 0);
        k = json_object_get(o, "key");
        if (!json_is_array(k) || json_array_size(k) == 0) {
            LERR(L, jp, "\"key\" is a non-empty list of expressions");
        } else {
            size_t i;
            char *pk = jp_key(jp, "key");
            it->lookup.key = xcalloc(json_array_size(k), sizeof *it->lookup.key);
            for (i = 0; i < json_array_size(k); i++) {
                char *pi = jp_idx(pk, i);
                json_t *ki = json_array_get(k, i);
                if (!json_is_string(ki)) LERR(L, pi, "a key is an expression string");
                else it->lookup.key[it->lookup.nkey++] = parse_text(L, json_string_value(ki), pi);
                free(pi);
            }
            free(pk);
        }
    } else if (json_object_get(o, "check")) {
        check_keys(L, o, jp, CHECKITEM_KEYS);
        it->kind = IT_CHECK;
        it->checks = xcalloc(1, sizeof *it->checks);
        it->nchecks = 1;
        {
            char *p = jp_key(jp, "check");
            json_t *c = json_object_get(o, "check");
            if (!json_is_string(c)) LERR(L, p, "must be an expression string");
            else {
                it->checks[0].text = xstrdup(json_string_value(c));
                it->checks[0].e = parse_text(L, it->checks[0].text, p);
            }
            it->checks[0].jpath = p;
        }
        it->checks[0].message = get_str(L, o, "message", jp, 0);
        it->checks[0].code = get_str(L, o, "code", jp, 0);
        check_code(L, it->checks[0].code, jp);
        it->checks[0].lenient = get_lenient(L, o, "lenient", jp);
        it->attribute = get_str(L, o, "field", jp, 0);
    } else if (json_object_get(o, "array")) {
        json_t *shape;
        char *order, *endian, *values;
        check_keys(L, o, jp, ARRAY_KEYS);
        it->kind = IT_ARRAY;
        it->name = get_str(L, o, "array", jp, 1);
        it->array.dtype_from = get_str(L, o, "dtype", jp, !json_object_get(o, "types"));
        shape = json_object_get(o, "shape");
        if (json_is_string(shape)) {
            it->array.shape_field = xstrdup(json_string_value(shape));
        } else if (json_is_array(shape)) {
            size_t i;
            char *ps = jp_key(jp, "shape");
            it->array.shape = xcalloc(json_array_size(shape) + 1, sizeof *it->array.shape);
            it->array.shape_text = xcalloc(json_array_size(shape) + 1, sizeof *it->array.shape_text);
            for (i = 0; i < json_array_size(shape); i++) {
                json_t *si = json_array_get(shape, i);
                char *pi = jp_idx(ps, i);
                if (!json_is_string(si)) LERR(L, pi, "a dimension is an expression string");
                else {
                    it->array.shape_text[it->array.nshape] = xstrdup(json_string_value(si));
                    it->array.shape[it->array.nshape++] = parse_text(L, json_string_value(si), pi);
                }
                free(pi);
            }
            free(ps);
        } else {
            LERR(L, jp, "\"shape\" is an array field name or a list of expressions");
        }
        order = get_str(L, o, "order", jp, 1);
        if (order) {
            if (strcmp(order, "column-major") == 0) it->array.col_major = 1;
            else if (strcmp(order, "row-major") != 0) LERR(L, jp, "\"order\" is \"row-major\" or \"column-major\"");
            free(order);
        }
        it->array.payload_big = s->big_endian;
        endian = get_str(L, o, "endian", jp, 0);
        if (endian) {
            if (strcmp(endian, "big") == 0) it->array.payload_big = 1;
            else if (strcmp(endian, "little") == 0) it->array.payload_big = 0;
            else LERR(L, jp, "\"endian\" is \"little\" or \"big\"");
            free(endian);
        }
        it->array.name_from = get_str(L, o, "name", jp, 0);
        {
            char *layout = get_str(L, o, "layout", jp, 0);
            if (!layout || strcmp(layout, "dense") == 0) it->array.layout = LAYOUT_DENSE;
            else if (strcmp(layout, "csr") == 0) it->array.layout = LAYOUT_CSR;
            else if (strcmp(layout, "columns") == 0) it->array.layout = LAYOUT_COLUMNS;
            else if (strcmp(layout, "zeros") == 0) it->array.layout = LAYOUT_ZEROS;
            else if (strcmp(layout, "coo") == 0) it->array.layout = LAYOUT_COO;
            else LERR(L, jp, "\"layout\" is \"dense\", \"csr\", \"coo\", \"zeros\" or \"columns\"");
            free(layout);
        }
        it->array.nnz = get_expr(L, o, "nnz", jp, &it->array.nnz_text);
        it->array.compressed = get_expr(L, o, "compressed", jp, &it->array.compressed_text);
        it->array.stored = get_expr(L, o, "stored_bytes", jp, &it->array.stored_text);
        if (!!it->array.compressed != !!it->array.stored)
            LERR(L, jp, "\"compressed\" (when the payload is one LZ4 block) and \"stored_bytes\" (its length) go together");
        if (it->array.compressed && it->array.layout != LAYOUT_DENSE)
            LERR(L, jp, "only dense arrays can be compressed");
        it->array.row_offsets = get_str(L, o, "row_offsets", jp, 0);
        it->array.col_indices = get_str(L, o, "col_indices", jp, 0);
        it->array.types_field = get_str(L, o, "types", jp, 0);
        it->array.names_field = get_str(L, o, "names", jp, 0);
        it->array.col_table = get_str(L, o, "table", jp, 0);
        if (it->array.layout == LAYOUT_COO) {
            char *ix = get_str(L, o, "index", jp, 1);
            item ti;
            memset(&ti, 0, sizeof ti);
            if (ix && parse_int_type(ix, &ti, 0) && !ti.field.is_signed && !ti.field.big_endian) it->array.coo_index_width = ti.field.width;
            else LERR(L, jp, "a coo array needs \"index\": the little-endian unsigned type of its indices (u8..u64)");
            free(ix);
            it->array.coo_with_cols = get_expr(L, o, "with_columns", jp, &it->array.coo_with_cols_text);
            if (!it->array.coo_with_cols || !it->array.nnz || it->array.nshape != 2)
                LERR(L, jp, "a coo array needs \"nnz\", \"with_columns\" (when records hold a column index) and a shape of two expressions");
        } else if (json_object_get(o, "index") || json_object_get(o, "with_columns")) {
            LERR(L, jp, "\"index\" and \"with_columns\" are for coo arrays");
        }
        if (it->array.layout == LAYOUT_ZEROS && it->array.nshape == 0)
            LERR(L, jp, "a zeros array needs a shape");
        if (it->array.layout == LAYOUT_CSR && (!it->array.nnz || !it->array.row_offsets || !it->array.col_indices || it->array.nshape != 2))
            LERR(L, jp, "a csr array needs \"nnz\", \"row_offsets\", \"col_indices\" and a shape of two expressions");
        if (it->array.layout == LAYOUT_COLUMNS && (!it->array.types_field || !it->array.col_table || it->array.nshape != 1))
            LERR(L, jp, "a columns array needs \"types\" (an array field of type codes), \"table\" and a shape of one expression (the rows)");
        if (it->array.layout != LAYOUT_CSR && (it->array.row_offsets || it->array.col_indices))
            LERR(L, jp, "\"row_offsets\" and \"col_indices\" are for csr arrays");
        if (it->array.layout != LAYOUT_CSR && it->array.layout != LAYOUT_COO && it->array.nnz)
            LERR(L, jp, "\"nnz\" is for csr and coo arrays");
        if (it->array.layout != LAYOUT_COLUMNS && (it->array.types_field || it->array.names_field || it->array.col_table))
            LERR(L, jp, "\"types\", \"table\" and \"names\" are for columns arrays");
        values = get_str(L, o, "values", jp, 0);
        if (values) {
            if (strcmp(values, "check") == 0) it->array.check_values = 1;
            else if (strcmp(values, "any") != 0) LERR(L, jp, "\"values\" is \"check\" or \"any\"");
            free(values);
        }
        it->array.values_lenient = get_lenient(L, o, "lenient", jp);
    } else if (json_object_get(o, "repeat")) {
        char *until, *skip;
        char *pb = jp_key(jp, "body");
        check_keys(L, o, jp, REPEAT_KEYS);
        it->kind = IT_REPEAT;
        it->name = get_str(L, o, "repeat", jp, 1);
        until = get_str(L, o, "until", jp, 0);
        it->arg = get_expr(L, o, "count", jp, &it->arg_text);
        if (until) {
            if (strcmp(until, "end") == 0) it->repeat.until_end = 1;
            else if (strcmp(until, "tiled") == 0) it->repeat.until_end = it->repeat.until_tiled = 1;
            else LERR(L, jp, "\"until\" is \"end\" or \"tiled\"");
            free(until);
        }
        if (!!it->repeat.until_end == !!it->arg) LERR(L, jp, "a repeat has either \"until\": \"end\" or \"count\"");
        {
            json_t *mn = json_object_get(o, "min");
            if (mn && (!json_is_integer(mn) || json_integer_value(mn) < 0)) LERR(L, jp, "\"min\" is a non-negative integer");
            else if (mn) it->repeat.min_count = (uint64_t)json_integer_value(mn);
        }
        {
            json_t *t = json_object_get(o, "tiles");
            static const char *const TILE_KEYS[] = {"row", "col", "rows", "cols", "within", NULL};
            if (t) {
                char *pt = jp_key(jp, "tiles");
                json_t *w = json_object_get(t, "within");
                if (!json_is_object(t)) LERR(L, pt, "\"tiles\" is an object");
                else {
                    check_keys(L, t, pt, TILE_KEYS);
                    it->repeat.tile_row = get_str(L, t, "row", pt, 1);
                    it->repeat.tile_col = get_str(L, t, "col", pt, 1);
                    it->repeat.tile_rows = get_str(L, t, "rows", pt, 1);
                    it->repeat.tile_cols = get_str(L, t, "cols", pt, 1);
                    if (!json_is_array(w) || json_array_size(w) != 2 || !json_is_string(json_array_get(w, 0)) ||
                        !json_is_string(json_array_get(w, 1))) {
                        LERR(L, pt, "\"within\" is a list of two expressions: the matrix rows and columns");
                    } else {
                        int q;
                        for (q = 0; q < 2; q++) {
                            char *pw = jp_key(pt, "within");
                            it->repeat.tile_within_text[q] = xstrdup(json_string_value(json_array_get(w, (size_t)q)));
                            it->repeat.tile_within[q] = parse_text(L, it->repeat.tile_within_text[q], pw);
                            free(pw);
                        }
                    }
                }
                free(pt);
            }
        }
        if (it->repeat.until_tiled && !json_object_get(o, "tiles")) LERR(L, jp, "\"until\": \"tiled\" needs \"tiles\"");
        skip = get_str(L, o, "skip", jp, 0);
        if (skip) {
            if (strcmp(skip, "whitespace") == 0) it->repeat.skip_ws = 1;
            else if (strcmp(skip, "whitespace and -- comments") == 0) it->repeat.skip_ws = 2;
            else LERR(L, jp, "\"skip\" is \"whitespace\" or \"whitespace and -- comments\"");
            free(skip);
        }
        load_items(L, s, json_object_get(o, "body"), pb, &it->body);
        free(pb);
    } else if (json_object_get(o, "region")) {
        char *pb = jp_key(jp, "body");
        json_t *ex;
        check_keys(L, o, jp, REGION_KEYS);
        it->kind = IT_REGION;
        it->name = get_str(L, o, "region", jp, 1);
        it->arg = get_expr(L, o, "size", jp, &it->arg_text);
        if (!it->arg) LERR(L, jp, "a region needs \"size\"");
        ex = json_object_get(o, "exact");
        it->region.exact = ex ? json_is_true(ex) : 1;
        it->region.exact_lenient = get_lenient(L, o, "lenient", jp);
        load_items(L, s, json_object_get(o, "body"), pb, &it->body);
        free(pb);
    } else if (json_object_get(o, "switch")) {
        json_t *cases = json_object_get(o, "cases");
        check_keys(L, o, jp, SWITCH_KEYS);
        it->kind = IT_SWITCH;
        it->name = get_str(L, o, "switch", jp, 1);
        it->arg = get_expr(L, o, "on", jp, &it->arg_text);
        if (!it->arg) LERR(L, jp, "a switch needs \"on\": the selecting expression");
        it->sw.else_message = get_str(L, o, "else", jp, 0);
        it->write = get_expr(L, o, "write", jp, &it->write_text);
        if (!json_is_array(cases) || json_array_size(cases) == 0) {
            LERR(L, jp, "\"cases\" is a non-empty list");
        } else {
            size_t i;
            char *pc = jp_key(jp, "cases");
            it->cases = xcalloc(json_array_size(cases), sizeof *it->cases);
            for (i = 0; i < json_array_size(cases); i++) {
                json_t *c = json_array_get(cases, i), *w;
                switch_case *sc = &it->cases[it->ncases++];
                char *pi = jp_idx(pc, i), *pw, *pb;
                sc->jpath = xstrdup(pi);
                pw = jp_key(pi, "when");
                pb = jp_key(pi, "body");
                if (!json_is_object(c)) { LERR(L, pi, "a case is an object"); free(pi); free(pw); free(pb); continue; }
                check_keys(L, c, pi, CASE_KEYS);
                w = json_object_get(c, "when");
                if (!json_is_array(w) || json_array_size(w) == 0) {
                    LERR(L, pw, "\"when\" is a non-empty list of values");
                } else {
                    size_t j;
                    sc->when = xcalloc(json_array_size(w), sizeof *sc->when);
                    for (j = 0; j < json_array_size(w); j++) {
                        char *pj = jp_idx(pw, j);
                        sc->when[sc->nwhen++] = literal(L, json_array_get(w, j), pj);
                        free(pj);
                    }
                }
                load_items(L, s, json_object_get(c, "body"), pb, &sc->body);
                free(pi); free(pw); free(pb);
            }
            free(pc);
        }
    } else if (json_object_get(o, "text_value")) {
        check_keys(L, o, jp, TEXTVAL_KEYS);
        it->kind = IT_TEXTVAL;
        it->name = get_str(L, o, "text_value", jp, 1);
        it->textval.grammar = get_str(L, o, "grammar", jp, 1);
        if (it->textval.grammar && strcmp(it->textval.grammar, "futhark") != 0)
            LERR(L, jp, "unknown grammar '%s' (the runtime has: futhark)", it->textval.grammar);
    } else if (json_object_get(o, "pad")) {
        json_t *fill;
        check_keys(L, o, jp, PAD_KEYS);
        it->kind = IT_PAD;
        it->name = get_str(L, o, "pad", jp, 1);
        it->arg = get_expr(L, o, "size", jp, &it->arg_text);
        if (!it->arg) LERR(L, jp, "a pad needs \"size\"");
        fill = json_object_get(o, "fill");
        if (fill && !(json_is_integer(fill) && json_integer_value(fill) == 0))
            LERR(L, jp, "\"fill\" can only be 0");
        it->pad.fill_lenient = get_lenient(L, o, "lenient", jp);
    } else {
        LERR(L, jp, "unknown item: expected one of field, let, lookup, check, array, repeat, region, switch, pad, text_value, text_header");
        return;
    }
    if (it->name && !valid_name(it->name)) LERR(L, jp, "'%s' is not a valid name", it->name);
}

static void load_items(loader *L, spec *s, json_t *arr, const char *jp, item_list *out)
{
    size_t i;
    out->v = NULL;
    out->n = 0;
    if (!json_is_array(arr)) { LERR(L, jp, "a body is a list of items"); return; }
    out->v = xcalloc(json_array_size(arr) + 1, sizeof *out->v);
    for (i = 0; i < json_array_size(arr); i++) {
        char *p = jp_idx(jp, i);
        item *it = xcalloc(1, sizeof *it);
        load_item(L, s, json_array_get(arr, i), p, it);
        out->v[out->n++] = it;
        free(p);
    }
}

static const char *const TABLE_KEYS[] = {"entries", "doc", NULL};
static const char *const ENTRY_KEYS[] = {"key", "when", "dtype", "size", "encoding", "warn", "write", "write_key", "doc", NULL};

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
        json_t *e = json_array_get(entries, i), *k, *w;
        table_entry *te = &tb->entries[tb->nentries++];
        char *pi = jp_idx(pe, i);
        te->jpath = xstrdup(pi);
        te->writable = 1;
        if (!json_is_object(e)) { LERR(L, pi, "an entry is an object"); free(pi); continue; }
        check_keys(L, e, pi, ENTRY_KEYS);
        k = json_object_get(e, "key");
        if (k) {
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
        te->when = get_expr(L, e, "when", pi, &te->when_text);
        if (!!te->key == !!te->when) LERR(L, pi, "an entry has either \"key\" or \"when\"");
        te->dtype = get_str(L, e, "dtype", pi, 1);
        if (te->dtype) {
            static const char *const DT[] = {"bool", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f16",
                                             "bf16", "f32", "f64", "c32", "c64", "c128", "opaque", NULL};
            int ok = 0, q;
            for (q = 0; DT[q]; q++) ok |= strcmp(DT[q], te->dtype) == 0;
            if (!ok) {
                char *pd = jp_key(pi, "dtype");
                LERR(L, pd, "unknown dtype '%s' (known: bool i8 i16 i32 i64 u8 u16 u32 u64 f16 bf16 f32 f64 c32 c64 c128 opaque)", te->dtype);
                free(pd);
            }
        }
        te->size = get_expr(L, e, "size", pi, NULL);
        te->encoding = get_str(L, e, "encoding", pi, 0);
        if (te->encoding && strcmp(te->encoding, "plain") != 0 && strcmp(te->encoding, "bits-lsb") != 0)
            LERR(L, pi, "\"encoding\" is \"plain\" or \"bits-lsb\"");
        te->warn = get_str(L, e, "warn", pi, 0);
        w = json_object_get(e, "write");
        if (w) te->writable = json_is_true(w);
        w = json_object_get(e, "write_key");
        if (w) {
            /* what a writer stores in the key fields for a "when" entry:
             * integers, or "elsize" (the array's element size in bytes) */
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
        free(pi);
    }
    free(pe);
}

static const char *const TOP_KEYS[] = {
    "format", "title", "holds", "doc", "extensions", "endian", "detect", "tables", "body", "trailer", "sidecar", "read_only", "$schema", NULL};

static void load_detect(loader *L, spec *s, json_t *d, const char *jp)
{
    size_t i, n = json_is_array(d) ? json_array_size(d) : 1;
    s->detect = xcalloc(n, sizeof *s->detect);
    for (i = 0; i < n; i++) {
        json_t *r = json_is_array(d) ? json_array_get(d, i) : d;
        char *pi = json_is_array(d) ? jp_idx(jp, i) : xstrdup(jp);
        detect_rule *dr = &s->detect[s->ndetect++];
        json_t *at = json_object_get(r, "at"), *bytes = json_object_get(r, "bytes"), *skip = json_object_get(r, "skip");
        static const char *const DETECT_KEYS[] = {"at", "bytes", "hex", "skip", NULL};
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
        if (dr->at + (uint64_t)dr->nbytes > 64) LERR(L, pi, "detection looks at the first 64 bytes only");
        free(pi);
    }
}

spec *spec_load(const char *path)
{
    json_error_t jerr;
    json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
    loader L;
    spec *s;
    json_t *v;
    L.path = path;
    L.errors = 0;
    if (!root) {
        fprintf(stderr, "%s:%d:%d: invalid JSON: %s\n", path, jerr.line, jerr.column, jerr.text);
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
    s->format = get_str(&L, root, "format", "", 1);
    if (s->format) {
        const char *c;
        for (c = s->format; *c; c++)
            if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_') || (c == s->format && *c >= '0' && *c <= '9')) {
                LERR(&L, "/format", "a format name is lower-case letters, digits and '_', starting with a letter");
                break;
            }
        if (strlen(s->format) >= 24) LERR(&L, "/format", "a format name has at most 23 characters");
    }
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
    v = json_object_get(root, "extensions");
    if (v) {
        size_t i;
        if (!json_is_array(v)) LERR(&L, "/extensions", "a list of strings such as \".ra\"");
        else {
            s->extensions = xcalloc(json_array_size(v) + 1, sizeof *s->extensions);
            for (i = 0; i < json_array_size(v); i++) {
                json_t *e = json_array_get(v, i);
                if (!json_is_string(e) || json_string_value(e)[0] != '.') {
                    char *p = jp_idx("/extensions", i);
                    LERR(&L, p, "an extension is a string starting with '.'");
                    free(p);
                } else {
                    s->extensions[s->nextensions++] = xstrdup(json_string_value(e));
                }
            }
        }
    }
    v = json_object_get(root, "detect");
    if (v) load_detect(&L, s, v, "/detect");
    v = json_object_get(root, "tables");
    if (v) {
        const char *k;
        json_t *t;
        if (!json_is_object(v)) LERR(&L, "/tables", "an object of named tables");
        else {
            s->tables = xcalloc(json_object_size(v) + 1, sizeof *s->tables);
            json_object_foreach(v, k, t) {
                char *p = jp_key("/tables", k);
                if (!valid_name(k)) LERR(&L, p, "'%s' is not a valid table name", k);
                load_table(&L, k, t, p, &s->tables[s->ntables++]);
                free(p);
            }
        }
    }
    load_items(&L, s, json_object_get(root, "body"), "/body", &s->body);
    v = json_object_get(root, "sidecar");
    if (v) {
        static const char *const SIDECAR_KEYS[] = {"suffix", "keys", "value_names", "doc", NULL};
        static const char *const KEY_NAMES[] = {"rows", "cols", "value_type", "nnz", "schema", "label", NULL};
        json_t *keys = json_object_get(v, "keys"), *names = json_object_get(v, "value_names");
        int k;
        check_keys(&L, v, "/sidecar", SIDECAR_KEYS);
        s->sidecar_suffix = get_str(&L, v, "suffix", "/sidecar", 1);
        if (!json_is_object(keys)) LERR(&L, "/sidecar/keys", "an object naming the JSON keys: rows, cols, value_type, nnz, schema, label");
        else {
            check_keys(&L, keys, "/sidecar/keys", KEY_NAMES);
            for (k = 0; KEY_NAMES[k]; k++) s->sidecar_keys[k] = get_str(&L, keys, KEY_NAMES[k], "/sidecar/keys", 1);
        }
        if (!json_is_object(names)) LERR(&L, "/sidecar/value_names", "an object mapping dtypes to their spelling");
        else {
            const char *dk;
            json_t *dv;
            json_object_foreach(names, dk, dv) {
                char *pk = jp_key("/sidecar/value_names", dk);
                static const char *const DT[] = {"bool", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f16",
                                                 "bf16", "f32", "f64", "c64", "c128", NULL};
                int ok = 0, q;
                for (q = 0; DT[q]; q++) ok |= strcmp(DT[q], dk) == 0;
                if (!ok) LERR(&L, pk, "unknown dtype '%s'", dk);
                else if (!json_is_string(dv) || json_string_length(dv) >= 16) LERR(&L, pk, "a spelling of at most 15 characters");
                else if (s->nsidecar_names < 32) {
                    s->sidecar_names[s->nsidecar_names][0] = xstrdup(dk);
                    s->sidecar_names[s->nsidecar_names][1] = xstrdup(json_string_value(dv));
                    s->nsidecar_names++;
                }
                free(pk);
            }
        }
    }
    v = json_object_get(root, "trailer");
    if (!v || (json_is_string(v) && strcmp(json_string_value(v), "forbid") == 0)) {
        s->trailer_lenient = LEN_WARN;
    } else if (json_is_string(v) && strcmp(json_string_value(v), "forbid-always") == 0) {
        s->trailer_lenient = LEN_NONE;
    } else if (json_is_string(v) && strcmp(json_string_value(v), "keep") == 0) {
        s->trailer_keep = 1;
    } else {
        LERR(&L, "/trailer", "\"trailer\" is \"forbid\", \"forbid-always\" or \"keep\"");
    }
    json_decref(root);
    if (L.errors) return NULL;
    return s;
}
