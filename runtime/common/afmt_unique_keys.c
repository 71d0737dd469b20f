/* afmt runtime (internal): a set of distinct keys (afmt_unique_keys.h). */
#include "afmt_unique_keys.h"
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "afmt_bytes.h"

/* FNV-1a: keys are names of a few to a few hundred bytes; what matters is
 * that equal bytes hash equal and the table stays sparse. */
static uint64_t hash_bytes(const uint8_t *p, uint64_t n)
{
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    uint64_t i;
    for (i = 0; i < n; i++) {
        h ^= p[i];
        h *= UINT64_C(0x100000001b3);
    }
    return h;
}

/* The key as the message shows it: printable ASCII as it is, other bytes
 * as \xHH, at most about 80 characters. */
static void key_text(const uint8_t *p, uint64_t n, char *out, size_t cap)
{
    size_t o = 0;
    uint64_t i;
    out[o++] = '"';
    for (i = 0; i < n && o + 8 < cap; i++) {
        if (p[i] >= 0x20 && p[i] < 0x7f && p[i] != '"' && p[i] != '\\') out[o++] = (char)p[i];
        else o += (size_t)snprintf(out + o, cap - o, "\\x%02x", p[i]);
    }
    if (i < n) {
        memcpy(out + o, "...", 3);
        o += 3;
    }
    out[o++] = '"';
    out[o] = 0;
}

/* Double the slots and place every key again. */
static int rehash(afmt_validation *c, afmt_unique_keys *u, const char *field)
{
    uint64_t n = u->nslots ? u->nslots * 2 : 64, i;
    uint32_t *s = afmt_scratch_grow(c, u->slots, n * sizeof *s, field);
    if (!s) return -1;
    memset(s, 0, (size_t)(n * sizeof *s));
    for (i = 0; i < u->nkeys; i++) {
        uint64_t at = u->keys[i].hash & (n - 1);
        while (s[at]) at = (at + 1) & (n - 1);
        s[at] = (uint32_t)(i + 1);
    }
    u->slots = s;
    u->nslots = n;
    return 0;
}

/* Room for one more key, and for copy bytes of it (a stream's). */
static int reserve(afmt_validation *c, afmt_unique_keys *u, const char *field, uint64_t copy)
{
    if (u->nkeys >= UINT32_MAX - 1 || (c->opt && u->nkeys >= c->opt->limits.max_items))
        return afmt_fail_c(c, AFMT_E_LIMIT, field, AFMT_NO_INDEX, c->pos,
                           "more than %" PRIu64 " distinct keys", u->nkeys);
    if (afmt_scratch_reserve(c, (void **)&u->keys, &u->keys_cap, u->nkeys + 1, sizeof *u->keys, 32, field, "keys"))
        return -1;
    /* ncopied + copy must not wrap */
    if (copy > UINT64_MAX - u->ncopied) return afmt_overflow_c(c, field, AFMT_NO_INDEX, c->pos, "key bytes");
    if (copy && afmt_scratch_reserve(c, (void **)&u->copies, &u->copies_cap, u->ncopied + copy, 1, 256, field,
                                     "key bytes"))
        return -1;
    if ((u->nkeys + 1) * 2 > u->nslots) return rehash(c, u, field);
    return 0;
}

/* Whether the earlier key o holds the len bytes at key (or is value): 1,
 * 0, or -1 when a seekable source could not read it again (AFMT_E_IO in
 * c->err). */
static int same_key(afmt_validation *c, const afmt_unique_keys *u, const afmt_unique_key *o, const uint8_t *key,
                    uint64_t len, uint64_t value, const char *field)
{
    int eq;
    if (u->is_int) return o->at == value;
    if (o->len != len) return 0;
    if (len == 0) return 1;
    /* a buffer's bytes are all there for the whole run; a stream's are in
     * the copies; a seekable source reads them again where they lie */
    if (c->src->read) return memcmp(u->copies + o->at, key, (size_t)len) == 0;
    if (!c->src->pread) return memcmp(AFMT_B(c->src, o->at), key, (size_t)len) == 0;
    eq = afmt_src_equal_at(c->src, o->at, key, len);
    if (eq < 0)
        afmt_fail_c(c, AFMT_E_IO, field, AFMT_NO_INDEX, o->at, "reading the key at offset %" PRIu64
                    " again to compare it failed", o->at);
    return eq;
}

/* Add a key: len bytes at key (absolute offset key_at), or the integer
 * value (is_int). */
static int add(afmt_validation *c, afmt_unique_keys *u, const char *repeat, const char *field, uint64_t index,
               uint64_t offset, const uint8_t *key, uint64_t key_at, uint64_t len, uint64_t value)
{
    /* a stream's window moves on and drops the key: only there is it copied */
    const int copy = !u->is_int && c->src->read != NULL;
    const uint64_t h = hash_bytes(key, len);
    uint64_t at;
    afmt_unique_key *k;
    if (reserve(c, u, field, copy ? len : 0)) return -1;
    for (at = h & (u->nslots - 1); u->slots[at]; at = (at + 1) & (u->nslots - 1)) {
        const afmt_unique_key *o = &u->keys[u->slots[at] - 1];
        int same = o->hash == h ? same_key(c, u, o, key, len, value, field) : 0;
        if (same < 0) return -1;
        if (same) {
            char text[96];
            if (u->is_int) snprintf(text, sizeof text, "%" PRIu64, value);
            else key_text(key, len, text, sizeof text);
            return afmt_fail_c(c, AFMT_E_CONSTRAINT, field, AFMT_NO_INDEX, offset,
                               "duplicate %s %s: %s[%" PRIu64 "].%s (offset %" PRIu64 ") has it too",
                               u->is_int ? "value" : "key", text, repeat, o->index, field, o->offset);
        }
    }
    k = &u->keys[u->nkeys];
    k->hash = h;
    k->len = len;
    k->offset = offset;
    k->index = index;
    k->at = u->is_int ? value : copy ? u->ncopied : key_at;
    if (copy && len) {
        memcpy(u->copies + u->ncopied, key, (size_t)len);
        u->ncopied += len;
    }
    u->slots[at] = (uint32_t)(++u->nkeys);
    return 0;
}

int afmt_unique_keys_add(afmt_validation *c, afmt_unique_keys *u, const char *repeat, const char *field,
                  uint64_t index, uint64_t offset, uint64_t key_at, uint64_t len)
{
    const uint8_t *key = AFMT_B(c->src, key_at);
    if (u->c_string) {
        const uint8_t *nul = len ? memchr(key, 0, (size_t)len) : NULL;
        if (nul) len = (uint64_t)(nul - key);
    }
    return add(c, u, repeat, field, index, offset, key, key_at, len, 0);
}

int afmt_unique_keys_add_u64(afmt_validation *c, afmt_unique_keys *u, const char *repeat, const char *field,
                      uint64_t index, uint64_t offset, uint64_t key)
{
    uint8_t b[8];
    afmt_store_u64le(b, key);
    return add(c, u, repeat, field, index, offset, b, 0, 8, key);
}
