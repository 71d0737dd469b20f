/* afmt runtime: JSON metadata sidecars (see afmt_meta.h). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "../common/afmt_bytes.h"
#include "afmt_meta.h"

#define META_MAX_DEPTH 8

typedef struct jp {
    const char *s;
    size_t n, i;
    afmt_error *err;
    const char *key; /* the key being read, for messages */
} jp;

static int jfail(jp *p, const char *msg)
{
    return afmt_fail(p->err, AFMT_E_CONSTRAINT, NULL, p->key ? p->key : "sidecar", AFMT_NO_INDEX, p->i,
                     "sidecar JSON: %s", msg);
}

static void ws(jp *p)
{
    while (p->i < p->n && (p->s[p->i] == ' ' || p->s[p->i] == '\t' || p->s[p->i] == '\n' || p->s[p->i] == '\r'))
        p->i++;
}

/* A string into out (truncated to out_size - 1; \u escapes above 0x7f
 * become '?': labels are compared as ASCII). */
static int jstring(jp *p, char *out, size_t out_size)
{
    size_t o = 0;
    if (p->i >= p->n || p->s[p->i] != '"') return jfail(p, "expected a string");
    p->i++;
    while (p->i < p->n && p->s[p->i] != '"') {
        char c = p->s[p->i++];
        if ((unsigned char)c < 0x20) return jfail(p, "control character in a string");
        if (c == '\\') {
            if (p->i >= p->n) return jfail(p, "unterminated escape");
            c = p->s[p->i++];
            switch (c) {
            case 'n': c = '\n'; break;
            case 't': c = '\t'; break;
            case 'r': c = '\r'; break;
            case 'b': c = '\b'; break;
            case 'f': c = '\f'; break;
            case '"': case '\\': case '/': break;
            case 'u': {
                unsigned v = 0, k;
                if (p->n - p->i < 4) return jfail(p, "short \\u escape");
                for (k = 0; k < 4; k++) {
                    char h = p->s[p->i++];
                    v <<= 4;
                    if (h >= '0' && h <= '9') v |= (unsigned)(h - '0');
                    else if (h >= 'a' && h <= 'f') v |= (unsigned)(h - 'a' + 10);
                    else if (h >= 'A' && h <= 'F') v |= (unsigned)(h - 'A' + 10);
                    else return jfail(p, "bad \\u escape");
                }
                c = v < 0x80 ? (char)v : '?';
                break;
            }
            default: return jfail(p, "bad escape");
            }
        }
        if (out && o + 1 < out_size) out[o++] = c;
    }
    if (p->i >= p->n) return jfail(p, "unterminated string");
    p->i++;
    if (out && out_size) out[o] = 0;
    return 0;
}

/* An integer (the sidecar's numbers are counts; -1 is allowed). */
static int jint(jp *p, int64_t *v)
{
    int neg = 0;
    uint64_t acc = 0;
    size_t start;
    if (p->i < p->n && p->s[p->i] == '-') { neg = 1; p->i++; }
    start = p->i;
    while (p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '9') {
        if (acc > (uint64_t)INT64_MAX / 10) return jfail(p, "number too large");
        acc = acc * 10 + (uint64_t)(p->s[p->i++] - '0');
        if (acc > (uint64_t)INT64_MAX) return jfail(p, "number too large");
    }
    if (p->i == start) return jfail(p, "expected an integer");
    if (p->i < p->n && (p->s[p->i] == '.' || p->s[p->i] == 'e' || p->s[p->i] == 'E'))
        return jfail(p, "expected an integer, found a fraction");
    *v = neg ? -(int64_t)acc : (int64_t)acc;
    return 0;
}

static int jskip(jp *p, int depth);

static int jskip_container(jp *p, int depth, char close)
{
    p->i++;
    ws(p);
    if (p->i < p->n && p->s[p->i] == close) { p->i++; return 0; }
    for (;;) {
        ws(p);
        if (close == '}') {
            if (jstring(p, NULL, 0)) return -1;
            ws(p);
            if (p->i >= p->n || p->s[p->i] != ':') return jfail(p, "expected ':'");
            p->i++;
            ws(p);
        }
        if (jskip(p, depth + 1)) return -1;
        ws(p);
        if (p->i < p->n && p->s[p->i] == ',') { p->i++; continue; }
        if (p->i < p->n && p->s[p->i] == close) { p->i++; return 0; }
        return jfail(p, "expected ',' or the end of a container");
    }
}

static int jskip(jp *p, int depth)
{
    int64_t v;
    if (depth > META_MAX_DEPTH) return jfail(p, "nested too deeply");
    ws(p);
    if (p->i >= p->n) return jfail(p, "unexpected end");
    switch (p->s[p->i]) {
    case '"': return jstring(p, NULL, 0);
    case '{': return jskip_container(p, depth, '}');
    case '[': return jskip_container(p, depth, ']');
    case 't': if (p->n - p->i >= 4 && !memcmp(p->s + p->i, "true", 4)) { p->i += 4; return 0; } break;
    case 'f': if (p->n - p->i >= 5 && !memcmp(p->s + p->i, "false", 5)) { p->i += 5; return 0; } break;
    case 'n': if (p->n - p->i >= 4 && !memcmp(p->s + p->i, "null", 4)) { p->i += 4; return 0; } break;
    default: return jint(p, &v);
    }
    return jfail(p, "unexpected value");
}

static int jschema(jp *p, const afmt_meta_desc *d, afmt_meta *m)
{
    if (p->i >= p->n || p->s[p->i] != '[') return jfail(p, "the schema is a list");
    p->i++;
    ws(p);
    if (p->i < p->n && p->s[p->i] == ']') { p->i++; return 0; }
    for (;;) {
        afmt_meta_column *c;
        ws(p);
        if (m->ncolumns >= AFMT_META_MAX_COLUMNS) return jfail(p, "more schema entries than afmt checks");
        c = &m->columns[m->ncolumns++];
        c->label[0] = c->value_type[0] = 0;
        if (p->i >= p->n || p->s[p->i] != '{') return jfail(p, "a schema entry is an object");
        p->i++;
        ws(p);
        while (p->i < p->n && p->s[p->i] != '}') {
            char key[64];
            if (jstring(p, key, sizeof key)) return -1;
            ws(p);
            if (p->i >= p->n || p->s[p->i] != ':') return jfail(p, "expected ':'");
            p->i++;
            ws(p);
            if (!strcmp(key, d->key_label)) { if (jstring(p, c->label, sizeof c->label)) return -1; }
            else if (!strcmp(key, d->key_value_type)) { if (jstring(p, c->value_type, sizeof c->value_type)) return -1; }
            else if (jskip(p, 3)) return -1;
            ws(p);
            if (p->i < p->n && p->s[p->i] == ',') { p->i++; ws(p); continue; }
            if (p->i < p->n && p->s[p->i] == '}') break;
            return jfail(p, "expected ',' or '}'");
        }
        if (p->i >= p->n) return jfail(p, "unterminated schema entry");
        p->i++;
        ws(p);
        if (p->i < p->n && p->s[p->i] == ',') { p->i++; continue; }
        if (p->i < p->n && p->s[p->i] == ']') { p->i++; return 0; }
        return jfail(p, "expected ',' or ']'");
    }
}

int afmt_meta_parse(const afmt_meta_desc *d, const char *json, size_t len, afmt_meta *m,
                    afmt_meta_column *columns, afmt_error *err)
{
    jp p;
    memset(m, 0, sizeof *m);
    m->columns = columns;
    memset(&p, 0, sizeof p);
    p.s = json;
    p.n = len;
    p.err = err;
    if (len > AFMT_META_MAX_BYTES) return jfail(&p, "larger than 1 MiB");
    ws(&p);
    if (p.i >= p.n || p.s[p.i] != '{') return jfail(&p, "expected an object");
    p.i++;
    ws(&p);
    while (p.i < p.n && p.s[p.i] != '}') {
        char key[64];
        int64_t v;
        p.key = NULL;
        if (jstring(&p, key, sizeof key)) return -1;
        ws(&p);
        if (p.i >= p.n || p.s[p.i] != ':') return jfail(&p, "expected ':'");
        p.i++;
        ws(&p);
        p.key = !strcmp(key, d->key_rows) ? d->key_rows : !strcmp(key, d->key_cols) ? d->key_cols
              : !strcmp(key, d->key_nnz) ? d->key_nnz : !strcmp(key, d->key_value_type) ? d->key_value_type
              : !strcmp(key, d->key_schema) ? d->key_schema : NULL;
        if (p.key == d->key_rows || p.key == d->key_cols) {
            if (jint(&p, &v)) return -1;
            if (v < 0) return jfail(&p, "a negative size");
            if (p.key == d->key_rows) { m->rows = (uint64_t)v; m->has_rows = 1; }
            else { m->cols = (uint64_t)v; m->has_cols = 1; }
        } else if (p.key == d->key_nnz) {
            if (jint(&p, &m->nnz)) return -1;
            m->has_nnz = 1;
        } else if (p.key == d->key_value_type) {
            if (jstring(&p, m->value_type, sizeof m->value_type)) return -1;
            m->has_value_type = 1;
        } else if (p.key == d->key_schema) {
            if (jschema(&p, d, m)) return -1;
            m->has_schema = 1;
        } else if (jskip(&p, 1)) {
            return -1;
        }
        ws(&p);
        if (p.i < p.n && p.s[p.i] == ',') { p.i++; ws(&p); continue; }
        if (p.i < p.n && p.s[p.i] == '}') break;
        p.key = NULL;
        return jfail(&p, "expected ',' or '}'");
    }
    if (p.i >= p.n) return jfail(&p, "unterminated object");
    p.i++;
    ws(&p);
    p.key = NULL;
    if (p.i != p.n) return jfail(&p, "text after the object");
    return 0;
}

static int mfail(afmt_error *err, const char *key, const char *fmt, uint64_t want, uint64_t got)
{
    return afmt_fail(err, AFMT_E_CONSTRAINT, NULL, key, AFMT_NO_INDEX, 0, fmt, got, want);
}

static const char *name_of(const afmt_meta_desc *d, afmt_dtype t)
{
    return (unsigned)t < AFMT_DTYPE_COUNT_ ? d->value_names[t] : NULL;
}

int afmt_meta_check_array(const afmt_meta_desc *d, const afmt_meta *m, const afmt_array *a,
                          size_t i, afmt_error *err)
{
    const char *vt = name_of(d, a->dtype);
    if (a->rank == 1) {
        /* a frame column */
        if (!m->has_schema)
            return afmt_fail(err, AFMT_E_CONSTRAINT, NULL, d->key_schema, AFMT_NO_INDEX, 0,
                             "the file is a frame, the sidecar has no \"%s\"", d->key_schema);
        if (m->has_rows && m->rows != a->dims[0])
            return mfail(err, d->key_rows, "sidecar says %" PRIu64 " rows, the file has %" PRIu64, a->dims[0], m->rows);
        if (i >= m->ncolumns)
            return afmt_fail(err, AFMT_E_CONSTRAINT, NULL, d->key_schema, i, 0,
                             "the file has more columns than the sidecar's %u", (unsigned)m->ncolumns);
        /* labels are not compared: DAPHNE's own writer stores garbage label
         * bytes in the file and the real labels in the sidecar */
        if (!vt || strcmp(vt, m->columns[i].value_type) != 0)
            return afmt_fail(err, AFMT_E_CONSTRAINT, NULL, d->key_value_type, i, 0,
                             "sidecar says column %zu is \"%s\", the file has %s", i, m->columns[i].value_type,
                             vt ? vt : afmt_dtype_name(a->dtype));
        return 0;
    }
    {
        uint64_t rows = a->is_tile ? a->tile_rows : a->dims[0], cols = a->is_tile ? a->tile_cols : a->dims[1], cells = 0;
        if (!m->has_rows || !m->has_cols || !m->has_value_type)
            return afmt_fail(err, AFMT_E_CONSTRAINT, NULL, !m->has_rows ? d->key_rows : !m->has_cols ? d->key_cols
                                                                        : d->key_value_type,
                             AFMT_NO_INDEX, 0, "the sidecar lacks this key");
        if (m->rows != rows)
            return mfail(err, d->key_rows, "sidecar says %" PRIu64 " rows, the file has %" PRIu64, rows, m->rows);
        if (m->cols != cols)
            return mfail(err, d->key_cols, "sidecar says %" PRIu64 " columns, the file has %" PRIu64, cols, m->cols);
        if (!vt || strcmp(vt, m->value_type) != 0)
            return afmt_fail(err, AFMT_E_CONSTRAINT, NULL, d->key_value_type, AFMT_NO_INDEX, 0,
                             "sidecar says \"%s\", the file holds %s", m->value_type, vt ? vt : afmt_dtype_name(a->dtype));
        if (m->has_nnz && a->encoding == AFMT_ENC_CSR && !a->is_tile && m->nnz != (int64_t)a->nnz)
            return mfail(err, d->key_nnz, "sidecar says %" PRIu64 " non-zeros, the file stores %" PRIu64, a->nnz,
                         (uint64_t)m->nnz);
        if (m->has_nnz && m->nnz > 0 && afmt_checked_mul_u64(rows, cols, &cells) == 0 && (uint64_t)m->nnz > cells)
            return mfail(err, d->key_nnz, "sidecar says %" PRIu64 " non-zeros in %" PRIu64 " cells", cells, (uint64_t)m->nnz);
        (void)i;
        return 0;
    }
}

int afmt_meta_check_end(const afmt_meta_desc *d, const afmt_meta *m, size_t n, afmt_error *err)
{
    if (m->has_schema && n != m->ncolumns)
        return afmt_fail(err, AFMT_E_CONSTRAINT, NULL, d->key_schema, AFMT_NO_INDEX, 0,
                         "sidecar lists %u columns, the file has %zu", (unsigned)m->ncolumns, n);
    if (m->has_schema && m->has_cols && m->cols != n)
        return mfail(err, d->key_cols, "sidecar says %" PRIu64 " columns, the file has %" PRIu64, (uint64_t)n, m->cols);
    return 0;
}

int afmt_meta_check(const afmt_meta_desc *d, const afmt_meta *m, const afmt_array *arrays,
                    size_t n, afmt_error *err)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (afmt_meta_check_array(d, m, &arrays[i], i, err) != 0) return -1;
    return afmt_meta_check_end(d, m, n, err);
}

/* Append to out; -1 when it does not fit. */
static int put(char *out, size_t size, size_t *at, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static int put(char *out, size_t size, size_t *at, const char *fmt, ...)
{
    va_list ap;
    int k;
    if (*at >= size) return -1;
    va_start(ap, fmt);
    k = vsnprintf(out + *at, size - *at, fmt, ap);
    va_end(ap);
    if (k < 0 || (size_t)k >= size - *at) return -1;
    *at += (size_t)k;
    return 0;
}

static int put_json_string(char *out, size_t size, size_t *at, const char *s)
{
    if (put(out, size, at, "\"")) return -1;
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') { if (put(out, size, at, "\\%c", c)) return -1; }
        else if (c < 0x20 || c >= 0x7f) { if (put(out, size, at, "\\u%04x", c)) return -1; }
        else if (put(out, size, at, "%c", c)) return -1;
    }
    return put(out, size, at, "\"");
}

int afmt_meta_write(const afmt_meta_desc *d, const afmt_array *arrays, size_t n, char *out,
                    size_t out_size, size_t *len, afmt_error *err)
{
    size_t at = 0, i;
    if (n == 0) return afmt_fail(err, AFMT_E_USAGE, NULL, NULL, AFMT_NO_INDEX, AFMT_NO_OFFSET, "no arrays for a sidecar");
    for (i = 0; i < n; i++)
        if (!name_of(d, arrays[i].dtype))
            return afmt_fail(err, AFMT_E_TYPE, NULL, d->key_value_type, i, 0, "the sidecar has no name for %s",
                             afmt_dtype_name(arrays[i].dtype));
    if (n > 1 || arrays[0].rank == 1) {
        if (put(out, out_size, &at, "{\"%s\":%" PRIu64 ",\"%s\":%zu,\"%s\":[", d->key_rows, arrays[0].dims[0], d->key_cols, n,
                d->key_schema))
            goto full;
        for (i = 0; i < n; i++) {
            if (put(out, out_size, &at, "%s{\"%s\":", i ? "," : "", d->key_label) ||
                put_json_string(out, out_size, &at, arrays[i].name) ||
                put(out, out_size, &at, ",\"%s\":\"%s\"}", d->key_value_type, name_of(d, arrays[i].dtype)))
                goto full;
        }
        if (put(out, out_size, &at, "]}\n")) goto full;
    } else {
        if (put(out, out_size, &at, "{\"%s\":%" PRIu64 ",\"%s\":%" PRIu64 ",\"%s\":\"%s\",\"%s\":%" PRIu64 "}\n", d->key_rows,
                arrays[0].dims[0], d->key_cols, arrays[0].rank > 1 ? arrays[0].dims[1] : 1, d->key_value_type,
                name_of(d, arrays[0].dtype), d->key_nnz, arrays[0].encoding == AFMT_ENC_CSR ? arrays[0].nnz : 0))
            goto full;
    }
    *len = at;
    return 0;
full:
    return afmt_fail(err, AFMT_E_USAGE, NULL, NULL, AFMT_NO_INDEX, AFMT_NO_OFFSET, "sidecar larger than its buffer (%zu bytes)", out_size);
}
