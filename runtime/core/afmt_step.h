/* INTERNAL HEADER: for generated code and the runtime only, not an API (it
 * changes with AFMT_RUNTIME_ABI); programs include <afmt/afmt.h> and <afmt/<format>.h>. */
/* afmt runtime (internal, for generated code only): one step of a
 * generated validator in one call -- a header field taken (bounds check,
 * position, field-visitor report), a magic or text slot compared, a
 * padding skipped, the trailer checked.  Each returns 0 to go on, or
 * nonzero after filling err (the generated code then returns -1), with the
 * messages, field names and offsets generated code used to spell out
 * itself.  The spec decides which step runs where and on which field; these
 * are only the mechanics, written once.
 */
#ifndef AFMT_STEP_H
#define AFMT_STEP_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "../afmt.h"
#include "../common/afmt_bytes.h"
#include "../common/afmt_error.h"
#include "afmt_fields.h"
#include "../common/afmt_options.h"
#include "../io/afmt_src.h"
#include "../array/afmt_tiles.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The state of one run of a generated validator, passed as one pointer
 * to every function of it and to every step below (flatcc's verifiers
 * pass one table descriptor, EverParse's validators one context): the
 * input, the options, the visitor, where a failure goes and the field
 * path it names, the innermost region open (afmt_region_open), the
 * cursor and the count of arrays handed out.  A generated <format>_
 * validate_body fills one on its stack; nothing outlives the run.  After
 * a step fails (-1), the validator returns at once: region and pos are
 * not restored.  A writer calls the checks it shares with the validator
 * with AFMT_VCTX_STRICT(err): no options (strict), no visitor, no path. */
typedef struct afmt_validation {
    afmt_src *src;
    const afmt_options *opt;       /* NULL only in a writer's checks */
    const afmt_visitor *vis;       /* may be NULL */
    afmt_error *err;
    afmt_path *path;               /* NULL only in a writer's checks */
    const afmt_region_ctx *region; /* the innermost region open, NULL: none */
    uint64_t pos;                  /* the cursor: the next byte to read */
    uint32_t narrays;              /* arrays counted so far (their index) */
    unsigned depth;                /* named structures entered and not left */
    struct afmt_scratch *scratch;  /* what the run allocated (afmt_scratch_grow),
                                      freed by afmt_run_validator at its end */
    int big;                       /* the byte order a spec's "byte_order" item chose
                                      (1 big-endian): that of every field and
                                      payload after it whose type names none */
    uint64_t kept;                 /* bytes of scratch held now, all blocks together
                                      (held to limits.max_kept_bytes) */
    const struct afmt_inflated *inflated; /* the innermost inflated region open
                                      (afmt_inflated.h), NULL: none */
} afmt_validation;

/* A field's or payload's byte order that is not fixed by the spec but
 * chosen at run time (afmt_field_desc.big_endian, afmt_dir_desc's): c->big. */
#define AFMT_ORDER_RUN (-1)

/* The byte order big (0, 1 or AFMT_ORDER_RUN) stands for in c. */
static inline int afmt_order_of(const afmt_validation *c, int big)
{
    return big == AFMT_ORDER_RUN ? c->big : big;
}

/* Memory a run of a validator needs beyond its stack, for a set of keys
 * that must be distinct (afmt_unique_keys) or records kept for later items: a
 * block of bytes bytes (block NULL: a new one, uninitialised) or block
 * grown to bytes, keeping its content; linked into c->scratch and freed
 * when the run ends (afmt_run_validator), so a failure anywhere leaks
 * nothing.  Callers size it by what they have read, never by what the
 * input claims.  All blocks together are held to limits.max_kept_bytes
 * (c->kept): NULL with AFMT_E_LIMIT naming the limit and field, at c->pos,
 * when this one would pass it; NULL with AFMT_E_NOMEM when the memory
 * cannot be had. */
AFMT_GEN_API void *afmt_scratch_grow(afmt_validation *c, void *block, uint64_t bytes, const char *field);
/* Make *block (a scratch block of *cap items of size bytes, or NULL with
 * *cap 0) hold at least need items: unchanged if it does, else grown to
 * first items (when *cap is 0) doubled until they are enough, *block and
 * *cap updated; a doubling that would pass limits.max_kept_bytes grows
 * instead to need and half of what the limit leaves beyond it, so the
 * limit is hit by what is really kept, not by the slack of a doubling.  0, or -1
 * with AFMT_E_OVERFLOW (what: "key bytes"), AFMT_E_LIMIT or AFMT_E_NOMEM
 * in c->err.  The one growth rule of the runtime's lists (afmt_unique_keys,
 * afmt_dir_records): amortised O(1) per item. */
int afmt_scratch_reserve(afmt_validation *c, void **block, uint64_t *cap, uint64_t need, size_t size, uint64_t first,
                         const char *field, const char *what);
/* Free every block of the run (afmt_run_validator calls it). */
AFMT_GEN_API void afmt_scratch_free_all(afmt_validation *c);
/* Free the blocks made since mark (c->scratch as it was then: blocks are
 * linked newest first, and one grown keeps its place), for a step whose
 * memory is needed only while it runs (a key-value's lists, until on_kv
 * returns). */
void afmt_scratch_free_since(afmt_validation *c, const struct afmt_scratch *mark);

/* Enter a named structure (a spec's "structs", used by an item labelled
 * label): fails with AFMT_E_LIMIT past limits.max_depth, so a recursive
 * structure is bounded however deep the input nests.  The caller
 * decrements c->depth after the structure's function returns 0. */
AFMT_GEN_API int afmt_struct_enter(afmt_validation *c, const char *label);

/* Whether the n bytes at offset (a string field's content, already
 * bounded) equal the k bytes of lit. */
static inline int afmt_str_eq(const afmt_validation *c, uint64_t offset, uint64_t n, const char *lit,
                              size_t k)
{
    return n == k && (k == 0 || memcmp(AFMT_B(c->src, offset), lit, k) == 0);
}

/* An element type as a spec's lookup finds it (validator) or a writer
 * chooses it: the type, its size in bytes (an opaque entry's from the
 * file) and how it is stored.  Passed by value: three words. */
typedef struct afmt_elem {
    afmt_dtype dtype;   /* AFMT_DTYPE_INVALID: no entry matched (yet) */
    uint64_t size;      /* bytes of one element, or of one block */
    afmt_encoding enc;
    uint64_t block;     /* 0, or elements per block of size bytes (opaque) */
    const char *name;   /* the format's name of an opaque type, or NULL */
} afmt_elem;

/* No element type: what a lookup starts from. */
#define AFMT_ELEM_NONE ((afmt_elem){AFMT_DTYPE_INVALID, 0, AFMT_ENC_PLAIN, 0, NULL})

/* A strict context of no input for the checks a writer shares with the
 * validator (a compound literal: lives in the enclosing block). */
#define AFMT_VCTX_STRICT(err_) (&(afmt_validation){NULL, NULL, NULL, (err_), NULL, NULL, 0, 0, 0, NULL, 0, 0, NULL})

/* Where the items being read must end: the innermost region's end, else
 * the input's (src->len, learnt late for a stream: read it each time). */
static inline uint64_t afmt_end(const afmt_validation *c)
{
    return c->region ? c->region->end : c->src->len;
}

/* afmt_fail, afmt_tolerate and afmt_fail_overflow in c's terms (its err,
 * path, options and visitor): what a generated validator's failures are
 * (one line each).  Return -1, or afmt_tolerate's 0 to go on. */
AFMT_GEN_API AFMT_COLD int afmt_fail_c(const afmt_validation *c, afmt_code code, const char *field, uint64_t index,
                                       uint64_t offset, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;
AFMT_GEN_API int afmt_tolerate_c(const afmt_validation *c, afmt_code code, const char *field, uint64_t index,
                                 uint64_t offset, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;
AFMT_GEN_API AFMT_COLD int afmt_overflow_c(const afmt_validation *c, const char *field, uint64_t index, uint64_t offset,
                                           const char *expr_text);

/* A header field as the spec describes it (a static const per field in
 * generated code). */
/* A value of an integer field and what the spec calls it ("names"). */
typedef struct afmt_value_name {
    uint64_t value;
    const char *name;
} afmt_value_name;

typedef struct afmt_field_desc {
    const char *name;     /* the field's name in the spec (and in messages) */
    afmt_field_kind kind; /* what afmt_report_field tells */
    unsigned width;       /* bytes of one element (of the whole slot for bytes) */
    int is_array;         /* count elements (an array field) or one value */
    int big_endian;       /* 0, 1, or AFMT_ORDER_RUN (c->big) */
    const char *doc;      /* the spec's doc, or NULL */
    const afmt_value_name *names; /* the spec's "names" of its values, or NULL */
    unsigned n_names;
} afmt_field_desc;

/* What f's spec calls the integer of f->width bytes at p (in byte order
 * big), or NULL: a linear search of f->names (at most 256, and only when
 * a field visitor asked). */
AFMT_GEN_API const char *afmt_field_value_name(const afmt_field_desc *f, const uint8_t *p, int big);

/* The failure of afmt_take_field (out of line: the rare path). */
AFMT_GEN_API AFMT_COLD int afmt_take_field_short(afmt_validation *c, const afmt_field_desc *f, uint64_t count);

/* Take field f (count elements; 1 for a scalar) at c->pos, which must lie
 * before the end (afmt_end) of the region open: on success c->pos moves
 * past it, c->opt->fields is told of it, and 0 is returned; otherwise the
 * truncation (afmt_src_short_ex), -1.  The field's bytes are then in
 * memory at AFMT_B(c->src, old c->pos). */
static inline int afmt_take_field(afmt_validation *c, const afmt_field_desc *f, uint64_t count)
{
    const uint64_t at = c->pos, end = afmt_end(c);
    /* count is held to the bytes left before it is multiplied: no overflow */
    if (at > end || count > (end - at) / f->width ||
        !afmt_src_have(c->src, end, at, count * f->width))
        return afmt_take_field_short(c, f, count);
    c->pos = at + count * f->width;
    if (c->opt->fields)
        afmt_report_field(c->opt, c->path, f->name, f->kind, at, f->is_array, count, f->width,
                          afmt_order_of(c, f->big_endian), AFMT_B(c->src, at), f->doc,
                          f->names && count == 1
                              ? afmt_field_value_name(f, AFMT_B(c->src, at), afmt_order_of(c, f->big_endian))
                              : NULL);
    return 0;
}

/* Whether count repetitions (each at least a byte) cannot fit in the
 * bytes left before the region's end.  A stream whose length is not known
 * yet first reads ahead as far as its window allows, so that a count the
 * input cannot hold is found now, as from a buffer. */
static inline int afmt_count_exceeds(afmt_validation *c, uint64_t count)
{
    afmt_src *s = c->src;
    if (s->read && s->len == AFMT_LEN_UNKNOWN && !c->region)
        (void)afmt_src_have(s, afmt_end(c), c->pos, count < s->cap / 2 ? count : s->cap / 2);
    return count > afmt_end(c) - c->pos;
}

/* Take a length-prefixed string at c->pos: its prefix (f->width bytes,
 * f->big_endian) and the bytes it counts, both bounded by the region open
 * and in memory afterwards (the content at AFMT_B(c->src, start + width)),
 * the length at most limits.max_header_bytes.  c->opt->fields is told of
 * the content as a bytes field.  0 and *len set, or -1 after a failure
 * naming f (truncation, limit). */
AFMT_GEN_API int afmt_take_string(afmt_validation *c, const afmt_field_desc *f, uint64_t *len);

/* Fail (code, e.g. AFMT_E_MAGIC) unless the n bytes of field at offset
 * equal want; the message shows both. */
static inline int afmt_expect_bytes(const afmt_validation *c, const char *field, afmt_code code,
                                    uint64_t offset, const char *want, unsigned n)
{
    if (memcmp(AFMT_B(c->src, offset), want, n) == 0)
        return 0;
    return afmt_fail_bytes(c->err, code, c->path, field, offset, (const uint8_t *)want,
                           AFMT_B(c->src, offset), n);
}

/* Fail unless the n-byte text slot of field at offset is ASCII followed by
 * NUL padding; names the first bad byte. */
AFMT_GEN_API AFMT_COLD int afmt_text_slot_fail(const afmt_validation *c, const char *field, uint64_t offset, uint64_t bad);
static inline int afmt_expect_text_slot(const afmt_validation *c, const char *field, uint64_t offset,
                                        unsigned n)
{
    const uint64_t bad = afmt_text_slot_check(AFMT_B(c->src, offset), n);
    return bad >= n ? 0 : afmt_text_slot_fail(c, field, offset, bad);
}

/* Skip len bytes of zero padding of field at c->pos.  A short input or a
 * nonzero byte fails, or with lenient set is a tolerance (afmt_tolerate):
 * the reference readers of some formats accept a missing final pad. */
AFMT_GEN_API AFMT_COLD int afmt_padding_fail(afmt_validation *c, const char *field, int lenient, uint64_t len, int taken,
                                             uint64_t nonzero);
static inline int afmt_take_padding(afmt_validation *c, const char *field, int lenient, uint64_t len)
{
    uint64_t nonzero = len;
    const int taken = afmt_src_take(c->src, afmt_end(c), c->pos, len, afmt_src_scan_zero, NULL,
                                    &nonzero);
    if (taken && nonzero == len) {
        c->pos += len;
        return 0;
    }
    return afmt_padding_fail(c, field, lenient, len, taken, nonzero);
}

/* A region (spec/LANGUAGE.md, "region"): the size bytes at c->pos, which
 * the items in it may not cross, inside the region or input around it.
 * afmt_region_open fills r (name and size_field as in afmt_region_ctx) and
 * makes it c's innermost region; it fails, on the region, when fewer than
 * size bytes are left.  r lives until afmt_region_close. */
AFMT_GEN_API AFMT_COLD int afmt_region_open_fail(const afmt_validation *c, const afmt_region_ctx *r);
static inline int afmt_region_open(afmt_validation *c, afmt_region_ctx *r, const char *name,
                                   const char *size_field, uint64_t size)
{
    const uint64_t pos = c->pos;
    r->name = name;
    r->size_field = size_field;
    r->size = size;
    r->outer_end = afmt_end(c);
    r->end = pos + size; /* wraps only when the check below fails */
    r->outer = c->region;
    c->region = r;
    return r->outer_end - pos < size ? afmt_region_open_fail(c, r) : 0;
}

/* What afmt_region_close does with bytes of a region its items left unread. */
typedef enum afmt_region_rest {
    AFMT_REGION_SKIP,      /* skip them */
    AFMT_REGION_EXACT,     /* fail (the spec's "exact") */
    AFMT_REGION_EXACT_WARN /* a tolerance (afmt_tolerate) */
} afmt_region_rest;

/* Leave c's innermost region (its outer one is current again): c->pos
 * moves to its end.  Bytes left unread are handled as rest says; the
 * failure is blamed on the size field (at size_offset) when the region has
 * one, else on the region at c->pos.  A stream that cannot reach the end
 * fails as truncated. */
AFMT_GEN_API AFMT_COLD int afmt_region_close_slow(afmt_validation *c, afmt_region_rest rest, uint64_t size_offset);
static inline int afmt_region_close(afmt_validation *c, afmt_region_rest rest, uint64_t size_offset)
{
    const afmt_region_ctx *r = c->region;
    if (c->pos != r->end)
        return afmt_region_close_slow(c, rest, size_offset);
    c->region = r->outer;
    return 0;
}

/* afmt_take_padding of the roundup(len, align) - len bytes that bring len
 * to a multiple of align: a spec's pad of `roundup(x, k) - x`.  A multiple
 * that overflows 64 bits fails on field at c->pos ("`expr_text` overflows
 * 64 bits or divides by zero", as the expression would). */
AFMT_GEN_API AFMT_COLD int afmt_pad_to_overflow(const afmt_validation *c, const char *field, const char *expr_text);
static inline int afmt_take_pad_to(afmt_validation *c, const char *field, int lenient, uint64_t len,
                                   uint64_t align, const char *expr_text)
{
    uint64_t rounded;
    if (afmt_checked_roundup_u64(len, align, &rounded))
        return afmt_pad_to_overflow(c, field, expr_text);
    return afmt_take_padding(c, field, lenient, rounded - len);
}

/* At the end of the input: nothing may follow c->pos (with lenient set,
 * trailing bytes are a tolerance). */
AFMT_GEN_API AFMT_COLD int afmt_expect_end_slow(const afmt_validation *c, int lenient, int at_end);
static inline int afmt_expect_end(const afmt_validation *c, int lenient)
{
    const int at_end = afmt_src_at_end(c->src, c->src->len, c->pos);
    return at_end > 0 ? 0 : afmt_expect_end_slow(c, lenient, at_end);
}

/* At the end of the input: the bytes after c->pos (if any) are metadata,
 * handed to the visitor's on_trailer as they are. */
AFMT_GEN_API void afmt_keep_trailer(const afmt_validation *c);

/* The element count of a shape of dimensions, one dimension at a time
 * (afmt_count_dim, then afmt_count_end): their product, 0 when one of
 * them is 0 even if the others overflow 64 bits (spec/LANGUAGE.md,
 * "dense"; afmt_field_prod_c is the same rule for a shape field); an
 * overflow with no zero dimension fails on the dimension that made it
 * overflow (field, at offset: the dimension's source). */
typedef struct afmt_count {
    uint64_t n;             /* the product so far (start at 1) */
    int zero;               /* a dimension was 0 */
    int overflowed;         /* the product overflowed at field, offset */
    const char *field;
    uint64_t offset;
} afmt_count;
#define AFMT_COUNT_INIT {1, 0, 0, NULL, 0}
AFMT_GEN_API AFMT_COLD int afmt_count_overflow(const afmt_validation *c, const char *field, uint64_t offset);
static inline void afmt_count_dim(afmt_count *k, uint64_t dim, const char *field, uint64_t offset)
{
    if (dim == 0)
        k->zero = 1;
    if (!k->overflowed && afmt_checked_mul_u64(k->n, dim, &k->n)) {
        k->overflowed = 1;
        k->field = field;
        k->offset = offset;
    }
}
static inline int afmt_count_end(const afmt_validation *c, const afmt_count *k, uint64_t *n)
{
    *n = k->zero ? 0 : k->n;
    return k->zero || !k->overflowed ? 0 : afmt_count_overflow(c, k->field, k->offset);
}

/* The index arrays of a csr payload of rows x nnz (spec/LANGUAGE.md,
 * "csr"): row_offsets (ro_count entries at ro_off) holds rows + 1,
 * col_indices (ci_count at ci_off) nnz, whatever the spec's counts say,
 * so that reading the matrix stays inside them.  Fails (constraint) on
 * the index array that does not, at its offset. */
AFMT_GEN_API AFMT_COLD int afmt_csr_counts_fail(const afmt_validation *c, const char *ro_name, uint64_t ro_off,
                                                uint64_t ro_count, const char *ci_name, uint64_t ci_off,
                                                uint64_t ci_count, uint64_t rows, uint64_t nnz);
static inline int afmt_csr_counts(const afmt_validation *c, const char *ro_name, uint64_t ro_off, uint64_t ro_count,
                                  const char *ci_name, uint64_t ci_off, uint64_t ci_count, uint64_t rows,
                                  uint64_t nnz)
{
    if (rows < UINT64_MAX && ro_count == rows + 1 && ci_count == nnz)
        return 0;
    return afmt_csr_counts_fail(c, ro_name, ro_off, ro_count, ci_name, ci_off, ci_count, rows, nnz);
}

/* afmt_csr_counts of a csc array: cols + 1 column offsets, nnz row
 * indices; 0, or -1 naming the index field that holds another count. */
AFMT_GEN_API int afmt_csc_counts(const afmt_validation *c, const char *co_name, uint64_t co_off, uint64_t co_count,
                                 const char *ri_name, uint64_t ri_off, uint64_t ri_count, uint64_t cols,
                                 uint64_t nnz);

/* The bytes of stored elements of el (bits: one per element, rounded up;
 * a block type: stored / block blocks of el.size bytes, afmt_payload_blocks)
 * into *nbytes; fails (field, at c->pos) when that overflows 64 bits, or
 * (constraint) when the elements are no whole number of blocks. */
AFMT_GEN_API AFMT_COLD int afmt_payload_bytes_overflow(const afmt_validation *c, const char *field, uint64_t stored,
                                                       afmt_dtype dtype);
AFMT_GEN_API int afmt_payload_blocks(const afmt_validation *c, const char *field, uint64_t stored, afmt_elem el,
                                     uint64_t *nbytes);
static inline int afmt_payload_bytes(const afmt_validation *c, const char *field, uint64_t stored,
                                     afmt_elem el, uint64_t *nbytes)
{
    if (el.block > 1)
        return afmt_payload_blocks(c, field, stored, el, nbytes);
    if (el.enc == AFMT_ENC_BITS_LSB) {
        *nbytes = afmt_ceil_div_u64(stored, 8);
        return 0;
    }
    if (afmt_checked_mul_u64(stored, el.size, nbytes) == 0)
        return 0;
    *nbytes = 0; /* never read: the caller fails */
    return afmt_payload_bytes_overflow(c, field, stored, el.dtype);
}

/* Take the nbytes of the payload of field at c->pos, before the region's
 * end, scanning them with scan (if not NULL) on the way; *bad (if not
 * NULL) is the index of the first byte scan refused, or nbytes.  Does not
 * move c->pos: the payload's view is handed over first (afmt_view_hand). */
AFMT_GEN_API AFMT_COLD int afmt_take_payload_short(afmt_validation *c, const char *field, uint64_t nbytes);
static inline int afmt_take_payload(afmt_validation *c, const char *field, uint64_t nbytes,
                                    afmt_scan_fn scan, void *scan_ctx, uint64_t *bad)
{
    uint64_t first_bad = nbytes;
    const int taken = afmt_src_take(c->src, afmt_end(c), c->pos, nbytes, scan, scan_ctx,
                                    &first_bad);
    if (bad)
        *bad = first_bad;
    return taken ? 0 : afmt_take_payload_short(c, field, nbytes);
}

/* The payload of field at c->pos is one LZ4 block of nbytes (before the
 * region's end) that must decompress to exactly count elements of elsize
 * bytes, no more than opt->limits.max_decoded_bytes: proved without output
 * (afmt_lz4_block_check).  0, or the failure: the size overflows or
 * exceeds the limit, the block is truncated, malformed, or of another size
 * (at the offending byte). */
AFMT_GEN_API int afmt_lz4_prove(afmt_validation *c, const char *field, uint64_t nbytes, uint64_t count,
                                uint64_t elsize);

/* Start the view a of a payload array with what every layout shares: the
 * element type (dtype, elsize, enc from the spec's type lookup), the
 * element count, order and byte order, the payload's bytes and offset, and
 * its index among the file's arrays (rank 0: dims are set next). */
AFMT_GEN_API void afmt_view_start(afmt_array *a, afmt_dtype dtype, uint64_t elsize, afmt_encoding enc,
                                  uint64_t count, afmt_order order, afmt_endian endian, uint64_t nbytes,
                                  uint64_t offset, uint32_t index);

/* What view a keeps of its element type el beyond dtype, size and
 * encoding: the block of a block type and the format's name of an opaque
 * type (spec/LANGUAGE.md, "Tables": "name", "block"). */
AFMT_GEN_API void afmt_view_type(afmt_array *a, afmt_elem el);

/* An array item's "logical" lookup gave el: the view's values are of
 * el's type (afmt.h, "Value transforms": a widening), unless it is the
 * stored type (no transform) or a type some stored value would not fit
 * exactly (i64 stored, f64 logical: the view keeps the stored type). */
AFMT_GEN_API void afmt_view_logical(afmt_array *a, afmt_elem el);

/* afmt_view_start(a, ...) and afmt_view_type(a, el) at c->pos, the c->narrays-th array, and a, when
 * a visitor wants arrays; else NULL (no view to describe: afmt_take_view
 * and afmt_view_hand are then given NULL). */
static inline afmt_array *afmt_view_begin(const afmt_validation *c, afmt_array *a, afmt_elem el,
                                          uint64_t count, afmt_order order, afmt_endian endian,
                                          uint64_t nbytes)
{
    if (!c->vis || !c->vis->on_array)
        return NULL;
    afmt_view_start(a, el.dtype, el.size, el.enc, count, order, endian, nbytes, c->pos, c->narrays);
    afmt_view_type(a, el);
    return a;
}

/* a's dims are the n elements of the integer array field f at offset;
 * fails (on f, at offset) when n exceeds AFMT_RANK_CAP. */
AFMT_GEN_API int afmt_view_dims(const afmt_validation *c, afmt_array *a, const afmt_field_desc *f, uint64_t offset,
                                uint64_t n);

/* Hand view a of the payload at c->pos (nbytes, taken) to vis->on_array;
 * fails ("stopped by the caller", on field) when it says stop. */
AFMT_GEN_API int afmt_view_hand(const afmt_validation *c, const char *field, afmt_array *a, uint64_t nbytes);

/* Take the nbytes of the payload of field at c->pos (afmt_take_payload,
 * no scan), hand its view a to the visitor (a NULL: no visitor wants one;
 * afmt_view_hand), count it in c->narrays and move c->pos past it. */
static inline int afmt_take_view(afmt_validation *c, const char *field, afmt_array *a,
                                 uint64_t nbytes)
{
    if (afmt_take_payload(c, field, nbytes, NULL, NULL, NULL))
        return -1;
    if (a && afmt_view_hand(c, field, a, nbytes))
        return -1;
    ++c->narrays;
    c->pos += nbytes;
    return 0;
}

/* The fields that place a block of a tiled repeat (spec/LANGUAGE.md,
 * "tiles"), by name: a static const per repeat in generated code. */
typedef struct afmt_tile_fields {
    const char *row, *col, *rows, *cols;
} afmt_tile_fields;

/* Add the block at (row, col) of rows x cols to t (afmt_tiles_add), its
 * fields f at row_at, col_at, rows_at and cols_at; 0, or the failure: a
 * block larger than the matrix blames its size, one that ends past its
 * edge its position, one that overlaps an earlier block or one too many
 * its row. */
AFMT_GEN_API int afmt_tiles_place(const afmt_validation *c, afmt_tiles *t, const afmt_tile_fields *f, uint64_t row,
                                  uint64_t col, uint64_t rows, uint64_t cols, uint64_t row_at, uint64_t col_at,
                                  uint64_t rows_at, uint64_t cols_at);

/* One entry of a spec's type table (a static const array per table in
 * generated code, shared by validator and writer). */
typedef struct afmt_type_entry {
    const char *text;     /* a text key, NUL-padded to its field's size; NULL: code is the key */
    uint64_t code;        /* an integer key */
    afmt_dtype dtype;
    afmt_encoding enc;
    int writable;         /* a writer may choose this entry */
} afmt_type_entry;

/* The first of the n entries whose text key is the len bytes at key, or
 * NULL.  Inline: with the constant len of a generated call the compiler
 * compares words, as the if-chain it replaces did. */
static inline const afmt_type_entry *afmt_type_by_text(const afmt_type_entry *table, size_t n,
                                                       const uint8_t *key, size_t len)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (table[i].text && memcmp(table[i].text, key, len) == 0)
            return &table[i];
    return NULL;
}
/* afmt_type_by_text of the len-byte key of field at offset (blamed as
 * field[index]), or NULL after failing: "no entry of table <table> matches
 * (<field> = <the key as text>): unknown type code<known>". */
AFMT_GEN_API AFMT_COLD const afmt_type_entry *afmt_lookup_text_fail(const afmt_validation *c, const char *table,
                                                                    const char *field, uint64_t index, uint64_t offset,
                                                                    const uint8_t *key, size_t len, const char *known);
static inline const afmt_type_entry *afmt_lookup_text(const afmt_validation *c,
                                                      const afmt_type_entry *entries, size_t n,
                                                      const uint8_t *key, size_t len,
                                                      const char *table, const char *field,
                                                      uint64_t index, uint64_t offset,
                                                      const char *known)
{
    const afmt_type_entry *e = afmt_type_by_text(entries, n, key, len);
    return e ? e : afmt_lookup_text_fail(c, table, field, index, offset, key, len, known);
}

/* The element type of table entry e (not NULL). */
static inline afmt_elem afmt_elem_of(const afmt_type_entry *e)
{
    const afmt_elem el = {e->dtype, afmt_dtype_get(e->dtype)->size, e->enc, 0, NULL};
    return el;
}

/* The first of the n entries whose integer key is code, or NULL. */
static inline const afmt_type_entry *afmt_type_by_code(const afmt_type_entry *table, size_t n,
                                                       uint64_t code)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (!table[i].text && table[i].code == code)
            return &table[i];
    return NULL;
}

/* One entry of a spec's type table keyed by two integers (RawArray's
 * eltype and elbyte; a static const array per table in generated code),
 * with the warning a match gives (NULL: none). */
typedef struct afmt_type_entry2 {
    uint64_t key[2];
    afmt_dtype dtype;
    afmt_encoding enc;
    int writable;         /* a writer may choose this entry */
    const char *warn;
} afmt_type_entry2;

/* The element type of two-key entry e; AFMT_ELEM_NONE when e is NULL. */
static inline afmt_elem afmt_elem_of2(const afmt_type_entry2 *e)
{
    afmt_elem el = AFMT_ELEM_NONE;
    if (e) {
        el.dtype = e->dtype;
        el.size = afmt_dtype_get(e->dtype)->size;
        el.enc = e->enc;
    }
    return el;
}

/* The first of the n entries whose keys are k0 and k1, or NULL. */
static inline const afmt_type_entry2 *afmt_type_by_codes(const afmt_type_entry2 *table, size_t n,
                                                         uint64_t k0, uint64_t k1)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (table[i].key[0] == k0 && table[i].key[1] == k1)
            return &table[i];
    return NULL;
}
/* The first writable entry of the n for dtype (what a writer writes), or
 * NULL. */
AFMT_GEN_API const afmt_type_entry *afmt_type_by_dtype(const afmt_type_entry *table, size_t n, afmt_dtype dtype);
/* afmt_type_by_dtype for a table of two keys. */
AFMT_GEN_API const afmt_type_entry2 *afmt_type_by_dtype2(const afmt_type_entry2 *table, size_t n,
                                                         afmt_dtype dtype);

#ifdef __cplusplus
}
#endif
#endif
