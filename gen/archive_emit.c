/* afmt-gen: rendering an "archive" item as constant data (see archive.h):
 * the pickle descriptors its values rules run, its text tables, its rule
 * table and the afmt_archive_desc, then the validator's one call.  The
 * model was checked when it was loaded; nothing here decides what a spec
 * means, and nothing written is read back. */
#include <stdlib.h>
#include <string.h>

#include "common/afmt_dtype.h"
#include "archive.h"
#include "emit.h"
#include "spec.h"
#include "util.h"

static const char *const ROLE_C[] = {"0", "AFMT_PK_ROLE_DICT", "AFMT_PK_ROLE_TENSOR", "AFMT_PK_ROLE_WRAP",
                                     "AFMT_PK_ROLE_CLASS", "AFMT_PK_ROLE_REFUSE"};
static const char *const ARG_C[] = {"0", "AFMT_PK_ARG_UINT", "AFMT_PK_ARG_BOOL", "AFMT_PK_ARG_UINT_TUPLE",
                                    "AFMT_PK_ARG_STORAGE", "AFMT_PK_ARG_EMPTY_DICT", "AFMT_PK_ARG_TENSOR",
                                    "AFMT_PK_ARG_PLAIN"};
static const char *const PID_C[] = {"0", "AFMT_PK_PID_TEXT", "AFMT_PK_PID_CLASS", "AFMT_PK_PID_KEY",
                                    "AFMT_PK_PID_LOCATION", "AFMT_PK_PID_COUNT"};
static const char *const ACTION_C[] = {"0", "AFMT_AR_FORMAT", "AFMT_AR_TEXT", "AFMT_AR_RECORD", "AFMT_AR_VALUES",
                                       "AFMT_AR_REFUSE", "AFMT_AR_IGNORE"};

static char *quoted(const char *s) { return s ? c_quote(s, strlen(s)) : xstrdup("NULL"); }

/* A string list `static const char *const <name>[] = {...};`. */
static void emit_strings(sbuf *o, const char *name, char **v, int n)
{
    int i;
    sb_printf(o, "static const char *const %s[] = {", name);
    for (i = 0; i < n; i++) {
        char *q = quoted(v[i]);
        sb_printf(o, "%s%s", i ? ", " : "", q);
        free(q);
    }
    sb_printf(o, "};\n");
}

/* The C name of global i's argument kinds: after its name (an earlier
 * global of the same name with arguments adds the position). */
static char *args_cname(const pk_grammar *g, const char *base, int i)
{
    int k, clash = 0;
    char name[64];
    size_t n = 0;
    const char *s = g->globals[i].name;
    for (; *s && n + 1 < sizeof name; s++)
        name[n++] = (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ? *s : '_';
    name[n] = 0;
    for (k = 0; k < i; k++)
        clash |= g->globals[k].nargs && strcmp(g->globals[k].name, g->globals[i].name) == 0;
    return clash ? xprintf("%s_%s_args_%d", base, name, i) : xprintf("%s_%s_args", base, name);
}

static void emit_globals(sbuf *o, const pk_grammar *g, const char *base)
{
    int i, k;
    for (i = 0; i < g->nglobals; i++) {
        const pk_global *gl = &g->globals[i];
        char *an;
        if (!gl->nargs) continue;
        an = args_cname(g, base, i);
        sb_printf(o, "static const afmt_pk_arg %s[] = {", an);
        free(an);
        for (k = 0; k < gl->nargs; k++) sb_printf(o, "%s%s", k ? ", " : "", ARG_C[gl->args[k]]);
        sb_printf(o, "};\n");
    }
    sb_printf(o, "static const afmt_pk_global %s_globals[] = {\n", base);
    for (i = 0; i < g->nglobals; i++) {
        const pk_global *gl = &g->globals[i];
        char *mq = quoted(gl->module), *nq = quoted(gl->name);
        sb_printf(o, "    {.module = %s, .name = %s, .role = %s", mq, nq, ROLE_C[gl->role]);
        if (gl->nargs) {
            char *an = args_cname(g, base, i);
            sb_printf(o, ", .args = %s, .nargs = %d", an, gl->nargs);
            free(an);
        }
        if (gl->role == PK_ARRAY)
            sb_printf(o, ",\n     .arg_storage = %d, .arg_offset = %d, .arg_shape = %d, .arg_stride = %d",
                      gl->arg_storage, gl->arg_offset, gl->arg_shape, gl->arg_stride);
        if (gl->role == PK_CLASS) sb_printf(o, ", .dtype = %s%s", dtype_enum(gl->dtype), gl->writable ? ", .writable = 1" : "");
        if (gl->refuse) {
            char *rq = quoted(gl->refuse);
            sb_printf(o, ",\n     .refuse = %s", rq);
            free(rq);
        }
        sb_printf(o, "},\n");
        free(mq);
        free(nq);
    }
    sb_printf(o, "};\n");
}

static void emit_pid(sbuf *o, const pk_grammar *g, const char *base)
{
    int i;
    for (i = 0; i < g->npid; i++)
        if (g->pid[i].part == PKP_LOCATION) {
            char *name = xprintf("%s_locations", base);
            emit_strings(o, name, g->pid[i].patterns, g->pid[i].npatterns);
            free(name);
        }
    sb_printf(o, "static const afmt_pk_pid_elem %s_persistent_id[] = {\n", base);
    for (i = 0; i < g->npid; i++) {
        const pk_pid_part *pp = &g->pid[i];
        char *tq = quoted(pp->text);
        sb_printf(o, "    {.part = %s", PID_C[pp->part]);
        if (pp->part == PKP_TEXT) sb_printf(o, ", .text = %s", tq);
        if (pp->part == PKP_LOCATION)
            sb_printf(o, ", .patterns = %s_locations, .npatterns = %d", base, pp->npatterns);
        sb_printf(o, "},\n");
        free(tq);
    }
    sb_printf(o, "};\n");
}

/* The opcodes as designated initializers, by pickle.py's names in a
 * comment, so that a diff shows which were allowed. */
static void emit_ops(sbuf *o, const pk_grammar *g)
{
    int b, n = 0;
    sb_printf(o, "    .ops = {");
    for (b = 0; b < 256; b++)
        if (g->ops[b]) {
            sb_printf(o, "%s[0x%02x] = 1", n == 0 ? "\n        " : n % 8 ? ", " : ",\n        ", b);
            n++;
        }
    sb_printf(o, "},\n");
}

/* The root kinds as the runtime's AFMT_PK_ROOT_* bits (the model's
 * PKK_DICT .. PKK_ARRAY have their values). */
static const char *root_kinds_c(unsigned bits, char out[128])
{
    static const char *const names[] = {"AFMT_PK_ROOT_DICT", "AFMT_PK_ROOT_LIST", "AFMT_PK_ROOT_TUPLE", "AFMT_PK_ROOT_TENSOR"};
    int k;
    out[0] = 0;
    for (k = 0; k < 4; k++)
        if (bits & (1u << k)) {
            if (out[0]) strcat(out, " | ");
            strcat(out, names[k]);
        }
    return out[0] ? out : "0";
}

static void emit_pickle(emitter *m, pk_grammar *g, const char *base, const char *member)
{
    sbuf *o = m->prelude;
    char *mq = quoted(member), roots[128];
    fixed_printf(g->cname, sizeof g->cname, "%s", base);
    emit_globals(o, g, base);
    if (g->npid) emit_pid(o, g, base);
    sb_printf(o, "static const afmt_pickle_desc %s = {\n", base);
    sb_printf(o, "    .name = %s,\n    .protocol_min = %u,\n    .protocol_max = %u,\n", mq, g->proto_min, g->proto_max);
    emit_ops(o, g);
    sb_printf(o, "    .canonical = %d,\n", g->canonical);
    sb_printf(o, "    .globals = %s_globals,\n    .nglobals = %d,\n", base, g->nglobals);
    if (g->npid) sb_printf(o, "    .pid = %s_persistent_id,\n    .npid = %d,\n", base, g->npid);
    sb_printf(o, "    .memo_in_order = %d,\n", g->memo_in_order);
    sb_printf(o, "    .key_decimal = 1,\n    .keys_in_order = %d,\n", g->keys_in_order);
    sb_printf(o, "    .build_on_dict = %d,\n    .dict_keys = %s,\n", g->build_on_dict,
              (g->dict_keys & (PKK_STR | PKK_INT)) == (PKK_STR | PKK_INT) ? "AFMT_PK_KEY_STR | AFMT_PK_KEY_INT"
              : g->dict_keys & PKK_INT ? "AFMT_PK_KEY_INT" : "AFMT_PK_KEY_STR");
    sb_printf(o, "    .root_kinds = %s,\n};\n", root_kinds_c(g->root_kinds, roots));
    free(mq);
}

static void emit_rule(sbuf *o, emitter *m, const ar_rule *r, const char *texts)
{
    char *pq = quoted(r->pattern);
    sb_printf(o, "    {.pattern = %s, .action = %s", pq, ACTION_C[r->action]);
    if (r->required) sb_printf(o, ", .presence = AFMT_AR_REQUIRED");
    if (r->action == AR_RECORD) sb_printf(o, ", .must_reference = 1");
    if (r->action == AR_FORMAT) {
        char *aq = quoted(r->array_name ? r->array_name : "");
        sb_printf(o, ",\n     .format = &afmt_%s_format, .array_name = %s", r->format, aq);
        free(aq);
    }
    if (r->action == AR_TEXT)
        sb_printf(o, ",\n     .texts = %s, .ntexts = %d, .nstrict = %d", texts, r->ntexts, r->nstrict);
    sb_printf(o, ", .sets = %d, .endian_var = %d", r->sets, r->endian_var);
    if (r->action == AR_VALUES)
        sb_printf(o, ",\n     .values = afmt_pickle_member, .values_desc = &%s, .record_rule = %d", r->pickle->cname,
                  r->record_rule);
    else
        sb_printf(o, ", .record_rule = -1");
    if (r->reason) {
        char *rq = quoted(r->reason);
        sb_printf(o, ",\n     .reason = %s", rq);
        free(rq);
    }
    if (r->lenient_only) sb_printf(o, ", .lenient_only = 1");
    sb_printf(o, "},\n");
    free(pq);
    (void)m;
}

/* A C name for what rule k emits, from its pattern's literal parts
 * ("{prefix}/data.pkl": data_pkl, "{prefix}/.data/serialization_id":
 * data_serialization_id), so that the tables read as what they are; the
 * rule's position is added only when two rules would share a name. */
static char *rule_cname(const archive *a, int k)
{
    char out[128];
    size_t o = 0;
    const char *p = a->rules[k].pattern ? a->rules[k].pattern : "";
    int j;
    while (*p && o + 2 < sizeof out) {
        if (*p == '{') {
            const char *close = strchr(p, '}');
            p = close ? close + 1 : p + strlen(p);
            if (o && out[o - 1] != '_') out[o++] = '_';
            continue;
        }
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')) out[o++] = *p;
        else if (o && out[o - 1] != '_') out[o++] = '_';
        p++;
    }
    while (o && out[o - 1] == '_') o--;
    out[o] = 0;
    for (j = 0; j < a->nrules; j++) {
        char *other;
        if (j == k || (a->rules[j].action != AR_TEXT && a->rules[j].action != AR_VALUES)) continue;
        if (j > k) break;
        other = rule_cname(a, j);
        if (strcmp(other, out) == 0) {
            free(other);
            return xprintf("%s_%d", o ? out : "member", k);
        }
        free(other);
    }
    return xstrdup(o ? out : "member");
}

static void emit_desc(emitter *m, item *it)
{
    archive *a = it->ar;
    sbuf *o = m->prelude, rules = {0};
    char **texts;
    int i;
    const char *stored;
    fixed_printf(a->cname, sizeof a->cname, "%s_%s", m->s->format, it->name);
    {
        char *what = xprintf("the archive at %s", it->jpath);
        int rc = helper_once(m, a->cname, what, it->jpath, &stored);
        free(what);
        if (rc != 0) return;
    }
    sb_printf(o, "/* %s: the archive at %s */\n", it->name, it->jpath);
    texts = xcalloc((size_t)a->nrules + 1, sizeof *texts);
    for (i = 0; i < a->nrules; i++) {
        ar_rule *r = &a->rules[i];
        char *rn = rule_cname(a, i);
        if (r->action == AR_TEXT) {
            texts[i] = xprintf("%s_%s_texts", a->cname, rn);
            emit_strings(o, texts[i], r->texts, r->ntexts);
        }
        if (r->action == AR_VALUES && r->pickle) {
            char *base = xprintf("%s_%s", a->cname, rn);
            emit_pickle(m, r->pickle, base, "pickle");
            free(base);
        }
        free(rn);
    }
    for (i = 0; i < a->nrules; i++) emit_rule(&rules, m, &a->rules[i], texts[i]);
    sb_printf(o, "static const afmt_ar_rule %s_rules[] = {\n%s};\n", a->cname, rules.s ? rules.s : "");
    sb_free(&rules);
    if (a->nextra) {
        sb_printf(o, "static const uint16_t %s_extra_ids[] = {", a->cname);
        for (i = 0; i < a->nextra; i++) sb_printf(o, "%s0x%04x", i ? ", " : "", a->extra[i]);
        sb_printf(o, "};\n");
    }
    sb_printf(o, "static const afmt_archive_desc %s = {\n", a->cname);
    sb_printf(o, "    .format = \"%s\",\n    .name = \"%s\",\n", m->s->format, it->name);
    sb_printf(o, "    .kind = %s,\n", a->tar ? "AFMT_AR_TAR" : "AFMT_AR_ZIP");
    sb_printf(o, "    .methods = 0x%x,\n    .methods_lenient = 0x%x,\n", a->methods, a->methods_lenient);
    sb_printf(o, "    .flags_allowed = 0x%04x,\n", a->flags_allowed);
    sb_printf(o, "    .align = UINT64_C(%llu),\n    .align_lenient = %d,\n", (unsigned long long)a->align, a->align_lenient);
    sb_printf(o, "    .crc = %d,\n    .crc_lenient = %d,\n", a->crc, a->crc_lenient);
    if (a->nextra) sb_printf(o, "    .extra_ids = %s_extra_ids,\n    .nextra = %d,\n", a->cname, a->nextra);
    sb_printf(o, "    .extra_lenient = %d,\n", a->extra_lenient);
    sb_printf(o, "    .zip64_end = %d,\n    .back_to_back = %d,\n", a->zip64_end, a->back_to_back);
    sb_printf(o, "    .one_disk = 1,\n    .rules = %s_rules,\n    .nrules = %d,\n", a->cname, a->nrules);
    sb_printf(o, "    .rest = %s,\n    .nvars = %d,\n};\n\n",
              a->rest == 0 ? "AFMT_AR_REST_REFUSE" : a->rest == 1 ? "AFMT_AR_REST_IGNORE" : "AFMT_AR_REST_LENIENT", a->nvars);
    for (i = 0; i < a->nrules; i++) free(texts[i]);
    free(texts);
}

void archive_emit_validate(emitter *m, item *it)
{
    if (!it->ar) return;
    emit_desc(m, it);
    line(m, "if (afmt_archive_validate(&%s, c->src, %s, &c->pos, &c->narrays, c->opt, c->vis, c->path,", it->ar->cname,
         m->end);
    line(m, "        c->err) != 0)");
    line(m, "    return -1;");
}

int archive_in_spec(const spec *s)
{
    int i;
    for (i = 0; i < s->body.n; i++)
        if (s->body.v[i]->kind == IT_ARCHIVE) return 1;
    return 0;
}

/* The writer's own part of the description (afmt_ar_write_desc). */
static void emit_write_desc(emitter *m, const archive *a)
{
    sbuf *o = m->prelude;
    if (a->nwcaps) {
        char *n = xprintf("%s_write_capture_names", a->cname), *v = xprintf("%s_write_capture_values", a->cname);
        emit_strings(o, n, (char **)a->wcap_names, a->nwcaps);
        emit_strings(o, v, (char **)a->wcap_values, a->nwcaps);
        free(n);
        free(v);
    }
    sb_printf(o, "static const afmt_ar_write_desc %s_write = {\n", a->cname);
    if (a->nwcaps)
        sb_printf(o, "    .capture_names = %s_write_capture_names,\n    .capture_values = %s_write_capture_values,\n"
                  "    .ncaptures = %d,\n", a->cname, a->cname, a->nwcaps);
    sb_printf(o, "    .descriptor = %d,\n    .zip64_end = %d,\n    .zip64_local = %d,\n};\n\n", a->write_descriptor,
              a->write_zip64_end, a->write_zip64_local);
}

/* The writer of a spec whose body is an archive: the runtime writes the
 * members its rules say (runtime/archive/afmt_archive_write.c), from the same
 * descriptor the validator reads back. */
void archive_emit_writer(emitter *m)
{
    const spec *s = m->s;
    int i;
    const item *ar = NULL;
    for (i = 0; i < s->body.n; i++)
        if (s->body.v[i]->kind == IT_ARCHIVE) ar = s->body.v[i];
        else if (s->body.v[i]->kind != IT_CHECK && s->body.v[i]->kind != IT_LET)
            gen_error(m, s->body.v[i]->jpath, "the writer of a spec with an archive writes the archive only: an item "
                      "beside it would not be written");
    if (!ar || !ar->ar) return;
    m->writer = 1;
    emit_desc(m, (item *)ar);
    emit_write_desc(m, ar->ar);
    line(m, "static int %s_write_impl(const afmt_array *arrays, size_t n, const afmt_write_options *wopt,", s->format);
    line(m, "                         afmt_sink *sink, afmt_error *err, uint8_t **owned)");
    line(m, "{");
    m->indent++;
    line(m, "(void)owned;");
    line(m, "return afmt_archive_write(&%s, &%s_write, arrays, n, wopt, sink, err);", ar->ar->cname, ar->ar->cname);
    m->indent--;
    line(m, "}");
}
