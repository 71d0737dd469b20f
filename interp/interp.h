/* afmt reference interpreter: what its files share (afmt_interp.h is the
 * public interface).
 *
 * A run (irun) walks the spec's items over the runtime's validator context
 * (afmt_validation, runtime/core/afmt_step.h).  The names the items define are
 * symbols (isym) on a stack: a repeat's body and a switch case pop theirs,
 * a region's stay visible, as in the language.  A symbol carries what the
 * generated code keeps in its locals: a value, the offset a failure at it
 * names, an array field's place, a lookup's element type.
 *
 * Every function that can fail returns 0 to go on or -1 after filling
 * c->err, as the generated code's steps do.
 */
#ifndef AFMT_INTERP_INTERNAL_H
#define AFMT_INTERP_INTERNAL_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "afmt_interp.h"
#include "core/afmt_step.h"
#include "text/afmt_meta.h"
#include "text/afmt_header_arrays.h"
#include "archive/afmt_archive.h"
#include "pickle/afmt_pickle.h"
#include "common/afmt_unique_keys.h"
#include "array/afmt_dir_records.h"
#include "core/afmt_value.h"
#include "emit.h" /* the spec model (spec.h) and find_table */

typedef enum isym_kind {
    IS_INT,     /* an integer field or a let: a value */
    IS_ARRF,    /* an integer array field: count elements at off */
    IS_TEXT,    /* a bytes or text field: size bytes at off */
    IS_LOOKUP,  /* a lookup: an element type */
    IS_PAYLOAD, /* an array item */
    IS_INDEX,   /* `index` inside "each" */
    IS_STRINGS, /* length-prefixed strings: count of them at off */
    IS_STR,     /* one length-prefixed string: count bytes at off + width */
    IS_FLOAT,   /* a float field: its value f (width: 4 or 8 bytes) */
    IS_FARR     /* a float array field: count elements of width bytes at off */
} isym_kind;

typedef struct isym {
    isym_kind kind;
    const char *name;
    const item *it;
    vtype t;          /* IS_INT, IS_INDEX: VT_U or VT_S; IS_ARRF: its elements' */
    uint64_t v;       /* IS_INT, IS_INDEX: the value (a signed one's bits) */
    uint64_t off;     /* where a failure blamed on it is (unless off_is_pos) */
    int off_is_pos;   /* a let: a failure blamed on it is where the cursor is then */
    uint64_t count;   /* IS_ARRF, IS_STRINGS; IS_STR: its length */
    int width, is_signed, big; /* IS_ARRF (IS_STRINGS, IS_STR: width of the length) */
    int size;         /* IS_TEXT */
    afmt_elem el;     /* IS_LOOKUP */
    double f;         /* IS_FLOAT */
} isym;

/* The field a failure is blamed on: name ("" for none), element index
 * (AFMT_NO_INDEX for none) and offset (the cursor's when at_pos). */
typedef struct iblame {
    const char *field;
    uint64_t index;
    uint64_t off;
    int at_pos;
} iblame;

/* The state of blocks that tile a matrix (a repeat with "tiles"). */
typedef struct itiles {
    const item *repeat;
    afmt_tiles *set;
    int placed;       /* this repetition's block is in the set */
} itiles;

/* The records a repeat keeps for a directory (runtime/array/afmt_dir_records.h). */
typedef struct idir {
    const item *repeat;
    afmt_dir_list list;
} idir;

/* The symbol stacks of named structures' bodies, one per nesting depth,
 * kept for the whole run: a body at depth d is the only one live there,
 * so its stack is reused by the next body at d instead of allocated per
 * call (GGUF: one call per key-value and per tensor).  The first depths
 * and stacks are in the pool itself (a run on the stack): a run of small
 * structures -- every fuzz input -- allocates nothing. */
#define ISYM_POOL_DEPTHS 8
#define ISYM_POOL_LOCAL 64    /* symbols (GGUF's deepest stack needs 11) */
typedef struct isym_pool {
    isym **stacks;            /* stacks[d]: caps[d] symbols, or NULL */
    int *caps;
    uint64_t depths;          /* entries of stacks and caps */
    isym *local_stacks[ISYM_POOL_DEPTHS]; /* stacks and caps while depths is ISYM_POOL_DEPTHS */
    int local_caps[ISYM_POOL_DEPTHS];
    int local_used;           /* symbols of local given to stacks */
    isym local[ISYM_POOL_LOCAL];
} isym_pool;

typedef struct irun {
    const afmt_interp *in;
    afmt_validation *c;
    isym *syms;
    int nsyms, cap;
    isym_pool *pool;          /* the run's (shared by the scopes of a run) */
    const uint64_t *comments; /* skipped_comments() of the innermost skipping repeat, or NULL */
    itiles *tiles;            /* the innermost tiled repeat, or NULL */
    const item *unique_repeat;     /* the innermost repeat, when it has a "unique" key (else NULL) */
    afmt_unique_keys *unique_keys;          /* its keys */
    uint64_t rep_index;       /* the innermost repeat's repetition */
    idir **dirs;              /* the lists of the repeats a directory names */
    int ndirs;
} irun;

/* A grammar of text values (a "text_value" item's "grammar"). */
typedef struct igrammar {
    const char *name;
    afmt_text_scan_fn scan;
    int (*decode)(const afmt_array *, uint8_t *, uint64_t, afmt_error *);
} igrammar;

/* A text header's runtime descriptor, built from the model at load. */
typedef struct ithdr {
    const item *it;
    afmt_header_arrays_desc desc;
} ithdr;

/* An archive's runtime descriptor (and its pickles'), built from the
 * model at load as gen/archive_emit.c renders it (interp_archive.c). */
typedef struct iarchive {
    const item *it;
    afmt_archive_desc desc;
} iarchive;

/* A metadata repeat's value grammar (interp_value.c), built from the
 * model at load as afmt-gen emits it. */
typedef struct ikv {
    const item *repeat;
    const char *type_field;   /* the repetition's field holding the value's type code */
    afmt_value_grammar g;     /* its cases are the interpreter's (ikv_free) */
} ikv;

/* What the load works out once for an item (interp_aux.c). */
typedef struct iaux {
    const item *it;           /* NULL: a free slot */
    int struct_index;         /* IT_STRUCT: its structure in s->structs (-1: none) */
    int16_t *case_of;         /* IT_SWITCH: case_of[v], v <= case_max: the case v selects (-1: none);
                               * NULL: values too large for a table, searched */
    uint64_t case_max;
} iaux;

struct afmt_interp {
    const spec *s;             /* its names interned (iintern_names) */
    const char *index_name;    /* the pointer of the name `index` */
    afmt_format format;        /* name, extensions, detect... (validate: NULL) */
    afmt_meta_desc sidecar;    /* the spec's sidecar (format.sidecar points here), if any */
    const char **extensions;   /* NULL-terminated */
    const char **shared_extensions; /* NULL-terminated */
    int max_syms;              /* the most symbols a run can hold */
    int *struct_syms;          /* [i]: the most a body of s->structs[i] holds */
    ithdr *thdrs;
    int nthdrs;
    ikv *kvs;                  /* the metadata repeats' grammars */
    int nkvs;
    iarchive *archives;
    int narchives;
    iaux *aux;                 /* by item address, aux_mask + 1 slots */
    size_t aux_mask;
};

/* ---- names (interp_names.c): every name of s made one pointer per
 * spelling, so that lookups compare pointers; returns the pointer of
 * `index`. */
const char *iintern_names(spec *s);

/* ---- per-item data (interp_aux.c): built at load, freed by iaux_free;
 * iaux_of: an item's, or NULL */
void iaux_collect(afmt_interp *in);
void iaux_free(afmt_interp *in);

static inline size_t iaux_slot(const afmt_interp *in, const item *it)
{
    return (size_t)(((uint64_t)(uintptr_t)it >> 3) * 0x9E3779B97F4A7C15u >> 40) & in->aux_mask;
}

static inline const iaux *iaux_of(const afmt_interp *in, const item *it)
{
    size_t k;
    if (!in->aux) return NULL;
    for (k = iaux_slot(in, it); in->aux[k].it; k = (k + 1) & in->aux_mask)
        if (in->aux[k].it == it) return &in->aux[k];
    return NULL;
}

/* ---- symbols (interp_run.c).  What every item does -- push a symbol,
 * find one -- is inline: a run is mostly that. */
static inline isym *isym_push(irun *r, isym_kind kind, const item *it)
{
    isym *y;
    if (r->nsyms >= r->cap) abort(); /* the capacity is counted from the spec at load: a bug */
    y = &r->syms[r->nsyms++];
    memset(y, 0, sizeof *y);
    y->kind = kind;
    y->it = it;
    y->name = it->name;
    return y;
}

/* isym_find's search by spelling: a name not interned, or not in scope */
isym *isym_find_spelled(const irun *r, const char *name);

/* the innermost symbol of that name (a name is defined once in scope:
 * afmt-gen's checks; an "each" element shadows its array field) */
static inline isym *isym_find(const irun *r, const char *name)
{
    int i;
    /* by pointer: the load interned every name a symbol is pushed under
     * and every name the model reads (interp_names.c) */
    for (i = r->nsyms - 1; i >= 0; i--)
        if (r->syms[i].name == name) return &r->syms[i];
    return isym_find_spelled(r, name);
}

static inline int isym_mark(const irun *r) { return r->nsyms; }
static inline void isym_pop_to(irun *r, int mark) { r->nsyms = mark; }

/* isym_pool_stack when the pool has no such stack yet */
isym *isym_pool_grow(isym_pool *pool, uint64_t depth, int cap);

/* The stack of cap symbols for a structure's body at depth (grown, or
 * made, as needed; owned by pool), or NULL when out of memory. */
static inline isym *isym_pool_stack(isym_pool *pool, uint64_t depth, int cap)
{
    /* nothing at this depth is live while a body enters it */
    if (depth < pool->depths && pool->caps[depth] >= cap) return pool->stacks[depth];
    return isym_pool_grow(pool, depth, cap);
}
void isym_pool_init(isym_pool *pool);
void isym_pool_free(isym_pool *pool);

/* ---- blame and failure (interp_run.c); the blames are made by every
 * item, so they are inline */
static inline iblame iblame_at(const char *field, uint64_t index, uint64_t off)
{
    iblame b;
    b.field = field ? field : "";
    b.index = index;
    b.off = off;
    b.at_pos = 0;
    return b;
}

static inline iblame iblame_pos(const char *field)
{
    iblame b = iblame_at(field, AFMT_NO_INDEX, 0);
    b.at_pos = 1;
    return b;
}

/* blame_of: a symbol (its name and offset), or nothing (NULL: "", cursor) */
static inline iblame iblame_of(const isym *y)
{
    iblame b;
    if (!y) return iblame_pos("");
    b = iblame_at(y->name, AFMT_NO_INDEX, y->off);
    b.at_pos = y->off_is_pos;
    return b;
}
uint64_t iblame_off(const irun *r, const iblame *b);
/* A failure (or, len LEN_WARN, a tolerance: 0 to go on) blamed on b. */
int ifail(irun *r, const iblame *b, afmt_code code, leniency len, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;
int ioverflow(irun *r, const iblame *b, const char *text);
/* "constraint", "unknown-type", ... (a spec's "code") as an afmt_code */
afmt_code icode(const char *name, afmt_code dflt);

/* ---- items */
int irun_items(irun *r, const item_list *body);
int irun_field(irun *r, const item *it);        /* interp_field.c */
/* A plain field (one number or string with nothing to check): 1 and its
 * descriptor in d, else 0; its take, all that reading it does (a field
 * visitor told of it as by irun_field). */
int ifield_plain(const irun *r, const item *it, afmt_field_desc *d);
int ifield_take_plain(irun *r, const item *it, const afmt_field_desc *d);
int irun_array(irun *r, const item *it);        /* interp_array.c */
int irun_let(irun *r, const item *it);          /* interp_item.c, the rest */
int irun_lookup(irun *r, const item *it);
int irun_check_item(irun *r, const item *it);
int irun_repeat(irun *r, const item *it);
int irun_region(irun *r, const item *it);
/* interp_inflated.c: an inflated region of size compressed bytes */
int irun_inflated(irun *r, const item *it, uint64_t size);
int irun_switch(irun *r, const item *it);
int irun_pad(irun *r, const item *it);
int irun_textval(irun *r, const item *it);
int irun_texthdr(irun *r, const item *it);
int irun_cards(irun *r, const item *it);
int irun_struct(irun *r, const item *it);       /* interp_struct.c */
int irun_var(irun *r, const item *it);
int irun_set(irun *r, const item *it);
int irun_directory(irun *r, const item *it);
int irun_byte_order(irun *r, const item *it);  /* interp_item.c */
/* A repeat's "unique" key, after the field it is has been read and checked. */
int irun_unique_key(irun *r, const item *f, const isym *y);
/* A fresh list of the records of repeat (a directory names it), or NULL
 * (out of memory: c->err filled). */
afmt_dir_list *idir_begin(irun *r, const item *repeat);
/* The record of the repetition just read, into list l. */
int idir_add(irun *r, const item *repeat, afmt_dir_list *l);
/* Items of a body, counted: the most symbols a run of it holds. */
int icount_items(const item_list *b);
/* After each item: the tiled repeat's block placed once its fields are read. */
int irun_tiles_after_item(irun *r);
/* Checks cs[0..n) blamed on b; attr: the integer whose value a failure
 * shows (or NULL). */
int irun_checks(irun *r, const iblame *b, const check *cs, int n, const isym *attr);
/* Is the array field `name` some array item's shape (anywhere in the spec)? */
int iused_as_shape(const item_list *body, const char *name);

/* ---- typed metadata (interp_value.c): the grammars of the metadata
 * repeats of body (at load; freed by ikv_free); the key-value of the
 * repetition just read, handed to the visitor by afmt_kv_visit. */
void ikv_collect(afmt_interp *in, const item_list *body);
void ikv_free(afmt_interp *in);
int irun_kv_visit(irun *r, const item *repeat);

/* ---- expressions (interp_expr.c) */
typedef struct ival {
    vtype t;          /* VT_U, VT_S, VT_BOOL, VT_STR */
    uint64_t v;       /* the value (a signed one's bits; a truth value 0/1) */
    int lit;          /* an integer literal up to INT64_MAX */
    const uint8_t *str; /* VT_STR: a text field's bytes or a literal's */
    int len;          /* VT_STR: its size */
    int whole;        /* VT_STR: a string field's content, equal only to the same bytes (not NUL-padded) */
    uint64_t slen;    /* VT_STR, whole: its length */
    double f;         /* VT_F: a float field's value */
} ival;
/* Evaluate e (text: the whole expression, for messages): its value with
 * the type afmt-gen gives it, its run-time failures blamed on b. */
int ieval(irun *r, const iblame *b, const expr *e, const char *text, ival *out);
/* ieval, then as an unsigned number (a negative signed value fails). */
int ieval_u64(irun *r, const iblame *b, const expr *e, const char *text, uint64_t *out);
/* The integer symbol (IS_INT) an expression that is one name reads, or
 * NULL: a failure is blamed on it, and its value is the expression's
 * (ival_of) without evaluating it. */
const isym *iname_int(const irun *r, const expr *e);
/* The value ieval gives a name whose symbol is y (IS_INT). */
ival ival_of(const isym *y);
/* ieval_u64 of e, taken from y when it is iname_int(r, e). */
int ieval_u64_of(irun *r, const iblame *b, const expr *e, const char *text, const isym *y, uint64_t *out);
/* ieval, then as a truth value. */
int ieval_bool(irun *r, const iblame *b, const expr *e, const char *text, int *out);
/* The static type afmt-gen gives e (VT_NONE when it has none). */
vtype itype(const irun *r, const expr *e, int *lit);
/* A value's conversions, as afmt-gen's to_u and to_s. */
int ito_u(irun *r, const iblame *b, ival x, const char *text, uint64_t *out);
/* Element i of array field y (in memory: the field has been taken). */
uint64_t iarrf_get(const irun *r, const isym *y, uint64_t i);

/* ---- text values and headers (interp_load.c) */
const igrammar *igrammar_find(const char *name);
const afmt_header_arrays_desc *ithdr_of(const afmt_interp *in, const item *it);

/* ---- archives (interp_archive.c) */
/* Build the descriptors of every archive item of the spec (at load). */
void iarchives_collect(afmt_interp *in);
int irun_archive(irun *r, const item *it);
/* Free what iarchives_collect built. */
void iarchives_free(afmt_interp *in);

#endif
