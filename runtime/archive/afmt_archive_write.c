/* afmt runtime: writing an archive from its description (see
 * afmt_ar_write.h). */
#include "afmt_ar_write.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "afmt_ar_run.h"
#include "../array/afmt_array.h"
#include "../common/afmt_bytes.h"
#include "../common/afmt_error.h"
#include "../core/afmt_fields.h"
#include "../pickle/afmt_pickle.h"
#include "../io/afmt_sink.h"
#include "../array/afmt_transpose.h"
#include "../array/afmt_write_dir.h"
#include "afmt_zip_write.h"

/* Member names are built here: zip's own bound on a name. */
#define NAME_CAP 65536

/* A sink that grows in memory (a pickle, a member another format writes):
 * its bytes are s->buf[0..s->written), malloc'd, the caller's to free. */
static int grow_write(afmt_sink *s, const void *p, uint64_t n)
{
    uint64_t need;
    if (afmt_checked_add_u64(s->written, n, &need) || need > SIZE_MAX)
        return -1;
    if (need > s->cap) {
        uint64_t cap = s->cap ? s->cap : 4096;
        uint8_t *b;
        while (cap < need)
            cap = cap > UINT64_MAX / 2 ? need : cap * 2;
        b = realloc(s->buf, (size_t)cap);
        if (!b)
            return -1;
        s->buf = b;
        s->cap = cap;
    }
    memcpy(s->buf + s->written, p, (size_t)n);
    return 0;
}

static void grow_sink(afmt_sink *s)
{
    memset(s, 0, sizeof *s);
    s->write = grow_write;
}

/* Is the pattern literal (no capture)? */
static int literal(const char *p) { return strchr(p, '{') == NULL; }

/* The name of a member: pattern with each capture replaced by the
 * writer's value for it (write_captures), the array's name (a capture
 * that array_name names) or key (any other).  0, or -1 when the name does
 * not fit or a capture has no value. */
static int member_name(const afmt_ar_write_desc *w, const char *pattern, const char *array_name, const char *value,
                       const char *key, char *out, size_t cap)
{
    size_t o = 0, k;
    const char *p = pattern;
    while (*p) {
        const char *v = NULL, *close;
        char cname[64];
        size_t n;
        if (*p != '{') {
            if (o + 1 >= cap) return -1;
            out[o++] = *p++;
            continue;
        }
        close = strchr(p, '}');
        if (!close) return -1;
        n = (size_t)(close - p - 1);
        if (n >= sizeof cname) return -1;
        memcpy(cname, p + 1, n);
        cname[n] = 0;
        if (cname[0] == '*') memmove(cname, cname + 1, n);
        if (strchr(cname, ':')) *strchr(cname, ':') = 0;
        for (k = 0; k < w->ncaptures && !v; k++)
            if (strcmp(w->capture_names[k], cname) == 0) v = w->capture_values[k];
        if (!v && array_name && strstr(array_name, cname)) v = value;
        if (!v) v = key;
        if (!v || o + strlen(v) >= cap) return -1;
        memcpy(out + o, v, strlen(v));
        o += strlen(v);
        p = close + 1;
    }
    out[o] = 0;
    return 0;
}

static int name_fail(afmt_error *err, const afmt_ar_rule *r, size_t i)
{
    return afmt_fail(err, AFMT_E_USAGE, NULL, "array", i, AFMT_NO_OFFSET,
                     "cannot name a member after \"%s\": a capture has no value (write_captures) or the name is "
                     "longer than a zip allows", r->pattern);
}

/* The rule the validator gives a member of this name to: the first whose
 * pattern matches it (d->nrules: none). */
static size_t first_rule(const afmt_archive_desc *d, const char *name)
{
    afmt_ar_span spans[AFMT_AR_CAPTURES_MAX + 1];
    size_t k;
    for (k = 0; k < d->nrules; k++)
        if (afmt_ar_match(d->rules[k].pattern, (const uint8_t *)name, strlen(name), spans))
            break;
    return k;
}

/* Can array i be a member of this name, read back under rule r with the
 * same name?  The name comes from the array (another format's label, a
 * key), so what the archive cannot hold is a refusal of the array
 * (AFMT_E_TYPE, as a writer refuses a name it cannot store), not a
 * misuse: a name cut to AFMT_NAME_MAX - 1 bytes, one a reader refuses
 * ('\\', "..", not UTF-8: afmt_ar_name_problem), or one another rule, or
 * no rule, would read ("x/y" under "{name}.npy" is no npz member). */
static int check_format_name(const afmt_archive_desc *d, const afmt_ar_rule *r, const char *name,
                             const afmt_array *a, size_t i, afmt_error *err)
{
    const uint8_t *bytes = (const uint8_t *)name;
    size_t len = strlen(name), at, k;
    const char *why;

    if (r->array_name && r->array_name[0] && a->name_len > strlen(a->name))
        return afmt_fail(err, AFMT_E_TYPE, NULL, "array", i, AFMT_NO_OFFSET,
                         "a name of %" PRIu64 " bytes, of which the view holds %zu: the member would be named "
                         "after a part of it", a->name_len, strlen(a->name));
    if ((why = afmt_ar_name_problem(bytes, len, (d->flags_allowed & 0x0800) != 0, &at)) != NULL)
        return afmt_fail(err, AFMT_E_TYPE, NULL, "array", i, AFMT_NO_OFFSET,
                         "the name cannot name a member of %s: %s (byte %zu of the member name)", d->format, why,
                         at);
    k = first_rule(d, name);
    if (k == d->nrules || &d->rules[k] != r)
        return afmt_fail(err, AFMT_E_TYPE, NULL, "array", i, AFMT_NO_OFFSET,
                         "the name cannot name a member of %s: \"%.80s\" is %s%s%s", d->format, name,
                         k == d->nrules ? "no member name of the format" : "read as \"",
                         k == d->nrules ? "" : d->rules[k].pattern, k == d->nrules ? "" : "\", not an array");
    return 0;
}

/* The validator gives a member to the first rule whose pattern matches
 * its name: a text, pickle or record member written for rule r but
 * matched first by another ("{prefix}/{*rest}" ignored, listed before
 * "{prefix}/version") would be read as that one's (the spec fuzzer's
 * seed 7199).  Such names come from the spec alone, so it is a misuse
 * (AFMT_E_USAGE) naming both rules.  0 or -1. */
static int check_rule_order(const afmt_archive_desc *d, const afmt_ar_rule *r, const char *name, afmt_error *err)
{
    const size_t k = first_rule(d, name);
    if (k < d->nrules && &d->rules[k] == r) return 0;
    return afmt_fail(err, AFMT_E_USAGE, NULL, r->pattern, AFMT_NO_INDEX, AFMT_NO_OFFSET,
                     "member \"%.80s\", written for the rule \"%s\", would be read %s%s%s", name, r->pattern,
                     k == d->nrules ? "by no rule" : "under the rule \"", k == d->nrules ? "" : d->rules[k].pattern,
                     k == d->nrules ? "" : "\", which comes first");
}

/* The bytes of an array as a record: plain, row-major, little-endian
 * (the writer's arrays are plain and native: on a big-endian host they
 * are swapped through a callback). */
static int host_big(void)
{
    const uint16_t one = 1;
    return *(const uint8_t *)&one == 0;
}

static int swap_fill(void *ctx, uint64_t first, uint8_t *buf, uint64_t n, afmt_error *err)
{
    const afmt_array *a = ctx;
    const afmt_dtype_info *di = afmt_dtype_get(a->dtype);
    (void)err;
    afmt_swap_copy(buf, a->data + first, n, di->component > 1 ? di->component : 1);
    return 0;
}

/* A payload the sink's producer makes (a streamed conversion: the array's
 * data is the producer's key, not bytes); it may be asked for twice when
 * the CRC-32 comes before the data, and counts what it made once. */
static int produced_fill(void *ctx, uint64_t first, uint8_t *buf, uint64_t n, afmt_error *err)
{
    afmt_sink_producer *pr = ctx;
    if (pr->fill(pr->ctx, first, buf, n, err) != 0)
        return -1;
    if (first + n > pr->produced)
        pr->produced = first + n;
    return 0;
}

static int write_record(afmt_zip_writer *z, afmt_sink *sink, const char *name, const afmt_array *a, size_t i,
                        afmt_error *err)
{
    uint64_t size;
    if (afmt_array_plain_size(a, &size, err) != 0)
        return afmt_error_within(err, "array", i);
    if (a->encoding != AFMT_ENC_PLAIN || a->strided || (size > 0 && (!a->data || a->nbytes < size)))
        return afmt_fail(err, AFMT_E_USAGE, NULL, "array", i, AFMT_NO_OFFSET,
                         "a writer takes plain, contiguous arrays in memory (afmt_array_to_plain first)");
    if (sink->producer && a->data == sink->producer->key && !sink->counting) {
        if (host_big() && afmt_dtype_get(a->dtype)->component > 1)
            return afmt_fail(err, AFMT_E_UNSUPPORTED, NULL, "array", i, AFMT_NO_OFFSET,
                             "a streamed record on a big-endian host: not supported");
        return afmt_zip_write_member_fill(z, name, strlen(name), size, produced_fill, sink->producer, err);
    }
    if (a->dtype == AFMT_BOOL && !sink->counting) {
        /* a writer writes only what its validator accepts */
        uint64_t k;
        for (k = 0; k < a->count; k++)
            if (a->data[k] > 1)
                return afmt_fail(err, AFMT_E_VALUE, NULL, "array", i, AFMT_NO_OFFSET,
                                 "bool element %" PRIu64 " is %u, not 0 or 1", k, (unsigned)a->data[k]);
    }
    if (host_big() && afmt_dtype_get(a->dtype)->component > 1 && !sink->counting)
        return afmt_zip_write_member_fill(z, name, strlen(name), size, swap_fill, (void *)a, err);
    return afmt_zip_write_member(z, name, strlen(name), a->data, size, err);
}

/* One array written by another format into memory, then stored. */
static int write_format_member(afmt_zip_writer *z, afmt_sink *sink, const afmt_ar_rule *r, const char *name,
                               const afmt_array *a, size_t i, afmt_error *err)
{
    afmt_sink mem;
    int rc;
    grow_sink(&mem);
    /* a streamed payload is made by the caller's producer; a size-only
     * pass counts */
    mem.producer = sink->producer;
    mem.counting = sink->counting;
    rc = r->format->write(a, 1, NULL, &mem, err);
    if (rc != 0)
        rc = afmt_error_within(err, "array", i);
    else
        rc = afmt_zip_write_member(z, name, strlen(name), mem.buf ? mem.buf : (const uint8_t *)"", mem.written, err);
    free(mem.buf);
    return rc;
}

static int write_pickle(afmt_zip_writer *z, const afmt_ar_rule *r, const char *name, const afmt_array *arrays,
                        size_t n, afmt_error *err)
{
    afmt_sink mem;
    int rc;
    if (r->values != afmt_pickle_member)
        return afmt_fail(err, AFMT_E_USAGE, NULL, r->pattern, AFMT_NO_INDEX, AFMT_NO_OFFSET,
                         "no writer for this value grammar");
    grow_sink(&mem);
    rc = afmt_pickle_write_state_dict(r->values_desc, arrays, n, &mem, err);
    if (rc == 0 && mem.failed)
        rc = afmt_fail(err, AFMT_E_NOMEM, NULL, r->pattern, AFMT_NO_INDEX, AFMT_NO_OFFSET,
                       "no memory for the pickle");
    if (rc == 0)
        rc = afmt_zip_write_member(z, name, strlen(name), mem.buf, mem.written, err);
    free(mem.buf);
    return rc;
}

/* What one rule writes (see afmt_ar_write.h). */
static int write_rule(afmt_zip_writer *z, afmt_sink *sink, const afmt_archive_desc *d, const afmt_ar_write_desc *w,
                      const afmt_ar_rule *r, const afmt_array *arrays, size_t n, char *name, size_t *format_first,
                      afmt_error *err)
{
    char key[24];
    size_t i;
    switch (r->action) {
    case AFMT_AR_TEXT:
        if (r->ntexts == 0 || !literal(r->texts[0])) {
            if (r->presence == AFMT_AR_REQUIRED || r->presence == AFMT_AR_EXACTLY_ONE)
                return afmt_fail(err, AFMT_E_USAGE, NULL, r->pattern, AFMT_NO_INDEX, AFMT_NO_OFFSET,
                                 "a required text member whose first text is not literal cannot be written");
            return 0;
        }
        if (member_name(w, r->pattern, NULL, NULL, NULL, name, NAME_CAP) != 0) return name_fail(err, r, 0);
        if (check_rule_order(d, r, name, err) != 0) return -1;
        return afmt_zip_write_member(z, name, strlen(name), (const uint8_t *)r->texts[0], strlen(r->texts[0]), err);
    case AFMT_AR_VALUES:
        if (member_name(w, r->pattern, NULL, NULL, NULL, name, NAME_CAP) != 0) return name_fail(err, r, 0);
        if (check_rule_order(d, r, name, err) != 0) return -1;
        return write_pickle(z, r, name, arrays, n, err);
    case AFMT_AR_RECORD:
        for (i = 0; i < n; i++) {
            snprintf(key, sizeof key, "%zu", i);
            if (member_name(w, r->pattern, NULL, NULL, key, name, NAME_CAP) != 0) return name_fail(err, r, i);
            if (check_rule_order(d, r, name, err) != 0) return -1;
            if (write_record(z, sink, name, &arrays[i], i, err) != 0) return -1;
        }
        return 0;
    case AFMT_AR_FORMAT:
        /* names distinct before any member is written, refused as every
         * writer of named arrays refuses them (name[i]) */
        if (afmt_write_dir_unique_names(arrays, n, AFMT_UNNAMED_PREFIX, "name", err) != 0) return -1;
        *format_first = z->n; /* members format_first + i: array i's */
        for (i = 0; i < n; i++) {
            char unnamed[32];
            const char *value = afmt_array_key(&arrays[i], i, unnamed, sizeof unnamed);
            if (member_name(w, r->pattern, r->array_name, value, NULL, name, NAME_CAP) != 0) return name_fail(err, r, i);
            if (check_format_name(d, r, name, &arrays[i], i, err) != 0) return -1;
            if (write_format_member(z, sink, r, name, &arrays[i], i, err) != 0) return -1;
        }
        return 0;
    default:
        return 0;
    }
}

/* Two arrays named alike (an unnamed array i is arr_<i>, which another
 * may be called) would be two members of one name: the second array's
 * name is refused (AFMT_E_TYPE), as one the format cannot hold, before
 * the zip writer's own check calls it a misuse.  Members format_first
 * .. + n are the arrays' (SIZE_MAX: no format rule).  0 or -1. */
static int distinct_arrays(const afmt_zip_writer *z, size_t format_first, size_t n, afmt_error *err)
{
    size_t first, second;
    int rc;

    if (format_first == SIZE_MAX || (rc = afmt_zip_write_twice(z, &first, &second, err)) == 0)
        return 0;
    if (rc < 0 || second < format_first || second - format_first >= n)
        return rc < 0 ? -1 : 0; /* not an array's: afmt_zip_write_finish says so */
    return afmt_fail(err, AFMT_E_TYPE, NULL, "array", second - format_first, AFMT_NO_OFFSET,
                     "its name gives the member \"%.*s\", as %s%zu's does: two members of one name",
                     (int)(z->e[second].name_len < 80 ? z->e[second].name_len : 80), z->e[second].name,
                     first >= format_first ? "array " : "member ", first >= format_first ? first - format_first : first);
}

/* Can every array be written as d's rules say?  Checked before a byte is
 * written, so a refusal is about the array and names the format asked
 * for ("npz cannot hold elements of type bf16 (npy cannot hold ...)"). */
static int refuse_type(afmt_error *err, const afmt_archive_desc *d, size_t i, const afmt_array *a, const char *why)
{
    char inner[AFMT_MESSAGE_MAX];
    snprintf(inner, sizeof inner, "%s", why);
    return afmt_fail(err, AFMT_E_TYPE, NULL, "array", i, AFMT_NO_OFFSET, "%s cannot hold elements of type %s (%s)",
                     d->format, afmt_array_type_name(a), inner);
}

static int check_writable(const afmt_archive_desc *d, const afmt_array *arrays, size_t n, afmt_error *err)
{
    size_t k, i, g;
    for (k = 0; k < d->nrules; k++) {
        const afmt_ar_rule *r = &d->rules[k];
        for (i = 0; i < n; i++) {
            if (r->action == AFMT_AR_FORMAT && r->format->can_write(&arrays[i], err) != 0) {
                if (err->code == AFMT_E_TYPE) return refuse_type(err, d, i, &arrays[i], err->message);
                return afmt_error_within(err, "array", i);
            }
            if (r->action == AFMT_AR_VALUES && r->values == afmt_pickle_member) {
                const afmt_pickle_desc *p = r->values_desc;
                for (g = 0; g < p->nglobals; g++)
                    if (p->globals[g].role == AFMT_PK_ROLE_CLASS && p->globals[g].writable &&
                        p->globals[g].dtype == arrays[i].dtype)
                        break;
                if (g == p->nglobals || arrays[i].dtype == AFMT_OPAQUE)
                    return refuse_type(err, d, i, &arrays[i], "no storage class of its pickle names that type");
            }
        }
    }
    return 0;
}

int afmt_archive_write(const afmt_archive_desc *d, const afmt_ar_write_desc *w, const afmt_array *arrays, size_t n,
                       const afmt_write_options *wopt, afmt_sink *sink, afmt_error *err)
{
    afmt_zip_writer z;
    afmt_zip_write_options zo;
    char *name;
    size_t k, format_first = SIZE_MAX;
    int rc = 0;

    if (d->kind != AFMT_AR_ZIP)
        return afmt_fail(err, AFMT_E_UNSUPPORTED, NULL, NULL, AFMT_NO_INDEX, AFMT_NO_OFFSET,
                         "%s: afmt writes zip archives only", d->format);
    if (wopt && wopt->trailer_len > 0)
        return afmt_fail(err, AFMT_E_USAGE, NULL, NULL, AFMT_NO_INDEX, AFMT_NO_OFFSET,
                         "%s does not allow data after the archive", d->format);
    if (check_writable(d, arrays, n, err) != 0)
        return -1;
    memset(&zo, 0, sizeof zo);
    zo.align = d->align > 1 ? d->align : 0;
    zo.descriptor = w->descriptor;
    zo.flags = (uint16_t)(d->flags_allowed & 0x0800);
    zo.zip64_end = w->zip64_end;
    zo.zip64_local = w->zip64_local;
    name = malloc(NAME_CAP);
    if (!name)
        return afmt_fail(err, AFMT_E_NOMEM, NULL, NULL, AFMT_NO_INDEX, AFMT_NO_OFFSET, "no memory for a member name");
    if (afmt_zip_write_begin(&z, sink, &zo, err) != 0) {
        free(name);
        return -1;
    }
    for (k = 0; k < d->nrules && rc == 0; k++)
        rc = write_rule(&z, sink, d, w, &d->rules[k], arrays, n, name, &format_first, err);
    if (rc == 0)
        rc = distinct_arrays(&z, format_first, n, err);
    if (rc == 0)
        rc = afmt_zip_write_finish(&z, err);
    afmt_zip_write_free(&z);
    free(name);
    return rc;
}
