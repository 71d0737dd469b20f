/* INTERNAL HEADER: for generated code and the runtime only, not an API (it
 * changes with AFMT_RUNTIME_ABI); programs include <afmt/afmt.h> and <afmt/<format>.h>. */
/* afmt runtime (internal, for generated code): typed metadata values
 * (afmt_value, afmt_kv in afmt.h) read and written by the grammar a spec's
 * "metadata" repeat declares (spec/LANGUAGE.md, "metadata").
 *
 * afmt-gen checks that the named structure holding a metadata value is a
 * typed-value grammar (a switch on its parameter whose cases each hold one
 * number, float, bool or string field, or a list: an item type code, a
 * count and a repeat of the structure itself) and describes it in an
 * afmt_value_grammar.  The validator, which has checked the bytes with the
 * generated code, hands each key-value to the visitor through
 * afmt_kv_visit; the writer picks a value's type code (afmt_value_code)
 * and writes its bytes (afmt_value_write).
 *
 * Memory: afmt_kv_visit builds lists in the run's scratch, freed when
 * on_kv returns (a key-value's memory, not the file's metadata's).  afmt_value_write allocates a
 * value's bytes while it checks them (afmt_value_grammar.validate).
 * Thread-safe apart from the run's context.
 */
#ifndef AFMT_VALUE_H
#define AFMT_VALUE_H

#include <stddef.h>
#include <stdint.h>
#include "../afmt.h"
#include "../common/afmt_error.h"
#include "afmt_step.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One case of the grammar: values of kind and width have type code code. */
typedef struct afmt_value_case {
    uint64_t code;
    afmt_value_kind kind;
    unsigned width;           /* bytes of a number, float or bool; 0 for a string or a list */
} afmt_value_case;

typedef struct afmt_value_grammar {
    const char *name;         /* the structure's name (messages) */
    const afmt_value_case *cases;
    size_t ncases;
    unsigned len_width;       /* a string's length prefix, bytes */
    unsigned elem_width;      /* a list's item type code, bytes */
    unsigned count_width;     /* a list's count, bytes */
    int big;                  /* fields stored big-endian (1), little (0), or as
                               * the spec's "byte_order" chose: AFMT_ORDER_RUN */
    int write_big;            /* the order the writer uses (the spec's "endian") */
    /* The generated validator of the structure (its argument: the type
     * code), when its cases check more than this table says (dirfmt's
     * `value != 0`, GGUF's bool): the writer reads each value it writes
     * back through it, so that it writes only what the validator accepts.
     * NULL: nothing to check. */
    int (*validate)(afmt_validation *c, uint64_t code);
} afmt_value_grammar;

/* The type code of v's kind and width (a list's: its own case), 0; -1 when
 * the grammar has none. */
AFMT_GEN_API int afmt_value_code(const afmt_value_grammar *g, const afmt_value *v, uint64_t *code);

/* The bytes of v (not its type code), lists recursively.  Errors are
 * blamed on field at index (the kv's): a value its kind's width cannot
 * hold (an f32 that is not exactly one too), a list item of another kind
 * or width than its list says, a kind the grammar lacks: AFMT_E_TYPE; a
 * value nested AFMT_VALUE_MAX_DEPTH deep or deeper (the key's value is at
 * 0, a list's items one deeper than it: as deep as the validator goes,
 * limits.max_depth at its most): AFMT_E_LIMIT; a string or list of
 * len/count > 0 whose str/items is NULL: AFMT_E_USAGE; a value
 * g->validate refuses: its code and message.  Allocates the value's bytes
 * for the duration of the call when g->validate is set (to check them),
 * else nothing. */
#define AFMT_VALUE_MAX_DEPTH 32
AFMT_GEN_API int afmt_value_write(afmt_sink *sink, const afmt_value_grammar *g, const afmt_value *v, const char *field,
                                  uint64_t index, afmt_error *err);

/* A UINT, INT or BOOL value as an unsigned number (a negative INT fails,
 * AFMT_E_TYPE, blamed on field at index). */
AFMT_GEN_API int afmt_value_u64(const afmt_value *v, const char *field, uint64_t index, uint64_t *out, afmt_error *err);

/* Hand the key-value just validated to c->vis->on_kv: its key (key_len
 * bytes at key_at), its value of type code at value_at, decoded by g; the
 * key field at offset.  0, or -1 with c->err (the visitor stopped; a value
 * the stream's window no longer holds: AFMT_E_LIMIT). */
AFMT_GEN_API int afmt_kv_visit(afmt_validation *c, const afmt_value_grammar *g, uint64_t key_at, uint64_t key_len,
                               uint64_t code, uint64_t value_at, uint64_t offset);

/* Keys of kv[0..n) distinct (as bytes, or as C strings up to a NUL when
 * c_string): else AFMT_E_CONSTRAINT blamed on field at the later one's
 * index, naming the key. */
AFMT_GEN_API int afmt_kv_unique(const afmt_kv *kv, size_t n, int c_string, const char *field, afmt_error *err);

#ifdef __cplusplus
}
#endif
#endif /* AFMT_VALUE_H */
