/* afmt-gen: the items of a spec's body, one loader per item kind
 * (spec/LANGUAGE.md, "Items"), chosen by load_item's table of kinds. */
#include <stdlib.h>
#include <string.h>
#include "layout.h"
#include "load.h"
#include "util.h"

static const char *const FIELD_KEYS[] = {
    "field", "type", "size", "count", "length", "equals", "in", "range", "lenient", "code", "check", "each", "order",
    "first", "last", "increasing_within", "increasing_segments", "text", "write", "names", "doc", NULL};
static const char *const LET_KEYS[] = {"let", "value", "doc", NULL};
static const char *const LOOKUP_KEYS[] = {"lookup", "table", "key", "field", "doc", NULL};
static const char *const CHECKITEM_KEYS[] = {"check", "field", "message", "code", "lenient", "doc", NULL};
static const char *const ARRAY_KEYS[] = {
    "array", "dtype", "shape", "order", "endian", "name", "values", "lenient", "doc",
    "layout", "nnz", "row_offsets", "col_indices", "types", "table", "names", "compressed", "stored_bytes",
    "index", "with_columns", "rank", "fill", "logical", "col_offsets", "row_indices", NULL};
static const char *const REPEAT_KEYS[] = {"repeat", "until", "count", "skip", "min", "tiles", "unique", "unique_as", "metadata", "body", "doc", NULL};
static const char *const STRUCTUSE_KEYS[] = {"struct", "use", "args", "doc", NULL};
static const char *const VAR_KEYS[] = {"var", "value", "doc", NULL};
static const char *const DIRECTORY_KEYS[] = {"directory", "records", "align", "dtype", "shape", "dims", "name", "default_name", "offset",
                                             "rank", "fill", "endian", "lenient", "doc", NULL};
static const char *const SET_KEYS[] = {"set", "value", "doc", NULL};
static const char *const REGION_KEYS[] = {"region", "size", "exact", "lenient", "body", "doc",
                                          "inflate", "inflated_size", "max_size", NULL};
static const char *const SWITCH_KEYS[] = {"switch", "on", "cases", "else", "write", "doc", NULL};
static const char *const TEXTVAL_KEYS[] = {"text_value", "grammar", "doc", NULL};
static const char *const CASE_KEYS[] = {"when", "body", "doc", NULL};
static const char *const PAD_KEYS[] = {"pad", "size", "fill", "lenient", "doc", NULL};
static const char *const BYTE_ORDER_KEYS[] = {"byte_order", "doc", NULL};

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

/* "type" of a field: an integer type, bytes, text, or a length-prefixed string. */
static void load_field_type(loader *L, spec *s, json_t *o, const char *jp, field_item *f)
{
    char *type = get_str(L, o, "type", jp, 1);
    if (!type) return;
    if (strcmp(type, "bytes") == 0) f->ftype = FT_BYTES;
    else if (strcmp(type, "text") == 0) f->ftype = FT_TEXT;
    else if (strcmp(type, "string") == 0) {
        field_item lt;
        char *lw = get_str(L, o, "length", jp, 1);
        f->ftype = FT_STRING;
        memset(&lt, 0, sizeof lt);
        if (lw && parse_int_type(lw, &lt, s->big_endian) && !lt.is_signed) {
            f->len_width = lt.width;
            f->big_endian = lt.big_endian;
            f->order_explicit = lt.order_explicit;
        } else {
            LERR(L, jp, "a string needs \"length\": the unsigned type of its length prefix (u8, u16, u32, u64)");
        }
        free(lw);
    }
    else if (parse_int_type(type, f, s->big_endian)) f->ftype = FT_INT;
    else if (parse_float_type(type, f, s->big_endian)) f->ftype = FT_FLOAT;
    else {
        char *p = jp_key(jp, "type");
        LERR(L, p, "unknown field type '%s' (expected u8..u64, i8..i64, f32, f64 with optional le/be, bytes, text, string)", type);
        free(p);
    }
    free(type);
}

/* "size" of a bytes/text field; "count" and "length" where they belong. */
static void load_field_size(loader *L, json_t *o, const char *jp, field_item *f)
{
    json_t *v;
    if (f->ftype == FT_STRING) {
        if (json_object_get(o, "size")) LERR(L, jp, "a string's size is its length prefix, not \"size\"");
    } else if (f->ftype != FT_INT && f->ftype != FT_FLOAT) {
        v = json_object_get(o, "size");
        if (!json_is_integer(v) || json_integer_value(v) <= 0 || json_integer_value(v) > 4096)
            LERR(L, jp, "a bytes/text field needs \"size\": an integer from 1 to 4096");
        else
            f->size = (int)json_integer_value(v);
    } else if (json_object_get(o, "size")) {
        LERR(L, jp, "\"size\" is only for bytes/text fields (an integer's or float's size is its type)");
    }
    f->count = get_expr(L, o, "count", jp, &f->count_text);
    if (f->count && f->ftype != FT_INT && f->ftype != FT_STRING && f->ftype != FT_FLOAT)
        LERR(L, jp, "only integer, float and string fields can be repeated with \"count\"");
    if (json_object_get(o, "length") && f->ftype != FT_STRING) LERR(L, jp, "\"length\" is for string fields");
}

/* A float field's "equals": a JSON number the field's type holds exactly
 * (an f32 cannot equal 0.1: the file would hold another value). */
static void load_float_equals(loader *L, json_t *v, const char *p, field_item *f)
{
    double d;
    if (!json_is_number(v)) {
        LERR(L, p, "a float field equals a number");
        return;
    }
    d = json_number_value(v);
    if (json_is_integer(v) && (json_integer_value(v) > 9007199254740992LL || json_integer_value(v) < -9007199254740992LL)) {
        LERR(L, p, "%" JSON_INTEGER_FORMAT " is not exact as a float (at most 2^53 in magnitude)", json_integer_value(v));
        return;
    }
    if (f->width == 4 && (double)(float)d != d) {
        char *want = float_text(d, 8), *would = float_text((double)(float)d, 8);
        LERR(L, p, "%s is not exact as an f32 (it would be %s)", want, would);
        free(want);
        free(would);
        return;
    }
    f->has_fequals = 1;
    f->fequals = d;
    f->equals_text = float_text(d, f->width);
}

/* "equals": the literal a field must hold, with its "lenient" and "code". */
static void load_field_equals(loader *L, json_t *o, const char *jp, field_item *f)
{
    json_t *v = json_object_get(o, "equals");
    if (v && f->ftype == FT_FLOAT) {
        char *p = jp_key(jp, "equals");
        load_float_equals(L, v, p, f);
        free(p);
    } else if (v) {
        char *p = jp_key(jp, "equals");
        f->equals = literal(L, v, p);
        f->equals_text = json_is_string(v) ? xstrdup(json_string_value(v))
                                           : xprintf("%" JSON_INTEGER_FORMAT, json_integer_value(v));
        if (f->equals->kind == E_STR && f->ftype == FT_INT) LERR(L, p, "an integer field equals an integer");
        if (f->equals->kind == E_INT && f->ftype != FT_INT) LERR(L, p, "a bytes/text field equals a string");
        if (f->equals->kind == E_STR && f->ftype != FT_INT && (int)strlen(f->equals->sval) > f->size)
            LERR(L, p, "\"%s\" is longer than the field (%d bytes)", f->equals->sval, f->size);
        if (f->equals->kind == E_STR && f->ftype == FT_BYTES && (int)strlen(f->equals->sval) != f->size)
            LERR(L, p, "a bytes field's \"equals\" must have exactly %d bytes", f->size);
        free(p);
    }
    f->equals_lenient = get_lenient(L, o, "lenient", jp);
    f->equals_code = get_str(L, o, "code", jp, 0);
    check_code(L, f->equals_code, jp);
}

/* What an array field's elements must satisfy: "each", "order", "first",
 * "last", "increasing_within". */
static void load_field_elements(loader *L, json_t *o, const char *jp, field_item *f)
{
    load_checks(L, o, "each", jp, &f->each, &f->neach);
    f->order = get_str(L, o, "order", jp, 0);
    if (f->order && strcmp(f->order, "nondecreasing") != 0 && strcmp(f->order, "increasing") != 0)
        LERR(L, jp, "\"order\" is \"nondecreasing\" or \"increasing\"");
    f->first = get_expr(L, o, "first", jp, &f->first_text);
    f->last = get_expr(L, o, "last", jp, &f->last_text);
    f->increasing_within = get_str(L, o, "increasing_within", jp, 0);
    f->increasing_segments = get_str(L, o, "increasing_segments", jp, 0);
    if ((f->neach || f->order || f->first || f->last || f->increasing_within || f->increasing_segments) && !f->count)
        LERR(L, jp, "\"each\", \"order\", \"first\", \"last\", \"increasing_within\" and \"increasing_segments\" need \"count\"");
    if (f->increasing_segments && !(f->first && f->last && f->order))
        LERR(L, jp, "\"increasing_segments\" cuts '%s' by this field's offsets: give it \"first\", \"last\" and \"order\" too, so that they are checked first", f->increasing_segments);
    if (f->ftype == FT_FLOAT && f->count && (f->order || f->first || f->last || f->increasing_within || f->increasing_segments))
        LERR(L, jp, "the elements of a float array field are checked by \"each\" (\"order\", \"first\", \"last\" and "
                    "\"increasing_within\" are for integers)");
}

/* Most names one field's values may have, and the longest name. */
#define FIELD_NAMES_MAX 256
#define FIELD_NAME_LEN 31

static void add_field_name(loader *L, field_item *f, uint64_t value, const char *name, const char *jp)
{
    int k;
    if (!name || !*name || strlen(name) > FIELD_NAME_LEN) {
        LERR(L, jp, "a value's name is a string of 1 to %d characters", FIELD_NAME_LEN);
        return;
    }
    for (k = 0; k < f->nnames; k++)
        if (f->name_values[k] == value) {
            LERR(L, jp, "value %llu is named twice", (unsigned long long)value);
            return;
        }
    if (f->nnames >= FIELD_NAMES_MAX) {
        LERR(L, jp, "at most %d names", FIELD_NAMES_MAX);
        return;
    }
    f->name_values = realloc(f->name_values, (size_t)(f->nnames + 1) * sizeof *f->name_values);
    f->name_texts = realloc(f->name_texts, (size_t)(f->nnames + 1) * sizeof *f->name_texts);
    if (!f->name_values || !f->name_texts) abort();
    f->name_values[f->nnames] = value;
    f->name_texts[f->nnames++] = xstrdup(name);
}

/* "names": {"8": "string", ...}, or the name of a table of one integer
 * key whose entries name their values (an opaque entry's "name", else
 * its dtype): for an integer field of one value. */
static void load_field_names(loader *L, spec *s, json_t *o, const char *jp, field_item *f)
{
    json_t *v = json_object_get(o, "names");
    char *p;
    int t, e;
    if (!v) return;
    p = jp_key(jp, "names");
    if (f->ftype != FT_INT || f->count) {
        LERR(L, p, "\"names\" is for integer fields of one value");
    } else if (json_is_object(v)) {
        const char *k;
        json_t *n;
        json_object_foreach(v, k, n) {
            char *end;
            unsigned long long value = strtoull(k, &end, 10);
            char *pk = jp_key(p, k);
            if (!*k || *end || k[0] == '-' || (k[0] == '0' && k[1]))
                LERR(L, pk, "a key of \"names\" is a value in decimal");
            else
                add_field_name(L, f, value, json_is_string(n) ? json_string_value(n) : NULL, pk);
            free(pk);
        }
    } else if (json_is_string(v)) {
        const char *name = json_string_value(v);
        for (t = 0; t < s->ntables && strcmp(s->tables[t].name, name) != 0; t++) {}
        if (t == s->ntables || s->tables[t].nkeys != 1) {
            LERR(L, p, "no table '%s' of one key", name);
        } else {
            const table *tb = &s->tables[t];
            for (e = 0; e < tb->nentries; e++) {
                const table_entry *en = &tb->entries[e];
                if (en->nkey == 1 && en->key[0] && en->key[0]->kind == E_INT)
                    add_field_name(L, f, en->key[0]->ival, en->type_name ? en->type_name : en->dtype, p);
            }
        }
    } else {
        LERR(L, p, "\"names\" is an object of value names or the name of a table");
    }
    free(p);
}

static void load_field(loader *L, spec *s, json_t *o, const char *jp, item *it)
{
    field_item *f = &it->field;
    json_t *v;
    it->name = get_str(L, o, "field", jp, 1);
    check_keys(L, o, jp, FIELD_KEYS);
    it->kind = IT_FIELD;
    load_field_type(L, s, o, jp, f);
    load_field_size(L, o, jp, f);
    load_field_equals(L, o, jp, f);
    load_checks(L, o, "check", jp, &it->checks, &it->nchecks);
    load_membership(L, o, jp, it);
    load_field_elements(L, o, jp, f);
    if (f->ftype == FT_FLOAT && f->count && it->nchecks)
        LERR(L, jp, "a float array field has no value of its own: check its elements with \"each\"");
    load_field_names(L, s, o, jp, f);
    v = json_object_get(o, "text");
    if (v) {
        if (f->ftype != FT_TEXT || !json_is_string(v) || strcmp(json_string_value(v), "nul-padded") != 0)
            LERR(L, jp, "\"text\": \"nul-padded\" is for text fields");
        else
            f->text_nul_padded = 1;
    }
    v = json_object_get(o, "write");
    if (v && (f->ftype == FT_TEXT || f->ftype == FT_BYTES)) {
        /* the content a writer gives the slot, NUL-padded: taken as it is
         * written, not as an expression */
        char *p = jp_key(jp, "write");
        if (!json_is_string(v))
            LERR(L, p, "\"write\" of a bytes/text field is a string: the content the writer gives the slot");
        else if (json_string_length(v) > (size_t)f->size)
            LERR(L, p, "\"%s\" is longer than the field (%d bytes)", json_string_value(v), f->size);
        else if (strlen(json_string_value(v)) != json_string_length(v))
            LERR(L, p, "\"write\" of a bytes/text field holds no NUL (the writer pads with NULs)");
        else if (f->equals)
            LERR(L, p, "a field with \"equals\" is written as its \"equals\": drop \"write\"");
        else
            f->write_literal = xstrdup(json_string_value(v));
        free(p);
    } else {
        it->write = get_expr(L, o, "write", jp, &it->write_text);
    }
}

static void load_texthdr_item(loader *L, spec *s, json_t *o, const char *jp, item *it)
{
    (void)s;
    it->kind = IT_TEXTHDR;
    it->name = get_str(L, o, "text_header", jp, 1);
    it->th = texthdr_load(L->path, o, jp, &L->errors);
}

static void load_cards_item(loader *L, spec *s, json_t *o, const char *jp, item *it)
{
    (void)s;
    it->kind = IT_CARDS;
    it->name = get_str(L, o, "cards", jp, 1);
    it->cards = cards_load(L->path, o, jp, &L->errors);
}

static void load_archive_item(loader *L, spec *s, json_t *o, const char *jp, item *it)
{
    it->kind = IT_ARCHIVE;
    it->name = get_str(L, o, "archive", jp, 1);
    it->ar = archive_load(L->path, o, jp, &L->errors);
    if (!s->read_only) archive_check_writer(it->ar, L->path, jp, &L->errors);
}

static void load_let(loader *L, spec *s, json_t *o, const char *jp, item *it)
{
    (void)s;
    check_keys(L, o, jp, LET_KEYS);
    it->kind = IT_LET;
    it->name = get_str(L, o, "let", jp, 1);
    it->let.value = get_expr(L, o, "value", jp, &it->let.value_text);
    if (!it->let.value) LERR(L, jp, "\"let\" needs \"value\"");
}

static void load_lookup(loader *L, spec *s, json_t *o, const char *jp, item *it)
{
    lookup_item *lk = &it->lookup;
    json_t *k;
    (void)s;
    check_keys(L, o, jp, LOOKUP_KEYS);
    it->kind = IT_LOOKUP;
    it->name = get_str(L, o, "lookup", jp, 1);
    lk->cname = c_lookup_base(it->name ? it->name : "");
    lk->table = get_str(L, o, "table", jp, 1);
    it->attribute = get_str(L, o, "field", jp, 0);
    k = json_object_get(o, "key");
    if (!json_is_array(k) || json_array_size(k) == 0) {
        LERR(L, jp, "\"key\" is a non-empty list of expressions");
    } else {
        size_t i;
        char *pk = jp_key(jp, "key");
        lk->key = xcalloc(json_array_size(k), sizeof *lk->key);
        for (i = 0; i < json_array_size(k); i++) {
            char *pi = jp_idx(pk, i);
            json_t *ki = json_array_get(k, i);
            if (!json_is_string(ki)) LERR(L, pi, "a key is an expression string");
            else lk->key[lk->nkey++] = parse_text(L, json_string_value(ki), pi);
            free(pi);
        }
        free(pk);
    }
}

/* A check item: one check (in it->checks[0]) about the field it names. */
static void load_check_item(loader *L, spec *s, json_t *o, const char *jp, item *it)
{
    check *c;
    char *p = jp_key(jp, "check");
    json_t *e = json_object_get(o, "check");
    (void)s;
    check_keys(L, o, jp, CHECKITEM_KEYS);
    it->kind = IT_CHECK;
    it->checks = c = xcalloc(1, sizeof *it->checks);
    it->nchecks = 1;
    if (!json_is_string(e)) LERR(L, p, "must be an expression string");
    else {
        c->text = xstrdup(json_string_value(e));
        c->e = parse_text(L, c->text, p);
    }
    c->jpath = p;
    c->message = get_str(L, o, "message", jp, 0);
    c->code = get_str(L, o, "code", jp, 0);
    check_code(L, c->code, jp);
    c->lenient = get_check_lenient(L, o, "lenient", jp);
    it->attribute = get_str(L, o, "field", jp, 0);
}

/* "rank" (the first `rank` entries of the shape field are the shape) and
 * "fill" (what a writer writes past them, default 1): of an array item or
 * a directory. */
static void load_rank_fill(loader *L, json_t *o, const char *jp, expr **rank, char **rank_text, uint64_t *fill)
{
    json_t *f = json_object_get(o, "fill");
    *rank = get_expr(L, o, "rank", jp, rank_text);
    *fill = 1;
    if (f && !*rank) LERR(L, jp, "\"fill\" is what a writer writes past the \"rank\": it needs \"rank\"");
    if (f && (!json_is_integer(f) || json_integer_value(f) < 0))
        LERR(L, jp, "\"fill\" is a non-negative integer (the value of the entries past the rank)");
    else if (f)
        *fill = (uint64_t)json_integer_value(f);
}

/* "shape": an array field's name, or a list of expressions; with an array
 * field, "rank" (its first `rank` entries are the shape) and "fill". */
static void load_array_shape(loader *L, json_t *o, const char *jp, array_item *a)
{
    json_t *shape = json_object_get(o, "shape");
    load_rank_fill(L, o, jp, &a->rank, &a->rank_text, &a->fill);
    if (a->rank && !json_is_string(shape)) LERR(L, jp, "\"rank\" takes the first entries of an array field: \"shape\" names one");
    if (json_is_string(shape)) {
        a->shape_field = xstrdup(json_string_value(shape));
    } else if (json_is_array(shape)) {
        size_t i;
        char *ps = jp_key(jp, "shape");
        a->shape = xcalloc(json_array_size(shape) + 1, sizeof *a->shape);
        a->shape_text = xcalloc(json_array_size(shape) + 1, sizeof *a->shape_text);
        for (i = 0; i < json_array_size(shape); i++) {
            json_t *si = json_array_get(shape, i);
            char *pi = jp_idx(ps, i);
            if (!json_is_string(si)) LERR(L, pi, "a dimension is an expression string");
            else {
                a->shape_text[a->nshape] = xstrdup(json_string_value(si));
                a->shape[a->nshape++] = parse_text(L, json_string_value(si), pi);
            }
            free(pi);
        }
        free(ps);
    } else {
        LERR(L, jp, "\"shape\" is an array field name or a list of expressions");
    }
}

/* "order" and "endian": how the elements are laid out. */
static void load_array_elements(loader *L, spec *s, json_t *o, const char *jp, array_item *a)
{
    char *order = get_str(L, o, "order", jp, 1), *endian;
    if (order) {
        if (strcmp(order, "column-major") == 0) a->col_major = 1;
        else if (strcmp(order, "row-major") != 0) LERR(L, jp, "\"order\" is \"row-major\" or \"column-major\"");
        free(order);
    }
    a->payload_big = s->big_endian;
    endian = get_str(L, o, "endian", jp, 0);
    a->payload_explicit = endian != NULL;
    if (endian) {
        if (strcmp(endian, "big") == 0) a->payload_big = 1;
        else if (strcmp(endian, "little") == 0) a->payload_big = 0;
        else LERR(L, jp, "\"endian\" is \"little\" or \"big\"");
        free(endian);
    }
}

/* "layout" and the keys each layout takes. */
static void load_array_layout(loader *L, json_t *o, const char *jp, array_item *a)
{
    char *layout = get_str(L, o, "layout", jp, 0);
    const layout_module *lm = layout_by_name(layout);
    if (!layout || strcmp(layout, "dense") == 0) a->layout = LAYOUT_DENSE;
    else if (lm) a->layout = lm->id;
    else LERR(L, jp, "\"layout\" is \"dense\", \"csr\", \"csc\", \"coo\", \"zeros\" or \"columns\"");
    free(layout);
    a->nnz = get_expr(L, o, "nnz", jp, &a->nnz_text);
    a->compressed = get_expr(L, o, "compressed", jp, &a->compressed_text);
    a->stored = get_expr(L, o, "stored_bytes", jp, &a->stored_text);
    if (!!a->compressed != !!a->stored)
        LERR(L, jp, "\"compressed\" (when the payload is one LZ4 block) and \"stored_bytes\" (its length) go together");
    if (a->compressed && a->layout != LAYOUT_DENSE)
        LERR(L, jp, "only dense arrays can be compressed");
    a->row_offsets = get_str(L, o, a->layout == LAYOUT_CSC ? "col_offsets" : "row_offsets", jp, 0);
    a->col_indices = get_str(L, o, a->layout == LAYOUT_CSC ? "row_indices" : "col_indices", jp, 0);
    a->types_field = get_str(L, o, "types", jp, 0);
    a->names_field = get_str(L, o, "names", jp, 0);
    a->col_table = get_str(L, o, "table", jp, 0);
    if (a->layout == LAYOUT_COO) {
        char *ix = get_str(L, o, "index", jp, 1);
        field_item ti;
        memset(&ti, 0, sizeof ti);
        if (ix && parse_int_type(ix, &ti, 0) && !ti.is_signed && !ti.big_endian) a->coo_index_width = ti.width;
        else LERR(L, jp, "a coo array needs \"index\": the little-endian unsigned type of its indices (u8..u64)");
        free(ix);
        a->coo_with_cols = get_expr(L, o, "with_columns", jp, &a->coo_with_cols_text);
        if (!a->coo_with_cols || !a->nnz || a->nshape != 2)
            LERR(L, jp, "a coo array needs \"nnz\", \"with_columns\" (when records hold a column index) and a shape of two expressions");
    } else if (json_object_get(o, "index") || json_object_get(o, "with_columns")) {
        LERR(L, jp, "\"index\" and \"with_columns\" are for coo arrays");
    }
    if (a->layout == LAYOUT_ZEROS && a->nshape == 0)
        LERR(L, jp, "a zeros array needs a shape");
    if (a->layout == LAYOUT_CSR && (!a->nnz || !a->row_offsets || !a->col_indices || a->nshape != 2))
        LERR(L, jp, "a csr array needs \"nnz\", \"row_offsets\", \"col_indices\" and a shape of two expressions");
    if (a->layout == LAYOUT_COLUMNS && (!a->types_field || !a->col_table || a->nshape != 1))
        LERR(L, jp, "a columns array needs \"types\" (an array field of type codes), \"table\" and a shape of one expression (the rows)");
    if (lm && lm->stored_by_rows && a->col_major)
        LERR(L, jp, "a %s array is stored row by row: \"order\" must be \"row-major\", not \"column-major\"",
             lm->name);
    if (a->layout == LAYOUT_CSC && (!a->nnz || !a->row_offsets || !a->col_indices || a->nshape != 2))
        LERR(L, jp, "a csc array needs \"nnz\", \"col_offsets\", \"row_indices\" and a shape of two expressions");
    if (a->layout == LAYOUT_CSC && !a->col_major)
        LERR(L, jp, "a csc array is stored column by column: \"order\" must be \"column-major\"");
    if (a->layout != LAYOUT_CSR && (json_object_get(o, "row_offsets") || json_object_get(o, "col_indices")))
        LERR(L, jp, "\"row_offsets\" and \"col_indices\" are for csr arrays");
    if (a->layout != LAYOUT_CSC && (json_object_get(o, "col_offsets") || json_object_get(o, "row_indices")))
        LERR(L, jp, "\"col_offsets\" and \"row_indices\" are for csc arrays");
    if (a->layout != LAYOUT_CSR && a->layout != LAYOUT_CSC && a->layout != LAYOUT_COO && a->nnz)
        LERR(L, jp, "\"nnz\" is for csr, csc and coo arrays");
    if (a->layout != LAYOUT_COLUMNS && (a->types_field || a->names_field || a->col_table))
        LERR(L, jp, "\"types\", \"table\" and \"names\" are for columns arrays");
}

static void load_array(loader *L, spec *s, json_t *o, const char *jp, item *it)
{
    array_item *a = &it->array;
    char *values;
    check_keys(L, o, jp, ARRAY_KEYS);
    it->kind = IT_ARRAY;
    it->name = get_str(L, o, "array", jp, 1);
    a->dtype_from = get_str(L, o, "dtype", jp, !json_object_get(o, "types"));
    load_array_shape(L, o, jp, a);
    load_array_elements(L, s, o, jp, a);
    a->name_from = get_str(L, o, "name", jp, 0);
    a->logical_from = get_str(L, o, "logical", jp, 0);
    load_array_layout(L, o, jp, a);
    values = get_str(L, o, "values", jp, 0);
    if (values) {
        if (strcmp(values, "check") == 0) a->check_values = 1;
        else if (strcmp(values, "any") != 0) LERR(L, jp, "\"values\" is \"check\" or \"any\"");
        free(values);
    }
    a->values_lenient = get_lenient(L, o, "lenient", jp);
}

/* "tiles": the fields that place each block of a matrix stored in tiles. */
static void load_tiles(loader *L, json_t *t, const char *jp, repeat_item *r)
{
    static const char *const TILE_KEYS[] = {"row", "col", "rows", "cols", "within", NULL};
    char *pt = jp_key(jp, "tiles");
    json_t *w = json_object_get(t, "within");
    if (!json_is_object(t)) LERR(L, pt, "\"tiles\" is an object");
    else {
        check_keys(L, t, pt, TILE_KEYS);
        r->tile_row = get_str(L, t, "row", pt, 1);
        r->tile_col = get_str(L, t, "col", pt, 1);
        r->tile_rows = get_str(L, t, "rows", pt, 1);
        r->tile_cols = get_str(L, t, "cols", pt, 1);
        if (!json_is_array(w) || json_array_size(w) != 2 || !json_is_string(json_array_get(w, 0)) ||
            !json_is_string(json_array_get(w, 1))) {
            LERR(L, pt, "\"within\" is a list of two expressions: the matrix rows and columns");
        } else {
            int q;
            for (q = 0; q < 2; q++) {
                char *pw = jp_key(pt, "within");
                r->tile_within_text[q] = xstrdup(json_string_value(json_array_get(w, (size_t)q)));
                r->tile_within[q] = parse_text(L, r->tile_within_text[q], pw);
                free(pw);
            }
        }
    }
    free(pt);
}

/* A repeat's "metadata": {"key": K, "value": V[, "bool": CODE]}: its
 * repetitions are typed key-values (emit_value.c). */
static void load_metadata(loader *L, json_t *o, const char *jp, item *it)
{
    static const char *const keys[] = {"key", "value", "bool", NULL};
    repeat_item *r = &it->repeat;
    json_t *md = json_object_get(o, "metadata"), *b, *k, *v;
    char *pm;
    r->meta_bool = -1;
    if (!md) return;
    if (!json_is_object(md)) {
        LERR(L, jp, "\"metadata\" is {\"key\": a string field, \"value\": a struct item[, \"bool\": a type code]}");
        return;
    }
    pm = jp_key(jp, "metadata");
    check_keys(L, md, pm, keys);
    free(pm);
    b = json_object_get(md, "bool");
    k = json_object_get(md, "key");
    v = json_object_get(md, "value");
    if (!json_is_string(k) || !json_is_string(v)) {
        LERR(L, jp, "\"metadata\" names its \"key\" (a string field) and \"value\" (a struct item) of the body");
    } else {
        r->meta_key = xstrdup(json_string_value(k));
        r->meta_value = xstrdup(json_string_value(v));
    }
    if (b && (!json_is_integer(b) || json_integer_value(b) < 0))
        LERR(L, jp, "\"metadata\": \"bool\" is the type code of the bool case (an integer)");
    else if (b)
        r->meta_bool = json_integer_value(b);
    if (!it->arg) LERR(L, jp, "a \"metadata\" repeat has a \"count\"");
}

static void load_repeat(loader *L, spec *s, json_t *o, const char *jp, item *it)
{
    repeat_item *r = &it->repeat;
    char *until, *skip, *pb = jp_key(jp, "body");
    json_t *mn = json_object_get(o, "min");
    check_keys(L, o, jp, REPEAT_KEYS);
    it->kind = IT_REPEAT;
    it->name = get_str(L, o, "repeat", jp, 1);
    until = get_str(L, o, "until", jp, 0);
    it->arg = get_expr(L, o, "count", jp, &it->arg_text);
    if (until) {
        if (strcmp(until, "end") == 0) r->until_end = 1;
        else if (strcmp(until, "tiled") == 0) r->until_end = r->until_tiled = 1;
        else LERR(L, jp, "\"until\" is \"end\" or \"tiled\"");
        free(until);
    }
    if (!!r->until_end == !!it->arg) LERR(L, jp, "a repeat has either \"until\": \"end\" or \"count\"");
    if (mn && (!json_is_integer(mn) || json_integer_value(mn) < 0)) LERR(L, jp, "\"min\" is a non-negative integer");
    else if (mn) r->min_count = (uint64_t)json_integer_value(mn);
    if (json_object_get(o, "tiles")) load_tiles(L, json_object_get(o, "tiles"), jp, r);
    if (r->until_tiled && !json_object_get(o, "tiles")) LERR(L, jp, "\"until\": \"tiled\" needs \"tiles\"");
    skip = get_str(L, o, "skip", jp, 0);
    if (skip) {
        if (strcmp(skip, "whitespace") == 0) r->skip_ws = 1;
        else if (strcmp(skip, "whitespace and -- comments") == 0) r->skip_ws = 2;
        else LERR(L, jp, "\"skip\" is \"whitespace\" or \"whitespace and -- comments\"");
        free(skip);
    }
    r->unique = get_str(L, o, "unique", jp, 0);
    {
        char *as = get_str(L, o, "unique_as", jp, 0);
        if (as && strcmp(as, "c-string") == 0) r->unique_c_string = 1;
        else if (as && strcmp(as, "bytes") != 0) LERR(L, jp, "\"unique_as\" is \"bytes\" (the default) or \"c-string\"");
        if (as && !r->unique) LERR(L, jp, "\"unique_as\" needs \"unique\"");
        free(as);
    }
    load_metadata(L, o, jp, it);
    load_items(L, s, json_object_get(o, "body"), pb, &it->body);
    free(pb);
}

/* {"struct": LABEL, "use": NAME, "args": [expressions]}: named structure
 * NAME read here, its parameters bound to the arguments in order. */
static void load_struct_use(loader *L, spec *s, json_t *o, const char *jp, item *it)
{
    json_t *a = json_object_get(o, "args");
    (void)s;
    check_keys(L, o, jp, STRUCTUSE_KEYS);
    it->kind = IT_STRUCT;
    it->name = get_str(L, o, "struct", jp, 1);
    it->st.use = get_str(L, o, "use", jp, 1);
    if (a && !json_is_array(a)) LERR(L, jp, "\"args\" is a list of expressions, one per parameter");
    if (json_is_array(a)) {
        size_t i;
        char *pa = jp_key(jp, "args");
        it->st.args = xcalloc(json_array_size(a) + 1, sizeof *it->st.args);
        it->st.args_text = xcalloc(json_array_size(a) + 1, sizeof *it->st.args_text);
        for (i = 0; i < json_array_size(a); i++) {
            char *pi = jp_idx(pa, i);
            json_t *ai = json_array_get(a, i);
            if (json_is_string(ai)) {
                it->st.args_text[it->st.nargs] = xstrdup(json_string_value(ai));
                it->st.args[it->st.nargs++] = parse_text(L, json_string_value(ai), pi);
            } else if (json_is_integer(ai) && json_integer_value(ai) >= 0) {
                it->st.args_text[it->st.nargs] = xprintf("%" JSON_INTEGER_FORMAT, json_integer_value(ai));
                it->st.args[it->st.nargs] = parse_text(L, it->st.args_text[it->st.nargs], pi);
                it->st.nargs++;
            } else {
                LERR(L, pi, "an argument is an expression string or a non-negative integer");
            }
            free(pi);
        }
        free(pa);
    }
}

/* {"var": NAME, "value": E}: a value later items may change with "set". */
static void load_var(loader *L, spec *s, json_t *o, const char *jp, item *it)
{
    (void)s;
    check_keys(L, o, jp, VAR_KEYS);
    it->kind = IT_VAR;
    it->name = get_str(L, o, "var", jp, 1);
    it->let.value = get_expr(L, o, "value", jp, &it->let.value_text);
    if (!it->let.value) LERR(L, jp, "\"var\" needs \"value\": its first value");
}

/* {"set": NAME, "value": E}: var NAME holds E from here on. */
static void load_set(loader *L, spec *s, json_t *o, const char *jp, item *it)
{
    (void)s;
    check_keys(L, o, jp, SET_KEYS);
    it->kind = IT_SET;
    it->name = NULL;
    it->attribute = get_str(L, o, "set", jp, 1);
    it->let.value = get_expr(L, o, "value", jp, &it->let.value_text);
    if (!it->let.value) LERR(L, jp, "\"set\" needs \"value\"");
    if (it->attribute && !valid_name(it->attribute)) LERR(L, jp, "'%s' is not a valid name", it->attribute);
}

/* {"directory": NAME, "records": REPEAT, "align": E, "dtype": L, "shape": A,
 * "name": S, "offset": F}: the arrays REPEAT's records describe, in the data
 * area that starts here (spec/LANGUAGE.md, "Directories of arrays"). */
static void load_directory(loader *L, spec *s, json_t *o, const char *jp, item *it)
{
    directory_item *d = &it->dir;
    char *dims, *endian;
    check_keys(L, o, jp, DIRECTORY_KEYS);
    it->kind = IT_DIRECTORY;
    it->name = get_str(L, o, "directory", jp, 1);
    d->records = get_str(L, o, "records", jp, 1);
    d->dtype = get_str(L, o, "dtype", jp, 1);
    d->shape = get_str(L, o, "shape", jp, 1);
    d->name = get_str(L, o, "name", jp, 0);
    d->default_name = get_str(L, o, "default_name", jp, 0);
    if (d->default_name && !d->name) LERR(L, jp, "\"default_name\" names the unnamed arrays of a directory with \"name\"");
    d->offset = get_str(L, o, "offset", jp, 1);
    it->arg = get_expr(L, o, "align", jp, &it->arg_text);
    if (!it->arg) LERR(L, jp, "a directory needs \"align\": the alignment of its arrays (1 for none)");
    dims = get_str(L, o, "dims", jp, 0);
    if (dims && strcmp(dims, "fastest-first") == 0) d->fastest_first = 1;
    else if (dims && strcmp(dims, "slowest-first") != 0)
        LERR(L, jp, "\"dims\" is \"slowest-first\" (the default: row-major) or \"fastest-first\"");
    free(dims);
    load_rank_fill(L, o, jp, &d->rank, &d->rank_text, &d->fill);
    endian = get_str(L, o, "endian", jp, 0);
    d->payload_explicit = endian != NULL;
    if (endian && strcmp(endian, "big") == 0) d->payload_big = 1;
    else if (endian && strcmp(endian, "little") != 0) LERR(L, jp, "\"endian\" is \"little\" or \"big\"");
    else if (!endian) d->payload_big = s->big_endian;
    free(endian);
    d->pad_lenient = get_lenient(L, o, "lenient", jp);
}

static void load_region(loader *L, spec *s, json_t *o, const char *jp, item *it)
{
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
    load_inflated(L, s, o, jp, it);
    load_items(L, s, json_object_get(o, "body"), pb, &it->body);
    free(pb);
}

/* One case of a switch: "when" (the values that select it) and its body. */
static void load_case(loader *L, spec *s, json_t *c, const char *pi, switch_case *sc)
{
    json_t *w;
    char *pw = jp_key(pi, "when"), *pb = jp_key(pi, "body");
    sc->jpath = xstrdup(pi);
    if (!json_is_object(c)) { LERR(L, pi, "a case is an object"); free(pw); free(pb); return; }
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
    free(pw);
    free(pb);
}

static void load_switch(loader *L, spec *s, json_t *o, const char *jp, item *it)
{
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
            char *pi = jp_idx(pc, i);
            load_case(L, s, json_array_get(cases, i), pi, &it->cases[it->ncases++]);
            free(pi);
        }
        free(pc);
    }
}

static void load_textval(loader *L, spec *s, json_t *o, const char *jp, item *it)
{
    (void)s;
    check_keys(L, o, jp, TEXTVAL_KEYS);
    it->kind = IT_TEXTVAL;
    it->name = get_str(L, o, "text_value", jp, 1);
    it->textval.grammar = get_str(L, o, "grammar", jp, 1);
    if (it->textval.grammar && strcmp(it->textval.grammar, "futhark") != 0)
        LERR(L, jp, "unknown grammar '%s' (the runtime has: futhark)", it->textval.grammar);
}

static void load_pad(loader *L, spec *s, json_t *o, const char *jp, item *it)
{
    json_t *fill;
    (void)s;
    check_keys(L, o, jp, PAD_KEYS);
    it->kind = IT_PAD;
    it->name = get_str(L, o, "pad", jp, 1);
    it->arg = get_expr(L, o, "size", jp, &it->arg_text);
    if (!it->arg) LERR(L, jp, "a pad needs \"size\"");
    fill = json_object_get(o, "fill");
    if (fill && !(json_is_integer(fill) && json_integer_value(fill) == 0))
        LERR(L, jp, "\"fill\" can only be 0");
    it->pad.fill_lenient = get_lenient(L, o, "lenient", jp);
}

/* {"byte_order": EXPR}: from here on, fields and payloads whose type
 * names no byte order are big-endian when EXPR holds, else little-endian
 * (spec/LANGUAGE.md, "Byte order chosen at run time").  One, in the
 * top-level body (load.c checks where it stands). */
static void load_byte_order(loader *L, spec *s, json_t *o, const char *jp, item *it)
{
    (void)s;
    check_keys(L, o, jp, BYTE_ORDER_KEYS);
    it->kind = IT_BYTE_ORDER;
    it->arg = get_expr(L, o, "byte_order", jp, &it->arg_text);
    if (!it->arg) LERR(L, jp, "\"byte_order\" is a truth expression: true for big-endian");
}

typedef void item_loader(loader *L, spec *s, json_t *o, const char *jp, item *it);

/* An item's kind is the key that names it.  Order matters: a text header
 * has keys ("pad", "types") of other kinds, and "field" also names the
 * field a lookup or check concerns (a field item has "type" too). */
static const struct {
    const char *key, *also;
    item_loader *load;
} ITEM_KINDS[] = {
    {"text_header", NULL, load_texthdr_item},
    {"cards", "units", load_cards_item},
    {"archive", "members", load_archive_item},
    {"field", "type", load_field},
    {"let", NULL, load_let},
    {"lookup", NULL, load_lookup},
    {"check", NULL, load_check_item},
    {"array", NULL, load_array},
    {"repeat", NULL, load_repeat},
    {"region", NULL, load_region},
    {"switch", NULL, load_switch},
    {"text_value", NULL, load_textval},
    {"pad", NULL, load_pad},
    {"struct", NULL, load_struct_use},
    {"var", NULL, load_var},
    {"set", NULL, load_set},
    {"directory", NULL, load_directory},
    {"byte_order", NULL, load_byte_order},
};

static void load_item(loader *L, spec *s, json_t *o, const char *jp, item *it)
{
    size_t k;
    json_t *d;
    it->jpath = xstrdup(jp);
    if (!json_is_object(o)) { LERR(L, jp, "an item is an object"); return; }
    d = json_object_get(o, "doc");
    if (d && json_is_string(d)) it->doc = xstrdup(json_string_value(d));
    for (k = 0; k < sizeof ITEM_KINDS / sizeof ITEM_KINDS[0]; k++)
        if (json_object_get(o, ITEM_KINDS[k].key) && (!ITEM_KINDS[k].also || json_object_get(o, ITEM_KINDS[k].also)))
            break;
    if (k == sizeof ITEM_KINDS / sizeof ITEM_KINDS[0]) {
        LERR(L, jp, "unknown item: expected one of field, let, var, set, lookup, check, array, repeat, region, switch, pad, struct, directory, text_value, text_header, archive, cards");
        return;
    }
    ITEM_KINDS[k].load(L, s, o, jp, it);
    if (it->name && !valid_name(it->name)) LERR(L, jp, "'%s' is not a valid name", it->name);
    else if (it->name && (strcmp(it->name, "true") == 0 || strcmp(it->name, "false") == 0 || strcmp(it->name, "limits") == 0))
        LERR(L, jp, "'%s' is a word of the expression language: expressions could not name this item", it->name);
    else if (it->name && strlen(it->name) > SPEC_NAME_MAX)
        LERR(L, jp, "a name has at most %d characters (this one has %zu)", SPEC_NAME_MAX, strlen(it->name));
}

/* A directory's records come from a repeat before it in its own body: the
 * generated code keeps them in a list declared with that repeat. */
static int earlier_repeat(const item_list *before, const char *name)
{
    int i;
    for (i = 0; i < before->n; i++)
        if (before->v[i]->kind == IT_REPEAT && before->v[i]->name && strcmp(before->v[i]->name, name) == 0) return 1;
    return 0;
}

/* Whether e reads name. */
static int reads_name(const expr *e, const char *name)
{
    int i;
    if (!e) return 0;
    if (e->kind == E_NAME && e->sval && strcmp(e->sval, name) == 0) return 1;
    if (reads_name(e->a, name) || reads_name(e->b, name) || reads_name(e->c, name)) return 1;
    for (i = 0; i < e->nargs; i++)
        if (reads_name(e->args[i], name)) return 1;
    return 0;
}

/* A "set" in items[0..n) (their bodies and cases too) of a var align
 * reads, or NULL.  Named structures need no look: they see no var of
 * their callers. */
static const item *set_of(item *const *items, int n, const expr *align)
{
    int i, j;
    for (i = 0; i < n; i++) {
        const item *it = items[i], *found = NULL;
        if (it->kind == IT_SET && it->attribute && reads_name(align, it->attribute)) return it;
        found = set_of(it->body.v, it->body.n, align);
        for (j = 0; !found && j < it->ncases; j++) found = set_of(it->cases[j].body.v, it->cases[j].body.n, align);
        if (found) return found;
    }
    return NULL;
}

/* A directory's "align" is read by the validator at the directory and by
 * the writer where its records start (their offsets need it): nothing
 * from the records to the directory may set what it reads, else the
 * writer's files would be refused.  d is the directory after out's items. */
static void align_unchanged(loader *L, const item_list *out, const item *d, const char *jp)
{
    const item *set;
    int i;
    for (i = out->n - 1; i >= 0; i--)
        if (out->v[i]->kind == IT_REPEAT && out->v[i]->name && strcmp(out->v[i]->name, d->dir.records) == 0) break;
    if (i < 0 || !(set = set_of(out->v + i, out->n - i, d->arg))) return;
    LERR(L, jp, "directory '%s': its \"align\" (%s) reads '%s', which %s sets after its records start: the records' "
         "offsets and the directory would be aligned differently", d->name ? d->name : "", d->arg_text ? d->arg_text : "",
         set->attribute, set->jpath ? set->jpath : "an item");
}

void load_items(loader *L, spec *s, json_t *arr, const char *jp, item_list *out)
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
        if (it->kind == IT_DIRECTORY && it->dir.records && !earlier_repeat(out, it->dir.records))
            LERR(L, p, "directory '%s': \"records\" names no repeat '%s' earlier in the same body", it->name ? it->name : "",
                 it->dir.records);
        else if (it->kind == IT_DIRECTORY && it->dir.records)
            align_unchanged(L, out, it, p);
        out->v[out->n++] = it;
        free(p);
    }
}
