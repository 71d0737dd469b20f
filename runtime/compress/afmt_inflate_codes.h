/* INTERNAL HEADER: for generated code and the runtime only, not an API (it
 * changes with AFMT_RUNTIME_ABI); programs include <afmt/afmt.h> and <afmt/<format>.h>. */
/* afmt runtime: the Huffman tables of afmt_inflate.c, and the helpers the
 * two files share.  Private to the inflater.
 *
 * A table entry is one uint32_t: bits 0-3 the code's length (what to
 * consume), 4-6 its kind, 8-11 the extra bits of a length or distance
 * (for a link: the second-level table's index bits), 16-31 the value (a
 * literal, a length or distance base, a link's table offset, or an
 * invalid entry's symbol).  A first-level table is indexed by the next
 * `root` bits of input; a code longer than that goes through a link.
 */
#ifndef AFMT_INFLATE_CODES_H
#define AFMT_INFLATE_CODES_H

#include <stdint.h>
#include "afmt_inflate.h"

#define AFMT_INFLATE_LITLEN_ROOT 10u
#define AFMT_INFLATE_DIST_ROOT 8u
#define AFMT_INFLATE_ROOT_MASK(n) ((1u << (n)) - 1u)

enum { AFMT_IK_LITERAL = 0, AFMT_IK_BASE = 1, AFMT_IK_END = 2, AFMT_IK_LINK = 3, AFMT_IK_INVALID = 4 };

#define AFMT_IE(len, kind, extra, value) \
    ((uint32_t)(len) | (uint32_t)(kind) << 4 | (uint32_t)(extra) << 8 | (uint32_t)(value) << 16)
#define AFMT_IE_LEN(e) ((e) & 15u)
#define AFMT_IE_KIND(e) (((e) >> 4) & 7u)
#define AFMT_IE_EXTRA(e) (((e) >> 8) & 15u)
#define AFMT_IE_VALUE(e) ((e) >> 16)

/* Build the fixed codes of a type-1 block into z's tables. */
void afmt_inflate_fixed_codes(afmt_inflate *z);
/* Read a type-2 block's code lengths and build its tables: 0, or -1 with
 * err (and the stream refused). */
int afmt_inflate_dynamic_codes(afmt_inflate *z, afmt_error *err);

/* Shared with afmt_inflate.c: hold n bits (0 when the input ran out more
 * than 8 bytes ago); refuse the stream (-1) at the current bit position
 * (printf-style message), or as truncated at its end. */
int afmt_inflate_need(afmt_inflate *z, unsigned n);
int afmt_inflate_fail(afmt_inflate *z, afmt_error *err, afmt_code code, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
int afmt_inflate_truncated(afmt_inflate *z, afmt_error *err);

#endif /* AFMT_INFLATE_CODES_H */
