/* INTERNAL HEADER: for generated code and the runtime only, not an API (it
 * changes with AFMT_RUNTIME_ABI); programs include <afmt/afmt.h> and <afmt/<format>.h>. */
/* afmt runtime: raw DEFLATE (RFC 1951) decoding, bounded and streaming.
 *
 * The compressed stream is given whole (a zip member's bytes, which lie
 * in memory); the output comes out in pieces of the caller's choosing,
 * into buffers of any size, so a member can be checked (its size, its
 * CRC-32) through a small buffer, or inflated into one buffer of exactly
 * the size it claims.  The decoder keeps the last 32 KiB of output (the
 * window DEFLATE's distances reach back into) itself, and never produces
 * more than max_out bytes in all: a stream that would is stopped at the
 * bound (AFMT_INFLATE_BOUND), whatever it claims elsewhere.
 *
 * Decoding is table-driven: a 10-bit first-level table for literals and
 * lengths, 8 bits for distances, second-level tables for longer codes,
 * rebuilt per block; a 64-bit bit buffer refilled 8 bytes at a time.
 * Every code set is checked before use (over-subscribed or incomplete sets,
 * a repeat with nothing to repeat, a missing end-of-block code), every
 * distance against the output so far, every stored length against the
 * bytes present: a malformed stream is refused with a reason and the
 * offset of the byte it was found at, never read past its end.
 *
 * Memory: the afmt_inflate struct (about 46 KiB: the window and tables),
 * which the caller provides (malloc it: it is too large for some stacks);
 * nothing else is allocated.  Thread-safety: one afmt_inflate per stream
 * and thread; the functions have no other state.
 */
#ifndef AFMT_INFLATE_H
#define AFMT_INFLATE_H

#include <stddef.h>
#include <stdint.h>
#include "../afmt.h"
#include "../common/afmt_error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define AFMT_INFLATE_WINDOW 32768u
/* Table sizes: the first level plus the most second-level entries any
 * complete code can need.  A second-level table of 2^k entries serves a
 * complete subtree of depth k, which has at least k + 1 codes, so each
 * code costs at most 2^k / (k + 1) entries (largest at the deepest k):
 * 286 litlen codes * 32/6 < 1536, 30 distance codes * 128/8 = 480. */
#define AFMT_INFLATE_LITLEN_TABLE (1024u + 1536u)
#define AFMT_INFLATE_DIST_TABLE (256u + 480u)

/* What afmt_inflate_run returns. */
typedef enum afmt_inflate_status {
    AFMT_INFLATE_ERROR = -1, /* malformed or truncated: err says why */
    AFMT_INFLATE_FULL = 0,   /* the output buffer is full: call again */
    AFMT_INFLATE_DONE = 1,   /* the final block ended */
    AFMT_INFLATE_BOUND = 2   /* the stream holds more than max_out bytes */
} afmt_inflate_status;

/* A stream being decoded.  Members are private: set up with
 * afmt_inflate_init, read with the functions below. */
typedef struct afmt_inflate {
    const uint8_t *in;
    uint64_t in_len, in_pos;   /* bytes loaded into the bit buffer so far */
    uint64_t bits;             /* bit buffer, next bit lowest */
    unsigned nbits;            /* bits held */
    unsigned overrun;          /* zero bytes loaded past the end of in */
    uint64_t total_out, max_out;
    int state, last_block, fixed_built;
    uint64_t stored_left;      /* of a stored block */
    unsigned copy_len, copy_dist; /* a match cut by a full output buffer */
    uint32_t window_fill, window_next;
    uint32_t litlen[AFMT_INFLATE_LITLEN_TABLE];
    uint32_t dist[AFMT_INFLATE_DIST_TABLE];
    uint8_t window[AFMT_INFLATE_WINDOW];
} afmt_inflate;

/* Start decoding the raw DEFLATE stream in[0..in_len), which must stay
 * valid and unchanged until the last afmt_inflate_run; at most max_out
 * bytes of output will be produced. */
AFMT_GEN_API void afmt_inflate_init(afmt_inflate *z, const uint8_t *in, uint64_t in_len, uint64_t max_out);

/* Decode into out[0..cap); *produced: the bytes written there.  Returns an
 * afmt_inflate_status.  On AFMT_INFLATE_ERROR err is filled (code
 * AFMT_E_TRUNCATED when the stream ends inside a block, AFMT_E_VALUE for
 * bad data), field "deflate", offset the byte of in where the problem is
 * (relative to in: the caller rebases it with afmt_error_reblame);
 * further calls return the error again.  After DONE or BOUND, further
 * calls produce nothing.  out may be NULL when cap is 0. */
AFMT_GEN_API int afmt_inflate_run(afmt_inflate *z, uint8_t *out, uint64_t cap, uint64_t *produced,
                                  afmt_error *err);

/* Bytes of in the stream took, counting a partly used last byte (after
 * AFMT_INFLATE_DONE, where the stream ends).  The caller decides whether
 * bytes after it are allowed. */
AFMT_GEN_API uint64_t afmt_inflate_used(const afmt_inflate *z);

/* Bytes produced so far, over every call. */
AFMT_GEN_API uint64_t afmt_inflate_total(const afmt_inflate *z);

#ifdef __cplusplus
}
#endif
#endif /* AFMT_INFLATE_H */
