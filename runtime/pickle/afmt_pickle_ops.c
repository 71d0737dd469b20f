/* afmt runtime: the pickle machine's plain opcodes.  See afmt_pickle.h.
 *
 * The opcodes that make None, bools, ints, floats, strs, tuples, lists and
 * dicts, fill lists and dicts, use the memo and the MARK stack, and end the
 * pickle, each as CPython's Unpickler (Lib/pickle.py) runs it, with the
 * checks that make a conforming pickle the only one accepted: a list or
 * dict is filled only while its first stack entry is on the stack (so a
 * tensor never is, and no container can hold itself), the memo grows
 * 0, 1, 2, ... right after each value the pickler memoizes, the canonical
 * encodings of CPython's pickler are required (strict) or warned about
 * (lenient).  GLOBAL, REDUCE, BINPERSID and BUILD are in
 * afmt_pickle_reduce.c, the loop in afmt_pickle.c.
 */
#include "afmt_pickle_machine.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "../common/afmt_bytes.h"

/* CPython's pickler writes SETITEMS and APPENDS in batches of this many. */
#define PK_BATCH 1000u

/* ------------------------------------------------------------ values and the stack */

uint32_t afmt_pk_new(pk_machine *m, pk_kind kind)
{
    pk_value *v;
    if (m->nvalues + 1 >= m->cap_values) { /* the last entry stays free: see machine_alloc */
        if ((uint64_t)m->nvalues >= m->max_items)
            afmt_pk_fail(m, AFMT_E_LIMIT, "the pickle makes more than %" PRIu64 " values (limits.max_items)",
                         m->max_items);
        else
            afmt_pk_fail(m, AFMT_E_LIMIT, "more values than the census counted (%" PRIu32 ")", m->nvalues);
        return PK_NIL;
    }
    v = &m->values[m->nvalues];
    memset(v, 0, sizeof *v);
    v->kind = (uint8_t)kind;
    v->op = m->op;
    v->at = (uint32_t)m->pos;
    if (kind == PK_TUPLE || kind == PK_LIST || kind == PK_DICT) {
        v->u.box.head = v->u.box.tail = v->u.box.state = PK_NIL;
        v->u.box.weight = 1;
        v->depth = 1;
    }
    return m->nvalues++;
}

uint32_t afmt_pk_frame_base(const pk_machine *m)
{
    return m->nmarks ? m->marks[2 * (m->nmarks - 1)] : 0;
}

int afmt_pk_push(pk_machine *m, uint32_t v)
{
    if (m->nstack >= m->cap_stack)
        return afmt_pk_fail(m, AFMT_E_LIMIT, "more stack entries than the census counted (%" PRIu32 ")",
                            m->nstack);
    m->stack[m->nstack++] = v;
    return 0;
}

/* Closing a popped list or dict: it was consumed (into a container, a
 * tuple, an argument), so nothing may fill it any more. */
static void close_value(pk_machine *m, uint32_t v)
{
    m->values[v].flags &= (uint8_t)~PK_OPEN;
}

int afmt_pk_pop(pk_machine *m, uint32_t *v)
{
    char nb[8];
    if (m->nstack <= afmt_pk_frame_base(m))
        return afmt_pk_fail(m, AFMT_E_CONSTRAINT, "%s needs a value and finds the stack empty%s",
                            afmt_pk_op_name(m->code, nb), m->nmarks ? " above its MARK" : "");
    *v = m->stack[--m->nstack];
    close_value(m, *v);
    return 0;
}

static uint64_t weight_of(const pk_value *v)
{
    return (v->kind == PK_TUPLE || v->kind == PK_LIST || v->kind == PK_DICT) ? v->u.box.weight : 1;
}

/* Link v as the next item of container c (a dict's key when is_key: it adds
 * neither weight nor depth), made by the opcode being run. */
static int add_item(pk_machine *m, uint32_t c, uint32_t v, int is_key)
{
    pk_value *box = &m->values[c];
    const pk_value *item = &m->values[v];
    pk_node *n;
    uint32_t ni;

    if (m->nnodes + 1 >= m->cap_nodes)
        return afmt_pk_fail(m, AFMT_E_LIMIT, "more items than the census counted (%" PRIu32 ")", m->nnodes);
    ni = m->nnodes++;
    n = &m->nodes[ni];
    n->value = v;
    n->next = PK_NIL;
    n->op = m->op;
    n->at = (uint32_t)m->pos;
    if (box->u.box.tail == PK_NIL) box->u.box.head = ni;
    else m->nodes[box->u.box.tail].next = ni;
    box->u.box.tail = ni;
    box->flags |= (uint8_t)(item->flags & (PK_TENSORS | PK_FOREIGN));
    if (is_key)
        return 0;
    if (item->depth + 1u > box->depth) {
        if (item->depth + 1u > m->depth_cap)
            return afmt_pk_fail(m, AFMT_E_LIMIT, "values nested deeper than %u (limits.max_depth)", m->depth_cap);
        box->depth = (uint16_t)(item->depth + 1u);
    }
    box->u.box.weight = box->u.box.weight > UINT64_MAX - weight_of(item) ? UINT64_MAX
                                                                         : box->u.box.weight + weight_of(item);
    return 0;
}

/* A list's or dict's item may not be a GLOBAL or storage reference (nor a
 * tuple holding one): those are only ever REDUCE and BINPERSID arguments. */
static int check_member(pk_machine *m, uint32_t box, uint32_t v)
{
    char a[200], b[200];
    if (!(m->values[v].flags & PK_FOREIGN))
        return 0;
    return afmt_pk_fail(m, AFMT_E_CONSTRAINT,
                        "%s into %s: a container holds only plain values and tensors",
                        afmt_pk_what(m, v, a, sizeof a), afmt_pk_what(m, box, b, sizeof b));
}

/* The container the filling opcode being run fills (at stack index at):
 * a dict or list (want) still being filled. */
static int check_target(pk_machine *m, uint32_t target, pk_kind want)
{
    const pk_value *t = &m->values[target];
    char nb[8], w[200];
    const char *op = afmt_pk_op_name(m->code, nb);
    if (t->kind == want && (t->flags & PK_OPEN))
        return 0;
    afmt_pk_what(m, target, w, sizeof w);
    if (t->kind == want) /* got back from the memo after it was consumed */
        return afmt_pk_fail(m, AFMT_E_CONSTRAINT,
                            "%s on %s that is already complete: a pickler fills a container right after "
                            "making it", op, w);
    return afmt_pk_fail(m, AFMT_E_CONSTRAINT, "%s on %s: %s fills a %s", op, w, op,
                        want == PK_DICT ? "dict" : "list");
}

/* ------------------------------------------------------------ opcodes */

static int push_new(pk_machine *m, pk_kind kind, uint32_t *out)
{
    uint32_t v = afmt_pk_new(m, kind);
    if (v == PK_NIL || afmt_pk_push(m, v) != 0)
        return -1;
    if (out) *out = v;
    return 0;
}

/* A value the pickler puts in the memo at once (with memo_in_order). */
static void expect_put(pk_machine *m, uint32_t v)
{
    if (m->d->memo_in_order)
        m->pending = v;
}

/* The smallest two's complement length of v (LONG1). */
static unsigned long1_minimal(int64_t v)
{
    unsigned n;
    for (n = 1; n < 8; n++) {
        const int64_t lim = (int64_t)1 << (8 * n - 1);
        if (v >= -lim && v < lim) return n;
    }
    return 8;
}

static int op_int(pk_machine *m, const uint8_t *arg)
{
    int64_t i = 0;
    uint32_t v;
    switch (m->code) {
    case AFMT_PK_OP_BININT1: i = arg[0]; break;
    case AFMT_PK_OP_BININT2:
        i = afmt_load_u16le(arg);
        if (m->d->canonical && i < 256 &&
            afmt_pk_tolerate(m, "BININT2 of %" PRId64 ": the pickler writes BININT1 below 256", i) != 0)
            return -1;
        break;
    case AFMT_PK_OP_BININT:
        i = afmt_as_i64(afmt_load_u32le(arg), 32);
        if (m->d->canonical && i >= 0 && i < 65536 &&
            afmt_pk_tolerate(m, "BININT of %" PRId64 ": the pickler writes %s", i,
                             i < 256 ? "BININT1 below 256" : "BININT2 below 65536") != 0)
            return -1;
        break;
    default: { /* LONG1 */
        const unsigned n = arg[0];
        uint64_t u = 0;
        unsigned k;
        if (n > 8)
            return afmt_pk_fail(m, AFMT_E_OVERFLOW, "LONG1 of %u bytes: integers are read in 64 bits", n);
        for (k = 0; k < n; k++) u |= (uint64_t)arg[1 + k] << (8 * k);
        i = n ? afmt_as_i64(u, 8 * n) : 0;
        if (m->d->canonical && i >= INT32_MIN && i <= INT32_MAX &&
            afmt_pk_tolerate(m, "LONG1 of %" PRId64 ": the pickler writes BININT, BININT1 or BININT2 for an "
                             "int32", i) != 0)
            return -1;
        if (m->d->canonical && (i < INT32_MIN || i > INT32_MAX) && n != long1_minimal(i) &&
            afmt_pk_tolerate(m, "LONG1 of %u bytes for %" PRId64 ": the pickler writes the %u bytes it needs", n,
                             i, long1_minimal(i)) != 0)
            return -1;
        break;
    }
    }
    if (push_new(m, PK_INT, &v) != 0) return -1;
    m->values[v].u.i = i;
    return 0;
}

/* 32-bit FNV-1a: equal strings are found by a sort that compares this
 * first, so that keys sharing a long prefix are rarely compared byte by
 * byte (a crafted collision costs only the compare it saves). */
static uint32_t text_hash(const uint8_t *p, uint64_t n)
{
    uint32_t h = 2166136261u;
    uint64_t i;
    for (i = 0; i < n; i++) h = (h ^ p[i]) * 16777619u;
    return h;
}

static int op_str(pk_machine *m, uint64_t at, uint64_t n)
{
    const uint64_t bad = afmt_pk_utf8_bad(m->p + at, n);
    uint32_t v;
    if (bad != n)
        return afmt_pk_fail(m, AFMT_E_VALUE, "the string of %" PRIu64 " bytes is not UTF-8: byte %" PRIu64
                            " (0x%02x, at offset %" PRIu64 ")", n, bad, m->p[at + bad], m->base + at + bad);
    if (push_new(m, PK_STR, &v) != 0) return -1;
    m->values[v].u.str.at = (uint32_t)at;
    m->values[v].u.str.len = (uint32_t)n;
    m->values[v].u.str.hash = text_hash(m->p + at, n);
    m->values[v].u.str.canon = PK_NIL;
    expect_put(m, v);
    return 0;
}

/* TUPLE1-3 (n items) or TUPLE (n = PK_NIL: the items above the last MARK). */
static int op_tuple(pk_machine *m, uint32_t n)
{
    uint32_t base, t, k;
    if (n == PK_NIL) {
        if (!m->nmarks)
            return afmt_pk_fail(m, AFMT_E_CONSTRAINT, "TUPLE without a MARK");
        base = m->marks[2 * --m->nmarks];
        n = m->nstack - base;
        if (m->d->canonical && n < 4 &&
            afmt_pk_tolerate(m, "TUPLE of %" PRIu32 " items: the pickler writes %s", n,
                             n == 0 ? "EMPTY_TUPLE" : n == 1 ? "TUPLE1" : n == 2 ? "TUPLE2" : "TUPLE3") != 0)
            return -1;
    } else {
        if (m->nstack - afmt_pk_frame_base(m) < n)
            return afmt_pk_fail(m, AFMT_E_CONSTRAINT, "TUPLE%" PRIu32 " finds %" PRIu32 " values on the stack%s",
                                n, m->nstack - afmt_pk_frame_base(m), m->nmarks ? " above its MARK" : "");
        base = m->nstack - n;
    }
    t = afmt_pk_new(m, PK_TUPLE);
    if (t == PK_NIL) return -1;
    for (k = 0; k < n; k++) {
        if (add_item(m, t, m->stack[base + k], 0) != 0) return -1;
        m->values[t].u.box.count++;
        close_value(m, m->stack[base + k]);
    }
    m->nstack = base;
    if (afmt_pk_push(m, t) != 0) return -1;
    if (n > 0) expect_put(m, t);
    return 0;
}

/* SETITEM, SETITEMS, APPEND, APPENDS: items stack[from..nstack) into the
 * dict or list just below them. */
static int fill(pk_machine *m, pk_kind want, int batch)
{
    uint32_t from, target, n, k;
    char nb[8];
    const char *op = afmt_pk_op_name(m->code, nb);
    const uint32_t per = want == PK_DICT ? 2 : 1;

    if (batch) {
        if (!m->nmarks)
            return afmt_pk_fail(m, AFMT_E_CONSTRAINT, "%s without a MARK", op);
        from = m->marks[2 * --m->nmarks];
        n = m->nstack - from;
        if (n % per)
            return afmt_pk_fail(m, AFMT_E_CONSTRAINT, "%s with %" PRIu32 " values above its MARK: keys and "
                                "values come in pairs", op, n);
        if (m->d->canonical && n / per > PK_BATCH &&
            afmt_pk_tolerate(m, "%s of %" PRIu32 " items: the pickler writes batches of at most %u", op, n / per,
                             PK_BATCH) != 0)
            return -1;
    } else {
        if (m->nstack - afmt_pk_frame_base(m) < per)
            return afmt_pk_fail(m, AFMT_E_CONSTRAINT, "%s finds %" PRIu32 " values on the stack%s, needs %" PRIu32,
                                op, m->nstack - afmt_pk_frame_base(m), m->nmarks ? " above its MARK" : "", per + 1);
        from = m->nstack - per;
        n = per;
    }
    if (from <= afmt_pk_frame_base(m))
        return afmt_pk_fail(m, AFMT_E_CONSTRAINT, "%s has no %s below its items", op,
                            want == PK_DICT ? "dict" : "list");
    target = m->stack[from - 1];
    if (check_target(m, target, want) != 0) return -1;
    for (k = 0; k < n; k += per) {
        const uint32_t item = m->stack[from + k + per - 1];
        if (per == 2) {
            const pk_value *key = &m->values[m->stack[from + k]];
            char w[200];
            if (!((key->kind == PK_STR && (m->d->dict_keys & AFMT_PK_KEY_STR)) ||
                  (key->kind == PK_INT && (m->d->dict_keys & AFMT_PK_KEY_INT))))
                return afmt_pk_fail(m, AFMT_E_CONSTRAINT, "a dict key is %s: keys are %s",
                                    afmt_pk_what(m, m->stack[from + k], w, sizeof w),
                                    m->d->dict_keys == AFMT_PK_KEY_STR ? "str" : m->d->dict_keys == AFMT_PK_KEY_INT
                                    ? "int" : "str or int");
            if (add_item(m, target, m->stack[from + k], 1) != 0) return -1;
            m->values[m->stack[from + k]].flags |= PK_KEYTEXT;
        }
        if (check_member(m, target, item) != 0 || add_item(m, target, item, 0) != 0) return -1;
        m->values[target].u.box.count++;
    }
    for (k = from; k < m->nstack; k++)
        close_value(m, m->stack[k]);
    m->nstack = from;
    return 0;
}

static int op_put(pk_machine *m, uint64_t slot)
{
    char nb[8], w[200];
    const char *op = afmt_pk_op_name(m->code, nb);
    uint32_t top;
    if (m->nstack <= afmt_pk_frame_base(m))
        return afmt_pk_fail(m, AFMT_E_CONSTRAINT, "%s %" PRIu64 " finds the stack empty", op, slot);
    top = m->stack[m->nstack - 1];
    if (m->d->canonical && (m->code == AFMT_PK_OP_LONG_BINPUT) == (slot < 256) &&
        afmt_pk_tolerate(m, "%s %" PRIu64 ": the pickler writes %s", op, slot,
                         slot < 256 ? "BINPUT below 256" : "LONG_BINPUT from 256") != 0)
        return -1;
    if (m->d->memo_in_order) {
        if (m->pending != top)
            return afmt_pk_fail(m, AFMT_E_CONSTRAINT, "%s %" PRIu64 " of %s: only a str, GLOBAL, dict, list, "
                                "non-empty tuple or REDUCE result is put, right after it is made", op, slot,
                                afmt_pk_what(m, top, w, sizeof w));
        if (slot != m->nmemo)
            return afmt_pk_fail(m, AFMT_E_CONSTRAINT, "%s %" PRIu64 ": the next memo slot is %" PRIu32
                                " (slots are put 0, 1, 2, ... in order)", op, slot, m->nmemo);
        m->pending = PK_NIL;
    } else if (slot > m->nmemo) {
        return afmt_pk_fail(m, AFMT_E_UNSUPPORTED, "%s %" PRIu64 " skips memo slots %" PRIu32 "..%" PRIu64
                            ": afmt keeps a dense memo", op, slot, m->nmemo, slot - 1);
    }
    if (slot == m->nmemo) {
        if (m->nmemo >= m->cap_memo)
            return afmt_pk_fail(m, AFMT_E_LIMIT, "more memo slots than the census counted (%" PRIu32 ")", m->nmemo);
        m->nmemo++;
    }
    m->memo[slot] = top;
    return 0;
}

static int op_get(pk_machine *m, uint64_t slot)
{
    char nb[8], w[200];
    const char *op = afmt_pk_op_name(m->code, nb);
    uint32_t v;
    if (m->d->canonical && (m->code == AFMT_PK_OP_LONG_BINGET) == (slot < 256) &&
        afmt_pk_tolerate(m, "%s %" PRIu64 ": the pickler writes %s", op, slot,
                         slot < 256 ? "BINGET below 256" : "LONG_BINGET from 256") != 0)
        return -1;
    if (slot >= m->nmemo)
        return afmt_pk_fail(m, AFMT_E_CONSTRAINT, "%s %" PRIu64 ": memo slot %" PRIu64 " was never put (%" PRIu32
                            " slot%s put so far)", op, slot, slot, m->nmemo, m->nmemo == 1 ? " is" : "s are");
    v = m->memo[slot];
    if (m->values[v].flags & PK_OPEN)
        return afmt_pk_fail(m, AFMT_E_CONSTRAINT, "%s %" PRIu64 " of %s, which is still being filled: a "
                            "container inside itself (a cycle)", op, slot, afmt_pk_what(m, v, w, sizeof w));
    return afmt_pk_push(m, v);
}

static int op_proto(pk_machine *m, unsigned proto)
{
    const afmt_pickle_desc *d = m->d;
    if (m->op != 0)
        return afmt_pk_fail(m, AFMT_E_CONSTRAINT, "PROTO after the first opcode");
    if (proto < d->protocol_min || proto > d->protocol_max) {
        if (d->protocol_min == d->protocol_max)
            return afmt_pk_fail(m, AFMT_E_UNSUPPORTED, "pickle protocol %u: %s is read at protocol %u only", proto,
                                d->name, d->protocol_min);
        return afmt_pk_fail(m, AFMT_E_UNSUPPORTED, "pickle protocol %u: %s is read at protocols %u to %u", proto,
                            d->name, d->protocol_min, d->protocol_max);
    }
    return 0;
}

static int op_stop(pk_machine *m)
{
    const unsigned kinds = m->d->root_kinds;
    const pk_value *r;
    unsigned bit = 0;
    char w[200];

    if (m->nmarks)
        return afmt_pk_fail(m, AFMT_E_CONSTRAINT, "STOP with %" PRIu32 " MARK%s still open (the last at offset %"
                            PRIu64 ")", m->nmarks, m->nmarks == 1 ? "" : "s",
                            m->base + m->marks[2 * m->nmarks - 1]);
    if (m->nstack != 1)
        return afmt_pk_fail(m, AFMT_E_CONSTRAINT, "STOP with %" PRIu32 " values on the stack: a pickle leaves "
                            "exactly one", m->nstack);
    m->root = m->stack[0];
    r = &m->values[m->root];
    switch ((pk_kind)r->kind) {
    case PK_DICT: bit = AFMT_PK_ROOT_DICT; break;
    case PK_LIST: bit = AFMT_PK_ROOT_LIST; break;
    case PK_TUPLE: bit = (r->flags & PK_FOREIGN) ? 0 : AFMT_PK_ROOT_TUPLE; break;
    case PK_TENSOR: case PK_WRAP: bit = AFMT_PK_ROOT_TENSOR; break;
    default: break;
    }
    if (!(bit & kinds))
        return afmt_pk_fail(m, AFMT_E_CONSTRAINT, "STOP leaves %s: the result must be %s%s%s%s", 
                            afmt_pk_what(m, m->root, w, sizeof w),
                            kinds & AFMT_PK_ROOT_DICT ? "a dict " : "", kinds & AFMT_PK_ROOT_LIST ? "a list " : "",
                            kinds & AFMT_PK_ROOT_TUPLE ? "a tuple " : "", kinds & AFMT_PK_ROOT_TENSOR ? "a tensor" : "");
    close_value(m, m->root);
    return 0;
}

int afmt_pk_step(pk_machine *m, const uint8_t *arg, uint64_t arglen)
{
    switch (m->code) {
    case AFMT_PK_OP_PROTO: return op_proto(m, arg[0]);
    case AFMT_PK_OP_STOP: return op_stop(m);
    case AFMT_PK_OP_MARK:
        if (m->nmarks >= m->cap_marks)
            return afmt_pk_fail(m, AFMT_E_LIMIT, "more MARKs than the census counted (%" PRIu32 ")", m->nmarks);
        m->marks[2 * m->nmarks] = m->nstack;
        m->marks[2 * m->nmarks + 1] = (uint32_t)m->pos;
        m->nmarks++;
        return 0;
    case AFMT_PK_OP_EMPTY_DICT: case AFMT_PK_OP_EMPTY_LIST: {
        uint32_t v;
        if (push_new(m, m->code == AFMT_PK_OP_EMPTY_DICT ? PK_DICT : PK_LIST, &v) != 0) return -1;
        m->values[v].flags |= PK_OPEN;
        expect_put(m, v);
        return 0;
    }
    case AFMT_PK_OP_EMPTY_TUPLE: return push_new(m, PK_TUPLE, NULL);
    case AFMT_PK_OP_NONE: return push_new(m, PK_NONE, NULL);
    case AFMT_PK_OP_NEWTRUE: case AFMT_PK_OP_NEWFALSE: {
        uint32_t v;
        if (push_new(m, PK_BOOL, &v) != 0) return -1;
        m->values[v].u.i = m->code == AFMT_PK_OP_NEWTRUE;
        return 0;
    }
    case AFMT_PK_OP_BININT1: case AFMT_PK_OP_BININT2: case AFMT_PK_OP_BININT: case AFMT_PK_OP_LONG1:
        return op_int(m, arg);
    case AFMT_PK_OP_BINFLOAT: {
        uint64_t bits = afmt_load_u64be(arg);
        uint32_t v;
        if (push_new(m, PK_FLOAT, &v) != 0) return -1;
        memcpy(&m->values[v].u.f, &bits, sizeof bits);
        return 0;
    }
    case AFMT_PK_OP_BINUNICODE: return op_str(m, (uint64_t)(arg + 4 - m->p), arglen - 4);
    case AFMT_PK_OP_TUPLE: return op_tuple(m, PK_NIL);
    case AFMT_PK_OP_TUPLE1: return op_tuple(m, 1);
    case AFMT_PK_OP_TUPLE2: return op_tuple(m, 2);
    case AFMT_PK_OP_TUPLE3: return op_tuple(m, 3);
    case AFMT_PK_OP_SETITEM: return fill(m, PK_DICT, 0);
    case AFMT_PK_OP_SETITEMS: return fill(m, PK_DICT, 1);
    case AFMT_PK_OP_APPEND: return fill(m, PK_LIST, 0);
    case AFMT_PK_OP_APPENDS: return fill(m, PK_LIST, 1);
    case AFMT_PK_OP_BINPUT: return op_put(m, arg[0]);
    case AFMT_PK_OP_LONG_BINPUT: return op_put(m, afmt_load_u32le(arg));
    case AFMT_PK_OP_BINGET: return op_get(m, arg[0]);
    case AFMT_PK_OP_LONG_BINGET: return op_get(m, afmt_load_u32le(arg));
    case AFMT_PK_OP_GLOBAL: return afmt_pk_op_global(m, (uint64_t)(arg - m->p), arglen);
    case AFMT_PK_OP_REDUCE: return afmt_pk_op_reduce(m);
    case AFMT_PK_OP_BINPERSID: return afmt_pk_op_binpersid(m);
    case AFMT_PK_OP_BUILD: return afmt_pk_op_build(m);
    default: {
        char nb[8];
        return afmt_pk_fail(m, AFMT_E_UNSUPPORTED, "%s is allowed by the description but not run by afmt's "
                            "pickle machine", afmt_pk_op_name(m->code, nb));
    }
    }
}
