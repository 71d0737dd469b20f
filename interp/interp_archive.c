/* afmt reference interpreter: archives.  The descriptors runtime/
 * afmt_archive.c and runtime/pickle/afmt_pickle.c carry out, built once at load
 * from the checked model exactly as gen/archive_emit.c renders them as C;
 * the run is the runtime's.  A member parsed by another format takes that
 * format from the registry (the shipped formats' generated code). */
#include <stdlib.h>
#include <string.h>

#include "common/afmt_dtype.h"
#include "interp.h"

/* The model's enums have the runtime's values (gen/archive.h says which
 * runtime enum each mirrors); a build tool's allocation failure aborts,
 * as afmt-gen's loader does. */
static void *must(void *p)
{
    if (!p) abort();
    return p;
}

static afmt_pickle_desc *pickle_desc(const pk_grammar *g, const char *member)
{
    afmt_pickle_desc *d = must(calloc(1, sizeof *d));
    afmt_pk_global *gl = must(calloc((size_t)g->nglobals + 1, sizeof *gl));
    afmt_pk_pid_elem *pid = must(calloc((size_t)g->npid + 1, sizeof *pid));
    int i, k;
    for (i = 0; i < g->nglobals; i++) {
        const pk_global *m = &g->globals[i];
        afmt_pk_arg *args = must(calloc((size_t)m->nargs + 1, sizeof *args));
        for (k = 0; k < m->nargs; k++) args[k] = (afmt_pk_arg)m->args[k];
        gl[i].module = m->module;
        gl[i].name = m->name;
        gl[i].role = (afmt_pk_role)m->role;
        gl[i].args = args;
        gl[i].nargs = (size_t)m->nargs;
        gl[i].arg_storage = m->arg_storage;
        gl[i].arg_offset = m->arg_offset;
        gl[i].arg_shape = m->arg_shape;
        gl[i].arg_stride = m->arg_stride;
        gl[i].dtype = m->dtype ? afmt_dtype_from_name(m->dtype) : AFMT_DTYPE_INVALID;
        gl[i].refuse = m->refuse;
        gl[i].writable = m->writable;
    }
    for (i = 0; i < g->npid; i++) {
        pid[i].part = (afmt_pk_pid_part)g->pid[i].part;
        pid[i].text = g->pid[i].text;
        pid[i].patterns = (const char *const *)g->pid[i].patterns;
        pid[i].npatterns = (size_t)g->pid[i].npatterns;
    }
    d->name = member;
    d->protocol_min = g->proto_min;
    d->protocol_max = g->proto_max;
    memcpy(d->ops, g->ops, sizeof d->ops);
    d->canonical = g->canonical;
    d->globals = gl;
    d->nglobals = (size_t)g->nglobals;
    d->pid = pid; /* (npid may be 0: BINPERSID refused) */
    d->npid = (size_t)g->npid;
    d->key_decimal = 1;
    d->keys_in_order = g->keys_in_order;
    d->build_on_dict = g->build_on_dict;
    d->memo_in_order = g->memo_in_order;
    d->dict_keys = ((g->dict_keys & PKK_STR) ? AFMT_PK_KEY_STR : 0) | ((g->dict_keys & PKK_INT) ? AFMT_PK_KEY_INT : 0);
    d->root_kinds = g->root_kinds;
    return d;
}

static void archive_desc(const spec *s, const item *it, afmt_archive_desc *d)
{
    const archive *a = it->ar;
    afmt_ar_rule *rules = must(calloc((size_t)a->nrules + 1, sizeof *rules));
    uint16_t *extra = must(calloc((size_t)a->nextra + 1, sizeof *extra));
    int i;
    for (i = 0; i < a->nrules; i++) {
        const ar_rule *m = &a->rules[i];
        afmt_ar_rule *r = &rules[i];
        r->pattern = m->pattern;
        r->action = (afmt_ar_action)m->action;
        r->presence = m->required ? AFMT_AR_REQUIRED : AFMT_AR_OPTIONAL;
        r->must_reference = m->action == AR_RECORD;
        r->format = m->format ? afmt_format_by_name(m->format) : NULL;
        r->array_name = m->array_name ? m->array_name : "";
        r->texts = (const char *const *)m->texts;
        r->ntexts = (size_t)m->ntexts;
        r->nstrict = (size_t)m->nstrict;
        r->sets = m->sets;
        r->endian_var = m->endian_var;
        r->record_rule = m->record_rule;
        if (m->action == AR_VALUES && m->pickle) {
            r->values = afmt_pickle_member;
            r->values_desc = pickle_desc(m->pickle, "pickle");
        }
        r->reason = m->reason;
        r->lenient_only = m->lenient_only;
    }
    for (i = 0; i < a->nextra; i++) extra[i] = (uint16_t)a->extra[i];
    memset(d, 0, sizeof *d);
    d->format = s->format;
    d->name = it->name;
    d->kind = a->tar ? AFMT_AR_TAR : AFMT_AR_ZIP;
    d->methods = a->methods;
    d->methods_lenient = a->methods_lenient;
    d->flags_allowed = (uint16_t)a->flags_allowed;
    d->align = a->align;
    d->align_lenient = a->align_lenient;
    d->crc = a->crc;
    d->crc_lenient = a->crc_lenient;
    d->extra_ids = extra;
    d->nextra = (size_t)a->nextra;
    d->extra_lenient = a->extra_lenient;
    d->zip64_end = a->zip64_end;
    d->back_to_back = a->back_to_back;
    d->rules = rules;
    d->nrules = (size_t)a->nrules;
    d->one_disk = 1;
    d->rest = (afmt_ar_rest)a->rest;
    d->nvars = (unsigned)a->nvars;
}

void iarchives_collect(afmt_interp *in)
{
    const spec *s = in->s;
    int i;
    for (i = 0; i < s->body.n; i++) {
        const item *it = s->body.v[i];
        iarchive *t;
        if (it->kind != IT_ARCHIVE || !it->ar) continue;
        t = must(realloc(in->archives, sizeof *t * (size_t)(in->narchives + 1)));
        in->archives = t;
        t[in->narchives].it = it;
        archive_desc(s, it, &t[in->narchives].desc);
        in->narchives++;
    }
}

int irun_archive(irun *r, const item *it)
{
    afmt_validation *c = r->c;
    int i;
    for (i = 0; i < r->in->narchives; i++)
        if (r->in->archives[i].it == it)
            return afmt_archive_validate(&r->in->archives[i].desc, c->src, afmt_end(c), &c->pos, &c->narrays, c->opt,
                                         c->vis, c->path, c->err);
    return -1;
}

static void pickle_desc_free(const afmt_pickle_desc *d)
{
    size_t i;
    for (i = 0; i < d->nglobals; i++) free((void *)d->globals[i].args);
    free((void *)d->globals);
    free((void *)d->pid);
    free((void *)d);
}

void iarchives_free(afmt_interp *in)
{
    int i;
    size_t k;
    for (i = 0; i < in->narchives; i++) {
        const afmt_archive_desc *d = &in->archives[i].desc;
        for (k = 0; k < d->nrules; k++)
            if (d->rules[k].values_desc) pickle_desc_free(d->rules[k].values_desc);
        free((void *)d->rules);
        free((void *)d->extra_ids);
    }
    free(in->archives);
    in->archives = NULL;
    in->narchives = 0;
}
