/* afmt runtime: walking what the pickle machine built.  See afmt_pickle.h.
 *
 * The root is walked depth first with an explicit stack of at most
 * limits.max_depth frames (the machine refused deeper nesting as it built
 * it), so nothing here recurses however the file nests.  Each leaf is
 * reached by its key path: dict keys as their text or decimal number, list
 * and tuple positions in decimal, joined with '.'.  A tensor becomes a
 * strided view over its storage's record; a plain value goes to on_kv and,
 * with the tensors, None and empty containers, to opt->fields as the text
 * Python's repr prints for it.  Memory: the key path and one rendered value
 * at a time, each in a buffer grown to the longest one.
 */
#include "afmt_pickle_machine.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/afmt_bytes.h"
#include "../common/afmt_float.h"
#include "../common/afmt_options.h"

#define WALK_MAX_DEPTH 32

typedef struct walk_frame {
    uint32_t box;       /* the container whose items are walked */
    uint32_t node;      /* its next node, PK_NIL when done */
    uint64_t index;     /* the next item's position (lists and tuples) */
    size_t path_len;    /* the container's own key path's length */
    int in_state;       /* walking its BUILD state's items */
} walk_frame;

typedef struct walker {
    pk_machine *m;
    char *path;         /* the key path, NUL-terminated */
    size_t path_len, path_cap;
    char *text;         /* a rendered value */
    size_t text_cap;
    uint32_t arrays;    /* views handed over so far */
} walker;

/* Room for n more bytes of buf (and a NUL), growing by doubling. */
static int reserve(walker *w, char **buf, size_t *cap, size_t used, uint64_t n)
{
    uint64_t need;
    size_t c = *cap ? *cap : 256;
    char *b;
    if (afmt_checked_add_u64(used, n, &need) || afmt_checked_add_u64(need, 1, &need) || need > SIZE_MAX / 2)
        return afmt_fail(w->m->err, AFMT_E_NOMEM, w->m->path, w->m->d->name, AFMT_NO_INDEX, w->m->base,
                         "a key path or value of %" PRIu64 " bytes", n);
    if (need <= *cap) return 0;
    while (c < need) c *= 2;
    b = realloc(*buf, c);
    if (!b)
        return afmt_fail(w->m->err, AFMT_E_NOMEM, w->m->path, w->m->d->name, AFMT_NO_INDEX, w->m->base,
                         "cannot allocate %zu bytes for a key path or value", c);
    *buf = b;
    *cap = c;
    return 0;
}

static int path_append(walker *w, const char *p, size_t n)
{
    if (reserve(w, &w->path, &w->path_cap, w->path_len, n + 1) != 0) return -1;
    if (w->path_len) w->path[w->path_len++] = '.';
    memcpy(w->path + w->path_len, p, n);
    w->path_len += n;
    w->path[w->path_len] = '\0';
    return 0;
}

/* The key path of item `key` (a str or int value) or of position index. */
static int path_segment(walker *w, uint32_t key, uint64_t index)
{
    char num[24];
    if (key != PK_NIL && w->m->values[key].kind == PK_STR) {
        const pk_value *k = &w->m->values[key];
        return path_append(w, (const char *)(w->m->p + k->u.str.at), k->u.str.len);
    }
    if (key != PK_NIL) snprintf(num, sizeof num, "%" PRId64, w->m->values[key].u.i);
    else snprintf(num, sizeof num, "%" PRIu64, index);
    return path_append(w, num, strlen(num));
}

/* ------------------------------------------------------------ Python's repr */

/* repr(v) of a float: the fewest digits that read back, fixed notation
 * for exponents -4 to 15 (with ".0" when integral), else d.ddde+XX. */
static void float_repr(double v, char *out, size_t size)
{
    char e[40], digits[24];
    int prec, exp10 = 0, nd = 0, decpt, i;
    const char *s;
    size_t o = 0;

    if (v != v) { snprintf(out, size, "nan"); return; }
    if (!afmt_float_finite(v)) { snprintf(out, size, v > 0 ? "inf" : "-inf"); return; }
    for (prec = 0; prec < 17; prec++) {
        snprintf(e, sizeof e, "%.*e", prec, v);
        if (strtod(e, NULL) == v) break;
    }
    /* e is "-d.ddde+XX" (the point may be a locale's comma: only digits are read) */
    for (s = e; *s && *s != 'e' && *s != 'E'; s++)
        if (*s >= '0' && *s <= '9' && nd < (int)sizeof digits - 1) digits[nd++] = *s;
    digits[nd] = '\0';
    if (*s) exp10 = atoi(s + 1);
    while (nd > 1 && digits[nd - 1] == '0') digits[--nd] = '\0';
    decpt = exp10 + 1;
    if (e[0] == '-' && o + 1 < size) out[o++] = '-';
    if (decpt <= -4 || decpt > 16) {
        snprintf(out + o, size - o, "%c%s%se%c%02d", digits[0], nd > 1 ? "." : "", digits + 1, exp10 < 0 ? '-' : '+',
                 exp10 < 0 ? -exp10 : exp10);
        return;
    }
    if (decpt <= 0) {
        o += (size_t)snprintf(out + o, size - o, "0.");
        for (i = 0; i < -decpt && o + 1 < size; i++) out[o++] = '0';
        snprintf(out + o, size - o, "%s", digits);
    } else if (decpt < nd) {
        snprintf(out + o, size - o, "%.*s.%s", decpt, digits, digits + decpt);
    } else {
        o += (size_t)snprintf(out + o, size - o, "%s", digits);
        for (i = nd; i < decpt && o + 1 < size; i++) out[o++] = '0';
        snprintf(out + o, size - o, ".0");
    }
}

/* repr(s) of a str into w->text: quotes as Python chooses them, \\, the
 * quote, \t \n \r and other control bytes escaped, the rest as it is. */
static int str_repr(walker *w, const uint8_t *p, uint64_t n, size_t *len)
{
    const char quote = (memchr(p, '\'', (size_t)n) && !memchr(p, '"', (size_t)n)) ? '"' : '\'';
    size_t o = 0;
    uint64_t i;
    if (n > (UINT64_MAX - 3) / 4 || reserve(w, &w->text, &w->text_cap, 0, 4 * n + 2) != 0) return -1;
    w->text[o++] = quote;
    for (i = 0; i < n; i++) {
        const uint8_t c = p[i];
        if (c == (uint8_t)quote || c == '\\') { w->text[o++] = '\\'; w->text[o++] = (char)c; }
        else if (c == '\t') { w->text[o++] = '\\'; w->text[o++] = 't'; }
        else if (c == '\n') { w->text[o++] = '\\'; w->text[o++] = 'n'; }
        else if (c == '\r') { w->text[o++] = '\\'; w->text[o++] = 'r'; }
        else if (c < 0x20 || c == 0x7f) { snprintf(w->text + o, 5, "\\x%02x", c); o += 4; }
        else w->text[o++] = (char)c;
    }
    w->text[o++] = quote;
    w->text[o] = '\0';
    *len = o;
    return 0;
}

/* ------------------------------------------------------------ leaves */

static uint32_t tensor_of(const pk_machine *m, uint32_t v)
{
    return m->values[v].kind == PK_WRAP ? m->values[v].u.wrap.tensor : v;
}

/* The strided view of tensor t (a PK_TENSOR) over its storage's record. */
static void tensor_view(const pk_machine *m, uint32_t t, afmt_array *a)
{
    const pk_value *v = &m->values[t];
    const pk_ref *r = &m->refs[v->u.tensor.ref];
    const pk_storage *s = &m->storages[r->storage];
    const afmt_dtype dtype = m->d->globals[r->global].dtype;
    uint32_t ns, nt, k = 0;
    uint64_t skip;

    afmt_array_init(a, dtype);
    a->count = 1;
    for (ns = m->values[v->u.tensor.shape].u.box.head, nt = m->values[v->u.tensor.stride].u.box.head; ns != PK_NIL;
         ns = m->nodes[ns].next, nt = m->nodes[nt].next, k++) {
        a->dims[k] = (uint64_t)m->values[m->nodes[ns].value].u.i;
        a->strides[k] = (uint64_t)m->values[m->nodes[nt].value].u.i;
        a->count *= a->dims[k]; /* no overflow: checked at its REDUCE */
    }
    a->rank = k;
    a->strided = 1;
    a->endian = s->rec.endian;
    skip = v->u.tensor.first * a->elsize; /* first <= count: inside the record */
    a->data = s->rec.data ? s->rec.data + skip : NULL;
    a->nbytes = s->rec.nbytes - skip;
    /* an inflated record's bytes have no offset in the input: its
     * compressed data's is said (afmt.h, data_transient) */
    a->data_transient = s->rec.transient && a->data != NULL;
    a->offset = a->data_transient ? s->rec.offset : s->rec.offset + skip;
}

/* Append to buf[0..cap) at *o, cutting what does not fit (*o stays below
 * cap, the text NUL-terminated). */
static void append(char *buf, size_t cap, size_t *o, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static void append(char *buf, size_t cap, size_t *o, const char *fmt, ...)
{
    va_list ap;
    int k;
    if (*o + 1 >= cap) return;
    va_start(ap, fmt);
    k = vsnprintf(buf + *o, cap - *o, fmt, ap);
    va_end(ap);
    if (k > 0) *o = (size_t)k < cap - *o ? *o + (size_t)k : cap - 1;
}

/* "tensor(f32[2,3], stride=(3, 1), offset=0, storage='0')" into w->text. */
static int tensor_text(walker *w, uint32_t t, const afmt_array *a, size_t *len)
{
    const pk_machine *m = w->m;
    const pk_value *key = &m->values[m->refs[m->values[t].u.tensor.ref].key];
    char shape[64], keyq[80];
    size_t o = 0;
    uint32_t k;
    if (reserve(w, &w->text, &w->text_cap, 0, 256 + 22 * (uint64_t)a->rank) != 0) return -1;
    afmt_array_describe(a, shape, sizeof shape);
    afmt_pk_quote(m->p + key->u.str.at, key->u.str.len, keyq, sizeof keyq);
    append(w->text, w->text_cap, &o, "tensor(%s, stride=(", shape);
    for (k = 0; k < a->rank; k++)
        append(w->text, w->text_cap, &o, "%s%" PRIu64, k ? ", " : "", a->strides[k]);
    append(w->text, w->text_cap, &o, "%s), offset=%" PRIu64 ", storage=%s)", a->rank == 1 ? "," : "",
           m->values[t].u.tensor.first, keyq);
    *len = o;
    return 0;
}

/* The text repr gives for plain leaf v into w->text. */
static int plain_text(walker *w, uint32_t v, size_t *len)
{
    const pk_value *x = &w->m->values[v];
    char tmp[48];
    if (x->kind == PK_STR) return str_repr(w, w->m->p + x->u.str.at, x->u.str.len, len);
    switch ((pk_kind)x->kind) {
    case PK_NONE: snprintf(tmp, sizeof tmp, "None"); break;
    case PK_BOOL: snprintf(tmp, sizeof tmp, "%s", x->u.i ? "True" : "False"); break;
    case PK_INT: snprintf(tmp, sizeof tmp, "%" PRId64, x->u.i); break;
    case PK_FLOAT: float_repr(x->u.f, tmp, sizeof tmp); break;
    case PK_TUPLE: snprintf(tmp, sizeof tmp, "()"); break;
    case PK_LIST: snprintf(tmp, sizeof tmp, "[]"); break;
    default: snprintf(tmp, sizeof tmp, "{}"); break;
    }
    *len = strlen(tmp);
    if (reserve(w, &w->text, &w->text_cap, 0, *len) != 0) return -1;
    memcpy(w->text, tmp, *len + 1);
    return 0;
}

static int stopped(walker *w, uint32_t v)
{
    char cut[80];
    snprintf(cut, sizeof cut, "%s", w->path);
    return afmt_fail(w->m->err, AFMT_E_CALLBACK, w->m->path, w->m->d->name, AFMT_NO_INDEX,
                     w->m->base + w->m->values[v].at, "the visitor stopped at '%s'", cut);
}

static void report_text(walker *w, uint32_t v, size_t len)
{
    if (len <= UINT32_MAX)
        afmt_report_field(w->m->opt, w->m->path, w->path, AFMT_FIELD_TEXT, w->m->base + w->m->values[v].at, 0, 1,
                          (unsigned)len, 0, (const uint8_t *)w->text, NULL, NULL);
}

static int emit_tensor(walker *w, uint32_t v)
{
    const pk_machine *m = w->m;
    const uint32_t t = tensor_of(m, v);
    afmt_array a;
    size_t len;
    tensor_view(m, t, &a);
    a.name_len = w->path_len;
    memcpy(a.name, w->path, w->path_len < AFMT_NAME_MAX - 1 ? w->path_len : AFMT_NAME_MAX - 1);
    a.name[w->path_len < AFMT_NAME_MAX - 1 ? w->path_len : AFMT_NAME_MAX - 1] = '\0';
    a.index = w->arrays++;
    if (m->opt->fields) {
        if (tensor_text(w, t, &a, &len) != 0) return -1;
        report_text(w, v, len);
    }
    if (m->vis && m->vis->on_array && m->vis->on_array(m->vis->ctx, &a) != 0)
        return stopped(w, v);
    return 0;
}

static int emit_plain(walker *w, uint32_t v)
{
    const pk_machine *m = w->m;
    const pk_value *x = &m->values[v];
    size_t len;
    if (m->opt->fields) {
        if (plain_text(w, v, &len) != 0) return -1;
        report_text(w, v, len);
    }
    if (m->vis && m->vis->on_kv &&
        (x->kind == PK_INT || x->kind == PK_FLOAT || x->kind == PK_STR || x->kind == PK_BOOL)) {
        afmt_kv kv;
        memset(&kv, 0, sizeof kv);
        kv.key = (const uint8_t *)w->path;
        kv.key_len = w->path_len;
        if (x->kind == PK_INT) { kv.value.kind = AFMT_VALUE_INT; kv.value.width = 8; kv.value.i = x->u.i; }
        else if (x->kind == PK_FLOAT) { kv.value.kind = AFMT_VALUE_FLOAT; kv.value.width = 8; kv.value.f = x->u.f; }
        else if (x->kind == PK_BOOL) { kv.value.kind = AFMT_VALUE_BOOL; kv.value.width = 1; kv.value.u = (uint64_t)x->u.i; }
        else { kv.value.kind = AFMT_VALUE_STRING; kv.value.str = m->p + x->u.str.at; kv.value.len = x->u.str.len; }
        if (m->vis->on_kv(m->vis->ctx, &kv, m->base + x->at) != 0)
            return stopped(w, v);
    }
    return 0;
}

/* ------------------------------------------------------------ the walk */

static int is_box(const pk_value *v)
{
    return v->kind == PK_TUPLE || v->kind == PK_LIST || v->kind == PK_DICT;
}

/* A container the walk goes into: one with items, or with a BUILD state
 * that has some. */
static int has_items(const pk_machine *m, uint32_t v)
{
    const pk_value *x = &m->values[v];
    if (!is_box(x)) return 0;
    return x->u.box.count > 0 || ((x->flags & PK_BUILT) && m->values[x->u.box.state].u.box.count > 0);
}

static int visit(walker *w, walk_frame *frames, unsigned *depth, uint32_t v)
{
    const pk_value *x = &w->m->values[v];
    if (has_items(w->m, v)) {
        walk_frame *f;
        if (*depth >= WALK_MAX_DEPTH)
            return afmt_fail(w->m->err, AFMT_E_LIMIT, w->m->path, w->m->d->name, AFMT_NO_INDEX,
                             w->m->base + x->at, "values nested deeper than %d", WALK_MAX_DEPTH);
        f = &frames[(*depth)++];
        f->box = v;
        f->node = x->u.box.head;
        f->index = 0;
        f->path_len = w->path_len;
        f->in_state = 0;
        return 0;
    }
    if (x->kind == PK_TENSOR || x->kind == PK_WRAP) return emit_tensor(w, v);
    return emit_plain(w, v);
}

/* One step of the frame on top: its next item, or its end. */
static int advance(walker *w, walk_frame *frames, unsigned *depth)
{
    const pk_machine *m = w->m;
    walk_frame *f = &frames[*depth - 1];
    const pk_value *box = &m->values[f->box];
    uint32_t key = PK_NIL, item;

    if (f->node == PK_NIL) {
        if (!f->in_state && (box->flags & PK_BUILT)) {
            f->in_state = 1;
            f->node = m->values[box->u.box.state].u.box.head;
            return 0;
        }
        w->path_len = f->path_len;
        w->path[w->path_len] = '\0';
        (*depth)--;
        return 0;
    }
    if (box->kind == PK_DICT) { /* a state is a dict too: key, value nodes */
        key = m->nodes[f->node].value;
        f->node = m->nodes[f->node].next;
    }
    item = m->nodes[f->node].value;
    f->node = m->nodes[f->node].next;
    w->path_len = f->path_len;
    if (path_segment(w, key, f->index++) != 0) return -1;
    return visit(w, frames, depth, item);
}

int afmt_pk_walk(pk_machine *m)
{
    walk_frame frames[WALK_MAX_DEPTH];
    unsigned depth = 0;
    walker w;
    int rc;

    if (!(m->vis && (m->vis->on_array || m->vis->on_kv)) && !(m->opt->fields && m->opt->fields->on_field))
        return 0;
    memset(&w, 0, sizeof w);
    w.m = m;
    rc = reserve(&w, &w.path, &w.path_cap, 0, 0);
    if (rc == 0) {
        w.path[0] = '\0';
        rc = visit(&w, frames, &depth, m->root);
    }
    while (rc == 0 && depth > 0)
        rc = advance(&w, frames, &depth);
    free(w.path);
    free(w.text);
    return rc;
}
