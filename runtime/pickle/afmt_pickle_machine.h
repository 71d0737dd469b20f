/* INTERNAL HEADER: for generated code and the runtime only, not an API (it
 * changes with AFMT_RUNTIME_ABI); programs include <afmt/afmt.h> and <afmt/<format>.h>. */
/* afmt runtime (internal to afmt_pickle*.c): the pickle machine's state.
 *
 * Values live in one array (pk_machine.values), each made by one opcode and
 * never freed before the run ends; container items are nodes of one array
 * (pk_machine.nodes) linked per container, since a dict may be filled in
 * several batches with other containers made in between.  Every index is a
 * uint32_t: the pickle is at most 4 GiB - 2 bytes, and each opcode (one byte
 * at least) makes at most one value, one node per item it moves and one
 * stack entry, so no count can pass UINT32_MAX - 1.  PK_NIL is "none".
 * The functions below report through afmt_fail into m->err and allocate
 * nothing unless they say so.  Nothing here is shared between runs; a
 * machine is used by one thread, and lives for one afmt_pickle_member
 * call (its block is freed when that returns).
 */
#ifndef AFMT_PICKLE_MACHINE_H
#define AFMT_PICKLE_MACHINE_H

#include <stddef.h>
#include <stdint.h>
#include "../afmt.h"
#include "../common/afmt_error.h"
#include "afmt_pickle.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PK_NIL UINT32_MAX

typedef enum pk_kind {
    PK_NONE = 1, PK_BOOL, PK_INT, PK_FLOAT, PK_STR,
    PK_TUPLE, PK_LIST, PK_DICT,
    PK_GLOBAL,   /* an allowlisted GLOBAL (u.global) */
    PK_STORAGE,  /* a BINPERSID result (u.ref) */
    PK_TENSOR,   /* a ROLE_TENSOR REDUCE result (u.tensor) */
    PK_WRAP      /* a ROLE_WRAP REDUCE result: a marked tensor (u.wrap) */
} pk_kind;

/* pk_value.flags */
#define PK_OPEN 1u      /* a list or dict whose first stack entry is still on the stack:
                           the only state in which it may be filled or built */
#define PK_BUILT 2u     /* BUILD gave this dict its state (u.box.state) */
#define PK_TENSORS 4u   /* a tensor is this value or inside it */
#define PK_FOREIGN 8u   /* a GLOBAL or storage reference is this value or inside it: such
                           values are only ever REDUCE or BINPERSID arguments */
#define PK_REDUCED 16u  /* a dict made by a ROLE_DICT REDUCE (else by EMPTY_DICT) */
#define PK_KEYTEXT 32u  /* a str used as a dict key, or as a storage key without keys_in_order:
                           one whose text is compared with others after STOP */

typedef struct pk_box {         /* PK_TUPLE, PK_LIST, PK_DICT */
    uint32_t head, tail;        /* nodes (a dict's: key, value, key, value, ...) */
    uint32_t count;             /* items (a dict's: pairs) */
    uint32_t state;             /* PK_BUILT: the state dict's value */
    uint64_t weight;            /* key paths of its unfolding, shared values counted at each use
                                   (saturating): what walking it costs */
} pk_box;

typedef struct pk_value {
    uint8_t kind;               /* pk_kind */
    uint8_t flags;
    uint16_t depth;             /* containers nested in it, itself included (leaves: 0) */
    uint32_t op;                /* ordinal of the opcode that made it */
    uint32_t at;                /* its offset in the pickle */
    union {
        int64_t i;              /* PK_INT, PK_BOOL (0, 1) */
        double f;               /* PK_FLOAT */
        struct { uint32_t at, len, hash, canon; } str;  /* bytes at p + at; hash: FNV-1a of them
                                                           (sorting); canon: the first value of
                                                           equal text, set after STOP */
        pk_box box;
        uint32_t global;        /* PK_GLOBAL: index into desc->globals */
        uint32_t ref;           /* PK_STORAGE: index into refs */
        struct { uint64_t first; uint32_t ref, shape, stride, global; } tensor; /* first: the storage
                                   offset in elements; shape, stride: tuple values */
        struct { uint32_t tensor, global; } wrap;
    } u;
} pk_value;

typedef struct pk_node {
    uint32_t value, next;
    uint32_t op, at;            /* the opcode that put the item in (SETITEM's for a dict's key) */
} pk_node;

/* One BINPERSID: a storage reference. */
typedef struct pk_ref {
    uint32_t key, location;     /* str values (location PK_NIL when the pid has none) */
    uint32_t global;            /* the ROLE_CLASS entry */
    uint32_t storage;           /* index into storages */
    uint64_t count;             /* elements */
    uint32_t op, at;
} pk_ref;

/* One distinct storage key, in order of first use. */
typedef struct pk_storage {
    uint32_t ref;               /* its first reference */
    afmt_ar_storage rec;        /* what resolve gave */
} pk_storage;

typedef struct pk_machine {
    const afmt_pickle_desc *d;
    const uint8_t *p;
    uint64_t len, base;
    const afmt_options *opt;
    const afmt_visitor *vis;
    const afmt_path *path;
    afmt_error *err;
    unsigned depth_cap;         /* limits.max_depth, 1..32 */
    uint64_t max_items;
    uint32_t max_rank;

    pk_value *values; uint32_t nvalues, cap_values;
    pk_node *nodes; uint32_t nnodes, cap_nodes;
    uint32_t *stack; uint32_t nstack, cap_stack;
    uint32_t *marks; uint32_t nmarks, cap_marks;   /* per open MARK, two entries: the stack's
                                                      height then, and the MARK's offset */
    uint32_t *memo; uint32_t nmemo, cap_memo;
    pk_ref *refs; uint32_t nrefs, cap_refs;
    pk_storage *storages; uint32_t nstorages;
    void *block;                /* the one allocation all of the above live in */

    /* the opcode being run */
    uint32_t op;
    uint64_t pos;               /* its offset in the pickle */
    uint8_t code;
    uint32_t pending;           /* with memo_in_order: the value the last opcode made that must
                                   be put next, else PK_NIL */
    uint32_t root;              /* what STOP left */
} pk_machine;

/* Name of an opcode byte for messages: "SETITEMS", "STACK_GLOBAL", or
 * "0xf0" for a byte that is no pickle opcode (into buf). */
const char *afmt_pk_op_name(uint8_t code, char buf[8]);

/* Fail on the opcode being run: field "<name>[op N OPNAME]", its absolute
 * offset.  Returns -1. */
int afmt_pk_fail(pk_machine *m, afmt_code code, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* The same about an earlier opcode (ordinal op at pickle offset at, code
 * byte at p[at]). */
int afmt_pk_fail_op(pk_machine *m, afmt_code code, uint32_t op, uint32_t at, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;
/* A canonical-form rule: an error in strict mode, a warning in lenient
 * mode (0, and the run goes on). */
int afmt_pk_tolerate(pk_machine *m, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* "a tensor (made by torch._utils _rebuild_tensor_v2 at offset 812)" and
 * the like, for messages, into buf. */
const char *afmt_pk_what(const pk_machine *m, uint32_t v, char *buf, size_t size);

/* p[0..n) in single quotes for messages, printable ASCII as it is, other
 * bytes as \xNN, cut with "..." to fit out[0..size). */
void afmt_pk_quote(const uint8_t *p, uint64_t n, char *out, size_t size);

/* "module name" of allowlist entry g, for messages. */
void afmt_pk_global_text(const afmt_pk_global *g, char *buf, size_t size);

/* The BUILD, REDUCE and BINPERSID opcodes and GLOBAL's allowlist
 * (afmt_pickle_reduce.c).  Each pops its operands from m's stack, pushes
 * its result and returns 0, or -1 with m->err. */
int afmt_pk_op_global(pk_machine *m, uint64_t arg, uint64_t arglen);
int afmt_pk_op_reduce(pk_machine *m);
int afmt_pk_op_binpersid(pk_machine *m);
int afmt_pk_op_build(pk_machine *m);

/* Does reference ref name its storage as the storage's first reference
 * first did (the same class, location and count)?  0, or -1 with m->err
 * at ref's BINPERSID. */
int afmt_pk_same_storage(pk_machine *m, uint32_t first, uint32_t ref);

/* Run the opcode at m->pos (m->code), whose argument is arg[0..arglen)
 * (afmt_pickle_ops.c).  0, or -1 with m->err. */
int afmt_pk_step(pk_machine *m, const uint8_t *arg, uint64_t arglen);

/* The stack height below which the opcode being run cannot reach: the
 * last MARK's (CPython's Unpickler starts a new stack at each MARK). */
uint32_t afmt_pk_frame_base(const pk_machine *m);

/* Shared by the opcodes: a new value of kind made by the opcode being run
 * (PK_NIL with m->err when limits.max_items is passed), pushing and popping
 * stack entries above the last MARK (pop: -1 with m->err on underflow;
 * a popped list or dict is closed). */
uint32_t afmt_pk_new(pk_machine *m, pk_kind kind);
int afmt_pk_push(pk_machine *m, uint32_t v);
int afmt_pk_pop(pk_machine *m, uint32_t *v);

/* After STOP (afmt_pickle_check.c): equal strings share one canon, no dict
 * holds one key twice, storages are grouped by key (without keys_in_order)
 * and resolved, their records checked.  0, or -1 with m->err. */
int afmt_pk_check_result(pk_machine *m, afmt_ar_resolve_fn resolve, void *resolve_ctx);

/* The walk of the root (afmt_pickle_views.c): views to on_array, plain
 * leaves to on_kv and fields.  0, or -1 with m->err. */
int afmt_pk_walk(pk_machine *m);

/* Stable merge sort of idx[0..n) by cmp(ctx, a, b) (< 0: a first), with
 * tmp[0..n) as scratch, bottom-up (no recursion). */
void afmt_pk_sort(uint32_t *idx, uint32_t *tmp, uint32_t n,
                  int (*cmp)(const void *ctx, uint32_t a, uint32_t b), const void *ctx);

/* Offset of the first byte of p[0..n) that does not start or continue
 * well-formed UTF-8 (no overlongs, surrogates or code points past
 * U+10FFFF), or n. */
uint64_t afmt_pk_utf8_bad(const uint8_t *p, uint64_t n);

#ifdef __cplusplus
}
#endif
#endif /* AFMT_PICKLE_MACHINE_H */
