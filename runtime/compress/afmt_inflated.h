/* INTERNAL HEADER: for generated code and the runtime only, not an API (it
 * changes with AFMT_RUNTIME_ABI); programs include <afmt/afmt.h> and <afmt/<format>.h>. */
/* afmt runtime: an inflated region (spec/LANGUAGE.md, "Inflated regions"):
 * `size` bytes at c->pos are one zlib stream (RFC 1950: header, DEFLATE,
 * Adler-32) ending exactly at their end; what it inflates to is read by the
 * region's items as an input of its own.
 *
 * The output's size is known before the bulk is inflated: given (an
 * expression of the spec, `known`), or read from the output's first bytes
 * (an integer of `width` bytes at `at`, plus `plus`: a record whose inflated
 * content starts with its own length).  It is held to the spec's `max`
 * and limits.max_decoded_bytes before one byte of it is allocated; the
 * stream must then inflate to exactly that many bytes.  The decoder (46
 * KiB) lives only during afmt_inflated_open; the output lives in the run's
 * scratch memory (held to limits.max_kept_bytes) until the region closes
 * (or, after a failure inside, until the run ends).
 *
 * While the region is open, c->src is the inflated bytes (offsets in
 * them start at 0) and c->inflated this region.  A failure inside is
 * reblamed on the way out of the run (afmt_inflated_reblame, called by
 * afmt_run_validator): its offset becomes that of the compressed bytes
 * in the input and its message says where in the inflated bytes it was;
 * warnings are reblamed alike as they are given.  Views of arrays inside
 * carry data_transient and the offset of the compressed bytes.
 */
#ifndef AFMT_INFLATED_H
#define AFMT_INFLATED_H

#include <stdint.h>
#include "../afmt.h"
#include "../core/afmt_step.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct afmt_inflated {
    const char *name;            /* the region's name (errors) */
    afmt_src src;                /* the inflated bytes */
    afmt_src *outer_src;
    const afmt_region_ctx *outer_region;
    afmt_region_ctx rc;          /* the whole inflated output, as a region */
    const struct afmt_inflated *outer; /* the inflated region around it, or NULL */
    const afmt_visitor *outer_vis;
    afmt_visitor vis;            /* outer_vis with warnings reblamed */
    uint64_t start;              /* offset of the compressed bytes in outer_src */
    uint64_t end;                /* and of the byte after them */
    const struct afmt_scratch *mark; /* c->scratch before it: freed by close */
} afmt_inflated;

/* How the output's size is known (afmt_inflated_open's size_width):
 * AFMT_INFLATED_KNOWN: it is `plus` itself. */
#define AFMT_INFLATED_KNOWN 0u

/* Open an inflated region (*zp, in the run's scratch memory, so that a
 * failure inside can be reblamed when the run ends) of the size bytes at c->pos: check the zlib
 * header, learn the output's size (width 0: plus; else the width-byte
 * integer at byte at of the output, in byte order big (0, 1 or
 * AFMT_ORDER_RUN), plus plus), hold it to max (0: none) and the limits,
 * inflate exactly that many bytes, check that the stream then ends, its
 * Adler-32 and that it ends at the end of the size bytes.  Then c reads the
 * output (c->pos 0).  Failures are on field `name` at c->pos (the zlib
 * header) or the byte of the compressed data concerned.  0 or -1. */
AFMT_GEN_API int afmt_inflated_open(afmt_validation *c, afmt_inflated **zp, const char *name, uint64_t size,
                                    uint64_t max, unsigned at, unsigned width, int big, uint64_t plus);

/* Close it: the items must have read every byte of the output (else
 * AFMT_E_SIZE on the region), then c reads the input again after the
 * compressed bytes.  0 or -1. */
AFMT_GEN_API int afmt_inflated_close(afmt_validation *c, afmt_inflated *z);

/* A failure while inflated regions were open (c->inflated not NULL): its
 * offset and message told in terms of the input (see above). */
void afmt_inflated_reblame(const afmt_inflated *z, afmt_error *err);

#ifdef __cplusplus
}
#endif
#endif /* AFMT_INFLATED_H */
