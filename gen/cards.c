/* afmt-gen: the "cards" item: loading (structure and meaning of its keys)
 * into a runtime afmt_cards_desc, and its emission as constant data with
 * the validator's call.  See cards.h. */
#include "cards.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "text/afmt_cards.h"
#include "common/afmt_dtype.h"
#include "emit.h"
#include "load.h"
#include "spec.h"
#include "util.h"

static const char *const CARDS_KEYS[] = {"cards", "record", "block", "fill", "data_fill", "bytes", "key", "indicator",
                                         "commentary", "end", "continue", "fixed", "endian", "order", "types",
                                         "conventions", "keys", "units", "doc", NULL};
static const char *const KEYFIELD_KEYS[] = {"width", "chars", "doc", NULL};
static const char *const FIXED_KEYS[] = {"end", "string", "doc", NULL};
static const char *const RULE_KEYS[] = {"key", "run", "type", "bind", "fixed", "min", "max", "equals",
                                        "refuse_value", "integer_data", "refuse", "message", "doc", NULL};
static const char *const UNIT_KEYS[] = {"unit", "first", "select", "skip", "required", "optional", "doc", NULL};
static const char *const TYPE_KEYS[] = {"value", "dtype", "doc", NULL};
static const char *const CONV_KEYS[] = {"type", "zero", "scale", "logical", "doc", NULL};

static const char *const VT_NAMES[] = {"any", "int", "number", "string", "logical", "complex", NULL};
static const char *const ROLE_NAMES[] = {"", "type", "rank", "axes", "extra", "groups", "name", "scale", "zero", NULL};
static const char *const VT_ENUMS[] = {"AFMT_CV_ANY", "AFMT_CV_INT", "AFMT_CV_REAL", "AFMT_CV_STRING",
                                       "AFMT_CV_LOGICAL", "AFMT_CV_COMPLEX"};
static const char *const ROLE_ENUMS[] = {"AFMT_CR_NONE", "AFMT_CR_TYPE", "AFMT_CR_RANK", "AFMT_CR_AXES",
                                         "AFMT_CR_EXTRA", "AFMT_CR_GROUPS", "AFMT_CR_NAME", "AFMT_CR_SCALE",
                                         "AFMT_CR_ZERO"};
static const char *const REFUSE_ENUMS[] = {"AFMT_CRF_NO", "AFMT_CRF_ALWAYS", "AFMT_CRF_STRICT"};

static int name_index(const char *const *names, const char *s)
{
    int i;
    for (i = 0; names[i]; i++)
        if (strcmp(names[i], s) == 0) return i;
    return -1;
}

static uint64_t uint_at(loader *L, json_t *o, const char *key, const char *jp, uint64_t dflt, uint64_t max)
{
    json_t *v = json_object_get(o, key);
    if (!v) return dflt;
    if (!json_is_integer(v) || json_integer_value(v) < 0 || (uint64_t)json_integer_value(v) > max) {
        char *p = jp_key(jp, key);
        LERR(L, p, "must be an integer from 0 to %llu", (unsigned long long)max);
        free(p);
        return dflt;
    }
    return (uint64_t)json_integer_value(v);
}

static const char *str_at(loader *L, json_t *o, const char *key, const char *jp)
{
    json_t *v = json_object_get(o, key);
    if (!v) return NULL;
    if (!json_is_string(v)) {
        char *p = jp_key(jp, key);
        LERR(L, p, "must be a string");
        free(p);
        return NULL;
    }
    return json_string_value(v);
}

static int bool_at(loader *L, json_t *o, const char *key, const char *jp)
{
    json_t *v = json_object_get(o, key);
    if (!v) return 0;
    if (!json_is_boolean(v)) {
        char *p = jp_key(jp, key);
        LERR(L, p, "must be true or false");
        free(p);
        return 0;
    }
    return json_is_true(v);
}

static int byte_at(loader *L, json_t *o, const char *key, const char *jp, int dflt)
{
    json_t *v = json_object_get(o, key);
    if (!v) return dflt;
    if (json_is_integer(v) && json_integer_value(v) >= 0 && json_integer_value(v) <= 255)
        return (int)json_integer_value(v);
    if (json_is_string(v) && strlen(json_string_value(v)) == 1 && (unsigned char)json_string_value(v)[0] < 0x80)
        return (unsigned char)json_string_value(v)[0];
    {
        char *p = jp_key(jp, key);
        LERR(L, p, "must be one ASCII character or a byte value 0 to 255");
        free(p);
    }
    return dflt;
}

/* "A-Z0-9_-": ranges a-b, other bytes as they are. */
static char *expand_chars(loader *L, const char *s, const char *jp)
{
    char *out = xcalloc(257, 1);
    size_t n = 0, i;
    for (i = 0; s[i]; i++) {
        unsigned char a = (unsigned char)s[i];
        if (s[i + 1] == '-' && s[i + 2]) {
            unsigned char b = (unsigned char)s[i + 2], k;
            if (b < a) LERR(L, jp, "the range %c-%c is empty", a, b);
            for (k = a; k <= b && n < 256; k++) {
                if (k != ' ' && !memchr(out, k, n)) out[n++] = (char)k;
                if (k == 255) break;
            }
            i += 2;
        } else if (a != ' ' && !memchr(out, a, n) && n < 256) {
            out[n++] = (char)a;
        }
    }
    if (!n) LERR(L, jp, "a key needs at least one byte it may hold");
    return out;
}

typedef struct keysets {
    json_t *obj; /* "keys": name -> list of rules */
} keysets;

/* One rule at jp into *k; rank_seen tells whether a rank came before. */
static void load_rule(loader *L, const afmt_cards_desc *d, json_t *o, const char *jp, afmt_cards_key *k,
                      int required, int *rank_seen)
{
    const char *s;
    json_t *v;
    int i;
    memset(k, 0, sizeof *k);
    k->logical = -1;
    k->refuse_logical = -1;
    if (!json_is_object(o)) { LERR(L, jp, "a key rule is an object {\"key\": ...}"); return; }
    check_keys(L, o, jp, RULE_KEYS);
    s = str_at(L, o, "key", jp);
    if (!s) { LERR(L, jp, "a key rule needs \"key\""); s = "?"; }
    k->key = xstrdup(s);
    if (strlen(s) > d->key_width) LERR(L, jp, "key '%s' is longer than the key field (%u bytes)", s, d->key_width);
    for (i = 0; s[i]; i++)
        if (d->key_chars && !strchr(d->key_chars, s[i])) {
            LERR(L, jp, "key '%s' holds '%c', which \"chars\" does not allow", s, s[i]);
            break;
        }
    k->run = bool_at(L, o, "run", jp);
    if (k->run && !required) LERR(L, jp, "a run (\"run\": true) is a list of required keys");
    if (k->run && !*rank_seen) LERR(L, jp, "the run %s has no count: bind an earlier required key to \"rank\"", s);
    s = str_at(L, o, "type", jp);
    if (s) {
        i = name_index(VT_NAMES, s);
        if (i < 0) LERR(L, jp, "unknown value type '%s' (any, int, number, string, logical, complex)", s);
        else k->type = (afmt_cards_vt)i;
    }
    s = str_at(L, o, "bind", jp);
    if (s) {
        i = name_index(ROLE_NAMES, s);
        if (i <= 0) {
            LERR(L, jp, "unknown bind '%s' (type, rank, axes, extra, groups, name, scale, zero)", s);
        } else {
            k->role = (afmt_cards_role)i;
            if ((k->role == AFMT_CR_TYPE || k->role == AFMT_CR_RANK || k->role == AFMT_CR_AXES ||
                 k->role == AFMT_CR_EXTRA || k->role == AFMT_CR_GROUPS) && k->type != AFMT_CV_INT)
                LERR(L, jp, "bind \"%s\" needs \"type\": \"int\"", s);
            if (k->role == AFMT_CR_NAME && k->type != AFMT_CV_STRING) LERR(L, jp, "bind \"name\" needs \"type\": \"string\"");
            if ((k->role == AFMT_CR_SCALE || k->role == AFMT_CR_ZERO) && k->type != AFMT_CV_REAL)
                LERR(L, jp, "bind \"%s\" needs \"type\": \"number\"", s);
            if ((k->role == AFMT_CR_AXES) != k->run) LERR(L, jp, "bind \"axes\" is the run's, and only the run's");
            if (k->role == AFMT_CR_RANK) *rank_seen = 1;
            if ((k->role == AFMT_CR_RANK || k->role == AFMT_CR_AXES || k->role == AFMT_CR_TYPE) && !required)
                LERR(L, jp, "bind \"%s\" is for a required key", s);
        }
    }
    k->fixed = bool_at(L, o, "fixed", jp);
    if ((v = json_object_get(o, "min"))) {
        if (!json_is_integer(v)) LERR(L, jp, "\"min\" is an integer");
        k->has_min = 1;
        k->min = json_integer_value(v);
    }
    if ((v = json_object_get(o, "max"))) {
        if (!json_is_integer(v)) LERR(L, jp, "\"max\" is an integer");
        k->has_max = 1;
        k->max = json_integer_value(v);
    }
    if ((v = json_object_get(o, "equals"))) {
        if (json_is_boolean(v) && k->type == AFMT_CV_LOGICAL) {
            k->logical = json_is_true(v);
        } else if (json_is_integer(v) && k->type == AFMT_CV_INT) {
            /* "equals" narrows the range to one value: one outside "min"
             * and "max" would silently lift them, so no value fits */
            const json_int_t e = json_integer_value(v);
            if ((k->has_min && e < k->min) || (k->has_max && e > k->max))
                LERR(L, jp, "\"equals\" %lld is outside \"min\" and \"max\": no value fits", (long long)e);
            k->has_min = k->has_max = 1;
            k->min = k->max = e;
        } else if (json_is_string(v) && k->type == AFMT_CV_STRING) {
            k->string = xstrdup(json_string_value(v));
        } else {
            LERR(L, jp, "\"equals\" is a value of the key's \"type\" (logical, int or string)");
        }
    }
    if (k->has_min && k->has_max && k->min > k->max) LERR(L, jp, "\"min\" is above \"max\": no value fits");
    if ((v = json_object_get(o, "refuse_value"))) {
        if (!json_is_boolean(v) || k->type != AFMT_CV_LOGICAL) LERR(L, jp, "\"refuse_value\" is true or false, of a logical key");
        else k->refuse_logical = json_is_true(v);
        if (k->logical >= 0 && k->refuse_logical == k->logical)
            LERR(L, jp, "\"refuse_value\" refuses the value \"equals\" requires: no value fits");
    }
    k->int_types_only = bool_at(L, o, "integer_data", jp);
    s = str_at(L, o, "refuse", jp);
    if (s) {
        if (strcmp(s, "always") == 0) k->refuse = AFMT_CRF_ALWAYS;
        else if (strcmp(s, "strict") == 0) k->refuse = AFMT_CRF_STRICT;
        else LERR(L, jp, "\"refuse\" is \"always\" or \"strict\"");
        if (required) LERR(L, jp, "a required key cannot be refused");
    }
    s = str_at(L, o, "message", jp);
    if (s) k->message = xstrdup(s);
}

/* A list of rules, a string naming a list of "keys" spliced in. */
static afmt_cards_key *load_rules(loader *L, const afmt_cards_desc *d, json_t *keys, json_t *list, const char *jp,
                                  const char *item_jp, int required, size_t *n)
{
    size_t i, j, cap = 0, cnt = 0;
    afmt_cards_key *out;
    int rank_seen = 0;
    *n = 0;
    if (!json_is_array(list)) { LERR(L, jp, "a list of key rules"); return NULL; }
    for (i = 0; i < json_array_size(list); i++) {
        json_t *e = json_array_get(list, i);
        json_t *g = json_is_string(e) && keys ? json_object_get(keys, json_string_value(e)) : NULL;
        cap += json_is_string(e) ? (g && json_is_array(g) ? json_array_size(g) : 0) : 1;
    }
    out = xcalloc(cap + 1, sizeof *out);
    for (i = 0; i < json_array_size(list); i++) {
        json_t *e = json_array_get(list, i);
        char *p = jp_idx(jp, i);
        if (json_is_string(e)) {
            json_t *g = keys ? json_object_get(keys, json_string_value(e)) : NULL;
            if (!g || !json_is_array(g)) {
                LERR(L, p, "no list '%s' in \"keys\"", json_string_value(e));
            } else {
                for (j = 0; j < json_array_size(g); j++) {
                    char *q = xprintf("%s/keys/%s/%zu", item_jp, json_string_value(e), j);
                    load_rule(L, d, json_array_get(g, j), q, &out[cnt++], required, &rank_seen);
                    free(q);
                }
            }
        } else {
            load_rule(L, d, e, p, &out[cnt++], required, &rank_seen);
        }
        free(p);
    }
    *n = cnt;
    return out;
}

static void load_units(loader *L, afmt_cards_desc *d, json_t *keys, json_t *units, const char *jp,
                       const char *item_jp)
{
    size_t i, j, nfirst = 0, nfallback = 0;
    afmt_cards_unit *u;
    if (!json_is_array(units) || json_array_size(units) == 0) {
        LERR(L, jp, "\"units\" is a non-empty list of units");
        return;
    }
    u = xcalloc(json_array_size(units), sizeof *u);
    for (i = 0; i < json_array_size(units); i++) {
        json_t *o = json_array_get(units, i);
        char *p = jp_idx(jp, i), *q;
        const char *s;
        if (!json_is_object(o)) { LERR(L, p, "a unit is an object"); free(p); continue; }
        check_keys(L, o, p, UNIT_KEYS);
        s = str_at(L, o, "unit", p);
        if (!s || !valid_name(s)) LERR(L, p, "a unit needs \"unit\": a name");
        u[i].name = xstrdup(s ? s : "?");
        u[i].first = bool_at(L, o, "first", p);
        s = str_at(L, o, "select", p);
        u[i].select = s ? xstrdup(s) : NULL;
        u[i].skip = bool_at(L, o, "skip", p);
        if (u[i].first) nfirst++;
        else if (!u[i].select) nfallback++;
        if (u[i].first && (u[i].select || u[i].skip)) LERR(L, p, "the first unit is neither selected nor skipped");
        if (!json_object_get(o, "required")) LERR(L, p, "a unit needs \"required\" keys");
        else {
            q = jp_key(p, "required");
            u[i].required = load_rules(L, d, keys, json_object_get(o, "required"), q, item_jp, 1,
                                         &u[i].nrequired);
            if (u[i].nrequired == 0) LERR(L, q, "a unit starts with a required key");
            else if (u[i].required[0].run) LERR(L, q, "a unit starts with one key, not a run");
            free(q);
        }
        if (json_object_get(o, "optional")) {
            q = jp_key(p, "optional");
            u[i].optional = load_rules(L, d, keys, json_object_get(o, "optional"), q, item_jp, 0,
                                         &u[i].noptional);
            free(q);
        }
        free(p);
    }
    d->units = u;
    d->nunits = json_array_size(units);
    if (nfirst != 1) LERR(L, jp, "\"units\" needs exactly one unit with \"first\": true (it has %zu)", nfirst);
    if (nfallback > 1) LERR(L, jp, "at most one unit after the first has no \"select\"");
    for (i = 0; i < d->nunits; i++) {
        if (u[i].first || !u[i].nrequired) continue;
        for (j = 0; j < d->nunits; j++)
            if (!u[j].first && u[j].nrequired && strcmp(u[j].required[0].key, u[i].required[0].key) != 0) {
                char *p = jp_idx(jp, j);
                LERR(L, p, "the units after the first start with one key (%s), told apart by \"select\"",
                     u[i].required[0].key);
                free(p);
                return;
            }
        if (u[i].select && u[i].required[0].type != AFMT_CV_STRING) {
            char *p = jp_idx(jp, i);
            LERR(L, p, "\"select\" compares the string value of the first key: make it \"type\": \"string\"");
            free(p);
        }
    }
}

afmt_cards_desc *cards_load(const char *path, void *obj, const char *jp, int *errors)
{
    loader L = {path, 0};
    json_t *o = obj, *v, *keys;
    afmt_cards_desc *d = xcalloc(1, sizeof *d);
    const char *s;
    char *p;
    size_t i;
    check_keys(&L, o, jp, CARDS_KEYS);
    d->record = (uint32_t)uint_at(&L, o, "record", jp, 80, 4096);
    d->block = uint_at(&L, o, "block", jp, d->record, UINT32_MAX);
    d->fill = byte_at(&L, o, "fill", jp, ' ');
    d->data_fill = byte_at(&L, o, "data_fill", jp, 0);
    d->byte_min = 32;
    d->byte_max = 126;
    if ((v = json_object_get(o, "bytes"))) {
        if (!json_is_array(v) || json_array_size(v) != 2 || !json_is_integer(json_array_get(v, 0)) ||
            !json_is_integer(json_array_get(v, 1)) || json_integer_value(json_array_get(v, 0)) < 0 ||
            json_integer_value(json_array_get(v, 1)) > 255 ||
            json_integer_value(json_array_get(v, 0)) > json_integer_value(json_array_get(v, 1))) {
            p = jp_key(jp, "bytes");
            LERR(&L, p, "\"bytes\" is [lowest, highest], bytes 0 to 255");
            free(p);
        } else {
            d->byte_min = (int)json_integer_value(json_array_get(v, 0));
            d->byte_max = (int)json_integer_value(json_array_get(v, 1));
            if (d->byte_min > ' ' || d->byte_max < ' ') {
                p = jp_key(jp, "bytes");
                LERR(&L, p, "\"bytes\" [%d, %d] leaves out the space (32), which fills every key and record",
                     d->byte_min, d->byte_max);
                free(p);
            }
        }
    }
    d->key_width = 8;
    d->key_chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_";
    if ((v = json_object_get(o, "key"))) {
        p = jp_key(jp, "key");
        if (!json_is_object(v)) LERR(&L, p, "\"key\" is {\"width\", \"chars\"}");
        else {
            check_keys(&L, v, p, KEYFIELD_KEYS);
            d->key_width = (uint32_t)uint_at(&L, v, "width", p, 8, 64);
            if ((s = str_at(&L, v, "chars", p))) d->key_chars = expand_chars(&L, s, p);
        }
        free(p);
    }
    s = str_at(&L, o, "indicator", jp);
    d->indicator = xstrdup(s ? s : "= ");
    if (!d->indicator[0]) LERR(&L, jp, "\"indicator\" is not empty");
    if (d->key_width + strlen(d->indicator) >= d->record)
        LERR(&L, jp, "\"record\" %u leaves no room for a value after the key and the indicator", d->record);
    if (d->block == 0 || d->block % d->record != 0)
        LERR(&L, jp, "\"block\" %llu is not a multiple of \"record\" %u", (unsigned long long)d->block, d->record);
    if ((v = json_object_get(o, "commentary"))) {
        const char **c = xcalloc(json_array_size(v) + 1, sizeof *c);
        p = jp_key(jp, "commentary");
        if (!json_is_array(v)) LERR(&L, p, "\"commentary\" is a list of keys");
        for (i = 0; json_is_array(v) && i < json_array_size(v); i++) {
            json_t *e = json_array_get(v, i);
            if (!json_is_string(e) || strlen(json_string_value(e)) > d->key_width) LERR(&L, p, "a key of at most %u bytes", d->key_width);
            else c[d->ncommentary++] = xstrdup(json_string_value(e));
        }
        d->commentary = c;
        free(p);
    }
    s = str_at(&L, o, "end", jp);
    if (!s || !*s || strlen(s) > d->key_width)
        LERR(&L, jp, "a cards item needs \"end\": the key of the terminator record, at most the key's width");
    d->end = xstrdup(s ? s : "END");
    s = str_at(&L, o, "continue", jp);
    d->cont = s ? xstrdup(s) : NULL;
    if ((v = json_object_get(o, "fixed"))) {
        p = jp_key(jp, "fixed");
        if (!json_is_object(v)) LERR(&L, p, "\"fixed\" is {\"end\", \"string\"}");
        else {
            check_keys(&L, v, p, FIXED_KEYS);
            d->fixed_end = (uint32_t)uint_at(&L, v, "end", p, 0, d->record);
            d->fixed_string = (uint32_t)uint_at(&L, v, "string", p, 0, d->record);
            if (d->fixed_end && d->fixed_end <= d->key_width + strlen(d->indicator))
                LERR(&L, p, "\"end\" %u is inside the key and the indicator", d->fixed_end);
        }
        free(p);
    }
    s = str_at(&L, o, "endian", jp);
    d->endian = s && strcmp(s, "big") == 0 ? AFMT_BIG : AFMT_LITTLE;
    if (s && strcmp(s, "big") != 0 && strcmp(s, "little") != 0) LERR(&L, jp, "\"endian\" is \"little\" or \"big\"");
    s = str_at(&L, o, "order", jp);
    d->order = s && strcmp(s, "column-major") == 0 ? AFMT_COL_MAJOR : AFMT_ROW_MAJOR;
    if (s && strcmp(s, "column-major") != 0 && strcmp(s, "row-major") != 0)
        LERR(&L, jp, "\"order\" is \"row-major\" or \"column-major\"");
    v = json_object_get(o, "types");
    p = jp_key(jp, "types");
    if (!v || !json_is_array(v) || json_array_size(v) == 0) {
        LERR(&L, jp, "a cards item needs \"types\": a list of {\"value\", \"dtype\"}");
    } else {
        afmt_cards_type *t = xcalloc(json_array_size(v), sizeof *t);
        for (i = 0; i < json_array_size(v); i++) {
            json_t *e = json_array_get(v, i);
            char *q = jp_idx(p, i);
            if (!json_is_object(e) || !json_is_integer(json_object_get(e, "value"))) {
                LERR(&L, q, "a type is {\"value\": integer, \"dtype\": name}");
            } else {
                check_keys(&L, e, q, TYPE_KEYS);
                t[i].value = json_integer_value(json_object_get(e, "value"));
                s = str_at(&L, e, "dtype", q);
                t[i].dtype = afmt_dtype_from_name(s);
                if (t[i].dtype == AFMT_DTYPE_INVALID || t[i].dtype == AFMT_OPAQUE)
                    LERR(&L, q, "unknown dtype '%s'", s ? s : "");
            }
            free(q);
        }
        d->types = t;
        d->ntypes = json_array_size(v);
    }
    free(p);
    if ((v = json_object_get(o, "conventions"))) {
        afmt_cards_conv *cv = xcalloc(json_array_size(v) + 1, sizeof *cv);
        p = jp_key(jp, "conventions");
        if (!json_is_array(v)) LERR(&L, p, "a list of {\"type\", \"zero\", \"scale\", \"logical\"}");
        for (i = 0; json_is_array(v) && i < json_array_size(v); i++) {
            json_t *e = json_array_get(v, i);
            char *q = jp_idx(p, i);
            if (!json_is_object(e) || !json_is_integer(json_object_get(e, "type")) || !str_at(&L, e, "zero", q)) {
                LERR(&L, q, "a convention is {\"type\": integer, \"zero\": number text, \"logical\": dtype}");
            } else {
                check_keys(&L, e, q, CONV_KEYS);
                cv[i].type = json_integer_value(json_object_get(e, "type"));
                cv[i].zero = xstrdup(str_at(&L, e, "zero", q));
                s = str_at(&L, e, "scale", q);
                cv[i].scale = s ? xstrdup(s) : NULL;
                s = str_at(&L, e, "logical", q);
                cv[i].logical = afmt_dtype_from_name(s);
                if (cv[i].logical == AFMT_DTYPE_INVALID) LERR(&L, q, "unknown dtype '%s'", s ? s : "");
            }
            free(q);
        }
        d->convs = cv;
        d->nconvs = json_is_array(v) ? json_array_size(v) : 0;
        free(p);
    }
    keys = json_object_get(o, "keys");
    if (keys && !json_is_object(keys)) {
        p = jp_key(jp, "keys");
        LERR(&L, p, "\"keys\" names lists of key rules: {\"name\": [...]}");
        free(p);
        keys = NULL;
    }
    p = jp_key(jp, "units");
    if (!json_object_get(o, "units")) LERR(&L, jp, "a cards item needs \"units\"");
    else load_units(&L, d, keys, json_object_get(o, "units"), p, jp);
    free(p);
    *errors += L.errors;
    return d;
}

/* ------------------------------------------------------------ emission */

static char *q_or_null(const char *s) { return s ? c_quote(s, strlen(s)) : xstrdup("NULL"); }

/* Member text into the row being packed: lines of at most 100 columns,
 * the row's first after "    {", the others after "     ". */
static void put_member(sbuf *o, size_t *col, const char *text, int first)
{
    const size_t n = strlen(text);
    if (first) {
        sb_printf(o, "    {%s", text);
        *col = 5 + n;
    } else if (*col + 2 + n + 2 > 100) {
        sb_printf(o, ",\n     %s", text);
        *col = 5 + n;
    } else {
        sb_printf(o, ", %s", text);
        *col += 2 + n;
    }
}

/* ".name = "text"" (malloc'd) */
static char *quoted_member(const char *name, const char *text)
{
    char *q = q_or_null(text), *r = xprintf(".%s = %s", name, q);
    free(q);
    return r;
}

/* A rule's members that are not 0 (the rest are 0 in C's initializer):
 * rows that differ in a member or two read as such. */
static void emit_rule(sbuf *o, const afmt_cards_key *k)
{
    char *m[14];
    int nm = 0, i;
    size_t col = 0;
    m[nm++] = quoted_member("key", k->key);
    if (k->run) m[nm++] = xprintf(".run = %d", k->run);
    if (k->type) m[nm++] = xprintf(".type = %s", VT_ENUMS[k->type]);
    if (k->role) m[nm++] = xprintf(".role = %s", ROLE_ENUMS[k->role]);
    if (k->fixed) m[nm++] = xprintf(".fixed = %d", k->fixed);
    if (k->has_min) m[nm++] = xprintf(".has_min = 1, .min = INT64_C(%lld)", (long long)k->min);
    if (k->has_max) m[nm++] = xprintf(".has_max = 1, .max = INT64_C(%lld)", (long long)k->max);
    if (k->logical) m[nm++] = xprintf(".logical = %d", k->logical);
    if (k->refuse_logical) m[nm++] = xprintf(".refuse_logical = %d", k->refuse_logical);
    if (k->string) m[nm++] = quoted_member("string", k->string);
    if (k->int_types_only) m[nm++] = xprintf(".int_types_only = %d", k->int_types_only);
    if (k->refuse) m[nm++] = xprintf(".refuse = %s", REFUSE_ENUMS[k->refuse]);
    if (k->message) m[nm++] = quoted_member("message", k->message);
    for (i = 0; i < nm; i++) {
        put_member(o, &col, m[i], i == 0);
        free(m[i]);
    }
    sb_puts(o, "},\n");
}

static void emit_rules(sbuf *o, const char *name, const afmt_cards_key *k, size_t n)
{
    size_t i;
    sb_printf(o, "static const afmt_cards_key %s[] = {\n", name);
    for (i = 0; i < n; i++) emit_rule(o, &k[i]);
    if (!n) sb_printf(o, "    {0},\n");
    sb_printf(o, "};\n");
}

/* The descriptor in the prelude (once per emitter), named into cname;
 * 0, or -1 after a generator error. */
static int emit_desc(emitter *m, item *it, char *cname, size_t cap)
{
    const afmt_cards_desc *d = it->cards;
    sbuf *o = m->prelude;
    size_t i;
    char *q;
    int top = 0, n = 0;
    if (!d) return -1;
    for (i = 0; i < (size_t)m->s->body.n; i++)
        if (m->s->body.v[i]->kind == IT_CARDS) {
            n++;
            top |= m->s->body.v[i] == it;
        }
    if (!top) {
        gen_error(m, it->jpath, "a cards item reads the units to the end of the input: it belongs at the top level of the body");
        return -1;
    }
    if (n > 1) {
        gen_error(m, it->jpath, "a spec holds one cards item (it has %d)", n);
        return -1;
    }
    snprintf(cname, cap, "%s_%s", m->s->format, it->name);
    {
        char *what = xprintf("the cards item at %s", it->jpath);
        const char *stored;
        int rc = helper_once(m, cname, what, it->jpath, &stored);
        free(what);
        if (rc == 0) {
            sb_printf(o, "/* %s: the card headers at %s */\n", it->name, it->jpath);
            for (i = 0; i < d->nunits; i++) {
                char *rn = xprintf("%s_u%zu_required", cname, i), *on = xprintf("%s_u%zu_optional", cname, i);
                emit_rules(o, rn, d->units[i].required, d->units[i].nrequired);
                emit_rules(o, on, d->units[i].optional, d->units[i].noptional);
                free(rn);
                free(on);
            }
            sb_printf(o, "static const afmt_cards_unit %s_units[] = {\n", cname);
            for (i = 0; i < d->nunits; i++) {
                char *nm = q_or_null(d->units[i].name), *sel = q_or_null(d->units[i].select);
                sb_printf(o, "    {.name = %s, .first = %d, .select = %s, .skip = %d,\n", nm, d->units[i].first, sel,
                          d->units[i].skip);
                sb_printf(o, "     .required = %s_u%zu_required, .nrequired = %zu,\n", cname, i, d->units[i].nrequired);
                sb_printf(o, "     .optional = %s_u%zu_optional, .noptional = %zu},\n", cname, i, d->units[i].noptional);
                free(nm);
                free(sel);
            }
            sb_printf(o, "};\nstatic const afmt_cards_type %s_types[] = {\n", cname);
            for (i = 0; i < d->ntypes; i++)
                sb_printf(o, "    {INT64_C(%lld), %s},\n", (long long)d->types[i].value,
                          dtype_enum(afmt_dtype_name(d->types[i].dtype)));
            sb_printf(o, "};\nstatic const afmt_cards_conv %s_conventions[] = {\n", cname);
            for (i = 0; i < d->nconvs; i++) {
                char *z = q_or_null(d->convs[i].zero), *s = q_or_null(d->convs[i].scale);
                sb_printf(o, "    {INT64_C(%lld), %s, %s, %s},\n", (long long)d->convs[i].type, z, s,
                          dtype_enum(afmt_dtype_name(d->convs[i].logical)));
                free(z);
                free(s);
            }
            if (!d->nconvs) sb_printf(o, "    {0, NULL, NULL, AFMT_DTYPE_INVALID},\n");
            sb_printf(o, "};\nstatic const char *const %s_commentary[] = {", cname);
            for (i = 0; i < d->ncommentary; i++) {
                q = q_or_null(d->commentary[i]);
                sb_printf(o, "%s%s", i ? ", " : "", q);
                free(q);
            }
            sb_printf(o, "%s};\n", d->ncommentary ? "" : "NULL");
            sb_printf(o, "static const afmt_cards_desc %s = {\n", cname);
            sb_printf(o, "    .format = \"%s\",\n    .record = %u,\n    .key_width = %u,\n", m->s->format, d->record,
                      d->key_width);
            q = q_or_null(d->key_chars);
            sb_printf(o, "    .key_chars = %s,\n", q);
            free(q);
            q = q_or_null(d->indicator);
            sb_printf(o, "    .indicator = %s,\n", q);
            free(q);
            sb_printf(o, "    .commentary = %s_commentary,\n    .ncommentary = %zu,\n", cname, d->ncommentary);
            q = q_or_null(d->end);
            sb_printf(o, "    .end = %s,\n", q);
            free(q);
            q = q_or_null(d->cont);
            sb_printf(o, "    .cont = %s,\n", q);
            free(q);
            sb_printf(o, "    .block = UINT64_C(%llu),\n    .fill = %d,\n    .data_fill = %d,\n",
                      (unsigned long long)d->block, d->fill, d->data_fill);
            sb_printf(o, "    .byte_min = %d,\n    .byte_max = %d,\n", d->byte_min, d->byte_max);
            sb_printf(o, "    .fixed_end = %u,\n    .fixed_string = %u,\n", d->fixed_end, d->fixed_string);
            sb_printf(o, "    .endian = %s,\n    .order = %s,\n", d->endian == AFMT_BIG ? "AFMT_BIG" : "AFMT_LITTLE",
                      d->order == AFMT_COL_MAJOR ? "AFMT_COL_MAJOR" : "AFMT_ROW_MAJOR");
            sb_printf(o, "    .types = %s_types,\n    .ntypes = %zu,\n", cname, d->ntypes);
            sb_printf(o, "    .convs = %s_conventions,\n    .nconvs = %zu,\n", cname, d->nconvs);
            sb_printf(o, "    .units = %s_units,\n    .nunits = %zu,\n};\n\n", cname, d->nunits);
        }
    }
    return 0;
}

void cards_emit_validate(emitter *m, item *it)
{
    char cname[160];
    if (emit_desc(m, it, cname, sizeof cname) != 0) return;
    line(m, "if (afmt_cards_validate(c, &%s, %s) != 0) return -1;", cname, m->end);
}

/* Whether the writer has a value for every required key of unit u: a
 * bind it knows (type, rank, axes) or an "equals"; 0, or 1 after an error. */
static int unit_unwritable(emitter *m, const item *it, size_t ui, const afmt_cards_unit *u)
{
    size_t i;
    for (i = 0; i < u->nrequired; i++) {
        const afmt_cards_key *q = &u->required[i];
        if (q->role == AFMT_CR_TYPE || q->role == AFMT_CR_RANK || q->role == AFMT_CR_AXES) continue;
        if ((q->type == AFMT_CV_LOGICAL && q->logical >= 0) || (q->type == AFMT_CV_STRING && q->string) ||
            (q->type == AFMT_CV_INT && q->has_min && q->has_max && q->min == q->max))
            continue;
        {
            char *p = xprintf("%s/units/%zu", it->jpath, ui);
            gen_error(m, p, "the writer has no value for required key %s: give it \"equals\" or a bind of type, "
                            "rank or axes, or say why the format is not written: \"read_only\": \"...\"", q->key);
            free(p);
        }
        return 1;
    }
    return 0;
}

void cards_emit_writer(emitter *m)
{
    const spec *s = m->s;
    item *it = NULL;
    char cname[160];
    size_t i;
    int bad = 0, ext = 0;
    for (i = 0; i < (size_t)s->body.n; i++)
        if (s->body.v[i]->kind == IT_CARDS) it = s->body.v[i];
    if (!it || !it->cards) return;
    for (i = 0; i < it->cards->nunits; i++) {
        const afmt_cards_unit *u = &it->cards->units[i];
        if (u->first || (!ext && !u->skip && u->select)) {
            bad |= unit_unwritable(m, it, i, u);
            ext |= !u->first;
        }
    }
    for (i = 0; i < (size_t)s->body.n; i++)
        if (s->body.v[i]->kind != IT_CARDS) {
            gen_error(m, s->body.v[i]->jpath, "a spec with a cards item writes the cards item alone");
            bad = 1;
        }
    if (bad || emit_desc(m, it, cname, sizeof cname) != 0) return;
    m->writer = 1;
    line(m, "static int %s_write_impl(const afmt_array *arrays, size_t n, const afmt_write_options *wopt,", s->format);
    line(m, "                         afmt_sink *sink, afmt_error *err, uint8_t **owned)");
    line(m, "{");
    m->indent++;
    line(m, "(void)owned;");
    line(m, "if (afmt_cards_write(&%s, arrays, n, wopt, sink, err) != 0) return -1;", cname);
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

int cards_in_spec(const spec *s)
{
    int i;
    for (i = 0; i < s->body.n; i++)
        if (s->body.v[i]->kind == IT_CARDS) return 1;
    return 0;
}
