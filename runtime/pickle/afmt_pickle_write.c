/* afmt runtime: writing a state dict's pickle as torch.save does.  See
 * afmt_pickle.h.
 *
 * torch.save pickles with CPython's C pickler at protocol 2 and a
 * persistent_id that turns each storage into ('storage', <class>, key,
 * location, numel).  The pickler memoizes every str, GLOBAL, dict and
 * non-empty tuple and REDUCE result (BINPUT n, n = 0, 1, 2, ... in order)
 * and writes an object it has memoized again as BINGET: so the constant
 * 'storage' and 'cpu' strings, the classes and the two functions appear
 * once and are got back after, while each key, storage key, id tuple,
 * shape and stride tuple is new.  A plain dict of one item is filled by
 * SETITEM; a larger one by MARK ... SETITEMS batches of 1000, the last
 * batch being empty when the count is a multiple of 1000 (batch_dict_exact
 * in Modules/_pickle.c).  Everything the bytes say comes from the
 * description (afmt_pickle_desc); this file knows the pickler's habits, not
 * torch's names.
 */
#include "afmt_pickle_machine.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/afmt_bytes.h"
#include "../core/afmt_fields.h"
#include "../io/afmt_sink.h"

#define PK_BATCH 1000u
#define MEMO_NONE UINT32_MAX

typedef struct pk_out {
    afmt_sink *sink;
    afmt_error *err;
    const afmt_pickle_desc *d; /* whose grammar must allow every opcode written */
    uint8_t buf[4096];
    size_t n;
    uint32_t memo;           /* the next memo slot */
} pk_out;

/* The slots of what is written once and got back after. */
typedef struct pk_slots {
    uint32_t tensor_fn, dict_fn;
    uint32_t pid[16];        /* per pid item: TEXT and LOCATION strings */
    uint32_t *cls;           /* per entry of d->globals (ROLE_CLASS) */
} pk_slots;

static int flush(pk_out *o)
{
    if (o->n && afmt_sink_put(o->sink, o->buf, o->n, o->err) != 0) return -1;
    o->n = 0;
    return 0;
}

static int put_bytes(pk_out *o, const void *p, size_t n)
{
    const uint8_t *b = p;
    while (n) {
        size_t k = sizeof o->buf - o->n;
        if (k == 0) {
            if (flush(o) != 0) return -1;
            continue;
        }
        if (k > n) k = n;
        memcpy(o->buf + o->n, b, k);
        o->n += k;
        b += k;
        n -= k;
    }
    return 0;
}

/* An opcode and its argument bytes (b[0] the opcode).  The validator of
 * the spec refuses an opcode its grammar does not allow, so the writer
 * refuses to write one (the spec fuzzer's seed 7128: BINPUT written under
 * a grammar without it), naming it and the array being written. */
static int put_coded(pk_out *o, const uint8_t *b, size_t n)
{
    char name[8];
    if (!o->d->ops[b[0]])
        return afmt_fail(o->err, AFMT_E_UNSUPPORTED, NULL, o->d->name, AFMT_NO_INDEX, AFMT_NO_OFFSET,
                         "%s's pickle grammar does not allow %s, which writing this state dict needs",
                         o->d->name, afmt_pk_op_name(b[0], name));
    return put_bytes(o, b, n);
}

static int put_op(pk_out *o, uint8_t code)
{
    return put_coded(o, &code, 1);
}

/* BINPUT (LONG_BINPUT from 256) of the next slot, whose number *slot gets. */
static int memo_put(pk_out *o, uint32_t *slot)
{
    uint8_t b[5];
    if (slot) *slot = o->memo;
    if (o->memo < 256) {
        b[0] = AFMT_PK_OP_BINPUT;
        b[1] = (uint8_t)o->memo++;
        return put_coded(o, b, 2);
    }
    b[0] = AFMT_PK_OP_LONG_BINPUT;
    afmt_store_u32le(b + 1, o->memo++);
    return put_coded(o, b, 5);
}

static int memo_get(pk_out *o, uint32_t slot)
{
    uint8_t b[5];
    if (slot < 256) {
        b[0] = AFMT_PK_OP_BINGET;
        b[1] = (uint8_t)slot;
        return put_coded(o, b, 2);
    }
    b[0] = AFMT_PK_OP_LONG_BINGET;
    afmt_store_u32le(b + 1, slot);
    return put_coded(o, b, 5);
}

/* An int >= 0 below 2^63 in the smallest encoding the pickler uses. */
static int put_uint(pk_out *o, uint64_t v)
{
    uint8_t b[10];
    unsigned n = 1;
    if (v <= 0xff) { b[0] = AFMT_PK_OP_BININT1; b[1] = (uint8_t)v; return put_coded(o, b, 2); }
    if (v <= 0xffff) { b[0] = AFMT_PK_OP_BININT2; afmt_store_u16le(b + 1, (uint16_t)v); return put_coded(o, b, 3); }
    if (v <= 0x7fffffff) { b[0] = AFMT_PK_OP_BININT; afmt_store_u32le(b + 1, (uint32_t)v); return put_coded(o, b, 5); }
    /* LONG1: little-endian two's complement, as few bytes as keep the sign bit clear */
    while (n < 8 && (v >> (8 * n - 1)) != 0) n++;
    b[0] = AFMT_PK_OP_LONG1;
    b[1] = (uint8_t)n;
    afmt_store_u64le(b + 2, v);
    return put_coded(o, b, 2 + n);
}

/* A str (BINUNICODE) put in the memo. */
static int put_str(pk_out *o, const char *s, size_t n, uint32_t *slot)
{
    uint8_t b[5];
    b[0] = AFMT_PK_OP_BINUNICODE;
    afmt_store_u32le(b + 1, (uint32_t)n);
    if (put_coded(o, b, 5) != 0 || put_bytes(o, s, n) != 0) return -1;
    return memo_put(o, slot);
}

/* A constant string or a GLOBAL: written and put the first time, got back
 * after (the pickler's memo holds the object). */
static int put_once(pk_out *o, uint32_t *slot, const char *module, const char *name)
{
    if (*slot != MEMO_NONE) return memo_get(o, *slot);
    if (!module) return put_str(o, name, strlen(name), slot);
    if (put_op(o, AFMT_PK_OP_GLOBAL) != 0 || put_bytes(o, module, strlen(module)) != 0 || put_bytes(o, "\n", 1) != 0 ||
        put_bytes(o, name, strlen(name)) != 0 || put_bytes(o, "\n", 1) != 0)
        return -1;
    return memo_put(o, slot);
}

/* How a tuple of n items ends: TUPLE1-3, or TUPLE after a MARK the caller
 * wrote (tuple_open), then its memo put. */
static int tuple_open(pk_out *o, size_t n)
{
    return n > 3 ? put_op(o, AFMT_PK_OP_MARK) : 0;
}

static int tuple_close(pk_out *o, size_t n)
{
    static const uint8_t small[4] = { AFMT_PK_OP_EMPTY_TUPLE, AFMT_PK_OP_TUPLE1, AFMT_PK_OP_TUPLE2, AFMT_PK_OP_TUPLE3 };
    if (put_op(o, n > 3 ? AFMT_PK_OP_TUPLE : small[n]) != 0) return -1;
    return n ? memo_put(o, NULL) : 0;
}

static int put_uint_tuple(pk_out *o, const uint64_t *v, uint32_t n)
{
    uint32_t k;
    if (tuple_open(o, n) != 0) return -1;
    for (k = 0; k < n; k++)
        if (put_uint(o, v[k]) != 0) return -1;
    return tuple_close(o, n);
}

/* ------------------------------------------------------------ the description */

typedef struct pk_plan {
    const afmt_pk_global *tensor;
    uint32_t tensor_index, dict_index;
} pk_plan;

static int usage(afmt_error *err, const char *why)
{
    return afmt_fail(err, AFMT_E_USAGE, NULL, NULL, AFMT_NO_INDEX, AFMT_NO_OFFSET,
                     "afmt_pickle_write_state_dict: the description %s", why);
}

/* Can the writer follow d: a ROLE_TENSOR entry whose arguments it can
 * write, a ROLE_DICT entry for an empty mapping, a pid of known parts? */
static int plan(const afmt_pickle_desc *d, pk_plan *p, afmt_error *err)
{
    size_t i;
    p->tensor = NULL;
    p->dict_index = p->tensor_index = UINT32_MAX;
    for (i = 0; i < d->nglobals; i++) {
        if (d->globals[i].role == AFMT_PK_ROLE_TENSOR && !p->tensor) {
            p->tensor = &d->globals[i];
            p->tensor_index = (uint32_t)i;
        }
        if (d->globals[i].role == AFMT_PK_ROLE_DICT && d->globals[i].nargs == 0 && p->dict_index == UINT32_MAX)
            p->dict_index = (uint32_t)i;
    }
    if (!p->tensor) return usage(err, "has no ROLE_TENSOR global");
    if (d->npid == 0 || d->npid > 16) return usage(err, "has no persistent id of 1 to 16 items");
    for (i = 0; i < d->npid; i++)
        if (d->pid[i].part == AFMT_PK_PID_LOCATION &&
            (d->pid[i].npatterns == 0 || strstr(d->pid[i].patterns[0], "{n}")))
            return usage(err, "has a location whose first pattern is not a literal");
    for (i = 0; i < p->tensor->nargs; i++) {
        const afmt_pk_arg a = p->tensor->args[i];
        const int k = (int)i;
        if (a == AFMT_PK_ARG_UINT && k == p->tensor->arg_offset) continue;
        if (a == AFMT_PK_ARG_UINT_TUPLE && (k == p->tensor->arg_shape || k == p->tensor->arg_stride)) continue;
        if (a == AFMT_PK_ARG_STORAGE || a == AFMT_PK_ARG_BOOL) continue;
        if (a == AFMT_PK_ARG_EMPTY_DICT && p->dict_index != UINT32_MAX) continue;
        return usage(err, "has a tensor argument the writer cannot make");
    }
    return 0;
}

/* The first writable ROLE_CLASS entry of dtype, or UINT32_MAX. */
static uint32_t class_of(const afmt_pickle_desc *d, afmt_dtype dtype)
{
    size_t i;
    for (i = 0; i < d->nglobals; i++)
        if (d->globals[i].role == AFMT_PK_ROLE_CLASS && d->globals[i].writable && d->globals[i].dtype == dtype)
            return (uint32_t)i;
    return UINT32_MAX;
}

/* ------------------------------------------------------------ the arrays */

/* torch's contiguous strides: a dimension of size 0 counts as 1. */
static int contiguous_strides(const afmt_array *a, uint64_t *strides)
{
    uint64_t s = 1;
    uint32_t k;
    for (k = a->rank; k-- > 0;) {
        strides[k] = s;
        if (afmt_checked_mul_u64(s, a->dims[k] ? a->dims[k] : 1, &s) || s > INT64_MAX) return -1;
    }
    return 0;
}

/* Each key is the array's name, or "arr_<index>" (the one naming rule,
 * afmt_array_key): a dict's keys are strings, so every array gets one. */
static int cmp_names(const void *ctx, uint32_t x, uint32_t y)
{
    const afmt_array *arrays = ctx;
    char bx[32], by[32];
    return strcmp(afmt_array_key(&arrays[x], x, bx, sizeof bx), afmt_array_key(&arrays[y], y, by, sizeof by));
}

/* Every array writable: a class for its dtype, a whole UTF-8 name used
 * once, dimensions and count below 2^63. */
static int check_arrays(const afmt_pickle_desc *d, const afmt_array *arrays, size_t n, afmt_error *err)
{
    size_t i;
    uint32_t *idx;
    for (i = 0; i < n; i++) {
        const afmt_array *a = &arrays[i];
        uint64_t count = 1, strides[AFMT_RANK_CAP];
        uint32_t k;
        const char *nul = memchr(a->name, '\0', AFMT_NAME_MAX);
        const size_t len = nul ? (size_t)(nul - a->name) : AFMT_NAME_MAX;
        if (class_of(d, a->dtype) == UINT32_MAX)
            return afmt_fail(err, AFMT_E_TYPE, NULL, "array", i, AFMT_NO_OFFSET,
                             "%s has no storage class for element type %s", d->name, afmt_array_type_name(a));
        if (afmt_name_whole(a, i, err) != 0) return -1;
        if (len == AFMT_NAME_MAX || afmt_pk_utf8_bad((const uint8_t *)a->name, len) != len)
            return afmt_fail(err, AFMT_E_TYPE, NULL, "array", i, AFMT_NO_OFFSET, "the name is not UTF-8 text");
        if (a->rank > AFMT_RANK_CAP)
            return afmt_fail(err, AFMT_E_USAGE, NULL, "array", i, AFMT_NO_OFFSET, "rank %" PRIu32, a->rank);
        for (k = 0; k < a->rank; k++) {
            if (a->dims[k] > INT64_MAX)
                return afmt_fail(err, AFMT_E_LIMIT, NULL, "array", i, AFMT_NO_OFFSET,
                                 "dimension %" PRIu32 " is %" PRIu64 ": a pickle's ints are 64-bit signed", k,
                                 a->dims[k]);
            if (afmt_checked_mul_u64(count, a->dims[k], &count)) count = UINT64_MAX;
        }
        if (count > INT64_MAX || contiguous_strides(a, strides) != 0)
            return afmt_fail(err, AFMT_E_LIMIT, NULL, "array", i, AFMT_NO_OFFSET,
                             "the element count or a stride reaches 2^63");
    }
    if (n < 2) return 0;
    if (n > UINT32_MAX / 2 || !(idx = malloc(2 * n * sizeof *idx)))
        return afmt_fail(err, AFMT_E_NOMEM, NULL, NULL, AFMT_NO_INDEX, AFMT_NO_OFFSET,
                         "cannot allocate an index of %zu names", n);
    for (i = 0; i < n; i++) idx[i] = (uint32_t)i;
    afmt_pk_sort(idx, idx + n, (uint32_t)n, cmp_names, arrays);
    for (i = 1; i < n; i++)
        if (cmp_names(arrays, idx[i - 1], idx[i]) == 0) {
            const uint32_t later = idx[i] > idx[i - 1] ? idx[i] : idx[i - 1];
            const uint32_t first = idx[i] > idx[i - 1] ? idx[i - 1] : idx[i];
            char key[32];
            const char *name = afmt_array_key(&arrays[later], later, key, sizeof key);
            free(idx);
            return afmt_fail(err, AFMT_E_CONSTRAINT, NULL, "name", later, AFMT_NO_OFFSET,
                             "the name '%s' is array %" PRIu32 "'s too: a dict's keys are distinct", name, first);
        }
    free(idx);
    return 0;
}

/* BINPERSID of array k's storage: the id tuple, then the opcode. */
static int put_pid(pk_out *o, const afmt_pickle_desc *d, pk_slots *s, const afmt_array *a, size_t k)
{
    size_t i;
    char key[24];
    if (tuple_open(o, d->npid) != 0) return -1;
    for (i = 0; i < d->npid; i++) {
        const afmt_pk_pid_elem *e = &d->pid[i];
        const uint32_t c = class_of(d, a->dtype);
        int rc = 0;
        switch (e->part) {
        case AFMT_PK_PID_TEXT: rc = put_once(o, &s->pid[i], NULL, e->text ? e->text : ""); break;
        case AFMT_PK_PID_LOCATION: rc = put_once(o, &s->pid[i], NULL, e->patterns[0]); break;
        case AFMT_PK_PID_CLASS: rc = put_once(o, &s->cls[c], d->globals[c].module, d->globals[c].name); break;
        case AFMT_PK_PID_KEY:
            snprintf(key, sizeof key, "%zu", k);
            rc = put_str(o, key, strlen(key), NULL);
            break;
        case AFMT_PK_PID_COUNT: rc = put_uint(o, a->count); break;
        }
        if (rc != 0) return -1;
    }
    if (tuple_close(o, d->npid) != 0) return -1;
    return put_op(o, AFMT_PK_OP_BINPERSID);
}

/* name, then the REDUCE that rebuilds array k. */
static int put_entry(pk_out *o, const afmt_pickle_desc *d, const pk_plan *p, pk_slots *s, const afmt_array *a,
                     size_t k)
{
    const afmt_pk_global *g = p->tensor;
    uint64_t strides[AFMT_RANK_CAP];
    char unnamed[32];
    const char *key = afmt_array_key(a, k, unnamed, sizeof unnamed);
    size_t i;
    if (put_str(o, key, strlen(key), NULL) != 0 || put_once(o, &s->tensor_fn, g->module, g->name) != 0 ||
        tuple_open(o, g->nargs) != 0)
        return -1;
    (void)contiguous_strides(a, strides); /* checked by check_arrays */
    for (i = 0; i < g->nargs; i++) {
        const int at = (int)i;
        int rc;
        switch (g->args[i]) {
        case AFMT_PK_ARG_STORAGE: rc = put_pid(o, d, s, a, k); break;
        case AFMT_PK_ARG_UINT: rc = put_uint(o, 0); break; /* the storage offset */
        case AFMT_PK_ARG_UINT_TUPLE: rc = put_uint_tuple(o, at == g->arg_shape ? a->dims : strides, a->rank); break;
        case AFMT_PK_ARG_BOOL: rc = put_op(o, AFMT_PK_OP_NEWFALSE); break;
        default: { /* AFMT_PK_ARG_EMPTY_DICT: OrderedDict() */
            const afmt_pk_global *dg = &d->globals[p->dict_index];
            rc = put_once(o, &s->dict_fn, dg->module, dg->name);
            if (rc == 0) rc = put_op(o, AFMT_PK_OP_EMPTY_TUPLE);
            if (rc == 0) rc = put_op(o, AFMT_PK_OP_REDUCE);
            if (rc == 0) rc = memo_put(o, NULL);
            break;
        }
        }
        if (rc != 0) return -1;
    }
    if (tuple_close(o, g->nargs) != 0 || put_op(o, AFMT_PK_OP_REDUCE) != 0) return -1;
    return memo_put(o, NULL);
}

int afmt_pickle_write_state_dict(const afmt_pickle_desc *d, const afmt_array *arrays, size_t n, afmt_sink *sink,
                                 afmt_error *err)
{
    pk_out o;
    pk_slots slots;
    pk_plan p;
    size_t i;
    int rc = 0;

    if (!d || !sink || (n && !arrays))
        return afmt_fail(err, AFMT_E_USAGE, NULL, NULL, AFMT_NO_INDEX, AFMT_NO_OFFSET,
                         "afmt_pickle_write_state_dict: no description, sink or arrays");
    if (d->protocol_min > 2 || d->protocol_max < 2) return usage(err, "does not read protocol 2");
    if (!(d->root_kinds & AFMT_PK_ROOT_DICT)) return usage(err, "does not take a dict at STOP (\"root\")");
    if (d->dict_keys && !(d->dict_keys & AFMT_PK_KEY_STR)) return usage(err, "does not take str keys (\"dict_keys\")");
    if (plan(d, &p, err) != 0 || check_arrays(d, arrays, n, err) != 0) return -1;
    memset(&o, 0, sizeof o);
    o.sink = sink;
    o.err = err;
    o.d = d;
    slots.tensor_fn = slots.dict_fn = MEMO_NONE;
    for (i = 0; i < 16; i++) slots.pid[i] = MEMO_NONE;
    slots.cls = malloc((d->nglobals ? d->nglobals : 1) * sizeof *slots.cls);
    if (!slots.cls)
        return afmt_fail(err, AFMT_E_NOMEM, NULL, NULL, AFMT_NO_INDEX, AFMT_NO_OFFSET, "cannot allocate %zu slots",
                         d->nglobals);
    for (i = 0; i < d->nglobals; i++) slots.cls[i] = MEMO_NONE;
    {
        const uint8_t proto[2] = { AFMT_PK_OP_PROTO, 2 };
        rc = put_coded(&o, proto, 2) != 0 || put_op(&o, AFMT_PK_OP_EMPTY_DICT) != 0 || memo_put(&o, NULL) != 0 ? -1 : 0;
    }
    if (rc == 0 && n == 1) {
        rc = put_entry(&o, d, &p, &slots, &arrays[0], 0);
        if (rc == 0) rc = put_op(&o, AFMT_PK_OP_SETITEM);
    } else if (rc == 0 && n > 1) {
        /* batch_dict_exact: MARK ... SETITEMS while a batch came out full */
        size_t done = 0, batch;
        do {
            if (put_op(&o, AFMT_PK_OP_MARK) != 0) { rc = -1; break; }
            for (batch = 0; done < n && batch < PK_BATCH; batch++, done++)
                if (put_entry(&o, d, &p, &slots, &arrays[done], done) != 0) { rc = -1; break; }
            if (rc != 0 || put_op(&o, AFMT_PK_OP_SETITEMS) != 0) { rc = -1; break; }
        } while (batch == PK_BATCH);
    }
    if (rc == 0) rc = put_op(&o, AFMT_PK_OP_STOP);
    if (rc == 0) rc = flush(&o);
    free(slots.cls);
    return rc;
}
