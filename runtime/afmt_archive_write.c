/* afmt runtime: writing an archive from its description (see
 * afmt_ar_write.h). */
#include "afmt_ar_write.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "afmt_ar_run.h"
#include "afmt_array.h"
#include "afmt_bytes.h"
#include "afmt_error.h"
#include "afmt_fields.h"
#include "afmt_pickle.h"
#include "afmt_sink.h"
#include "afmt_transpose.h"
#include "afmt_write_dir.h"
#include "afmt_zip_write.h"

/* Member names are built here: zip's own bound on a name. */
#define NAME_CAP 65536

/* A sink that grows in memory (a pickle, a member another format writes):
 * its bytes are s->buf[0..s->written), malloc'd, the caller's to free. */
static int grow_write(afmt_sink *s, const void *p, uint64_t n)
{
    uint64_t need;
    if (!afmt_add_u64(s->written, n, &need) || need > SIZE_MAX)
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

/* A member name the validator reads back as this rule's: relative,
 * '/'-separated components that are not empty, "." or "..", no '\\',
 * valid UTF-8 (what afmt_ar_names.c refuses), and matched first by rule
 * k of d (an earlier rule would take it for something else). */
static int utf8_ok(const unsigned char *s)
{
    while (*s) {
        unsigned c = *s, n = c < 0x80 ? 0 : (c >> 5) == 6 ? 1 : (c >> 4) == 14 ? 2 : (c >> 3) == 30 ? 3 : 9;
        unsigned k;
        if (n == 9 || (n == 1 && c < 0xC2)) return 0;
        for (k = 1; k <= n; k++)
            if ((s[k] & 0xC0) != 0x80) return 0;
        if ((n == 2 && c == 0xE0 && s[1] < 0xA0) || (n == 3 && c == 0xF0 && s[1] < 0x90) || (n == 3 && c > 0xF4))
            return 0;
        s += n + 1;
    }
    return 1;
}

static int name_reads_back(const afmt_archive_desc *d, size_t k, const char *name)
{
    afmt_ar_span spans[AFMT_AR_CAPTURES_MAX + 1];
    const char *c = name;
    size_t i, len = strlen(name);
    if (!*name || name[0] == '/' || strchr(name, '\\') || !utf8_ok((const unsigned char *)name))
        return 0;
    while (*c) { /* each component */
        size_t n = strcspn(c, "/");
        if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.')) return 0;
        c += n + (c[n] == '/');
        if (c[-1] == '/' && !*c) return 0;
    }
    for (i = 0; i < d->nrules; i++)
        if (afmt_ar_match(d->rules[i].pattern, (const uint8_t *)name, len, spans))
            return i == k;
    return 0;
}

static int name_refused(afmt_error *err, const afmt_archive_desc *d, size_t k, size_t i, const char *name)
{
    char shown[120];
    afmt_ar_quote((const uint8_t *)name, strlen(name), 60, shown, sizeof shown);
    return afmt_fail(err, AFMT_E_TYPE, NULL, "array", i, AFMT_NO_OFFSET,
                     "%s cannot hold this array under its name: its member would be \"%s\", which %s does not read "
                     "back as \"%s\" (member names are valid UTF-8 without a backslash or an empty, '.' or '..' part)",
                     d->format, shown, d->format, d->rules[k].pattern);
}

static int name_fail(afmt_error *err, const afmt_ar_rule *r, size_t i)
{
    return afmt_fail(err, AFMT_E_USAGE, NULL, "array", i, AFMT_NO_OFFSET,
                     "cannot name a member after \"%s\": a capture has no value (write_captures) or the name is "
                     "longer than a zip allows", r->pattern);
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
static int write_rule(afmt_zip_writer *z, afmt_sink *sink, const afmt_archive_desc *d, size_t k,
                      const afmt_ar_write_desc *w, const afmt_array *arrays, size_t n, char *name, afmt_error *err)
{
    const afmt_ar_rule *r = &d->rules[k];
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
        return afmt_zip_write_member(z, name, strlen(name), (const uint8_t *)r->texts[0], strlen(r->texts[0]), err);
    case AFMT_AR_VALUES:
        if (member_name(w, r->pattern, NULL, NULL, NULL, name, NAME_CAP) != 0) return name_fail(err, r, 0);
        return write_pickle(z, r, name, arrays, n, err);
    case AFMT_AR_RECORD:
        for (i = 0; i < n; i++) {
            snprintf(key, sizeof key, "%zu", i);
            if (member_name(w, r->pattern, NULL, NULL, key, name, NAME_CAP) != 0) return name_fail(err, r, i);
            if (write_record(z, sink, name, &arrays[i], i, err) != 0) return -1;
        }
        return 0;
    case AFMT_AR_FORMAT:
        /* names distinct before any member is written, refused as every
         * writer of named arrays refuses them (name[i]) */
        if (afmt_wdir_unique_names(arrays, n, AFMT_UNNAMED_PREFIX, "name", err) != 0) return -1;
        for (i = 0; i < n; i++) {
            char unnamed[32];
            const char *value = afmt_array_key(&arrays[i], i, unnamed, sizeof unnamed);
            if (member_name(w, r->pattern, r->array_name, value, NULL, name, NAME_CAP) != 0) return name_fail(err, r, i);
            if (!name_reads_back(d, k, name) || arrays[i].name_len > strlen(arrays[i].name))
                return name_refused(err, d, k, i, name);
            if (write_format_member(z, sink, r, name, &arrays[i], i, err) != 0) return -1;
        }
        return 0;
    default:
        return 0;
    }
}

int afmt_archive_write(const afmt_archive_desc *d, const afmt_ar_write_desc *w, const afmt_array *arrays, size_t n,
                       const afmt_write_options *wopt, afmt_sink *sink, afmt_error *err)
{
    afmt_zip_writer z;
    afmt_zip_write_options zo;
    char *name;
    size_t k;
    int rc = 0;

    if (d->kind != AFMT_AR_ZIP)
        return afmt_fail(err, AFMT_E_UNSUPPORTED, NULL, NULL, AFMT_NO_INDEX, AFMT_NO_OFFSET,
                         "%s: afmt writes zip archives only", d->format);
    if (wopt && wopt->trailer_len > 0)
        return afmt_fail(err, AFMT_E_USAGE, NULL, NULL, AFMT_NO_INDEX, AFMT_NO_OFFSET,
                         "%s does not allow data after the archive", d->format);
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
        rc = write_rule(&z, sink, d, k, w, arrays, n, name, err);
    if (rc == 0)
        rc = afmt_zip_write_finish(&z, err);
    afmt_zip_write_free(&z);
    free(name);
    return rc;
}
