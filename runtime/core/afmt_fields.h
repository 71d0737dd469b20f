/* INTERNAL HEADER: for generated code and the runtime only, not an API (it
 * changes with AFMT_RUNTIME_ABI); programs include <afmt/afmt.h> and <afmt/<format>.h>. */
/* afmt runtime: helpers that generated validators and writers call for
 * repeated integer fields (dims, CSR offsets and indices), text slots and
 * byte comparisons.  The rules (which field, which order, which bound) come
 * from the spec; these are only the loops, written once and bounds-safe.
 */
#ifndef AFMT_FIELDS_H
#define AFMT_FIELDS_H

#include <stddef.h>
#include <stdint.h>
#include "../afmt.h"
#include "../common/afmt_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Element i of an integer array field of `width` bytes (1, 2, 4, 8). */
AFMT_GEN_API uint64_t afmt_field_get(const uint8_t *p, uint64_t i, unsigned width, int big);

/* Product / sum of n integers.  Returns AFMT_OK, AFMT_E_NEGATIVE (a signed
 * element is negative; *bad = its index) or AFMT_E_OVERFLOW.  A product
 * with a zero factor is 0 even if other factors would overflow: the value
 * is exact, not an artefact of evaluation order. */
int afmt_field_prod(const uint8_t *p, uint64_t n, unsigned width, int is_signed, int big,
                    uint64_t *out, uint64_t *bad);
int afmt_field_sum(const uint8_t *p, uint64_t n, unsigned width, int is_signed, int big,
                   uint64_t *out, uint64_t *bad);

/* Index of the first element that breaks the order (non-decreasing, or
 * strictly increasing when strict), or n when ordered. */
AFMT_GEN_API uint64_t afmt_field_unordered(const uint8_t *p, uint64_t n, unsigned width, int is_signed,
                                           int big, int strict);

/* Elements p[0..n) are cut into segments by the offsets seg[0..nseg)
 * (segment r is [seg[r], seg[r+1])); returns the index of the first element
 * not strictly greater than its predecessor in the same segment, or n.
 * Offsets out of range or decreasing report the first element of the bad
 * segment (callers check offsets with "order"/"last" first). */
AFMT_GEN_API uint64_t afmt_field_unordered_within(const uint8_t *p, uint64_t n, unsigned width, int big,
                                                  const uint8_t *seg, uint64_t nseg, unsigned seg_width,
                                                  int seg_big);

/* Writer side: the same over native uint64_t arrays (dims of a view). */
AFMT_GEN_API int afmt_u64s_prod(const uint64_t *v, uint64_t n, uint64_t *out);
AFMT_GEN_API int afmt_u64s_sum(const uint64_t *v, uint64_t n, uint64_t *out);

/* A text slot: ASCII (bytes 1..127) followed only by NULs.  Returns the index of
 * the first offending byte, or n. */
AFMT_GEN_API uint64_t afmt_text_slot_check(const uint8_t *p, uint64_t n);
/* Copy a NUL-padded slot into a C string (stops at the first NUL). */
AFMT_GEN_API void afmt_copy_text(char *out, size_t out_size, const uint8_t *p, uint64_t n);
/* Fill a text slot from a C string, NUL-padded; -1 if it is longer than
 * the slot or holds a byte that is not ASCII. */
AFMT_GEN_API int afmt_text_fill(uint8_t *slot, uint64_t size, const char *text);
/* Copy arbitrary label bytes into a C string, '?' for bytes that are not
 * printable ASCII (DAPHNE's writer stores garbage label bytes). */
AFMT_GEN_API void afmt_copy_label(char *out, size_t out_size, const uint8_t *p, uint64_t n);
/* For a writer about to store a's name (array `index` of its list): 0,
 * or -1 with err set (AFMT_E_TYPE) when the name in the file the view
 * came from was longer than afmt_array.name holds (name_len), so that
 * writing `name` would write another name. */
AFMT_GEN_API int afmt_name_whole(const afmt_array *a, uint64_t index, afmt_error *err);
/* afmt_array_key and AFMT_UNNAMED_PREFIX, the one naming rule, are
 * public (afmt.h); specs say the prefix as their "default_name". */
/* Render bytes for a message: "f4" or "\x01\x02" style, quoted. */
AFMT_GEN_API void afmt_escape_text(const uint8_t *p, uint64_t n, char *out, size_t out_size);

/* The n bytes at p (n at most 8: an integer field's) quoted as
 * afmt_escape_text quotes them ("GGUF", "\x00\x01GU"), for a message's
 * argument: `afmt_bytes_text(p, 4).s` lives to the end of the full
 * expression that calls it (a struct returned by value), so no buffer is
 * shared and it is thread-safe. */
typedef struct afmt_bytes_txt {
    char s[36];
} afmt_bytes_txt;
AFMT_GEN_API afmt_bytes_txt afmt_bytes_text(const uint8_t *p, unsigned n);

/* Fail with "expected "rawarray", found "rawarrbx"". */
AFMT_GEN_API int afmt_fail_bytes(afmt_error *err, afmt_code code, const afmt_path *path, const char *field,
                                 uint64_t offset, const uint8_t *expected, const uint8_t *found, uint64_t n);

static inline int afmt_is_space(uint8_t c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

#ifdef __cplusplus
}
#endif
#endif
