/* INTERNAL HEADER: for generated code and the runtime only, not an API (it
 * changes with AFMT_RUNTIME_ABI); programs include <afmt/afmt.h> and <afmt/<format>.h>. */
/* afmt runtime: text headers (a JSON object, or the Python dict literal
 * NumPy writes) parsed in place, without allocating.
 *
 * A header is a bounded region of the input.  afmt_th_parse checks the
 * whole of it once (syntax, UTF-8, string escapes, integer range, depth,
 * entries per container, duplicate keys in every object) and describes the
 * root value as an afmt_tv: a kind and a span of the text.  Nothing is
 * copied: afmt_th_get finds a key of an object and afmt_th_next walks the
 * entries of an object or the elements of a list by scanning the validated
 * text again, so memory stays constant whatever the header holds.
 *
 * Errors name the value by its key path and give its absolute byte offset:
 *   header["weight"].data_offsets[1] at offset 57: integer does not fit in 64 bits
 * Keys of objects marked as maps (afmt_th.map_depths) and keys that are not
 * identifiers are shown as ["key"], other keys as .key.
 *
 * Duplicate keys: keys that come in strictly increasing byte order (as
 * writers often list them) are distinct, which is checked as they come,
 * in constant memory.  Otherwise an object's first 8 keys are compared on
 * the stack.  A
 * longer object's keys are recorded in the caller's work area and sorted
 * there once, in place (O(k log k) for k keys whatever they hash to); with
 * no work area,
 * or one too small, they are checked in passes of 2,048 keys over the
 * object's text instead (constant memory, time quadratic in passes).
 * Reading values back (afmt_th_get, afmt_th_next) skims each value's
 * text once for its end, so walking an object costs its length.
 *
 * Thread-safety: all functions are reentrant; an afmt_th and its text are
 * only read.  Lifetimes: every afmt_tv points into the caller's text, which
 * must outlive it.
 */
#ifndef AFMT_TEXTHDR_H
#define AFMT_TEXTHDR_H

#include <stddef.h>
#include <stdint.h>
#include "../common/afmt_error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum afmt_th_syntax {
    AFMT_TH_JSON = 0,   /* RFC 8259 object, without floats, null */
    AFMT_TH_PYDICT = 1  /* Python literal: '...' or "..." strings, True/False,
                         * (tuples,) [lists,] {dicts,} with trailing commas */
} afmt_th_syntax;

typedef enum afmt_tv_kind {
    AFMT_TV_NONE = 0,
    AFMT_TV_OBJECT = 1,
    AFMT_TV_LIST = 2,   /* [a, b] */
    AFMT_TV_TUPLE = 3,  /* (a, b): Python only */
    AFMT_TV_STRING = 4,
    AFMT_TV_INT = 5,
    AFMT_TV_BOOL = 6
} afmt_tv_kind;

/* Nesting deeper than this is refused whatever max_depth says: the key path
 * of an error is kept on the stack with this many segments. */
#define AFMT_TH_DEPTH_CAP 32

typedef struct afmt_th {
    const uint8_t *text;   /* the header bytes */
    uint64_t len;
    uint64_t base;         /* absolute offset of text[0] in the file */
    afmt_th_syntax syntax;
    unsigned max_depth;    /* containers nested deeper are a limit error
                            * (0 or above AFMT_TH_DEPTH_CAP: the cap) */
    uint64_t max_entries;  /* most entries of one object or list (0: no limit) */
    const char *root;      /* the root's name in key paths ("header") */
    uint32_t map_depths;   /* bit d: keys of objects at depth d (root = 0) are
                            * names, shown as ["key"] */
    void *work;            /* optional, the caller's: see afmt_th_work_size */
    uint64_t work_size;    /* bytes at work */
} afmt_th;

/* A value: a span of the text.  For a string, [begin, end) excludes the
 * quotes and escapes are still encoded (compare with afmt_th_str_eq). */
typedef struct afmt_tv {
    afmt_tv_kind kind;
    uint64_t begin, end;   /* offsets in the text; the value's own bytes */
    uint64_t count;        /* object: entries; list/tuple: elements */
    uint64_t u;            /* int: magnitude; bool: 0 or 1 */
    int negative;          /* int: the value is -u (u > 0) */
    int escaped;           /* string: holds backslash escapes */
} afmt_tv;

/* One segment of a key path: an object key (its string value) or an index. */
typedef struct afmt_th_seg {
    int is_index;
    int is_map;            /* key of a map: shown as ["key"] */
    afmt_tv key;           /* when !is_index */
    uint64_t index;        /* when is_index */
} afmt_th_seg;

typedef struct afmt_th_path {
    unsigned depth;
    afmt_th_seg seg[AFMT_TH_DEPTH_CAP];
} afmt_th_path;

/* Parse the value that starts at text[from] after optional whitespace and
 * check all of it.  0 with *root filled (root->end is where the value ends:
 * what may follow is the caller's rule), or -1 with err naming the path and
 * the absolute offset.  Allocates nothing; stack use is bounded by
 * AFMT_TH_DEPTH_CAP.  outer, when given, prefixes paths (a repeat). */
int afmt_th_parse(const afmt_th *th, uint64_t from, afmt_tv *root, const afmt_path *outer,
                  afmt_error *err);

/* Bytes of work area (afmt_th.work) with which afmt_th_parse checks the
 * keys of every object of text[0, len) by sorting: 12 bytes per ':' in the
 * text, plus 108 (reads the text once).  The area is written during the
 * parse only, and may be reused or freed after it. */
uint64_t afmt_th_work_size(const uint8_t *text, uint64_t len);

/* Find key in an object parsed by afmt_th_parse: 1 and *out, or 0. */
int afmt_th_get(const afmt_th *th, const afmt_tv *obj, const char *key, afmt_tv *out);

/* Walk an object's entries or a list's/tuple's elements, in text order. */
typedef struct afmt_th_iter {
    uint64_t pos;      /* where the next entry starts; after the last one,
                        * past the container's closing bracket */
    uint64_t index;    /* entries returned so far */
    uint64_t count;    /* AFMT_TV_COUNT_UNKNOWN: until the closing bracket */
    int object;
    int done;
} afmt_th_iter;

/* The count of a container afmt_th_next_shallow has not skimmed. */
#define AFMT_TV_COUNT_UNKNOWN UINT64_MAX

void afmt_th_iter_begin(const afmt_th *th, const afmt_tv *container, afmt_th_iter *it);
/* 1 with the next entry (key is NULL-able and left untouched for lists), or
 * 0 after the last one. */
int afmt_th_next(const afmt_th *th, afmt_th_iter *it, afmt_tv *key, afmt_tv *val);

/* afmt_th_next that does not skim a container value: *val gets its kind
 * and begin, count AFMT_TV_COUNT_UNKNOWN and end 0, for the caller to walk
 * (afmt_th_iter_begin on it stops at its closing bracket, the walk's
 * iterator's pos then being its end); the caller then continues with
 * afmt_th_iter_resume(th, it, that end), or lets afmt_th_finish skim it.
 * So a caller that walks every entry reads each once.  Other values are
 * returned whole, as by afmt_th_next. */
int afmt_th_next_shallow(const afmt_th *th, afmt_th_iter *it, afmt_tv *key, afmt_tv *val);
void afmt_th_iter_resume(const afmt_th *th, afmt_th_iter *it, uint64_t end);
void afmt_th_finish(const afmt_th *th, afmt_th_iter *it, afmt_tv *val);

/* 1 when the string value equals the NUL-terminated UTF-8 text lit. */
int afmt_th_str_eq(const afmt_th *th, const afmt_tv *s, const char *lit);
/* Compare two string values byte-wise after decoding: <0, 0, >0. */
int afmt_th_str_cmp(const afmt_th *th, const afmt_tv *a, const afmt_tv *b);
/* Decode a string value into out (always NUL-terminated, truncated to
 * out_size - 1 bytes); returns the decoded length, which may be larger. */
uint64_t afmt_th_str_copy(const afmt_th *th, const afmt_tv *s, char *out, size_t out_size);

/* A value as a signed / unsigned 64-bit integer: 0, or -1 if it is not an
 * integer or does not fit. */
int afmt_th_as_i64(const afmt_tv *v, int64_t *out);
int afmt_th_as_u64(const afmt_tv *v, uint64_t *out);

/* Key paths for errors the caller finds in values (a wrong type, a failed
 * check): push the key or index, fail, pop. */
void afmt_th_path_key(afmt_th_path *p, const afmt_tv *key, int is_map);
void afmt_th_path_index(afmt_th_path *p, uint64_t index);
void afmt_th_path_pop(afmt_th_path *p);
/* Render root + path into out ("header[\"w\"].shape[1]"). */
void afmt_th_path_render(const afmt_th *th, const afmt_th_path *p, char *out, size_t out_size);
/* Fail with the rendered path as the field, at absolute offset base + at. */
int afmt_th_fail(const afmt_th *th, const afmt_th_path *p, const afmt_path *outer, afmt_error *err,
                 afmt_code code, uint64_t at, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 7, 8)))
#endif
    ;

/* 1 when p[0..n) is well-formed UTF-8 (no overlongs, no surrogates). */
int afmt_th_utf8_valid(const uint8_t *p, uint64_t n);

/* Name of a kind for messages ("a string", "an integer", ...). */
const char *afmt_tv_kind_name(afmt_tv_kind kind);

#ifdef __cplusplus
}
#endif
#endif /* AFMT_TEXTHDR_H */
