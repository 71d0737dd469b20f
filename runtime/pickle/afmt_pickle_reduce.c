/* afmt runtime: the pickle machine's GLOBAL, REDUCE, BINPERSID and BUILD.
 * See afmt_pickle.h.
 *
 * These are the opcodes through which a pickle runs code: GLOBAL imports,
 * REDUCE calls, BINPERSID hands an id to the loader's persistent_load and
 * BUILD calls __setstate__ or sets attributes.  Here GLOBAL only finds its
 * two lines in the description's allowlist, REDUCE builds what the entry's
 * role says from arguments of exactly the listed kinds, BINPERSID checks
 * the id's shape and records a storage reference, and BUILD attaches a
 * plain state dict to a mapping.  Nothing the file names is ever looked up
 * anywhere else.
 */
#include "afmt_pickle_machine.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "../common/afmt_bytes.h"

/* The most arguments an allowlisted REDUCE may take (torch's: 6). */
#define PK_MAX_ARGS 16

static int name_eq(const char *name, const uint8_t *p, uint64_t n)
{
    return strlen(name) == n && memcmp(name, p, (size_t)n) == 0;
}

/* "collections OrderedDict, torch._utils _rebuild_tensor_v2, ..." (cut
 * after the last entry that fits, with ", ...") */
static void allowlist_text(const afmt_pickle_desc *d, char *out, size_t size)
{
    size_t i, o = 0;
    out[0] = '\0';
    for (i = 0; i < d->nglobals; i++) {
        const afmt_pk_global *g = &d->globals[i];
        char one[160];
        size_t n;
        if (g->role == AFMT_PK_ROLE_REFUSE) continue;
        snprintf(one, sizeof one, "%s%s %s", o ? ", " : "", g->module, g->name);
        n = strlen(one);
        if (o + n + sizeof ", ..." > size) {
            if (o + sizeof ", ..." <= size) memcpy(out + o, ", ...", sizeof ", ...");
            return;
        }
        memcpy(out + o, one, n + 1);
        o += n;
    }
}

int afmt_pk_op_global(pk_machine *m, uint64_t arg, uint64_t arglen)
{
    const afmt_pickle_desc *d = m->d;
    const uint8_t *s = m->p + arg;
    /* op_span found both newlines: "module\nname\n" */
    const uint8_t *nl = memchr(s, '\n', (size_t)arglen);
    const uint64_t mlen = (uint64_t)(nl - s), nlen = arglen - mlen - 2;
    const uint8_t *name = nl + 1;
    size_t i;
    uint32_t v;

    for (i = 0; i < d->nglobals; i++)
        if (name_eq(d->globals[i].module, s, mlen) && name_eq(d->globals[i].name, name, nlen))
            break;
    if (i == d->nglobals) {
        char mq[80], nq[80], list[200];
        afmt_pk_quote(s, mlen, mq, sizeof mq);
        afmt_pk_quote(name, nlen, nq, sizeof nq);
        allowlist_text(d, list, sizeof list);
        /* 'posix' 'system' reads as one GLOBAL: module and name unquoted inside one pair */
        mq[strlen(mq) - 1] = '\0';
        return afmt_pk_fail(m, AFMT_E_CONSTRAINT, "GLOBAL %s %s is not allowed: the allowlist is %s", mq, nq + 1,
                            list);
    }
    if (d->globals[i].role == AFMT_PK_ROLE_REFUSE) {
        char gt[160];
        afmt_pk_global_text(&d->globals[i], gt, sizeof gt);
        return afmt_pk_fail(m, AFMT_E_UNSUPPORTED, "GLOBAL '%s' is refused: %s", gt,
                            d->globals[i].refuse ? d->globals[i].refuse : "not supported");
    }
    v = afmt_pk_new(m, PK_GLOBAL);
    if (v == PK_NIL || afmt_pk_push(m, v) != 0) return -1;
    m->values[v].u.global = (uint32_t)i;
    m->values[v].flags |= PK_FOREIGN;
    if (d->memo_in_order) m->pending = v;
    return 0;
}

/* ------------------------------------------------------------ REDUCE */

static const char *arg_words(afmt_pk_arg a)
{
    switch (a) {
    case AFMT_PK_ARG_UINT: return "an int >= 0";
    case AFMT_PK_ARG_BOOL: return "a bool";
    case AFMT_PK_ARG_UINT_TUPLE: return "a tuple of ints >= 0";
    case AFMT_PK_ARG_STORAGE: return "a storage reference (BINPERSID)";
    case AFMT_PK_ARG_EMPTY_DICT: return "an empty mapping made by REDUCE";
    case AFMT_PK_ARG_TENSOR: return "a tensor";
    case AFMT_PK_ARG_PLAIN: return "a plain value (no tensor, GLOBAL or storage inside)";
    }
    return "?";
}

static int is_uint(const pk_value *v)
{
    return v->kind == PK_INT && v->u.i >= 0;
}

/* PK_NIL when v is what a wants, else the value to blame (v or an item). */
static uint32_t arg_misfit(const pk_machine *m, afmt_pk_arg a, uint32_t vi)
{
    const pk_value *v = &m->values[vi];
    switch (a) {
    case AFMT_PK_ARG_UINT: return is_uint(v) ? PK_NIL : vi;
    case AFMT_PK_ARG_BOOL: return v->kind == PK_BOOL ? PK_NIL : vi;
    case AFMT_PK_ARG_UINT_TUPLE: {
        uint32_t n;
        if (v->kind != PK_TUPLE) return vi;
        for (n = v->u.box.head; n != PK_NIL; n = m->nodes[n].next)
            if (!is_uint(&m->values[m->nodes[n].value])) return m->nodes[n].value;
        return PK_NIL;
    }
    case AFMT_PK_ARG_STORAGE: return v->kind == PK_STORAGE ? PK_NIL : vi;
    case AFMT_PK_ARG_EMPTY_DICT:
        return v->kind == PK_DICT && (v->flags & PK_REDUCED) && v->u.box.count == 0 && !(v->flags & PK_BUILT)
                   ? PK_NIL : vi;
    case AFMT_PK_ARG_TENSOR: return v->kind == PK_TENSOR ? PK_NIL : vi;
    case AFMT_PK_ARG_PLAIN: return (v->flags & (PK_TENSORS | PK_FOREIGN)) ? vi : PK_NIL;
    }
    return vi;
}

/* "(2, 3)" of a tuple of ints. */
static void tuple_text(const pk_machine *m, uint32_t t, char *out, size_t size)
{
    uint32_t n;
    size_t o = 0;
    int k = snprintf(out, size, "(");
    o = k > 0 ? (size_t)k : 0;
    for (n = m->values[t].u.box.head; n != PK_NIL && o < size; n = m->nodes[n].next) {
        k = snprintf(out + o, size - o, "%s%" PRId64, n == m->values[t].u.box.head ? "" : ", ",
                     m->values[m->nodes[n].value].u.i);
        o = k > 0 && (size_t)k < size - o ? o + (size_t)k : size;
    }
    if (o + 1 < size) snprintf(out + o, size - o, m->values[t].u.box.count == 1 ? ",)" : ")");
}

static int desc_fault(pk_machine *m, const afmt_pk_global *g, const char *what)
{
    return afmt_pk_fail(m, AFMT_E_USAGE, "the description's entry %s %s %s", g->module, g->name, what);
}

static int arg_at(const afmt_pk_global *g, int k, afmt_pk_arg want)
{
    return k >= 0 && (size_t)k < g->nargs && g->args[k] == want;
}

typedef enum view_fault {
    VIEW_OK, VIEW_RANKS, VIEW_EMPTY_PAST, VIEW_COUNT_OVERFLOW, VIEW_LAST_OVERFLOW, VIEW_PAST
} view_fault;

/* Refuse a view (rendering its shape and strides only now: a valid view
 * costs no formatting). */
static int fail_view(pk_machine *m, view_fault fault, uint32_t shape, uint32_t stride, uint64_t first, uint64_t last,
                     uint64_t numel)
{
    char st[96], tt[96];
    tuple_text(m, shape, st, sizeof st);
    tuple_text(m, stride, tt, sizeof tt);
    switch (fault) {
    case VIEW_RANKS:
        return afmt_pk_fail(m, AFMT_E_CONSTRAINT, "a view of shape %s has strides %s: one stride per dimension", st,
                            tt);
    case VIEW_EMPTY_PAST:
        return afmt_pk_fail(m, AFMT_E_SIZE, "an empty view of shape %s at element %" PRIu64 " of a storage of %" PRIu64
                            " elements", st, first, numel);
    case VIEW_COUNT_OVERFLOW:
        return afmt_pk_fail(m, AFMT_E_OVERFLOW, "the element count of shape %s overflows 63 bits (readers multiply "
                            "the sizes in order, before any zero size)", st);
    case VIEW_LAST_OVERFLOW:
        return afmt_pk_fail(m, AFMT_E_OVERFLOW, "the last element of the view of shape %s, strides %s at element %"
                            PRIu64 " overflows 64 bits", st, tt, first);
    default:
        return afmt_pk_fail(m, AFMT_E_SIZE, "the view of shape %s, strides %s at element %" PRIu64 " ends at element %"
                            PRIu64 ", past its storage's %" PRIu64 " elements", st, tt, first, last, numel);
    }
}

/* What is wrong with the view of shape and stride (tuples of one rank) at
 * element first of a storage of numel elements: its last element, first +
 * sum((size - 1) * stride), must lie below numel (an empty view: first <=
 * numel), all of it in 64 bits. */
static view_fault check_view(const pk_machine *m, uint32_t shape, uint32_t stride, uint64_t first, uint64_t numel,
                             uint64_t *last)
{
    uint64_t count = 1, extent = 0;
    int zero = 0, count_overflow = 0, extent_overflow = 0;
    uint32_t ns, nt;
    for (ns = m->values[shape].u.box.head, nt = m->values[stride].u.box.head; ns != PK_NIL;
         ns = m->nodes[ns].next, nt = m->nodes[nt].next) {
        const uint64_t size = (uint64_t)m->values[m->nodes[ns].value].u.i;
        const uint64_t step = (uint64_t)m->values[m->nodes[nt].value].u.i;
        uint64_t span;
        if (size == 0) zero = 1;
        if (afmt_checked_mul_u64(count, size, &count) || count > (uint64_t)INT64_MAX) count_overflow = 1;
        if (size && (afmt_checked_mul_u64(size - 1, step, &span) || afmt_checked_add_u64(extent, span, &extent)))
            extent_overflow = 1;
    }
    *last = 0;
    /* multiplied in order, as torch's numel does: a product that passes
     * int64 before a zero size is refused by torch.load, so no file
     * torch.save wrote has one */
    if (count_overflow) return VIEW_COUNT_OVERFLOW;
    if (zero) /* no element */
        return first > numel ? VIEW_EMPTY_PAST : VIEW_OK;
    if (extent_overflow || afmt_checked_add_u64(first, extent, last)) return VIEW_LAST_OVERFLOW;
    return *last >= numel ? VIEW_PAST : VIEW_OK;
}

/* The view a ROLE_TENSOR REDUCE makes from its arguments, checked against
 * its storage's element count. */
static int make_tensor(pk_machine *m, uint32_t gi, const uint32_t *argv, uint32_t *out)
{
    const afmt_pk_global *g = &m->d->globals[gi];
    uint32_t ref, shape, stride, rank, v;
    uint64_t first, last;
    view_fault fault;

    if (!arg_at(g, g->arg_storage, AFMT_PK_ARG_STORAGE) || !arg_at(g, g->arg_offset, AFMT_PK_ARG_UINT) ||
        !arg_at(g, g->arg_shape, AFMT_PK_ARG_UINT_TUPLE) || !arg_at(g, g->arg_stride, AFMT_PK_ARG_UINT_TUPLE))
        return desc_fault(m, g, "names no storage, offset, shape and stride arguments of those kinds");
    ref = m->values[argv[g->arg_storage]].u.ref;
    first = (uint64_t)m->values[argv[g->arg_offset]].u.i;
    shape = argv[g->arg_shape];
    stride = argv[g->arg_stride];
    rank = m->values[shape].u.box.count;
    if (m->values[stride].u.box.count != rank)
        return fail_view(m, VIEW_RANKS, shape, stride, first, 0, m->refs[ref].count);
    if (rank > m->max_rank)
        return afmt_pk_fail(m, AFMT_E_LIMIT, "a view of rank %" PRIu32 " (limits.max_rank is %" PRIu32 ")", rank,
                            m->max_rank);
    fault = check_view(m, shape, stride, first, m->refs[ref].count, &last);
    if (fault != VIEW_OK)
        return fail_view(m, fault, shape, stride, first, last, m->refs[ref].count);
    v = afmt_pk_new(m, PK_TENSOR);
    if (v == PK_NIL) return -1;
    m->values[v].flags |= PK_TENSORS;
    m->values[v].u.tensor.first = first;
    m->values[v].u.tensor.ref = ref;
    m->values[v].u.tensor.shape = shape;
    m->values[v].u.tensor.stride = stride;
    m->values[v].u.tensor.global = gi;
    *out = v;
    return 0;
}

static int make_wrap(pk_machine *m, uint32_t gi, const uint32_t *argv, uint32_t *out)
{
    const afmt_pk_global *g = &m->d->globals[gi];
    size_t k;
    uint32_t v;
    for (k = 0; k < g->nargs && g->args[k] != AFMT_PK_ARG_TENSOR; k++) {}
    if (k == g->nargs)
        return desc_fault(m, g, "marks no tensor argument");
    v = afmt_pk_new(m, PK_WRAP);
    if (v == PK_NIL) return -1;
    m->values[v].flags |= PK_TENSORS;
    m->values[v].u.wrap.tensor = argv[k];
    m->values[v].u.wrap.global = gi;
    *out = v;
    return 0;
}

/* REDUCE's arguments args (a tuple) against what g takes: argv[] gets
 * them. */
static int check_args(pk_machine *m, const afmt_pk_global *g, uint32_t args, uint32_t *argv)
{
    char w[200];
    uint32_t n;
    size_t k;
    if (m->values[args].kind != PK_TUPLE)
        return afmt_pk_fail(m, AFMT_E_CONSTRAINT, "REDUCE of '%s %s' with %s as its arguments: a tuple of %zu is "
                            "expected", g->module, g->name, afmt_pk_what(m, args, w, sizeof w), g->nargs);
    if (m->values[args].u.box.count != g->nargs)
        return afmt_pk_fail(m, AFMT_E_CONSTRAINT, "REDUCE of '%s %s' with %" PRIu32 " argument%s: it takes %zu",
                            g->module, g->name, m->values[args].u.box.count,
                            m->values[args].u.box.count == 1 ? "" : "s", g->nargs);
    for (k = 0, n = m->values[args].u.box.head; k < g->nargs; k++, n = m->nodes[n].next) {
        const uint32_t bad = arg_misfit(m, g->args[k], m->nodes[n].value);
        argv[k] = m->nodes[n].value;
        if (bad != PK_NIL)
            return afmt_pk_fail(m, AFMT_E_CONSTRAINT, "REDUCE of '%s %s': argument %zu of %zu must be %s, found %s%s",
                                g->module, g->name, k + 1, g->nargs, arg_words(g->args[k]),
                                bad == argv[k] ? "" : "a tuple holding ", afmt_pk_what(m, bad, w, sizeof w));
    }
    return 0;
}

int afmt_pk_op_reduce(pk_machine *m)
{
    uint32_t args, fn, argv[PK_MAX_ARGS], v = PK_NIL;
    const afmt_pk_global *g;
    char w[200];

    if (afmt_pk_pop(m, &args) != 0 || afmt_pk_pop(m, &fn) != 0) return -1;
    if (m->values[fn].kind != PK_GLOBAL)
        return afmt_pk_fail(m, AFMT_E_CONSTRAINT, "REDUCE calls %s: only an allowlisted GLOBAL is called",
                            afmt_pk_what(m, fn, w, sizeof w));
    g = &m->d->globals[m->values[fn].u.global];
    if (g->role == AFMT_PK_ROLE_CLASS)
        return afmt_pk_fail(m, AFMT_E_CONSTRAINT, "REDUCE calls '%s %s', a class that names an element type: it is "
                            "never called (old loaders made storages of sizes from the file)", g->module, g->name);
    if (g->nargs > PK_MAX_ARGS) return desc_fault(m, g, "takes more than 16 arguments");
    if (check_args(m, g, args, argv) != 0) return -1;
    switch (g->role) {
    case AFMT_PK_ROLE_DICT:
        v = afmt_pk_new(m, PK_DICT);
        if (v == PK_NIL) return -1;
        m->values[v].flags |= PK_OPEN | PK_REDUCED;
        break;
    case AFMT_PK_ROLE_TENSOR:
        if (make_tensor(m, m->values[fn].u.global, argv, &v) != 0) return -1;
        break;
    case AFMT_PK_ROLE_WRAP:
        if (make_wrap(m, m->values[fn].u.global, argv, &v) != 0) return -1;
        break;
    default:
        return desc_fault(m, g, "has no role REDUCE can carry out");
    }
    if (afmt_pk_push(m, v) != 0) return -1;
    if (m->d->memo_in_order) m->pending = v;
    return 0;
}

/* ------------------------------------------------------------ BINPERSID */

static int str_is(const pk_machine *m, uint32_t v, const char *text)
{
    const pk_value *s = &m->values[v];
    return s->kind == PK_STR && name_eq(text, m->p + s->u.str.at, s->u.str.len);
}

/* Does p[0..n) read as pattern (literal text, "{n}" standing for a decimal
 * number without leading zeros)? */
static int location_fits(const char *pattern, const uint8_t *p, uint64_t n)
{
    uint64_t i = 0;
    while (*pattern) {
        if (strncmp(pattern, "{n}", 3) == 0) {
            const uint64_t start = i;
            while (i < n && p[i] >= '0' && p[i] <= '9') i++;
            if (i == start || (p[start] == '0' && i - start > 1)) return 0;
            pattern += 3;
        } else {
            if (i >= n || p[i] != (uint8_t)*pattern) return 0;
            i++;
            pattern++;
        }
    }
    return i == n;
}

/* The storage index a decimal key without leading zeros names, or -1. */
static int64_t key_number(const uint8_t *p, uint64_t n)
{
    uint64_t i, v = 0;
    if (n == 0 || n > 10 || (p[0] == '0' && n > 1)) return -1;
    for (i = 0; i < n; i++) {
        if (p[i] < '0' || p[i] > '9') return -1;
        v = v * 10 + (uint64_t)(p[i] - '0');
    }
    return v < PK_NIL ? (int64_t)v : -1;
}

int afmt_pk_same_storage(pk_machine *m, uint32_t first, uint32_t ref)
{
    const pk_ref *a = &m->refs[first], *b = &m->refs[ref];
    const pk_value *ka = &m->values[a->key];
    char key[80];
    afmt_pk_quote(m->p + ka->u.str.at, ka->u.str.len, key, sizeof key);
    if (a->global != b->global)
        return afmt_pk_fail_op(m, AFMT_E_CONSTRAINT, b->op, b->at, "storage %s is a %s here but a %s at its first "
                               "use (op %" PRIu32 " at offset %" PRIu64 ")", key, m->d->globals[b->global].name,
                               m->d->globals[a->global].name, a->op, m->base + a->at);
    if (a->count != b->count)
        return afmt_pk_fail_op(m, AFMT_E_CONSTRAINT, b->op, b->at, "storage %s holds %" PRIu64 " elements here but %"
                               PRIu64 " at its first use (op %" PRIu32 " at offset %" PRIu64 ")", key, b->count,
                               a->count, a->op, m->base + a->at);
    if ((a->location == PK_NIL) != (b->location == PK_NIL) ||
        (a->location != PK_NIL &&
         (m->values[a->location].u.str.len != m->values[b->location].u.str.len ||
          memcmp(m->p + m->values[a->location].u.str.at, m->p + m->values[b->location].u.str.at,
                 m->values[a->location].u.str.len) != 0))) {
        char la[48] = "", lb[48] = "";
        if (a->location != PK_NIL)
            afmt_pk_quote(m->p + m->values[a->location].u.str.at, m->values[a->location].u.str.len, la, sizeof la);
        if (b->location != PK_NIL)
            afmt_pk_quote(m->p + m->values[b->location].u.str.at, m->values[b->location].u.str.len, lb, sizeof lb);
        return afmt_pk_fail_op(m, AFMT_E_CONSTRAINT, b->op, b->at, "storage %s is at %s here but at %s at its first "
                               "use (op %" PRIu32 " at offset %" PRIu64 ")", key, lb, la, a->op, m->base + a->at);
    }
    return 0;
}

/* One item of BINPERSID's id against its part of the description. */
static int pid_item(pk_machine *m, const afmt_pk_pid_elem *e, size_t k, uint32_t v, pk_ref *r)
{
    const afmt_pickle_desc *d = m->d;
    const pk_value *x = &m->values[v];
    char w[200];
    const char *want = NULL;
    size_t i;

    switch (e->part) {
    case AFMT_PK_PID_TEXT:
        if (!str_is(m, v, e->text ? e->text : "")) want = e->text;
        break;
    case AFMT_PK_PID_CLASS:
        if (x->kind != PK_GLOBAL || d->globals[x->u.global].role != AFMT_PK_ROLE_CLASS) want = "a storage class";
        else r->global = x->u.global;
        break;
    case AFMT_PK_PID_KEY:
        if (x->kind != PK_STR) { want = "a str (the storage's key)"; break; }
        if (d->key_decimal && key_number(m->p + x->u.str.at, x->u.str.len) < 0) {
            want = "a decimal key without leading zeros";
            break;
        }
        r->key = v;
        break;
    case AFMT_PK_PID_LOCATION:
        if (x->kind == PK_STR)
            for (i = 0; i < e->npatterns; i++)
                if (location_fits(e->patterns[i], m->p + x->u.str.at, x->u.str.len)) break;
        if (x->kind != PK_STR || i == e->npatterns) { want = "a location"; break; }
        r->location = v;
        break;
    case AFMT_PK_PID_COUNT:
        if (!is_uint(x)) want = "an int >= 0 (the element count)";
        else r->count = (uint64_t)x->u.i;
        break;
    }
    if (!want)
        return 0;
    if (e->part == AFMT_PK_PID_TEXT)
        return afmt_pk_fail(m, AFMT_E_CONSTRAINT, "BINPERSID's id item %zu of %zu must be '%s', found %s", k + 1,
                            d->npid, want, afmt_pk_what(m, v, w, sizeof w));
    if (e->part == AFMT_PK_PID_LOCATION) {
        char list[120] = "";
        size_t o = 0;
        for (i = 0; i < e->npatterns && o < sizeof list; i++) {
            int n = snprintf(list + o, sizeof list - o, "%s'%s'", i ? ", " : "", e->patterns[i]);
            o = n > 0 ? o + (size_t)n : o;
        }
        return afmt_pk_fail(m, AFMT_E_CONSTRAINT, "BINPERSID's id item %zu of %zu must be a location (%s), found %s",
                            k + 1, d->npid, list, afmt_pk_what(m, v, w, sizeof w));
    }
    return afmt_pk_fail(m, AFMT_E_CONSTRAINT, "BINPERSID's id item %zu of %zu must be %s, found %s", k + 1, d->npid,
                        want, afmt_pk_what(m, v, w, sizeof w));
}

/* With keys_in_order: key '0', '1', ... names storage 0, 1, ...; a new
 * key is the next number.  Without, storages are grouped after STOP. */
static int place_ref(pk_machine *m, uint32_t ri)
{
    pk_ref *r = &m->refs[ri];
    const pk_value *k = &m->values[r->key];
    int64_t num;
    char key[80];

    r->storage = PK_NIL;
    if (!m->d->keys_in_order) {
        m->values[r->key].flags |= PK_KEYTEXT; /* grouped by text after STOP */
        return 0;
    }
    num = key_number(m->p + k->u.str.at, k->u.str.len);
    if (num >= 0 && (uint64_t)num < m->nstorages) {
        r->storage = (uint32_t)num;
        return afmt_pk_same_storage(m, m->storages[num].ref, ri);
    }
    if (num >= 0 && (uint64_t)num == m->nstorages) {
        r->storage = m->nstorages;
        memset(&m->storages[m->nstorages], 0, sizeof m->storages[0]);
        m->storages[m->nstorages++].ref = ri;
        return 0;
    }
    afmt_pk_quote(m->p + k->u.str.at, k->u.str.len, key, sizeof key);
    return afmt_pk_fail(m, AFMT_E_CONSTRAINT, "storage key %s where key '%" PRIu32 "' is next: new keys are '0', "
                        "'1', ... in order of first use", key, m->nstorages);
}

int afmt_pk_op_binpersid(pk_machine *m)
{
    const afmt_pickle_desc *d = m->d;
    uint32_t pid, n, v, ri;
    pk_ref r;
    size_t k;
    char w[200];
    uint64_t bytes;

    if (d->npid == 0)
        return afmt_pk_fail(m, AFMT_E_CONSTRAINT, "BINPERSID: %s has no persistent ids", d->name);
    if (afmt_pk_pop(m, &pid) != 0) return -1;
    if (m->values[pid].kind != PK_TUPLE || m->values[pid].u.box.count != d->npid)
        return afmt_pk_fail(m, AFMT_E_CONSTRAINT, "BINPERSID of %s: its id is a tuple of %zu",
                            afmt_pk_what(m, pid, w, sizeof w), d->npid);
    memset(&r, 0, sizeof r);
    r.key = r.location = r.global = PK_NIL;
    for (k = 0, n = m->values[pid].u.box.head; k < d->npid; k++, n = m->nodes[n].next)
        if (pid_item(m, &d->pid[k], k, m->nodes[n].value, &r) != 0) return -1;
    if (r.key == PK_NIL || r.global == PK_NIL)
        return afmt_pk_fail(m, AFMT_E_USAGE, "the description's persistent id has no key or no class");
    if (afmt_checked_mul_u64(r.count, afmt_dtype_get(d->globals[r.global].dtype)->size, &bytes))
        return afmt_pk_fail(m, AFMT_E_OVERFLOW, "a storage of %" PRIu64 " %s elements: its size overflows 64 bits",
                            r.count, afmt_dtype_name(d->globals[r.global].dtype));
    if (m->nrefs + 1 >= m->cap_refs)
        return afmt_pk_fail(m, AFMT_E_LIMIT, "more BINPERSIDs than the census counted (%" PRIu32 ")", m->nrefs);
    r.op = m->op;
    r.at = (uint32_t)m->pos;
    ri = m->nrefs++;
    m->refs[ri] = r;
    if (place_ref(m, ri) != 0) return -1;
    v = afmt_pk_new(m, PK_STORAGE);
    if (v == PK_NIL) return -1;
    m->values[v].u.ref = ri;
    m->values[v].flags |= PK_FOREIGN;
    return afmt_pk_push(m, v);
}

/* ------------------------------------------------------------ BUILD */

int afmt_pk_op_build(pk_machine *m)
{
    uint32_t state, target;
    pk_value *t, *s;
    char w[200];

    if (!m->d->build_on_dict)
        return afmt_pk_fail(m, AFMT_E_CONSTRAINT, "BUILD is not allowed in %s", m->d->name);
    if (afmt_pk_pop(m, &state) != 0) return -1;
    if (m->nstack <= afmt_pk_frame_base(m))
        return afmt_pk_fail(m, AFMT_E_CONSTRAINT, "BUILD has no value to build below its state");
    target = m->stack[m->nstack - 1];
    t = &m->values[target];
    s = &m->values[state];
    if (!(t->kind == PK_DICT && (t->flags & PK_REDUCED) && (t->flags & PK_OPEN)))
        return afmt_pk_fail(m, AFMT_E_CONSTRAINT, "BUILD on %s: only a mapping made by REDUCE is built, while it is "
                            "filled", afmt_pk_what(m, target, w, sizeof w));
    if (t->flags & PK_BUILT)
        return afmt_pk_fail(m, AFMT_E_CONSTRAINT, "a second BUILD on %s", afmt_pk_what(m, target, w, sizeof w));
    if (s->kind != PK_DICT || (s->flags & (PK_REDUCED | PK_TENSORS | PK_FOREIGN)))
        return afmt_pk_fail(m, AFMT_E_CONSTRAINT, "BUILD's state is %s: it must be a plain dict holding no tensor",
                            afmt_pk_what(m, state, w, sizeof w));
    t->u.box.state = state;
    t->flags |= PK_BUILT;
    /* the state's keys are walked as the mapping's own: same level */
    if (s->depth > t->depth) t->depth = s->depth;
    t->u.box.weight = t->u.box.weight > UINT64_MAX - s->u.box.weight ? UINT64_MAX
                                                                     : t->u.box.weight + s->u.box.weight;
    return 0;
}
