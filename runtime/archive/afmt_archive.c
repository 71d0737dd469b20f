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
#include "../common/afmt_bytes.h"
#include "../common/afmt_options.h"

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
    /* a format's views of an inflated member point into its inflated
     * bytes; a values grammar's views say so themselves (a record may be
     * inflated where the pickle is not) */
    if (v->rule->action == AFMT_AR_FORMAT)
        a.data_transient = v->inflated && a.data != NULL; /* a streamed member's have none */
    if (r->streamed) {
        a.data = NULL;
        a.data_transient = 0;
    }
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

/* The header fields a member's parser reports, in the archive's terms:
 * named below the member (archive["w.npy"].header.shape), at absolute
 * offsets. */
typedef struct member_fields {
    const member_vis *v;
    const afmt_field_visitor *inner;
} member_fields;

static void on_field(void *ctx, const afmt_field_info *field)
{
    member_fields *f = ctx;
    afmt_field_info moved = *field;
    char name[AFMT_FIELD_MAX];

    afmt_ar_field(f->v->r, f->v->m, field->field && field->field[0] ? field->field : NULL, name, sizeof name);
    moved.field = name;
    moved.offset = rebase(f->v, field->offset);
    f->inner->on_field(f->inner->ctx, &moved);
}

/* The options a member's parser gets: the caller's, its field visitor
 * (if any) wrapped. */
static void member_options(member_fields *f, afmt_field_visitor *fields, afmt_options *out)
{
    const afmt_options *opt = f->v->r->opt;
    *out = *opt;
    if (!opt->fields || !opt->fields->on_field)
        return;
    f->inner = opt->fields;
    fields->ctx = f;
    fields->on_field = on_field;
    out->fields = fields;
}

/* What the visitor is told of member m. */
static void member_info(const afmt_ar_member *m, const afmt_ar_rule *rule, afmt_member *info)
{
    memset(info, 0, sizeof *info);
    info->name = m->name;
    info->name_len = m->name_len;
    info->index = m->index;
    info->format = rule->format;
    info->offset = m->data_off;
    info->size = m->usize;
    info->stored_size = m->csize;
    info->compressed = m->method == 8;
}

/* Tell the visitor that member m's parse begins.  0, or -1 stopped. */
static int announce_begin(afmt_ar_run *r, const afmt_ar_member *m, const afmt_ar_rule *rule)
{
    afmt_member info;

    if (!r->vis || !r->vis->on_member)
        return 0;
    member_info(m, rule, &info);
    if (r->vis->on_member(r->vis->ctx, &info) == 0)
        return 0;
    return afmt_ar_fail(r, AFMT_E_CALLBACK, m, NULL, m->data_off, "stopped by the caller");
}

/* ... and that it ended, its parse having returned rc (r->err when not
 * 0).  0 to go on: the member is valid, or it is not and the visitor goes
 * past it (its error kept for the run's verdict, r->err cleared); -1 to
 * stop. */
static int announce_end(afmt_ar_run *r, const afmt_ar_member *m, const afmt_ar_rule *rule, int rc)
{
    afmt_member info;
    int told;

    if (!r->vis || !r->vis->on_member)
        return rc;
    member_info(m, rule, &info);
    info.done = 1;
    info.error = rc != 0 ? r->err : NULL;
    told = r->vis->on_member(r->vis->ctx, &info);
    if (rc == 0)
        return told == 0 ? 0 : afmt_ar_fail(r, AFMT_E_CALLBACK, m, NULL, m->data_off, "stopped by the caller");
    if (told != 0 || r->err->code == AFMT_E_CALLBACK || r->err->code == AFMT_E_NOMEM)
        return -1; /* stopped by the caller, or no member can be read any more */
    if (!r->member_failed)
        r->member_error = *r->err;
    r->member_failed = 1;
    afmt_error_clear(r->err);
    afmt_error_set_format(r->err, r->d->format); /* warnings carry it */
    return 0;
}

static int act_format(afmt_ar_run *r, const afmt_ar_member *m, const afmt_ar_rule *rule, const uint8_t *bytes,
                      uint64_t len)
{
    member_vis v = {r, m, rule, m->method == 8, 0};
    member_fields f = {&v, NULL};
    afmt_field_visitor fields;
    afmt_visitor wrapped;
    afmt_options opt;

    wrap_visitor(&v, &wrapped);
    member_options(&f, &fields, &opt);
    if (rule->format->validate(bytes, len, &opt, &wrapped, r->err) != 0) {
        reblame(&v, r->err);
        return -1;
    }
    return 0;
}

/* A deflated member too large to hold (limits.max_held_bytes), parsed
 * as a stream inflated through a window: its views carry no data.  The
 * verdict on its bytes (corrupt, size lies, CRC-32) comes first: a parse
 * cut short by a lie is the lie's fault. */
static int act_format_stream(afmt_ar_run *r, const afmt_ar_member *m, const afmt_ar_rule *rule)
{
    member_vis v = {r, m, rule, 1, 0};
    member_fields f = {&v, NULL};
    afmt_field_visitor fields;
    afmt_visitor wrapped;
    afmt_options opt;
    afmt_ar_stream st;
    afmt_error inner;
    afmt_src src;
    uint8_t *window;
    int rc;

    if (afmt_ar_stream_open(r, m, &st) != 0)
        return -1;
    if (!(window = malloc((size_t)AFMT_MEMBER_WINDOW)))
        return afmt_ar_fail(r, AFMT_E_NOMEM, m, "data", m->data_off, "no memory for a window of %" PRIu64
                            " bytes to parse the member through", (uint64_t)AFMT_MEMBER_WINDOW);
    wrap_visitor(&v, &wrapped);
    member_options(&f, &fields, &opt);
    afmt_src_stream(&src, window, AFMT_MEMBER_WINDOW, afmt_ar_stream_read, &st);
    afmt_error_clear(&inner);
    rc = rule->format->validate_src(&src, &opt, &wrapped, &inner);
    free(window);
    if (afmt_ar_stream_close(&st) != 0)
        return -1;
    if (rc != 0) {
        *r->err = inner;
        reblame(&v, r->err);
        return -1;
    }
    return 0;
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

int afmt_ar_act_member(afmt_ar_run *r, afmt_ar_member *m)
{
    const afmt_ar_rule *rule = m->rule >= 0 ? &r->d->rules[m->rule] : NULL;
    const uint8_t *bytes;
    uint8_t *owned;
    int rc;

    if (!rule || (rule->action != AFMT_AR_FORMAT && rule->action != AFMT_AR_TEXT))
        return 0;
    if (rule->action == AFMT_AR_TEXT) {
        if (afmt_ar_member_bytes(r, m, &bytes, &owned) != 0)
            return -1;
        rc = act_text(r, m, rule, bytes, m->usize);
        free(owned);
        return rc;
    }
    /* the member is told first: a deflated one's lies are found in it */
    if (announce_begin(r, m, rule) != 0)
        return -1;
    if (m->method == 8 && m->usize > r->opt->limits.max_held_bytes && rule->format->validate_src) {
        rc = act_format_stream(r, m, rule);
    } else if ((rc = afmt_ar_member_bytes(r, m, &bytes, &owned)) == 0) {
        rc = act_format(r, m, rule, bytes, m->usize);
        free(owned);
    }
    return announce_end(r, m, rule, rc);
}

int afmt_ar_act(afmt_ar_run *r, afmt_ar_member *m, const uint8_t *bytes, uint64_t len)
{
    const afmt_ar_rule *rule;

    if (m->rule < 0)
        return 0;
    rule = &r->d->rules[m->rule];
    if (rule->action == AFMT_AR_FORMAT)
        return announce_begin(r, m, rule) != 0 ? -1 : announce_end(r, m, rule, act_format(r, m, rule, bytes, len));
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
    out->transient = rec->method == 8;
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

/* The zip end record's search reaches back this far from the end. */
#define END_SEARCH (22u + 65535u)

/* A stream longer than its window, read through to its end keeping the
 * last bytes (from held_from on): whether a zip could be there at all.
 * With no end record in them, the verdict is the one a buffer gets (not a
 * zip, or cut short), unless one went by in the bytes no longer held
 * (dropped_sig: the offset of the last end record's signature seen there,
 * or UINT64_MAX): within reach of the end it would be the buffer's end
 * record, with bytes after it, which only random access can judge.  With
 * an end record, or one dropped, a limit error: the archive needs random
 * access. */
static int too_long(afmt_ar_run *r, uint64_t held_from, int local_first, uint64_t dropped_sig)
{
    afmt_src *s = r->src;
    uint64_t eo;

    r->end = r->end < s->len ? r->end : s->len;
    /* (an archive in a region of a longer stream: its end is not held) */
    if (r->d->kind == AFMT_AR_ZIP && held_from <= r->end && r->end <= s->data_off + s->data_len &&
        (dropped_sig == UINT64_MAX || r->end - dropped_sig > END_SEARCH) &&
        afmt_zip_find_end(r, AFMT_B(s, held_from), held_from - r->base, local_first, &eo) != 0)
        return -1;
    s->window_short = 1; /* a caller that can map the file may do so (afmt.h) */
    return afmt_ar_fail(r, AFMT_E_LIMIT, NULL, NULL, r->base,
                        "a %s archive of %" PRIu64 " bytes is read whole and needs random access: from a stream it "
                        "must fit the stream window of %" PRIu64 " bytes (validate the file instead)",
                        r->d->kind == AFMT_AR_ZIP ? "zip" : "tar", s->len - r->base, s->cap);
}

/* The offset of the last zip end record signature (PK 5 6) starting in
 * [from, to) of the window, whose 3 bytes after to are there too; else
 * last. */
static uint64_t last_end_sig(const afmt_src *s, uint64_t from, uint64_t to, uint64_t last)
{
    const uint8_t *b = AFMT_B(s, from), *end = b + (to - from), *q = b;
    /* memchr for the P: the whole stream passes through here */
    while (q < end && (q = memchr(q, 0x50, (size_t)(end - q))) != NULL) {
        if (q[1] == 0x4b && q[2] == 5 && q[3] == 6)
            last = from + (uint64_t)(q - b);
        q++;
    }
    return last;
}

/* A stream into its window, whole; or to its end, sliding. */
static int whole_stream(afmt_ar_run *r)
{
    afmt_src *s = r->src;
    uint64_t p = r->base, keep = s->cap / 2 < END_SEARCH ? s->cap / 2 : END_SEARCH;
    uint64_t dropped_sig = UINT64_MAX;
    int local_first = 0, slid = 0;

    afmt_src_keep_from(s, p);
    while (afmt_src_fill(s, p, s->cap)) { /* a full window from p: more may come */
        if (!slid)
            local_first = afmt_load_u32le(AFMT_B(s, p)) == 0x04034b50u;
        slid = 1;
        /* what is let go is looked at for an end record first (keep >= 4) */
        if (r->d->kind == AFMT_AR_ZIP && keep >= 4)
            dropped_sig = last_end_sig(s, p, p + s->cap - keep, dropped_sig);
        p += s->cap - keep;
        afmt_src_keep_from(s, p);
    }
    if (s->io_error)
        return afmt_ar_fail(r, AFMT_E_IO, NULL, NULL, s->data_off + s->data_len, "reading the input failed");
    if (!slid && s->len >= r->base + 4 && afmt_src_have(s, s->len, r->base, 4))
        local_first = afmt_load_u32le(AFMT_B(s, r->base)) == 0x04034b50u;
    if (slid || r->base < s->data_off)
        return too_long(r, s->data_off > r->base ? s->data_off : r->base, local_first, dropped_sig);
    return 0;
}

/* A file read by offset (afmt_src_seekable) into its window whole, from
 * r->base to r->end or its end; else a limit error with window_short set,
 * at once: its caller can map the file and validate it from memory, so it
 * is not read through for an end record as a stream is (too_long). */
static int whole_seekable(afmt_ar_run *r)
{
    afmt_src *s = r->src;
    const uint64_t stop = r->end < s->len ? r->end : s->len;

    afmt_src_keep_from(s, r->base);
    if (r->base > stop || (stop - r->base <= s->cap && afmt_src_fill(s, r->base, stop - r->base)))
        return 0; /* (an archive past the end: whole's truncation) */
    if (s->io_error)
        return afmt_ar_fail(r, AFMT_E_IO, NULL, NULL, s->data_off + s->data_len, "reading the input failed");
    s->window_short = 1;
    return afmt_ar_fail(r, AFMT_E_LIMIT, NULL, NULL, r->base,
                        "a %s archive of %" PRIu64 " bytes is read whole and needs random access: it must fit the "
                        "read window of %" PRIu64 " bytes", r->d->kind == AFMT_AR_ZIP ? "zip" : "tar",
                        stop - r->base, s->cap);
}

/* The whole archive in memory: a buffer's bytes, or a stream or file read into
 * its window (a zip needs random access). */
static int whole(afmt_ar_run *r, uint64_t end)
{
    afmt_src *s = r->src;

    r->end = end;
    if (s->read && whole_stream(r) != 0)
        return -1;
    if (s->pread && whole_seekable(r) != 0)
        return -1;
    r->end = end < s->len ? end : s->len;
    if (r->base > r->end || r->base < s->data_off)
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
    for (i = 0; i < r->n; i++)
        if (afmt_ar_act_member(r, &r->m[i]) != 0)
            return -1;
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
    r.streamed = afmt_src_windowed(src); /* a window's bytes are never handed out */
    for (i = 0; i < AFMT_AR_VARS_MAX; i++)
        r.vars[i] = -1;
    afmt_ar_collect_captures(&r);
    rc = needs_whole(d) || !afmt_src_windowed(src) ? whole(&r, end) : 0;
    if (rc == 0 && d->kind == AFMT_AR_ZIP) {
        rc = run_zip(&r);
        if (rc == 0)
            *pos = r.end;
    } else if (rc == 0) {
        rc = afmt_tar_read(&r, pos);
    }
    if (rc == 0 && r.member_failed) {
        /* the visitor went past invalid members: the first is the verdict */
        *err = r.member_error;
        rc = -1;
    }
    run_free(&r);
    if (rc != 0)
        afmt_error_set_format(err, d->format);
    return rc;
}
