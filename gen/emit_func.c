/* afmt-gen: one C function per structure of the validator (gen/emit.h,
 * func_begin / func_end).
 *
 * A structure's statements are emitted into a buffer of their own, as if
 * they stood where the structure is.  When the structure ends, the values
 * its statements read that the enclosing functions declared become the
 * new function's parameters, with the types they were declared with: the
 * emitter reads them from the C it wrote, its declarations being one per
 * statement and never shadowed (every name is unique in a spec, every
 * temporary numbered).  The validator's functions share one context
 * `c` (afmt_validation: the input, options, visitor, error, path, region,
 * cursor and count of arrays), their first parameter when they use it.
 * The caller gets one line, `if (<fmt>_validate_<name>(c, ...)) return -1;`.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "emit.h"

static void die(const char *why)
{
    fprintf(stderr, "afmt-gen: %s\n", why);
    exit(2);
}

typedef struct ctoken {
    const char *s;
    size_t n;
} ctoken;

typedef struct ctokens {
    ctoken *v;
    int n, cap;
} ctokens;

static int tok_is(const ctoken *t, const char *s)
{
    return t->n == strlen(s) && memcmp(t->s, s, t->n) == 0;
}

static int tok_ident(const ctoken *t)
{
    return t->n > 0 && (isalpha((unsigned char)t->s[0]) || t->s[0] == '_');
}

/* The ctokens of C text: identifiers, numbers, "->" and single punctuation;
 * comments and string and character literals are left out. */
static void tokenize(const char *s, ctokens *out)
{
    size_t i = 0;
    out->n = 0;
    while (s && s[i]) {
        size_t start = i;
        char c = s[i];
        if (isspace((unsigned char)c)) { i++; continue; }
        if (c == '/' && s[i + 1] == '*') {
            const char *e = strstr(s + i + 2, "*/");
            i = e ? (size_t)(e - s) + 2 : strlen(s);
            continue;
        }
        if (c == '/' && s[i + 1] == '/') {
            while (s[i] && s[i] != '\n') i++;
            continue;
        }
        if (c == '"' || c == '\'') {
            for (i++; s[i] && s[i] != c; i++)
                if (s[i] == '\\' && s[i + 1]) i++;
            if (s[i]) i++;
            continue;
        }
        if (isalnum((unsigned char)c) || c == '_') {
            while (isalnum((unsigned char)s[i]) || s[i] == '_') i++;
        } else if (c == '-' && s[i + 1] == '>') {
            i += 2;
        } else {
            i++;
        }
        if (out->n == out->cap) {
            out->cap = out->cap ? out->cap * 2 : 256;
            out->v = realloc(out->v, sizeof *out->v * (size_t)out->cap);
            if (!out->v) die("out of memory");
        }
        out->v[out->n].s = s + start;
        out->v[out->n++].n = i - start;
    }
}

static int is_type_name(const ctoken *t)
{
    static const char *const names[] = {"int", "char", "size_t", "double", "uint8_t", "uint16_t", "uint32_t",
                                        "uint64_t", "int8_t", "int16_t", "int32_t", "int64_t"};
    size_t k;
    if (t->n > 5 && memcmp(t->s, "afmt_", 5) == 0) return 1;
    /* a region's struct of values (func_hand_out) */
    if (t->n > 6 && memcmp(t->s + t->n - 6, "_scope", 6) == 0) return 1;
    for (k = 0; k < sizeof names / sizeof names[0]; k++)
        if (tok_is(t, names[k])) return 1;
    return 0;
}

typedef struct decl {
    char name[256];
    char type[256];
    int depth;
    int order;    /* a parameter's place: where the caller's scope declared it */
    int next;     /* decls: the one before it of the same hash, or -1 */
} decl;

/* Declarations in text order, with a hash of their names: a name is
 * found in constant time whatever their number (a function of a
 * thousand fields reads each once). */
typedef struct decls {
    decl *v;
    int n, cap;
    int *heads;   /* per hash bucket: the latest declaration in it, or -1 */
    int nheads;   /* a power of two, at least twice n; 0: none yet */
} decls;

static unsigned name_hash(const char *s, size_t n)
{
    unsigned h = 2166136261u;
    size_t i;
    for (i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

static void decls_link(decls *ds, int i)
{
    const unsigned b = name_hash(ds->v[i].name, strlen(ds->v[i].name)) & (unsigned)(ds->nheads - 1);
    ds->v[i].next = ds->heads[b];
    ds->heads[b] = i;
}

/* The hash twice as big, every declaration linked again in text order. */
static void decls_rehash(decls *ds)
{
    int i;
    ds->nheads = ds->nheads ? ds->nheads * 2 : 128;
    free(ds->heads);
    ds->heads = malloc(sizeof *ds->heads * (size_t)ds->nheads);
    if (!ds->heads) die("out of memory");
    for (i = 0; i < ds->nheads; i++) ds->heads[i] = -1;
    for (i = 0; i < ds->n; i++) decls_link(ds, i);
}

static void decls_free(decls *ds)
{
    free(ds->v);
    free(ds->heads);
    memset(ds, 0, sizeof *ds);
}

/* If a declaration starts at ctoken i (`[const] TYPE [*] [const] NAME`
 * followed by = ; , or ), not an array), its name and type; the index of
 * the name, or -1.  A declaration starts the text, or follows ; { } ( or ,
 * (at i == 0: when start_ok, the text before ending so). */
static int decl_at(const ctokens *t, int i, decl *d, int start_ok)
{
    int j = i;
    sbuf ty = {0};
    if (i == 0 ? !start_ok : !(tok_is(&t->v[i - 1], ";") || tok_is(&t->v[i - 1], "{") || tok_is(&t->v[i - 1], "}") ||
                               tok_is(&t->v[i - 1], "(") || tok_is(&t->v[i - 1], ",")))
        return -1;
    if (j < t->n && tok_is(&t->v[j], "const")) { sb_puts(&ty, "const "); j++; }
    if (j >= t->n || !is_type_name(&t->v[j])) { sb_free(&ty); return -1; }
    sb_printf(&ty, "%.*s", (int)t->v[j].n, t->v[j].s);
    j++;
    while (j < t->n && (tok_is(&t->v[j], "*") || tok_is(&t->v[j], "const"))) {
        sb_puts(&ty, tok_is(&t->v[j], "*") ? " *" : "const");
        j++;
    }
    if (j + 4 < t->n && tok_ident(&t->v[j]) && tok_is(&t->v[j + 1], "[") && tok_is(&t->v[j + 3], "]") &&
        (tok_is(&t->v[j + 4], "=") || tok_is(&t->v[j + 4], ";")) && t->v[j].n < sizeof d->name &&
        strlen(ty.s) + 9 < sizeof d->type) {
        /* an array: its callees take a pointer to its first element */
        snprintf(d->name, sizeof d->name, "%.*s", (int)t->v[j].n, t->v[j].s);
        snprintf(d->type, sizeof d->type, "%s%s *", strncmp(ty.s, "const ", 6) == 0 ? "" : "const ", ty.s);
        sb_free(&ty);
        return j;
    }
    if (j + 1 >= t->n || !tok_ident(&t->v[j]) || t->v[j].n >= sizeof d->name ||
        !(tok_is(&t->v[j + 1], "=") || tok_is(&t->v[j + 1], ";") || tok_is(&t->v[j + 1], ",") || tok_is(&t->v[j + 1], ")")) ||
        strlen(ty.s) >= sizeof d->type) {
        sb_free(&ty);
        return -1;
    }
    snprintf(d->name, sizeof d->name, "%.*s", (int)t->v[j].n, t->v[j].s);
    snprintf(d->type, sizeof d->type, "%s", ty.s);
    sb_free(&ty);
    return j;
}

static void decls_add(decls *ds, const decl *d)
{
    if (ds->n == ds->cap) {
        ds->cap = ds->cap ? ds->cap * 2 : 64;
        ds->v = realloc(ds->v, sizeof *ds->v * (size_t)ds->cap);
        if (!ds->v) die("out of memory");
    }
    ds->v[ds->n++] = *d;
    if (ds->n * 2 > ds->nheads) decls_rehash(ds);
    else decls_link(ds, ds->n - 1);
}

/* Forget the latest declaration: the first of its hash chain, as every
 * one linked after it has been forgotten before it. */
static void decls_pop(decls *ds)
{
    const decl *d = &ds->v[--ds->n];
    ds->heads[name_hash(d->name, strlen(d->name)) & (unsigned)(ds->nheads - 1)] = d->next;
}

/* The latest declaration of the name s (n bytes), or NULL. */
static const decl *decls_find(const decls *ds, const char *s, size_t n)
{
    int i;
    if (ds->nheads == 0) return NULL;
    for (i = ds->heads[name_hash(s, n) & (unsigned)(ds->nheads - 1)]; i >= 0; i = ds->v[i].next)
        if (strlen(ds->v[i].name) == n && memcmp(ds->v[i].name, s, n) == 0) return &ds->v[i];
    return NULL;
}

/* Where a scan of C text stands: the declarations found (with all unset,
 * only those still in scope: a block's leave with its closing brace),
 * the brace depth, and whether a declaration may start the text after. */
typedef struct decl_scan {
    decls found;
    int depth;
    int start_ok;
} decl_scan;

static void scan_more(const char *text, int all, decl_scan *sc)
{
    ctokens t = {0};
    int i;
    decl d;
    tokenize(text, &t);
    for (i = 0; i < t.n; i++) {
        if (tok_is(&t.v[i], "{")) {
            sc->depth++;
        } else if (tok_is(&t.v[i], "}")) {
            sc->depth--;
            while (!all && sc->found.n > 0 && sc->found.v[sc->found.n - 1].depth > sc->depth) decls_pop(&sc->found);
        } else if (decl_at(&t, i, &d, sc->start_ok) >= 0) {
            d.depth = sc->depth;
            decls_add(&sc->found, &d);
        }
    }
    if (t.n > 0) {
        const ctoken *last = &t.v[t.n - 1];
        sc->start_ok = tok_is(last, ";") || tok_is(last, "{") || tok_is(last, "}") || tok_is(last, "(") || tok_is(last, ",");
    }
    free(t.v);
}

/* The declarations of text: with all set, every one; else those still in
 * scope at its end. */
static void scan_decls(const char *text, int all, decls *out)
{
    decl_scan sc;
    memset(&sc, 0, sizeof sc);
    sc.start_ok = 1;
    scan_more(text, all, &sc);
    *out = sc.found;
}

/* An enclosing function's declarations in scope at the end of its first
 * `done` bytes.  Its text only grows, so each nested function's end scans
 * only what was added since the last (with every deferred declaration's
 * text, used or not yet: a name the nested function reads was used), and
 * a spec of n items costs O(n), not one scan of the whole caller per
 * nested function. */
typedef struct frame_scan {
    size_t done;
    decl_scan sc;
} frame_scan;

static void frame_scan_free(frame_scan *fs)
{
    if (!fs) return;
    decls_free(&fs->sc.found);
    free(fs);
}

/* text[0..n) with each placeholder of a deferred declaration
 * (decls_resolve) replaced by its text, used or not. */
static char *with_every_decl(const emitter *m, const char *text, size_t n)
{
    sbuf out = {0};
    size_t i = 0;
    while (i < n) {
        const char *mark = memchr(text + i, '\x01', n - i);
        char *end;
        long k;
        if (!mark) { sb_printf(&out, "%.*s", (int)(n - i), text + i); break; }
        sb_printf(&out, "%.*s", (int)(mark - (text + i)), text + i);
        k = strtol(mark + 1, &end, 10);
        if (k >= 0 && k < m->npieces && m->piece_decl[k] > 0) sb_puts(&out, m->pieces[k]);
        i = (size_t)(end - text) + (*end == '\n');
    }
    return out.s ? out.s : xstrdup("");
}

/* Frame k's declarations in scope at the end of its last whole line. */
static const decls *frame_decls(emitter *m, int k)
{
    frame_scan *fs = m->scans[k];
    const sbuf *b = m->frames[k];
    size_t end = b->len;
    if (!fs) {
        fs = m->scans[k] = calloc(1, sizeof *fs);
        if (!fs) die("out of memory");
        fs->sc.start_ok = 1;
    }
    while (end > fs->done && b->s[end - 1] != '\n') end--;
    if (end > fs->done) {
        char *more = with_every_decl(m, b->s + fs->done, end - fs->done);
        m->work += end - fs->done;
        scan_more(more, 0, &fs->sc);
        free(more);
        fs->done = end;
    }
    return &fs->sc.found;
}

void func_root_frame(emitter *m, sbuf *body, const char *name)
{
    func_frames_free(m);
    m->frames[0] = body;
    m->frame_names[0] = name;
    m->nframes = 1;
}

void func_frames_free(emitter *m)
{
    int k;
    for (k = 0; k < MAX_FRAMES; k++) {
        frame_scan_free(m->scans[k]);
        m->scans[k] = NULL;
    }
}

static int by_order(const void *a, const void *b)
{
    const decl *x = a, *y = b;
    return (x->order > y->order) - (x->order < y->order);
}

/* The caller's facts (facts[0..nnonneg)) hold in the whole function
 * being begun: each made in force at indent 0, its own indent kept in f. */
static void facts_enter_function(emitter *m, func_frame *f)
{
    int i;
    f->saved_fact_indents = malloc(sizeof *f->saved_fact_indents * (size_t)(m->nnonneg + 1));
    if (!f->saved_fact_indents) die("out of memory");
    for (i = 0; i < m->nnonneg; i++) {
        f->saved_fact_indents[i] = m->facts[i].indent;
        m->facts[i].indent = 0;
    }
}

/* After the function: the caller's facts (nnonneg restored first) at
 * their own indents again. */
static void facts_leave_function(emitter *m, func_frame *f)
{
    int i;
    for (i = 0; i < m->nnonneg; i++) m->facts[i].indent = f->saved_fact_indents[i];
    free(f->saved_fact_indents);
    f->saved_fact_indents = NULL;
}

void func_begin(emitter *m, func_frame *f, const char *name)
{
    memset(f, 0, sizeof *f);
    if (m->nframes >= MAX_FRAMES) die("structures nested too deep");
    f->saved_out = m->out;
    f->saved_indent = m->indent;
    f->saved_nnonneg = m->nnonneg;
    f->saved_returned = m->returned;
    m->returned = 0;
    facts_enter_function(m, f);
    m->out = &f->body;
    m->indent = 1;
    f->name = xstrdup(name);
    m->frame_names[m->nframes] = f->name;
    frame_scan_free(m->scans[m->nframes]);
    m->scans[m->nframes] = NULL;
    m->frames[m->nframes++] = &f->body;
}

static int name_taken(const emitter *m, const char *fn)
{
    return strindex_get(&m->func_name_index, fn) >= 0;
}

/* A function name not used yet: <fmt>_validate_<name>, else (an array of
 * the same name in another case) <fmt>_validate_<enclosing>_<name>, else
 * numbered. */
static char *unique_name(emitter *m, const char *name, const char *enclosing)
{
    const char *verb = m->writer ? "write" : "validate";
    char *fn = xprintf("%s_%s_%s", m->s->format, verb, name), *what;
    int n = 2;
    if ((name_taken(m, fn) || c_name_taken(m, fn)) && enclosing) {
        free(fn);
        fn = xprintf("%s_%s_%s_%s", m->s->format, verb, enclosing, name);
    }
    /* another function's, or a table's, a structure's, ... (emit_names.c);
     * numbered from where the last search of this name stopped */
    if (name_taken(m, fn) || c_name_taken(m, fn)) {
        char *base = xprintf("%s_%s_%s", m->s->format, verb, name);
        n = name_number(m, base) > 2 ? name_number(m, base) : 2;
        do {
            free(fn);
            m->tries++;
            fn = xprintf("%s_%d", base, n++);
        } while (name_taken(m, fn) || c_name_taken(m, fn));
        name_number_set(m, base, n);
        free(base);
    }
    what = xprintf("the function %s", fn);
    c_name_claim(m, fn, what, NULL);
    free(what);
    m->func_names = realloc(m->func_names, sizeof *m->func_names * (size_t)(m->nfunc_names + 1));
    if (!m->func_names) die("out of memory");
    strindex_put(&m->func_name_index, fn, m->nfunc_names);
    m->func_names[m->nfunc_names++] = fn;
    return fn;
}

/* The parameters every function of the validator (machine[0]) or of the
 * writer (machine[1]) may take: its entry point's. */
#define NMACHINE 6
static const char *const machine[2][NMACHINE] = {{"c", NULL, NULL, NULL, NULL, NULL},
                                                 {"arrays", "n", "wopt", "sink", "err", "owned"}};
static const char *const machine_type[2][NMACHINE] = {
    {"afmt_validation *", NULL, NULL, NULL, NULL, NULL},
    {"const afmt_array *", "const size_t", "const afmt_write_options *", "afmt_sink *", "afmt_error *", "uint8_t **"}};

/* What a function's statements read from outside them. */
typedef struct captures {
    decls vals;             /* values enclosing functions declared, in binding order */
    int machine[NMACHINE];  /* c (the writer's: arrays, n, wopt, sink, err, owned) */
} captures;

/* Value x, read in the function, as the innermost enclosing function that
 * has it in scope declared it (const added: a parameter is not assigned). */
static void capture_value(const ctoken *x, const decls *const *outer, int nouter, decls *vals)
{
    int k;
    for (k = nouter - 1; k >= 0; k--) {
        const decl *d = decls_find(outer[k], x->s, x->n);
        if (d) {
            decl c = *d;
            c.order = k * 10000000 + (int)(d - outer[k]->v);
            if (!strstr(c.type, "const") && !strchr(c.type, '*') && strlen(c.type) + 6 < sizeof c.type) {
                memmove(c.type + 6, c.type, strlen(c.type) + 1);
                memcpy(c.type, "const ", 6);
            }
            decls_add(vals, &c);
            return;
        }
    }
}

/* The captures of the function whose statements are t (declaring own),
 * inside the functions m->frames[0 .. m->nframes). */
static void find_captures(emitter *m, const ctokens *t, const decls *own, captures *c)
{
    const decls *outer[MAX_FRAMES];
    int i, k;
    memset(c, 0, sizeof *c);
    for (k = 0; k < m->nframes; k++) outer[k] = frame_decls(m, k);
    for (i = 0; i < t->n; i++) {
        const ctoken *x = &t->v[i];
        int is_machine = 0;
        if (!tok_ident(x) || (i > 0 && (tok_is(&t->v[i - 1], ".") || tok_is(&t->v[i - 1], "->")))) continue;
        if (decls_find(own, x->s, x->n) || decls_find(&c->vals, x->s, x->n)) continue;
        for (k = 0; k < NMACHINE; k++)
            if (machine[m->writer][k] && tok_is(x, machine[m->writer][k])) c->machine[k] = is_machine = 1;
        if (!is_machine) capture_value(x, outer, m->nframes, &c->vals);
    }
    /* parameters in the order their values were bound: sibling functions
     * list the values they share alike */
    if (c->vals.n > 1) qsort(c->vals.v, (size_t)c->vals.n, sizeof *c->vals.v, by_order); /* its hash is stale now */
}

/* One parameter (type and name) and the caller's argument for it. */
static void param_add(sbuf *params, sbuf *args, const char *type, const char *name, const char *arg)
{
    size_t n = strlen(type);
    sb_printf(params, "%s%s%s%s", params->len ? ", " : "", type, n && type[n - 1] == '*' ? "" : " ", name);
    sb_printf(args, "%s%s", args->len ? ", " : "", arg);
}

/* The parameter list and the call's arguments of captures c. */
static void param_list(const emitter *m, const captures *c, sbuf *params, sbuf *args)
{
    int k;
    for (k = 0; k < NMACHINE; k++)
        if (c->machine[k]) param_add(params, args, machine_type[m->writer][k], machine[m->writer][k], machine[m->writer][k]);
    for (k = 0; k < c->vals.n; k++) param_add(params, args, c->vals.v[k].type, c->vals.v[k].name, c->vals.v[k].name);
}

/* The function's definition, into m->funcs. */
static void define_function(emitter *m, const func_frame *f, const char *fname, const char *doc, const char *params,
                            const char *text, int returned)
{
    sbuf fn = {0};
    sbuf *saved = m->out;
    /* line() at indent 0 would forget the caller's proofs (emit.h, nonneg) */
    int saved_indent = m->indent, saved_nnonneg = m->nnonneg;
    m->out = &fn;
    m->indent = 0;
    m->nnonneg = 0;
    if (doc) {
        char *safe = c_comment(doc); /* the spec's words (a structure's doc) */
        line(m, "/* %s */", safe);
        free(safe);
    }
    line(m, "static int %s(%s)", fname, params ? params : "void");
    line(m, "{");
    sb_puts(&fn, text[0] == '\n' ? text + 1 : text); /* no blank line after the brace */
    if (f->scope_fill.s) sb_puts(&fn, f->scope_fill.s);
    if (!returned) line(m, "    return 0;");
    line(m, "}");
    line(m, "%s", "");
    m->out = saved;
    m->indent = saved_indent;
    m->nnonneg = saved_nnonneg;
    sb_puts(m->funcs, fn.s);
    sb_free(&fn);
}

void func_end(emitter *m, func_frame *f, const char *doc)
{
    /* the declarations it uses are known now: none is used after it */
    char *resolved = decls_resolve(m, f->body.s);
    ctokens t = {0};
    decls own = {0};
    captures c;
    sbuf params = {0}, args = {0};
    char *fname = unique_name(m, f->name, m->nframes >= 2 ? m->frame_names[m->nframes - 2] : NULL);
    const int returned = m->returned && !f->scope_type;

    m->nframes--;
    m->out = f->saved_out;
    m->indent = f->saved_indent;
    m->nnonneg = f->saved_nnonneg;
    m->returned = f->saved_returned;
    facts_leave_function(m, f);

    m->work += strlen(resolved);
    tokenize(resolved, &t);
    scan_decls(resolved, 1, &own);
    find_captures(m, &t, &own, &c);
    param_list(m, &c, &params, &args);
    if (f->scope_type) {
        char *ty = xprintf("%s *", f->scope_type), *arg = xprintf("&%s", f->scope_var);
        param_add(&params, &args, ty, "scope", arg);
        /* zeroed: a compiler cannot see that the call fills it when it succeeds */
        line(m, "%s %s = {0};", f->scope_type, f->scope_var);
        free(ty);
        free(arg);
    }
    define_function(m, f, fname, doc, params.s, resolved, returned);
    if (f->on_fail) {
        char *call = xprintf("%s(%s)", fname, args.s ? args.s : "");
        emit_if_stmt(m, call, f->on_fail);
        free(call);
    } else {
        line(m, "if (%s(%s)) return -1;", fname, args.s ? args.s : "");
    }

    sb_free(&params);
    sb_free(&args);
    sb_free(&f->body);
    sb_free(&f->scope_fill);
    free(f->scope_type);
    free(f->scope_var);
    free(f->on_fail);
    free(f->name);
    free(resolved);
    free(t.v);
    decls_free(&own);
    decls_free(&c.vals);
}

void func_begin_root(emitter *m, func_frame *f, int *saved_nframes)
{
    sbuf *frames[MAX_FRAMES];
    const char *names[MAX_FRAMES];
    *saved_nframes = m->nframes;
    memcpy(frames, m->frames, sizeof frames);
    memcpy(names, m->frame_names, sizeof names);
    m->nframes = 0; /* nothing outside it is in scope */
    /* the enclosing functions' scans wait for them, the structure's own start empty */
    memcpy(f->saved_scans, m->scans, sizeof m->scans);
    memset(m->scans, 0, sizeof m->scans);
    func_begin(m, f, "struct");
    memcpy(f->saved_frames, frames, sizeof frames);
    memcpy(f->saved_frame_names, names, sizeof names);
}

void func_end_root(emitter *m, func_frame *f, int saved_nframes, const char *fname, const char *params_c,
                   const char *doc)
{
    char *resolved = decls_resolve(m, f->body.s);
    char *params = xprintf("afmt_validation *c%s", params_c ? params_c : "");
    const int returned = m->returned;
    m->nframes = saved_nframes;
    func_frames_free(m);
    memcpy(m->scans, f->saved_scans, sizeof m->scans);
    memcpy(m->frames, f->saved_frames, sizeof f->saved_frames);
    memcpy(m->frame_names, f->saved_frame_names, sizeof f->saved_frame_names);
    m->out = f->saved_out;
    m->indent = f->saved_indent;
    m->nnonneg = f->saved_nnonneg;
    m->returned = f->saved_returned;
    facts_leave_function(m, f);
    define_function(m, f, fname, doc, params, resolved, returned);
    sb_free(&f->body);
    free(f->name);
    free(resolved);
    free(params);
}

/* Identifier at s[i] (of n bytes) is a member of ds, and not itself a
 * member access. */
static int member_at(const char *s, size_t i, size_t n, const decls *ds)
{
    if (i > 0 && (s[i - 1] == '.' || (i > 1 && s[i - 1] == '>' && s[i - 2] == '-'))) return 0;
    return decls_find(ds, s + i, n) != NULL;
}

/* *c with each identifier that is a member of ds read through var
 * ("o_dims" -> "header.o_dims"). */
static void rewrite_members(char **c, const decls *ds, const char *var)
{
    sbuf b = {0};
    size_t i = 0;
    while ((*c)[i]) {
        if (isalpha((unsigned char)(*c)[i]) || (*c)[i] == '_') {
            size_t n = 0;
            while (isalnum((unsigned char)(*c)[i + n]) || (*c)[i + n] == '_') n++;
            if (member_at(*c, i, n, ds)) sb_printf(&b, "%s.", var);
            sb_printf(&b, "%.*s", (int)n, *c + i);
            i += n;
        } else if ((*c)[i] == '%' && (*c)[i + 1]) {
            sb_printf(&b, "%.2s", *c + i); /* a format's directive (sym.elem), not a name */
            i += 2;
        } else {
            sb_printf(&b, "%c", (*c)[i++]);
        }
    }
    free(*c);
    *c = b.s ? b.s : xstrdup("");
}

/* The names y's C expressions read that the function declares (one of
 * its own, function-level declarations fn), added to members. */
static void sym_members(const sym *y, const decls *fn, decls *members)
{
    const char *exprs[4];
    int k, i;
    exprs[0] = y->c; exprs[1] = y->off; exprs[2] = y->count; exprs[3] = y->elem;
    for (k = 0; k < 4; k++) {
        ctokens t = {0};
        tokenize(exprs[k], &t);
        for (i = 0; i < t.n; i++) {
            const decl *d = decls_find(fn, t.v[i].s, t.v[i].n);
            if (d && !decls_find(members, d->name, strlen(d->name))) decls_add(members, d);
        }
        free(t.v);
    }
}

static int is_reserved_var(const char *name)
{
    /* names generated code gives its own parameters and locals, and every
     * C11 keyword (a region named "uint64_t" or "c" would be C that does not
     * compile: the spec fuzzer's seed 5175) */
    static const char *const words[] = {
        "c", "ctx", "src", "opt", "vis", "err", "path", "scope", "rest", "trailer", "label", "a", "j",
        "column_offset", "at", "pos", "n", "ai", "i", "k", "buf", "len", "sink", "arrays", "wopt", "owned", "in",
        "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum", "extern",
        "float", "for", "goto", "if", "inline", "int", "long", "register", "restrict", "return", "short", "signed",
        "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void", "volatile", "while",
        "_Alignas", "_Alignof", "_Atomic", "_Bool", "_Complex", "_Generic", "_Imaginary", "_Noreturn",
        "_Static_assert", "_Thread_local", "NULL", "errno", "main", "bool", "true", "false"};
    size_t k, n = strlen(name);
    for (k = 0; k < sizeof words / sizeof words[0]; k++)
        if (strcmp(words[k], name) == 0) return 1;
    /* a type (uint64_t, size_t, ...), the runtime's names, a generated local's prefix */
    if ((n > 2 && strcmp(name + n - 2, "_t") == 0) || strncmp(name, "afmt_", 5) == 0 || strncmp(name, "AFMT_", 5) == 0)
        return 1;
    /* dir_<name>, count_<name>, ...: another item's local (c_lookup_base) */
    return c_local_prefixed(name) || (n > 2 && name[1] == '_' && strchr("voneiAwx", name[0]) != NULL);
}

void func_hand_out(emitter *m, func_frame *f, sym **ys, int n, const char *name)
{
    char *text = decls_resolve(m, f->body.s);
    decls fn = {0}, members = {0};
    sbuf def = {0};
    int i;
    f->scope_type = xprintf("%s_%s_scope", m->s->format, name);
    {
        char *what = xprintf("the type of the values '%s' hands out", name);
        c_name_claim(m, f->scope_type, what, NULL);
        free(what);
    }
    f->scope_var = is_reserved_var(name) ? xprintf("%s_scope", name) : xstrdup(name);
    m->work += strlen(text);
    scan_decls(text, 0, &fn);
    for (i = 0; i < n; i++) sym_members(ys[i], &fn, &members);
    sb_printf(&def, "/* The values of %s that the items after it read. */\n", name);
    sb_printf(&def, "typedef struct %s {\n", f->scope_type);
    for (i = 0; i < members.n; i++) {
        const char *ty = members.v[i].type;
        if (strncmp(ty, "const ", 6) == 0) ty += 6;
        sb_printf(&def, "    %s %s;\n", ty, members.v[i].name);
        sb_printf(&f->scope_fill, "    scope->%s = %s;\n", members.v[i].name, members.v[i].name);
    }
    sb_printf(&def, "} %s;\n\n", f->scope_type);
    sb_puts(m->funcs, def.s);
    for (i = 0; i < n; i++) {
        sym *y = ys[i];
        rewrite_members(&y->c, &members, f->scope_var);
        rewrite_members(&y->off, &members, f->scope_var);
        rewrite_members(&y->count, &members, f->scope_var);
        rewrite_members(&y->elem, &members, f->scope_var);
    }
    sb_free(&def);
    free(text);
    decls_free(&fn);
    decls_free(&members);
}
