/* afmt runtime: the member rules of an archive description: checking a
 * description, matching names to patterns, captures, and the names built
 * from them (see afmt_archive.h, afmt_ar_run.h). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "afmt_ar_run.h"

/* One item of a pattern: a literal run, or a capture. */
typedef struct pat_item {
    const char *at;  /* literal bytes, or the capture's name */
    size_t len;
    int capture;     /* 1 {x}, 2 {*x} */
    int digits;      /* {x:decimal} 1 (no leading zero), {x:digits} 2, else 0 */
    const char *next;
} pat_item;

/* The item at p (not at its end).  A capture's name is [A-Za-z0-9_]+,
 * optionally typed ":decimal" (digits, no leading zero but "0") or
 * ":digits"; 0, or -1 when the pattern is malformed there (*why). */
static int next_item(const char *p, pat_item *it, const char **why)
{
    const char *q;

    it->capture = 0;
    it->digits = 0;
    if (*p == '}') {
        *why = "a '}' without its '{'";
        return -1;
    }
    if (*p != '{') {
        for (q = p; *q && *q != '{' && *q != '}'; q++)
            ;
        it->at = p;
        it->len = (size_t)(q - p);
        it->next = q;
        return 0;
    }
    it->capture = p[1] == '*' ? 2 : 1;
    it->at = p + it->capture;
    for (q = it->at; (*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || (*q >= '0' && *q <= '9') || *q == '_'; q++)
        ;
    it->len = (size_t)(q - it->at);
    if (it->capture == 1 && strncmp(q, ":decimal}", 9) == 0) {
        it->digits = 1;
        q += 8;
    } else if (it->capture == 1 && strncmp(q, ":digits}", 8) == 0) {
        it->digits = 2;
        q += 7;
    }
    if (*q != '}' || it->len == 0) {
        *why = "a capture is '{' then a name of letters, digits and '_', then '}'";
        return -1;
    }
    it->next = q + 1;
    return 0;
}

/* Check a pattern's form: captures one per component, {*x} last (but
 * for a literal ending without '/'). */
static const char *pattern_problem(const char *p, unsigned *ncap)
{
    const char *why = NULL;
    int in_component = 0;
    pat_item it;

    *ncap = 0;
    if (!p || !*p)
        return "an empty pattern";
    while (*p) {
        if (next_item(p, &it, &why) != 0)
            return why;
        if (it.capture) {
            if (in_component)
                return "two captures in one component (between '/'): a name could match in several ways";
            if (it.capture == 2 && strpbrk(it.next, "{}/"))
                return "a capture {*x} takes the rest of the name: only a literal ending (\"{*x}.ten\") may follow it";
            in_component = 1;
            if (++*ncap > AFMT_AR_CAPTURES_MAX)
                return "more captures than AFMT_AR_CAPTURES_MAX";
        } else if (memchr(it.at, '/', it.len)) {
            in_component = 0; /* a '/' starts the next component */
        }
        p = it.next;
    }
    return NULL;
}

/* The k-th capture of a pattern (its name), or 0 when it has fewer. */
static int capture_at(const char *p, unsigned k, pat_item *out)
{
    const char *why;
    while (*p) {
        if (next_item(p, out, &why) != 0)
            return 0;
        if (out->capture && k-- == 0)
            return 1;
        p = out->next;
    }
    return 0;
}

/* The index of capture name[0..len) in pattern p, or -1. */
static int capture_index(const char *p, const char *name, size_t len)
{
    pat_item it;
    unsigned k;
    for (k = 0; capture_at(p, k, &it); k++)
        if (it.len == len && memcmp(it.at, name, len) == 0)
            return (int)k;
    return -1;
}

/* Every capture a template names is a capture of pattern (but the last
 * when last_free: a record's key). */
static int template_fits(const char *tmpl, const char *pattern, int last_free)
{
    pat_item it;
    unsigned k, n = 0;
    while (capture_at(tmpl, n, &it))
        n++;
    for (k = 0; k < n; k++) {
        capture_at(tmpl, k, &it);
        if (!(last_free && k + 1 == n) && capture_index(pattern, it.at, it.len) < 0)
            return 0;
    }
    return 1;
}

static int usage(afmt_error *err, size_t rule, const char *member, const char *why)
{
    char field[64];
    snprintf(field, sizeof field, "rules[%zu].%s", rule, member);
    return afmt_fail(err, AFMT_E_USAGE, NULL, field, AFMT_NO_INDEX, AFMT_NO_OFFSET, "%s", why);
}

static int check_rule(const afmt_archive_desc *d, size_t i, afmt_error *err)
{
    const afmt_ar_rule *r = &d->rules[i];
    unsigned ncap;
    const char *why = pattern_problem(r->pattern, &ncap);
    pat_item last;

    if (why)
        return usage(err, i, "pattern", why);
    if ((unsigned)r->presence > AFMT_AR_EXACTLY_ONE)
        return usage(err, i, "presence", "not an afmt_ar_presence");
    switch (r->action) {
    case AFMT_AR_FORMAT:
        if (!r->format || !r->format->validate)
            return usage(err, i, "format", "a FORMAT rule needs a format with a validator");
        if (r->array_name && !template_fits(r->array_name, r->pattern, 0))
            return usage(err, i, "array_name", "names a capture its pattern does not have");
        return 0;
    case AFMT_AR_TEXT:
        if (!r->texts || r->ntexts == 0 || r->nstrict > r->ntexts)
            return usage(err, i, "texts", "a TEXT rule needs texts, nstrict of them at most");
        if (r->sets < -1 || r->sets >= (int)d->nvars)
            return usage(err, i, "sets", "not a variable of the desc (nvars) or -1");
        return 0;
    case AFMT_AR_RECORD:
        if (r->endian_var < -1 || r->endian_var >= (int)d->nvars)
            return usage(err, i, "endian_var", "not a variable of the desc (nvars) or -1");
        return 0;
    case AFMT_AR_VALUES:
        if (!r->values)
            return usage(err, i, "values", "a VALUES rule needs its function");
        if (r->record_rule == -1)
            return 0;
        if (r->record_rule < 0 || (size_t)r->record_rule >= d->nrules ||
            d->rules[r->record_rule].action != AFMT_AR_RECORD)
            return usage(err, i, "record_rule", "does not name a RECORD rule");
        if (!capture_at(d->rules[r->record_rule].pattern, 0, &last) ||
            !template_fits(d->rules[r->record_rule].pattern, r->pattern, 1))
            return usage(err, i, "record_rule", "the record pattern needs a last capture (the key) and only "
                         "other captures this rule's pattern has");
        return 0;
    case AFMT_AR_REFUSE:
        return r->reason ? 0 : usage(err, i, "reason", "a REFUSE rule needs its reason");
    case AFMT_AR_IGNORE:
        return 0;
    }
    return usage(err, i, "action", "not an afmt_ar_action");
}

int afmt_archive_desc_check(const afmt_archive_desc *d, afmt_error *err)
{
    size_t i;
    if (!d || !d->name || !d->format || (d->kind != AFMT_AR_ZIP && d->kind != AFMT_AR_TAR))
        return afmt_fail(err, AFMT_E_USAGE, NULL, "desc", AFMT_NO_INDEX, AFMT_NO_OFFSET,
                         "an archive desc needs a name, a format and a kind (zip or tar)");
    if (d->nrules > AFMT_AR_RULES_MAX || (d->nrules && !d->rules) || d->nvars > AFMT_AR_VARS_MAX ||
        (unsigned)d->rest > AFMT_AR_REST_LENIENT || (d->nextra && !d->extra_ids))
        return afmt_fail(err, AFMT_E_USAGE, NULL, "desc", AFMT_NO_INDEX, AFMT_NO_OFFSET,
                         "at most %u rules and %u variables, a rest of afmt_ar_rest, extra ids when nextra",
                         AFMT_AR_RULES_MAX, AFMT_AR_VARS_MAX);
    if (((d->methods | d->methods_lenient) & ~0x101u) != 0)
        return afmt_fail(err, AFMT_E_USAGE, NULL, "desc.methods", AFMT_NO_INDEX, AFMT_NO_OFFSET,
                         "methods 0x%x: afmt reads stored (bit 0) and deflated (bit 8) members only",
                         d->methods | d->methods_lenient);
    for (i = 0; i < d->nrules; i++)
        if (check_rule(d, i, err) != 0)
            return -1;
    {
        afmt_ar_run probe;
        memset(&probe, 0, sizeof probe);
        probe.d = d;
        afmt_ar_collect_captures(&probe);
        if (probe.ncaps > AFMT_AR_CAPTURES_MAX)
            return afmt_fail(err, AFMT_E_USAGE, NULL, "desc", AFMT_NO_INDEX, AFMT_NO_OFFSET,
                             "more than %u distinct capture names", AFMT_AR_CAPTURES_MAX);
    }
    return 0;
}

void afmt_ar_collect_captures(afmt_ar_run *r)
{
    int last_rule[AFMT_AR_CAPTURES_MAX + 1];
    size_t i;
    unsigned k, c;
    pat_item it;

    r->ncaps = 0;
    for (i = 0; i < r->d->nrules; i++) {
        for (k = 0; capture_at(r->d->rules[i].pattern, k, &it); k++) {
            for (c = 0; c < r->ncaps && c < AFMT_AR_CAPTURES_MAX; c++)
                if (r->caps[c].name_len == it.len && memcmp(r->caps[c].name, it.at, it.len) == 0)
                    break;
            if (c == r->ncaps) {
                if (r->ncaps++ >= AFMT_AR_CAPTURES_MAX)
                    continue; /* counted, so that desc_check says so */
                r->caps[c].name = it.at;
                r->caps[c].name_len = it.len;
                r->caps[c].fixed = 0;
                r->caps[c].value = NULL;
                last_rule[c] = (int)i;
            } else if (last_rule[c] != (int)i) {
                r->caps[c].fixed = 1;
                last_rule[c] = (int)i;
            }
        }
    }
}

/* A typed capture's bytes: decimal digits, and with no_lead_zero no
 * leading zero unless the number is 0 (torch's storage keys). */
static int digits_fit(const uint8_t *v, size_t n, int no_lead_zero)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (v[i] < '0' || v[i] > '9') return 0;
    return n > 0 && !(no_lead_zero && n > 1 && v[0] == '0');
}

/* One component of the pattern at *p against the name's component at
 * name[*q..): 1 matched (both moved past it), 0 not. */
static int match_component(const char **p, const uint8_t *name, size_t len, size_t *q, afmt_ar_span *spans,
                           unsigned *ncap)
{
    const char *why, *lit1 = *p, *lit2 = NULL;
    size_t n1, n2 = 0, qe = *q, comp;
    pat_item it;
    int cap = 0;

    while (qe < len && name[qe] != '/')
        qe++;
    for (n1 = 0; lit1[n1] && lit1[n1] != '/' && lit1[n1] != '{'; n1++)
        ;
    *p = lit1 + n1;
    if (**p == '{') {
        if (next_item(*p, &it, &why) != 0)
            return 0;
        cap = it.capture;
        lit2 = it.next;
        for (; lit2[n2] && lit2[n2] != '/'; n2++)
            ;
        *p = lit2 + n2;
    }
    if (cap == 2) { /* the rest of the name, '/' and all, but for a literal ending */
        if (len - *q < n1 + n2 + 1 || memcmp(name + *q, lit1, n1) != 0 || memcmp(name + len - n2, lit2, n2) != 0)
            return 0;
        spans[*ncap].at = (uint32_t)(*q + n1);
        spans[(*ncap)++].len = (uint32_t)(len - *q - n1 - n2);
        *q = len;
        return 1;
    }
    comp = qe - *q;
    if (!cap) {
        if (comp != n1 || memcmp(name + *q, lit1, n1) != 0)
            return 0;
        *q = qe;
        return 1;
    }
    if (comp < n1 + n2 + 1 || memcmp(name + *q, lit1, n1) != 0 || memcmp(name + qe - n2, lit2, n2) != 0)
        return 0;
    if (it.digits && !digits_fit(name + *q + n1, comp - n1 - n2, it.digits == 1))
        return 0;
    spans[*ncap].at = (uint32_t)(*q + n1);
    spans[(*ncap)++].len = (uint32_t)(comp - n1 - n2);
    *q = qe;
    return 1;
}

int afmt_ar_match(const char *pattern, const uint8_t *name, size_t len, afmt_ar_span *spans)
{
    const char *p = pattern;
    size_t q = 0;
    unsigned ncap = 0;

    for (;;) {
        if (!match_component(&p, name, len, &q, spans, &ncap))
            return 0;
        if (*p != '/')
            return q == len;
        if (q == len || name[q] != '/')
            return 0;
        p++;
        q++;
    }
}

/* The capture slot of a pattern's k-th capture. */
static afmt_ar_capture *slot_of(afmt_ar_run *r, const char *pattern, unsigned k)
{
    pat_item it;
    unsigned c;
    if (!capture_at(pattern, k, &it))
        return NULL;
    for (c = 0; c < r->ncaps; c++)
        if (r->caps[c].name_len == it.len && memcmp(r->caps[c].name, it.at, it.len) == 0)
            return &r->caps[c];
    return NULL;
}

/* Fixed captures take one value in the whole archive. */
static int keep_consistent(afmt_ar_run *r, afmt_ar_member *m, const char *pattern, const afmt_ar_span *spans)
{
    unsigned k;
    pat_item it;

    for (k = 0; capture_at(pattern, k, &it); k++) {
        afmt_ar_capture *c = slot_of(r, pattern, k);
        const uint8_t *v = m->name + spans[k].at;
        char mine[112], theirs[112], first[112];
        if (!c || !c->fixed)
            continue;
        if (!c->value) {
            if (!(c->value = afmt_ar_keep(r, v, spans[k].len, m->entry_off)))
                return -1;
            c->value_len = spans[k].len;
            c->first = m->index;
            continue;
        }
        if (c->value_len == spans[k].len && memcmp(c->value, v, spans[k].len) == 0)
            continue;
        afmt_ar_quote(v, spans[k].len, 40, mine, sizeof mine);
        afmt_ar_quote(c->value, c->value_len, 40, theirs, sizeof theirs);
        afmt_ar_quote(r->m[c->first].name, r->m[c->first].name_len, 60, first, sizeof first);
        return afmt_ar_fail(r, AFMT_E_CONSTRAINT, m, NULL, m->name_off + spans[k].at,
                            "its {%.*s} is \"%s\", but member %" PRIu32 " (\"%s\") has \"%s\": every member "
                            "must share it", (int)it.len, it.at, mine, c->first, first, theirs);
    }
    return 0;
}

int afmt_ar_assign(afmt_ar_run *r, afmt_ar_member *m)
{
    afmt_ar_span spans[AFMT_AR_CAPTURES_MAX];
    const afmt_ar_rule *rule;
    size_t i;

    for (i = 0; i < r->d->nrules; i++)
        if (afmt_ar_match(r->d->rules[i].pattern, m->name, m->name_len, spans))
            break;
    if (i == r->d->nrules) {
        m->rule = AFMT_AR_NO_RULE;
        if (r->d->rest == AFMT_AR_REST_IGNORE)
            return 0;
        return afmt_ar_refuse(r, r->d->rest == AFMT_AR_REST_LENIENT, AFMT_E_CONSTRAINT, m, NULL, m->name_off,
                              "no rule of %s allows a member of this name", r->d->format);
    }
    m->rule = (int)i;
    rule = &r->d->rules[i];
    r->hits[i]++;
    if (keep_consistent(r, m, rule->pattern, spans) != 0)
        return -1;
    if (rule->action == AFMT_AR_REFUSE)
        return afmt_ar_fail(r, AFMT_E_UNSUPPORTED, m, NULL, m->name_off, "%s", rule->reason);
    if (r->hits[i] > 1 && (rule->presence == AFMT_AR_AT_MOST_ONE || rule->presence == AFMT_AR_EXACTLY_ONE))
        return afmt_ar_fail(r, AFMT_E_CONSTRAINT, m, NULL, m->name_off,
                            "a second member of the form \"%s\": at most one is allowed", rule->pattern);
    if (rule->action == AFMT_AR_IGNORE && rule->lenient_only)
        return afmt_ar_refuse(r, 1, AFMT_E_CONSTRAINT, m, NULL, m->name_off,
                              "a member of the form \"%s\" is allowed in lenient mode only (not read)", rule->pattern);
    return 0;
}

/* Append n bytes to out (cut at cap - 1), counting all of them. */
static void put(char *out, size_t cap, size_t *o, const void *p, size_t n)
{
    if (*o < cap - 1) {
        size_t k = cap - 1 - *o < n ? cap - 1 - *o : n;
        memcpy(out + *o, p, k);
    }
    *o += n;
}

void afmt_ar_expand(const char *tmpl, const char *pattern, const afmt_ar_member *m, const char *key, size_t key_len,
                    char *out, size_t cap, size_t *full)
{
    afmt_ar_span spans[AFMT_AR_CAPTURES_MAX];
    const char *p = tmpl, *why;
    size_t o = 0;
    unsigned ncap = 0, k = 0;
    pat_item it;

    while (capture_at(tmpl, ncap, &it))
        ncap++;
    if (!afmt_ar_match(pattern, m->name, m->name_len, spans))
        memset(spans, 0, sizeof spans);
    while (*p && next_item(p, &it, &why) == 0) {
        if (!it.capture) {
            put(out, cap, &o, it.at, it.len);
        } else if (key && k + 1 == ncap) {
            put(out, cap, &o, key, key_len);
        } else {
            int at = capture_index(pattern, it.at, it.len);
            if (at >= 0)
                put(out, cap, &o, m->name + spans[at].at, spans[at].len);
        }
        k += it.capture != 0;
        p = it.next;
    }
    out[o < cap - 1 ? o : cap - 1] = '\0';
    *full = o;
}
