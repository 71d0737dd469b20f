/* INTERNAL HEADER: for generated code and the runtime only, not an API (it
 * changes with AFMT_RUNTIME_ABI); programs include <afmt/afmt.h> and <afmt/<format>.h>. */
/* afmt runtime (internal, for generated writers): a spec's "directory"
 * item written (spec/LANGUAGE.md, "Directories of arrays", "Writing").
 *
 * A writer whose spec places arrays through a directory writes one record
 * per array it is given (the repeat whose records feed the directory) and
 * then, where the directory stands, every payload.  The layout is the one
 * its validator accepts in strict mode (afmt_dir_place): the arrays in
 * the order given, the first at 0 of the data area, each next one where
 * the one before ends rounded up to the alignment, zero padding between
 * them and after the last to the alignment.
 *
 * afmt_write_dir_next gives each record its offset (the running end of the
 * layout, advanced past the array and its padding); afmt_write_dir_write
 * writes the payloads with the same rule, so the two agree as long as
 * they are given the same alignment.  afmt_write_dir_unique_names is the
 * writer's side of a repeat's "unique" on the directory's name field.
 *
 * Errors fill err as every writer failure does (field and index, no
 * offset).  Thread-safe: no state; afmt_write_dir_unique_names allocates n
 * indices for its duration (malloc, freed before it returns).
 */
#ifndef AFMT_WRITE_DIR_H
#define AFMT_WRITE_DIR_H

#include <stddef.h>
#include <stdint.h>
#include "../afmt.h"
#include "../common/afmt_error.h"
#include "../core/afmt_step.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A block type of a spec's table ("block": [N, B] with its "name"), as a
 * writer looks it up: an opaque array of that name and block takes code. */
typedef struct afmt_block_entry {
    uint64_t code;
    const char *name;
    uint64_t block; /* elements per block */
    uint64_t size;  /* bytes per block */
} afmt_block_entry;

/* The entry of tb[0..n) that a is an array of (opaque, its opaque_name,
 * block and elsize those of the entry), or NULL. */
AFMT_GEN_API const afmt_block_entry *afmt_block_of(const afmt_block_entry *tb, size_t n, const afmt_array *a);

/* The element type of block entry b (opaque, B bytes a block of N). */
static inline afmt_elem afmt_elem_of_block(const afmt_block_entry *b)
{
    afmt_elem e = AFMT_ELEM_NONE;
    e.dtype = AFMT_OPAQUE;
    e.size = b->size;
    e.block = b->block;
    e.name = b->name;
    return e;
}

/* The first of the n block entries whose code is code, or NULL: a
 * validator's lookup of a type code (the table's other entries are an
 * afmt_type_entry table, afmt_type_by_code). */
static inline const afmt_block_entry *afmt_block_by_code(const afmt_block_entry *tb, size_t n, uint64_t code)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (tb[i].code == code)
            return &tb[i];
    return NULL;
}

/* The bytes of a's payload in a directory: count * elsize, or for a block
 * type (a->block > 1: GGUF's Q4_0) count / block * elsize, its fastest
 * (last) dim a multiple of the block.  a must be plain, little-endian and
 * packed (field, index: the record's repeat and the array's place, for
 * messages). */
AFMT_GEN_API int afmt_write_dir_nbytes(const afmt_array *a, const char *field, size_t index, uint64_t *out,
                                  afmt_error *err);

/* Array a (index in the list) begins at *end (relative to the data area):
 * *at = *end, and *end moves past its payload and its padding to align
 * (0 taken as 1).  Overflow past 2^64 fails. */
AFMT_GEN_API int afmt_write_dir_next(const afmt_array *a, const char *field, size_t index, uint64_t align,
                                uint64_t *end, uint64_t *at, afmt_error *err);

/* The data area: each payload (in the byte order endian; a block or
 * opaque type as its bytes) followed by zeros to the next multiple of
 * align (the last too).  A view holding fewer bytes than its payload
 * (a->nbytes, or no data) fails, AFMT_E_USAGE. */
AFMT_GEN_API int afmt_write_dir_write(afmt_sink *sink, const afmt_array *arrays, size_t n, uint64_t align,
                                 afmt_endian endian, const char *field, afmt_error *err);

/* The prefix of the names of arrays[0..n) that have none (a directory's
 * "default_name": "arr_", the one naming rule, docs/FORMATS.md), or NULL
 * when every array has a name.  A lone unnamed array is named too, so
 * that an array's name does not depend on how many the file holds. */
AFMT_GEN_API const char *afmt_write_dir_prefix(const afmt_array *arrays, size_t n, const char *prefix);

/* The name array a (index in the list) is written with, into out: its
 * own, or when it has none and prefix is not NULL, prefix and its index
 * ("array_3").  A name longer than the view kept (afmt_name_whole)
 * fails. */
AFMT_GEN_API int afmt_write_dir_name(const afmt_array *a, size_t index, const char *prefix, char out[AFMT_NAME_MAX],
                                afmt_error *err);

/* No two arrays are written with the same name (afmt_write_dir_name; their C
 * strings compared: a name holds no NUL): else AFMT_E_CONSTRAINT blamed on
 * field at the later array's index, naming the earlier one, as the
 * validator of "unique" would refuse the file.  Allocates n names for its
 * duration. */
AFMT_GEN_API int afmt_write_dir_unique_names(const afmt_array *arrays, size_t n, const char *prefix, const char *field,
                                        afmt_error *err);

#ifdef __cplusplus
}
#endif
#endif /* AFMT_WRITE_DIR_H */
