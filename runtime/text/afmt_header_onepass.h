/* INTERNAL HEADER: for generated code and the runtime only, not an API (it
 * changes with AFMT_RUNTIME_ABI); programs include <afmt/afmt.h> and <afmt/<format>.h>. */
/* afmt runtime (internal): the one-pass reader of a map header in JSON.
 *
 * afmt_header_arrays.c validates a map header (safetensors) in two steps that
 * report every problem exactly: afmt_texthdr_parse checks the whole text, then
 * each entry is checked against the descriptor.  afmt_header_onepass_map does both
 * at once, in one pass over the text, for headers without anything
 * unusual: it accepts only what those two steps accept, and gives up
 * (returns 0) at the first thing it does not handle or that is wrong
 * (a string escape, a number that is not a plain unsigned integer, a
 * missing, unknown or repeated key, a refused type, a size that does not
 * add up, tensor names not in strictly increasing byte order, a limit
 * reached, ...).  The caller then runs the exact steps, which find the
 * problem, or none, and name it.  So the fast reader never decides a
 * verdict or a message alone; it only saves the time of headers that are
 * valid and written the way writers write them.
 *
 * Thread-safety: reentrant.  Memory: the caller's list (afmt_header_map_list),
 * grown (one block, doubled) to the entries the text holds (48 + 1 bytes
 * per entry of at least 40 bytes of text).
 */
#ifndef AFMT_HEADER_ONEPASS_H
#define AFMT_HEADER_ONEPASS_H

#include <stddef.h>
#include <stdint.h>
#include "../array/afmt_dir.h"
#include "../common/afmt_options.h"
#include "afmt_texthdr.h"
#include "afmt_header_arrays.h"

/* Entries of a map header in listing order: the directory (names are the
 * raw key text, record_offset the absolute offset of the range's value)
 * and, per entry, whether its payload holds bools. */
#define AFMT_THMAP_STACK 32
/* Bytes of the parser's key area kept in the list itself (about 2,700
 * keys: a header of that many needs no malloc at all). */
#define AFMT_THMAP_STACK_WORK 32768

typedef struct afmt_header_map_list {
    afmt_dir_entry *e;
    uint8_t *is_bool;
    size_t n, cap;
    int heap;                                    /* e and is_bool were malloc'd */
    afmt_dir_entry stack_e[AFMT_THMAP_STACK];    /* the first entries: no malloc */
    uint8_t stack_bool[AFMT_THMAP_STACK];
    afmt_texthdr_value metadata;                            /* kind NONE when absent */
    void *work;                                  /* afmt_header_map_work's, when malloc'd */
    uint64_t stack_work[AFMT_THMAP_STACK_WORK / 8];
} afmt_header_map_list;

/* Allocation (I3 in docs/SECURITY.md): afmt_header_map_grow and
 * afmt_header_map_work are the only functions a validator reaches that
 * allocate, both in proportion to the header text already in memory, and
 * afmt_header_map_free gives everything back before the validator returns. */
void afmt_header_map_init(afmt_header_map_list *l);
/* A work area of size bytes for afmt_texthdr_parse (afmt_texthdr_work_size of the
 * text: 12 bytes per ':'), from the list's own area when it fits, else
 * malloc'd until afmt_header_map_free; NULL when memory runs out. */
void *afmt_header_map_work(afmt_header_map_list *l, uint64_t size);
/* Room for one more entry: 0, or -1 when memory runs out. */
int afmt_header_map_grow(afmt_header_map_list *l);
void afmt_header_map_free(afmt_header_map_list *l);

/* 1: the header text hdr (a JSON map of the descriptor d) is valid under
 * opt's limits as far as afmt_texthdr_parse and the entry checks go; *root_end
 * is where the root object ends and l holds every entry (and the
 * metadata's value).  0: not decided here (l->n is then meaningless);
 * -1: out of memory. */
int afmt_header_onepass_map(const afmt_header_arrays_desc *d, const afmt_texthdr *hdr, const afmt_options *opt, uint64_t *root_end,
                    afmt_header_map_list *l);

/* The scanner's state (afmt_header_onepass.c's): the text, its limits, and the
 * descriptor's keys as the reference writes an entry ({"k0": ,"k1": ...). */
#define AFMT_HEADER_ONEPASS_LIT_MAX 40

typedef struct afmt_header_onepass_scan {
    const uint8_t *t;
    uint64_t len;
    uint64_t max_entries;   /* 0: none */
    size_t nkeys;
    size_t klen[8];         /* strlen of each key */
    size_t lit_len[8];      /* 0: a key too long for lit */
    char lit[8][AFMT_HEADER_ONEPASS_LIT_MAX];
} afmt_header_onepass_scan;

/* The last type name found and its index in the descriptor's table. */
typedef struct afmt_header_onepass_type_cache {
    uint64_t b, e;
    int type;
} afmt_header_onepass_type_cache;

/* Views of the entries of a header validated before (either way), for a
 * visitor: one pass over each entry's object instead of check_entry's
 * lookups.  Set up once per header with afmt_header_onepass_viewer_init. */
typedef struct afmt_header_onepass_viewer {
    const afmt_header_arrays_desc *d;
    const afmt_texthdr *hdr;
    int ok;                 /* the descriptor is one this reader takes */
    uint64_t max_rank;
    afmt_header_onepass_scan s;
    afmt_header_onepass_type_cache tc;
} afmt_header_onepass_viewer;

void afmt_header_onepass_viewer_init(afmt_header_onepass_viewer *v, const afmt_header_arrays_desc *d, const afmt_texthdr *hdr,
                             const afmt_options *opt);
/* 1 with *a filled as check_entry fills it (type, rank, dims, count,
 * sizes) and its name (only names without escapes), 0 when this reader
 * does not take the entry (the caller then uses check_entry). */
int afmt_header_onepass_view(afmt_header_onepass_viewer *v, const afmt_dir_entry *e, afmt_array *a);

#endif /* AFMT_HEADER_ONEPASS_H */
