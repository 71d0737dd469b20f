/* INTERNAL HEADER: for generated code and the runtime only, not an API (it
 * changes with AFMT_RUNTIME_ABI); programs include <afmt/afmt.h> and <afmt/<format>.h>. */
/* afmt runtime (internal): the input a validator reads, a whole buffer or
 * a stream.  afmt_src and its two constructors are public (afmt.h); the
 * rest is how generated validators read through it.
 *
 * Generated validators address input by absolute offset.  For a buffer (an
 * mmap'ed file) every byte is there and AFMT_B is plain pointer arithmetic.
 * For a stream (a pipe) the source keeps a window of the input in a
 * caller-owned buffer of fixed size: headers are read into it, payloads are
 * read through it in chunks (scanned on the way when their values must be
 * checked) and dropped, so memory stays at the window size whatever the
 * stream's length.  What a stream cannot do it says: a structure larger
 * than the window (a 100 MB CSR index array) is a limit error naming the
 * field, never an allocation.
 */
#ifndef AFMT_SRC_H
#define AFMT_SRC_H

#include <stddef.h>
#include <stdint.h>
#include "../afmt.h"
#include "../common/afmt_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Whether s reads through a window (a stream or a seekable source), whose
 * bytes move on: views then carry no data, keys are not kept in place. */
static inline int afmt_src_windowed(const afmt_src *s)
{
    return s->read != NULL || s->pread != NULL;
}

/* Pointer to the byte at absolute offset off (which must be buffered:
 * afmt_src_have said so). */
#define AFMT_B(s, off) ((s)->data + ((off) - (s)->data_off))

/* A stream reads until [pos, pos + n) is buffered; 0 if it cannot. */
AFMT_GEN_API int afmt_src_fill(afmt_src *s, uint64_t pos, uint64_t n);

/* 1 when bytes [pos, pos + n) lie before end and are buffered (a stream
 * reads them in first); 0 when the input ends first, or a stream cannot
 * hold that much (afmt_src_short tells which). */
static inline int afmt_src_have(afmt_src *s, uint64_t end, uint64_t pos, uint64_t n)
{
    if (pos > end || end - pos < n)
        return 0;
    if (pos >= s->data_off && pos - s->data_off <= s->data_len && s->data_len - (pos - s->data_off) >= n)
        return 1;
    return afmt_src_windowed(s) ? afmt_src_fill(s, pos, n) : 0;
}

/* Is pos the end of the input (or of the region ending at end)?  1 yes,
 * 0 no (a byte is there), -1 a stream cannot tell: its window is full of
 * bytes it must keep (afmt_src_short then says so). */
static inline int afmt_src_at_end(afmt_src *s, uint64_t end, uint64_t pos)
{
    uint64_t real_end;
    if (afmt_src_have(s, end, pos, 1))
        return 0;
    real_end = end < s->len ? end : s->len;
    if (s->io_error || (real_end != AFMT_LEN_UNKNOWN && pos >= real_end))
        return 1;
    return -1;
}

/* The failure after afmt_src_have returned 0: truncated ("needs n bytes for
 * what, only m left"), an I/O error, or for a stream a limit ("... larger
 * than the stream window"; a stream is read to its end first to tell the
 * two apart). Returns -1. */
AFMT_GEN_API int afmt_src_short(afmt_src *s, afmt_error *err, const afmt_path *path, const char *field,
                                uint64_t index, uint64_t pos, uint64_t end, uint64_t n, const char *what);

/* The region an item is read in (afmt_region_open): its bytes end at
 * `end`, inside the region or input around it that ends at outer_end.  For
 * messages: a field that crosses the end of a region the input holds in
 * full is the region's fault ("its size field is too small"), not the
 * input's.  size_field is the plain field name the spec gives the region's
 * size as, or NULL. */
typedef struct afmt_region_ctx {
    const char *name;
    const char *size_field;
    uint64_t size;
    uint64_t end;
    uint64_t outer_end;
    /* the region it is in (NULL: the input), current again when it closes */
    const struct afmt_region_ctx *outer;
} afmt_region_ctx;

/* afmt_src_short with the true need spelled out: `count` elements of
 * `width` bytes each ("needs 3 elements of 8 bytes (24 bytes), only 9
 * left"; width 0: count is a byte count, "needs 8 bytes for what"), and,
 * when region is not NULL and the input itself holds the bytes, the region
 * named as what is too short.  count * width may exceed 64 bits (it is
 * then said so, never saturated).  Returns -1. */
AFMT_GEN_API int afmt_src_short_ex(afmt_src *s, afmt_error *err, const afmt_path *path, const char *field,
                                   uint64_t index, uint64_t pos, uint64_t end, uint64_t count, uint64_t width,
                                   const char *what, const afmt_region_ctx *region);

/* Scan callback for payloads: index (within p) of the first bad byte, or n.
 * `at` is p's offset within the payload. */
typedef uint64_t (*afmt_scan_fn)(void *ctx, const uint8_t *p, uint64_t n, uint64_t at);

/* Take a payload of n bytes at pos: check it lies before end and is there,
 * run scan over it (if given) and consume it.  A buffer keeps it; a stream
 * reads it through its window in chunks and drops it (and everything
 * before it).  Returns 1 when all n bytes were there; *bad is the payload
 * index of the first bad byte (n when none or no scan). */
AFMT_GEN_API int afmt_src_take(afmt_src *s, uint64_t end, uint64_t pos, uint64_t n, afmt_scan_fn scan, void *ctx,
                               uint64_t *bad);

/* Pointer to [pos, pos + n) when it is in memory (always for a buffer),
 * else NULL: views of streamed payloads carry no data. */
AFMT_GEN_API const uint8_t *afmt_src_ptr(const afmt_src *s, uint64_t pos, uint64_t n);

/* For a seekable source: whether the n bytes at absolute offset off (all
 * before s->len) equal p[0..n), read again by offset through a small
 * buffer of the caller's stack, leaving the window alone: 1 equal, 0 not,
 * -1 a read failed (s->io_error set).  Lets a check compare what the
 * window has dropped (afmt_unique_keys) without keeping a copy. */
AFMT_GEN_API int afmt_src_equal_at(afmt_src *s, uint64_t off, const uint8_t *p, uint64_t n);

/* Bytes before off will not be read again (a stream may drop them). */
static inline void afmt_src_keep_from(afmt_src *s, uint64_t off)
{
    if (off > s->keep_from)
        s->keep_from = off;
}

/* Move on to offset off, reading through what lies before it; 0 if the
 * input ends first, or if a stream would have to drop bytes of the current
 * item (from keep_from on) to get there (afmt_src_short then says which).
 * Trivial for a buffer. */
int afmt_src_skip_to(afmt_src *s, uint64_t off);

/* Skip whitespace from *pos, and with comments also "--" line comments
 * (counted in *ncomments when it is not NULL), up to the input's (or
 * region's, end) end or the first other byte.  With release, nothing
 * before the skipped bytes will be read again (a top-level repetition
 * between its items): a stream drops them as it goes, so that blanks or a
 * comment longer than its window are skipped in constant memory and the
 * caller's afmt_src_at_end can still tell the end of the input.  Without
 * release a stream stops where its window is full (afmt_src_at_end then
 * returns -1, and a read error shows in s->io_error). */
AFMT_GEN_API void afmt_src_skip_blank(afmt_src *s, uint64_t end, uint64_t *pos, int comments, int release,
                                      uint64_t *ncomments);

/* Bytes from pos to the end of the input (a stream reads to its end,
 * keeping them only if they fit its window). */
uint64_t afmt_src_rest(afmt_src *s, uint64_t pos);

/* The byte at absolute offset off, or 256 when the input (or region, end)
 * ends first: lets a spec choose a variant by its first byte. */
static inline unsigned afmt_src_peek(afmt_src *s, uint64_t end, uint64_t off)
{
    return afmt_src_have(s, end, off, 1) ? *AFMT_B(s, off) : 256u;
}

/* A scanner of one text value (afmt_futhark_text_scan's signature). */
typedef int (*afmt_text_scan_fn)(const uint8_t *buf, uint64_t len, uint64_t pos, uint64_t max_rank,
                                 uint64_t *end, afmt_array *out, afmt_error *err);

/* Scan the text value at pos with scan: the value must lie in memory (a
 * stream buffers what its window holds; a longer value is a limit error).
 * On success *vend is its end and view describes it (absolute offsets; no
 * data for a stream).  Errors get the path prefixed and absolute offsets. */
AFMT_GEN_API int afmt_src_text(afmt_src *s, uint64_t end, uint64_t pos, afmt_text_scan_fn scan, uint64_t max_rank,
                               uint64_t *vend, afmt_array *view, const afmt_path *path, afmt_error *err);

/* Scan helpers for afmt_src_take. */
AFMT_GEN_API uint64_t afmt_src_scan_bool(void *ctx, const uint8_t *p, uint64_t n, uint64_t at);
AFMT_GEN_API uint64_t afmt_src_scan_zero(void *ctx, const uint8_t *p, uint64_t n, uint64_t at);
/* ctx: the uint64_t bit count; checks the pad bits of the last byte. */
AFMT_GEN_API uint64_t afmt_src_scan_pad_bits(void *ctx, const uint8_t *p, uint64_t n, uint64_t at);

#ifdef __cplusplus
}
#endif
#endif
