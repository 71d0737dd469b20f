/* afmt reference interpreter: loading a spec (afmt-gen's loader and its
 * checks), the descriptors built from it once (text headers, the format
 * descriptor), detection. */
#include <stdlib.h>
#include <string.h>
#include "archive/afmt_ar_detect.h"
#include "text/afmt_futhark_text.h"
#include "common/afmt_dtype.h"
#include "core/afmt_fields.h"
#include "interp.h"

/* The grammars of text values the runtime has (gen/load_item.c knows the
 * same names). */
static const igrammar GRAMMARS[] = {
    {"futhark", afmt_futhark_text_scan, afmt_futhark_text_decode},
};

const igrammar *igrammar_find(const char *name)
{
    size_t i;
    for (i = 0; i < sizeof GRAMMARS / sizeof GRAMMARS[0]; i++)
        if (strcmp(GRAMMARS[i].name, name) == 0) return &GRAMMARS[i];
    return NULL;
}

/* Items of the spec, counted: a run holds at most one symbol per item
 * (and two more while checking an element of an "each"). */
int icount_items(const item_list *b)
{
    int i, j, n = b->n;
    for (i = 0; i < b->n; i++) {
        n += icount_items(&b->v[i]->body);
        for (j = 0; j < b->v[i]->ncases; j++) n += icount_items(&b->v[i]->cases[j].body);
    }
    return n;
}

/* ---- text headers: the runtime's descriptor, as gen/texthdr.c emits it */

static void thdr_desc(const spec *s, const item *it, afmt_header_arrays_desc *d)
{
    const texthdr *h = it->th;
    afmt_header_arrays_key *keys = calloc((size_t)h->nkeys + 1, sizeof *keys);
    afmt_header_arrays_type *types = calloc((size_t)h->ntypes + 1, sizeof *types);
    int i;
    if (!keys || !types) abort(); /* as afmt-gen's loader: a build tool's allocation */
    for (i = 0; i < h->nkeys; i++) {
        keys[i].key = h->keys[i].key;
        keys[i].bind = (afmt_header_arrays_bind)h->keys[i].bind;
        keys[i].kind = h->keys[i].tuple ? AFMT_TV_TUPLE : AFMT_TV_LIST;
    }
    for (i = 0; i < h->ntypes; i++) {
        const th_type *t = &h->types[i];
        types[i].text = t->text;
        types[i].prefix = t->prefix;
        types[i].dtype = t->dtype ? afmt_dtype_from_name(t->dtype) : AFMT_DTYPE_INVALID;
        types[i].size = (uint32_t)t->size;
        types[i].endian = t->big ? AFMT_BIG : AFMT_LITTLE;
        types[i].writable = t->writable;
        types[i].refuse = t->refuse;
    }
    memset(d, 0, sizeof *d);
    d->format = s->format;
    d->name = it->name;
    d->syntax = h->python ? AFMT_TEXTHDR_PYDICT : AFMT_TEXTHDR_JSON;
    d->length_width = (unsigned)h->length_width;
    d->length_big = h->length_big;
    d->max_length = h->max_length;
    d->pad = h->pad;
    d->terminator = h->terminator;
    d->align = h->align;
    d->write_align = h->write_align;
    d->write_min_pad = h->write_min_pad;
    d->write_spare = h->write_spare;
    d->map = h->map;
    d->metadata_key = h->metadata_key;
    d->keys = keys;
    d->nkeys = (size_t)h->nkeys;
    d->types = types;
    d->ntypes = (size_t)h->ntypes;
    d->default_name = h->default_name ? h->default_name : "";
    d->lenient = h->lenient;
    memcpy(d->write_sort, h->write_sort, sizeof d->write_sort);
}

static void collect_thdrs(afmt_interp *in, const item_list *b)
{
    int i, j;
    for (i = 0; i < b->n; i++) {
        const item *it = b->v[i];
        if (it->kind == IT_TEXTHDR && it->th) {
            ithdr *t = realloc(in->thdrs, sizeof *t * (size_t)(in->nthdrs + 1));
            if (!t) abort();
            in->thdrs = t;
            t[in->nthdrs].it = it;
            thdr_desc(in->s, it, &t[in->nthdrs].desc);
            in->nthdrs++;
        }
        collect_thdrs(in, &it->body);
        for (j = 0; j < it->ncases; j++) collect_thdrs(in, &it->cases[j].body);
    }
}

const afmt_header_arrays_desc *ithdr_of(const afmt_interp *in, const item *it)
{
    int i;
    for (i = 0; i < in->nthdrs; i++)
        if (in->thdrs[i].it == it) return &in->thdrs[i].desc;
    return NULL;
}

/* ---- loading */

/* The sidecar file the spec checks beside the data (DAPHNE's .meta), as
 * gen/emit_format.c describes it. */
static void describe_sidecar(afmt_interp *in)
{
    const spec *s = in->s;
    const char **keys[6];
    int k;
    if (!s->sidecar_suffix) return;
    memset(&in->sidecar, 0, sizeof in->sidecar);
    keys[0] = &in->sidecar.key_rows;
    keys[1] = &in->sidecar.key_cols;
    keys[2] = &in->sidecar.key_value_type;
    keys[3] = &in->sidecar.key_nnz;
    keys[4] = &in->sidecar.key_schema;
    keys[5] = &in->sidecar.key_label;
    in->sidecar.suffix = s->sidecar_suffix;
    for (k = 0; k < 6; k++) *keys[k] = s->sidecar_keys[k] ? s->sidecar_keys[k] : "";
    for (k = 0; k < s->nsidecar_names; k++) {
        const afmt_dtype d = afmt_dtype_from_name(s->sidecar_names[k][0]);
        if (d != AFMT_DTYPE_INVALID && (int)d < AFMT_DTYPE_COUNT_) in->sidecar.value_names[d] = s->sidecar_names[k][1];
    }
    in->format.sidecar = &in->sidecar;
}

static void describe_format(afmt_interp *in)
{
    const spec *s = in->s;
    int col_major, multi, compresses, i;
    in->extensions = calloc((size_t)s->nextensions + 1, sizeof *in->extensions);
    if (!in->extensions) abort();
    for (i = 0; i < s->nextensions; i++) in->extensions[i] = s->extensions[i];
    in->shared_extensions = calloc((size_t)s->nshared_extensions + 1, sizeof *in->shared_extensions);
    if (!in->shared_extensions) abort();
    for (i = 0; i < s->nshared_extensions; i++) in->shared_extensions[i] = s->shared_extensions[i];
    spec_format_traits(s, &col_major, &multi, &compresses);
    memset(&in->format, 0, sizeof in->format);
    in->format.name = s->format;
    in->format.spec = s->path;
    in->format.extensions = in->extensions;
    in->format.shared_extensions = in->shared_extensions;
    in->format.order = col_major ? AFMT_COL_MAJOR : AFMT_ROW_MAJOR;
    in->format.multi = multi;
    in->format.compresses = 0; /* the interpreter writes nothing */
    (void)compresses;
    describe_sidecar(in);
}

/* LeakSanitizer's switches, when it is linked in (weak: NULL otherwise).
 * afmt-gen's loader and emitters keep what they allocate until exit (a
 * build tool's model: gen/load.h); that is by design, not a leak of a
 * program that loads specs, so LeakSanitizer is told to ignore it. */
void __lsan_disable(void) __attribute__((weak));
void __lsan_enable(void) __attribute__((weak));

/* afmt-gen's loader and everything `afmt-gen --check` checks: names,
 * types, the validator and the writer; a spec it refuses is refused here,
 * with its words (on stderr). */
static spec *load_checked(const char *path, const char *text)
{
    spec *s;
    if (__lsan_disable) __lsan_disable();
    s = text ? spec_load_text(path, text) : spec_load(path);
    if (s && (spec_check(s) != 0 || emit_format(s, NULL) != 0)) s = NULL;
    if (__lsan_enable) __lsan_enable();
    return s;
}

/* The first item of body of a kind the interpreter does not run yet, or
 * NULL (it runs every kind of the language now: a new kind is refused
 * here until it has its function in interp_run.c's table). */
static const item *not_interpreted(const item_list *body)
{
    int i, j;
    for (i = 0; i < body->n; i++) {
        const item *it = body->v[i], *x = NULL;
        if (it->kind > IT_CARDS) return it;
        if (it->kind == IT_REPEAT || it->kind == IT_REGION) x = not_interpreted(&it->body);
        for (j = 0; !x && j < it->ncases; j++) x = not_interpreted(&it->cases[j].body);
        if (x) return x;
    }
    return NULL;
}

/* 1 and a message in why[n] naming the first item of s the interpreter
 * does not run yet, or 0. */
static int unsupported_in(const spec *s, const char *path, char *why, size_t n)
{
    const item *it = not_interpreted(&s->body);
    int k;
    for (k = 0; !it && k < s->nstructs; k++) it = not_interpreted(&s->structs[k].body);
    if (!it) return 0;
    if (n) snprintf(why, n, "%s: %s: the interpreter does not run this kind of item yet", path, it->jpath);
    return 1;
}

int afmt_interp_unsupported(const char *path, char *why, size_t n)
{
    spec *s;
    /* the loader's model lives until exit, by design (load_checked) */
    if (__lsan_disable) __lsan_disable();
    s = spec_load(path);
    if (__lsan_enable) __lsan_enable();
    return s ? unsupported_in(s, path, why, n) : 0;
}

static afmt_interp *load(const char *path, const char *text, afmt_interp_refusal *why)
{
    spec *s = load_checked(path, text);
    afmt_interp *in;
    int k;
    *why = AFMT_INTERP_BAD_SPEC;
    if (!s) return NULL;
    *why = AFMT_INTERP_UNSUPPORTED;
    {
        char msg[512];
        if (unsupported_in(s, path, msg, sizeof msg)) {
            fprintf(stderr, "%s\n", msg);
            return NULL;
        }
    }
    *why = AFMT_INTERP_NOMEM;
    in = calloc(1, sizeof *in);
    if (!in) return NULL;
    *why = AFMT_INTERP_LOADED;
    in->index_name = iintern_names(s);
    in->s = s;
    in->max_syms = icount_items(&s->body) + 2;
    in->struct_syms = calloc((size_t)s->nstructs + 1, sizeof *in->struct_syms);
    if (!in->struct_syms) {
        *why = AFMT_INTERP_NOMEM;
        free(in);
        return NULL;
    }
    for (k = 0; k < s->nstructs; k++)
        in->struct_syms[k] = icount_items(&s->structs[k].body) + s->structs[k].nparams + 2;
    iaux_collect(in);
    collect_thdrs(in, &s->body);
    iarchives_collect(in);
    for (k = 0; k < s->nstructs; k++) collect_thdrs(in, &s->structs[k].body);
    ikv_collect(in, &s->body);
    for (k = 0; k < s->nstructs; k++) ikv_collect(in, &s->structs[k].body);
    describe_format(in);
    return in;
}

afmt_interp *afmt_interp_load_why(const char *path, afmt_interp_refusal *why) { return load(path, NULL, why); }

afmt_interp *afmt_interp_load(const char *path)
{
    afmt_interp_refusal why;
    return load(path, NULL, &why);
}

afmt_interp *afmt_interp_load_text(const char *path, const char *text)
{
    afmt_interp_refusal why;
    return load(path, text, &why);
}

void afmt_interp_free(afmt_interp *in)
{
    int i;
    if (!in) return;
    for (i = 0; i < in->nthdrs; i++) {
        free((void *)in->thdrs[i].desc.keys);
        free((void *)in->thdrs[i].desc.types);
    }
    free(in->thdrs);
    iarchives_free(in);
    iaux_free(in);
    ikv_free(in);
    free(in->extensions);
    free(in->shared_extensions);
    free(in->struct_syms);
    free(in);
}

const afmt_format *afmt_interp_format(const afmt_interp *in) { return &in->format; }

/* As the generated afmt_<format>_detect: any rule's bytes at its place
 * (after up to 64 bytes of white space when it skips them), and the
 * archive's first member name matching the rule's first_member when it
 * has one. */
int afmt_interp_detect(const afmt_interp *in, const uint8_t *buf, uint64_t len)
{
    int i;
    for (i = 0; i < in->s->ndetect; i++) {
        const detect_rule *d = &in->s->detect[i];
        const uint64_t n = (uint64_t)d->nbytes;
        uint64_t at = 0;
        if (d->skip_ws)
            while (at < len && at < 64 && afmt_is_space(buf[at])) at++;
        if (d->at > UINT64_MAX - at) continue;
        at += d->at;
        if (len >= at && len - at >= n && memcmp(buf + at, d->bytes, (size_t)n) == 0 &&
            (!d->first_member || afmt_archive_first_member_is(buf, len, d->first_member)))
            return 1;
    }
    return 0;
}
