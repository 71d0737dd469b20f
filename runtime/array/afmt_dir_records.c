/* afmt runtime (internal): a spec's directory of arrays placed by records
 * (afmt_dir_records.h). */
#include "afmt_dir_records.h"
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "afmt_array.h"
#include "../common/afmt_bytes.h"
#include "afmt_dir.h"

/* The element count and bytes of r (dims already copied at dims). */
static int sizes(afmt_validation *c, const afmt_dir_desc *d, afmt_dir_rec *r, const uint64_t *dims)
{
    uint64_t count = 1, k, fastest;
    int zero = 0;
    for (k = 0; k < r->rank; k++) zero |= dims[k] == 0;
    for (k = 0; k < r->rank && !zero; k++)
        if (afmt_checked_mul_u64(count, dims[k], &count))
            return afmt_fail_c(c, AFMT_E_OVERFLOW, d->shape_field, AFMT_NO_INDEX, r->dims_at,
                               "the product of the dims overflows 64 bits");
    r->count = zero ? 0 : count;
    if (r->el.block > 1) {
        fastest = r->rank == 0 ? 1 : dims[d->fastest_first ? 0 : r->rank - 1];
        k = r->rank == 0 ? AFMT_NO_INDEX : d->fastest_first ? 0 : r->rank - 1;
        if (fastest % r->el.block != 0)
            return afmt_fail_c(c, AFMT_E_CONSTRAINT, d->shape_field, k,
                               r->dims_at + (k == AFMT_NO_INDEX ? 0 : k * d->dims_width),
                               "%" PRIu64 " is not a multiple of %" PRIu64 ", the block of %s",
                               fastest, r->el.block, r->el.name ? r->el.name : "its type");
        if (afmt_checked_mul_u64(r->count / r->el.block, r->el.size, &r->nbytes))
            return afmt_fail_c(c, AFMT_E_OVERFLOW, d->shape_field, AFMT_NO_INDEX, r->dims_at,
                               "%" PRIu64 " blocks of %" PRIu64 " bytes overflow 64 bits", r->count / r->el.block,
                               r->el.size);
        return 0;
    }
    if (r->el.enc == AFMT_ENC_BITS_LSB) {
        /* bit-packed, as a dense array of the type and the view say */
        r->nbytes = afmt_ceil_div_u64(r->count, 8);
        return 0;
    }
    if (afmt_checked_mul_u64(r->count, r->el.size, &r->nbytes))
        return afmt_fail_c(c, AFMT_E_OVERFLOW, d->shape_field, AFMT_NO_INDEX, r->dims_at,
                           "%" PRIu64 " elements of %" PRIu64 " bytes overflow 64 bits", r->count, r->el.size);
    return 0;
}

int afmt_dir_add(afmt_validation *c, const afmt_dir_desc *d, afmt_dir_list *l, afmt_elem el, uint64_t dims_at,
                 uint64_t rank, uint64_t name_at, uint64_t name_len, uint64_t begin, uint64_t begin_at)
{
    afmt_dir_rec *r;
    const uint8_t *p;
    uint64_t k, kept = name_len < AFMT_NAME_MAX - 1 ? name_len : AFMT_NAME_MAX - 1;
    /* the dims are a shape: held to the caller's rank limit, as an array
     * item's shape field is */
    if (rank > AFMT_RANK_CAP || (c->opt && rank > c->opt->limits.max_rank))
        return afmt_fail_c(c, AFMT_E_LIMIT, d->shape_field, AFMT_NO_INDEX, dims_at,
                           "rank %" PRIu64 " exceeds the limit of %" PRIu64 " (limits.max_rank)", rank,
                           c->opt && c->opt->limits.max_rank < AFMT_RANK_CAP ? c->opt->limits.max_rank
                                                                             : (uint64_t)AFMT_RANK_CAP);
    if (afmt_scratch_reserve(c, (void **)&l->v, &l->cap, l->n + 1, sizeof *l->v, 16, d->records, "the records") ||
        afmt_scratch_reserve(c, (void **)&l->dims, &l->dims_cap, l->ndims + rank + 1, sizeof *l->dims, 16, d->records,
                             "the records") ||
        afmt_scratch_reserve(c, (void **)&l->names, &l->names_cap, l->nnames + kept + 1, 1, 16, d->records,
                             "the records"))
        return -1;
    r = &l->v[l->n];
    memset(r, 0, sizeof *r);
    r->el = el;
    r->dims_at = dims_at;
    r->rank = rank;
    r->dims = l->ndims;
    p = AFMT_B(c->src, dims_at);
    for (k = 0; k < rank; k++) {
        const uint64_t v = afmt_field_get(p, k, d->dims_width, afmt_order_of(c, d->dims_big));
        if (d->dims_signed && afmt_as_i64(v, 8 * d->dims_width) < 0)
            return afmt_fail_c(c, AFMT_E_NEGATIVE, d->shape_field, k, dims_at + k * d->dims_width,
                               "dimension %" PRId64 " is negative", afmt_as_i64(v, 8 * d->dims_width));
        l->dims[l->ndims + k] = v;
    }
    r->name = l->nnames;
    r->name_kept = kept;
    r->name_len = name_len;
    if (kept) memcpy(l->names + l->nnames, AFMT_B(c->src, name_at), (size_t)kept);
    r->begin = begin;
    r->begin_at = begin_at;
    if (sizes(c, d, r, l->dims + l->ndims)) return -1;
    l->ndims += rank;
    l->nnames += kept;
    l->n++;
    return 0;
}

/* "tensor[3].offset": how afmt_dir_check names an entry. */
typedef struct field_ctx {
    const afmt_dir_desc *d;
} field_ctx;

static void entry_field(void *ctx, const afmt_dir_entry *e, char *out, size_t out_size)
{
    const field_ctx *f = ctx;
    snprintf(out, out_size, "%s[%" PRIu64 "].%s", f->d->records, e->index, f->d->offset_field);
}

/* The zero padding [from, to) of the area (absolute offsets), as much of
 * it as the input holds: a non-zero byte, or padding cut short by the end,
 * is an error (a warning when d->pad_lenient in lenient mode). */
static int padding(afmt_validation *c, const char *field, const afmt_dir_desc *d, uint64_t from, uint64_t to)
{
    uint64_t end = afmt_end(c);
    uint64_t have = to <= end ? to : end > from ? end : from;
    uint64_t k;
    if (have > from && !afmt_src_have(c->src, end, from, have - from)) {
        /* a stream that ended meanwhile knows its length now */
        end = afmt_end(c);
        have = to <= end ? to : end > from ? end : from;
        if (have > from && !afmt_src_have(c->src, end, from, have - from))
            return afmt_fail_c(c, AFMT_E_LIMIT, field, AFMT_NO_INDEX, from, "padding beyond the stream's window");
    }
    for (k = from; k < have; k++)
        if (*AFMT_B(c->src, k) != 0) {
            int rc = d->pad_lenient
                         ? afmt_tolerate_c(c, AFMT_E_PADDING, field, AFMT_NO_INDEX, k, "padding byte is 0x%02x, not 0",
                                           *AFMT_B(c->src, k))
                         : afmt_fail_c(c, AFMT_E_PADDING, field, AFMT_NO_INDEX, k, "padding byte is 0x%02x, not 0",
                                       *AFMT_B(c->src, k));
            if (rc) return -1;
            break;
        }
    if (have < to) {
        /* blamed where the padding starts, as a payload or the padding
         * before the data section cut short is (afmt_padding_fail) */
        int rc = d->pad_lenient
                     ? afmt_tolerate_c(c, AFMT_E_TRUNCATED, field, AFMT_NO_INDEX, from,
                                       "needs %" PRIu64 " bytes of padding, only %" PRIu64 " left", to - from,
                                       have - from)
                     : afmt_fail_c(c, AFMT_E_TRUNCATED, field, AFMT_NO_INDEX, from,
                                   "needs %" PRIu64 " bytes of padding, only %" PRIu64 " left", to - from,
                                   have - from);
        if (rc) return -1;
    }
    c->pos = have;
    /* a stream may drop what is read: the records were copied, and the
     * window then has room to tell the end of the input (a full window at
     * the end of a lenient file could not: stream_gguf, AFL++) */
    afmt_src_keep_from(c->src, have);
    return 0;
}

/* The view of record r at absolute offset at, handed to the visitor. */
static int hand_view(afmt_validation *c, const afmt_dir_desc *d, const afmt_dir_list *l, const afmt_dir_rec *r,
                     uint64_t at)
{
    afmt_array a;
    uint64_t k;
    char field[128];
    afmt_view_start(&a, r->el.dtype, r->el.size, r->el.enc, r->count, AFMT_ROW_MAJOR,
                    afmt_order_of(c, d->payload_big) ? AFMT_BIG : AFMT_LITTLE, r->nbytes, at, c->narrays);
    a.rank = (uint32_t)r->rank;
    for (k = 0; k < r->rank; k++) a.dims[k] = l->dims[r->dims + (d->fastest_first ? r->rank - 1 - k : k)];
    memcpy(a.name, l->names + r->name, (size_t)r->name_kept);
    a.name[r->name_kept] = 0;
    a.name_len = r->name_len;
    afmt_view_type(&a, r->el);
    a.data = afmt_src_ptr(c->src, at, r->nbytes);
    snprintf(field, sizeof field, "%s[%" PRIu64 "]", d->records, (uint64_t)(r - l->v));
    if (c->vis->on_array(c->vis->ctx, &a) != 0)
        return afmt_fail_c(c, AFMT_E_CALLBACK, field, AFMT_NO_INDEX, at, "stopped by the caller");
    return 0;
}

/* A field naming record r by its name ("blk.0.attn_q.weight", with
 * suffix), or by its place ("tensor[3]") when it has none. */
static void rec_field(const afmt_dir_desc *d, const afmt_dir_list *l, const afmt_dir_rec *r, const char *suffix,
                      char *out, size_t size)
{
    uint64_t k;
    int plain = r->name_kept > 0;
    for (k = 0; k < r->name_kept; k++) {
        const unsigned char ch = (unsigned char)l->names[r->name + k];
        plain &= ch >= 0x20 && ch < 0x7f;
    }
    /* a name that is not printable ASCII (a NUL would end it) is named by place */
    if (plain)
        snprintf(out, size, "%.*s%s", (int)r->name_kept, l->names + r->name, suffix);
    else
        snprintf(out, size, "%s[%" PRIu64 "]%s", d->records, (uint64_t)(r - l->v), suffix);
}

/* Take each array's bytes in listed order, each followed by its padding
 * to the alignment (the last too). */
static int take_all(afmt_validation *c, const afmt_dir_desc *d, const afmt_dir_list *l, uint64_t base, uint64_t align)
{
    uint64_t i, bad, done = 0; /* bytes of the area accounted for */
    char field[AFMT_NAME_MAX + 16];
    for (i = 0; i < l->n; i++) {
        const afmt_dir_rec *r = &l->v[i];
        const uint64_t at = base + r->begin;
        uint64_t end;
        if (i > 0) rec_field(d, l, r - 1, ".padding", field, sizeof field);
        if (padding(c, i > 0 ? field : d->name, d, base + done, at)) return -1;
        /* the end as known after the padding: a stream that ran out in a
         * (tolerated) missing padding knows its length now, and an array
         * past it is truncated as in a buffer, even one of 0 bytes
         * (stream_gguf, libFuzzer) */
        end = afmt_end(c);
        rec_field(d, l, r, "", field, sizeof field);
        if (at > end || r->nbytes > end - at)
            return afmt_fail_c(c, AFMT_E_TRUNCATED, field, AFMT_NO_INDEX, at > end ? end : at,
                               "needs %" PRIu64 " bytes (data offset %" PRIu64 "), only %" PRIu64 " left",
                               r->nbytes, r->begin, end > at ? end - at : 0);
        c->pos = at;
        if (c->vis && c->vis->on_array && hand_view(c, d, l, r, at)) return -1;
        if (!afmt_src_take(c->src, end, at, r->nbytes, NULL, NULL, &bad)) {
            /* a stream learns its end as it runs out: say what a buffer says */
            const uint64_t e = afmt_end(c);
            if (at > e || r->nbytes > e - at)
                return afmt_fail_c(c, AFMT_E_TRUNCATED, field, AFMT_NO_INDEX, at > e ? e : at,
                                   "needs %" PRIu64 " bytes (data offset %" PRIu64 "), only %" PRIu64 " left",
                                   r->nbytes, r->begin, e > at ? e - at : 0);
            return afmt_take_payload_short(c, field, r->nbytes);
        }
        c->narrays++;
        done = r->begin + r->nbytes;
    }
    if (l->n) rec_field(d, l, &l->v[l->n - 1], ".padding", field, sizeof field);
    return padding(c, l->n ? field : d->name, d, base + done, base + (done + (align - done % align) % align));
}

int afmt_dir_place(afmt_validation *c, const afmt_dir_desc *d, const afmt_dir_list *l, uint64_t align)
{
    afmt_dir_entry *e = NULL;
    afmt_dir_policy pol;
    field_ctx fc;
    uint64_t i, covered = 0;
    if (align == 0) align = 1;
    if (l->n) {
        e = afmt_scratch_grow(c, NULL, l->n * sizeof *e, d->name);
        if (!e) return -1;
    }
    for (i = 0; i < l->n; i++) {
        e[i].begin = l->v[i].begin;
        e[i].size = l->v[i].nbytes;
        e[i].index = i;
        e[i].name = l->names + l->v[i].name;
        e[i].name_len = (size_t)l->v[i].name_kept;
        e[i].record_offset = l->v[i].begin_at;
    }
    memset(&pol, 0, sizeof pol);
    fc.d = d;
    pol.order = AFMT_DIR_LISTED;
    pol.layout = AFMT_DIR_TILE;
    pol.tail = AFMT_DIR_TAIL_PAD;
    pol.align = align;
    pol.area_size = AFMT_DIR_AREA_OPEN;
    pol.area_base = c->pos;
    pol.area_field = d->name;
    pol.path = c->path;
    pol.field = entry_field;
    pol.field_ctx = &fc;
    if (afmt_dir_check(&pol, e, (size_t)l->n, NULL, &covered, c->err) != 0) return -1;
    return take_all(c, d, l, c->pos, align);
}
