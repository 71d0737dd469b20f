/* afmt runtime: the pickle machine.  See afmt_pickle.h.
 *
 * The machine runs a pickle the way CPython's Unpickler does (Lib/pickle.py
 * is the reference for each opcode's meaning), with three differences: it
 * calls and imports nothing (GLOBAL looks its names up in the description's
 * allowlist, REDUCE builds what the entry's role says), it refuses anything
 * a conforming writer would not produce instead of tolerating it, and it
 * sizes everything before it starts: a first pass (census) counts the
 * opcodes that make values, push entries, open MARKs, put memo slots and
 * name storages, and one block holds all of that.  This file holds the
 * entry point, the census and the loop; the opcodes are in
 * afmt_pickle_ops.c (plain values, containers, the memo) and
 * afmt_pickle_reduce.c (GLOBAL, REDUCE, BINPERSID, BUILD).
 */
#include "afmt_pickle_machine.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/afmt_bytes.h"
#include "../common/afmt_options.h"

/* ------------------------------------------------------------ census */

typedef struct pk_census {
    uint64_t values, pushes, marks, puts, refs;
} pk_census;

/* Bytes the opcode at pos takes with its argument (pos < len); 0 when its
 * argument is cut short, OP_UNKNOWN when the byte is not one the machine
 * runs. */
#define OP_UNKNOWN UINT64_MAX

static uint64_t op_span(const uint8_t *p, uint64_t len, uint64_t pos)
{
    const uint64_t rest = len - pos;
    const uint8_t *nl1, *nl2;
    uint64_t n;

    switch (p[pos]) {
    case AFMT_PK_OP_MARK: case AFMT_PK_OP_STOP: case AFMT_PK_OP_EMPTY_TUPLE: case AFMT_PK_OP_EMPTY_LIST:
    case AFMT_PK_OP_EMPTY_DICT: case AFMT_PK_OP_NONE: case AFMT_PK_OP_NEWTRUE: case AFMT_PK_OP_NEWFALSE:
    case AFMT_PK_OP_TUPLE: case AFMT_PK_OP_TUPLE1: case AFMT_PK_OP_TUPLE2: case AFMT_PK_OP_TUPLE3:
    case AFMT_PK_OP_SETITEM: case AFMT_PK_OP_SETITEMS: case AFMT_PK_OP_APPEND: case AFMT_PK_OP_APPENDS:
    case AFMT_PK_OP_REDUCE: case AFMT_PK_OP_BUILD: case AFMT_PK_OP_BINPERSID:
        return 1;
    case AFMT_PK_OP_BINPUT: case AFMT_PK_OP_BINGET: case AFMT_PK_OP_BININT1: case AFMT_PK_OP_PROTO:
        return rest >= 2 ? 2 : 0;
    case AFMT_PK_OP_BININT2:
        return rest >= 3 ? 3 : 0;
    case AFMT_PK_OP_LONG_BINPUT: case AFMT_PK_OP_LONG_BINGET: case AFMT_PK_OP_BININT:
        return rest >= 5 ? 5 : 0;
    case AFMT_PK_OP_BINFLOAT:
        return rest >= 9 ? 9 : 0;
    case AFMT_PK_OP_LONG1:
        return rest >= 2 && rest - 2 >= p[pos + 1] ? 2 + (uint64_t)p[pos + 1] : 0;
    case AFMT_PK_OP_BINUNICODE:
        if (rest < 5) return 0;
        n = afmt_load_u32le(p + pos + 1);
        return rest - 5 >= n ? 5 + n : 0;
    case AFMT_PK_OP_GLOBAL:
        /* two lines, "module\n" and "name\n", as readline() reads them */
        nl1 = rest > 1 ? memchr(p + pos + 1, '\n', (size_t)(rest - 1)) : NULL;
        if (!nl1) return 0;
        n = (uint64_t)(nl1 - p) + 1; /* where the name starts */
        nl2 = n < len ? memchr(p + n, '\n', (size_t)(len - n)) : NULL;
        return nl2 ? (uint64_t)(nl2 - p) + 1 - pos : 0;
    default:
        return OP_UNKNOWN;
    }
}

/* Count what running p[0..len) can make, up to its STOP or the first
 * opcode that cannot be sized (where the machine stops as well). */
static void census(const uint8_t *p, uint64_t len, pk_census *c)
{
    uint64_t pos = 0;
    memset(c, 0, sizeof *c);
    while (pos < len) {
        const uint64_t span = op_span(p, len, pos);
        if (span == 0 || span == OP_UNKNOWN) return;
        switch (p[pos]) {
        case AFMT_PK_OP_STOP: return;
        case AFMT_PK_OP_MARK: c->marks++; break;
        case AFMT_PK_OP_BINPUT: case AFMT_PK_OP_LONG_BINPUT: c->puts++; break;
        case AFMT_PK_OP_BINGET: case AFMT_PK_OP_LONG_BINGET: c->pushes++; break;
        case AFMT_PK_OP_PROTO: case AFMT_PK_OP_SETITEM: case AFMT_PK_OP_SETITEMS: case AFMT_PK_OP_APPEND:
        case AFMT_PK_OP_APPENDS: case AFMT_PK_OP_BUILD:
            break;
        case AFMT_PK_OP_BINPERSID: c->refs++; c->values++; c->pushes++; break;
        default: c->values++; c->pushes++; break;
        }
        pos += span;
    }
}

/* Bytes of count entries of size, added to *total at a multiple of 8;
 * 0 on overflow. */
static int block_part(uint64_t *total, uint64_t count, uint64_t size, uint64_t *at)
{
    uint64_t bytes, start;
    if (afmt_checked_roundup_u64(*total, 8, &start) || afmt_checked_mul_u64(count, size, &bytes) ||
        afmt_checked_add_u64(start, bytes, total))
        return 0;
    *at = start;
    return 1;
}

/* Size the machine's arrays from the census (each at least one entry) and
 * allocate them as one block. */
static int machine_alloc(pk_machine *m)
{
    pk_census c;
    uint64_t total = 0, at[7], values;
    uint8_t *b;

    census(m->p, m->len, &c);
    values = c.values < m->max_items ? c.values : m->max_items;
    /* every count is below the pickle's length, itself below UINT32_MAX */
    m->cap_values = (uint32_t)values + 1;
    m->cap_refs = (uint32_t)c.refs + 1;
    m->cap_nodes = (uint32_t)c.pushes + 1;
    m->cap_stack = (uint32_t)c.pushes + 1;
    m->cap_marks = (uint32_t)c.marks + 1;
    m->cap_memo = (uint32_t)c.puts + 1;
    if (!block_part(&total, m->cap_values, sizeof(pk_value), &at[0]) ||
        !block_part(&total, m->cap_refs, sizeof(pk_ref), &at[1]) ||
        !block_part(&total, m->cap_refs, sizeof(pk_storage), &at[2]) ||
        !block_part(&total, m->cap_nodes, sizeof(pk_node), &at[3]) ||
        !block_part(&total, m->cap_stack, sizeof(uint32_t), &at[4]) ||
        !block_part(&total, m->cap_marks, 2 * sizeof(uint32_t), &at[5]) ||
        !block_part(&total, m->cap_memo, sizeof(uint32_t), &at[6]) || total > SIZE_MAX)
        return afmt_fail(m->err, AFMT_E_NOMEM, m->path, m->d->name, AFMT_NO_INDEX, m->base,
                         "the machine's memory for a pickle of %" PRIu64 " bytes overflows", m->len);
    b = malloc((size_t)total);
    if (!b)
        return afmt_fail(m->err, AFMT_E_NOMEM, m->path, m->d->name, AFMT_NO_INDEX, m->base,
                         "cannot allocate %" PRIu64 " bytes for a pickle of %" PRIu64 " bytes", total, m->len);
    m->block = b;
    m->values = (pk_value *)(void *)(b + at[0]);
    m->refs = (pk_ref *)(void *)(b + at[1]);
    m->storages = (pk_storage *)(void *)(b + at[2]);
    m->nodes = (pk_node *)(void *)(b + at[3]);
    m->stack = (uint32_t *)(void *)(b + at[4]);
    m->marks = (uint32_t *)(void *)(b + at[5]);
    m->memo = (uint32_t *)(void *)(b + at[6]);
    return 0;
}

/* The opcode at m->pos cannot be sized: a byte the machine does not run
 * (which the description allows) or a cut argument. */
static int fail_span(pk_machine *m)
{
    char nb[8];
    const char *op = afmt_pk_op_name(m->code, nb);
    const uint64_t rest = m->len - m->pos - 1;

    if (op_span(m->p, m->len, m->pos) == OP_UNKNOWN)
        return afmt_pk_fail(m, AFMT_E_UNSUPPORTED, "%s is allowed by the description but not run by afmt's "
                            "pickle machine", op);
    if (m->code == AFMT_PK_OP_BINUNICODE && rest >= 4)
        return afmt_pk_fail(m, AFMT_E_TRUNCATED, "BINUNICODE of %" PRIu32 " bytes: %" PRIu64 " remain",
                            afmt_load_u32le(m->p + m->pos + 1), rest - 4);
    if (m->code == AFMT_PK_OP_LONG1 && rest >= 1)
        return afmt_pk_fail(m, AFMT_E_TRUNCATED, "LONG1 of %u bytes: %" PRIu64 " remain", m->p[m->pos + 1],
                            rest - 1);
    if (m->code == AFMT_PK_OP_GLOBAL)
        return afmt_pk_fail(m, AFMT_E_TRUNCATED, "GLOBAL without its two lines ('module\\nname\\n'): the pickle "
                            "ends %" PRIu64 " bytes after it", rest);
    return afmt_pk_fail(m, AFMT_E_TRUNCATED, "the pickle ends inside %s's argument (%" PRIu64 " byte%s left)", op,
                        rest, rest == 1 ? "" : "s");
}

static int run(pk_machine *m)
{
    uint64_t pos = 0;
    char nb[8], w[200];
    for (;;) {
        uint64_t span;
        if (pos >= m->len)
            return afmt_fail(m->err, AFMT_E_TRUNCATED, m->path, m->d->name, AFMT_NO_INDEX, m->base + pos,
                             "the pickle ends after %" PRIu32 " opcodes without STOP", m->op);
        m->pos = pos;
        m->code = m->p[pos];
        if (m->op == 0 && m->code != AFMT_PK_OP_PROTO)
            return afmt_pk_fail(m, AFMT_E_MAGIC, "the pickle starts with %s, not PROTO %u",
                                afmt_pk_op_name(m->code, nb), m->d->protocol_min);
        if (!m->d->ops[m->code])
            return afmt_pk_fail(m, AFMT_E_CONSTRAINT, "opcode %s (0x%02x) is not allowed in %s",
                                afmt_pk_op_name(m->code, nb), m->code, m->d->name);
        span = op_span(m->p, m->len, pos);
        if (span == 0 || span == OP_UNKNOWN)
            return fail_span(m);
        if (m->pending != PK_NIL && m->code != AFMT_PK_OP_BINPUT && m->code != AFMT_PK_OP_LONG_BINPUT)
            return afmt_pk_fail(m, AFMT_E_CONSTRAINT, "%s is not put in the memo: the pickler puts each str, GLOBAL, "
                                "dict, list, non-empty tuple and REDUCE result at once (BINPUT %" PRIu32
                                " expected, found %s)", afmt_pk_what(m, m->pending, w, sizeof w), m->nmemo,
                                afmt_pk_op_name(m->code, nb));
        if (afmt_pk_step(m, m->p + pos + 1, span - 1) != 0)
            return -1;
        pos += span;
        if (m->code == AFMT_PK_OP_STOP)
            break;
        m->op++;
    }
    if (pos != m->len)
        return afmt_fail(m->err, AFMT_E_TRAILING, m->path, m->d->name, AFMT_NO_INDEX, m->base + pos,
                         "%" PRIu64 " bytes after STOP (op %" PRIu32 " at offset %" PRIu64 ")", m->len - pos, m->op,
                         m->base + m->pos);
    return 0;
}

int afmt_pickle_member(const void *desc, const uint8_t *bytes, uint64_t len, uint64_t base,
                       afmt_ar_resolve_fn resolve, void *resolve_ctx, const afmt_options *opt,
                       const afmt_visitor *vis, const afmt_path *path, afmt_error *err)
{
    const afmt_pickle_desc *d = desc;
    afmt_options defaults;
    pk_machine m;
    int rc;

    if (!d || !d->name || (!bytes && len))
        return afmt_fail(err, AFMT_E_USAGE, path, NULL, AFMT_NO_INDEX, AFMT_NO_OFFSET,
                         "afmt_pickle_member: no description or no bytes");
    if (!opt) {
        afmt_options_default(&defaults);
        opt = &defaults;
    }
    if (len > UINT32_MAX - 2)
        return afmt_fail(err, AFMT_E_LIMIT, path, d->name, AFMT_NO_INDEX, base,
                         "a pickle of %" PRIu64 " bytes: at most 4 GiB - 2 bytes are read", len);
    memset(&m, 0, sizeof m);
    m.d = d;
    m.p = bytes;
    m.len = len;
    m.base = base;
    m.opt = opt;
    m.vis = vis;
    m.path = path;
    m.err = err;
    m.depth_cap = opt->limits.max_depth == 0 || opt->limits.max_depth > 32 ? 32u : (unsigned)opt->limits.max_depth;
    m.max_items = opt->limits.max_items;
    m.max_rank = opt->limits.max_rank < AFMT_RANK_CAP ? (uint32_t)opt->limits.max_rank : AFMT_RANK_CAP;
    m.pending = PK_NIL;
    m.root = PK_NIL;
    if (machine_alloc(&m) != 0)
        return -1;
    rc = run(&m);
    if (rc == 0)
        rc = afmt_pk_check_result(&m, resolve, resolve_ctx);
    if (rc == 0)
        rc = afmt_pk_walk(&m);
    free(m.block);
    return rc;
}
