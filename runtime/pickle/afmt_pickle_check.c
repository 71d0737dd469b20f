/* afmt runtime: what the pickle machine checks after STOP.  See
 * afmt_pickle.h.
 *
 * Rules that compare values with each other wait for the whole result:
 * equal strings are found by one sort of all of them (so that a long key
 * used in many dicts is compared once, not once per dict), then a sort of
 * every dict's keys by (dict, kind, text or number) puts a duplicate next
 * to its first use; storages named without keys_in_order are grouped by
 * their key's text the same way.  Sorting is a bottom-up merge sort: n log
 * n comparisons, no recursion, and the memory of two index arrays.  Of
 * several duplicate keys the one set first in the pickle is reported.
 * Then each storage is resolved once, in order of first use, and its record
 * checked.
 */
#include "afmt_pickle_machine.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../array/afmt_array.h"
#include "../common/afmt_bytes.h"

static int fail_nomem(pk_machine *m, uint64_t n)
{
    return afmt_fail(m->err, AFMT_E_NOMEM, m->path, m->d->name, AFMT_NO_INDEX, m->base,
                     "cannot allocate %" PRIu64 " indexes to check the result", n);
}

/* Two index arrays of n entries in one block, or NULL. */
static uint32_t *alloc_indexes(uint64_t n)
{
    return (n ? malloc((size_t)(2 * n) * sizeof(uint32_t)) : NULL);
}

/* ------------------------------------------------------------ strings */

static int cmp_text(const void *ctx, uint32_t a, uint32_t b)
{
    const pk_machine *m = ctx;
    const pk_value *x = &m->values[a], *y = &m->values[b];
    if (x->u.str.hash != y->u.str.hash) return x->u.str.hash < y->u.str.hash ? -1 : 1;
    if (x->u.str.len != y->u.str.len) return x->u.str.len < y->u.str.len ? -1 : 1;
    return memcmp(m->p + x->u.str.at, m->p + y->u.str.at, x->u.str.len);
}

/* Each str whose text is compared (PK_KEYTEXT) gets as canon the first
 * value of equal text (sorted by hash, length, bytes: any total order
 * groups equal texts); the others need none. */
static int intern_strings(pk_machine *m)
{
    uint32_t i, n = 0, *idx;
    for (i = 0; i < m->nvalues; i++)
        if (m->values[i].kind == PK_STR && (m->values[i].flags & PK_KEYTEXT)) n++;
    if (n == 0) return 0;
    idx = alloc_indexes(n);
    if (!idx) return fail_nomem(m, 2 * (uint64_t)n);
    n = 0;
    for (i = 0; i < m->nvalues; i++)
        if (m->values[i].kind == PK_STR && (m->values[i].flags & PK_KEYTEXT)) idx[n++] = i;
    afmt_pk_sort(idx, idx + n, n, cmp_text, m);
    for (i = 0; i < n; i++)
        m->values[idx[i]].u.str.canon =
            i > 0 && cmp_text(m, idx[i - 1], idx[i]) == 0 ? m->values[idx[i - 1]].u.str.canon : idx[i];
    free(idx);
    return 0;
}

/* ------------------------------------------------------------ dict keys */

typedef struct key_order {
    const pk_machine *m;
    const uint32_t *owner; /* node -> its dict */
} key_order;

static int cmp_key(const void *ctx, uint32_t a, uint32_t b)
{
    const key_order *o = ctx;
    const pk_value *x = &o->m->values[o->m->nodes[a].value], *y = &o->m->values[o->m->nodes[b].value];
    if (o->owner[a] != o->owner[b]) return o->owner[a] < o->owner[b] ? -1 : 1;
    if (x->kind != y->kind) return x->kind < y->kind ? -1 : 1;
    if (x->kind == PK_STR) return x->u.str.canon == y->u.str.canon ? 0 : x->u.str.canon < y->u.str.canon ? -1 : 1;
    return x->u.i == y->u.i ? 0 : x->u.i < y->u.i ? -1 : 1;
}

static int report_duplicate(pk_machine *m, uint32_t dict, uint32_t first, uint32_t again)
{
    const pk_node *a = &m->nodes[first], *b = &m->nodes[again];
    const pk_value *k = &m->values[b->value];
    char key[80], w[200], nb[8];
    if (k->kind == PK_STR) afmt_pk_quote(m->p + k->u.str.at, k->u.str.len, key, sizeof key);
    else snprintf(key, sizeof key, "%" PRId64, k->u.i);
    return afmt_pk_fail_op(m, AFMT_E_CONSTRAINT, b->op, b->at, "duplicate key %s in %s: set first by op %" PRIu32
                           " %s at offset %" PRIu64, key, afmt_pk_what(m, dict, w, sizeof w), a->op,
                           afmt_pk_op_name(m->p[a->at], nb), m->base + a->at);
}

static int unique_keys(pk_machine *m)
{
    uint32_t i, n = 0, *idx, *owner, best = PK_NIL, best_first = PK_NIL;
    key_order order;
    int rc = 0;

    for (i = 0; i < m->nvalues; i++)
        if (m->values[i].kind == PK_DICT) n += m->values[i].u.box.count;
    if (n == 0) return 0;
    idx = alloc_indexes(n);
    owner = malloc((size_t)m->nnodes * sizeof *owner);
    if (!idx || !owner) {
        free(idx);
        free(owner);
        return fail_nomem(m, 2 * (uint64_t)n + m->nnodes);
    }
    n = 0;
    for (i = 0; i < m->nvalues; i++) {
        uint32_t node;
        if (m->values[i].kind != PK_DICT) continue;
        for (node = m->values[i].u.box.head; node != PK_NIL; node = m->nodes[m->nodes[node].next].next) {
            owner[node] = i;
            idx[n++] = node;
        }
    }
    order.m = m;
    order.owner = owner;
    afmt_pk_sort(idx, idx + n, n, cmp_key, &order);
    /* the sort is stable: in a run of one key, the first node is its first use */
    for (i = 1; i < n; i++) {
        if (cmp_key(&order, idx[i - 1], idx[i]) != 0) continue;
        if (best == PK_NIL || idx[i] < best) {
            best = idx[i];
            best_first = idx[i - 1];
        }
        while (i + 1 < n && cmp_key(&order, idx[i], idx[i + 1]) == 0) i++;
    }
    if (best != PK_NIL) rc = report_duplicate(m, owner[best], best_first, best);
    free(idx);
    free(owner);
    return rc;
}

/* ------------------------------------------------------------ storages */

/* Without keys_in_order: storages in order of first use, by key text. */
static int group_storages(pk_machine *m)
{
    uint32_t *by_canon, r;
    if (m->d->keys_in_order || m->nrefs == 0) return 0;
    by_canon = malloc((size_t)m->nvalues * sizeof *by_canon);
    if (!by_canon) return fail_nomem(m, m->nvalues);
    for (r = 0; r < m->nvalues; r++) by_canon[r] = PK_NIL;
    for (r = 0; r < m->nrefs; r++) {
        const uint32_t c = m->values[m->refs[r].key].u.str.canon;
        if (by_canon[c] == PK_NIL) {
            by_canon[c] = m->nstorages;
            memset(&m->storages[m->nstorages], 0, sizeof m->storages[0]);
            m->storages[m->nstorages++].ref = r;
        } else if (afmt_pk_same_storage(m, m->storages[by_canon[c]].ref, r) != 0) {
            free(by_canon);
            return -1;
        }
        m->refs[r].storage = by_canon[c];
    }
    free(by_canon);
    return 0;
}

/* "data.pkl[storage '0']", the field of a storage's errors. */
static void storage_field(const pk_machine *m, const pk_value *key, char *out, size_t size)
{
    char q[80];
    afmt_pk_quote(m->p + key->u.str.at, key->u.str.len, q, sizeof q);
    snprintf(out, size, "%s[storage %s]", m->d->name, q);
}

/* Resolve storage s and check its record: count x element size bytes, and
 * bools 0 or 1 when values are checked. */
static int resolve_storage(pk_machine *m, uint32_t s, afmt_ar_resolve_fn resolve, void *ctx)
{
    pk_storage *st = &m->storages[s];
    const pk_ref *r = &m->refs[st->ref];
    const pk_value *k = &m->values[r->key];
    const afmt_dtype dtype = m->d->globals[r->global].dtype;
    const uint64_t bytes = r->count * afmt_dtype_get(dtype)->size; /* checked at its BINPERSID */
    char field[AFMT_FIELD_MAX];

    if (!resolve) {
        storage_field(m, k, field, sizeof field);
        return afmt_fail(m->err, AFMT_E_USAGE, m->path, field, AFMT_NO_INDEX, m->base + r->at,
                         "a storage is named but no resolver was given");
    }
    memset(&st->rec, 0, sizeof st->rec);
    if (resolve(ctx, (const char *)(m->p + k->u.str.at), k->u.str.len, &st->rec, m->err) != 0)
        return -1;
    if (st->rec.nbytes != bytes) {
        storage_field(m, k, field, sizeof field);
        return afmt_fail(m->err, AFMT_E_SIZE, m->path, field, AFMT_NO_INDEX, st->rec.offset,
                         "the record has %" PRIu64 " bytes; its BINPERSID (op %" PRIu32 " at offset %" PRIu64
                         ") says %" PRIu64 " %s elements, %" PRIu64 " bytes", st->rec.nbytes, r->op, m->base + r->at,
                         r->count, afmt_dtype_name(dtype), bytes);
    }
    if (dtype == AFMT_BOOL && m->opt->check_values && st->rec.data) {
        const uint64_t bad = afmt_scan_not_bool(st->rec.data, st->rec.nbytes);
        if (bad < st->rec.nbytes) {
            storage_field(m, k, field, sizeof field);
            return afmt_fail(m->err, AFMT_E_VALUE, m->path, field, AFMT_NO_INDEX, st->rec.offset + bad,
                             "bool element %" PRIu64 " is 0x%02x: bools are 0 or 1", bad, st->rec.data[bad]);
        }
    }
    return 0;
}

static uint64_t root_weight(const pk_machine *m)
{
    const pk_value *r = &m->values[m->root];
    return (r->kind == PK_TUPLE || r->kind == PK_LIST || r->kind == PK_DICT) ? r->u.box.weight : 1;
}

int afmt_pk_check_result(pk_machine *m, afmt_ar_resolve_fn resolve, void *resolve_ctx)
{
    uint32_t s;
    const uint64_t weight = root_weight(m);
    if (intern_strings(m) != 0 || unique_keys(m) != 0 || group_storages(m) != 0)
        return -1;
    if (weight > m->max_items)
        return afmt_pk_fail_op(m, AFMT_E_LIMIT, m->values[m->root].op, m->values[m->root].at,
                               "the result has %" PRIu64 " key paths (a value in several containers counts in "
                               "each), more than limits.max_items (%" PRIu64 ")", weight, m->max_items);
    for (s = 0; s < m->nstorages; s++)
        if (resolve_storage(m, s, resolve, resolve_ctx) != 0)
            return -1;
    return 0;
}
