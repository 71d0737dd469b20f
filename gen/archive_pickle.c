/* afmt-gen: loading a "pickle" value grammar (spec/LANGUAGE.md, "Value
 * grammars: pickle"): the protocol, the allowed opcodes, the allowlist of
 * globals with the arguments each takes and what it makes, the shape of a
 * persistent id and where BUILD and SETITEM may act.  Checked here, before
 * anything is emitted: an opcode name pickle.py does not have, a global
 * listed twice, an array-making global whose bindings do not name
 * arguments of the right kinds. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "common/afmt_dtype.h"
#include "archive.h"
#include "load.h"
#include "util.h"

/* pickle.py's opcodes, protocols 0 to 5, by name. */
static const struct { const char *name; int byte; } OPS[] = {
    {"MARK", '('}, {"STOP", '.'}, {"POP", '0'}, {"POP_MARK", '1'}, {"DUP", '2'}, {"FLOAT", 'F'},
    {"INT", 'I'}, {"BININT", 'J'}, {"BININT1", 'K'}, {"LONG", 'L'}, {"BININT2", 'M'}, {"NONE", 'N'},
    {"PERSID", 'P'}, {"BINPERSID", 'Q'}, {"REDUCE", 'R'}, {"STRING", 'S'}, {"BINSTRING", 'T'},
    {"SHORT_BINSTRING", 'U'}, {"UNICODE", 'V'}, {"BINUNICODE", 'X'}, {"APPEND", 'a'}, {"BUILD", 'b'},
    {"GLOBAL", 'c'}, {"DICT", 'd'}, {"EMPTY_DICT", '}'}, {"APPENDS", 'e'}, {"GET", 'g'}, {"BINGET", 'h'},
    {"INST", 'i'}, {"LONG_BINGET", 'j'}, {"LIST", 'l'}, {"EMPTY_LIST", ']'}, {"OBJ", 'o'}, {"PUT", 'p'},
    {"BINPUT", 'q'}, {"LONG_BINPUT", 'r'}, {"SETITEM", 's'}, {"TUPLE", 't'}, {"EMPTY_TUPLE", ')'},
    {"SETITEMS", 'u'}, {"BINFLOAT", 'G'}, {"PROTO", 0x80}, {"NEWOBJ", 0x81}, {"EXT1", 0x82}, {"EXT2", 0x83},
    {"EXT4", 0x84}, {"TUPLE1", 0x85}, {"TUPLE2", 0x86}, {"TUPLE3", 0x87}, {"NEWTRUE", 0x88},
    {"NEWFALSE", 0x89}, {"LONG1", 0x8a}, {"LONG4", 0x8b}, {"BINBYTES", 'B'}, {"SHORT_BINBYTES", 'C'},
    {"SHORT_BINUNICODE", 0x8c}, {"BINUNICODE8", 0x8d}, {"BINBYTES8", 0x8e}, {"EMPTY_SET", 0x8f},
    {"ADDITEMS", 0x90}, {"FROZENSET", 0x91}, {"NEWOBJ_EX", 0x92}, {"STACK_GLOBAL", 0x93}, {"MEMOIZE", 0x94},
    {"FRAME", 0x95}, {"BYTEARRAY8", 0x96}, {"NEXT_BUFFER", 0x97}, {"READONLY_BUFFER", 0x98},
};

/* Opcodes the machine (runtime/pickle/afmt_pickle.c) carries out; the others
 * (text protocol 0, sets, buffers, object construction by class) it does
 * not know, so a spec cannot allow them. */
static const char *const MACHINE_OPS[] = {
    "PROTO", "STOP", "MARK", "EMPTY_DICT", "EMPTY_LIST", "EMPTY_TUPLE", "BINPUT", "LONG_BINPUT", "BINGET",
    "LONG_BINGET", "BINUNICODE", "BININT", "BININT1", "BININT2", "LONG1", "BINFLOAT", "NONE", "NEWTRUE",
    "NEWFALSE", "TUPLE", "TUPLE1", "TUPLE2", "TUPLE3", "SETITEM", "SETITEMS", "APPEND", "APPENDS", "GLOBAL",
    "REDUCE", "BUILD", "BINPERSID", NULL};

int pickle_op_byte(const char *name)
{
    size_t i;
    for (i = 0; i < sizeof OPS / sizeof OPS[0]; i++)
        if (strcmp(OPS[i].name, name) == 0) return OPS[i].byte;
    return -1;
}

static int machine_knows(const char *name)
{
    int i;
    for (i = 0; MACHINE_OPS[i]; i++)
        if (strcmp(MACHINE_OPS[i], name) == 0) return 1;
    return 0;
}

static const char *const PICKLE_KEYS[] = {"protocol", "opcodes", "canonical", "globals", "persistent_id", "keys",
                                          "build", "dict_keys", "root", "memo", "doc", NULL};
static const char *const GLOBAL_KEYS[] = {"global", "makes", "args", "bind", "dtype", "refuse", "doc", NULL};

static void load_opcodes(loader *L, pk_grammar *g, json_t *ops, const char *jp)
{
    size_t i;
    if (!json_is_array(ops) || json_array_size(ops) == 0) {
        LERR(L, jp, "\"opcodes\" is a non-empty list of pickle.py's opcode names (\"PROTO\", \"BINPUT\", ...)");
        return;
    }
    for (i = 0; i < json_array_size(ops); i++) {
        json_t *o = json_array_get(ops, i);
        char *p = jp_idx(jp, i);
        const char *name = json_is_string(o) ? json_string_value(o) : NULL;
        int b = name ? pickle_op_byte(name) : -1;
        if (b < 0) LERR(L, p, "'%s' is not an opcode of pickle.py", name ? name : "?");
        else if (!machine_knows(name))
            LERR(L, p, "the pickle machine does not carry out %s (it builds values, never objects by class, "
                 "sets or buffers)", name);
        else if (g->ops[b]) LERR(L, p, "%s is listed twice", name);
        else g->ops[b] = 1;
        free(p);
    }
    if (!g->ops[0x80] || !g->ops['.'])
        LERR(L, jp, "a pickle starts with PROTO and ends with STOP: list both");
}

static int arg_kind(const char *s)
{
    static const char *const names[] = {"", "uint", "bool", "uint_tuple", "storage", "empty_dict", "array", "plain"};
    int k;
    for (k = 1; k <= PKA_PLAIN; k++)
        if (strcmp(s, names[k]) == 0) return k;
    return 0;
}

/* "bind": {"storage": i, "offset": i, "shape": i, "strides": i}: which
 * argument of an array-making REDUCE is what, each of the kind it needs. */
static void load_array_bind(loader *L, pk_global *gl, json_t *b, const char *jp)
{
    static const char *const roles[] = {"storage", "offset", "shape", "strides"};
    static const int kinds[] = {PKA_STORAGE, PKA_UINT, PKA_UINT_TUPLE, PKA_UINT_TUPLE};
    int *slots[4];
    int r;
    slots[0] = &gl->arg_storage, slots[1] = &gl->arg_offset, slots[2] = &gl->arg_shape, slots[3] = &gl->arg_stride;
    if (!json_is_object(b)) {
        LERR(L, jp, "an array-making global needs \"bind\": {\"storage\", \"offset\", \"shape\", \"strides\"} "
             "(argument positions)");
        return;
    }
    check_keys(L, b, jp, (const char *const[]){"storage", "offset", "shape", "strides", NULL});
    for (r = 0; r < 4; r++) {
        json_t *v = json_object_get(b, roles[r]);
        long long i = json_is_integer(v) ? json_integer_value(v) : -1;
        *slots[r] = -1;
        if (i < 0 || i >= gl->nargs) LERR(L, jp, "\"%s\" must be the position of an argument (0 to %d)", roles[r], gl->nargs - 1);
        else if (gl->args[i] != kinds[r])
            LERR(L, jp, "\"%s\" names argument %lld, which is not of kind %s", roles[r], i,
                 kinds[r] == PKA_STORAGE ? "storage" : kinds[r] == PKA_UINT ? "uint" : "uint_tuple");
        else *slots[r] = (int)i;
    }
}

static void load_global(loader *L, pk_grammar *g, json_t *o, const char *jp, pk_global *gl)
{
    static const char *const makes[] = {"", "dict", "array", "wrap", "class"};
    const char *name = json_string_value(json_object_get(o, "global"));
    const char *mk = json_string_value(json_object_get(o, "makes"));
    json_t *args = json_object_get(o, "args");
    const char *sp;
    size_t i;
    int k;
    check_keys(L, o, jp, GLOBAL_KEYS);
    gl->jpath = xstrdup(jp);
    gl->arg_storage = gl->arg_offset = gl->arg_shape = gl->arg_stride = -1;
    sp = name ? strchr(name, ' ') : NULL;
    if (!sp || sp == name || !sp[1] || strchr(sp + 1, ' ')) {
        LERR(L, jp, "\"global\" is \"module name\", as GLOBAL writes it (\"collections OrderedDict\")");
        return;
    }
    gl->module = xprintf("%.*s", (int)(sp - name), name);
    gl->name = xstrdup(sp + 1);
    for (k = 0; k < g->nglobals - 1; k++)
        if (strcmp(g->globals[k].module, gl->module) == 0 && strcmp(g->globals[k].name, gl->name) == 0)
            LERR(L, jp, "global '%s' is listed twice", name);
    if (json_object_get(o, "refuse")) {
        gl->role = PK_REFUSE;
        gl->refuse = get_str(L, o, "refuse", jp, 1);
        if (mk || args) LERR(L, jp, "a refused global makes nothing: no \"makes\" or \"args\"");
        return;
    }
    for (k = 1; k <= PK_CLASS; k++)
        if (mk && strcmp(mk, makes[k]) == 0) gl->role = k;
    if (!gl->role) { LERR(L, jp, "\"makes\" is dict, array, wrap or class (or give \"refuse\")"); return; }
    if (args && (!json_is_array(args) || json_array_size(args) > 8)) {
        LERR(L, jp, "\"args\" is a list of at most 8 argument kinds");
        args = NULL;
    }
    for (i = 0; args && i < json_array_size(args); i++) {
        const char *a = json_string_value(json_array_get(args, i));
        gl->args[gl->nargs] = a ? arg_kind(a) : 0;
        if (!gl->args[gl->nargs])
            LERR(L, jp, "argument %zu: unknown kind '%s' (expected uint, bool, uint_tuple, storage, empty_dict, "
                 "array, plain)", i, a ? a : "?");
        gl->nargs++;
    }
    if (gl->role == PK_CLASS) {
        gl->dtype = get_str(L, o, "dtype", jp, 1);
        if (gl->dtype && afmt_dtype_from_name(gl->dtype) == AFMT_DTYPE_INVALID)
            LERR(L, jp, "unknown dtype '%s'", gl->dtype);
        if (args) LERR(L, jp, "a class is never called: no \"args\"");
    } else if (json_object_get(o, "dtype")) {
        LERR(L, jp, "\"dtype\" is for a global that makes a class");
    }
    if (gl->role == PK_ARRAY) load_array_bind(L, gl, json_object_get(o, "bind"), jp);
    else if (json_object_get(o, "bind")) LERR(L, jp, "\"bind\" is for a global that makes an array");
    if (gl->role == PK_WRAP && (gl->nargs == 0 || gl->args[0] != PKA_ARRAY))
        LERR(L, jp, "a wrap gives back its first argument: it must be of kind array");
}

static void load_globals(loader *L, pk_grammar *g, json_t *gs, const char *jp)
{
    size_t i;
    if (!json_is_array(gs)) { LERR(L, jp, "\"globals\" is a list: the allowlist"); return; }
    g->globals = xcalloc(json_array_size(gs) + 1, sizeof *g->globals);
    for (i = 0; i < json_array_size(gs); i++) {
        char *p = jp_idx(jp, i);
        json_t *o = json_array_get(gs, i);
        g->nglobals++;
        if (!json_is_object(o)) LERR(L, p, "a global is an object");
        else load_global(L, g, o, p, &g->globals[g->nglobals - 1]);
        free(p);
    }
}

/* A location pattern: literal text, "{n}" for a decimal number (the
 * runtime's location_fits reads the same). */
static int location_ok(const char *t)
{
    if (!*t) return 0;
    while (*t) {
        if (*t == '{' && strncmp(t, "{n}", 3) == 0) t += 3;
        else if (*t == '{' || *t == '}') return 0;
        else t++;
    }
    return 1;
}

/* "persistent_id": the tuple BINPERSID takes, part by part. */
static void load_pid(loader *L, pk_grammar *g, json_t *pid, const char *jp)
{
    static const char *const words[] = {"", "", "class", "key", "", "count"};
    size_t i;
    int seen[6] = {0}, k;
    if (!json_is_array(pid) || json_array_size(pid) == 0 || json_array_size(pid) > 8) {
        LERR(L, jp, "\"persistent_id\" is a list of 1 to 8 parts: {\"text\": T}, \"class\", \"key\", "
             "{\"location\": [patterns]}, \"count\"");
        return;
    }
    for (i = 0; i < json_array_size(pid); i++) {
        json_t *o = json_array_get(pid, i);
        char *p = jp_idx(jp, i);
        pk_pid_part *pp = &g->pid[g->npid++];
        if (json_is_string(o)) {
            for (k = 2; k <= 5; k++)
                if (*words[k] && strcmp(json_string_value(o), words[k]) == 0) pp->part = k;
        } else if (json_is_object(o) && json_object_get(o, "text")) {
            pp->part = PKP_TEXT;
            pp->text = get_str(L, o, "text", p, 1);
        } else if (json_is_object(o) && json_is_array(json_object_get(o, "location"))) {
            json_t *ls = json_object_get(o, "location");
            size_t j;
            pp->part = PKP_LOCATION;
            pp->patterns = xcalloc(json_array_size(ls) + 1, sizeof *pp->patterns);
            for (j = 0; j < json_array_size(ls); j++) {
                const char *t = json_string_value(json_array_get(ls, j));
                if (!t || !location_ok(t))
                    LERR(L, p, "location %zu: literal text in which {n} stands for a decimal number (\"cuda:{n}\")", j);
                else pp->patterns[pp->npatterns++] = xstrdup(t);
            }
        }
        if (!pp->part) LERR(L, p, "a part is {\"text\": T}, \"class\", \"key\", {\"location\": [patterns]} or \"count\"");
        else if (pp->part != PKP_TEXT && seen[pp->part]++) LERR(L, p, "this part is given twice");
        free(p);
    }
    if (!seen[PKP_CLASS] || !seen[PKP_KEY] || !seen[PKP_COUNT])
        LERR(L, jp, "a persistent id names a storage: it needs \"class\", \"key\" and \"count\"");
}

static unsigned kind_bits(loader *L, json_t *list, const char *jp, unsigned allowed)
{
    static const char *const names[] = {"dict", "list", "tuple", "array", "str", "int"};
    unsigned bits = 0;
    size_t i;
    int k;
    if (!json_is_array(list)) { LERR(L, jp, "a list of kinds"); return 0; }
    for (i = 0; i < json_array_size(list); i++) {
        const char *s = json_string_value(json_array_get(list, i));
        for (k = 0; k < 6; k++)
            if (s && strcmp(s, names[k]) == 0 && (allowed & (1u << k))) break;
        if (k == 6) LERR(L, jp, "kind '%s' is not one of those allowed here", s ? s : "?");
        else bits |= 1u << k;
    }
    return bits;
}

/* The checks between parts: an array-making global needs a persistent
 * id for its storage and class globals for its dtypes, and the other way
 * round. */
static void check_grammar(loader *L, const pk_grammar *g, const char *jp)
{
    int i, arrays = 0, classes = 0, wraps = 0;
    for (i = 0; i < g->nglobals; i++) {
        arrays += g->globals[i].role == PK_ARRAY;
        classes += g->globals[i].role == PK_CLASS;
        wraps += g->globals[i].role == PK_WRAP;
    }
    if (arrays && (!g->npid || !g->ops['Q']))
        LERR(L, jp, "a global makes arrays from storages: give \"persistent_id\" and allow BINPERSID");
    if (g->npid && !classes) LERR(L, jp, "a persistent id names its storage's class: list globals that make a class");
    if ((arrays || wraps) && !g->ops['R']) LERR(L, jp, "globals are called by REDUCE: allow it");
    for (i = 0; i < g->nglobals; i++) {
        int k, first = g->globals[i].role == PK_CLASS && g->globals[i].dtype;
        for (k = 0; first && k < i; k++)
            if (g->globals[k].role == PK_CLASS && g->globals[k].dtype && strcmp(g->globals[k].dtype, g->globals[i].dtype) == 0)
                first = 0;
        ((pk_global *)&g->globals[i])->writable = first;
    }
    if (g->build_on_dict && !g->ops['b']) LERR(L, jp, "\"build\": \"dict-once\" needs BUILD allowed");
}

pk_grammar *archive_pickle_load(loader *L, json_t *o, const char *jp);

pk_grammar *archive_pickle_load(loader *L, json_t *o, const char *jp)
{
    pk_grammar *g = xcalloc(1, sizeof *g);
    json_t *v;
    char *p;
    const char *s;
    if (!json_is_object(o)) { LERR(L, jp, "\"pickle\" is an object"); return g; }
    check_keys(L, o, jp, PICKLE_KEYS);
    v = json_object_get(o, "protocol");
    if (json_is_integer(v) && json_integer_value(v) >= 2 && json_integer_value(v) <= 5)
        g->proto_min = g->proto_max = (unsigned)json_integer_value(v);
    else LERR(L, jp, "\"protocol\" is the pickle protocol, 2 to 5 (PROTO's argument)");
    p = jp_key(jp, "opcodes");
    load_opcodes(L, g, json_object_get(o, "opcodes"), p);
    free(p);
    g->canonical = json_is_true(json_object_get(o, "canonical"));
    p = jp_key(jp, "globals");
    load_globals(L, g, json_object_get(o, "globals"), p);
    free(p);
    if (json_object_get(o, "persistent_id")) {
        p = jp_key(jp, "persistent_id");
        load_pid(L, g, json_object_get(o, "persistent_id"), p);
        free(p);
    }
    s = json_string_value(json_object_get(o, "keys"));
    if (s && strcmp(s, "in-order") == 0) g->keys_in_order = 1;
    else if (s && strcmp(s, "any") != 0) LERR(L, jp, "\"keys\" is \"in-order\" (storage keys 0, 1, ... in order of first use) or \"any\"");
    s = json_string_value(json_object_get(o, "memo"));
    if (s && strcmp(s, "in-order") == 0) g->memo_in_order = 1;
    else if (s && strcmp(s, "any") != 0) LERR(L, jp, "\"memo\" is \"in-order\" (each value put at 0, 1, 2, ... right after it is made, nothing else) or \"any\"");
    s = json_string_value(json_object_get(o, "build"));
    if (s && strcmp(s, "dict-once") == 0) g->build_on_dict = 1;
    else if (s) LERR(L, jp, "\"build\" is \"dict-once\" (BUILD once on a dict being filled, with a plain dict), or absent");
    p = jp_key(jp, "dict_keys");
    g->dict_keys = json_object_get(o, "dict_keys") ? kind_bits(L, json_object_get(o, "dict_keys"), p, PKK_STR | PKK_INT)
                                                   : PKK_STR;
    free(p);
    p = jp_key(jp, "root");
    g->root_kinds = json_object_get(o, "root")
                        ? kind_bits(L, json_object_get(o, "root"), p, PKK_DICT | PKK_LIST | PKK_TUPLE | PKK_ARRAY)
                        : PKK_DICT;
    free(p);
    check_grammar(L, g, jp);
    return g;
}
