/* afmt runtime (internal): the memory one run of a generated validator
 * allocates (afmt_step.h, afmt_scratch_grow), and the depth of the named
 * structures it is in.
 *
 * Validators allocate nothing for most specs.  A repeat whose key must be
 * distinct (afmt_unique_keys) keeps what it read: every block is linked into the
 * run's context and freed by afmt_run_validator at the end, whether the
 * run succeeded or failed, so no failure path needs its own cleanup.
 * Each block is sized by what was read, and all of them together by
 * limits.max_kept_bytes (c->kept), so that many items each under their
 * own limit cannot add up to more than the caller allowed. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "afmt_step.h"

/* A block's header: the list of the run's blocks, newest first. */
typedef struct afmt_scratch {
    struct afmt_scratch *next;
    uint64_t bytes;
    /* the block follows, aligned for any type */
    union { uint64_t u; double d; void *p; } data[];
} afmt_scratch;

static int scratch_fail(afmt_validation *c, uint64_t bytes, const char *field)
{
    return afmt_fail_c(c, AFMT_E_NOMEM, field ? field : "", AFMT_NO_INDEX, c->pos,
                       "cannot allocate %" PRIu64 " bytes to remember what was read", bytes);
}

/* limits.max_kept_bytes; 0 (options filled by hand, not by
 * afmt_options_default) means the default, as max_depth's 0 does */
static uint64_t kept_limit(const afmt_validation *c)
{
    const uint64_t limit = c->opt ? c->opt->limits.max_kept_bytes : 0;
    return limit ? limit : AFMT_DEFAULT_MAX_KEPT_BYTES;
}

/* The bytes a block of old_bytes may grow to with everything else the run
 * keeps (c->kept counts the block too) still held. */
static uint64_t kept_room(const afmt_validation *c, uint64_t old_bytes)
{
    const uint64_t others = c->kept - old_bytes, limit = kept_limit(c);
    return others < limit ? limit - others : 0;
}

static int kept_fail(afmt_validation *c, uint64_t old_bytes, uint64_t bytes, const char *field)
{
    /* the true total: c->kept - old_bytes + bytes, which may pass 2^64 */
    const uint64_t others = c->kept - old_bytes;
    if (bytes > UINT64_MAX - others)
        return afmt_fail_c(c, AFMT_E_LIMIT, field ? field : "", AFMT_NO_INDEX, c->pos,
                           "keeping what was read would take more than 2^64 bytes, more than the limit of %" PRIu64
                           " (limits.max_kept_bytes)", kept_limit(c));
    return afmt_fail_c(c, AFMT_E_LIMIT, field ? field : "", AFMT_NO_INDEX, c->pos,
                       "keeping what was read would take %" PRIu64 " bytes in all, more than the limit of %" PRIu64
                       " (limits.max_kept_bytes)", others + bytes, kept_limit(c));
}

void *afmt_scratch_grow(afmt_validation *c, void *block, uint64_t bytes, const char *field)
{
    afmt_scratch *old = block ? (afmt_scratch *)((char *)block - offsetof(afmt_scratch, data)) : NULL;
    const uint64_t old_bytes = old ? old->bytes : 0;
    afmt_scratch *nb, **link;
    /* the total first: the limit is what the input may make the run hold */
    if (bytes > kept_room(c, old_bytes)) {
        kept_fail(c, old_bytes, bytes, field);
        return NULL;
    }
    /* the size is what the caller has read (a small multiple of the
     * input's bytes), but a size_t may be narrower than a uint64_t */
    if (bytes > (uint64_t)SIZE_MAX - sizeof *nb) {
        scratch_fail(c, bytes, field);
        return NULL;
    }
    for (link = &c->scratch; old && *link != old; link = &(*link)->next)
        ;
    nb = realloc(old, sizeof *nb + (size_t)bytes);
    if (!nb) {
        scratch_fail(c, bytes, field);
        return NULL;
    }
    if (old) {
        *link = nb; /* the same place in the list, moved */
    } else {
        nb->next = c->scratch;
        c->scratch = nb;
    }
    nb->bytes = bytes;
    c->kept = c->kept - old_bytes + bytes;
    return nb->data;
}

int afmt_scratch_reserve(afmt_validation *c, void **block, uint64_t *cap, uint64_t need, size_t size, uint64_t first,
                         const char *field, const char *what)
{
    uint64_t n = *cap ? *cap : first, room;
    void *p;
    if (need <= *cap) return 0;
    while (n < need) {
        if (n > UINT64_MAX / 2 / size) return afmt_overflow_c(c, field, AFMT_NO_INDEX, c->pos, what);
        n *= 2;
    }
    if (n > UINT64_MAX / size) return afmt_overflow_c(c, field, AFMT_NO_INDEX, c->pos, what);
    /* the doubling's slack is not the input's doing: near the limit, grow
     * by half of what the limit leaves beyond need (room for the run's
     * other lists, and still few reallocations: the rest halves each
     * time), and when need does not fit either, ask for need, so that
     * afmt_scratch_grow's refusal says what is needed */
    room = kept_room(c, *cap * size) / size;
    if (n > room) n = need <= room ? need + (room - need) / 2 : need;
    p = afmt_scratch_grow(c, *block, n * size, field);
    if (!p) return -1;
    *block = p;
    *cap = n;
    return 0;
}

void afmt_scratch_free_since(afmt_validation *c, const struct afmt_scratch *mark)
{
    while (c->scratch && c->scratch != mark) {
        afmt_scratch *next = c->scratch->next;
        c->kept -= c->scratch->bytes;
        free(c->scratch);
        c->scratch = next;
    }
}

void afmt_scratch_free_all(afmt_validation *c)
{
    afmt_scratch_free_since(c, NULL);
}

int afmt_struct_enter(afmt_validation *c, const char *label)
{
    const uint64_t limit = c->opt ? c->opt->limits.max_depth : 32;
    if (c->depth >= limit)
        return afmt_fail_c(c, AFMT_E_LIMIT, label, AFMT_NO_INDEX, c->pos,
                           "structures nested more than %" PRIu64 " deep (limits.max_depth)", limit);
    c->depth++;
    return 0;
}
