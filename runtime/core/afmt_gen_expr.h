/* INTERNAL HEADER: for generated code and the runtime only, not an API (it
 * changes with AFMT_RUNTIME_ABI); programs include <afmt/afmt.h> and <afmt/<format>.h>. */
/* afmt runtime (internal, for generated code only): the built-in
 * functions of spec expressions that can fail, each checked and reported
 * in one call, so a generated validator spells one line per use instead
 * of a status variable and an if-block per failure.
 */
#ifndef AFMT_GEN_EXPR_H
#define AFMT_GEN_EXPR_H

#include <stdint.h>
#include "afmt_step.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A truth value (a comparison, !, &&, ||) used as a number: 0 or 1.  A
 * function, not `t ? 1 : 0`, so that C compilers do not fold a spec's
 * constants into comparisons they then warn are always true or false
 * (-Wtype-limits, -Wtautological-compare, -Wbool-compare under -Werror). */
static inline uint64_t afmt_u64_of_truth(int t)
{
    return t ? 1u : 0u;
}

/* a / b and a % b for a divisor generated code has tested (not 0, and
 * for signed values not INT64_MIN / -1): functions, so that compilers do
 * not fold a spec's constants into a division by zero they warn of. */
static inline uint64_t afmt_div_u64(uint64_t a, uint64_t b) { return a / b; }
static inline uint64_t afmt_mod_u64(uint64_t a, uint64_t b) { return a % b; }
static inline int64_t afmt_div_i64(int64_t a, int64_t b) { return a / b; }
static inline int64_t afmt_mod_i64(int64_t a, int64_t b) { return a % b; }
/* a | b and a ^ b where one is a constant (`(x | 9) != 0` is a comparison
 * gcc calls always true and refuses under -Werror). */
static inline uint64_t afmt_or_u64(uint64_t a, uint64_t b) { return a | b; }
static inline uint64_t afmt_xor_u64(uint64_t a, uint64_t b) { return a ^ b; }
/* ~a: a spec may test `~x` of a field narrower than 64 bits, always true
 * (its high bits are ones); gcc refuses that comparison under -Werror. */
static inline uint64_t afmt_not_u64(uint64_t a) { return ~a; }
/* A constant expression of a spec compared with a value (`x < 3 / 5`):
 * itself, but not folded by compilers into `x < 0`, which -Werror refuses. */
static inline uint64_t afmt_u64_const(uint64_t a) { return a; }
static inline int64_t afmt_i64_const(int64_t a) { return a; }

/* prod(name) / sum(name) of the integer array field `name`: n elements of
 * `width` bytes (1, 2, 4, 8; signed or not, big-endian or not) at input
 * offset `off`, which the caller has taken (they are in memory).  On
 * success *out is the value and 0 is returned.  A negative element i
 * fails as "name[i] is negative", blamed on the element (field name,
 * index i, its offset); a result over 64 bits fails as "`text` overflows
 * 64 bits", blamed on the expression's field (field, index, offset).
 * Both return -1 after filling c->err.  Thread-safe as c is. */
AFMT_GEN_API int afmt_field_prod_c(const afmt_validation *c, const char *name, uint64_t off, uint64_t n, unsigned width,
                                   int is_signed, int big, const char *field, uint64_t index, uint64_t offset,
                                   const char *text, uint64_t *out);
AFMT_GEN_API int afmt_field_sum_c(const afmt_validation *c, const char *name, uint64_t off, uint64_t n, unsigned width,
                                  int is_signed, int big, const char *field, uint64_t index, uint64_t offset,
                                  const char *text, uint64_t *out);

/* "first" (last 0) or "last" (last 1) of array field f, n elements at
 * off (taken): that element must equal want (want_text: the spec's text
 * of it).  0 when it does; else -1 after failing with AFMT_E_CONSTRAINT:
 * "has no elements, but its first must be <want_text>" (n == 0, blamed on
 * the field at off), or "expected <want> = <want_text>, found <value>"
 * (blamed on the element: its index and offset).  A signed element is
 * compared as a value (-1 is not 2^64 - 1).  Thread-safe as c is. */
AFMT_GEN_API int afmt_field_end_c(const afmt_validation *c, const afmt_field_desc *f, uint64_t off, uint64_t n,
                                  int last, uint64_t want, const char *want_text);

#ifdef __cplusplus
}
#endif

#endif
