/* INTERNAL HEADER: for generated code and the runtime only, not an API (it
 * changes with AFMT_RUNTIME_ABI); programs include <afmt/afmt.h> and <afmt/<format>.h>. */
/* afmt runtime (internal, for generated code): a set of the keys a repeat
 * has read, for a spec's "unique" (spec/LANGUAGE.md, "repeat"): no two
 * repetitions may hold the same key (GGUF's metadata keys and tensor
 * names, ...).
 *
 * The set keeps a record of each key (its hash, where its bytes lie in the
 * input and how many, where it was read) in memory of the run
 * (afmt_scratch_grow), and compares keys where they lie: a buffer holds
 * every byte while the run lasts, so 20 keys of 95 MB cost 20 records, not
 * 1.9 GB of copies; a file read by offset (afmt_src_seekable) reads an
 * earlier key again where it lies (afmt_src_equal_at) when its window has
 * dropped it.  A stream drops bytes its window has passed, so there
 * (and only there) the set copies each key as it is added; the keys of
 * a stream are at most its window each, and all that the set holds,
 * records, table and copies, counts towards limits.max_kept_bytes, whose
 * AFMT_E_LIMIT names itself when a stream's keys pass it.  The set grows
 * by doubling: a small multiple of the keys really read, never of a count
 * the input claims.  Adding is O(1) on average (a hash table with linear
 * probing).  Not thread-safe: one set belongs to one run of a validator.
 */
#ifndef AFMT_UNIQUE_KEYS_H
#define AFMT_UNIQUE_KEYS_H

#include <stdint.h>
#include "../core/afmt_step.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct afmt_unique_key {
    uint64_t hash;
    uint64_t at;       /* its bytes: at the input's absolute offset at (a
                          buffer), at copies + at (a stream), or the
                          integer itself (is_int) */
    uint64_t len;
    uint64_t offset;   /* where it was read, for the message */
    uint64_t index;    /* the repetition that read it */
} afmt_unique_key;

typedef struct afmt_unique_keys {
    uint32_t *slots;       /* 0: empty, else 1 + an index into keys */
    uint64_t nslots;       /* a power of two, at least twice nkeys */
    afmt_unique_key *keys;
    uint64_t nkeys, keys_cap;
    uint8_t *copies;       /* a stream's keys, which its window drops */
    uint64_t ncopied, copies_cap;
    int is_int;            /* keys are integers (shown as numbers) */
    int c_string;          /* keys end at their first NUL byte, if any */
} afmt_unique_keys;

/* An empty set (no allocation until the first key); is_int: the keys are
 * 8-byte little-endian integers, shown as numbers in messages; c_string:
 * two keys are the same when they agree up to their first NUL byte (as a
 * reader that keeps them as C strings sees them). */
static inline void afmt_unique_keys_init(afmt_unique_keys *u, int is_int, int c_string)
{
    afmt_unique_keys z = {0};
    *u = z;
    u->is_int = is_int;
    u->c_string = c_string;
}

/* Add the len bytes at the input's absolute offset key_at (buffered: the
 * field was just taken), read at offset by repetition index of the repeat
 * named repeat, as field: 0 if no earlier repetition had them, else -1
 * with AFMT_E_CONSTRAINT in c->err, blamed on field at offset:
 * `duplicate key "general.name": repeat[1].key (offset 40) has it too`.
 * Also -1 (AFMT_E_LIMIT) past limits.max_items keys or when what the set
 * holds would pass limits.max_kept_bytes (with what else the run keeps),
 * or AFMT_E_NOMEM. */
AFMT_GEN_API int afmt_unique_keys_add(afmt_validation *c, afmt_unique_keys *u, const char *repeat, const char *field,
                  uint64_t index, uint64_t offset, uint64_t key_at, uint64_t len);

/* The same for an integer key. */
AFMT_GEN_API int afmt_unique_keys_add_u64(afmt_validation *c, afmt_unique_keys *u, const char *repeat, const char *field,
                      uint64_t index, uint64_t offset, uint64_t key);

#ifdef __cplusplus
}
#endif

#endif
