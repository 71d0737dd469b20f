/* INTERNAL HEADER: for generated code and the runtime only, not an API (it
 * changes with AFMT_RUNTIME_ABI); programs include <afmt/afmt.h> and <afmt/<format>.h>. */
/* afmt runtime (internal, for generated code): a spec's "directory" item
 * (spec/LANGUAGE.md, "Directories of arrays"): arrays that records read
 * earlier (a repeat's repetitions: each an element type, a shape, a name
 * and an offset) place in a data area that starts later.
 *
 * While the repeat runs, each repetition adds its record
 * (afmt_dir_add): the element count and byte size are computed there,
 * with their overflow and block checks blamed on the record's fields.
 * Where the directory item stands, afmt_dir_place checks the placement
 * (afmt_dir_check: every array inside the area, aligned, in listed order,
 * tiling it with only the padding to the alignment), that the padding is
 * zero, and hands each array's view to the visitor in listed order.
 *
 * Memory: the list grows in the run's scratch memory (afmt_scratch_grow),
 * a record per repetition actually read, with a copy of its dims and of
 * its name (at most AFMT_NAME_MAX - 1 bytes): a small multiple of the
 * header's own bytes.  Not thread-safe: one list per run.
 */
#ifndef AFMT_DIR_RECORDS_H
#define AFMT_DIR_RECORDS_H

#include <stdint.h>
#include "../core/afmt_step.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One record: where its array is and what it holds. */
typedef struct afmt_dir_rec {
    afmt_elem el;          /* its element type (block types too) */
    uint64_t dims_at;      /* offset of its first dim in the input */
    uint64_t rank;
    uint64_t dims;         /* its dims: list.dims[dims .. dims + rank), as stored */
    uint64_t name;         /* its name: list.names[name .. name + name_kept) */
    uint64_t name_kept;    /* bytes of the name kept (at most AFMT_NAME_MAX - 1) */
    uint64_t name_len;     /* bytes of the name in the file */
    uint64_t begin;        /* its offset in the data area, as recorded */
    uint64_t begin_at;     /* where that offset was read (for messages) */
    uint64_t count;        /* elements (the product of the dims) */
    uint64_t nbytes;       /* bytes of its payload */
} afmt_dir_rec;

/* The records, with copies of their dims and names (so that a stream may
 * drop the header's bytes before the payloads are taken). */
typedef struct afmt_dir_list {
    afmt_dir_rec *v;
    uint64_t n, cap;
    uint64_t *dims;
    uint64_t ndims, dims_cap;
    char *names;
    uint64_t nnames, names_cap;
} afmt_dir_list;

/* What a spec's directory item says (a static const in generated code). */
typedef struct afmt_dir_desc {
    const char *name;         /* the directory item's name: the data area in messages */
    const char *records;      /* the repeat whose repetitions are the records */
    const char *offset_field; /* the record's field holding the array's offset */
    const char *shape_field;  /* its array field of dims */
    unsigned dims_width;      /* bytes of one dim */
    int dims_big;             /* dims stored big-endian (AFMT_ORDER_RUN: c->big) */
    int dims_signed;          /* dims are signed (a negative one is refused) */
    int fastest_first;        /* the first dim varies fastest (GGUF's ne[0]):
                                 the view's shape is the dims reversed */
    int payload_big;          /* payloads stored big-endian (AFMT_ORDER_RUN: c->big) */
    int pad_lenient;          /* non-zero or missing padding: a warning when lenient */
} afmt_dir_desc;

static inline void afmt_dir_list_init(afmt_dir_list *l)
{
    afmt_dir_list z = {0};
    *l = z;
}

/* Add the record of the repetition being read (its fields at the offsets
 * given, already taken and checked): computes the element count (a
 * product of the dims, its overflow blamed on shape_field) and the bytes
 * (count * el.size, or for a block type count / el.block * el.size, the
 * fastest dim a multiple of el.block).  0, or -1 with c->err filled. */
AFMT_GEN_API int afmt_dir_add(afmt_validation *c, const afmt_dir_desc *d, afmt_dir_list *l, afmt_elem el, uint64_t dims_at,
                 uint64_t rank, uint64_t name_at, uint64_t name_len, uint64_t begin, uint64_t begin_at);

/* Place the arrays of l in the data area starting at c->pos (to the end of
 * the region open): listed in data order, each at a multiple of align,
 * each beginning where the one before ended rounded up to align, the
 * padding between them and after the last zero (d->pad_lenient: a warning
 * in lenient mode); hand their views to the visitor in that order; move
 * c->pos past the last array's padding.  0, or -1 with c->err filled. */
AFMT_GEN_API int afmt_dir_place(afmt_validation *c, const afmt_dir_desc *d, const afmt_dir_list *l, uint64_t align);

#ifdef __cplusplus
}
#endif

#endif
