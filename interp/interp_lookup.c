/* afmt reference interpreter: lookups in type tables (spec/LANGUAGE.md,
 * "lookup", "Tables").  The first entry in table order whose keys (or
 * "when") match gives the element type; none is unknown-type, listing
 * the table.  afmt-gen compiles simple tables to one runtime search
 * (gen/emit_validate.c: lookup_by_table, lookup_by_table2) and the rest
 * to an if-chain; the answer and the words are the same, and so here. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "interp.h"

/* A key's value: a text field's bytes, or an integer. */
typedef struct ikey {
    const isym *sym;  /* the key's name, when it is one */
    ival v;
} ikey;

static int key_matches(const ikey *k, const expr *want)
{
    if (k->sym && k->sym->kind == IS_TEXT) {
        size_t n = strlen(want->sval);
        int i;
        for (i = 0; i < k->sym->size; i++)
            if (k->v.str[i] != ((size_t)i < n ? (uint8_t)want->sval[i] : 0)) return 0;
        return 1;
    }
    return k->v.v == want->ival; /* the 64-bit patterns, as the generated == */
}

/* "no entry of table T matches (k = v, ...): unknown type code; known: ..." */
static int lookup_fail(irun *r, const iblame *b, const item *it, const table *tb, const ikey *keys)
{
    char found[1024] = "";
    size_t at = 0;
    int k;
    char *known = table_known_text(tb);
    int rc;
    for (k = 0; k < it->lookup.nkey; k++) {
        const expr *e = it->lookup.key[k];
        char v[4 * 256 + 3];
        if (keys[k].sym && keys[k].sym->kind == IS_TEXT) {
            const size_t cap = (size_t)keys[k].sym->size * 4 + 3;
            afmt_escape_text(keys[k].v.str, (uint64_t)keys[k].sym->size, v, cap < sizeof v ? cap : sizeof v);
        } else if (keys[k].sym && keys[k].sym->t == VT_S) {
            snprintf(v, sizeof v, "%" PRId64, (int64_t)keys[k].v.v);
        } else {
            snprintf(v, sizeof v, "%" PRIu64, keys[k].v.v);
        }
        at += (size_t)snprintf(found + at, at < sizeof found ? sizeof found - at : 0, "%s%s = %s", k ? ", " : "",
                               e->kind == E_NAME ? e->sval : "key", v);
        if (at >= sizeof found) at = sizeof found - 1;
    }
    rc = ifail(r, b, AFMT_E_UNKNOWN_TYPE, LEN_NONE, "no entry of table %s matches (%s): unknown type code%s", tb->name,
               found, known);
    free(known);
    return rc;
}

/* What a matching entry gives: dtype, size (opaque: its "size"),
 * encoding, and its warning. */
static int entry_values(irun *r, const iblame *b, const table_entry *te, const isym *attr, afmt_elem *el)
{
    el->dtype = afmt_dtype_from_name(te->dtype);
    if (te->block_elems) { /* a block type: N elements in B bytes */
        el->size = te->block_bytes;
        el->block = te->block_elems;
    } else if (te->size) {
        if (ieval_u64(r, b, te->size, "entry size", &el->size)) return -1;
    } else {
        el->size = afmt_dtype_get(el->dtype)->size;
    }
    if (te->type_name) el->name = te->type_name;
    el->enc = te->encoding && strcmp(te->encoding, "bits-lsb") == 0 ? AFMT_ENC_BITS_LSB : AFMT_ENC_PLAIN;
    if (te->warn)
        afmt_warn(r->c->vis, r->c->path, attr ? attr->name : NULL, AFMT_NO_INDEX,
                  attr ? (attr->off_is_pos ? r->c->pos : attr->off) : r->c->pos, "%s", te->warn);
    return 0;
}

/* Does entry te match?  Its keys, or its "when" (which may fail). */
static int entry_matches(irun *r, const iblame *b, const item *it, const table_entry *te, const ikey *keys, int *m)
{
    int k;
    if (!te->key) return ieval_bool(r, b, te->when, te->when_text, m);
    *m = 1;
    for (k = 0; k < te->nkey && k < it->lookup.nkey; k++)
        if (!key_matches(&keys[k], te->key[k])) *m = 0;
    return 0;
}

/* The first matching entry, in table order (any of afmt-gen's forms
 * finds this one); its warning is given where the generated code gives
 * it (all keyed entries are tried before a "when" entry only when the
 * keyed ones come first, and then the order is the table's anyway). */
static int find_entry(irun *r, const iblame *b, const item *it, const table *tb, const isym *attr, const ikey *keys,
                      afmt_elem *el)
{
    int i, m;
    for (i = 0; i < tb->nentries; i++) {
        if (entry_matches(r, b, it, &tb->entries[i], keys, &m)) return -1;
        if (m) return entry_values(r, b, &tb->entries[i], attr, el);
    }
    return lookup_fail(r, b, it, tb, keys);
}

int irun_lookup(irun *r, const item *it)
{
    const table *tb = find_table(r->in->s, it->lookup.table);
    const isym *attr = NULL;
    ikey keys[16];
    iblame b;
    afmt_elem el = AFMT_ELEM_NONE;
    isym *y;
    int k;
    if (it->attribute) attr = isym_find(r, it->attribute);
    else if (it->lookup.nkey > 0 && it->lookup.key[0]->kind == E_NAME) attr = isym_find(r, it->lookup.key[0]->sval);
    b = iblame_of(attr);
    for (k = 0; k < it->lookup.nkey && k < 16; k++) {
        const expr *e = it->lookup.key[k];
        keys[k].sym = e->kind == E_NAME ? isym_find(r, e->sval) : NULL;
        if (keys[k].sym && keys[k].sym->kind == IS_TEXT) {
            keys[k].v.str = AFMT_B(r->c->src, keys[k].sym->off);
            keys[k].v.t = VT_STR;
        } else if (ieval(r, &b, e, "lookup key", &keys[k].v)) {
            return -1;
        }
    }
    if (find_entry(r, &b, it, tb, attr, keys, &el)) return -1;
    y = isym_push(r, IS_LOOKUP, it);
    y->el = el;
    return 0;
}
