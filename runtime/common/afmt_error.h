/* INTERNAL HEADER: for generated code and the runtime only, not an API (it
 * changes with AFMT_RUNTIME_ABI); programs include <afmt/afmt.h> and <afmt/<format>.h>. */
/* afmt runtime (internal): filling the one error type.
 *
 * The public half (afmt_code, afmt_error, afmt_error_describe) is in
 * afmt.h; this header is for generated code and the runtime.
 *
 * An afmt_error is filled, never printed, by the runtime and by generated
 * code.  It says what went wrong (a stable code), where (byte offset and a
 * field path such as "array[2].dims[3]") and why (a human message that
 * carries expected and found values).  Codes are part of the ABI: new codes
 * are appended, existing values never change.
 */
#ifndef AFMT_ERROR_H
#define AFMT_ERROR_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include "../afmt.h"

#ifdef __cplusplus
extern "C" {
#endif


/* A field path: a small stack of (name, index) segments that generated code
 * pushes when it enters a repeated structure.  It is formatted only when an
 * error is reported, so the hot path costs two stores per iteration. */
#define AFMT_PATH_DEPTH 8
#define AFMT_NO_INDEX UINT64_MAX

typedef struct afmt_path_segment {
    const char *name;
    uint64_t index; /* AFMT_NO_INDEX when the segment is not repeated */
} afmt_path_segment;

typedef struct afmt_path {
    unsigned depth;
    afmt_path_segment seg[AFMT_PATH_DEPTH];
} afmt_path;


/* A function of a rare path (a failure, a short input, a slow case) that
 * a hot inline step calls out of line: GCC and clang keep it out of line
 * (noinline) and lay it out, and the branches that lead to it, as unlikely
 * (cold), so the hot steps stay small.  Elsewhere it is nothing. */
#if defined(__GNUC__) || defined(__clang__)
#define AFMT_COLD __attribute__((cold, noinline))
#else
#define AFMT_COLD
#endif

/* Fill err and return -1.  field may be NULL; index is AFMT_NO_INDEX for a
 * scalar field, else the element index shown as "field[index]".  The path,
 * when given, is prefixed ("array[2].field").  The message is printf-style. */
AFMT_GEN_API int afmt_fail(afmt_error *err, afmt_code code, const afmt_path *path,
                           const char *field, uint64_t index, uint64_t offset,
                           const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 7, 8)))
#endif
    ;
/* afmt_fail with the message's arguments as a va_list (for wrappers that
 * take their own "...": the message is formatted once). */
int afmt_failv(afmt_error *err, afmt_code code, const afmt_path *path, const char *field,
               uint64_t index, uint64_t offset, const char *fmt, va_list ap)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 7, 0)))
#endif
    ;

/* afmt_fail(err, AFMT_E_OVERFLOW, ...) with the message "`expr_text`
 * overflows 64 bits": what generated code says when checked arithmetic on
 * a spec's expression fails (one short call per operation).  Returns -1. */
AFMT_GEN_API int afmt_fail_overflow(afmt_error *err, const afmt_path *path, const char *field,
                                    uint64_t index, uint64_t offset, const char *expr_text);

/* Place an error already in err (a nested scanner's, blamed on its own
 * field and offset) in its caller's terms: err->field becomes
 * path + field (+ "[index]" unless AFMT_NO_INDEX) and err->offset becomes
 * offset; code, message and format are kept.  field may be NULL or point
 * into err->field itself.  Returns -1, as afmt_fail does.  Cheaper than
 * afmt_fail(err, code, path, field, index, offset, "%s", message) with a
 * copy of the message, which it equals. */
int afmt_error_reblame(afmt_error *err, const afmt_path *path, const char *field,
                       uint64_t index, uint64_t offset);

/* A writer's error from inside repetition index of repeat name (the
 * record of the array being written, the k-th key-value): err->field
 * "f" becomes "name[index].f" ("name[index]" when empty), so that a
 * refusal says which repetition; code, message and offset are kept.
 * Each enclosing repetition adds its own on the way out.  Returns -1. */
AFMT_GEN_API AFMT_COLD int afmt_error_within(afmt_error *err, const char *name, uint64_t index);

/* "array[2].field[index]" (the form errors name fields in) into out,
 * always NUL-terminated; field may be NULL, index AFMT_NO_INDEX. */
void afmt_path_describe(const afmt_path *path, const char *field, uint64_t index,
                        char *out, size_t out_size);

/* Record which format an error belongs to (validators call it once). */
void afmt_error_set_format(afmt_error *err, const char *format);


/* Path helpers used by generated code. */
static inline void afmt_path_push(afmt_path *p, const char *name, uint64_t index)
{
    if (p->depth < AFMT_PATH_DEPTH) {
        p->seg[p->depth].name = name;
        p->seg[p->depth].index = index;
    }
    p->depth++;
}

static inline void afmt_path_set_index(afmt_path *p, uint64_t index)
{
    if (p->depth > 0 && p->depth <= AFMT_PATH_DEPTH)
        p->seg[p->depth - 1].index = index;
}

static inline void afmt_path_pop(afmt_path *p)
{
    if (p->depth > 0)
        p->depth--;
}

#ifdef __cplusplus
}
#endif
#endif /* AFMT_ERROR_H */
