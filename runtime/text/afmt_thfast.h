/* INTERNAL HEADER: for generated code and the runtime only, not an API (it
 * changes with AFMT_RUNTIME_ABI); programs include <afmt/afmt.h> and <afmt/<format>.h>. */
/* afmt runtime (internal): the one-pass reader of a map header in JSON.
 *
 * afmt_thdir.c validates a map header (safetensors) in two steps that
 * report every problem exactly: afmt_th_parse checks the whole text, then
 * each entry is checked against the descriptor.  afmt_thfast_map does both
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
 * Thread-safety: reentrant.  Memory: the caller's list (afmt_thmap_list),
 * grown (one block, doubled) to the entries the text holds (48 + 1 bytes
 * per entry of at least 40 bytes of text).
 */
#ifndef AFMT_THFAST_H
#define AFMT_THFAST_H

#include <stddef.h>
#include <stdint.h>
#include "../array/afmt_dir.h"
#include "../common/afmt_options.h"
#include "afmt_texthdr.h"
#include "afmt_thdir.h"

/* Entries of a map header in listing order: the directory (names are the
 * raw key text, record_offset the absolute offset of the range's value)
 * and, per entry, whether its payload holds bools. */
#define AFMT_THMAP_STACK 32
/* Bytes of the parser's key area kept in the list itself (about 2,700
 * keys: a header of that many needs no malloc at all). */
#define AFMT_THMAP_STACK_WORK 32768

typedef struct afmt_thmap_list {
    afmt_dir_entry *e;
    uint8_t *is_bool;
    size_t n, cap;
    int heap;                                    /* e and is_bool were malloc'd */
    afmt_dir_entry stack_e[AFMT_THMAP_STACK];    /* the first entries: no malloc */
    uint8_t stack_bool[AFMT_THMAP_STACK];
    afmt_tv metadata;                            /* kind NONE when absent */
    void *work;                                  /* afmt_thmap_work's, when malloc'd */
    uint64_t stack_work[AFMT_THMAP_STACK_WORK / 8];
} afmt_thmap_list;

/* Allocation (I3 in docs/SECURITY.md): afmt_thmap_grow and
 * afmt_thmap_work are the only functions a validator reaches that
 * allocate, both in proportion to the header text already in memory, and
 * afmt_thmap_free gives everything back before the validator returns. */
void afmt_thmap_init(afmt_thmap_list *l);
/* A work area of size bytes for afmt_th_parse (afmt_th_work_size of the
 * text: 12 bytes per ':'), from the list's own area when it fits, else
 * malloc'd until afmt_thmap_free; NULL when memory runs out. */
void *afmt_thmap_work(afmt_thmap_list *l, uint64_t size);
/* Room for one more entry: 0, or -1 when memory runs out. */
int afmt_thmap_grow(afmt_thmap_list *l);
void afmt_thmap_free(afmt_thmap_list *l);

/* 1: the header text th (a JSON map of the descriptor d) is valid under
 * opt's limits as far as afmt_th_parse and the entry checks go; *root_end
 * is where the root object ends and l holds every entry (and the
 * metadata's value).  0: not decided here (l->n is then meaningless);
 * -1: out of memory. */
int afmt_thfast_map(const afmt_thdir_desc *d, const afmt_th *th, const afmt_options *opt, uint64_t *root_end,
                    afmt_thmap_list *l);

/* The scanner's state (afmt_thfast.c's): the text, its limits, and the
 * descriptor's keys as the reference writes an entry ({"k0": ,"k1": ...). */
#define AFMT_THFAST_LIT_MAX 40

typedef struct afmt_thfast_scan {
    const uint8_t *t;
    uint64_t len;
    uint64_t max_entries;   /* 0: none */
    size_t nkeys;
    size_t klen[8];         /* strlen of each key */
    size_t lit_len[8];      /* 0: a key too long for lit */
    char lit[8][AFMT_THFAST_LIT_MAX];
} afmt_thfast_scan;

/* The last type name found and its index in the descriptor's table. */
typedef struct afmt_thfast_type_cache {
    uint64_t b, e;
    int type;
} afmt_thfast_type_cache;

/* Views of the entries of a header validated before (either way), for a
 * visitor: one pass over each entry's object instead of check_entry's
 * lookups.  Set up once per header with afmt_thfast_viewer_init. */
typedef struct afmt_thfast_viewer {
    const afmt_thdir_desc *d;
    const afmt_th *th;
    int ok;                 /* the descriptor is one this reader takes */
    uint64_t max_rank;
    afmt_thfast_scan s;
    afmt_thfast_type_cache tc;
} afmt_thfast_viewer;

void afmt_thfast_viewer_init(afmt_thfast_viewer *v, const afmt_thdir_desc *d, const afmt_th *th,
                             const afmt_options *opt);
/* 1 with *a filled as check_entry fills it (type, rank, dims, count,
 * sizes) and its name (only names without escapes), 0 when this reader
 * does not take the entry (the caller then uses check_entry). */
int afmt_thfast_view(afmt_thfast_viewer *v, const afmt_dir_entry *e, afmt_array *a);

#endif /* AFMT_THFAST_H */
