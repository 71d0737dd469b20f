/* afmt reference interpreter: the comparison with a generated validator
 * that the agreement test (tests/unit/test_interp_agree.c) and the fuzz
 * targets (fuzz/checks.c) make.  Each side's run is written down as text
 * -- every field reported, array view, warning, trailer and metadata call,
 * typed key-value (its bytes and value, lists item by item), then the
 * verdict and the whole error -- and the two texts must be equal. */
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "afmt_agree.h"
#include "common/afmt_error.h"

/* A transcript's first bytes are in the transcript itself: most runs
 * (a fuzz input, rejected early) write less, and allocate nothing. */
#define TRANSCRIPT_LOCAL 4096

typedef struct transcript {
    char *s;             /* local, or a heap copy once it outgrows it */
    size_t len, cap;
    int failed;          /* out of memory: the comparison is not made */
    const uint8_t *base; /* the input: pointers into it are written as offsets */
    uint64_t base_len;   /* its length */
    int stop_at;         /* on_array returns nonzero for this array (-1: never) */
    int arrays;
    int stop_kv;         /* on_kv returns nonzero for the stop_kv-th key-value (0: never) */
    int kvs;
    char local[TRANSCRIPT_LOCAL];
} transcript;

static void transcript_init(transcript *t)
{
    memset(t, 0, offsetof(transcript, local));
    t->s = t->local;
    t->cap = sizeof t->local;
    t->s[0] = '\0';
}

static void transcript_free(transcript *t)
{
    if (t->s != t->local) free(t->s);
}

/* room for n more bytes and a NUL, or t->failed */
static int reserve(transcript *t, size_t n)
{
    size_t cap;
    char *s;
    if (t->failed) return 0;
    if (t->len + n < t->cap) return 1;
    cap = t->cap * 2 + n;
    s = t->s == t->local ? malloc(cap) : realloc(t->s, cap);
    if (!s) {
        t->failed = 1;
        return 0;
    }
    if (t->s == t->local) memcpy(s, t->local, t->len + 1);
    t->s = s;
    t->cap = cap;
    return 1;
}

static void put(transcript *t, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void put(transcript *t, const char *fmt, ...)
{
    va_list ap;
    int n;
    for (;;) {
        va_start(ap, fmt);
        n = vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
        va_end(ap);
        if (n < 0) { t->failed = 1; return; }
        if (t->len + (size_t)n < t->cap) { t->len += (size_t)n; return; }
        t->s[t->len] = '\0'; /* what vsnprintf cut, undone */
        if (!reserve(t, (size_t)n)) return;
    }
}

/* n bytes as they are (put's "%s" without the formatting) */
static void put_raw(transcript *t, const char *p, size_t n)
{
    if (t->len + n >= t->cap && !reserve(t, n)) return;
    memcpy(t->s + t->len, p, n);
    t->len += n;
    t->s[t->len] = '\0';
}

/* What the frequent lines (a field, a key-value, the verdict) are made
 * of, appended without vsnprintf: a fuzz input's runs write a line per
 * field on each side, and formatting them was half of a fuzz target's
 * time.  The text is what "%s", "%llu" and "%lld" would write. */
static void put_s(transcript *t, const char *s)
{
    if (!s) s = "(null)"; /* as glibc's printf writes it */
    put_raw(t, s, strlen(s));
}

static void put_u(transcript *t, uint64_t v)
{
    char d[20];
    size_t n = 0;
    do d[sizeof d - ++n] = (char)('0' + v % 10); while ((v /= 10) != 0);
    put_raw(t, d + sizeof d - n, n);
}

static void put_i(transcript *t, long long v)
{
    if (v < 0) {
        put_raw(t, "-", 1);
        put_u(t, 0 - (uint64_t)v);
    } else {
        put_u(t, (uint64_t)v);
    }
}

/* a pointer into the input as its offset, NULL as -1, and -2 for one
 * into the validator's own memory (a rendered value, a key copied out of
 * a pickle, an inflated member): each side has its own, so where it is
 * says nothing -- what it holds is written beside it */
static long long at(const transcript *t, const void *p)
{
    uintptr_t u = (uintptr_t)p, b = (uintptr_t)t->base;
    if (!p)
        return -1;
    if (u < b || u - b > t->base_len)
        return -2;
    return (long long)(u - b);
}

/* FNV-1a of n bytes: an inflated member's view is compared by content */
static uint64_t digest(const uint8_t *p, uint64_t n)
{
    uint64_t h = 1469598103934665603u, i;
    for (i = 0; i < n; i++) h = (h ^ p[i]) * 1099511628211u;
    return h;
}

static int on_array(void *ctx, const afmt_array *a)
{
    transcript *t = ctx;
    uint32_t i;
    put(t, "array %u: %s elsize %" PRIu64 " rank %u [", a->index, afmt_dtype_name(a->dtype), a->elsize, a->rank);
    for (i = 0; i < a->rank && i < AFMT_RANK_CAP; i++) put(t, "%s%" PRIu64, i ? "," : "", a->dims[i]);
    put(t, "] count %" PRIu64 " order %d enc %d endian %d data %lld nbytes %" PRIu64 " offset %" PRIu64
           " stride %" PRIu64 " name \"%s\" name_len %" PRIu64 " opaque \"%s\" block %" PRIu64 "\n",
        a->count, (int)a->order, (int)a->encoding, (int)a->endian, at(t, a->data), a->nbytes, a->offset, a->stride,
        a->name, a->name_len, a->opaque_name, a->block);
    put(t, "  nnz %" PRIu64 " csr %lld %lld %u coo %" PRIu64 " %u %d tile %d %" PRIu64 " %" PRIu64 " %" PRIu64
           " %" PRIu64 " text %d\n",
        a->nnz, at(t, a->csr_row_offsets), at(t, a->csr_col_indices), a->csr_index_size, a->coo_stride,
        a->coo_index_size, a->coo_has_col, a->is_tile, a->tile_row, a->tile_col, a->tile_rows, a->tile_cols,
        a->text_decode != NULL);
    put(t, "  logical %d scaled %d %.17g %.17g imag %lld csc %d\n", (int)a->logical, a->scaled, a->scale, a->zero,
        at(t, a->imag), a->csc);
    put(t, "  strided %d transient %d", a->strided, a->data_transient);
    for (i = 0; a->strided && i < a->rank && i < AFMT_RANK_CAP; i++) put(t, " %" PRIu64, a->strides[i]);
    if (a->data && at(t, a->data) == -2) put(t, " bytes %016" PRIx64, digest(a->data, a->nbytes));
    put(t, "\n");
    return t->stop_at >= 0 && t->arrays++ == t->stop_at;
}

static void on_error(transcript *t, const char *what, const afmt_error *e)
{
    /* "%s: code %s offset %llu field \"%s\" format \"%s\" message \"%s\"\n" */
    put_s(t, what);
    put_s(t, ": code ");
    put_s(t, afmt_code_name(e->code));
    put_s(t, " offset ");
    put_u(t, e->offset);
    put_s(t, " field \"");
    put_s(t, e->field);
    put_s(t, "\" format \"");
    put_s(t, e->format);
    put_s(t, "\" message \"");
    put_s(t, e->message);
    put_s(t, "\"\n");
}

static void on_warning(void *ctx, const afmt_error *w) { on_error(ctx, "warning", w); }

static void on_trailer(void *ctx, const uint8_t *data, uint64_t len, uint64_t offset)
{
    transcript *t = ctx;
    put(t, "trailer: data %lld len %" PRIu64 " offset %" PRIu64 "\n", at(t, data), len, offset);
}

static void on_metadata(void *ctx, const uint8_t *json, uint64_t len, uint64_t offset)
{
    transcript *t = ctx;
    put(t, "metadata: %lld len %" PRIu64 " offset %" PRIu64 "\n", at(t, json), len, offset);
}

/* bytes as text: printable ASCII as is, the rest (and '"', '\\') as \xNN */
static void put_bytes(transcript *t, const uint8_t *p, uint64_t n)
{
    uint64_t i;
    static const char hex[] = "0123456789abcdef";
    put_raw(t, "\"", 1);
    for (i = 0; i < n && !t->failed; i++) {
        if (p[i] >= 0x20 && p[i] < 0x7f && p[i] != '"' && p[i] != '\\') {
            uint64_t j = i + 1; /* the run of bytes written as they are */
            while (j < n && p[j] >= 0x20 && p[j] < 0x7f && p[j] != '"' && p[j] != '\\') j++;
            put_raw(t, (const char *)&p[i], (size_t)(j - i));
            i = j - 1;
        } else {
            const char esc[4] = {'\\', 'x', hex[p[i] >> 4], hex[p[i] & 15]};
            put_raw(t, esc, 4);
        }
    }
    put_raw(t, "\"", 1);
}

/* a typed value, exactly (floats in hex), a list's items recursively (by
 * value: lists live in the run's scratch, not the input) */
static void put_value(transcript *t, const afmt_value *v)
{
    uint64_t i;
    put_s(t, "{kind "); /* "{kind %d width %u " */
    put_i(t, (int)v->kind);
    put_s(t, " width ");
    put_u(t, v->width);
    put_s(t, " ");
    switch (v->kind) {
    case AFMT_VALUE_UINT:
    case AFMT_VALUE_BOOL: put_s(t, "u "); put_u(t, v->u); break;
    case AFMT_VALUE_INT: put_s(t, "i "); put_i(t, v->i); break;
    case AFMT_VALUE_FLOAT: put(t, "f %a", v->f); break;
    case AFMT_VALUE_STRING: put_bytes(t, v->str, v->len); break;
    case AFMT_VALUE_LIST:
        put(t, "list %d %u count %" PRIu64 " [", (int)v->item_kind, v->item_width, v->count);
        for (i = 0; i < v->count && !t->failed; i++) put_value(t, &v->items[i]);
        put(t, "]");
        break;
    default: put(t, "?"); break;
    }
    put_raw(t, "}", 1);
}

static int on_kv(void *ctx, const afmt_kv *kv, uint64_t offset)
{
    transcript *t = ctx;
    put_s(t, "kv: key "); /* "kv: key %lld len %llu " */
    put_i(t, at(t, kv->key));
    put_s(t, " len ");
    put_u(t, kv->key_len);
    put_s(t, " ");
    put_bytes(t, kv->key, kv->key_len);
    put_s(t, " offset ");
    put_u(t, offset);
    put_s(t, " value ");
    put_value(t, &kv->value);
    put_raw(t, "\n", 1);
    return t->stop_kv > 0 && ++t->kvs == t->stop_kv;
}

static void on_field(void *ctx, const afmt_field_info *f)
{
    transcript *t = ctx;
    uint64_t n = f->kind == AFMT_FIELD_BYTES ? f->width : f->count * f->width;
    /* "field %s: kind %d offset %llu array %d count %llu width %u big %d bytes %lld doc %s" */
    put_s(t, "field ");
    put_s(t, f->field);
    put_s(t, ": kind ");
    put_i(t, (int)f->kind);
    put_s(t, " offset ");
    put_u(t, f->offset);
    put_s(t, " array ");
    put_i(t, f->is_array);
    put_s(t, " count ");
    put_u(t, f->count);
    put_s(t, " width ");
    put_u(t, f->width);
    put_s(t, " big ");
    put_i(t, f->big_endian);
    put_s(t, " bytes ");
    put_i(t, at(t, f->bytes));
    put_s(t, " doc ");
    put_s(t, f->doc ? f->doc : "-");
    if (f->bytes && at(t, f->bytes) == -2) { /* (a text rendered for the field: its bytes are compared) */
        put(t, " ");
        put_bytes(t, f->bytes, n < 4096 ? n : 4096);
    }
    put_raw(t, "\n", 1);
}

/* One side's run, written down in t. */
static void run(const afmt_interp *in, const afmt_format *fmt, const uint8_t *buf, uint64_t len,
                const afmt_options *opt, const afmt_agree_how *how, transcript *t)
{
    afmt_visitor vis;
    afmt_field_visitor fields;
    afmt_options o = *opt;
    afmt_error err;
    int rc;
    memset(&vis, 0, sizeof vis);
    vis.ctx = t;
    vis.on_array = on_array;
    vis.on_warning = on_warning;
    vis.on_trailer = on_trailer;
    vis.on_metadata = on_metadata;
    vis.on_kv = on_kv;
    fields.ctx = t;
    fields.on_field = on_field;
    if (how->fields) o.fields = &fields;
    t->base = buf;
    t->base_len = len;
    t->stop_at = how->stop_at;
    t->arrays = 0;
    t->stop_kv = how->stop_kv;
    t->kvs = 0;
    rc = in ? afmt_interp_validate(in, buf, len, &o, how->visit ? &vis : NULL, &err)
            : fmt->validate(buf, len, &o, how->visit ? &vis : NULL, &err);
    put_s(t, "rc "); /* "rc %d\n" */
    put_i(t, rc);
    put_raw(t, "\n", 1);
    if (rc) on_error(t, "error", &err);
}

/* The first line where a and b differ, into why. */
static void first_difference(const char *a, const char *b, char *why, size_t why_size)
{
    size_t line = 1;
    const char *ea, *eb;
    while (*a && *b) {
        ea = strchr(a, '\n');
        eb = strchr(b, '\n');
        if (!ea || !eb || ea - a != eb - b || memcmp(a, b, (size_t)(ea - a)) != 0) break;
        a = ea + 1;
        b = eb + 1;
        line++;
    }
    ea = strchr(a, '\n');
    eb = strchr(b, '\n');
    snprintf(why, why_size, "line %zu: generated: %.*s | interpreter: %.*s", line, ea ? (int)(ea - a) : (int)strlen(a),
             a, eb ? (int)(eb - b) : (int)strlen(b), b);
}

int afmt_agree(const afmt_interp *in, const afmt_format *fmt, const uint8_t *buf, uint64_t len,
               const afmt_options *opt, const afmt_agree_how *how, char *why, size_t why_size)
{
    transcript g, i;
    int rc;
    transcript_init(&g);
    transcript_init(&i);
    /* detection first: the same answer on the same bytes (a rule at any
     * offset, a buffer too short for it) */
    if (fmt->detect && (fmt->detect(buf, len) == 1) != (afmt_interp_detect(in, buf, len) == 1)) {
        snprintf(why, why_size, "detect: generated %d, interpreter %d", fmt->detect(buf, len),
                 afmt_interp_detect(in, buf, len));
        return 1;
    }
    run(NULL, fmt, buf, len, opt, how, &g);
    run(in, fmt, buf, len, opt, how, &i);
    if (g.failed || i.failed) {
        snprintf(why, why_size, "out of memory for the transcripts");
        rc = -1;
    } else if (strcmp(g.s, i.s) != 0) {
        first_difference(g.s, i.s, why, why_size);
        rc = 1;
    } else {
        rc = 0;
    }
    transcript_free(&g);
    transcript_free(&i);
    return rc;
}
