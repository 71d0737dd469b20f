/* INTERNAL HEADER: for generated code and the runtime only, not an API (it
 * changes with AFMT_RUNTIME_ABI); programs include <afmt/afmt.h> and <afmt/<format>.h>. */
/* afmt runtime: the state of a model set (afmt_model, declared in afmt.h),
 * shared by afmt_model.c (making one, names), afmt_model_check.c (what
 * the shards hold, the faults) and afmt_model_index.c (reading a
 * safetensors index).
 *
 * One afmt_model is three growable arrays: the tensors (the index's
 * entries, or the ones a split's files held), the shards, and the bytes of
 * every name, NUL-terminated, that they point into by offset (so that the
 * arrays can grow without dangling pointers).  What they hold was read from
 * real input: an index's text, or the validated headers of the shards.
 *
 * Thread-safety: one afmt_model belongs to one thread at a time.
 */
#ifndef AFMT_MODEL_H
#define AFMT_MODEL_H

#include <stddef.h>
#include <stdint.h>
#include "../afmt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* No shard (a tensor not found yet). */
#define AFMT_MODEL_NONE SIZE_MAX

typedef enum afmt_model_kind {
    AFMT_MODEL_KIND_INDEX = 1, /* a safetensors index names each tensor's shard */
    AFMT_MODEL_KIND_SPLIT = 2  /* GGUF's numbered split: files say their number */
} afmt_model_kind;

typedef struct afmt_model_tensor {
    uint64_t name_at, name_len; /* in afmt_model.names */
    const char *name;   /* names + name_at, set once names stops growing
                         * (qsort has no context argument) */
    uint64_t at;        /* index: absolute offset of its weight_map key;
                         * split: its data's offset in its shard */
    uint64_t nbytes;    /* stored bytes, once found */
    size_t listed;      /* index: the shard the index names */
    size_t found;       /* the shard it was found in, or AFMT_MODEL_NONE */
} afmt_model_tensor;

/* What a split file said of itself (GGUF key-values), with where. */
typedef struct afmt_model_split_key {
    int seen;
    uint64_t value, at;
} afmt_model_split_key;

typedef struct afmt_model_shard {
    uint64_t name_at, name_len; /* index: the file name in names */
    uint64_t at;        /* index: offset of the first weight_map value naming it */
    uint64_t listed;    /* index: tensors it should hold */
    uint64_t found;     /* tensors found in it */
    int done;           /* afmt_model_shard_done was called */
    int usable;         /* ... and said the shard was read whole */
    afmt_model_split_key no, count, total;
} afmt_model_shard;

struct afmt_model {
    afmt_model_kind kind;
    afmt_model_tensor *tensors;
    size_t ntensors, tensors_cap;
    afmt_model_shard *shards;
    size_t nshards;
    char *names;
    uint64_t names_len, names_cap;
    int has_total_size;             /* index: metadata.total_size */
    uint64_t total_size, total_size_at;
    uint64_t found_bytes;           /* stored bytes of the tensors found, each once */
    int found_bytes_overflow;
    /* split: the first split.tensors.count seen, and where */
    size_t split_total_shard;       /* AFMT_MODEL_NONE until one is seen */
    uint64_t split_total, split_total_at;
    /* afmt_model_next_fault's place */
    int phase;
    size_t cursor;
    size_t run;                     /* split: first tensor of the current name */
    int sorted;                     /* split: tensors sorted by name */
};

/* Append n bytes (and a NUL) to m->names: 0 with *at, or -1 (no memory).
 * p NULL: make room for n bytes only, for the caller to write at *at. */
int afmt_model_names_add(afmt_model *m, const void *p, uint64_t n, uint64_t *at);

/* Room for one more tensor in m->tensors (doubling): 0, or -1 (no memory). */
int afmt_model_tensors_reserve(afmt_model *m);

/* Point every tensor's name into m->names (which must not grow after)
 * and sort m->tensors by name, then shard, then offset: qsort, no memory. */
void afmt_model_sort_tensors(afmt_model *m);

/* Shard s as messages name it: an index's file name
 * ("model-00002-of-00003.safetensors"), else "split 2 of 3" written into
 * buf[0..cap). */
const char *afmt_model_shard_label(const afmt_model *m, size_t s, char *buf, size_t cap);

/* Mark err, just filled by afmt_fail, as a fault of the set (format
 * "model"), not of a shard's format; returns -1. */
int afmt_model_fault(afmt_error *err);

#ifdef __cplusplus
}
#endif
#endif /* AFMT_MODEL_H */
