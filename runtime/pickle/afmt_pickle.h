/* INTERNAL HEADER: for generated code and the runtime only, not an API (it
 * changes with AFMT_RUNTIME_ABI); programs include <afmt/afmt.h> and <afmt/<format>.h>. */
/* afmt runtime: a pickle machine that executes nothing.
 *
 * A PyTorch checkpoint's data.pkl is a pickle that torch.load runs: every
 * GLOBAL it names is imported and every REDUCE calls it.  afmt reads the
 * same bytes without importing, calling or allocating anything the file
 * asks for.  A constant description (afmt_pickle_desc, which afmt-gen
 * compiles from a spec) says which opcodes may appear, which GLOBALs are
 * known and what each one's REDUCE means (an empty mapping, an array view
 * over a storage, a marked view, a class naming an element type), what
 * BINPERSID's argument looks like and which canonical forms the writer's
 * pickler produces.  The machine carries that out opcode by opcode over a
 * value stack, a MARK stack and a memo, building plain values (None, bool,
 * int, float, str, tuple, list, dict) and, for allowlisted constructor
 * calls, views; it knows no torch.
 *
 * Memory: one block, sized before the run from a count of the opcodes
 * (each opcode makes at most one value, pushes at most one stack entry,
 * puts at most one memo slot): about 60 bytes per opcode that makes a
 * value (130 for a BINPERSID), never more values than limits.max_items;
 * then, after STOP, index arrays to find equal strings and duplicate keys
 * (8 bytes per string, 12 per dict key); while the result is walked, a
 * buffer as long as its longest key path and one as long as its longest
 * rendered value.  Everything is freed before returning.  Time: linear in
 * the pickle, but for the sorts after STOP (n log n in the strings and dict
 * keys) and the walk, which visits a value shared by several containers
 * once per key path: a result of more key paths than limits.max_items is
 * refused before any is walked.  Nothing recurses: nesting is bounded by
 * limits.max_depth (0 or more than 32: 32) and walked with an explicit
 * stack.
 *
 * Order of checks: opcode by opcode, each refusal at the first opcode that
 * breaks a rule; rules that compare values with each other (duplicate
 * keys; storage keys by text without keys_in_order) are checked at STOP,
 * so a pickle with a duplicate key and a later fault of another kind is
 * refused for the later one.  Strict and lenient modes differ only in the
 * canonical encodings (afmt_pickle_desc.canonical): every other rule holds
 * in both.
 *
 * Thread-safety: reentrant; descriptions are constant data.
 */
#ifndef AFMT_PICKLE_H
#define AFMT_PICKLE_H

#include <stddef.h>
#include <stdint.h>
#include "../afmt.h"
#include "../archive/afmt_ar_values.h"
#include "../common/afmt_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The opcode bytes the machine knows (CPython's Lib/pickle.py names; the
 * protocol 2 opcodes a pickler with a persistent_id writes).  A
 * description allows a subset through afmt_pickle_desc.ops; any other byte,
 * whether a pickle opcode (STACK_GLOBAL, INST, FRAME, ...) or not, is
 * refused naming it. */
typedef enum afmt_pk_opcode {
    AFMT_PK_OP_MARK = 0x28,         /* '(' */
    AFMT_PK_OP_STOP = 0x2e,         /* '.' */
    AFMT_PK_OP_EMPTY_TUPLE = 0x29,  /* ')' */
    AFMT_PK_OP_EMPTY_LIST = 0x5d,   /* ']' */
    AFMT_PK_OP_EMPTY_DICT = 0x7d,   /* '}' */
    AFMT_PK_OP_BINPUT = 0x71,       /* 'q' + 1-byte index */
    AFMT_PK_OP_LONG_BINPUT = 0x72,  /* 'r' + 4-byte index */
    AFMT_PK_OP_BINGET = 0x68,       /* 'h' */
    AFMT_PK_OP_LONG_BINGET = 0x6a,  /* 'j' */
    AFMT_PK_OP_BINUNICODE = 0x58,   /* 'X' + 4-byte length + UTF-8 */
    AFMT_PK_OP_BININT = 0x4a,       /* 'J' + 4-byte signed */
    AFMT_PK_OP_BININT1 = 0x4b,      /* 'K' + 1 byte */
    AFMT_PK_OP_BININT2 = 0x4d,      /* 'M' + 2 bytes */
    AFMT_PK_OP_LONG1 = 0x8a,        /* + 1-byte length + two's complement */
    AFMT_PK_OP_BINFLOAT = 0x47,     /* 'G' + 8-byte big-endian double */
    AFMT_PK_OP_NONE = 0x4e,         /* 'N' */
    AFMT_PK_OP_NEWTRUE = 0x88,
    AFMT_PK_OP_NEWFALSE = 0x89,
    AFMT_PK_OP_TUPLE = 0x74,        /* 't': the items above the last MARK */
    AFMT_PK_OP_TUPLE1 = 0x85,
    AFMT_PK_OP_TUPLE2 = 0x86,
    AFMT_PK_OP_TUPLE3 = 0x87,
    AFMT_PK_OP_SETITEM = 0x73,      /* 's' */
    AFMT_PK_OP_SETITEMS = 0x75,     /* 'u' */
    AFMT_PK_OP_APPEND = 0x61,       /* 'a' */
    AFMT_PK_OP_APPENDS = 0x65,      /* 'e' */
    AFMT_PK_OP_GLOBAL = 0x63,       /* 'c' + "module\nname\n" */
    AFMT_PK_OP_REDUCE = 0x52,       /* 'R' */
    AFMT_PK_OP_BUILD = 0x62,        /* 'b' */
    AFMT_PK_OP_BINPERSID = 0x51,    /* 'Q' */
    AFMT_PK_OP_PROTO = 0x80         /* + 1-byte protocol */
} afmt_pk_opcode;

typedef enum afmt_pk_role {
    AFMT_PK_ROLE_DICT = 1,    /* REDUCE with () makes an empty mapping (collections.OrderedDict) */
    AFMT_PK_ROLE_TENSOR = 2,  /* REDUCE makes an array view from its arguments (_rebuild_tensor_v2) */
    AFMT_PK_ROLE_WRAP = 3,    /* REDUCE gives back its first argument, marked (torch._utils._rebuild_parameter) */
    AFMT_PK_ROLE_CLASS = 4,   /* the GLOBAL is a value by itself (torch.FloatStorage): names a dtype; never REDUCEd */
    AFMT_PK_ROLE_REFUSE = 5   /* known and refused by name, with `refuse` as the reason (_rebuild_tensor_v3) */
} afmt_pk_role;

typedef enum afmt_pk_arg {        /* what one argument of a REDUCE must be */
    AFMT_PK_ARG_UINT = 1,         /* an int >= 0 */
    AFMT_PK_ARG_BOOL,
    AFMT_PK_ARG_UINT_TUPLE,       /* a tuple (possibly empty) of ints >= 0 */
    AFMT_PK_ARG_STORAGE,          /* the result of BINPERSID (a storage reference) */
    AFMT_PK_ARG_EMPTY_DICT,       /* a ROLE_DICT result that holds nothing (and has no BUILD state) */
    AFMT_PK_ARG_TENSOR,           /* a ROLE_TENSOR result */
    AFMT_PK_ARG_PLAIN             /* any plain value (no tensor, GLOBAL or storage inside) */
} afmt_pk_arg;

/* One entry of the allowlist: a GLOBAL "module name" and what it means. */
typedef struct afmt_pk_global {
    const char *module, *name;    /* exact: "torch._utils", "_rebuild_tensor_v2" */
    afmt_pk_role role;
    /* ROLE_DICT, ROLE_TENSOR, ROLE_WRAP: REDUCE's argument tuple holds
     * exactly these (ROLE_DICT: none; ROLE_WRAP: args[0] is the tensor) */
    const afmt_pk_arg *args;
    size_t nargs;
    /* ROLE_TENSOR: which argument is the storage, the storage offset
     * (elements), the shape, the strides (elements) (indexes into args);
     * the shape and stride tuples must have one rank */
    int arg_storage, arg_offset, arg_shape, arg_stride;
    afmt_dtype dtype;             /* ROLE_CLASS: the storage's element type */
    int writable;                 /* ROLE_CLASS: afmt_pickle_write_state_dict may name it for
                                     dtype (the first writable entry of a dtype is used) */
    const char *refuse;           /* ROLE_REFUSE: why ("_rebuild_tensor_v3 (float8, uint16-64)
                                     is not supported") */
} afmt_pk_global;

/* BINPERSID's argument: a tuple of exactly npid elements, each one of these. */
typedef enum afmt_pk_pid_part {
    AFMT_PK_PID_TEXT = 1,      /* a str equal to `text` ("storage") */
    AFMT_PK_PID_CLASS,         /* a ROLE_CLASS global: the storage's dtype */
    AFMT_PK_PID_KEY,           /* a str: the storage's key (the record is found through it) */
    AFMT_PK_PID_LOCATION,      /* a str matching one of `patterns`: literal text in which "{n}"
                                  stands for a decimal number without leading zeros ("cpu",
                                  "cuda", "cuda:{n}") */
    AFMT_PK_PID_COUNT          /* an int >= 0: the storage's element count */
} afmt_pk_pid_part;

typedef struct afmt_pk_pid_elem {
    afmt_pk_pid_part part;
    const char *text;                 /* PID_TEXT */
    const char *const *patterns;      /* PID_LOCATION (the writer writes patterns[0]) */
    size_t npatterns;
} afmt_pk_pid_elem;

/* afmt_pickle_desc.root_kinds and .dict_keys bits. */
#define AFMT_PK_ROOT_DICT 1u
#define AFMT_PK_ROOT_LIST 2u
#define AFMT_PK_ROOT_TUPLE 4u
#define AFMT_PK_ROOT_TENSOR 8u
#define AFMT_PK_KEY_STR 1
#define AFMT_PK_KEY_INT 2

typedef struct afmt_pickle_desc {
    const char *name;              /* for messages: "data.pkl" */
    unsigned protocol_min, protocol_max;   /* PROTO must come first and be in range (torch: 2, 2) */
    uint8_t ops[256];              /* 1: the opcode byte is allowed; anything else is refused naming it
                                      (PROTO and STOP must be allowed) */
    /* 1: the canonical encodings CPython's pickler writes are required in
     * strict mode and warned about in lenient mode: the smallest integer
     * opcode (BININT1 0-255, BININT2 to 65535, BININT other int32, LONG1
     * minimal), TUPLE1-3 for 1-3 items and EMPTY_TUPLE for none, SETITEMS
     * and APPENDS batches of at most 1000, BINPUT/BINGET below index 256
     * and LONG_BINPUT/LONG_BINGET from 256. */
    int canonical;
    /* 1: memo puts are 0, 1, 2, ... right after each str, GLOBAL, dict,
     * list, non-empty tuple and REDUCE result, and nothing else is put
     * (both modes).  0: a put may name the next slot or replace one, on any
     * value. */
    int memo_in_order;
    const afmt_pk_global *globals; size_t nglobals;  /* the allowlist; any other GLOBAL is refused naming
                                                        "module name" */
    const afmt_pk_pid_elem *pid; size_t npid;        /* BINPERSID's shape (0: BINPERSID refused); it
                                                        holds one CLASS, one KEY and one COUNT */
    int key_decimal;               /* keys are decimal without leading zeros ("0", "17") */
    int keys_in_order;             /* new keys are "0", "1", ... in order of first use */
    /* (always: a key again has the same class, location and count) */
    int build_on_dict;             /* BUILD allowed at most once per dict, on a ROLE_DICT result being
                                      filled, with a plain dict holding no tensor as state
                                      (nn.Module's {'_metadata': ...}); 0: BUILD refused */
    int dict_keys;                 /* which key kinds a dict may have: AFMT_PK_KEY_STR | _INT; distinct */
    unsigned root_kinds;           /* what STOP may leave: AFMT_PK_ROOT_* bits */
} afmt_pickle_desc;

/* Run the pickle bytes[0..len) (a member of an archive, whose first byte is
 * at absolute offset base of the input) under desc (an afmt_pickle_desc),
 * then check and report what it built:
 *
 * 1. The machine: every opcode as the description allows (see the comments
 *    above), values built in memory that is freed before returning.
 * 2. Each storage a BINPERSID names is resolved once, in order of first
 *    use, through resolve(resolve_ctx, key, key_len, &storage, err) (its
 *    error is returned as it is); its record must hold exactly count x
 *    element size bytes, and with opt->check_values a bool storage only
 *    bytes 0 and 1.  Every view was checked against its storage's count at
 *    its REDUCE.
 * 3. The root is walked depth first: each tensor reached goes to
 *    vis->on_array as a strided view (strided = 1, strides[] in elements,
 *    data at its first element in the record, nbytes to the record's end,
 *    offset absolute, endian the record's), named by its key path (dict
 *    keys, list and tuple positions, joined with '.', cut to AFMT_NAME_MAX -
 *    1 bytes with name_len the whole length), index in walk order; a tensor
 *    reached by two key paths (tied weights) gives a view for each.  A
 *    plain leaf (int, float, str, bool) goes to vis->on_kv with the key path
 *    as key (int: INT width 8, float: FLOAT width 8, str: STRING, bool: BOOL
 *    width 1); None and empty containers are not given to on_kv (afmt_value
 *    has no kind for them).  Every leaf, tensors, None and empty containers
 *    included, goes to opt->fields as an AFMT_FIELD_TEXT field named by its
 *    key path, at the offset of the opcode that made it, with its text as
 *    Python's repr prints it (None, True, 3, 0.1, 'abc', {}, []; non-ASCII
 *    characters as they are) or, for a tensor, "tensor(f32[2,3], stride=(3,
 *    1), offset=0, storage='0')".  A dict's BUILD state (nn.Module's
 *    _metadata) is walked after its items as if its keys were more items.
 *    Nothing is walked when no callback is set.
 *
 * opt may be NULL (defaults), vis and its members may be NULL.  Errors name
 * the field "<desc name>[op N OPNAME]" (N counts opcodes from 0, PROTO
 * being op 0) below path, at the opcode's absolute offset, or the storage
 * "<desc name>[storage 'k']" at the record's offset.  Returns 0, or -1 with
 * err; a callback that returns non-zero stops it with AFMT_E_CALLBACK.  The
 * pickle may be at most 4 GiB - 2 bytes (AFMT_E_LIMIT).  Thread-safe for
 * distinct err. */
AFMT_GEN_API int afmt_pickle_member(const void *desc /* afmt_pickle_desc */, const uint8_t *bytes,
        uint64_t len, uint64_t base, afmt_ar_resolve_fn resolve, void *resolve_ctx,
        const afmt_options *opt, const afmt_visitor *vis, const afmt_path *path, afmt_error *err);

/* Write a pickle of a dict {name: tensor} (in the given order) as
 * torch.save writes it for a plain dict (CPython's C pickler, protocol 2,
 * torch's persistent_id): PROTO 2, EMPTY_DICT, memo puts, one SETITEM for a
 * single entry or MARK ... SETITEMS in batches of 1000 (and, as CPython's
 * dict pickler does, an empty MARK SETITEMS after a last full batch),
 * BINUNICODE names, REDUCEs of d's first ROLE_TENSOR global over BINPERSID
 * (d's pid shape: TEXT its text, CLASS the first writable ROLE_CLASS global
 * of the array's dtype, KEY "k", LOCATION patterns[0], COUNT the element
 * count), offset 0, the shape, the contiguous row-major strides (as torch
 * computes them: a dimension of size 0 counts as 1), False and an empty
 * ROLE_DICT mapping, repeated strings and globals by BINGET, STOP.  Array k
 * is a tensor of its own storage, key "k" (k = 0, 1, 2, ...), whose record
 * (written by the caller: data/k) holds its elements row-major.  Only the
 * arrays' names, dtypes and shapes are read (not their data).  Refused
 * before anything is written: a dtype no writable ROLE_CLASS entry names
 * (AFMT_E_TYPE), a name that is not valid UTF-8, cut (name_len) or the
 * same as an earlier one (AFMT_E_TYPE, AFMT_E_CONSTRAINT), a dimension or
 * count of 2^63 or more (AFMT_E_LIMIT), a description the writer cannot
 * follow (AFMT_E_USAGE); each names the array (array[i]).  On a failure
 * after the first byte the sink holds a partial pickle: abort it.  Writes
 * through a 4 KiB buffer on the stack; allocates an index of 2n entries to
 * find names used twice and a memo slot per allowlist entry, freed before
 * returning.  Thread-safe for distinct sinks. */
AFMT_GEN_API int afmt_pickle_write_state_dict(const afmt_pickle_desc *d, const afmt_array *arrays,
        size_t n, afmt_sink *sink, afmt_error *err);

#ifdef __cplusplus
}
#endif
#endif /* AFMT_PICKLE_H */
