/* afmt runtime: the pickle machine's messages, UTF-8 check and sort.  See
 * afmt_pickle_machine.h.
 *
 * Every error of the machine names the opcode it is about as
 * "<name>[op N OPNAME]" at that opcode's absolute offset, and describes the
 * values involved by kind and by the opcode that made them, so that a
 * message can be checked against pickletools.dis of the same bytes.
 */
#include "afmt_pickle_machine.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../common/afmt_float.h"
#include "../common/afmt_options.h"

const char *afmt_pk_op_name(uint8_t code, char buf[8])
{
    /* Every opcode of protocols 0-5 (pickle.py), so that a refusal of one
     * the description does not allow names it as pickletools does. */
    switch (code) {
    case 0x28: return "MARK";
    case 0x2e: return "STOP";
    case 0x30: return "POP";
    case 0x31: return "POP_MARK";
    case 0x32: return "DUP";
    case 0x46: return "FLOAT";
    case 0x49: return "INT";
    case 0x4a: return "BININT";
    case 0x4b: return "BININT1";
    case 0x4c: return "LONG";
    case 0x4d: return "BININT2";
    case 0x4e: return "NONE";
    case 0x50: return "PERSID";
    case 0x51: return "BINPERSID";
    case 0x52: return "REDUCE";
    case 0x53: return "STRING";
    case 0x54: return "BINSTRING";
    case 0x55: return "SHORT_BINSTRING";
    case 0x56: return "UNICODE";
    case 0x58: return "BINUNICODE";
    case 0x61: return "APPEND";
    case 0x62: return "BUILD";
    case 0x63: return "GLOBAL";
    case 0x64: return "DICT";
    case 0x7d: return "EMPTY_DICT";
    case 0x65: return "APPENDS";
    case 0x67: return "GET";
    case 0x68: return "BINGET";
    case 0x69: return "INST";
    case 0x6a: return "LONG_BINGET";
    case 0x6c: return "LIST";
    case 0x5d: return "EMPTY_LIST";
    case 0x6f: return "OBJ";
    case 0x70: return "PUT";
    case 0x71: return "BINPUT";
    case 0x72: return "LONG_BINPUT";
    case 0x73: return "SETITEM";
    case 0x74: return "TUPLE";
    case 0x29: return "EMPTY_TUPLE";
    case 0x75: return "SETITEMS";
    case 0x47: return "BINFLOAT";
    case 0x80: return "PROTO";
    case 0x81: return "NEWOBJ";
    case 0x82: return "EXT1";
    case 0x83: return "EXT2";
    case 0x84: return "EXT4";
    case 0x85: return "TUPLE1";
    case 0x86: return "TUPLE2";
    case 0x87: return "TUPLE3";
    case 0x88: return "NEWTRUE";
    case 0x89: return "NEWFALSE";
    case 0x8a: return "LONG1";
    case 0x8b: return "LONG4";
    case 0x42: return "BINBYTES";
    case 0x43: return "SHORT_BINBYTES";
    case 0x8c: return "SHORT_BINUNICODE";
    case 0x8d: return "BINUNICODE8";
    case 0x8e: return "BINBYTES8";
    case 0x8f: return "EMPTY_SET";
    case 0x90: return "ADDITEMS";
    case 0x91: return "FROZENSET";
    case 0x92: return "NEWOBJ_EX";
    case 0x93: return "STACK_GLOBAL";
    case 0x94: return "MEMOIZE";
    case 0x95: return "FRAME";
    case 0x96: return "BYTEARRAY8";
    case 0x97: return "NEXT_BUFFER";
    case 0x98: return "READONLY_BUFFER";
    default:
        snprintf(buf, 8, "0x%02x", code);
        return buf;
    }
}

/* "data.pkl[op 17 SETITEM]" */
static void op_field(const pk_machine *m, uint32_t op, uint8_t code, char *out, size_t size)
{
    char nb[8];
    snprintf(out, size, "%s[op %" PRIu32 " %s]", m->d->name ? m->d->name : "pickle", op,
             afmt_pk_op_name(code, nb));
}

static int fail_opv(pk_machine *m, afmt_code code, uint32_t op, uint64_t at, const char *fmt, va_list ap)
{
    char field[AFMT_FIELD_MAX];
    op_field(m, op, at < m->len ? m->p[at] : 0, field, sizeof field);
    return afmt_failv(m->err, code, m->path, field, AFMT_NO_INDEX, m->base + at, fmt, ap);
}

int afmt_pk_fail(pk_machine *m, afmt_code code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fail_opv(m, code, m->op, m->pos, fmt, ap);
    va_end(ap);
    return -1;
}

int afmt_pk_fail_op(pk_machine *m, afmt_code code, uint32_t op, uint32_t at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fail_opv(m, code, op, at, fmt, ap);
    va_end(ap);
    return -1;
}

int afmt_pk_tolerate(pk_machine *m, const char *fmt, ...)
{
    char field[AFMT_FIELD_MAX];
    va_list ap;
    int rc;
    op_field(m, m->op, m->code, field, sizeof field);
    va_start(ap, fmt);
    rc = afmt_toleratev(m->opt, m->vis, m->err, AFMT_E_CONSTRAINT, m->path, field, AFMT_NO_INDEX,
                        m->base + m->pos, fmt, ap);
    va_end(ap);
    return rc;
}

void afmt_pk_global_text(const afmt_pk_global *g, char *buf, size_t size)
{
    snprintf(buf, size, "%s %s", g->module, g->name);
}

static const char *kind_article(const pk_value *v)
{
    switch ((pk_kind)v->kind) {
    case PK_NONE: return "None";
    case PK_BOOL: return "a bool";
    case PK_INT: return "an int";
    case PK_FLOAT: return "a float";
    case PK_STR: return "a str";
    case PK_TUPLE: return "a tuple";
    case PK_LIST: return "a list";
    case PK_DICT: return (v->flags & PK_REDUCED) ? "a mapping" : "a dict";
    case PK_GLOBAL: return "GLOBAL";
    case PK_STORAGE: return "a storage reference";
    case PK_TENSOR: return "a tensor";
    case PK_WRAP: return "a marked tensor";
    }
    return "a value";
}

const char *afmt_pk_what(const pk_machine *m, uint32_t vi, char *buf, size_t size)
{
    const pk_value *v = &m->values[vi];
    char nb[8], gt[160];
    uint32_t g = PK_NIL;

    if (v->kind == PK_GLOBAL) g = v->u.global;
    else if (v->kind == PK_TENSOR) g = v->u.tensor.global;
    else if (v->kind == PK_WRAP) g = v->u.wrap.global;
    if (v->kind == PK_INT || v->kind == PK_BOOL || v->kind == PK_STR || v->kind == PK_FLOAT) {
        char val[64];
        if (v->kind == PK_INT) snprintf(val, sizeof val, "the int %" PRId64, v->u.i);
        else if (v->kind == PK_BOOL) snprintf(val, sizeof val, "%s", v->u.i ? "True" : "False");
        else if (v->kind == PK_FLOAT) snprintf(val, sizeof val, "the float %s", afmt_float_text(v->u.f, 8).s);
        else {
            char q[48];
            afmt_pk_quote(m->p + v->u.str.at, v->u.str.len, q, sizeof q);
            snprintf(val, sizeof val, "the str %s", q);
        }
        snprintf(buf, size, "%s (made by op %" PRIu32 " %s at offset %" PRIu64 ")", val, v->op,
                 afmt_pk_op_name(m->p[v->at], nb), m->base + v->at);
    } else if (v->kind == PK_GLOBAL) {
        afmt_pk_global_text(&m->d->globals[g], gt, sizeof gt);
        snprintf(buf, size, "GLOBAL '%s' (op %" PRIu32 " at offset %" PRIu64 ")", gt, v->op,
                 m->base + v->at);
    } else if (g != PK_NIL) {
        afmt_pk_global_text(&m->d->globals[g], gt, sizeof gt);
        snprintf(buf, size, "%s (made by %s at offset %" PRIu64 ")", kind_article(v), gt, m->base + v->at);
    } else {
        snprintf(buf, size, "%s (made by op %" PRIu32 " %s at offset %" PRIu64 ")", kind_article(v), v->op,
                 afmt_pk_op_name(m->p[v->at], nb), m->base + v->at);
    }
    return buf;
}

void afmt_pk_quote(const uint8_t *p, uint64_t n, char *out, size_t size)
{
    size_t o = 0;
    uint64_t i;
    if (size < 6) { if (size) out[0] = '\0'; return; }
    out[o++] = '\'';
    for (i = 0; i < n; i++) {
        char tmp[8];
        size_t tl, k;
        if (p[i] >= 0x20 && p[i] < 0x7f && p[i] != '\'' && p[i] != '\\') { tmp[0] = (char)p[i]; tl = 1; }
        else { snprintf(tmp, sizeof tmp, "\\x%02x", p[i]); tl = 4; }
        if (o + tl + 5 > size) { /* room for "...'" and the NUL */
            memcpy(out + o, "...", 3);
            o += 3;
            break;
        }
        for (k = 0; k < tl; k++) out[o++] = tmp[k];
    }
    out[o++] = '\'';
    out[o] = '\0';
}

/* ------------------------------------------------------------ UTF-8 */

uint64_t afmt_pk_utf8_bad(const uint8_t *p, uint64_t n)
{
    uint64_t i = 0;
    while (i < n) {
        uint8_t b = p[i];
        unsigned k, j;
        uint32_t cp, min;
        if (b < 0x80) { i++; continue; }
        if (b >= 0xc2 && b <= 0xdf) { k = 1; cp = b & 0x1fu; min = 0x80; }
        else if (b >= 0xe0 && b <= 0xef) { k = 2; cp = b & 0x0fu; min = 0x800; }
        else if (b >= 0xf0 && b <= 0xf4) { k = 3; cp = b & 0x07u; min = 0x10000; }
        else return i;
        if (n - i <= k) return i;
        for (j = 1; j <= k; j++) {
            if ((p[i + j] & 0xc0) != 0x80) return i;
            cp = cp << 6 | (p[i + j] & 0x3fu);
        }
        /* overlong, a surrogate (CPython's pickler writes lone surrogates
         * with surrogatepass: not UTF-8, and never in a checkpoint), past
         * U+10FFFF */
        if (cp < min || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff) return i;
        i += k + 1;
    }
    return n;
}

/* ------------------------------------------------------------ sorting */

void afmt_pk_sort(uint32_t *idx, uint32_t *tmp, uint32_t n,
                  int (*cmp)(const void *ctx, uint32_t a, uint32_t b), const void *ctx)
{
    uint64_t width;
    uint32_t *src = idx, *dst = tmp;

    for (width = 1; width < n; width *= 2) {
        uint64_t lo;
        for (lo = 0; lo < n; lo += 2 * width) {
            uint64_t mid = lo + width < n ? lo + width : n;
            uint64_t hi = lo + 2 * width < n ? lo + 2 * width : n;
            uint64_t a = lo, b = mid, o = lo;
            while (a < mid && b < hi)
                dst[o++] = cmp(ctx, src[b], src[a]) < 0 ? src[b++] : src[a++];
            while (a < mid) dst[o++] = src[a++];
            while (b < hi) dst[o++] = src[b++];
        }
        { uint32_t *t = src; src = dst; dst = t; }
    }
    if (src != idx)
        memcpy(idx, src, (size_t)n * sizeof *idx);
}
