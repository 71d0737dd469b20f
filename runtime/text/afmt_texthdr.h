/* INTERNAL HEADER: for generated code and the runtime only, not an API (it
 * changes with AFMT_RUNTIME_ABI); programs include <afmt/afmt.h> and <afmt/<format>.h>. */
/* afmt runtime: text headers (a JSON object, or the Python dict literal
 * NumPy writes) parsed in place, without allocating.
 *
 * A header is a bounded region of the input.  afmt_texthdr_parse checks the
 * whole of it once (syntax, UTF-8, string escapes, integer range, depth,
 * entries per container, duplicate keys in every object) and describes the
 * root value as an afmt_texthdr_value: a kind and a span of the text.  Nothing is
 * copied: afmt_texthdr_get finds a key of an object and afmt_texthdr_next walks the
 * entries of an object or the elements of a list by scanning the validated
 * text again, so memory stays constant whatever the header holds.
 *
 * Errors name the value by its key path and give its absolute byte offset:
 *   header["weight"].data_offsets[1] at offset 57: integer does not fit in 64 bits
 * Keys of objects marked as maps (afmt_texthdr.map_depths) and keys that are not
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
 * Reading values back (afmt_texthdr_get, afmt_texthdr_next) skims each value's
 * text once for its end, so walking an object costs its length.
 *
 * Thread-safety: all functions are reentrant; an afmt_texthdr and its text are
 * only read.  Lifetimes: every afmt_texthdr_value points into the caller's text, which
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

typedef enum afmt_texthdr_syntax {
    AFMT_TEXTHDR_JSON = 0,   /* RFC 8259 object, without floats, null */
    AFMT_TEXTHDR_PYDICT = 1  /* Python literal: '...' or "..." strings, True/False,
                         * (tuples,) [lists,] {dicts,} with trailing commas */
} afmt_texthdr_syntax;

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
#define AFMT_TEXTHDR_DEPTH_CAP 32

typedef struct afmt_texthdr {
    const uint8_t *text;   /* the header bytes */
    uint64_t len;
    uint64_t base;         /* absolute offset of text[0] in the file */
    afmt_texthdr_syntax syntax;
    unsigned max_depth;    /* containers nested deeper are a limit error
                            * (0 or above AFMT_TEXTHDR_DEPTH_CAP: the cap) */
    uint64_t max_entries;  /* most entries of one object or list (0: no limit) */
    const char *root;      /* the root's name in key paths ("header") */
    uint32_t map_depths;   /* bit d: keys of objects at depth d (root = 0) are
                            * names, shown as ["key"] */
    void *work;            /* optional, the caller's: see afmt_texthdr_work_size */
    uint64_t work_size;    /* bytes at work */
} afmt_texthdr;

/* A value: a span of the text.  For a string, [begin, end) excludes the
 * quotes and escapes are still encoded (compare with afmt_texthdr_str_eq). */
typedef struct afmt_texthdr_value {
    afmt_tv_kind kind;
    uint64_t begin, end;   /* offsets in the text; the value's own bytes */
    uint64_t count;        /* object: entries; list/tuple: elements */
    uint64_t u;            /* int: magnitude; bool: 0 or 1 */
    int negative;          /* int: the value is -u (u > 0) */
    int escaped;           /* string: holds backslash escapes */
} afmt_texthdr_value;

/* One segment of a key path: an object key (its string value) or an index. */
typedef struct afmt_texthdr_seg {
    int is_index;
    int is_map;            /* key of a map: shown as ["key"] */
    afmt_texthdr_value key;           /* when !is_index */
    uint64_t index;        /* when is_index */
} afmt_texthdr_seg;

typedef struct afmt_texthdr_path {
    unsigned depth;
    afmt_texthdr_seg seg[AFMT_TEXTHDR_DEPTH_CAP];
} afmt_texthdr_path;

/* Parse the value that starts at text[from] after optional whitespace and
 * check all of it.  0 with *root filled (root->end is where the value ends:
 * what may follow is the caller's rule), or -1 with err naming the path and
 * the absolute offset.  Allocates nothing; stack use is bounded by
 * AFMT_TEXTHDR_DEPTH_CAP.  outer, when given, prefixes paths (a repeat). */
int afmt_texthdr_parse(const afmt_texthdr *hdr, uint64_t from, afmt_texthdr_value *root, const afmt_path *outer,
                  afmt_error *err);

/* Bytes of work area (afmt_texthdr.work) with which afmt_texthdr_parse checks the
 * keys of every object of text[0, len) by sorting: 12 bytes per ':' in the
 * text, plus 108 (reads the text once).  The area is written during the
 * parse only, and may be reused or freed after it. */
uint64_t afmt_texthdr_work_size(const uint8_t *text, uint64_t len);

/* Find key in an object parsed by afmt_texthdr_parse: 1 and *out, or 0. */
int afmt_texthdr_get(const afmt_texthdr *hdr, const afmt_texthdr_value *obj, const char *key, afmt_texthdr_value *out);

/* Walk an object's entries or a list's/tuple's elements, in text order. */
typedef struct afmt_texthdr_iter {
    uint64_t pos;      /* where the next entry starts; after the last one,
                        * past the container's closing bracket */
    uint64_t index;    /* entries returned so far */
    uint64_t count;    /* AFMT_TV_COUNT_UNKNOWN: until the closing bracket */
    int object;
    int done;
} afmt_texthdr_iter;

/* The count of a container afmt_texthdr_next_shallow has not skimmed. */
#define AFMT_TV_COUNT_UNKNOWN UINT64_MAX

void afmt_texthdr_iter_begin(const afmt_texthdr *hdr, const afmt_texthdr_value *container, afmt_texthdr_iter *it);
/* 1 with the next entry (key is NULL-able and left untouched for lists), or
 * 0 after the last one. */
int afmt_texthdr_next(const afmt_texthdr *hdr, afmt_texthdr_iter *it, afmt_texthdr_value *key, afmt_texthdr_value *val);

/* afmt_texthdr_next that does not skim a container value: *val gets its kind
 * and begin, count AFMT_TV_COUNT_UNKNOWN and end 0, for the caller to walk
 * (afmt_texthdr_iter_begin on it stops at its closing bracket, the walk's
 * iterator's pos then being its end); the caller then continues with
 * afmt_texthdr_iter_resume(hdr, it, that end), or lets afmt_texthdr_finish skim it.
 * So a caller that walks every entry reads each once.  Other values are
 * returned whole, as by afmt_texthdr_next. */
int afmt_texthdr_next_shallow(const afmt_texthdr *hdr, afmt_texthdr_iter *it, afmt_texthdr_value *key, afmt_texthdr_value *val);
void afmt_texthdr_iter_resume(const afmt_texthdr *hdr, afmt_texthdr_iter *it, uint64_t end);
void afmt_texthdr_finish(const afmt_texthdr *hdr, afmt_texthdr_iter *it, afmt_texthdr_value *val);

/* 1 when the string value equals the NUL-terminated UTF-8 text lit. */
int afmt_texthdr_str_eq(const afmt_texthdr *hdr, const afmt_texthdr_value *s, const char *lit);
/* Compare two string values byte-wise after decoding: <0, 0, >0. */
int afmt_texthdr_str_cmp(const afmt_texthdr *hdr, const afmt_texthdr_value *a, const afmt_texthdr_value *b);
/* Decode a string value into out (always NUL-terminated, truncated to
 * out_size - 1 bytes); returns the decoded length, which may be larger. */
uint64_t afmt_texthdr_str_copy(const afmt_texthdr *hdr, const afmt_texthdr_value *s, char *out, size_t out_size);

/* A value as a signed / unsigned 64-bit integer: 0, or -1 if it is not an
 * integer or does not fit. */
int afmt_texthdr_as_i64(const afmt_texthdr_value *v, int64_t *out);
int afmt_texthdr_as_u64(const afmt_texthdr_value *v, uint64_t *out);

/* Key paths for errors the caller finds in values (a wrong type, a failed
 * check): push the key or index, fail, pop. */
void afmt_texthdr_path_key(afmt_texthdr_path *p, const afmt_texthdr_value *key, int is_map);
void afmt_texthdr_path_index(afmt_texthdr_path *p, uint64_t index);
void afmt_texthdr_path_pop(afmt_texthdr_path *p);
/* Render root + path into out ("header[\"w\"].shape[1]"). */
void afmt_texthdr_path_render(const afmt_texthdr *hdr, const afmt_texthdr_path *p, char *out, size_t out_size);
/* Fail with the rendered path as the field, at absolute offset base + at. */
int afmt_texthdr_fail(const afmt_texthdr *hdr, const afmt_texthdr_path *p, const afmt_path *outer, afmt_error *err,
                 afmt_code code, uint64_t at, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 7, 8)))
#endif
    ;

/* 1 when p[0..n) is well-formed UTF-8 (no overlongs, no surrogates). */
int afmt_texthdr_utf8_valid(const uint8_t *p, uint64_t n);

/* Name of a kind for messages ("a string", "an integer", ...). */
const char *afmt_tv_kind_name(afmt_tv_kind kind);

#ifdef __cplusplus
}
#endif
#endif /* AFMT_TEXTHDR_H */
