/* afmt-gen: reading JSON values into the spec model (gen/load.h):
 * names, strings, expressions, literals, checks, integer types. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "load.h"
#include "util.h"

void spec_error(const char *path, const char *jpath, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: %s: ", path, jpath && *jpath ? jpath : "/");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

char *jp_key(const char *base, const char *key) { return xprintf("%s/%s", base, key); }
char *jp_idx(const char *base, size_t i) { return xprintf("%s/%zu", base, i); }

void check_keys(loader *L, json_t *obj, const char *jp, const char *const *allowed)
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

char *get_str(loader *L, json_t *obj, const char *key, const char *jp, int required)
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

expr *parse_text(loader *L, const char *text, const char *jp)
{
    char msg[256];
    expr *e = expr_parse(text, msg, sizeof msg);
    if (!e) LERR(L, jp, "bad expression \"%s\": %s", text, msg);
    return e;
}

/* An expression may be written as a JSON string, or as a plain integer. */
expr *get_expr(loader *L, json_t *obj, const char *key, const char *jp, char **text_out)
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
expr *literal(loader *L, json_t *v, const char *jp)
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

leniency get_lenient(loader *L, json_t *obj, const char *key, const char *jp)
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

/* A check's "lenient": also "note", a failure that is a note in both modes
 * (what nifti1.h says "should" be, not "must"). */
leniency get_check_lenient(loader *L, json_t *obj, const char *key, const char *jp)
{
    json_t *v = json_object_get(obj, key);
    if (json_is_string(v) && strcmp(json_string_value(v), "note") == 0) return LEN_NOTE;
    if (v && !(json_is_string(v) && (strcmp(json_string_value(v), "warn") == 0 ||
                                     strcmp(json_string_value(v), "reject") == 0))) {
        char *p = jp_key(jp, key);
        LERR(L, p, "must be \"warn\", \"reject\" or \"note\"");
        free(p);
        return LEN_NONE;
    }
    return get_lenient(L, obj, key, jp);
}

static const char *const CHECK_KEYS[] = {"expr", "message", "code", "lenient", NULL};

/* The error codes a spec may name (runtime/common/afmt_error.h). */
void check_code(loader *L, const char *code, const char *jp)
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
    c->lenient = get_check_lenient(L, v, "lenient", jp);
}

/* "check": "expr" | {...} | [ "expr" | {...}, ... ] */
void load_checks(loader *L, json_t *obj, const char *key, const char *jp, check **out, int *n)
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

int parse_int_type(const char *t, field_item *f, int default_big)
{
    size_t n = strlen(t);
    int bits;
    char *end;
    if (n < 2 || (t[0] != 'u' && t[0] != 'i')) return 0;
    f->is_signed = t[0] == 'i';
    bits = (int)strtol(t + 1, &end, 10);
    if (bits != 8 && bits != 16 && bits != 32 && bits != 64) return 0;
    f->width = bits / 8;
    f->big_endian = default_big;
    f->order_explicit = *end != 0;
    if (*end == 0) return 1;
    if (strcmp(end, "le") == 0) { f->big_endian = 0; return 1; }
    if (strcmp(end, "be") == 0) { f->big_endian = 1; return 1; }
    return 0;
}

int parse_float_type(const char *t, field_item *f, int default_big)
{
    const char *end;
    if (strncmp(t, "f32", 3) == 0) f->width = 4;
    else if (strncmp(t, "f64", 3) == 0) f->width = 8;
    else return 0;
    end = t + 3;
    f->is_signed = 1;
    f->big_endian = default_big;
    f->order_explicit = *end != 0;
    if (*end == 0) return 1;
    if (strcmp(end, "le") == 0) { f->big_endian = 0; return 1; }
    if (strcmp(end, "be") == 0) { f->big_endian = 1; return 1; }
    return 0;
}

int valid_name(const char *n)
{
    const char *c;
    if (!n || !*n || !((*n >= 'a' && *n <= 'z') || (*n >= 'A' && *n <= 'Z') || *n == '_')) return 0;
    for (c = n; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_'))
            return 0;
    return 1;
}
