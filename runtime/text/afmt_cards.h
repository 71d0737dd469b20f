/* INTERNAL HEADER: for generated code and the runtime only, not an API (it
 * changes with AFMT_RUNTIME_ABI); programs include <afmt/afmt.h> and <afmt/<format>.h>. */
/* afmt runtime: text headers of fixed-width records ("cards") and the data
 * units they describe (FITS; spec/LANGUAGE.md, "Card headers").
 *
 * afmt-gen compiles a spec's "cards" item into an afmt_cards_desc: the
 * record width, the key field (width, charset, justification), the value
 * indicator and the keys that never take one, the terminator record, the
 * block size and fill bytes, the types a key's value selects, and the
 * kinds of unit (a header and its data): the keys each requires first, in
 * order (an indexed run NAME1..NAMEn counted by an earlier value), the
 * keys it reads when present, those it refuses.  afmt_cards_validate
 * carries out that description; it knows no format.
 *
 * Values are parsed in place, one record at a time (a stream keeps one
 * record in its window), and never allocated: axes go straight into the
 * view's dims (those past AFMT_RANK_CAP are counted, not kept), the data
 * size is multiplied as they are read with overflow checks, a zero axis
 * making it zero whatever the others are.
 *
 * Thread-safety: reentrant; descriptors are constant data.
 */
#ifndef AFMT_CARDS_H
#define AFMT_CARDS_H

#include <stddef.h>
#include <stdint.h>
#include "../afmt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The kind of value a key takes. */
typedef enum afmt_cards_vt {
    AFMT_CV_ANY = 0,     /* any value, or none */
    AFMT_CV_INT = 1,     /* [+-]digits, in 64 bits */
    AFMT_CV_REAL = 2,    /* a number: an integer or a real */
    AFMT_CV_STRING = 3,  /* '...' */
    AFMT_CV_LOGICAL = 4, /* T or F */
    AFMT_CV_COMPLEX = 5  /* (re, im) */
} afmt_cards_vt;

/* What a key's value means to the data unit. */
typedef enum afmt_cards_role {
    AFMT_CR_NONE = 0,
    AFMT_CR_TYPE = 1,   /* an integer selecting the element type (types) */
    AFMT_CR_RANK = 2,   /* the number of axes: the count of the run */
    AFMT_CR_AXES = 3,   /* the run: the axes, fastest first */
    AFMT_CR_EXTRA = 4,  /* elements added to the axes' product (per group) */
    AFMT_CR_GROUPS = 5, /* groups: multiplies the data size */
    AFMT_CR_NAME = 6,   /* a string naming the unit's view */
    AFMT_CR_SCALE = 7,  /* reported: the scale of stored values */
    AFMT_CR_ZERO = 8    /* reported: the offset of stored values */
} afmt_cards_role;

typedef enum afmt_cards_refuse {
    AFMT_CRF_NO = 0,
    AFMT_CRF_ALWAYS = 1, /* the key is refused in every mode */
    AFMT_CRF_STRICT = 2  /* refused strict, a warning lenient */
} afmt_cards_refuse;

typedef struct afmt_cards_key {
    const char *key;      /* the key; a run's stem ("NAXIS": NAXIS1, ...) */
    int run;              /* 1: an indexed run, counted by the RANK value */
    afmt_cards_vt type;
    afmt_cards_role role;
    int fixed;            /* its value in fixed format (strict; a warning lenient) */
    int has_min, has_max;
    int64_t min, max;
    int logical;          /* -1 any; 0 or 1: F or T required */
    int refuse_logical;   /* -1 none; 0 or 1: this value refused in every mode */
    const char *string;   /* required string (trailing spaces not significant), or NULL */
    int int_types_only;   /* allowed only when the element type is an integer */
    afmt_cards_refuse refuse;
    const char *message;  /* the rule's reason, in messages (or NULL) */
} afmt_cards_key;

typedef struct afmt_cards_unit {
    const char *name;     /* "primary", "image": in messages */
    int first;            /* 1: the file's first unit; 0: a unit after it */
    const char *select;   /* after the first: the first key's string value that
                           * selects this kind; NULL: any other (the fallback) */
    int skip;             /* 1: not read: refused strict, skipped by its size lenient */
    const afmt_cards_key *required; /* in order, first; required[0] starts the unit */
    size_t nrequired;
    const afmt_cards_key *optional; /* read (or refused) when present */
    size_t noptional;
} afmt_cards_unit;

typedef struct afmt_cards_type {
    int64_t value;        /* of the TYPE key */
    afmt_dtype dtype;
} afmt_cards_type;

/* A convention of scale and zero that makes the stored type another
 * logical one (FITS: BZERO 32768 on 16-bit integers is u16). */
typedef struct afmt_cards_conv {
    int64_t type;         /* the TYPE value */
    const char *zero;     /* the ZERO value, a decimal number */
    const char *scale;    /* the SCALE value (a missing one is 1) */
    afmt_dtype logical;
} afmt_cards_conv;

typedef struct afmt_cards_desc {
    const char *format;   /* for messages */
    uint32_t record;      /* bytes per record (80) */
    uint32_t key_width;   /* bytes of the key field (8) */
    const char *key_chars; /* the bytes a key may hold */
    const char *indicator; /* the value indicator after the key ("= ") */
    const char *const *commentary; /* keys of free text, never a value ("" blank) */
    size_t ncommentary;
    const char *end;      /* the terminator's key ("END"), the rest spaces */
    const char *cont;     /* the key continuing a string ending in '&', or NULL */
    uint64_t block;       /* header and data each end at a multiple of this */
    int fill;             /* header bytes after the terminator */
    int data_fill;        /* data bytes after the data */
    int byte_min, byte_max; /* the bytes a record may hold */
    uint32_t fixed_end;   /* fixed format: a logical or integer ends in this byte (1-based) */
    uint32_t fixed_string; /* fixed format: a string from the byte after the
                            * indicator, of at least this many characters */
    afmt_endian endian;   /* of the data */
    afmt_order order;     /* of the axes: column-major, the run's first fastest */
    const afmt_cards_type *types;
    size_t ntypes;
    const afmt_cards_conv *convs;
    size_t nconvs;
    const afmt_cards_unit *units;
    size_t nunits;
} afmt_cards_desc;

/* Validate units from c->pos to end: the first unit, then units after it
 * for as long as the bytes there start with the key that starts one (the
 * rest is left to the spec's trailer rule).  Each unit with data hands a
 * view to the visitor (named by its NAME value, else the first unit's
 * name or "hdu<N>"); fields: each value a unit reads, as text, named
 * "<unit>.<KEY>".  0, or -1 with c->err set. */
struct afmt_validation;
AFMT_GEN_API int afmt_cards_validate(struct afmt_validation *c, const afmt_cards_desc *d, uint64_t end);

/* Write arrays: the first as the first unit, the others as units of the
 * first kind after it that has a "select" and is not skipped (none: one
 * array only).  Each header holds the required keys in fixed format, from
 * their binds (type, rank, axes) or their "equals", the NAME key of a
 * named array after the first, the terminator, fill to the block; then the
 * data in the descriptor's byte order, data_fill to the block.  Arrays are
 * plain, in the descriptor's order; their types are in the type table,
 * their rank at least 1. */
AFMT_GEN_API int afmt_cards_write(const afmt_cards_desc *d, const afmt_array *arrays, size_t n,
                                  const afmt_write_options *wopt, afmt_sink *sink, afmt_error *err);

#ifdef __cplusplus
}
#endif
#endif /* AFMT_CARDS_H */
