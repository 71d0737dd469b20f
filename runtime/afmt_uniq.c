/* afmt runtime (internal): a set of distinct keys (afmt_uniq.h). */
#include "afmt_uniq.h"
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
static void key_text(const afmt_uniq *u, const uint8_t *p, uint64_t n, char *out, size_t cap)
{
    size_t o = 0;
    uint64_t i;
    if (u->is_int) {
        snprintf(out, cap, "%" PRIu64, afmt_load_u64le(p));
        return;
    }
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
static int rehash(afmt_vctx *c, afmt_uniq *u, const char *field)
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

/* Room for one more key of len bytes. */
static int reserve(afmt_vctx *c, afmt_uniq *u, const char *field, uint64_t len)
{
    if (u->nkeys >= UINT32_MAX - 1 || (c->opt && u->nkeys >= c->opt->limits.max_items))
        return afmt_fail_c(c, AFMT_E_LIMIT, field, AFMT_NO_INDEX, c->pos,
                           "more than %" PRIu64 " distinct keys", u->nkeys);
    if (afmt_scratch_reserve(c, (void **)&u->keys, &u->keys_cap, u->nkeys + 1, sizeof *u->keys, 32, field, "keys"))
        return -1;
    /* nbytes + len must not wrap */
    if (len > UINT64_MAX - u->nbytes) return afmt_overflow_c(c, field, AFMT_NO_INDEX, c->pos, "key bytes");
    if (afmt_scratch_reserve(c, (void **)&u->bytes, &u->bytes_cap, u->nbytes + len, 1, 256, field, "key bytes"))
        return -1;
    if ((u->nkeys + 1) * 2 > u->nslots) return rehash(c, u, field);
    return 0;
}

int afmt_uniq_add(afmt_vctx *c, afmt_uniq *u, const char *repeat, const char *field,
                  uint64_t index, uint64_t offset, const uint8_t *key, uint64_t len)
{
    uint64_t h, at;
    afmt_uniq_key *k;
    if (u->c_string) {
        const uint8_t *nul = len ? memchr(key, 0, (size_t)len) : NULL;
        if (nul) len = (uint64_t)(nul - key);
    }
    h = hash_bytes(key, len);
    if (reserve(c, u, field, len)) return -1;
    for (at = h & (u->nslots - 1); u->slots[at]; at = (at + 1) & (u->nslots - 1)) {
        const afmt_uniq_key *o = &u->keys[u->slots[at] - 1];
        if (o->hash == h && o->len == len && (len == 0 || memcmp(u->bytes + o->at, key, (size_t)len) == 0)) {
            char text[96];
            key_text(u, key, len, text, sizeof text);
            return afmt_fail_c(c, AFMT_E_CONSTRAINT, field, AFMT_NO_INDEX, offset,
                               "duplicate %s %s: %s[%" PRIu64 "].%s (offset %" PRIu64 ") has it too",
                               u->is_int ? "value" : "key", text, repeat, o->index, field, o->offset);
        }
    }
    k = &u->keys[u->nkeys];
    k->hash = h;
    k->at = u->nbytes;
    k->len = len;
    k->offset = offset;
    k->index = index;
    if (len) memcpy(u->bytes + u->nbytes, key, (size_t)len);
    u->nbytes += len;
    u->slots[at] = (uint32_t)(++u->nkeys);
    return 0;
}

int afmt_uniq_add_u64(afmt_vctx *c, afmt_uniq *u, const char *repeat, const char *field,
                      uint64_t index, uint64_t offset, uint64_t key)
{
    uint8_t b[8];
    afmt_store_u64le(b, key);
    return afmt_uniq_add(c, u, repeat, field, index, offset, b, 8);
}
