/* afmt runtime: the one error type.
 *
 * An afmt_error is filled, never printed, by the runtime and by generated
 * code.  It says what went wrong (a stable code), where (byte offset and a
 * field path such as "array[2].dims[3]") and why (a human message that
 * carries expected and found values).  Codes are part of the ABI: new codes
 * are appended, existing values never change.
 */
#ifndef AFMT_ERROR_H
#define AFMT_ERROR_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum afmt_code {
    AFMT_OK = 0,
    AFMT_E_TRUNCATED = 1,     /* input ends inside a field or payload */
    AFMT_E_MAGIC = 2,         /* magic bytes or a fixed value differ */
    AFMT_E_CONSTRAINT = 3,    /* a field breaks a constraint of the spec */
    AFMT_E_UNKNOWN_TYPE = 4,  /* no entry of a type-code table matches */
    AFMT_E_OVERFLOW = 5,      /* a derived size does not fit in 64 bits */
    AFMT_E_LIMIT = 6,         /* a caller limit (rank, bytes, items) is exceeded */
    AFMT_E_TRAILING = 7,      /* bytes after the end of the structure */
    AFMT_E_PADDING = 8,       /* padding or pad bits are not zero */
    AFMT_E_VALUE = 9,         /* a payload element is not a valid value */
    AFMT_E_SIZE = 10,         /* a length field disagrees with its content */
    AFMT_E_NEGATIVE = 11,     /* a signed value used as a size is negative */
    AFMT_E_UNSUPPORTED = 12,  /* valid in the format, not supported by afmt */
    AFMT_E_IO = 13,           /* read/write/open failed */
    AFMT_E_USAGE = 14,        /* bad arguments from the caller */
    AFMT_E_NOMEM = 15,        /* allocation failed */
    AFMT_E_TYPE = 16,         /* target cannot hold this element type */
    AFMT_E_LOSSY = 17,        /* a value would change in conversion */
    AFMT_E_DETECT = 18,       /* input matches no known format */
    AFMT_E_CALLBACK = 19,     /* a visitor callback asked to stop */
    AFMT_E_DIVZERO = 20,      /* division by zero in a spec expression */
    AFMT_CODE_COUNT_
} afmt_code;

#define AFMT_FIELD_MAX 160
#define AFMT_MESSAGE_MAX 320
#define AFMT_FORMAT_NAME_MAX 24

typedef struct afmt_error {
    afmt_code code;
    uint64_t offset;                    /* byte offset the problem is at */
    char format[AFMT_FORMAT_NAME_MAX];  /* "rawarray", "" if none */
    char field[AFMT_FIELD_MAX];         /* "dims[2]", "array[1].dlen" */
    char message[AFMT_MESSAGE_MAX];     /* "expected 96 = ..., found 800" */
} afmt_error;

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

/* Stable lower-case name of a code ("truncated", "overflow", ...). */
const char *afmt_code_name(afmt_code code);

void afmt_error_clear(afmt_error *err);

/* Fill err and return -1.  field may be NULL; index is AFMT_NO_INDEX for a
 * scalar field, else the element index shown as "field[index]".  The path,
 * when given, is prefixed ("array[2].field").  The message is printf-style. */
int afmt_fail(afmt_error *err, afmt_code code, const afmt_path *path,
              const char *field, uint64_t index, uint64_t offset,
              const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 7, 8)))
#endif
    ;

/* Record which format an error belongs to (validators call it once). */
void afmt_error_set_format(afmt_error *err, const char *format);

/* "FIELD at offset N: MESSAGE" into out (always NUL-terminated).
 * Returns the length that would have been written, like snprintf. */
int afmt_error_describe(const afmt_error *err, char *out, size_t out_size);

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
