/* INTERNAL HEADER: for generated code and the runtime only, not an API (it
 * changes with AFMT_RUNTIME_ABI); programs include <afmt/afmt.h> and <afmt/<format>.h>. */
/* afmt runtime: a directory of arrays in a data area.
 *
 * Many formats list their arrays in a header (a name, an offset, a size)
 * and put the payloads in one data area after it: safetensors' JSON map,
 * GGUF's tensor infos.  afmt_dir_check decides whether such a list is a
 * valid layout of the area under a format's policy, and names the first
 * entry that is not, with true numbers:
 *
 *   header["b"].data_offsets at offset 113: overlaps "a" (bytes [0, 16))
 *   header["a"].data_offsets at offset 57: a hole: bytes [0, 4) of the data belong to no entry
 *   tensor_infos[3].offset at offset 301: offset 40 is not a multiple of the alignment 32
 *
 * The policy (afmt_dir_policy) says:
 *   order   AFMT_DIR_LISTED: entries must come in data order as listed
 *           (each begins at or after the previous one's end); time O(n),
 *           no scratch.  AFMT_DIR_ANY: any listing order; the entries are
 *           copied into the caller's scratch (n entries) and sorted by
 *           (begin, end, index) there, in place: O(n) when they are
 *           listed in data order already, else O(n log n) (introsort),
 *           no allocation.
 *   layout  AFMT_DIR_TILE: each entry begins exactly where the previous
 *           one ends rounded up to align (the first at 0): no hole.
 *           AFMT_DIR_HOLES: gaps between entries are allowed.
 *           Overlaps are refused under every policy.
 *   align   every entry's begin is a multiple of it (1 = any byte; any
 *           value >= 1, a power of two or not; 0 is taken as 1).
 *   area    the data area's size in bytes, or AFMT_DIR_AREA_OPEN when the
 *           caller checks the area's end itself (then only *covered, the
 *           end of the last entry, is computed).
 *   tail    what may follow the last entry's end inside a known area:
 *           AFMT_DIR_TAIL_NONE (nothing: the area ends there) or
 *           AFMT_DIR_TAIL_PAD (at most the padding up to the next multiple
 *           of align).  An empty directory has an empty area (NONE) or an
 *           area of 0 bytes (PAD: padding of nothing is nothing).
 *
 * Checks, in this order for each entry in data order (listed order for
 * LISTED, sorted order for ANY): begin + size must not pass 2^64 (an
 * overflow, AFMT_E_OVERFLOW); it must not begin before the previous entry
 * ends (an overlap, or for LISTED an entry listed out of data order;
 * AFMT_E_CONSTRAINT); begin must be a multiple of align (AFMT_E_CONSTRAINT);
 * under TILE it must begin exactly where the previous one ended, rounded up
 * (a hole, AFMT_E_CONSTRAINT); in a known area it must end inside it
 * (AFMT_E_SIZE).  Then the tail (AFMT_E_TRAILING).  A zero-size entry
 * occupies no byte but still has a place: [16, 16) after [0, 16) tiles,
 * [4, 4) inside [0, 16) overlaps.
 *
 * Errors: the first problem only, through afmt_fail (code, field, offset,
 * message).  The field names the entry: policy->field renders it (for
 * example header["b"].data_offsets) or, without it, the entry's name is
 * the field.  The offset is the entry's record_offset (the byte of the
 * record that declared it).  Names in messages are shown as given, cut to
 * 63 bytes.  Errors about the area's tail name policy->area_field at the
 * absolute offset policy->area_base + the first unexplained byte.
 *
 * Memory: none allocated; the caller owns entries and scratch.  Entries
 * and their names are only read (scratch is written under AFMT_DIR_ANY).
 * Thread-safety: reentrant; nothing global.
 */
#ifndef AFMT_DIR_H
#define AFMT_DIR_H

#include <stddef.h>
#include <stdint.h>
#include "../common/afmt_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One array of the directory. */
typedef struct afmt_dir_entry {
    uint64_t begin;          /* first byte, relative to the data area */
    uint64_t size;           /* bytes */
    uint64_t index;          /* position in the listing (ties of the sort
                              * keep listing order; reported back as is) */
    const char *name;        /* for messages (not NUL-terminated) */
    size_t name_len;
    uint64_t record_offset;  /* absolute offset of the record declaring it */
} afmt_dir_entry;

typedef enum afmt_dir_order {
    AFMT_DIR_LISTED = 0,     /* listed in data order, or refused */
    AFMT_DIR_ANY = 1         /* any order: sorted in the caller's scratch */
} afmt_dir_order;

typedef enum afmt_dir_layout {
    AFMT_DIR_TILE = 0,       /* no hole: each begins at the previous end, aligned */
    AFMT_DIR_HOLES = 1       /* gaps allowed */
} afmt_dir_layout;

typedef enum afmt_dir_tail {
    AFMT_DIR_TAIL_NONE = 0,  /* the area ends with the last entry */
    AFMT_DIR_TAIL_PAD = 1    /* ... or after its padding to align */
} afmt_dir_tail;

#define AFMT_DIR_AREA_OPEN UINT64_MAX

typedef struct afmt_dir_policy {
    afmt_dir_order order;
    afmt_dir_layout layout;
    afmt_dir_tail tail;
    uint64_t align;          /* 1 (or 0): none */
    uint64_t area_size;      /* bytes, or AFMT_DIR_AREA_OPEN */
    uint64_t area_base;      /* absolute offset of the area (tail errors) */
    const char *area_field;  /* field of tail errors ("data"; NULL: none) */
    const afmt_path *path;   /* prefix of every field (may be NULL) */
    /* Renders the field that names entry e into out (always terminate);
     * NULL: the entry's name.  Called only when an error is reported. */
    void (*field)(void *ctx, const afmt_dir_entry *e, char *out, size_t out_size);
    void *field_ctx;
} afmt_dir_policy;

/* Check entries[0, n) against the policy.  scratch: n entries, written
 * under AFMT_DIR_ANY (may be NULL under AFMT_DIR_LISTED, or may equal
 * entries to sort them in place).  On success, 0; *covered (when given)
 * is the end of the last entry in data order (0 for none), and under
 * AFMT_DIR_ANY scratch holds the entries in data order (by begin, end,
 * index), for the caller to visit them in that order.  On the first
 * problem, -1 with err filled. */
int afmt_dir_check(const afmt_dir_policy *policy, const afmt_dir_entry *entries, size_t n,
                   afmt_dir_entry *scratch, uint64_t *covered, afmt_error *err);

/* Sort entries[0, n) in place by (begin, end, index): O(n) when they are
 * in that order already, else O(n log n) worst case, no allocation. */
void afmt_dir_sort(afmt_dir_entry *entries, size_t n);

#ifdef __cplusplus
}
#endif
#endif /* AFMT_DIR_H */
