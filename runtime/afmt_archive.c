/* afmt runtime: archives: the run, and what the member rules do (see
 * afmt_archive.h).  The containers are read by afmt_zip.c,
 * afmt_zip_local.c and afmt_tar.c; names and patterns by afmt_ar_names.c
 * and afmt_ar_rules.c; members' bytes by afmt_ar_data.c. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "afmt_ar_run.h"
#include "afmt_options.h"

int afmt_ar_fail(afmt_ar_run *r, afmt_code code, const afmt_ar_member *m, const char *sub, uint64_t offset,
                 const char *fmt, ...)
{
    char field[AFMT_FIELD_MAX];
    va_list ap;

    afmt_ar_field(r, m, sub, field, sizeof field);
    va_start(ap, fmt);
    afmt_failv(r->err, code, r->path, field, AFMT_NO_INDEX, offset, fmt, ap);
    va_end(ap);
    return -1;
}

int afmt_ar_refuse(afmt_ar_run *r, int lenient_ok, afmt_code code, const afmt_ar_member *m, const char *sub,
                   uint64_t offset, const char *fmt, ...)
{
    char field[AFMT_FIELD_MAX];
    va_list ap;
    int rc;

    afmt_ar_field(r, m, sub, field, sizeof field);
    va_start(ap, fmt);
    if (lenient_ok)
        rc = afmt_toleratev(r->opt, r->vis, r->err, code, r->path, field, AFMT_NO_INDEX, offset, fmt, ap);
    else
        rc = afmt_failv(r->err, code, r->path, field, AFMT_NO_INDEX, offset, fmt, ap);
    va_end(ap);
    return rc;
}

afmt_ar_member *afmt_ar_add_member(afmt_ar_run *r, uint64_t offset)
{
    afmt_ar_member *m;

    if (r->n == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 64;
        afmt_ar_member *grown = cap < r->cap || cap > SIZE_MAX / sizeof *grown ? NULL : realloc(r->m, cap * sizeof *grown);
        if (!grown) {
            afmt_ar_fail(r, AFMT_E_NOMEM, NULL, NULL, offset, "no memory for %zu members", r->n + 1);
            return NULL;
        }
        r->m = grown;
        r->cap = cap;
    }
    m = &r->m[r->n];
    memset(m, 0, sizeof *m);
    m->index = (uint32_t)r->n++;
    m->rule = AFMT_AR_NO_RULE;
    return m;
}

int afmt_ar_parsed(const afmt_ar_run *r, const afmt_ar_member *m)
{
    afmt_ar_action a;
    if (m->rule < 0)
        return 0;
    a = r->d->rules[m->rule].action;
    return a == AFMT_AR_FORMAT || a == AFMT_AR_TEXT || a == AFMT_AR_VALUES || a == AFMT_AR_RECORD;
}

/* ------------------------------------------------ a member's own parser */

/* What the visitor of a member's parser needs to put its reports in the
 * archive's terms. */
typedef struct member_vis {
    afmt_ar_run *r;
    const afmt_ar_member *m;
    const afmt_ar_rule *rule;
    int inflated;   /* the parser reads the member's inflated bytes */
    int absolute;   /* its offsets are absolute already (a values grammar is given its base) */
} member_vis;

/* An offset the parser reports, as an absolute one: an inflated member's
 * bytes have none, so its data's is said. */
static uint64_t rebase(const member_vis *v, uint64_t offset)
{
    if (v->inflated)
        return v->m->data_off;
    if (offset == AFMT_NO_OFFSET || v->absolute)
        return offset;
    return v->m->data_off + offset;
}

static int on_array(void *ctx, const afmt_array *array)
{
    member_vis *v = ctx;
    afmt_ar_run *r = v->r;
    afmt_array a = *array;

    if (*r->narrays == UINT32_MAX)
        return 1;
    a.index = (*r->narrays)++;
    a.offset = rebase(v, array->offset);
    if (v->rule->action == AFMT_AR_FORMAT && v->rule->array_name && v->rule->array_name[0]) {
        size_t full;
        afmt_ar_expand(v->rule->array_name, v->rule->pattern, v->m, NULL, 0, a.name, sizeof a.name, &full);
        a.name_len = full;
    }
    if (r->streamed)
        a.data = NULL;
    return r->vis->on_array(r->vis->ctx, &a);
}

/* A member's error or warning in the archive's terms: a format's field
 * goes below the member's (a values grammar names it below the path it
 * was given), its offset absolute (an inflated member's: the member's
 * data, with the byte in the inflated bytes said in the message). */
static void reblame(const member_vis *v, afmt_error *e)
{
    char field[AFMT_FIELD_MAX];
    uint64_t inner = e->offset;

    if (!v->absolute) {
        afmt_ar_field(v->r, v->m, e->field[0] ? e->field : NULL, field, sizeof field);
        afmt_error_reblame(e, v->r->path, field, AFMT_NO_INDEX, rebase(v, e->offset));
    } else {
        afmt_error_reblame(e, NULL, e->field, AFMT_NO_INDEX, rebase(v, e->offset));
    }
    if (v->inflated && inner != AFMT_NO_OFFSET) {
        size_t n = strlen(e->message);
        snprintf(e->message + n, sizeof e->message - n, " (at byte %" PRIu64 " of the inflated member)",
                 v->absolute ? inner - v->m->data_off : inner);
    }
}

static void on_warning(void *ctx, const afmt_error *warning)
{
    member_vis *v = ctx;
    afmt_error w = *warning;
    reblame(v, &w);
    v->r->vis->on_warning(v->r->vis->ctx, &w);
}

static void on_trailer(void *ctx, const uint8_t *data, uint64_t len, uint64_t offset)
{
    member_vis *v = ctx;
    v->r->vis->on_trailer(v->r->vis->ctx, v->r->streamed ? NULL : data, len, rebase(v, offset));
}

static void on_metadata(void *ctx, const uint8_t *json, uint64_t len, uint64_t offset)
{
    member_vis *v = ctx;
    v->r->vis->on_metadata(v->r->vis->ctx, json, len, rebase(v, offset));
}

static int on_kv(void *ctx, const afmt_kv *kv, uint64_t offset)
{
    member_vis *v = ctx;
    return v->r->vis->on_kv(v->r->vis->ctx, kv, rebase(v, offset));
}

/* The visitor a member's parser gets: the caller's callbacks, wrapped. */
static void wrap_visitor(member_vis *v, afmt_visitor *out)
{
    const afmt_visitor *vis = v->r->vis;
    memset(out, 0, sizeof *out);
    if (!vis)
        return;
    out->ctx = v;
    out->on_array = vis->on_array ? on_array : NULL;
    out->on_warning = vis->on_warning ? on_warning : NULL;
    out->on_trailer = vis->on_trailer ? on_trailer : NULL;
    out->on_metadata = vis->on_metadata ? on_metadata : NULL;
    out->on_kv = vis->on_kv ? on_kv : NULL;
}

static int act_format(afmt_ar_run *r, const afmt_ar_member *m, const afmt_ar_rule *rule, const uint8_t *bytes,
                      uint64_t len)
{
    member_vis v = {r, m, rule, m->method == 8, 0};
    afmt_visitor wrapped;

    wrap_visitor(&v, &wrapped);
    if (rule->format->validate(bytes, len, r->opt, &wrapped, r->err) == 0)
        return 0;
    reblame(&v, r->err);
    return -1;
}

/* Does the member's text read as this text of a rule: exactly, or, for a
 * text holding a capture ("{id:digits}"), as the pattern says (the name
 * patterns' grammar, so a text is a pattern of one component). */
static int text_fits(const char *text, const uint8_t *bytes, uint64_t len)
{
    afmt_ar_span spans[AFMT_AR_CAPTURES_MAX + 1];
    if (!strchr(text, '{'))
        return strlen(text) == len && memcmp(text, bytes, (size_t)len) == 0;
    return len <= AFMT_AR_NAME_MAX && !memchr(bytes, '/', (size_t)len) &&
           afmt_ar_match(text, bytes, (size_t)len, spans);
}

/* One of the rule's texts. */
static int act_text(afmt_ar_run *r, const afmt_ar_member *m, const afmt_ar_rule *rule, const uint8_t *bytes,
                    uint64_t len)
{
    char found[112], want[112];
    size_t i;

    for (i = 0; i < rule->ntexts; i++)
        if (text_fits(rule->texts[i], bytes, len))
            break;
    afmt_ar_quote(bytes, (size_t)len, 40, found, sizeof found);
    afmt_ar_quote((const uint8_t *)(rule->ntexts ? rule->texts[0] : ""), rule->ntexts ? strlen(rule->texts[0]) : 0,
                  40, want, sizeof want);
    if (i == rule->ntexts)
        return afmt_ar_fail(r, AFMT_E_VALUE, m, NULL, m->data_off, "\"%s\" (%" PRIu64 " bytes) is not %s\"%s\"%s",
                            found, len, rule->nstrict > 1 ? "one of " : "", want,
                            rule->nstrict > 1 ? " and the others the format writes" : "");
    if (i >= rule->nstrict &&
        afmt_ar_refuse(r, 1, AFMT_E_VALUE, m, NULL, m->data_off,
                       "\"%s\": readers take it, the format writes \"%s\"", found, want))
        return -1;
    if (rule->sets >= 0)
        r->vars[rule->sets] = (int)i;
    return 0;
}

int afmt_ar_act(afmt_ar_run *r, afmt_ar_member *m, const uint8_t *bytes, uint64_t len)
{
    const afmt_ar_rule *rule;

    if (m->rule < 0)
        return 0;
    rule = &r->d->rules[m->rule];
    if (rule->action == AFMT_AR_FORMAT)
        return act_format(r, m, rule, bytes, len);
    if (rule->action == AFMT_AR_TEXT)
        return act_text(r, m, rule, bytes, len);
    return 0;
}

/* ------------------------------------------------ values and records */

typedef struct resolver {
    afmt_ar_run *r;
    const afmt_ar_member *m;
    const afmt_ar_rule *rule;
    char field[AFMT_FIELD_MAX];
} resolver;

static int resolve(void *ctx, const char *key, size_t key_len, afmt_ar_storage *out, afmt_error *err)
{
    resolver *s = ctx;
    afmt_ar_run *r = s->r;
    const afmt_ar_rule *records = s->rule->record_rule >= 0 ? &r->d->rules[s->rule->record_rule] : NULL;
    char name[4096], quoted[112];
    afmt_ar_member *rec = NULL;
    const uint8_t *bytes;
    size_t full = 0;

    name[0] = '\0'; /* quoted below with full 0 when no record pattern filled it */
    afmt_ar_quote((const uint8_t *)key, key_len, 40, quoted, sizeof quoted);
    if (records && key_len > 0 && !memchr(key, '/', key_len)) {
        afmt_ar_expand(records->pattern, s->rule->pattern, s->m, key, key_len, name, sizeof name, &full);
        if (full < sizeof name)
            rec = afmt_ar_find(r, (const uint8_t *)name, full);
    }
    if (!rec || rec->rule != s->rule->record_rule) {
        char member[112];
        afmt_ar_quote((const uint8_t *)name, full < sizeof name ? full : 0, 80, member, sizeof member);
        return afmt_fail(err, AFMT_E_CONSTRAINT, r->path, s->field, AFMT_NO_INDEX, s->m->data_off,
                         "storage key \"%s\" names no record of the archive%s%s%s", quoted,
                         records ? " (\"" : "", records ? member : "", records ? "\")" : "");
    }
    if (rec->method == 8 && !rec->inflated) {
        uint8_t *owned;
        if (afmt_ar_member_bytes(r, rec, &bytes, &owned) != 0) {
            if (err && err != r->err)
                *err = *r->err;
            return -1;
        }
        rec->inflated = owned;
    }
    bytes = rec->method == 8 ? rec->inflated : r->bytes + (rec->data_off - r->base);
    rec->referenced = 1;
    out->data = bytes;
    out->nbytes = rec->usize;
    out->offset = rec->data_off;
    out->endian = records->endian_var >= 0 && r->vars[records->endian_var] == 1 ? AFMT_BIG : AFMT_LITTLE;
    return 0;
}

/* A values member: its grammar, with its records a key away. */
static int run_values(afmt_ar_run *r, afmt_ar_member *m)
{
    const afmt_ar_rule *rule = &r->d->rules[m->rule];
    member_vis v = {r, m, rule, m->method == 8, 1};
    afmt_visitor wrapped;
    afmt_path path;
    resolver s;
    const uint8_t *bytes;
    uint8_t *owned;
    int rc;

    if (afmt_ar_member_bytes(r, m, &bytes, &owned) != 0)
        return -1;
    s.r = r;
    s.m = m;
    s.rule = rule;
    afmt_ar_field(r, m, NULL, s.field, sizeof s.field);
    /* errors and fields below the member: path + "<name>[\"member\"]" */
    memset(&path, 0, sizeof path);
    if (r->path)
        path = *r->path;
    afmt_path_push(&path, s.field, AFMT_NO_INDEX);
    wrap_visitor(&v, &wrapped);
    rc = rule->values(rule->values_desc, bytes, m->usize, m->data_off, resolve, &s, r->opt, &wrapped, &path, r->err);
    if (rc != 0 && m->method == 8)
        reblame(&v, r->err);
    free(owned);
    return rc;
}

int afmt_ar_finish(afmt_ar_run *r, uint64_t at)
{
    size_t i;

    for (i = 0; i < r->d->nrules; i++) {
        const afmt_ar_rule *rule = &r->d->rules[i];
        if ((rule->presence == AFMT_AR_REQUIRED || rule->presence == AFMT_AR_EXACTLY_ONE) && r->hits[i] == 0)
            return afmt_ar_fail(r, AFMT_E_CONSTRAINT, NULL, NULL, at,
                                "no member of the form \"%s\": the format requires one", rule->pattern);
    }
    for (i = 0; i < r->n; i++)
        if (r->m[i].rule >= 0 && r->d->rules[r->m[i].rule].action == AFMT_AR_VALUES && run_values(r, &r->m[i]) != 0)
            return -1;
    for (i = 0; i < r->n; i++) {
        afmt_ar_member *m = &r->m[i];
        const afmt_ar_rule *rule = m->rule >= 0 ? &r->d->rules[m->rule] : NULL;
        if (!rule || rule->action != AFMT_AR_RECORD || m->referenced)
            continue;
        if (rule->must_reference)
            return afmt_ar_fail(r, AFMT_E_CONSTRAINT, m, NULL, m->data_off,
                                "a record of %" PRIu64 " bytes no values member refers to", m->usize);
        if (afmt_ar_check_deflated(r, m) != 0)
            return -1;
    }
    return 0;
}

/* ------------------------------------------------ the run */

/* The whole archive in memory: a buffer's bytes, or a stream read into
 * its window (a zip needs random access). */
static int whole(afmt_ar_run *r, uint64_t end)
{
    afmt_src *s = r->src;
    uint64_t want = (uint64_t)1 << 16;

    if (s->read) {
        afmt_src_keep_from(s, r->base);
        for (;;) {
            if (want > s->cap)
                want = s->cap;
            if (!afmt_src_fill(s, r->base, want) || want == s->cap)
                break;
            want *= 2;
        }
        if (s->io_error)
            return afmt_ar_fail(r, AFMT_E_IO, NULL, NULL, s->data_off + s->data_len, "reading the input failed");
        if (s->len == AFMT_LEN_UNKNOWN || r->base < s->data_off || s->data_off + s->data_len < s->len) {
            uint64_t rest = afmt_src_rest(s, r->base);
            return afmt_ar_fail(r, AFMT_E_LIMIT, NULL, NULL, r->base,
                                "a %s archive of %" PRIu64 " bytes is read whole and needs random access: from a "
                                "stream it must fit the stream window of %" PRIu64 " bytes (validate the file instead)",
                                r->d->kind == AFMT_AR_ZIP ? "zip" : "tar", rest, s->cap);
        }
    }
    r->end = end < s->len ? end : s->len;
    if (r->base > r->end || (s->read == NULL && r->base < s->data_off))
        return afmt_ar_fail(r, AFMT_E_TRUNCATED, NULL, NULL, r->base, "the archive starts past the input's end");
    r->bytes = s->data + (r->base - s->data_off);
    return 0;
}

/* A desc whose members point into each other (values and records) reads
 * a tar whole. */
static int needs_whole(const afmt_archive_desc *d)
{
    size_t i;
    if (d->kind == AFMT_AR_ZIP)
        return 1;
    for (i = 0; i < d->nrules; i++)
        if (d->rules[i].action == AFMT_AR_VALUES || d->rules[i].action == AFMT_AR_RECORD)
            return 1;
    return 0;
}

/* A zip: directory, rules, members, actions in central order. */
static int run_zip(afmt_ar_run *r)
{
    size_t i;

    if (afmt_zip_read(r) != 0)
        return -1;
    for (i = 0; i < r->n; i++) {
        afmt_ar_member *m = &r->m[i];
        if (m->is_dir ? afmt_ar_refuse(r, 1, AFMT_E_CONSTRAINT, m, NULL, m->name_off, "a directory entry: the "
                                       "format writes none (ignored)") != 0
                      : afmt_ar_assign(r, m) != 0)
            return -1;
    }
    if (afmt_zip_check_methods(r) != 0 || afmt_zip_check_local(r) != 0)
        return -1;
    for (i = 0; i < r->n; i++) {
        afmt_ar_member *m = &r->m[i];
        const uint8_t *bytes;
        uint8_t *owned;
        int rc;
        if (m->rule < 0 || (r->d->rules[m->rule].action != AFMT_AR_FORMAT && r->d->rules[m->rule].action != AFMT_AR_TEXT))
            continue;
        if (afmt_ar_member_bytes(r, m, &bytes, &owned) != 0)
            return -1;
        rc = afmt_ar_act(r, m, bytes, m->usize);
        free(owned);
        if (rc != 0)
            return -1;
    }
    return afmt_ar_finish(r, r->members_end);
}

static void run_free(afmt_ar_run *r)
{
    size_t i;
    for (i = 0; i < r->n; i++)
        free(r->m[i].inflated);
    free(r->m);
    free(r->names);
    free(r->inflater);
    free(r->scratch);
    while (r->chunks) {
        afmt_ar_chunk *next = r->chunks->next;
        free(r->chunks);
        r->chunks = next;
    }
}

int afmt_archive_validate(const afmt_archive_desc *d, afmt_src *src, uint64_t end, uint64_t *pos,
                          uint32_t *narrays, const afmt_options *opt, const afmt_visitor *vis,
                          const afmt_path *path, afmt_error *err)
{
    afmt_ar_run r;
    afmt_error scratch;
    afmt_options defaults;
    unsigned i;
    int rc;

    if (!err)
        err = &scratch;
    if (!opt) {
        afmt_options_default(&defaults);
        opt = &defaults;
    }
    if (afmt_archive_desc_check(d, err) != 0)
        return -1;
    afmt_error_set_format(err, d->format); /* warnings carry it */
    memset(&r, 0, sizeof r);
    r.d = d;
    r.src = src;
    r.base = *pos;
    r.end = end;
    r.opt = opt;
    r.vis = vis;
    r.path = path;
    r.err = err;
    r.narrays = narrays;
    r.streamed = src->read != NULL; /* a window's bytes are never handed out */
    for (i = 0; i < AFMT_AR_VARS_MAX; i++)
        r.vars[i] = -1;
    afmt_ar_collect_captures(&r);
    rc = needs_whole(d) || !src->read ? whole(&r, end) : 0;
    if (rc == 0 && d->kind == AFMT_AR_ZIP) {
        rc = run_zip(&r);
        if (rc == 0)
            *pos = r.end;
    } else if (rc == 0) {
        rc = afmt_tar_read(&r, pos);
    }
    run_free(&r);
    if (rc != 0)
        afmt_error_set_format(err, d->format);
    return rc;
}
