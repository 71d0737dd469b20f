/* afmt-gen: loading and checking an "archive" item (see archive.h): the
 * container and its layout rules, then the member rules.  Every problem
 * is reported here, before anything is emitted: a pattern that does not
 * parse, a rule that does two things or none, a record rule no values
 * rule reads, a variable used before a text rule sets it. */
#include "archive.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "load.h"
#include "spec.h"
#include "util.h"

pk_grammar *archive_pickle_load(loader *L, json_t *o, const char *jp);

static const char *const ARCHIVE_KEYS[] = {"archive", "container", "methods", "lenient_methods", "flags", "align",
                                           "align_lenient", "crc", "extra", "extra_lenient", "zip64_end", "layout",
                                           "members", "others", "write_captures", "write_descriptor",
                                           "write_zip64_end", "write_zip64_local", "doc", NULL};
static const char *const RULE_KEYS[] = {"name", "required", "format", "array_name", "text", "lenient_text", "sets",
                                        "record", "endian", "pickle", "records", "refuse", "ignore", "doc", NULL};

int archive_pattern_ok(const char *p, char *why, unsigned why_size)
{
    const char *s = p;
    int in_component = 0; /* captures in the current '/'-separated component */
    if (!*p) { fixed_printf(why, why_size, "a pattern is not empty"); return 0; }
    while (*s) {
        if (*s == '/') { in_component = 0; s++; continue; }
        if (*s == '}') { fixed_printf(why, why_size, "'}' without '{' in \"%s\"", p); return 0; }
        if (*s != '{') { s++; continue; }
        {
            const char *close = strchr(s, '}'), *colon;
            size_t n;
            char name[64];
            int any = s[1] == '*';
            if (!close) { fixed_printf(why, why_size, "'{' without '}' in \"%s\"", p); return 0; }
            if (in_component++) {
                fixed_printf(why, why_size, "two captures in one component of \"%s\": nothing tells where one ends", p);
                return 0;
            }
            n = (size_t)(close - s - 1 - any);
            if (n >= sizeof name) n = sizeof name - 1;
            memcpy(name, s + 1 + any, n);
            name[n] = 0;
            colon = strchr(name, ':');
            if (colon && !any && (strcmp(colon, ":decimal") == 0 || strcmp(colon, ":digits") == 0)) name[colon - name] = 0;
            else if (colon) {
                fixed_printf(why, why_size, "unknown capture type '%s' in \"%s\" (expected :decimal or :digits)", colon + 1, p);
                return 0;
            }
            if (!valid_name(name)) {
                fixed_printf(why, why_size, "'%s' is not a capture name in \"%s\"", name, p);
                return 0;
            }
            if (any && strpbrk(close + 1, "{}/")) {
                fixed_printf(why, why_size, "{*%s} takes the rest of the name: only a literal ending (\"{*%s}.ten\") "
                             "may follow it in \"%s\"", name, name, p);
                return 0;
            }
            s = close + 1;
        }
    }
    return 1;
}

static unsigned methods_of(loader *L, json_t *v, const char *jp)
{
    unsigned bits = 0;
    size_t i;
    if (!v) return 0;
    if (!json_is_array(v)) { LERR(L, jp, "a list of compression methods: \"stored\", \"deflated\""); return 0; }
    for (i = 0; i < json_array_size(v); i++) {
        const char *s = json_string_value(json_array_get(v, i));
        if (s && strcmp(s, "stored") == 0) bits |= 1u;
        else if (s && strcmp(s, "deflated") == 0) bits |= 1u << 8;
        else LERR(L, jp, "unknown method '%s' (expected stored, deflated)", s ? s : "?");
    }
    return bits;
}

static uint64_t num_of(loader *L, json_t *o, const char *key, const char *jp, uint64_t dflt)
{
    json_t *v = json_object_get(o, key);
    if (!v) return dflt;
    if (json_is_integer(v) && json_integer_value(v) >= 0) return (uint64_t)json_integer_value(v);
    if (json_is_string(v) && strncmp(json_string_value(v), "0x", 2) == 0) return strtoull(json_string_value(v), NULL, 16);
    LERR(L, jp, "\"%s\" is a non-negative integer (or \"0x...\")", key);
    return dflt;
}

static int var_index(archive *a, const char *name, int create)
{
    int i;
    for (i = 0; i < a->nvars; i++)
        if (strcmp(a->vars[i], name) == 0) return i;
    if (!create || a->nvars == 8) return -1;
    a->vars[a->nvars] = xstrdup(name);
    return a->nvars++;
}

static char **text_list(loader *L, json_t *v, const char *jp, int *n)
{
    char **out;
    size_t i;
    if (!json_is_array(v)) { LERR(L, jp, "a list of exact texts"); *n = 0; return NULL; }
    out = xcalloc(json_array_size(v) + 1, sizeof *out);
    for (i = 0; i < json_array_size(v); i++) {
        const char *s = json_string_value(json_array_get(v, i));
        if (!s) LERR(L, jp, "text %zu is not a string", i);
        out[i] = xstrdup(s ? s : "");
    }
    *n = (int)json_array_size(v);
    return out;
}

/* One rule does exactly one thing: the key that says what. */
static void load_rule_action(loader *L, archive *a, json_t *o, const char *jp, ar_rule *r)
{
    static const char *const what[] = {"format", "text", "record", "pickle", "refuse", "ignore"};
    int k, n = 0;
    for (k = 0; k < 6; k++)
        if (json_object_get(o, what[k])) { r->action = k + 1; n++; }
    if (n != 1) {
        LERR(L, jp, "a member rule does one thing: give exactly one of format, text, record, pickle, refuse, ignore");
        return;
    }
    if (r->action == AR_FORMAT) {
        r->format = get_str(L, o, "format", jp, 1);
        r->array_name = get_str(L, o, "array_name", jp, 0);
    } else if (r->action == AR_TEXT) {
        char **strict, **lenient = NULL;
        int ns, nl = 0, i;
        strict = text_list(L, json_object_get(o, "text"), jp, &ns);
        if (json_object_get(o, "lenient_text")) lenient = text_list(L, json_object_get(o, "lenient_text"), jp, &nl);
        r->texts = xcalloc((size_t)(ns + nl + 1), sizeof *r->texts);
        for (i = 0; i < ns; i++) r->texts[i] = strict[i];
        for (i = 0; i < nl; i++) r->texts[ns + i] = lenient[i];
        r->ntexts = ns + nl;
        r->nstrict = ns;
        free(strict);
        free(lenient);
        if (json_object_get(o, "sets")) {
            char *name = get_str(L, o, "sets", jp, 1);
            if (name && !valid_name(name)) LERR(L, jp, "'%s' is not a variable name", name);
            else if (name && var_index(a, name, 0) >= 0) LERR(L, jp, "variable '%s' is set by another rule", name);
            else if (name && (r->sets = var_index(a, name, 1)) < 0) LERR(L, jp, "at most 8 variables");
            free(name);
        }
    } else if (r->action == AR_RECORD) {
        if (!json_is_true(json_object_get(o, "record"))) LERR(L, jp, "\"record\" is true");
        if (json_object_get(o, "endian")) {
            char *name = get_str(L, o, "endian", jp, 1);
            r->endian_var = name ? var_index(a, name, 0) : -1;
            if (name && r->endian_var < 0)
                LERR(L, jp, "\"endian\": no earlier text rule \"sets\" '%s' (its texts' positions: 0 little, 1 big)", name);
            free(name);
        }
    } else if (r->action == AR_VALUES) {
        char *p = jp_key(jp, "pickle");
        r->pickle = archive_pickle_load(L, json_object_get(o, "pickle"), p);
        free(p);
        r->records = get_str(L, o, "records", jp, 0);
    } else if (r->action == AR_REFUSE) {
        r->reason = get_str(L, o, "refuse", jp, 1);
    } else {
        json_t *v = json_object_get(o, "ignore");
        if (json_is_string(v) && strcmp(json_string_value(v), "lenient") == 0) r->lenient_only = 1;
        else if (!json_is_true(v)) LERR(L, jp, "\"ignore\" is true, or \"lenient\" (ignored with a warning in lenient mode, refused otherwise)");
    }
}

/* Keys that belong to another action than the rule's. */
static void check_rule_keys(loader *L, json_t *o, const char *jp, const ar_rule *r)
{
    static const struct { const char *key; int action; } only[] = {
        {"array_name", AR_FORMAT}, {"lenient_text", AR_TEXT}, {"sets", AR_TEXT},
        {"endian", AR_RECORD}, {"records", AR_VALUES}};
    size_t k;
    for (k = 0; k < sizeof only / sizeof only[0]; k++)
        if (json_object_get(o, only[k].key) && r->action && r->action != only[k].action)
            LERR(L, jp, "\"%s\" does not go with this rule's action", only[k].key);
}

static void load_rule(loader *L, archive *a, json_t *o, const char *jp, ar_rule *r)
{
    char why[300];
    json_t *req;
    r->jpath = xstrdup(jp);
    r->sets = r->endian_var = r->record_rule = -1;
    if (!json_is_object(o)) { LERR(L, jp, "a member rule is an object"); return; }
    check_keys(L, o, jp, RULE_KEYS);
    r->pattern = get_str(L, o, "name", jp, 1);
    if (r->pattern && !archive_pattern_ok(r->pattern, why, sizeof why)) LERR(L, jp, "%s", why);
    req = json_object_get(o, "required");
    if (req && !json_is_boolean(req)) LERR(L, jp, "\"required\" is true or false");
    r->required = json_is_true(req);
    load_rule_action(L, a, o, jp, r);
    check_rule_keys(L, o, jp, r);
    if (r->required && (r->action == AR_REFUSE || r->action == AR_IGNORE))
        LERR(L, jp, "a rule that refuses or ignores its members cannot be required");
}

/* Values rules name their records by a record rule's pattern; every
 * record rule is read by one. */
static void link_records(loader *L, archive *a, const char *jp)
{
    int i, j, *read = xcalloc((size_t)a->nrules + 1, sizeof *read);
    for (i = 0; i < a->nrules; i++) {
        ar_rule *r = &a->rules[i];
        if (r->action != AR_VALUES) continue;
        if (!r->records) {
            if (r->pickle && r->pickle->npid)
                LERR(L, r->jpath, "a pickle with persistent ids reads records: give \"records\" (a record rule's name pattern)");
            continue;
        }
        for (j = 0; j < a->nrules; j++)
            if (a->rules[j].action == AR_RECORD && a->rules[j].pattern && strcmp(a->rules[j].pattern, r->records) == 0)
                r->record_rule = j;
        if (r->record_rule < 0) LERR(L, r->jpath, "\"records\": no record rule has the name pattern \"%s\"", r->records);
        else read[r->record_rule]++;
    }
    for (i = 0; i < a->nrules; i++)
        if (a->rules[i].action == AR_RECORD && read[i] != 1)
            LERR(L, a->rules[i].jpath, "record rule \"%s\" is read by %d values rules (exactly one says \"records\": "
                 "\"%s\")", a->rules[i].pattern ? a->rules[i].pattern : "?", read[i],
                 a->rules[i].pattern ? a->rules[i].pattern : "?");
    free(read);
    (void)jp;
}

static void load_layout(loader *L, archive *a, json_t *o, const char *jp)
{
    const char *s;
    size_t i;
    char *p;
    s = json_string_value(json_object_get(o, "container"));
    if (!s || (strcmp(s, "zip") != 0 && strcmp(s, "tar") != 0)) LERR(L, jp, "\"container\" is \"zip\" or \"tar\"");
    a->tar = s && strcmp(s, "tar") == 0;
    p = jp_key(jp, "methods");
    a->methods = json_object_get(o, "methods") ? methods_of(L, json_object_get(o, "methods"), p) : 1u;
    free(p);
    p = jp_key(jp, "lenient_methods");
    a->methods_lenient = methods_of(L, json_object_get(o, "lenient_methods"), p);
    free(p);
    a->flags_allowed = (unsigned)num_of(L, o, "flags", jp, 0);
    a->align = num_of(L, o, "align", jp, 0);
    a->align_lenient = get_lenient(L, o, "align_lenient", jp) == LEN_WARN;
    s = json_string_value(json_object_get(o, "crc"));
    a->crc = !s || strcmp(s, "none") != 0;
    a->crc_lenient = s && strcmp(s, "warn") == 0;
    if (s && strcmp(s, "check") != 0 && strcmp(s, "warn") != 0 && strcmp(s, "none") != 0)
        LERR(L, jp, "\"crc\" is \"check\", \"warn\" (an error when strict, a warning when lenient) or \"none\"");
    if (json_is_array(json_object_get(o, "extra")))
        for (i = 0; i < json_array_size(json_object_get(o, "extra")); i++) {
            json_t *v = json_array_get(json_object_get(o, "extra"), i);
            char *end = NULL;
            unsigned long id = json_is_integer(v) ? (unsigned long)json_integer_value(v)
                               : json_is_string(v) ? strtoul(json_string_value(v), &end, 16) : 0x10000;
            if ((end && (*end || end == json_string_value(v))) || id > 0xffff || a->nextra == 8) {
                char *k = jp_key(jp, "extra"), *at = jp_idx(k, i);
                LERR(L, at, "\"extra\" lists at most 8 extra-field ids, each 0 to 0xffff (\"0x0001\")");
                free(at);
                free(k);
                break;
            }
            a->extra[a->nextra++] = (unsigned)id;
        }
    a->extra_lenient = get_lenient(L, o, "extra_lenient", jp) == LEN_WARN;
    s = json_string_value(json_object_get(o, "zip64_end"));
    a->zip64_end = s && strcmp(s, "required") == 0;
    if (json_object_get(o, "zip64_end") && !a->zip64_end && (!s || strcmp(s, "optional") != 0)) {
        char *at = jp_key(jp, "zip64_end");
        LERR(L, at, "\"zip64_end\" is \"optional\" or \"required\"");
        free(at);
    }
    s = json_string_value(json_object_get(o, "layout"));
    a->back_to_back = s && strcmp(s, "back-to-back") == 0;
    if (s && !a->back_to_back && strcmp(s, "any") != 0) LERR(L, jp, "\"layout\" is \"back-to-back\" or \"any\"");
    s = json_string_value(json_object_get(o, "others"));
    a->rest = !s || strcmp(s, "refuse") == 0 ? 0 : strcmp(s, "ignore") == 0 ? 1 : strcmp(s, "lenient") == 0 ? 2 : -1;
    if (a->rest < 0) { LERR(L, jp, "\"others\" is \"refuse\", \"ignore\" or \"lenient\""); a->rest = 0; }
    if (json_object_get(o, "write_captures")) {
        json_t *wc = json_object_get(o, "write_captures"), *v;
        const char *k;
        if (!json_is_object(wc)) LERR(L, jp, "\"write_captures\" maps capture names to the text the writer writes");
        else
            json_object_foreach(wc, k, v) {
                if (!json_is_string(v) || a->nwcaps == 8 || !valid_name(k)) {
                    LERR(L, jp, "\"write_captures\": '%s' must be a capture name mapped to a text (at most 8)", k);
                    continue;
                }
                a->wcap_names[a->nwcaps] = xstrdup(k);
                a->wcap_values[a->nwcaps++] = xstrdup(json_string_value(v));
            }
    }
    a->write_descriptor = json_is_true(json_object_get(o, "write_descriptor"));
    a->write_zip64_end = json_is_true(json_object_get(o, "write_zip64_end"));
    /* what the validator requires, the writer writes (the spec fuzzer's
     * seed 6009: files without the record failed their own validator) */
    if (a->zip64_end && json_is_false(json_object_get(o, "write_zip64_end")))
        LERR(L, jp, "\"zip64_end\": \"required\" and \"write_zip64_end\": false: the writer would write files "
             "its validator refuses");
    if (a->zip64_end) a->write_zip64_end = 1;
    a->write_zip64_local = json_is_true(json_object_get(o, "write_zip64_local"));
    if (a->tar && (a->methods != 1u || a->methods_lenient || a->align || a->nextra || a->flags_allowed))
        LERR(L, jp, "a tar has no methods, flags, alignment or extra fields: those are zip's");
}

archive *archive_load(const char *path, void *obj, const char *jp, int *errors)
{
    loader L = {path, 0};
    json_t *o = obj, *members;
    archive *a = xcalloc(1, sizeof *a);
    size_t i;
    check_keys(&L, o, jp, ARCHIVE_KEYS);
    load_layout(&L, a, o, jp);
    members = json_object_get(o, "members");
    if (!json_is_array(members) || json_array_size(members) == 0) {
        LERR(&L, jp, "\"members\" is a non-empty list of member rules");
    } else {
        char *mp = jp_key(jp, "members");
        a->rules = xcalloc(json_array_size(members), sizeof *a->rules);
        for (i = 0; i < json_array_size(members); i++) {
            char *p = jp_idx(mp, i);
            load_rule(&L, a, json_array_get(members, i), p, &a->rules[a->nrules++]);
            free(p);
        }
        free(mp);
        link_records(&L, a, jp);
    }
    *errors += L.errors;
    return a;
}

static int extra_allowed(const archive *a, unsigned id)
{
    int i;
    for (i = 0; i < a->nextra; i++)
        if (a->extra[i] == id) return 1;
    return 0;
}

/* The kind of capture `name` is in the member patterns: '{' plain (one
 * or more bytes, no '/'), 'd' decimal, 'g' digits, '*' the rest; 0 none. */
static int capture_kind(const archive *a, const char *name)
{
    static const struct { const char *open, *close; int kind; } forms[] = {
        {"{", "}", '{'}, {"{", ":decimal}", 'd'}, {"{", ":digits}", 'g'}, {"{*", "}", '*'}};
    size_t f, n = strlen(name);
    int i;
    for (i = 0; i < a->nrules; i++)
        for (f = 0; f < sizeof forms / sizeof forms[0]; f++) {
            const char *at = a->rules[i].pattern, *o = forms[f].open;
            while (at && (at = strstr(at, o)) != NULL) {
                at += strlen(o);
                if (strncmp(at, name, n) == 0 && strncmp(at + n, forms[f].close, strlen(forms[f].close)) == 0)
                    return forms[f].kind;
            }
        }
    return 0;
}

/* Why text is not a value of a capture of this kind, or NULL. */
static const char *capture_problem(int kind, const char *text)
{
    size_t i;
    if (!*text) return "a capture holds one or more bytes";
    if (kind == '{' && strchr(text, '/')) return "this capture holds no '/'";
    if (kind == 'd' && text[0] == '0' && text[1]) return "a decimal capture has no leading zero";
    for (i = 0; (kind == 'd' || kind == 'g') && text[i]; i++)
        if (text[i] < '0' || text[i] > '9') return "this capture holds digits only";
    return NULL;
}

void archive_check_writer(const archive *a, const char *path, const char *jp, int *errors)
{
    loader L = {path, 0};
    static const char *const or_read_only = " (or say why the format is not written: \"read_only\": \"...\")";
    int i;
    for (i = 0; i < a->nwcaps; i++) {
        const int kind = capture_kind(a, a->wcap_names[i]);
        const char *why = kind ? capture_problem(kind, a->wcap_values[i]) : "no member pattern captures it";
        if (why)
            LERR(&L, jp, "\"write_captures\": the writer cannot name members with %s \"%s\": %s", a->wcap_names[i],
                 a->wcap_values[i], why);
    }
    if (a->tar) { *errors += L.errors; return; } /* ustar headers hold nothing the rules below could forbid */
    if (!(a->methods & 1u))
        LERR(&L, jp, "the writer writes stored members: \"methods\" must allow \"stored\"%s", or_read_only);
    if (a->align && !extra_allowed(a, 0x4246))
        LERR(&L, jp, "the writer aligns member data with an extra field 0x4246 (torch.save's \"FB\"): \"extra\" "
             "must allow it%s", or_read_only);
    if (a->write_zip64_local && !extra_allowed(a, 0x0001))
        LERR(&L, jp, "\"write_zip64_local\" writes zip64 extra fields (0x0001): \"extra\" must allow them%s",
             or_read_only);
    if (a->write_descriptor && !(a->flags_allowed & 0x0008u))
        LERR(&L, jp, "\"write_descriptor\" sets flag 0x0008 (a data descriptor follows): \"flags\" must allow it%s",
             or_read_only);
    *errors += L.errors;
}
