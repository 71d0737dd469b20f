/* INTERNAL HEADER: for generated code and the runtime only, not an API (it
 * changes with AFMT_RUNTIME_ABI); programs include <afmt/afmt.h> and <afmt/<format>.h>. */
/* afmt runtime: arrays described by a text header (NumPy .npy, safetensors).
 *
 * afmt-gen compiles a spec's "text_header" item into an afmt_header_arrays_desc:
 * the header's syntax and length prefix, its padding and alignment, the keys
 * of an entry and what each binds (element type through a table of type
 * names, shape, order, byte range), and whether the header describes one
 * array that follows it or a map of named arrays placed in the data area
 * after it.  The functions here carry out that description; they know no
 * format.  The header is parsed in place where it lies in the input.
 *
 * A map header (safetensors) is read in one pass by afmt_header_onepass.c when it
 * is valid and written as writers write it; anything else goes through
 * the exact steps (afmt_texthdr_parse, then each entry), which name the first
 * problem.  Either way the entries' byte ranges make a list that
 * afmt_dir_check (afmt_dir.h) sorts in place and checks to tile the data
 * area exactly: time O(n log n) at worst, O(n) for a header listed in data
 * order.  Memory: the list (49 bytes per entry, each entry being at least
 * about 45 bytes of the header's text) and, for the exact steps, 12 bytes
 * per key to sort names by; a header of up to 32 entries (2,700 keys)
 * uses none but the stack.  All of it is freed before returning.
 *
 * Thread-safety: reentrant; descriptors are constant data.
 */
#ifndef AFMT_HEADER_ARRAYS_H
#define AFMT_HEADER_ARRAYS_H

#include <stddef.h>
#include <stdint.h>
#include "../array/afmt_array.h"
#include "../common/afmt_error.h"
#include "../common/afmt_options.h"
#include "../io/afmt_sink.h"
#include "../io/afmt_src.h"
#include "afmt_texthdr.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum afmt_header_arrays_bind {
    AFMT_BIND_DTYPE = 1, /* a string: the element type, through the type table */
    AFMT_BIND_ORDER = 2, /* a boolean: true = column-major */
    AFMT_BIND_SHAPE = 3, /* a list or tuple of non-negative integers */
    AFMT_BIND_RANGE = 4  /* [begin, end]: the payload's bytes in the data area */
} afmt_header_arrays_bind;

/* A sort key of the writer's order of a map's entries (write_sort);
 * negated: descending. */
typedef enum afmt_header_arrays_sort {
    AFMT_HEADER_SORT_TYPE = 1, /* the entry's type's position in the type table */
    AFMT_HEADER_SORT_NAME = 2  /* the entry's name, byte by byte */
} afmt_header_arrays_sort;

typedef struct afmt_header_arrays_key {
    const char *key;
    afmt_header_arrays_bind bind;
    afmt_tv_kind kind; /* SHAPE: AFMT_TV_LIST or AFMT_TV_TUPLE */
} afmt_header_arrays_key;

typedef struct afmt_header_arrays_type {
    const char *text;   /* the name in the header ("<f8", "F32") */
    int prefix;         /* 1: text is a prefix ("<U" matches "<U10") */
    afmt_dtype dtype;   /* AFMT_DTYPE_INVALID for a refusal */
    uint32_t size;      /* bytes per element */
    afmt_endian endian;
    int writable;       /* the writer may choose this entry */
    const char *refuse; /* non-NULL: valid in the format, refused with this reason */
} afmt_header_arrays_type;

typedef struct afmt_header_arrays_desc {
    const char *format;       /* for messages: "npy" */
    const char *name;         /* the header's name in key paths: "header" */
    afmt_texthdr_syntax syntax;
    unsigned length_width;    /* bytes of the length prefix: 2, 4 or 8 */
    int length_big;
    uint64_t max_length;      /* a cap checked before any arithmetic (0: none) */
    int pad;                  /* byte that may follow the value (-1: none) */
    int terminator;           /* the header's last byte (-1: none) */
    uint64_t align;           /* the header ends at a multiple of this (0: any) */
    uint64_t write_align;     /* the writer pads its end to a multiple of this */
    uint64_t write_min_pad;   /* ... with at least this many pad bytes */
    uint64_t write_spare;     /* writer: spare pad bytes (minus the digits of the
                               * first dimension, last when column-major) */
    int map;                  /* 1: root maps names to entries; 0: root is the entry */
    const char *metadata_key; /* map: key of a string -> string object (or NULL) */
    const afmt_header_arrays_key *keys;
    size_t nkeys;
    const afmt_header_arrays_type *types;
    size_t ntypes;
    const char *default_name; /* writer: name prefix of unnamed arrays ("" + index) */
    int lenient;              /* 1: in lenient mode, warn instead of failing on
                               * whitespace of the syntax other than pad around
                               * the value, a missing terminator and a header
                               * end off the alignment */
    int write_sort[4];        /* map writer: entries sorted by these keys
                               * (afmt_header_arrays_sort, negative = descending;
                               * 0 ends the list; ties keep the given
                               * order), payloads packed in that order */
} afmt_header_arrays_desc;

/* Validate the header at *pos (its length prefix first) and the arrays it
 * describes, within [*pos, end); pass each view to vis->on_array in data
 * order and advance *pos past the last payload.  0, or -1 with err naming
 * the key path and absolute offset.  With opt->fields, the length prefix
 * ("<name>_length") and then each key's value of every entry and of the
 * metadata (AFMT_FIELD_TEXT, in text order, named by key path) are told
 * to it, before their checks; a map header is then read by the exact
 * steps only (afmt_header_onepass.c tells no field). */
AFMT_GEN_API int afmt_header_arrays_validate(const afmt_header_arrays_desc *d, afmt_src *src, uint64_t end, uint64_t *pos,
                                     uint32_t *narrays, const afmt_options *opt, const afmt_visitor *vis,
                                     const afmt_path *path, afmt_error *err);

/* Write the header (length prefix included) and the payloads of arrays
 * (plain, little-endian; row-major, or column-major when the header has an
 * order key), in the order given, or for a map with write_sort in that
 * order (the header's entries and the payloads alike, so that a validator
 * reads them back in the written order).  A map with a metadata key writes wopt->metadata (a JSON object
 * of strings, checked) first, compactly.  The header's alignment counts
 * from sink->written.  Allocates an index of n entries and a buffer as
 * long as the metadata (freed before returning). */
AFMT_GEN_API int afmt_header_arrays_write(const afmt_header_arrays_desc *d, const afmt_array *arrays, size_t n,
                                  const afmt_write_options *wopt, afmt_sink *sink, afmt_error *err);

#ifdef __cplusplus
}
#endif
#endif /* AFMT_HEADER_ARRAYS_H */
